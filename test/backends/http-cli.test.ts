// The http backend end to end through the command line (dist/cli.js) against a local state server (httpServer.ts):
// `foresight init` records the backend as terraform does, `foresight apply` makes Terraform's requests, and with
// `terraform` installed (skipped with a printed notice otherwise) each tool plans no changes on the other's state,
// a lock held by one stops the other with "Error acquiring the state lock", and workspace commands fail alike.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStateFile } from '../../server/states/statefile';
import type { LockInfo } from '../../server/states/statemgr';
import { StateServer } from './httpServer';

const ROOT = process.cwd();
const CLI = process.env.FORESIGHT_TEST_CLI || join(ROOT, 'dist/cli.js');
const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
const NOTICE = 'terraform is not installed; the http backend command-line interoperability test needs it';

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
const fs = (dir: string, env: NodeJS.ProcessEnv, args: string[]) => run('node', [CLI, ...args], dir, env);
const tf = (dir: string, env: NodeJS.ProcessEnv, args: string[]) => run('terraform', args, dir, env);

const RESOURCES = `resource "terraform_data" "r" {
  count = 3
  input = "n-\${count.index}"
}

output "o" {
  value = terraform_data.r[*].output
}
`;

function setup(srv: StateServer, body: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-http-cli-'));
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
  const env: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '', TF_HTTP_RETRY_WAIT_MIN: '0' };
  for (const k of Object.keys(env)) if (k.startsWith('TF_HTTP_') && k !== 'TF_HTTP_RETRY_WAIT_MIN') delete env[k];
  return { dir, env };
}

const seq = (srv: StateServer) => srv.requests.map((r) => `${r.method} ${r.url.replace(/\?ID=[0-9a-f-]+$/, '?ID=<id>')}`);

