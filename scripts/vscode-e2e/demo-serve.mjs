#!/usr/bin/env node
// The interactive part of `npm run demo`: installs code-server into .vscode-test/ (install.sh, idempotent), puts
// the built extension into it as a user install, opens a fresh initialised copy of examples/ and prints the
// 127.0.0.1 URL to open in a browser. Serves until Ctrl-C, then stops code-server and removes the copy.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCodeServer, workbenchUrl } from './lib.mjs';
import { stageExtension } from './stage-extension.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const cache = path.join(root, '.vscode-test');
execFileSync('bash', [path.join(here, 'install.sh'), cache], { stdio: 'inherit' });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'foresight-demo-'));
const ws = path.join(work, 'examples');
fs.cpSync(path.join(root, 'examples'), ws, { recursive: true });
execFileSync(process.execPath, [path.join(root, 'dist/cli.js'), 'init', '-input=false', '-no-color'], { cwd: ws, stdio: 'pipe' });
const staged = stageExtension(root, path.join(work, 'extension'));
const server = await startCodeServer({ cacheDir: cache, installExtensions: [staged], idleTimeoutSeconds: 0, settings: { 'workbench.startupEditor': 'none' } });
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping code-server');
  await server.stop();
  fs.rmSync(work, { recursive: true, force: true });
  process.exit(0);
};
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, stop);
const url = workbenchUrl(server, { folder: ws });
console.log(`
Foresight is installed in VS Code (code-server ${server.url}, pid ${server.pid}) with a copy of examples/ open:

    ${url}

Open it in a browser on this machine. Open main.tf: the plan preview shows as code lenses, hovers and inlay
hints; the Foresight view (eye icon in the activity bar) has the Resources and Runs trees; run "Foresight: Apply"
from the command palette (F1). Press Ctrl-C here to stop.`);
if (process.env.FORESIGHT_DEMO_SMOKE) {
  // Scripted check of the serving part: the workbench page answers, then stop.
  const res = await fetch(url);
  console.log(`demo smoke: GET workbench → ${res.status}`);
  await stop();
}
