// The http backend against Terraform 1.11.4 itself (skipped with a printed notice when `terraform` is not installed):
// terraform and Foresight's http state manager work on the same local state server (httpServer.ts). Checks that
// Terraform's requests are what Foresight sends (methods, ?ID=, headers, lock info bodies), that each reads the other's
// state without changes (serial and lineage kept), that a lock held by either makes the other fail with
// "Error acquiring the state lock", and Terraform's texts for workspaces and force-unlock on this backend.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { State } from '../../server/states/state';
import { readStateFile, writeStateFile } from '../../server/states/statefile';
import { LockError, lockInfoString, type LockInfo } from '../../server/states/statemgr';
import { configureHttpBackend } from '../../server/backends/http/index';
import { ForwardProxy, hasOpenssl, makeCerts, StateServer } from './httpServer';

const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
const NOTICE = 'terraform is not installed; the http backend interoperability test needs it';

/** Runs a command without blocking the event loop (the state server lives in this process). */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd, env });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function setup(srv: StateServer, body: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-http-interop-'));
  const rc = join(dir, '.terraformrc');
  writeFileSync(rc, '');
  writeFileSync(
    join(dir, 'main.tf'),
    `terraform {
  backend "http" {
    address        = "${srv.base}/state"
    lock_address   = "${srv.base}/lock"
    unlock_address = "${srv.base}/lock"
  }
}

${body}`,
  );
  return { dir, env: { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '', TF_HTTP_RETRY_WAIT_MIN: '0' } };
}

const RESOURCES = `resource "terraform_data" "r" {
  count = 3
  input = "n-\${count.index}"
}

output "o" {
  value = terraform_data.r[*].output
}
`;

const md5 = (s: string) => createHash('md5').update(Buffer.from(s, 'utf8')).digest('base64');

function lockInfo(id: string): LockInfo {
  return { ID: id, Operation: 'OperationTypeApply', Info: '', Who: 'foresight@test', Version: '1.11.4', Created: '2026-11-23T06:00:00Z', Path: '' };
}

