// The test command (`npm test`, also run by .ci/run): type-checks, builds the bundles, bundles every
// test/**/*.test.ts with esbuild and runs them with Node's built-in test runner.
// `node scripts/test.mjs [substring...]` runs only test files whose path contains one of the substrings.
import * as esbuild from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const filters = process.argv.slice(2);
function walk(dir) {
  const out = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (p.endsWith('.test.ts')) out.push(p);
  }
  return out;
}
const files = walk('test').filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));

if (filters.length === 0) {
  console.log('# type-check');
  execFileSync('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit'], { stdio: 'inherit' });
}
execFileSync('node', ['esbuild.mjs'], { stdio: 'inherit' });

// Each run bundles into its own directory so concurrent runs do not delete each other's files.
const outdir = `.test-out-${process.pid}`;
rmSync(outdir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: files,
  outdir,
  outbase: '.',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'inline',
  logLevel: 'warning',
  loader: { '.txt': 'text', '.proto': 'text' },
  // web-tree-sitter reads import.meta.url to find its files; give the CommonJS bundles a real one.
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('url').pathToFileURL(__filename).href;" },
  external: ['vscode'],
});
const outs = files.map((f) => join(outdir, f.replace(/\.ts$/, '.js')));
const r = spawnSync('node', ['--test', '--test-reporter=spec', ...outs], { stdio: 'inherit' });
rmSync(outdir, { recursive: true, force: true });
// Without a filter, also the extension in a real VS Code (code-server, installed into .vscode-test/ on first
// use) and the Playwright UI test: scripts/vscode-e2e/run-client-tests.mjs and test/ui/ui.mjs.
// FORESIGHT_SKIP_E2E=1 leaves them out (e.g. on machines without apt).
let e2e = 0;
if (filters.length === 0 && process.env.FORESIGHT_SKIP_E2E) {
  console.log('# NOTICE: FORESIGHT_SKIP_E2E is set: the extension tests in code-server and the UI test did not run');
} else if (filters.length === 0) {
  console.log('# extension tests in code-server');
  const ext = spawnSync('node', ['scripts/vscode-e2e/run-client-tests.mjs'], { stdio: 'inherit' }).status ?? 1;
  console.log('# UI test (Playwright)');
  const ui = spawnSync('node', ['test/ui/ui.mjs', '--skip-install', '--screenshots', '.test-work/ui-screenshots'], { stdio: 'inherit' }).status ?? 1;
  e2e = ext || ui;
}
process.exit(r.status || e2e);
