// The http state backend (server/backends/http) against a local state server (httpServer.ts): configuration and its
// errors, the exact requests (methods, URLs, headers, bodies, Content-MD5, basic auth), GET status handling, lock and
// unlock with lock info bodies, ?ID= on writes while locked, lock conflicts with Terraform's message, retries with
// retryablehttp's backoff, workspaces errors, TLS, and the apply journal's durability and recovery.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { State, SyncState, type Change } from '../../server/states/state';
import { readStateFile, writeStateFile } from '../../server/states/statefile';
import { acquireLock, LockError, lockAcquireDiagnostic, lockInfoJSON, lockInfoString, type LockInfo } from '../../server/states/statemgr';
import { configureHttpBackend, HttpBackend, HttpLockError, WorkspacesNotSupportedError } from '../../server/backends/http/index';
import { backoff, goUnmarshalLockInfo, withLockID } from '../../server/backends/http/client';
import { decodeJournal } from '../../server/backends/local/journal';
import { ForwardProxy, hasOpenssl, makeCerts, StateServer } from './httpServer';
import { proxyFor } from '../../server/backends/http/proxy';

const md5 = (s: string) => createHash('md5').update(Buffer.from(s, 'utf8')).digest('base64');

function withOutput(s: State, name: string, v: string): State {
  s.outputs.set(name, { valueJSON: JSON.stringify(v), typeJSON: '"string"', sensitive: false });
  return s;
}

function info(id: string, op = 'OperationTypeApply'): LockInfo {
  return { ID: id, Operation: op, Info: '', Who: 'tester@host', Version: '1.11.4', Created: '2026-11-23T06:00:00.123456789Z', Path: '' };
}

function backend(srv: StateServer, attrs: Record<string, unknown> = {}, env: Record<string, string> = {}, sleeps?: number[]): HttpBackend {
  const r = configureHttpBackend(
    { address: `${srv.base}/state`, lock_address: `${srv.base}/lock`, unlock_address: `${srv.base}/lock`, ...attrs },
    env,
    { sleep: async (ms) => void sleeps?.push(ms) },
  );
  assert.deepEqual(r.diagnostics, []);
  return r.backend!;
}

async function withServer(fn: (srv: StateServer) => Promise<void>, opts?: ConstructorParameters<typeof StateServer>[0]): Promise<void> {
  const srv = await new StateServer(opts).start();
  try {
    await fn(srv);
  } finally {
    await srv.stop();
  }
}

// ---- configuration -----------------------------------------------------------------------------------------------

test('configuration errors are Terraform\'s, in its order', () => {
  const err = (attrs: Record<string, unknown>, env: Record<string, string> = {}) => {
    const r = configureHttpBackend(attrs, env);
    assert.equal(r.backend, undefined);
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0].severity, 'error');
    assert.equal(r.diagnostics[0].detail, undefined);
    return r.diagnostics[0].summary;
  };
  assert.equal(err({}), 'address argument is required');
  assert.equal(err({ address: '' }), 'address argument is required');
  assert.equal(err({ address: 'ftp://x/state' }), 'address must be HTTP or HTTPS');
  assert.equal(err({ address: 'localhost/state' }), 'address must be HTTP or HTTPS');
  assert.equal(err({ address: ':8080/state' }), 'failed to parse address URL: parse ":8080/state": missing protocol scheme');
  assert.equal(err({ address: 'http://x/\x7f' }), 'failed to parse address URL: parse "http://x/\\x7f": net/url: invalid control character in URL');
  assert.equal(err({ address: 'http://x/s', lock_address: 'x' }), 'lock_address must be HTTP or HTTPS');
  assert.equal(err({ address: 'http://x/s', unlock_address: 'file:///x' }), 'unlock_address must be HTTP or HTTPS');
  assert.equal(err({ address: 'http://x/s', retry_max: 1.5 }), 'invalid retry_max: must not be a whole number');
  assert.equal(err({ address: 'http://x/s' }, { TF_HTTP_RETRY_WAIT_MIN: 'soon' }), 'invalid retry_wait_min: a number is required');
  assert.equal(err({ address: 'http://x/s', retry_wait_max: '2.5' }), 'invalid retry_wait_max: must not be a whole number');
  assert.equal(err({ address: 'http://x/s', client_certificate_pem: 'x' }), 'client_certificate_pem is set but client_private_key_pem is not');
  assert.equal(err({ address: 'http://x/s', client_private_key_pem: 'x' }), 'client_private_key_pem is set but client_certificate_pem is not');
  assert.equal(err({ address: 'http://x/s', client_ca_certificate_pem: 'not a pem' }), 'failed to append certs');
  assert.equal(
    err({ address: 'http://x/s', client_certificate_pem: 'x', client_private_key_pem: 'y' }),
    'cannot load client certificate: tls: failed to find any PEM data in certificate input',
  );
});

test('defaults and TF_HTTP_* environment variables (attributes win; empty variables are unset)', () => {
  const d = configureHttpBackend({ address: 'http://h/s' }, {}).backend!.config;
  assert.deepEqual(
    [d.updateMethod, d.lockAddress, d.lockMethod, d.unlockAddress, d.unlockMethod, d.username, d.password, d.retryMax, d.retryWaitMin, d.retryWaitMax, d.tls],
    ['POST', undefined, 'LOCK', undefined, 'UNLOCK', '', '', 2, 1, 30, undefined],
  );
  const env = {
    TF_HTTP_ADDRESS: 'https://e/s',
    TF_HTTP_UPDATE_METHOD: 'PUT',
    TF_HTTP_LOCK_ADDRESS: 'https://e/l',
    TF_HTTP_LOCK_METHOD: 'POST',
    TF_HTTP_UNLOCK_ADDRESS: 'https://e/u',
    TF_HTTP_UNLOCK_METHOD: 'DELETE',
    TF_HTTP_USERNAME: 'u',
    TF_HTTP_PASSWORD: 'p',
    TF_HTTP_RETRY_MAX: '5',
    TF_HTTP_RETRY_WAIT_MIN: '2',
    TF_HTTP_RETRY_WAIT_MAX: '9',
  };
  const e = configureHttpBackend({}, env).backend!.config;
  assert.deepEqual(
    [e.address, e.updateMethod, e.lockAddress, e.lockMethod, e.unlockAddress, e.unlockMethod, e.username, e.password, e.retryMax, e.retryWaitMin, e.retryWaitMax],
    ['https://e/s', 'PUT', 'https://e/l', 'POST', 'https://e/u', 'DELETE', 'u', 'p', 5, 2, 9],
  );
  const a = configureHttpBackend({ address: 'http://a/s', username: 'au', retry_max: 0 }, { ...env, TF_HTTP_PASSWORD: '' }).backend!.config;
  assert.deepEqual([a.address, a.username, a.password, a.retryMax], ['http://a/s', 'au', '', 0]);
  assert.deepEqual(configureHttpBackend({ address: 'http://a/s', skip_cert_verification: true }, {}).backend!.config.tls, { skipVerify: true });
});