test('terraform apply over http: its requests are the ones Foresight makes; Foresight reads its state and persists nothing', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const srv = await new StateServer().start();
  const { dir, env } = setup(srv, RESOURCES);
  try {
    const init = await run('terraform', ['init', '-input=false', '-no-color'], dir, env);
    assert.equal(init.status, 0, init.stdout + init.stderr);
    srv.requests.length = 0;
    const ap = await run('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], dir, env);
    assert.equal(ap.status, 0, ap.stdout + ap.stderr);
    const seq = srv.requests.map((r) => `${r.method} ${r.url.replace(/\?ID=[0-9a-f-]+$/, '?ID=<id>')}`);
    // Lock, read, read again before the first write (no state yet), write under the lock ID, unlock: the state is
    // POSTed once for 3 quick resources. Foresight's state manager makes the same sequence (http.test.ts).
    assert.deepEqual(seq, ['LOCK /lock', 'GET /state', 'GET /state', 'POST /state?ID=<id>', 'UNLOCK /lock']);
    const lock = srv.requests[0];
    const li = JSON.parse(lock.body) as LockInfo;
    assert.deepEqual(Object.keys(li), ['ID', 'Operation', 'Info', 'Who', 'Version', 'Created', 'Path']);
    assert.deepEqual([li.Operation, li.Version, li.Path, li.Info], ['OperationTypeApply', '1.11.4', '', '']);
    assert.equal(lock.headers['content-type'], 'application/json');
    assert.equal(lock.headers['content-md5'], md5(lock.body));
    assert.equal(srv.requests.at(-1)!.body, lock.body, 'UNLOCK carries the LOCK body');
    const post = srv.requests.find((r) => r.method === 'POST')!;
    assert.equal(post.url, `/state?ID=${li.ID}`);
    assert.equal(post.headers['content-md5'], md5(post.body));
    assert.equal(post.headers['content-type'], 'application/json');
    const tfFile = readStateFile(post.body).file!;
    assert.equal(tfFile.serial, 1);

    // Foresight reads it, re-serialises it byte for byte, and an unchanged persist sends nothing.
    const mgr = await configureHttpBackend({ address: `${srv.base}/state`, lock_address: `${srv.base}/lock`, unlock_address: `${srv.base}/lock` }, {}).backend!.stateMgr('default');
    const id = await mgr.lock(lockInfo('f0000000-0000-0000-0000-000000000001'));
    assert.deepEqual(await mgr.refresh(), []);
    assert.deepEqual(mgr.meta(), { serial: tfFile.serial, lineage: tfFile.lineage });
    assert.equal(writeStateFile({ terraformVersion: '1.11.4', serial: tfFile.serial, lineage: tfFile.lineage, state: mgr.read()! }), post.body);
    const n = srv.requests.length;
    assert.deepEqual(await mgr.persist(), []);
    assert.equal(srv.requests.length, n);
    // Foresight's write under its lock: serial 2, same lineage; terraform plans no changes against it.
    const s = mgr.read()!;
    s.outputs.set('extra', { valueJSON: '"x"', typeJSON: '"string"', sensitive: false });
    mgr.write(s);
    assert.deepEqual(await mgr.persist(), []);
    const mine = srv.requests.at(-1)!;
    assert.equal(mine.url, '/state?ID=f0000000-0000-0000-0000-000000000001');
    assert.equal(mine.headers['content-md5'], md5(mine.body));
    await mgr.unlock(id);
    const f2 = readStateFile(srv.state!.toString('utf8')).file!;
    assert.deepEqual([f2.serial, f2.lineage], [2, tfFile.lineage]);
    const plan = await run('terraform', ['plan', '-detailed-exitcode', '-input=false', '-no-color', '-refresh=false'], dir, env);
    // The extra output is not in the configuration: terraform plans only its removal (exit 2 with an output change).
    assert.equal(plan.status, 2, plan.stdout + plan.stderr);
    assert.match(plan.stdout, /Changes to Outputs:\n {2}- extra = "x" -> null/);
    assert.doesNotMatch(plan.stdout, /terraform_data\.r/);
    srv.requests.length = 0;
    const ap2 = await run('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], dir, env);
    assert.equal(ap2.status, 0, ap2.stdout + ap2.stderr);
    assert.deepEqual(
      srv.requests.map((r) => `${r.method} ${r.url.replace(/\?ID=[0-9a-f-]+$/, '?ID=<id>')}`),
      ['LOCK /lock', 'GET /state', 'POST /state?ID=<id>', 'UNLOCK /lock'],
    );
    const f3 = readStateFile(srv.state!.toString('utf8')).file!;
    assert.deepEqual([f3.serial, f3.lineage, f3.state.outputs.has('extra')], [3, tfFile.lineage, false]);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock held by Foresight stops terraform with "Error acquiring the state lock", and the reverse', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const srv = await new StateServer().start();
  const { dir, env } = setup(
    srv,
    `resource "terraform_data" "slow" {
  provisioner "local-exec" {
    command = "sleep 4"
  }
}
`,
  );
  try {
    const init = await run('terraform', ['init', '-input=false', '-no-color'], dir, env);
    assert.equal(init.status, 0, init.stdout + init.stderr);
    const conf = { address: `${srv.base}/state`, lock_address: `${srv.base}/lock`, unlock_address: `${srv.base}/lock` };
    const mgr = await configureHttpBackend(conf, {}).backend!.stateMgr('default');
    const held = lockInfo('f0000000-0000-0000-0000-000000000002');
    await mgr.lock(held);
    const plan = await run('terraform', ['plan', '-input=false', '-no-color', '-lock-timeout=0s'], dir, env);
    assert.equal(plan.status, 1);
    // (The detail is word-wrapped at 78 columns, as the renderer does; the Lock Info is the requester's own.)
    assert.match(plan.stderr, /Error: Error acquiring the state lock\n\nError message: HTTP remote state already locked:\nID=f0000000-0000-0000-0000-000000000002\nLock Info:\n {2}ID: {8}[0-9a-f-]{36}\n {2}Path: {6}\n {2}Operation: OperationTypePlan\n/);
    await mgr.unlock(held.ID);

    // terraform holds the lock while its provisioner sleeps: Foresight's lock fails with terraform's lock ID.
    const apply = run('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], dir, env);
    for (let i = 0; i < 200 && srv.lock === undefined; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(srv.lock !== undefined, 'terraform took the lock');
    const tfID = (JSON.parse(srv.lock!) as LockInfo).ID;
    const mine = lockInfo('f0000000-0000-0000-0000-000000000003');
    await assert.rejects(mgr.lock(mine), (e: Error) => e instanceof LockError && e.message === `HTTP remote state already locked: ID=${tfID}\n${lockInfoString(mine)}`);
    const done = await apply;
    assert.equal(done.status, 0, done.stdout + done.stderr);
    assert.equal(srv.lock, undefined);
    assert.equal(await mgr.lock(mine), mine.ID);
    assert.deepEqual(await mgr.refresh(), []);
    assert.equal(mgr.read()!.root.resources.size, 1);
    await mgr.unlock(mine.ID);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('terraform on the http backend: workspaces are not supported; force-unlock sends UNLOCK with an empty body', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const srv = await new StateServer().start();
  const { dir, env } = setup(srv, 'resource "terraform_data" "a" {}\n');
  try {
    assert.equal((await run('terraform', ['init', '-input=false', '-no-color'], dir, env)).status, 0);
    const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
    const list = await run('terraform', ['workspace', 'list'], dir, env);
    assert.deepEqual([list.status, list.stdout, plain(list.stderr)], [1, '', 'workspaces not supported\n']);
    const nw = await run('terraform', ['workspace', 'new', 'dev'], dir, env);
    assert.deepEqual([nw.status, nw.stdout, plain(nw.stderr)], [1, '', 'Failed to get configured named states: workspaces not supported\n']);
    const b = configureHttpBackend({ address: `${srv.base}/state` }, {}).backend!;
    await assert.rejects(b.workspaces(), { message: 'workspaces not supported' });
    srv.lock = JSON.stringify(lockInfo('f0000000-0000-0000-0000-000000000004'));
    srv.requests.length = 0;
    const fu = await run('terraform', ['force-unlock', '-force', 'f0000000-0000-0000-0000-000000000004'], dir, env);
    assert.equal(fu.status, 0, fu.stdout + fu.stderr);
    const unlock = srv.requests.find((r) => r.method === 'UNLOCK')!;
    assert.equal(unlock.body, '');
    assert.equal(unlock.headers['content-type'], 'application/json');
    // Foresight's manager that never locked sends the same request.
    srv.lock = JSON.stringify(lockInfo('f0000000-0000-0000-0000-000000000005'));
    const mgr = await configureHttpBackend({ address: `${srv.base}/state`, unlock_address: `${srv.base}/lock` }, {}).backend!.stateMgr('default');
    await mgr.unlock('f0000000-0000-0000-0000-000000000005');
    const mine = srv.requests.at(-1)!;
    assert.deepEqual([mine.method, mine.body, mine.headers['content-type'], mine.headers['content-md5']], ['UNLOCK', '', 'application/json', unlock.headers['content-md5']]);
    assert.equal(srv.lock, undefined);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});


test('terraform init -migrate-state from local state into an empty http backend: new lineage, serial 1; Foresight does the same', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const srv = await new StateServer().start();
  const { dir, env } = setup(srv, RESOURCES);
  try {
    // Local state first (no backend block), a serial above 1 after two applies.
    const main = readFileSync(join(dir, 'main.tf'), 'utf8');
    writeFileSync(join(dir, 'main.tf'), RESOURCES);
    for (const args of [['init', '-input=false'], ['apply', '-auto-approve'], ['apply', '-auto-approve', '-replace=terraform_data.r[0]']]) {
      const r = await run('terraform', [...args, '-no-color'], dir, env);
      assert.equal(r.status, 0, r.stdout + r.stderr);
    }
    const local = readStateFile(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')).file!;
    assert.ok(local.serial > 1);
    writeFileSync(join(dir, 'main.tf'), main);
    const mig = await run('terraform', ['init', '-input=false', '-no-color', '-migrate-state', '-force-copy'], dir, env);
    assert.equal(mig.status, 0, mig.stdout + mig.stderr);
    const remote = readStateFile(srv.state!.toString('utf8')).file!;
    assert.equal(remote.serial, 1);
    assert.notEqual(remote.lineage, local.lineage);
    // Foresight's manager, given the same source file, writes the same kind of snapshot.
    const srv2 = await new StateServer().start();
    try {
      const mgr = await configureHttpBackend({ address: `${srv2.base}/state` }, {}).backend!.stateMgr('default');
      assert.deepEqual(await mgr.refresh(), []);
      mgr.writeForMigration(local);
      assert.deepEqual(await mgr.persist(), []);
      const mine = readStateFile(srv2.state!.toString('utf8')).file!;
      assert.equal(mine.serial, 1);
      assert.notEqual(mine.lineage, local.lineage);
      assert.equal(writeStateFile({ ...mine, lineage: remote.lineage }), srv.state!.toString('utf8'));
    } finally {
      await srv2.stop();
    }
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('configuration errors: terraform init prints the same error as configureHttpBackend returns', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const cases: [string, Record<string, unknown>][] = [
    ['', {}],
    ['address = "ftp://x/s"', { address: 'ftp://x/s' }],
    ['address = ":8080/x"', { address: ':8080/x' }],
    ['address = "http://x/s"\n    retry_max = 1.5', { address: 'http://x/s', retry_max: 1.5 }],
    ['address = "http://x/s"\n    lock_address = "x"', { address: 'http://x/s', lock_address: 'x' }],
    ['address = "http://x/s"\n    unlock_address = "x"', { address: 'http://x/s', unlock_address: 'x' }],
    ['address = "http://x/s"\n    client_ca_certificate_pem = "nope"', { address: 'http://x/s', client_ca_certificate_pem: 'nope' }],
    ['address = "http://x/s"\n    client_certificate_pem = "x"', { address: 'http://x/s', client_certificate_pem: 'x' }],
    ['address = "http://x/s"\n    client_certificate_pem = "x"\n    client_private_key_pem = "y"', { address: 'http://x/s', client_certificate_pem: 'x', client_private_key_pem: 'y' }],
  ];
  const dir = mkdtempSync(join(tmpdir(), 'foresight-http-config-'));
  const rc = join(dir, '.terraformrc');
  writeFileSync(rc, '');
  const env: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '' };
  for (const k of Object.keys(env)) if (k.startsWith('TF_HTTP_')) delete env[k];
  try {
    for (const [body, attrs] of cases) {
      rmSync(join(dir, '.terraform'), { recursive: true, force: true });
      writeFileSync(join(dir, 'main.tf'), `terraform {\n  backend "http" {\n    ${body}\n  }\n}\n`);
      const r = await run('terraform', ['init', '-input=false', '-no-color'], dir, env);
      assert.equal(r.status, 1);
      const tf = /\nError: (.*)\n/.exec(r.stderr)?.[1];
      const mine = configureHttpBackend(attrs, {}).diagnostics.map((d) => d.summary);
      assert.deepEqual(mine, [tf], body);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('redirects: terraform and Foresight follow a 307 for POST alike, and stop a redirect loop after the same number of requests', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const srv = await new StateServer().start();
  srv.redirects.set('/old', { status: 307, location: '/state' });
  srv.redirects.set('/loop', { status: 301, location: '/loop' });
  const dir = mkdtempSync(join(tmpdir(), 'foresight-http-redirect-'));
  const rc = join(dir, '.terraformrc');
  writeFileSync(rc, '');
  const env: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '' };
  try {
    writeFileSync(join(dir, 'main.tf'), `terraform {\n  backend "http" {\n    address = "${srv.base}/old"\n  }\n}\n\n${RESOURCES}`);
    assert.equal((await run('terraform', ['init', '-input=false', '-no-color'], dir, env)).status, 0);
    srv.requests.length = 0;
    const ap = await run('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], dir, env);
    assert.equal(ap.status, 0, ap.stdout + ap.stderr);
    const tfSeq = srv.requests.map((r) => `${r.method} ${r.url} ${r.headers.referer ?? ''}`);
    const tfPost = srv.requests.filter((r) => r.method === 'POST');
    srv.state = undefined;
    srv.requests.length = 0;
    const mgr = await configureHttpBackend({ address: `${srv.base}/old` }, {}).backend!.stateMgr('default');
    assert.deepEqual(await mgr.refresh(), []);
    mgr.write(readStateFile(tfPost[1].body).file!.state);
    assert.deepEqual(await mgr.persist(), []);
    assert.deepEqual(srv.requests.map((r) => `${r.method} ${r.url} ${r.headers.referer ?? ''}`), tfSeq);
    // Both POSTs of each tool carry the body with its Content-MD5 (the 307 repeats method, body and headers).
    const ours = srv.requests.filter((r) => r.method === 'POST');
    for (const posts of [tfPost, ours]) {
      assert.equal(posts.length, 2);
      for (const p of posts) assert.deepEqual([p.headers['content-md5'], p.headers['content-type']], [md5(p.body), 'application/json']);
      assert.equal(posts[0].body, posts[1].body);
    }

    rmSync(join(dir, '.terraform'), { recursive: true, force: true });
    writeFileSync(join(dir, 'main.tf'), `terraform {\n  backend "http" {\n    address = "${srv.base}/loop"\n    retry_max = 0\n  }\n}\n`);
    srv.requests.length = 0;
    const init = await run('terraform', ['init', '-input=false', '-no-color'], dir, { ...env, TF_HTTP_RETRY_MAX: '3' });
    const tfCount = srv.requests.length;
    srv.requests.length = 0;
    const loop = await configureHttpBackend({ address: `${srv.base}/loop`, retry_max: 0 }, {}).backend!.stateMgr('default');
    const d = await loop.refresh();
    assert.equal(srv.requests.length, tfCount);
    assert.ok(init.stderr.includes(d[0].summary.replace(/^error loading state: /, '')), init.stderr);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('TLS: terraform and Foresight agree on an unknown CA, a missing client certificate, and mutual TLS (PEMs from TF_HTTP_* variables)', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform || !hasOpenssl) {
    t.skip(!hasTerraform ? NOTICE : 'openssl is not installed; the TLS interoperability test needs it to make certificates');
    return;
  }
  const certDir = mkdtempSync(join(tmpdir(), 'foresight-http-tls-'));
  const c = makeCerts(certDir);
  const srv = await new StateServer({ tls: { key: c.serverKey, cert: c.serverCert, ca: c.ca, requestCert: true } }).start();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-http-tls-tf-'));
  const rc = join(dir, '.terraformrc');
  writeFileSync(rc, '');
  const base: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '', TF_HTTP_RETRY_MAX: '0' };
  writeFileSync(join(dir, 'main.tf'), `terraform {\n  backend "http" {\n    address = "${srv.base}/state"\n  }\n}\n\n${RESOURCES}`);
  const cases: [string, Record<string, string>][] = [
    ['no CA', {}],
    ['CA, no client certificate', { TF_HTTP_CLIENT_CA_CERTIFICATE_PEM: c.ca }],
    ['mutual TLS', { TF_HTTP_CLIENT_CA_CERTIFICATE_PEM: c.ca, TF_HTTP_CLIENT_CERTIFICATE_PEM: c.clientCert, TF_HTTP_CLIENT_PRIVATE_KEY_PEM: c.clientKey }],
  ];
  try {
    for (const [name, vars] of cases) {
      rmSync(join(dir, '.terraform'), { recursive: true, force: true });
      const init = await run('terraform', ['init', '-input=false', '-no-color'], dir, { ...base, ...vars });
      const mine = await (await configureHttpBackend({ address: `${srv.base}/state` }, { TF_HTTP_RETRY_MAX: '0', ...vars }).backend!.stateMgr('default')).refresh();
      if (name === 'mutual TLS') {
        assert.equal(init.status, 0, init.stdout + init.stderr);
        assert.deepEqual(mine, []);
      } else {
        assert.equal(init.status, 1, name);
        const tfErr = /Error: Error refreshing state: (.*)\n/.exec(init.stderr)?.[1];
        assert.equal(mine[0].summary, `error loading state: ${tfErr}`, name);
      }
    }
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(certDir, { recursive: true, force: true });
  }
});

test('retries: on 5xx terraform and Foresight make the same number of attempts and give up with the same error', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const srv = await new StateServer().start();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-http-retry-'));
  const rc = join(dir, '.terraformrc');
  writeFileSync(rc, '');
  const vars = { TF_HTTP_RETRY_MAX: '3', TF_HTTP_RETRY_WAIT_MIN: '0', TF_HTTP_RETRY_WAIT_MAX: '0' };
  const env: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '', ...vars };
  writeFileSync(join(dir, 'main.tf'), `terraform {\n  backend "http" {\n    address = "${srv.base}/state"\n  }\n}\n`);
  try {
    for (const status of [500, 502, 503]) {
      rmSync(join(dir, '.terraform'), { recursive: true, force: true });
      srv.requests.length = 0;
      srv.inject.length = 0;
      for (let i = 0; i < 10; i++) srv.inject.push({ status });
      const init = await run('terraform', ['init', '-input=false', '-no-color'], dir, env);
      assert.equal(init.status, 1);
      const tfErr = /Error: Error refreshing state: (.*)\n/.exec(init.stderr)?.[1];
      const tfCount = srv.requests.length;
      srv.requests.length = 0;
      srv.inject.length = 0;
      for (let i = 0; i < 10; i++) srv.inject.push({ status });
      const mine = await (await configureHttpBackend({ address: `${srv.base}/state` }, vars).backend!.stateMgr('default')).refresh();
      assert.equal(srv.requests.length, tfCount, `attempts on ${status}`);
      assert.equal(mine[0].summary, `error loading state: ${tfErr}`);
    }
    // A 5xx that clears up in time: both succeed after the same attempts.
    rmSync(join(dir, '.terraform'), { recursive: true, force: true });
    srv.requests.length = 0;
    srv.inject.length = 0;
    srv.inject.push({ status: 500 }, { status: 429 });
    assert.equal((await run('terraform', ['init', '-input=false', '-no-color'], dir, env)).status, 0);
    const tfCount = srv.requests.length;
    srv.requests.length = 0;
    srv.inject.push({ status: 500 }, { status: 429 });
    assert.deepEqual(await (await configureHttpBackend({ address: `${srv.base}/state` }, vars).backend!.stateMgr('default')).refresh(), []);
    assert.equal(srv.requests.length, tfCount);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('status handling: terraform and Foresight report the same error for each GET and LOCK answer', { timeout: 180_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const srv = await new StateServer().start();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-http-status-'));
  const rc = join(dir, '.terraformrc');
  writeFileSync(rc, '');
  const env: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '', TF_HTTP_RETRY_MAX: '0' };
  const conf = { address: `${srv.base}/state`, lock_address: `${srv.base}/lock`, unlock_address: `${srv.base}/lock` };
  writeFileSync(
    join(dir, 'main.tf'),
    `terraform {\n  backend "http" {\n    address        = "${conf.address}"\n    lock_address   = "${conf.lock_address}"\n    unlock_address = "${conf.unlock_address}"\n  }\n}\n`,
  );
  type Answer = { status: number; headers?: Record<string, string>; body?: string };
  const gets: Answer[] = [
    { status: 401 },
    { status: 403 },
    { status: 418 },
    { status: 501 },
    { status: 200, body: '{"version":4}', headers: { 'Content-MD5': 'not base64!' } },
  ];
  try {
    for (const a of gets) {
      rmSync(join(dir, '.terraform'), { recursive: true, force: true });
      srv.inject.length = 0;
      srv.inject.push(a);
      const init = await run('terraform', ['init', '-input=false', '-no-color'], dir, env);
      const tfErr = /Error: Error refreshing state: (.*)\n/.exec(init.stderr)?.[1];
      srv.inject.push(a);
      const mine = await (await configureHttpBackend(conf, { TF_HTTP_RETRY_MAX: '0' }).backend!.stateMgr('default')).refresh();
      assert.equal(mine[0]?.summary, `error loading state: ${tfErr}`, JSON.stringify(a));
    }
    srv.inject.length = 0;
    rmSync(join(dir, '.terraform'), { recursive: true, force: true });
    assert.equal((await run('terraform', ['init', '-input=false', '-no-color'], dir, env)).status, 0);
    const locks: Answer[] = [{ status: 401 }, { status: 403 }, { status: 418 }, { status: 409, body: 'garbage' }, { status: 423, body: 'null' }];
    for (const a of locks) {
      srv.inject.length = 0;
      srv.inject.push(a);
      const plan = await run('terraform', ['plan', '-input=false', '-no-color', '-lock-timeout=0s'], dir, env);
      assert.equal(plan.status, 1);
      const tfMsg = /Error message: ([^\n]*(?:\n[^\n]+)*?)(?:\nLock Info:|\n\n)/.exec(plan.stderr)?.[1]?.replace(/\n/g, ' ');
      srv.inject.push(a);
      const mgr = await configureHttpBackend(conf, { TF_HTTP_RETRY_MAX: '0' }).backend!.stateMgr('default');
      let msg = '';
      try {
        await mgr.lock({ ID: 'x', Operation: 'OperationTypePlan', Info: '', Who: 'a@b', Version: '1.11.4', Created: '', Path: '' });
      } catch (e) {
        msg = (e as Error).message.split('\nLock Info:')[0];
      }
      assert.equal(msg, tfMsg, JSON.stringify(a));
    }
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an address with a query: the write URL (query re-encoded, keys sorted, ID added) is the same as terraform\'s', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const srv = await new StateServer().start();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-http-query-'));
  const rc = join(dir, '.terraformrc');
  writeFileSync(rc, '');
  const env: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '' };
  const conf = { address: `${srv.base}/state?z=1&a=%2Fb+c&a=0&e=`, lock_address: `${srv.base}/lock?w=1`, unlock_address: `${srv.base}/lock?w=2` };
  writeFileSync(
    join(dir, 'main.tf'),
    `terraform {\n  backend "http" {\n    address        = "${conf.address}"\n    lock_address   = "${conf.lock_address}"\n    unlock_address = "${conf.unlock_address}"\n  }\n}\n\n${RESOURCES}`,
  );
  const norm = () => srv.requests.map((r) => `${r.method} ${r.url.replace(/ID=[0-9a-f-]+/, 'ID=<id>')}`);
  try {
    assert.equal((await run('terraform', ['init', '-input=false', '-no-color'], dir, env)).status, 0);
    srv.requests.length = 0;
    const ap = await run('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], dir, env);
    assert.equal(ap.status, 0, ap.stdout + ap.stderr);
    const tfSeq = norm();
    assert.ok(tfSeq.includes('POST /state?ID=<id>&a=%2Fb+c&a=0&e=&z=1'), tfSeq.join('\n'));
    srv.requests.length = 0;
    srv.state = undefined;
    const mgr = await configureHttpBackend(conf, {}).backend!.stateMgr('default');
    const id = await mgr.lock(lockInfo('f0000000-0000-0000-0000-000000000009'));
    assert.deepEqual(await mgr.refresh(), []);
    mgr.write(new State());
    assert.deepEqual(await mgr.persist(), []);
    await mgr.unlock(id);
    assert.deepEqual(norm(), tfSeq);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('through HTTP_PROXY: terraform and Foresight send the same requests to the proxy', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const srv = await new StateServer().start();
  const proxy = await new ForwardProxy(srv).start();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-http-proxy-'));
  const rc = join(dir, '.terraformrc');
  writeFileSync(rc, '');
  const vars = { HTTP_PROXY: `http://pu:pp@127.0.0.1:${proxy.port}`, NO_PROXY: 'other.test' };
  const env: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '', ...vars };
  const conf = { address: 'http://state.test/state', lock_address: 'http://state.test/lock', unlock_address: 'http://state.test/lock' };
  writeFileSync(
    join(dir, 'main.tf'),
    `terraform {\n  backend "http" {\n    address        = "${conf.address}"\n    lock_address   = "${conf.lock_address}"\n    unlock_address = "${conf.unlock_address}"\n  }\n}\n\n${RESOURCES}`,
  );
  const seen = () => proxy.requests.map((r) => `${r.method} ${r.url.replace(/ID=[0-9a-f-]+/, 'ID=<id>')} ${r.headers.host} ${r.headers['proxy-authorization'] ?? '-'}`);
  try {
    assert.equal((await run('terraform', ['init', '-input=false', '-no-color'], dir, env)).status, 0);
    proxy.requests.length = 0;
    const ap = await run('terraform', ['apply', '-auto-approve', '-input=false', '-no-color'], dir, env);
    assert.equal(ap.status, 0, ap.stdout + ap.stderr);
    const tfSeen = seen();
    assert.equal(tfSeen.length, 5);
    proxy.requests.length = 0;
    srv.state = undefined;
    const mgr = await configureHttpBackend(conf, vars).backend!.stateMgr('default');
    const id = await mgr.lock(lockInfo('f0000000-0000-0000-0000-00000000000a'));
    assert.deepEqual(await mgr.refresh(), []);
    mgr.write(new State());
    assert.deepEqual(await mgr.persist(), []);
    await mgr.unlock(id);
    assert.deepEqual(seen(), tfSeen);
  } finally {
    await proxy.stop();
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
