// Builds the fcntl lock addon in native/fcntl (see fcntl_lock.c) with node-gyp. Run by `npm ci` / `npm install`
// (the root package's "install" script) and usable by hand: `node native/build.mjs`.
//
// node-gyp is the copy bundled with npm: npm passes its path in npm_config_node_gyp to lifecycle scripts; by hand
// the script looks for it beside the running node. A failed build is reported loudly but does not fail the
// install: Foresight then falls back to a lock that only excludes other Foresight processes (flock.ts says so at
// run time), so an editor user without a compiler still gets a working extension.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const candidates = [
  process.env.npm_config_node_gyp,
  join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  join(dirname(process.execPath), 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
].filter((p) => p && existsSync(p));

let ok = false;
if (candidates.length === 0) {
  console.warn('foresight: node-gyp not found; the fcntl state-lock addon was not built');
} else {
  const args = [candidates[0], 'rebuild', '--directory', join(here, 'fcntl')];
  // Build against the headers installed with node when they are there (no download needed); npm passes its
  // own `nodedir` setting as npm_config_nodedir, which node-gyp reads by itself.
  const prefix = join(dirname(process.execPath), '..');
  if (!process.env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node_api.h'))) {
    args.push(`--nodedir=${prefix}`);
  }
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
  ok = r.status === 0;
  if (!ok) console.warn('foresight: building the fcntl state-lock addon failed; state locking will not exclude terraform');
}
process.exit(0);
void ok;
