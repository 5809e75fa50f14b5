// The pg backend against terraform 1.11.4 on the same database (issue 9 checks): each tool plans no changes on
// the state the other applied; a lock held by one (an apply waiting at its confirmation prompt holds the state
// lock) makes the other fail with "Error acquiring the state lock"; workspaces created by one are listed by the
// other. Skips with a printed notice when terraform is not installed or PostgreSQL cannot be installed/started.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error plain ES module without types
import { startPg } from '../../scripts/pg.mjs';

type Pg = { connStr: string; createDb(name: string): string; stop(): void; skip?: string };
const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
let pg: Pg | undefined;
let skipReason = '';

before(async () => {
  if (!hasTerraform) {
    skipReason = 'terraform is not installed';
    console.log('# SKIP pg interop tests: terraform is not installed');
    return;
  }
  const r = (await startPg()) as Pg;
  if (r.skip) {
    skipReason = r.skip;
    console.log(`# SKIP pg interop tests: ${r.skip}`);
    return;
  }
  pg = r;
});
after(() => pg?.stop());

const CLI = join(process.cwd(), 'dist/cli.js');
let n = 0;

function setup(): { dir: string; env: NodeJS.ProcessEnv; base: string } {
  const conn = pg!.createDb(`interop${process.pid}_${++n}`);
  const base = mkdtempSync(join(tmpdir(), 'foresight-pgi-'));
  const rc = join(base, 'empty.tfrc');
  writeFileSync(rc, '');
  const dir = join(base, 'w');
  spawnSync('mkdir', ['-p', dir]);
  writeFileSync(join(dir, 'backend.tf'), `terraform {\n  backend "pg" {\n    conn_str = ${JSON.stringify(conn)}\n  }\n}\n`);
  writeFileSync(
    join(dir, 'main.tf'),
    'variable "v" {\n  default = "a"\n}\n\nresource "terraform_data" "r" {\n  count = 4\n  input = "${var.v}-${count.index}"\n}\n\nresource "terraform_data" "m" {\n  for_each = toset(["x", "y"])\n  input    = terraform_data.r[0].output\n}\n\noutput "o" {\n  value = terraform_data.r[*].output\n}\n',
  );
  return { base, dir, env: { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '' } };
}

function run(cmd: string, args: string[], dir: string, env: NodeJS.ProcessEnv) {
  const r = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', env, input: '' });
  return { status: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout };
}
const tf = (dir: string, env: NodeJS.ProcessEnv, args: string[]) => run('terraform', args, dir, env);
const fs = (dir: string, env: NodeJS.ProcessEnv, args: string[]) => run('node', [CLI, ...args], dir, env);

function skipUnless(t: { skip(m: string): void }): boolean {
  if (pg) return false;
  t.skip(skipReason);
  return true;
}

/** Starts an apply that stops at its confirmation prompt (holding the state lock) and resolves once it asks. */
function applyAtPrompt(cmd: string[], dir: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd[0], cmd.slice(1), { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no prompt: ${out}`)), 60_000);
    p.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('Enter a value:')) {
        clearTimeout(timer);
        resolve(p);
      }
    });
    p.stderr!.on('data', (d) => (out += d));
    p.on('exit', () => reject(new Error(`exited before the prompt: ${out}`)));
  });
}
function answer(p: ChildProcess, text: string): Promise<number | null> {
  return new Promise((resolve) => {
    p.removeAllListeners('exit');
    p.on('exit', (code) => resolve(code));
    p.stdin!.end(text);
  });
}

test('terraform applies to pg, foresight plans no changes; foresight applies, terraform plans no changes', { timeout: 180_000 }, (t) => {
  if (skipUnless(t)) return;
  const { base, dir, env } = setup();
  try {
    let r = tf(dir, env, ['init', '-input=false', '-no-color']);
    assert.equal(r.status, 0, r.out);
    r = tf(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color']);
    assert.equal(r.status, 0, r.out);
    // foresight reads terraform's .terraform/terraform.tfstate as it is.
    r = fs(dir, env, ['plan', '-detailed-exitcode', '-input=false', '-no-color']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /No changes\. Your infrastructure matches the configuration\./);
    assert.deepEqual(JSON.parse(fs(dir, env, ['output', '-json']).stdout), JSON.parse(tf(dir, env, ['output', '-json']).stdout));
    r = fs(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color', '-var=v=b']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /Resources: 0 added, 6 changed, 0 destroyed\./);
    r = tf(dir, env, ['plan', '-detailed-exitcode', '-input=false', '-no-color', '-var=v=b']);
    assert.equal(r.status, 0, r.out);
    assert.deepEqual(JSON.parse(tf(dir, env, ['output', '-json']).stdout).o.value, ['b-0', 'b-1', 'b-2', 'b-3']);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('a lock held by either tool makes the other fail with "Error acquiring the state lock"', { timeout: 180_000 }, async (t) => {
  if (skipUnless(t)) return;
  const { base, dir, env } = setup();
  try {
    assert.equal(fs(dir, env, ['init', '-input=false', '-no-color']).status, 0);
    assert.equal(fs(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color']).status, 0);
    // terraform holds the lock while it waits for "yes".
    let holder = await applyAtPrompt(['terraform', 'apply', '-no-color', '-var=v=c'], dir, env);
    let r = fs(dir, env, ['plan', '-no-color', '-input=false']);
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /Error: Error acquiring the state lock\n\nError message: Workspace is already locked: default\nLock Info:\n  ID: {8}[0-9a-f-]{36}\n  Path: {6}\n  Operation: OperationTypePlan\n/);
    assert.equal(await answer(holder, 'no\n'), 1);
    // And the reverse: foresight waits at its prompt holding the lock.
    holder = await applyAtPrompt(['node', CLI, 'apply', '-no-color', '-var=v=c'], dir, env);
    r = tf(dir, env, ['plan', '-no-color', '-input=false', '-lock-timeout=0s']);
    assert.equal(r.status, 1, r.out);
    assert.match(r.out, /Error: Error acquiring the state lock\n\nError message: Workspace is already locked: default\n/);
    assert.equal(await answer(holder, 'yes\n'), 0);
    r = tf(dir, env, ['plan', '-detailed-exitcode', '-no-color', '-input=false', '-var=v=c']);
    assert.equal(r.status, 0, r.out);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('workspaces created by one tool are listed and usable by the other', { timeout: 180_000 }, (t) => {
  if (skipUnless(t)) return;
  const { base, dir, env } = setup();
  try {
    assert.equal(tf(dir, env, ['init', '-input=false', '-no-color']).status, 0);
    assert.equal(fs(dir, env, ['workspace', 'new', 'fsws', '-no-color']).status, 0);
    assert.equal(tf(dir, env, ['workspace', 'new', 'tfws', '-no-color']).status, 0);
    assert.equal(tf(dir, env, ['workspace', 'list']).stdout, '  default\n  fsws\n* tfws\n\n');
    assert.equal(fs(dir, env, ['workspace', 'list']).stdout, '  default\n  fsws\n* tfws\n\n');
    let r = fs(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color']);
    assert.equal(r.status, 0, r.out);
    r = tf(dir, env, ['plan', '-detailed-exitcode', '-no-color', '-input=false']);
    assert.equal(r.status, 0, r.out);
    assert.equal(tf(dir, env, ['workspace', 'select', 'default']).status, 0);
    r = tf(dir, env, ['workspace', 'delete', 'fsws']);
    assert.equal(r.status, 0, r.out);
    assert.equal(fs(dir, env, ['workspace', 'list']).stdout, '* default\n  tfws\n\n');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
