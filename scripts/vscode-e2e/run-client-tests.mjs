#!/usr/bin/env node
// `npm run test:e2e` (and the e2e step of `npm test`): the extension's integration tests in a real VS Code.
//  1. installs code-server, Node 24, Chromium and playwright-core into .vscode-test/ (install.sh, idempotent);
//  2. builds the extension (esbuild.mjs) and bundles test/client/suite (mocha inside) to .test-work/client-suite/;
//  3. copies examples/ to a temp dir, runs `foresight init` there, and runs the suite in code-server's extension
//     host with that folder open (run-extension-tests.mjs); then again on a fresh copy with workspace trust on
//     (FORESIGHT_E2E_MODE=untrusted), and on an empty folder (FORESIGHT_E2E_MODE=empty).
// Options: --skip-install (use the cache as it is), --only trusted|untrusted|empty, --verbose, --logs DIR.
// Exit status 0 when every run passed. Temp dirs are removed; code-server and Chromium are always stopped.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleSuite, workspaceCopy } from './bundle-suite.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const { values: opts } = parseArgs({
  options: {
    'skip-install': { type: 'boolean', default: false },
    only: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    logs: { type: 'string' },
  },
});
const t0 = Date.now();
const say = (m) => console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const cache = path.join(root, '.vscode-test');

if (!opts['skip-install']) {
  say('installing code-server, Node 24, Chromium, playwright-core into .vscode-test (skipped when present)');
  execFileSync('bash', [path.join(here, 'install.sh'), cache], { stdio: 'inherit', cwd: root });
}
say('building the extension and the test bundle');
const suite = await bundleSuite(root);

const modes = opts.only ? [opts.only] : ['trusted', 'untrusted', 'empty'];
let failed = 0;
for (const mode of modes) {
  const ws = mode === 'empty' ? fs.mkdtempSync(path.join(os.tmpdir(), 'foresight-e2e-empty-')) : workspaceCopy(root, mode === 'trusted');
  try {
    say(`suite "${mode}" on ${mode === 'empty' ? 'an empty folder' : 'a copy of examples/'} in ${ws}`);
    const args = [
      path.join(here, 'run-extension-tests.mjs'),
      '--cache', cache,
      '--extension', root,
      '--tests', suite,
      '--workspace', ws,
      '--env', `FORESIGHT_E2E_MODE=${mode}`,
      '--timeout', '600',
    ];
    if (mode === 'untrusted') args.push('--workspace-trust');
    if (opts.verbose) args.push('--verbose');
    if (opts.logs) args.push('--logs', path.join(opts.logs, mode));
    const r = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root });
    if (r.status !== 0) failed++;
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
  }
}
say(failed ? `${failed} of ${modes.length} suite runs FAILED` : `all ${modes.length} suite runs passed`);
process.exit(failed ? 1 : 0);
