// `foresight provider serve` with a bad environment: a clear error on stderr and exit status 1, nothing on stdout
// (the handshake line is never half written), no internal error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../../server/plugin/handshake';
import { CLI } from './_served';

const serve = (env: Record<string, string>) =>
  spawnSync(process.execPath, [CLI, 'provider', 'serve', 'random'], { env: { ...process.env, [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: '5,6', ...env }, encoding: 'utf8', timeout: 60_000 });

test('a PLUGIN_CLIENT_CERT that is not a PEM certificate', () => {
  const r = serve({ PLUGIN_CLIENT_CERT: 'garbage' });
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'Error: PLUGIN_CLIENT_CERT does not hold a PEM certificate; the plugin cannot serve mTLS\n');
});

test('a PLUGIN_UNIX_SOCKET_DIR that does not exist', () => {
  const r = serve({ PLUGIN_UNIX_SOCKET_DIR: '/nonexistent/foresight-test' });
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, "Error: the provider plugin could not start: ENOENT: no such file or directory, mkdtemp '/nonexistent/foresight-test/pluginXXXXXX'\n");
});

test('an SDK module path that does not exist, and one that exports no provider', () => {
  const r = spawnSync(process.execPath, [CLI, 'provider', 'serve', './no-such-provider.js'], { env: { ...process.env, [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE }, encoding: 'utf8', cwd: '/tmp' });
  assert.equal(r.status, 1);
  assert.equal(r.stderr, 'Error: No provider module at /tmp/no-such-provider.js.\n');
  const dir = mkdtempSync(join(tmpdir(), 'foresight-noprov-'));
  try {
    writeFileSync(join(dir, 'empty.js'), 'exports.something = 1;\n');
    const e = spawnSync(process.execPath, [CLI, 'provider', 'serve', './empty.js'], { env: { ...process.env, [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE }, encoding: 'utf8', cwd: dir });
    assert.equal(e.status, 1);
    assert.equal(e.stdout, '');
    assert.equal(e.stderr, `Error: the provider plugin could not start: ${join(dir, 'empty.js')} exports no provider (expected "provider" or a default export: a Provider or a function returning one)\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