test('Go helpers: ?ID= query encoding, backoff, lock info unmarshalling', () => {
  assert.equal(withLockID('http://h/state', 'a-b'), 'http://h/state?ID=a-b');
  assert.equal(withLockID('http://h/state?z=1&a=x+y&ID=old', 'n/1'), 'http://h/state?ID=n%2F1&a=x+y&z=1');
  const r = (status: number, ra?: string) => ({ status, statusText: '', headers: ra ? { 'retry-after': ra } : {}, body: Buffer.alloc(0) });
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => backoff(1000, 30000, i, r(500))), [1000, 2000, 4000, 8000, 16000, 30000]);
  assert.equal(backoff(1000, 30000, 0, r(429, '7')), 7000);
  assert.equal(backoff(1000, 30000, 0, r(503, '3')), 3000);
  assert.equal(backoff(1000, 30000, 0, r(500, '3')), 1000);
  assert.deepEqual(goUnmarshalLockInfo('null'), { ID: '', Operation: '', Info: '', Who: '', Version: '', Created: '', Path: '' });
  assert.equal(goUnmarshalLockInfo('{"ID":5}'), undefined);
  assert.equal(goUnmarshalLockInfo(''), undefined);
  assert.equal(goUnmarshalLockInfo('{"id":"x","Created":"yesterday"}'), undefined);
  assert.equal(goUnmarshalLockInfo('{"id":"x"}')!.ID, 'x');
});

// ---- state reads and writes ---------------------------------------------------------------------------------------

test('GET: 404, 204 and an empty 200 mean no state; 401/403/other codes give Terraform\'s errors', async () => {
  await withServer(async (srv) => {
    const mgr = await backend(srv, { retry_max: 0 }).stateMgr('default');
    assert.deepEqual(await mgr.refresh(), []);
    assert.equal(mgr.read(), null);
    srv.inject.push({ status: 204 }, { status: 200, body: '' });
    assert.deepEqual(await mgr.refresh(), []);
    assert.deepEqual(await mgr.refresh(), []);
    assert.equal(mgr.read(), null);
    const msgs: string[] = [];
    for (const status of [401, 403, 418, 501]) {
      srv.inject.push({ status });
      msgs.push((await mgr.refresh())[0].summary);
    }
    assert.deepEqual(msgs, [
      'error loading state: HTTP remote state endpoint requires auth',
      'error loading state: HTTP remote state endpoint invalid auth',
      'error loading state: Unexpected HTTP response code 418',
      'error loading state: Unexpected HTTP response code 501',
    ]);
    srv.inject.push({ status: 200, body: '{"version":4}', headers: { 'Content-MD5': 'not base64!' } });
    assert.equal((await mgr.refresh())[0].summary, "error loading state: Failed to decode Content-MD5 'not base64!': illegal base64 data at input byte 3");
    assert.deepEqual(
      srv.requests.map((r) => [r.method, r.url, r.body, r.headers['content-type'], r.headers['content-md5'], r.headers['authorization']]),
      Array(8).fill(['GET', '/state', '', undefined, undefined, undefined]),
    );
  });
});