test('foresight init and apply over http: the backend recorded as terraform records it, Terraform\'s request sequence', { timeout: 120_000 }, async () => {
  const srv = await new StateServer().start();
  const { dir, env } = setup(srv, RESOURCES);
  try {
    const init = await fs(dir, env, ['init', '-input=false', '-no-color']);
    assert.equal(init.status, 0, init.stdout + init.stderr);
    const recorded = JSON.parse(readFileSync(join(dir, '.terraform/terraform.tfstate'), 'utf8')) as { backend: { type: string; config: Record<string, unknown>; hash: number } };
    assert.equal(recorded.backend.type, 'http');
    assert.equal(recorded.backend.config.address, `${srv.base}/state`);
    srv.requests.length = 0;
    const ap = await fs(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color']);
    assert.equal(ap.status, 0, ap.stdout + ap.stderr);
    assert.match(ap.stdout, /Apply complete! Resources: 3 added, 0 changed, 0 destroyed\./);
    assert.deepEqual(seq(srv), ['LOCK /lock', 'GET /state', 'GET /state', 'POST /state?ID=<id>', 'UNLOCK /lock']);
    const f = readStateFile(srv.state!.toString('utf8')).file!;
    assert.equal(f.serial, 1);
    assert.equal(f.state.root.resources.size, 1);
    srv.requests.length = 0;
    const plan = await fs(dir, env, ['plan', '-detailed-exitcode', '-input=false', '-no-color']);
    assert.equal(plan.status, 0, plan.stdout + plan.stderr);
    assert.deepEqual(seq(srv), ['LOCK /lock', 'GET /state', 'UNLOCK /lock']);
    // Read-only commands GET once, without the lock; destroy POSTs once (terraform 1.11.4's sequences).
    for (const args of [['show', '-no-color'], ['state', 'list'], ['output']]) {
      srv.requests.length = 0;
      const r = await fs(dir, env, args);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.deepEqual(seq(srv), ['GET /state'], args.join(' '));
    }
    srv.requests.length = 0;
    const d = await fs(dir, env, ['destroy', '-auto-approve', '-input=false', '-no-color']);
    assert.equal(d.status, 0, d.stdout + d.stderr);
    assert.deepEqual(seq(srv), ['LOCK /lock', 'GET /state', 'POST /state?ID=<id>', 'UNLOCK /lock']);
    assert.equal(readStateFile(srv.state!.toString('utf8')).file!.serial, 2);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'workspace commands on the http backend print "workspaces not supported" as terraform does (http-interop.test.ts records terraform)',
  { timeout: 60_000 },
  async () => {
    const srv = await new StateServer().start();
    const { dir, env } = setup(srv, RESOURCES);
    try {
      assert.equal((await fs(dir, env, ['init', '-input=false', '-no-color'])).status, 0);
      const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
      const ws = await fs(dir, env, ['workspace', 'list']);
      assert.deepEqual([ws.status, ws.stdout, plain(ws.stderr)], [1, '', 'workspaces not supported\n']);
      const nw = await fs(dir, env, ['workspace', 'new', 'dev']);
      assert.deepEqual([nw.status, nw.stdout, plain(nw.stderr)], [1, '', 'Failed to get configured named states: workspaces not supported\n']);
    } finally {
      await srv.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('terraform and foresight on one http state: each plans no changes after the other applies; init records the same backend', { timeout: 180_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const srv = await new StateServer().start();
  const { dir, env } = setup(srv, RESOURCES);
  try {
    const tinit = await tf(dir, env, ['init', '-input=false', '-no-color']);
    assert.equal(tinit.status, 0, tinit.stdout + tinit.stderr);
    const tfRecorded = readFileSync(join(dir, '.terraform/terraform.tfstate'), 'utf8');
    rmSync(join(dir, '.terraform'), { recursive: true, force: true });
    const finit = await fs(dir, env, ['init', '-input=false', '-no-color']);
    assert.equal(finit.status, 0, finit.stdout + finit.stderr);
    assert.equal(readFileSync(join(dir, '.terraform/terraform.tfstate'), 'utf8'), tfRecorded);

    const tap = await tf(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color']);
    assert.equal(tap.status, 0, tap.stdout + tap.stderr);
    const fplan = await fs(dir, env, ['plan', '-detailed-exitcode', '-input=false', '-no-color']);
    assert.equal(fplan.status, 0, fplan.stdout + fplan.stderr);
    assert.match(fplan.stdout, /No changes\. Your infrastructure matches the configuration\./);

    writeFileSync(join(dir, 'extra.tf'), 'resource "terraform_data" "extra" {\n  input = "e"\n}\n');
    const fap = await fs(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color']);
    assert.equal(fap.status, 0, fap.stdout + fap.stderr);
    const f = readStateFile(srv.state!.toString('utf8')).file!;
    assert.equal(f.serial, 2);
    const tplan = await tf(dir, env, ['plan', '-detailed-exitcode', '-input=false', '-no-color']);
    assert.equal(tplan.status, 0, tplan.stdout + tplan.stderr);
    assert.match(tplan.stdout, /No changes\. Your infrastructure matches the configuration\./);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Starts `cmd apply` without -auto-approve: it takes the lock and holds it while waiting for the answer. */
function startApply(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const p = spawn(cmd, [...args, 'apply', '-no-color'], { cwd, env });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => (stdout += d));
  p.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => p.on('close', (status) => resolve({ status, stdout, stderr })));
  return { answer: (text: string) => p.stdin.end(text), done };
}

async function waitForLock(srv: StateServer): Promise<string> {
  for (let i = 0; i < 600 && srv.lock === undefined; i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(srv.lock !== undefined, 'the apply took the lock');
  return (JSON.parse(srv.lock!) as LockInfo).ID;
}

test('a lock held by terraform stops foresight with Terraform\'s "Error acquiring the state lock" text, and the reverse', { timeout: 180_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const srv = await new StateServer().start();
  const { dir, env } = setup(srv, 'resource "terraform_data" "a" {\n  input = "x"\n}\n');
  const norm = (s: string) =>
    s
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
      .replace(/Created: {3}.*\n/, 'Created:   <time>\n')
      .replace(/Who: {7}.*\n/, 'Who:       <who>\n');
  try {
    assert.equal((await tf(dir, env, ['init', '-input=false', '-no-color'])).status, 0);
    // terraform holds the lock at its approval prompt: foresight's plan fails exactly as a second terraform's does.
    const tapply = startApply('terraform', [], dir, env);
    const tfID = await waitForLock(srv);
    const [fplan, tplan] = await Promise.all([
      fs(dir, env, ['plan', '-input=false', '-no-color', '-lock-timeout=0s']),
      tf(dir, env, ['plan', '-input=false', '-no-color', '-lock-timeout=0s']),
    ]);
    assert.equal(fplan.status, 1, fplan.stdout + fplan.stderr);
    assert.ok(fplan.stderr.includes(`HTTP remote state already locked:\nID=${tfID}`), fplan.stderr);
    assert.equal(tplan.status, 1);
    assert.equal(norm(fplan.stderr), norm(tplan.stderr));
    tapply.answer('yes\n');
    const td = await tapply.done;
    assert.equal(td.status, 0, td.stdout + td.stderr);
    assert.equal(srv.lock, undefined);
    // foresight holds the lock at its approval prompt: terraform fails with foresight's lock ID in the message.
    writeFileSync(join(dir, 'extra.tf'), 'resource "terraform_data" "b" {}\n');
    const fapply = startApply('node', [CLI, '-chdir=' + dir], dir, env);
    const fsID = await waitForLock(srv);
    const t2 = await tf(dir, env, ['plan', '-input=false', '-no-color', '-lock-timeout=0s']);
    assert.equal(t2.status, 1, t2.stdout + t2.stderr);
    assert.ok(t2.stderr.includes(`HTTP remote state already locked:\nID=${fsID}`), t2.stderr);
    fapply.answer('no\n');
    const fd = await fapply.done;
    assert.equal(fd.status, 1, fd.stdout + fd.stderr);
    assert.match(fd.stdout, /Apply cancelled\./);
    assert.equal(srv.lock, undefined, 'foresight released the lock');
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('durability: foresight apply killed mid-run leaves its journal; the next locked run sends the completed resources', { timeout: 120_000 }, async () => {
  const srv = await new StateServer().start();
  const { dir, env } = setup(
    srv,
    `resource "terraform_data" "r" {
  count = 4
  input = count.index
}

resource "time_sleep" "wait" {
  create_duration = "30s"
  depends_on      = [terraform_data.r]
}
`,
  );
  try {
    const init = await fs(dir, env, ['init', '-input=false', '-no-color']);
    assert.equal(init.status, 0, init.stdout + init.stderr);
    const p = spawn('node', [CLI, 'apply', '-auto-approve', '-input=false', '-no-color'], { cwd: dir, env });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    for (let i = 0; i < 600 && !out.includes('time_sleep.wait: Creating...'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(out, /time_sleep\.wait: Creating\.\.\./);
    p.kill('SIGKILL');
    await new Promise((r) => p.on('close', r));
    // Nothing was POSTed (the 20 s interval had not passed), the lock is left behind; the journal holds 4 resources.
    assert.equal(srv.state, undefined);
    assert.ok(srv.lock !== undefined);
    srv.lock = undefined; // what `force-unlock` would do
    const journals = readdirSync(join(dir, '.terraform')).filter((f) => /^foresight-http-[0-9a-f]{16}\.journal$/.test(f));
    assert.equal(journals.length, 1);
    srv.requests.length = 0;
    const plan = await fs(dir, env, ['plan', '-input=false', '-no-color']);
    assert.equal(plan.status, 0, plan.stdout + plan.stderr);
    assert.match(plan.stdout, /Plan: 1 to add, 0 to change, 0 to destroy\./);
    const f = readStateFile(srv.state!.toString('utf8')).file!;
    assert.deepEqual([f.serial, [...f.state.root.resources.keys()]], [1, ['terraform_data.r']]);
    assert.equal(readdirSync(join(dir, '.terraform')).filter((n) => n.endsWith('.journal')).length, 0);
    assert.deepEqual(seq(srv), ['LOCK /lock', 'GET /state', 'POST /state?ID=<id>', 'UNLOCK /lock']);
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the wire: foresight apply sends the same requests as terraform apply, header names in the same order', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip(NOTICE);
    return;
  }
  const wire = async (cmd: 'terraform' | 'foresight') => {
    const srv = await new StateServer({ auth: { username: 'u', password: 'p' } }).start();
    const { dir, env } = setup(srv, RESOURCES);
    writeFileSync(join(dir, 'main.tf'), readFileSync(join(dir, 'main.tf'), 'utf8').replace('  backend "http" {\n', '  backend "http" {\n    username = "u"\n    password = "p"\n'));
    try {
      const go = cmd === 'terraform' ? tf : fs;
      const init = await go(dir, env, ['init', '-input=false', '-no-color']);
      assert.equal(init.status, 0, init.stdout + init.stderr);
      srv.requests.length = 0;
      const ap = await go(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color']);
      assert.equal(ap.status, 0, ap.stdout + ap.stderr);
      return srv.requests.map((r) => {
        const names = r.rawHeaders.filter((_, i) => i % 2 === 0 && r.rawHeaders[i] !== 'Connection');
        const values = names.map((n) => (/^(Content-Md5|Content-Length|Host)$/.test(n) ? '' : r.rawHeaders[r.rawHeaders.indexOf(n) + 1]));
        return `${r.method} ${r.url.replace(/\?ID=[0-9a-f-]+$/, '?ID=<id>')} ${names.join(',')} ${values.join(',')}`;
      });
    } finally {
      await srv.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const terraform = await wire('terraform');
  assert.equal(terraform.length, 5);
  assert.deepEqual(await wire('foresight'), terraform);
});
