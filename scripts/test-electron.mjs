#!/usr/bin/env node
// `npm run test:electron`: the same mocha suite as `npm run test:e2e`, run the standard way with
// @vscode/test-electron, which downloads a VS Code build (needs internet; not run in CI, where
// scripts/vscode-e2e/run-client-tests.mjs runs it in code-server instead). Runs the trusted suite on an
// initialised copy of examples/; set VSCODE_VERSION to pick a version (default: stable).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleSuite, workspaceCopy } from './vscode-e2e/bundle-suite.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { runTests } = await import('@vscode/test-electron');
const suite = await bundleSuite(root);
const ws = workspaceCopy(root, true);
let code = 0;
try {
  await runTests({
    version: process.env.VSCODE_VERSION || 'stable',
    extensionDevelopmentPath: root,
    extensionTestsPath: suite,
    launchArgs: [ws, '--disable-extensions', '--disable-workspace-trust'],
    extensionTestsEnv: { FORESIGHT_E2E_MODE: 'trusted' },
  });
} catch (e) {
  console.error(`test-electron: ${e instanceof Error ? e.message : e}`);
  code = 1;
} finally {
  fs.rmSync(ws, { recursive: true, force: true });
}
process.exit(code);