test('persist: first write GETs, then POSTs serial 1 with a new lineage, JSON content type and Content-MD5; unchanged persists send nothing', async () => {
  await withServer(async (srv) => {
    const mgr = await backend(srv).stateMgr('default');
    assert.deepEqual(await mgr.refresh(), []);
    mgr.write(withOutput(new State(), 'a', 'x'));
    assert.deepEqual(await mgr.persist(), []);
    const body = srv.state!.toString('utf8');
    const f1 = readStateFile(body).file!;
    assert.equal(f1.serial, 1);
    assert.match(f1.lineage, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(body, writeStateFile(f1));
    assert.deepEqual(mgr.meta(), { serial: 1, lineage: f1.lineage });
    const post = srv.requests[2];
    assert.deepEqual(
      srv.requests.map((r) => `${r.method} ${r.url}`),
      ['GET /state', 'GET /state', 'POST /state'],
    );
    assert.equal(post.headers['content-type'], 'application/json');
    assert.equal(post.headers['content-md5'], md5(body));
    assert.equal(post.headers['content-length'], String(Buffer.byteLength(body)));
    // Unchanged: no request.
    assert.deepEqual(await mgr.persist(), []);
    assert.equal(srv.requests.length, 3);
    // Changed: serial 2, same lineage.
    mgr.write(withOutput(mgr.read()!, 'b', 'y'));
    assert.deepEqual(await mgr.persist(), []);
    const f2 = readStateFile(srv.state!.toString('utf8')).file!;
    assert.deepEqual([f2.serial, f2.lineage], [2, f1.lineage]);
    assert.equal(srv.requests.length, 4);
    // A second manager reads what the first wrote.
    const other = await backend(srv).stateMgr('default');
    assert.deepEqual(await other.refresh(), []);
    assert.deepEqual(other.meta(), { serial: 2, lineage: f1.lineage });
    assert.equal(writeStateFile({ terraformVersion: '1.11.4', serial: 2, lineage: f1.lineage, state: other.read()! }), srv.state!.toString('utf8'));
    // A refresh that sees the same state followed by a persist sends nothing.
    assert.deepEqual(await other.persist(), []);
    assert.equal(srv.requests.length, 5);
  });
});

test('update_method, lock_method and unlock_method are used; basic auth on every request', async () => {
  await withServer(
    async (srv) => {
      const b = backend(srv, { update_method: 'PUT', lock_method: 'PUT', unlock_method: 'DELETE', username: 'alice', password: 'pa:ss' });
      const mgr = await b.stateMgr('default');
      const li = info('11111111-2222-3333-4444-555555555555');
      assert.equal(await mgr.lock(li), li.ID);
      assert.deepEqual(await mgr.refresh(), []);
      mgr.write(withOutput(new State(), 'a', 'x'));
      assert.deepEqual(await mgr.persist(), []);
      await mgr.unlock(li.ID);
      assert.deepEqual(
        srv.requests.map((r) => `${r.method} ${r.url}`),
        ['PUT /lock', 'GET /state', 'GET /state', `PUT /state?ID=${li.ID}`, 'DELETE /lock'],
      );
      const auth = 'Basic ' + Buffer.from('alice:pa:ss').toString('base64');
      assert.ok(srv.requests.every((r) => r.headers.authorization === auth));
      assert.equal(srv.requests[0].body, lockInfoJSON(li));
      assert.equal(srv.requests[4].body, lockInfoJSON(li));
      assert.equal(srv.requests[0].headers['content-md5'], md5(lockInfoJSON(li)));
      assert.equal(srv.requests[0].headers['content-type'], 'application/json');
    },
    { auth: { username: 'alice', password: 'pa:ss' } },
  );
});

test('auth failures: 401 without credentials, 403 with wrong ones, for state and lock requests', async () => {
  await withServer(
    async (srv) => {
      const none = await backend(srv).stateMgr('default');
      assert.equal((await none.refresh())[0].summary, 'error loading state: HTTP remote state endpoint requires auth');
      await assert.rejects(none.lock(info('a')), (e: Error) => !(e instanceof LockError) && e.message === 'HTTP remote state endpoint requires auth');
      const wrong = await backend(srv, { username: 'bob', password: 'x' }).stateMgr('default');
      assert.equal((await wrong.refresh())[0].summary, 'error loading state: HTTP remote state endpoint invalid auth');
      await assert.rejects(wrong.lock(info('a')), { message: 'HTTP remote state endpoint invalid auth' });
      wrong.write(new State());
      const d = await wrong.persist();
      assert.equal(d[0].summary, 'Failed to save state');
      assert.equal(d[0].detail, 'Error saving state: failed checking for existing remote state: HTTP remote state endpoint invalid auth');
      // Credentials in the address are used when no username is configured, as Go's client does.
      const inURL = configureHttpBackend({ address: `http://alice:pw@127.0.0.1:${srv.port}/state` }, {}).backend!;
      assert.deepEqual(await (await inURL.stateMgr('default')).refresh(), []);
      assert.equal(srv.requests.at(-1)!.headers.authorization, 'Basic ' + Buffer.from('alice:pw').toString('base64'));
    },
    { auth: { username: 'alice', password: 'pw' } },
  );
});

// ---- locking ------------------------------------------------------------------------------------------------------

test('lock conflict: "HTTP remote state already locked: ID=<holder>" with our lock info, as Terraform prints it', async () => {
  await withServer(async (srv) => {
    const a = await backend(srv).stateMgr('default');
    const b = await backend(srv).stateMgr('default');
    const held = info('aaaaaaaa-0000-0000-0000-000000000001');
    await a.lock(held);
    const mine = info('bbbbbbbb-0000-0000-0000-000000000002', 'OperationTypePlan');
    let err: unknown;
    try {
      await b.lock(mine);
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof LockError);
    assert.equal((err as Error).message, `HTTP remote state already locked: ID=${held.ID}\n${lockInfoString(mine)}`);
    // The holder's own lock info is kept for the editor: any manager of this lock address (a new one, as the
    // language server's state request makes) tells it, until a lock of that address succeeds.
    assert.ok(err instanceof HttpLockError);
    assert.deepEqual((err as HttpLockError).holder, held);
    const told = await (await backend(srv).stateMgr('default')).lockHolder();
    assert.ok(told);
    assert.deepEqual([told.id, told.who, told.created], [held.ID, held.Who, held.Created]);
    assert.match(told.operation, /^OperationTypeApply \(as the lock server answered a run refused at \d{4}-\d\d-\d\dT/);
    const d = lockAcquireDiagnostic(err as Error);
    assert.equal(d.summary, 'Error acquiring the state lock');
    assert.equal(
      d.detail,
      'Error message: HTTP remote state already locked: ID=aaaaaaaa-0000-0000-0000-000000000001\n' +
        'Lock Info:\n' +
        '  ID:        bbbbbbbb-0000-0000-0000-000000000002\n' +
        '  Path:      \n' +
        '  Operation: OperationTypePlan\n' +
        '  Who:       tester@host\n' +
        '  Version:   1.11.4\n' +
        '  Created:   2026-11-23 06:00:00.123456789 +0000 UTC\n' +
        '  Info:      \n' +
        '\n\n' +
        'Terraform acquires a state lock to protect the state from being written\n' +
        'by multiple users at the same time. Please resolve the issue above and try\n' +
        'again. For most commands, you can disable locking with the "-lock=false"\n' +
        'flag, but this is not recommended.',
    );
    // A write by the other manager without the lock is refused by the server (no ?ID=).
    b.write(withOutput(new State(), 'x', 'y'));
    assert.equal((await b.persist())[0].detail, 'Error saving state: HTTP error: 409');
    // 409 works like 423; an unreadable holder body is reported.
    srv.opts.conflictStatus = 409;
    srv.conflictBody = 'garbage';
    await assert.rejects(b.lock(mine), (e: Error) => e instanceof LockError && e.message === `HTTP remote state already locked, failed to unmarshal body\n${lockInfoString(mine)}`);
    srv.conflictBody = undefined;
    await a.unlock(held.ID);
    assert.equal(srv.lock, undefined);
    assert.equal(await b.lock(mine), mine.ID);
    assert.equal(await (await backend(srv).stateMgr('default')).lockHolder(), undefined, 'forgotten once a lock succeeded');
    // acquireLock with a timeout retries a LockError until the holder lets go.
    const c = await backend(srv).stateMgr('default');
    setTimeout(() => void b.unlock(mine.ID), 300);
    const got = await acquireLock(c, info('cccccccc-0000-0000-0000-000000000003'), 5000);
    assert.deepEqual(got, { id: 'cccccccc-0000-0000-0000-000000000003', diags: [] });
    await c.unlock(got.id!);
  });
});

test('lock: Created is filled in when empty; other status codes; no lock_address makes locking a no-op', async () => {
  await withServer(async (srv) => {
    const mgr = await backend(srv).stateMgr('default');
    await mgr.lock({ ...info('dddddddd-0000-0000-0000-000000000004'), Created: '' });
    const sent = JSON.parse(srv.requests[0].body) as LockInfo;
    assert.match(sent.Created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    assert.deepEqual(Object.keys(sent), ['ID', 'Operation', 'Info', 'Who', 'Version', 'Created', 'Path']);
    await mgr.unlock('dddddddd-0000-0000-0000-000000000004');
    srv.inject.push({ status: 418 });
    await assert.rejects(mgr.lock(info('e')), (e: Error) => !(e instanceof LockError) && e.message === 'Unexpected HTTP response code 418');
    await mgr.lock(info('f'));
    srv.inject.push({ status: 404 });
    await assert.rejects(mgr.unlock('f'), { message: 'Unexpected HTTP response code 404' });
    srv.lock = undefined;
    const n = srv.requests.length;
    const nolock = configureHttpBackend({ address: `${srv.base}/state` }, {}).backend!;
    const m2 = await nolock.stateMgr('default');
    assert.equal(await m2.lock(info('g')), '');
    await m2.unlock('');
    assert.equal(srv.requests.length, n);
    // force-unlock from a manager that never locked sends an empty body.
    await backend(srv).stateMgr('default').then(async (m) => {
      await m.lock(info('h'));
    });
    const fresh = await backend(srv).stateMgr('default');
    await fresh.unlock('h');
    const last = srv.requests.at(-1)!;
    assert.deepEqual([last.method, last.body, last.headers['content-md5'], last.headers['content-type']], ['UNLOCK', '', '1B2M2Y8AsgTpgAmY7PhCfg==', 'application/json']);
    assert.equal(srv.lock, undefined);
  });
});

// ---- retries ------------------------------------------------------------------------------------------------------

test('retries: 5xx and 429 are retried with min*2^i waits (Retry-After honoured); 501 is not; giving up names the attempts', async () => {
  await withServer(async (srv) => {
    const sleeps: number[] = [];
    const mgr = await backend(srv, {}, {}, sleeps).stateMgr('default');
    srv.inject.push({ status: 500 }, { status: 502 });
    assert.deepEqual(await mgr.refresh(), []);
    assert.deepEqual(sleeps, [1000, 2000]);
    assert.equal(srv.requests.length, 3);
    sleeps.length = 0;
    srv.inject.push({ status: 429, headers: { 'Retry-After': '4' } });
    assert.deepEqual(await mgr.refresh(), []);
    assert.deepEqual(sleeps, [4000]);
    sleeps.length = 0;
    srv.inject.push({ status: 500 }, { status: 500 }, { status: 500 });
    assert.equal(
      (await mgr.refresh())[0].summary,
      `error loading state: Failed to get state: GET ${srv.base}/state giving up after 3 attempt(s)`,
    );
    assert.deepEqual(sleeps, [1000, 2000]);
    sleeps.length = 0;
    srv.inject.push({ status: 429 }, { status: 429 }, { status: 429 });
    await assert.rejects(mgr.lock(info('x')), { message: `Failed to lock: LOCK ${srv.base}/lock giving up after 3 attempt(s)` });
    sleeps.length = 0;
    srv.inject.push({ status: 501 });
    assert.equal((await mgr.refresh())[0].summary, 'error loading state: Unexpected HTTP response code 501');
    assert.deepEqual(sleeps, []);
    // retry_max and the waits come from the configuration.
    const sl2: number[] = [];
    const m2 = await backend(srv, { retry_max: 4, retry_wait_min: 2, retry_wait_max: 5 }, {}, sl2).stateMgr('default');
    srv.inject.push({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    assert.deepEqual(await m2.refresh(), []);
    assert.deepEqual(sl2, [2000, 4000, 5000, 5000]);
    // A POST is retried with the same body and Content-MD5 (the state exists, so persist does not GET first).
    const seed = await backend(srv).stateMgr('default');
    seed.write(withOutput(new State(), 'seed', 's'));
    assert.deepEqual(await seed.persist(), []);
    await m2.lock(info('r'));
    assert.deepEqual(await m2.refresh(), []);
    m2.write(withOutput(m2.read()!, 'a', 'b'));
    srv.inject.push({ status: 500 });
    assert.deepEqual(await m2.persist(), []);
    const posts = srv.requests.filter((r) => r.method === 'POST').slice(1);
    assert.equal(posts.length, 2);
    assert.equal(posts[0].body, posts[1].body);
    assert.equal(posts[0].headers['content-md5'], posts[1].headers['content-md5']);
    assert.equal(posts[1].url, '/state?ID=r');
    await m2.unlock('r');
  });
});

test('connection errors are retried and reported as Go reports them', async () => {
  const srv = await new StateServer().start();
  const port = srv.port;
  await srv.stop();
  const sleeps: number[] = [];
  const r = configureHttpBackend({ address: `http://127.0.0.1:${port}/state`, retry_max: 1 }, {}, { sleep: async (ms) => void sleeps.push(ms) });
  const mgr = await r.backend!.stateMgr('default');
  assert.equal(
    (await mgr.refresh())[0].summary,
    `error loading state: Failed to get state: GET http://127.0.0.1:${port}/state giving up after 2 attempt(s): Get "http://127.0.0.1:${port}/state": dial tcp 127.0.0.1:${port}: connect: connection refused`,
  );
  assert.deepEqual(sleeps, [1000]);
});

// ---- workspaces ---------------------------------------------------------------------------------------------------

test('workspaces: only "default"; listing, other workspaces and deletion fail with "workspaces not supported"', async () => {
  const b = configureHttpBackend({ address: 'http://127.0.0.1:9/state' }, {}).backend!;
  await assert.rejects(b.workspaces(), (e: Error) => e instanceof WorkspacesNotSupportedError && e.message === 'workspaces not supported');
  await assert.rejects(b.stateMgr('dev'), { message: 'workspaces not supported' });
  assert.deepEqual(await b.deleteWorkspace('dev', false), [{ severity: 'error', summary: 'workspaces not supported', detail: undefined, subject: undefined }]);
  assert.ok(await b.stateMgr('default'));
});

// ---- TLS ----------------------------------------------------------------------------------------------------------

test('TLS: unknown CA fails without retry; client_ca_certificate_pem or skip_cert_verification connect; mutual TLS', async (t) => {
  if (!hasOpenssl) {
    t.skip('openssl is not installed; the TLS test needs it to make certificates');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'foresight-http-tls-'));
  try {
    const c = makeCerts(dir);
    await withServer(
      async (srv) => {
        const sleeps: number[] = [];
        const plain = configureHttpBackend({ address: `${srv.base}/state` }, {}, { sleep: async (ms) => void sleeps.push(ms) }).backend!;
        assert.equal(
          (await (await plain.stateMgr('default')).refresh())[0].summary,
          `error loading state: Failed to get state: GET ${srv.base}/state giving up after 1 attempt(s): Get "${srv.base}/state": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
        );
        assert.deepEqual(sleeps, []);
        // The server wants a client certificate: CA alone is not enough (the server's alert ends the handshake).
        const caOnly = configureHttpBackend({ address: `${srv.base}/state`, client_ca_certificate_pem: c.ca, retry_max: 0 }, {}).backend!;
        // (A TLS alert from the server is retried, as retryablehttp's policy retries it.)
        assert.equal(
          (await (await caOnly.stateMgr('default')).refresh())[0].summary,
          `error loading state: Failed to get state: GET ${srv.base}/state giving up after 1 attempt(s): Get "${srv.base}/state": remote error: tls: certificate required`,
        );
        const mtls = configureHttpBackend(
          { address: `${srv.base}/state`, client_ca_certificate_pem: c.ca, client_certificate_pem: c.clientCert, client_private_key_pem: c.clientKey },
          {},
        ).backend!;
        assert.deepEqual(await (await mtls.stateMgr('default')).refresh(), []);
        const skip = configureHttpBackend(
          { address: `${srv.base}/state`, skip_cert_verification: true },
          { TF_HTTP_CLIENT_CERTIFICATE_PEM: c.clientCert, TF_HTTP_CLIENT_PRIVATE_KEY_PEM: c.clientKey },
        ).backend!;
        assert.deepEqual(await (await skip.stateMgr('default')).refresh(), []);
        assert.equal(
          configureHttpBackend({ address: `${srv.base}/state`, client_certificate_pem: c.clientCert, client_private_key_pem: c.serverKey }, {}).diagnostics[0].summary,
          'cannot load client certificate: tls: private key does not match public key',
        );
      },
      { tls: { key: readFileSync(join(dir, 'server.key'), 'utf8'), cert: readFileSync(join(dir, 'server.crt'), 'utf8'), ca: readFileSync(join(dir, 'ca.crt'), 'utf8'), requestCert: true } },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- apply journal ------------------------------------------------------------------------------------------------

function resourceChange(i: number): Change {
  return {
    op: 'current',
    addr: { module: '', mode: 'managed', type: 'terraform_data', name: 'r', key: i },
    obj: {
      status: 'ready',
      schemaVersion: 0,
      attrsJSON: `{"id":"id-${i}","input":null,"output":null,"triggers_replace":null}`,
      sensitivePaths: [],
      dependencies: [],
      createBeforeDestroy: false,
    },
    provider: 'provider["terraform.io/builtin/terraform"]',
  };
}

test('apply journal: each change is fsynced locally, the state is POSTed at the persist interval and at the end, then the journal goes', async () => {
  await withServer(async (srv) => {
    const cwd = mkdtempSync(join(tmpdir(), 'foresight-http-j-'));
    try {
      const r = configureHttpBackend({ address: `${srv.base}/state`, lock_address: `${srv.base}/lock`, unlock_address: `${srv.base}/lock` }, {}, { cwd, persistIntervalMs: 60000 });
      const mgr = await r.backend!.stateMgr('default');
      const id = await mgr.lock(info('j1'));
      await mgr.refresh();
      const sync = new SyncState(new State(), mgr.journalListener(new State()));
      for (let i = 0; i < 5; i++) sync.apply(resourceChange(i));
      await sync.flush();
      assert.ok(existsSync(mgr.journalPath!), 'the journal exists during the walk');
      const header = decodeJournal(readFileSync(mgr.journalPath!, 'utf8'));
      assert.deepEqual([header.header!.disk_serial, header.changes.length], [null, 5]);
      assert.equal(srv.requests.filter((q) => q.method === 'POST').length, 0, 'no POST per resource');
      mgr.write(await sync.close());
      assert.deepEqual(await mgr.persist(), []);
      assert.equal(srv.requests.filter((q) => q.method === 'POST').length, 1);
      assert.equal(existsSync(mgr.journalPath!), false);
      const f = readStateFile(srv.state!.toString('utf8')).file!;
      assert.equal(f.serial, 1);
      assert.equal(f.lineage, header.header!.lineage, 'the new state gets the lineage the journal recorded');
      assert.equal(f.state.root.resources.size, 1);
      await mgr.unlock(id);
      // Interval 0: every change persists (Terraform with a zero interval would too), still one POST per change at most.
      const m2 = await configureHttpBackend({ address: `${srv.base}/state` }, {}, { cwd, persistIntervalMs: 0 }).backend!.stateMgr('default');
      await m2.refresh();
      const n = srv.requests.filter((q) => q.method === 'POST').length;
      const s2 = new SyncState(m2.read()!, m2.journalListener(m2.read()!));
      for (let i = 5; i < 8; i++) s2.apply(resourceChange(i));
      m2.write(await s2.close());
      assert.deepEqual(await m2.persist(), []);
      assert.equal(srv.requests.filter((q) => q.method === 'POST').length, n + 3);
      assert.equal(readStateFile(srv.state!.toString('utf8')).file!.serial, 4);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

test('apply journal: a run that dies before posting is recovered by the next locked refresh; a changed remote sets it aside', async () => {
  await withServer(async (srv) => {
    const cwd = mkdtempSync(join(tmpdir(), 'foresight-http-j-'));
    try {
      const conf = { address: `${srv.base}/state`, lock_address: `${srv.base}/lock`, unlock_address: `${srv.base}/lock` };
      // Seed a remote state (serial 1).
      const seed = await configureHttpBackend(conf, {}, { cwd }).backend!.stateMgr('default');
      await seed.refresh();
      seed.write(withOutput(new State(), 'seed', 'v'));
      await seed.persist();
      const lineage = seed.meta().lineage;
      // A run journals 3 changes and "dies" (never persists; its lock is broken by hand).
      const dead = await configureHttpBackend(conf, {}, { cwd, persistIntervalMs: 60000 }).backend!.stateMgr('default');
      await dead.lock(info('dead'));
      await dead.refresh();
      const sync = new SyncState(dead.read()!, dead.journalListener(dead.read()!));
      for (let i = 0; i < 3; i++) sync.apply(resourceChange(i));
      await sync.flush();
      srv.lock = undefined;
      const jp = dead.journalPath!;
      assert.ok(existsSync(jp));
      // An unlocked reader sees the recovered state in memory only.
      const reader = await configureHttpBackend(conf, {}, { cwd }).backend!.stateMgr('default');
      const rd = await reader.refresh();
      assert.deepEqual(rd, []);
      assert.equal(reader.read()!.root.resources.size, 1);
      assert.ok(existsSync(jp));
      assert.equal(readStateFile(srv.state!.toString('utf8')).file!.serial, 1);
      // The next locked run recovers and pushes it.
      const next = await configureHttpBackend(conf, {}, { cwd }).backend!.stateMgr('default');
      await next.lock(info('next'));
      const d = await next.refresh();
      assert.deepEqual(d.map((x) => x.summary), ['State recovered from journal']);
      assert.equal(existsSync(jp), false);
      const f = readStateFile(srv.state!.toString('utf8')).file!;
      assert.deepEqual([f.serial, f.lineage, f.state.root.resources.size, f.state.outputs.has('seed')], [2, lineage, 1, true]);
      assert.equal(srv.requests.at(-1)!.url, '/state?ID=next');
      await next.unlock('next');
      // Stale: a journal whose start the remote no longer matches is moved aside, not replayed.
      const dead2 = await configureHttpBackend(conf, {}, { cwd, persistIntervalMs: 60000 }).backend!.stateMgr('default');
      await dead2.refresh();
      const s2 = new SyncState(dead2.read()!, dead2.journalListener(dead2.read()!));
      s2.apply(resourceChange(9));
      await s2.flush();
      const other = await configureHttpBackend(conf, {}).backend!.stateMgr('default');
      await other.refresh();
      other.write(withOutput(other.read()!, 'other', 'w'));
      await other.persist();
      const after = await configureHttpBackend(conf, {}, { cwd }).backend!.stateMgr('default');
      await after.lock(info('after'));
      const d2 = await after.refresh();
      assert.deepEqual(d2.map((x) => x.summary), ['Stale state journal set aside']);
      assert.ok(existsSync(jp + '.stale'));
      assert.equal(readStateFile(srv.state!.toString('utf8')).file!.serial, 3);
      await after.unlock('after');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

test('state migration: onto an empty backend a new lineage with serial 1 (as terraform does); onto an existing state serial+1', async () => {
  await withServer(async (srv) => {
    const mgr = await backend(srv).stateMgr('default');
    await mgr.lock(info('m1'));
    assert.deepEqual(await mgr.refresh(), []);
    const src = { terraformVersion: '1.11.4', serial: 7, lineage: '00000000-1111-2222-3333-444444444444', state: withOutput(new State(), 'a', 'x') };
    mgr.writeForMigration(src);
    assert.deepEqual(mgr.fileForMigration()!.lineage, src.lineage);
    assert.deepEqual(await mgr.persist(), []);
    const f = readStateFile(srv.state!.toString('utf8')).file!;
    assert.equal(f.serial, 1);
    assert.notEqual(f.lineage, src.lineage);
    assert.deepEqual(srv.requests.map((r) => r.method), ['LOCK', 'GET', 'GET', 'POST']);
    await mgr.unlock('m1');
    const m2 = await backend(srv).stateMgr('default');
    assert.deepEqual(await m2.refresh(), []);
    m2.writeForMigration(src);
    assert.deepEqual(await m2.persist(), []);
    const f2 = readStateFile(srv.state!.toString('utf8')).file!;
    assert.deepEqual([f2.serial, f2.lineage], [8, src.lineage]);
  });
});

test('apply cadence: the state is POSTed when a change comes at least one interval after the clock started (StateHook rule), never per change', async () => {
  await withServer(async (srv) => {
    const mgr = await configureHttpBackend({ address: `${srv.base}/state` }, {}, { persistIntervalMs: 300 }).backend!.stateMgr('default');
    await mgr.refresh();
    const sync = new SyncState(new State(), mgr.journalListener(new State()));
    const posts = () => srv.requests.filter((q) => q.method === 'POST').length;
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    sync.apply(resourceChange(0)); // starts the clock
    sync.apply(resourceChange(1));
    await sync.flush();
    assert.equal(posts(), 0);
    await wait(350);
    sync.apply(resourceChange(2)); // >= interval since the clock started: persisted
    await sync.flush();
    assert.equal(posts(), 1);
    sync.apply(resourceChange(3)); // the clock restarted at that persist
    await sync.flush();
    assert.equal(posts(), 1);
    await wait(350);
    sync.apply(resourceChange(4));
    sync.apply(resourceChange(5));
    await sync.flush();
    assert.equal(posts(), 2);
    mgr.write(await sync.close());
    assert.deepEqual(await mgr.persist(), []);
    assert.equal(posts(), 3);
    assert.deepEqual(readStateFile(srv.state!.toString('utf8')).file!.serial, 3);
    // TF_STATE_PERSIST_INTERVAL applies only above Terraform's 20 s minimum.
    const interval = async (v: string) => (await configureHttpBackend({ address: `${srv.base}/state` }, { TF_STATE_PERSIST_INTERVAL: v }).backend!.stateMgr('default')).persistInterval;
    assert.deepEqual([await interval('45'), await interval('5'), await interval('x'), await interval('')], [45000, 20000, 20000, 20000]);
  });
});

test('redirects as Go follows them: 301/302/303 turn writes into GETs, 307/308 repeat method and body, Authorization only to the same host, 10 at most', async () => {
  await withServer(
    async (srv) => {
      const auth = { username: 'alice', password: 'pw' };
      srv.redirects.set('/old', { status: 307, location: '/state' });
      const mgr = await configureHttpBackend({ address: `${srv.base}/old`, ...auth }, {}).backend!.stateMgr('default');
      assert.deepEqual(await mgr.refresh(), []);
      mgr.write(withOutput(new State(), 'a', 'x'));
      assert.deepEqual(await mgr.persist(), []);
      const post = srv.requests.filter((r) => r.method === 'POST');
      assert.deepEqual(post.map((r) => r.url), ['/old', '/state']);
      assert.equal(post[1].body, srv.state!.toString('utf8'));
      assert.equal(post[1].headers['content-md5'], md5(post[1].body));
      assert.equal(post[1].headers.authorization, post[0].headers.authorization);
      assert.equal(post[1].headers.referer, `${srv.base}/old`);
      // 302: Go turns the POST into a GET (the state is not uploaded, yet the 200 counts as success).
      srv.requests.length = 0;
      srv.redirects.set('/old', { status: 302, location: '/state' });
      mgr.write(withOutput(mgr.read()!, 'b', 'y'));
      assert.deepEqual(await mgr.persist(), []);
      assert.deepEqual(srv.requests.map((r) => `${r.method} ${r.url} ${r.body.length}`), ['POST /old ' + srv.requests[0].body.length, 'GET /state 0']);
      assert.equal(readStateFile(srv.state!.toString('utf8')).file!.state.outputs.has('b'), false);
      // A redirect to another host drops Authorization (the server then asks for it).
      srv.redirects.set('/cross', { status: 307, location: `http://localhost:${srv.port}/state` });
      const cross = await configureHttpBackend({ address: `${srv.base}/cross`, ...auth }, {}).backend!.stateMgr('default');
      assert.equal((await cross.refresh())[0].summary, 'error loading state: HTTP remote state endpoint requires auth');
      assert.equal(srv.requests.at(-1)!.headers.authorization, undefined);
      // A loop stops after 10 redirects and is not retried.
      srv.redirects.set('/loop', { status: 301, location: '/loop' });
      srv.requests.length = 0;
      const loop = await configureHttpBackend({ address: `${srv.base}/loop`, ...auth }, {}, { sleep: async () => assert.fail('retried') }).backend!.stateMgr('default');
      assert.equal(
        (await loop.refresh())[0].summary,
        `error loading state: Failed to get state: GET ${srv.base}/loop giving up after 1 attempt(s): Get "/loop": stopped after 10 redirects`,
      );
      assert.equal(srv.requests.length, 10);
    },
    { auth: { username: 'alice', password: 'pw' } },
  );
});

test('a gzip-encoded GET response is decompressed (Go\'s client asks for gzip and decodes it)', async () => {
  await withServer(async (srv) => {
    const text = writeStateFile({ terraformVersion: '1.11.4', serial: 3, lineage: '00000000-1111-2222-3333-444444444444', state: withOutput(new State(), 'z', 'q') });
    srv.inject.push({ status: 200, body: gzipSync(Buffer.from(text)), headers: { 'Content-Encoding': 'gzip' } });
    const mgr = await backend(srv).stateMgr('default');
    assert.deepEqual(await mgr.refresh(), []);
    assert.deepEqual(mgr.meta(), { serial: 3, lineage: '00000000-1111-2222-3333-444444444444' });
    assert.equal(srv.requests[0].headers['accept-encoding'], 'gzip');
    assert.equal(srv.requests[0].headers['user-agent'], 'Go-http-client/1.1');
  });
});

test('apply journal: when the final POST fails the journal stays, and the next locked run sends what the apply completed', async () => {
  await withServer(async (srv) => {
    const cwd = mkdtempSync(join(tmpdir(), 'foresight-http-j-'));
    try {
      const conf = { address: `${srv.base}/state`, lock_address: `${srv.base}/lock`, unlock_address: `${srv.base}/lock`, retry_max: 0 };
      const mgr = await configureHttpBackend(conf, {}, { cwd }).backend!.stateMgr('default');
      await mgr.lock(info('p1'));
      await mgr.refresh();
      const sync = new SyncState(new State(), mgr.journalListener(new State()));
      for (let i = 0; i < 3; i++) sync.apply(resourceChange(i));
      mgr.write(await sync.close());
      srv.inject.push({ status: 404 }, { status: 503 }); // the GET before the first write, then the POST
      const d = await mgr.persist();
      assert.equal(d[0].detail, `Error saving state: Failed to upload state: POST ${srv.base}/state?ID=p1 giving up after 1 attempt(s)`);
      await mgr.unlock('p1');
      assert.ok(existsSync(mgr.journalPath!));
      const j = decodeJournal(readFileSync(mgr.journalPath!, 'utf8'));
      assert.deepEqual([j.changes.length, j.checkpoints], [3, [1]]);
      const journalLineage = j.header!.lineage;
      assert.equal(srv.state, undefined);
      const next = await configureHttpBackend(conf, {}, { cwd }).backend!.stateMgr('default');
      await next.lock(info('p2'));
      assert.deepEqual((await next.refresh()).map((x) => x.summary), ['State recovered from journal']);
      const f = readStateFile(srv.state!.toString('utf8')).file!;
      // The failed POST was checkpointed as serial 1, so recovery writes the successor of the highest serial the
      // run may have written (as the local journal does), with the lineage the journal recorded.
      assert.equal(f.serial, 2);
      assert.equal(f.lineage, journalLineage);
      assert.equal(f.state.root.resources.get('terraform_data.r')!.instances.size, 3);
      assert.equal(existsSync(next.journalPath!), false);
      await next.unlock('p2');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

test('each stateMgr() is a new snapshot on the backend\'s one client: the lock is shared, the state is not', async () => {
  await withServer(async (srv) => {
    const b = backend(srv);
    const a = await b.stateMgr('default');
    const c = await b.stateMgr('default');
    assert.notEqual(a, c);
    await a.lock(info('shared'));
    await a.refresh();
    await c.refresh();
    a.write(withOutput(new State(), 'a', '1'));
    assert.equal(c.read(), null);
    c.write(withOutput(new State(), 'c', '2'));
    assert.deepEqual(await c.persist(), []);
    assert.equal(srv.requests.at(-1)!.url, '/state?ID=shared');
    await a.unlock('shared');
    assert.equal(srv.lock, undefined);
  });
});

// ---- proxies ------------------------------------------------------------------------------------------------------

test('proxy selection follows Go\'s ProxyFromEnvironment', () => {
  const u = (s: string) => new URL(s);
  const p = (url: string, env: Record<string, string>) => proxyFor(u(url), env)?.href;
  const env = { HTTP_PROXY: 'proxy.example:3128', HTTPS_PROXY: 'http://sp.example:8080', NO_PROXY: 'internal.example, .corp.example,10.0.0.0/8, 192.168.1.1:8443,[::2]:80,[::3]' };
  assert.equal(p('http://state.example/s', env), 'http://proxy.example:3128/');
  assert.equal(p('https://state.example/s', env), 'http://sp.example:8080/');
  assert.equal(p('http://localhost:8080/s', env), undefined);
  assert.equal(p('http://127.0.0.5/s', env), undefined);
  assert.equal(p('http://[::1]/s', env), undefined);
  assert.equal(p('http://internal.example/s', env), undefined);
  assert.equal(p('http://a.internal.example/s', env), undefined);
  assert.equal(p('http://corp.example/s', env), 'http://proxy.example:3128/');
  assert.equal(p('http://x.corp.example/s', env), undefined);
  assert.equal(p('http://10.1.2.3/s', env), undefined);
  assert.equal(p('http://11.1.2.3/s', env), 'http://proxy.example:3128/');
  assert.equal(p('https://192.168.1.1:8443/s', env), undefined);
  assert.equal(p('https://192.168.1.1/s', env), 'http://sp.example:8080/');
  assert.equal(p('http://[::2]/s', env), undefined);
  // A bracketed IPv6 entry without a port is no IP entry for Go (net.ParseIP("[::3]") fails): not exempt.
  assert.equal(p('http://[::3]/s', env), 'http://proxy.example:3128/');
  assert.equal(p('http://x.example/s', { ...env, NO_PROXY: '*' }), undefined);
  assert.equal(p('http://x.example/s', { http_proxy: 'http://lower:1', HTTP_PROXY: '' }), 'http://lower:1/');
  assert.equal(p('http://x.example/s', { https_proxy: 'http://lower:1' }), undefined);
  assert.throws(() => proxyFor(u('http://x.example/s'), { HTTP_PROXY: 'http://p:1', REQUEST_METHOD: 'GET' }), { message: 'refusing to use HTTP_PROXY value in CGI environment; see golang.org/s/cgihttpproxy' });
  assert.equal(p('https://x.example/s', { HTTPS_PROXY: 'http://p:1', REQUEST_METHOD: 'GET' }), 'http://p:1/');
});

test('through an http proxy: absolute-URI requests with Proxy-Authorization; https through CONNECT; Go\'s errors when the proxy fails', async () => {
  await withServer(async (srv) => {
    const proxy = await new ForwardProxy(srv).start();
    try {
      const env = { HTTP_PROXY: `http://pu:pp@127.0.0.1:${proxy.port}` };
      const b = configureHttpBackend({ address: 'http://state.test/state', lock_address: 'http://state.test/lock', unlock_address: 'http://state.test/lock' }, env).backend!;
      const mgr = await b.stateMgr('default');
      await mgr.lock(info('px'));
      assert.deepEqual(await mgr.refresh(), []);
      mgr.write(withOutput(new State(), 'a', 'b'));
      assert.deepEqual(await mgr.persist(), []);
      await mgr.unlock('px');
      assert.deepEqual(
        proxy.requests.map((r) => `${r.method} ${r.url}`),
        ['LOCK http://state.test/lock', 'GET http://state.test/state', 'GET http://state.test/state', 'POST http://state.test/state?ID=px', 'UNLOCK http://state.test/lock'],
      );
      assert.ok(proxy.requests.every((r) => r.headers['proxy-authorization'] === 'Basic ' + Buffer.from('pu:pp').toString('base64') && r.headers.host === 'state.test'));
      assert.equal(srv.requests.length, 5);
      assert.ok(srv.state);
      // The proxy is down: Go's proxyconnect error, retried.
      const sleeps: number[] = [];
      const down = configureHttpBackend({ address: 'http://state.test/state', retry_max: 1 }, { HTTP_PROXY: 'http://127.0.0.1:9' }, { sleep: async (ms) => void sleeps.push(ms) }).backend!;
      assert.equal(
        (await (await down.stateMgr('default')).refresh())[0].summary,
        'error loading state: Failed to get state: GET http://state.test/state giving up after 2 attempt(s): Get "http://state.test/state": proxyconnect tcp: dial tcp 127.0.0.1:9: connect: connection refused',
      );
      assert.deepEqual(sleeps, [1000]);
      // CONNECT refused.
      proxy.refuseConnect = true;
      const refused = configureHttpBackend({ address: 'https://state.test/state', retry_max: 0 }, { HTTPS_PROXY: `http://127.0.0.1:${proxy.port}` }).backend!;
      assert.equal(
        (await (await refused.stateMgr('default')).refresh())[0].summary,
        'error loading state: Failed to get state: GET https://state.test/state giving up after 1 attempt(s): Get "https://state.test/state": Forbidden',
      );
      assert.deepEqual([proxy.requests.at(-1)!.method, proxy.requests.at(-1)!.url], ['CONNECT', 'state.test:443']);
    } finally {
      await proxy.stop();
    }
  });
});

test('https through a CONNECT tunnel to the TLS server', async (t) => {
  if (!hasOpenssl) {
    t.skip('openssl is not installed; the TLS test needs it to make certificates');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'foresight-http-tls-'));
  try {
    const c = makeCerts(dir);
    await withServer(
      async (srv) => {
        const proxy = await new ForwardProxy(srv).start();
        try {
          const b = configureHttpBackend(
            { address: 'https://state.test/state', skip_cert_verification: true, client_certificate_pem: c.clientCert, client_private_key_pem: c.clientKey },
            { HTTPS_PROXY: `127.0.0.1:${proxy.port}` },
          ).backend!;
          const mgr = await b.stateMgr('default');
          assert.deepEqual(await mgr.refresh(), []);
          mgr.write(withOutput(new State(), 'a', 'b'));
          assert.deepEqual(await mgr.persist(), []);
          assert.deepEqual(proxy.requests.map((r) => `${r.method} ${r.url}`), ['CONNECT state.test:443', 'CONNECT state.test:443', 'CONNECT state.test:443']);
          assert.deepEqual(srv.requests.map((r) => `${r.method} ${r.url} ${r.headers.host}`), ['GET /state state.test', 'GET /state state.test', 'POST /state state.test']);
        } finally {
          await proxy.stop();
        }
      },
      { tls: { key: c.serverKey, cert: c.serverCert, ca: c.ca, requestCert: true } },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
