// Shared by run-client-tests.mjs (code-server) and scripts/test-electron.mjs (a downloaded VS Code): builds the
// extension, bundles the mocha suite test/client/suite/index.ts (mocha inside, vscode external) to
// .test-work/client-suite/index.js, and makes initialised copies of examples/ to open.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export async function bundleSuite(root) {
  execFileSync(process.execPath, ['esbuild.mjs'], { stdio: 'inherit', cwd: root });
  const { build } = await import(path.join(root, 'node_modules/esbuild/lib/main.js'));
  const outDir = path.join(root, '.test-work', 'client-suite');
  fs.rmSync(outDir, { recursive: true, force: true });
  await build({
    entryPoints: [path.join(root, 'test/client/suite/index.ts')],
    outfile: path.join(outDir, 'index.js'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'inline',
    external: ['vscode'],
    logLevel: 'error',
  });
  return path.join(outDir, 'index.js');
}

/** A temp copy of examples/; `init` runs `foresight init` in it (the local module is installed). */
export function workspaceCopy(root, init) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'foresight-e2e-ws-'));
  fs.cpSync(path.join(root, 'examples'), dir, { recursive: true });
  if (init) execFileSync(process.execPath, [path.join(root, 'dist/cli.js'), 'init', '-input=false', '-no-color'], { cwd: dir, stdio: 'pipe' });
  return dir;
}
