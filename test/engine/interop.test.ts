// State interoperability with Terraform 1.11.4 through the real command lines (skipped with a notice when
// `terraform` is not installed): a configuration with terraform_data under count and for_each, a local module
// (itself counted) and outputs is applied by one tool, and the other tool's `plan -detailed-exitcode` must report
// no changes (exit 0) against that state; Terraform's `show -json` must read the state Foresight wrote.
// Also lock exclusion: while `foresight apply` holds the state lock (waiting on a slow time_sleep), `terraform
// apply -lock-timeout=0s` is refused with Terraform's lock error, and Foresight's apply completes unharmed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = process.cwd();
const CLI = join(ROOT, 'dist/cli.js');
const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;

const MAIN = `variable "names" {
  default = ["a", "b", "c"]
}

resource "terraform_data" "counted" {
  count = 3
  input = "n-\${count.index}"
}

resource "terraform_data" "each" {
  for_each = toset(var.names)
  input    = { name = each.key, dep = terraform_data.counted[0].output }
}

module "child" {
  source = "./child"
  count  = 2
  prefix = "p\${count.index}"
  ids    = [for k, v in terraform_data.each : v.id]
}

output "counted" {
  value = terraform_data.counted[*].output
}

output "child" {
  value = module.child[*].out
}

output "secret" {
  value     = "s3cr3t"
  sensitive = true
}
`;

const CHILD = `variable "prefix" {
  type = string
}

variable "ids" {
  type = list(string)
}

resource "terraform_data" "inner" {
  for_each = { x = 1, y = 2 }
  input    = "\${var.prefix}-\${each.key}-\${each.value}-\${length(var.ids)}"
}

output "out" {
  value = { for k, v in terraform_data.inner : k => v.output }
}
`;

function setup(): { base: string; dir: string; env: NodeJS.ProcessEnv } {
  const base = mkdtempSync(join(tmpdir(), 'foresight-interop-'));
  const dir = join(base, 'work');
  mkdirSync(join(dir, 'child'), { recursive: true });
  writeFileSync(join(dir, 'main.tf'), MAIN);
  writeFileSync(join(dir, 'child', 'main.tf'), CHILD);
  const rc = join(base, 'empty.tfrc');
  writeFileSync(rc, '');
  return { base, dir, env: { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '' } };
}

function run(cmd: string, args: string[], dir: string, env: NodeJS.ProcessEnv) {
  const r = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout };
}
const tf = (dir: string, env: NodeJS.ProcessEnv, args: string[]) => run('terraform', args, dir, env);
const fs = (dir: string, env: NodeJS.ProcessEnv, args: string[]) => run('node', [CLI, ...args], dir, env);

test('terraform applies, foresight plans no changes against its state', { timeout: 120_000 }, (t) => {
  if (!hasTerraform) {
    t.skip('terraform is not installed; the interoperability test needs it');
    return;
  }
  const { base, dir, env } = setup();
  try {
    let r = tf(dir, env, ['init', '-input=false', '-no-color']);
    assert.equal(r.status, 0, r.out);
    r = tf(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /Resources: 10 added, 0 changed, 0 destroyed/);
    r = fs(dir, env, ['plan', '-detailed-exitcode', '-input=false', '-no-color']);
    assert.equal(r.status, 0, `foresight plan against terraform's state is not empty (exit ${r.status}):\n${r.out}`);
    assert.match(r.out, /No changes\. Your infrastructure matches the configuration\./);
    // Outputs read back identically by both tools.
    const a = JSON.parse(tf(dir, env, ['output', '-json']).stdout);
    const b = JSON.parse(fs(dir, env, ['output', '-json']).stdout);
    assert.deepEqual(b, a);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('foresight applies, terraform plans no changes and show -json reads the state', { timeout: 120_000 }, (t) => {
  if (!hasTerraform) {
    t.skip('terraform is not installed; the interoperability test needs it');
    return;
  }
  const { base, dir, env } = setup();
  try {
    let r = fs(dir, env, ['init', '-input=false', '-no-color']);
    assert.equal(r.status, 0, r.out);
    r = fs(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /Resources: 10 added, 0 changed, 0 destroyed/);
    r = tf(dir, env, ['init', '-input=false', '-no-color']);
    assert.equal(r.status, 0, r.out);
    r = tf(dir, env, ['plan', '-detailed-exitcode', '-input=false', '-no-color']);
    assert.equal(r.status, 0, `terraform plan against foresight's state is not empty (exit ${r.status}):\n${r.out}`);
    r = tf(dir, env, ['show', '-json']);
    assert.equal(r.status, 0, r.out);
    const shown = JSON.parse(r.stdout) as { values: { outputs: Record<string, unknown>; root_module: { resources: unknown[]; child_modules: unknown[] } } };
    assert.equal(shown.values.root_module.resources.length, 6);
    assert.equal(shown.values.root_module.child_modules.length, 2);
    assert.deepEqual(Object.keys(shown.values.outputs).sort(), ['child', 'counted', 'secret']);
    const mine = JSON.parse(fs(dir, env, ['show', '-json']).stdout);
    assert.deepEqual(mine.values, shown.values);
    // And terraform's state list agrees with foresight's.
    assert.equal(fs(dir, env, ['state', 'list']).stdout, tf(dir, env, ['state', 'list']).stdout);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('while foresight apply holds the lock, terraform apply is refused', { timeout: 120_000 }, async (t) => {
  if (!hasTerraform) {
    t.skip('terraform is not installed; the interoperability test needs it');
    return;
  }
  const { base, dir, env } = setup();
  try {
    // Terraform initialises with terraform_data only (an offline Terraform cannot install hashicorp/time); the
    // slow time_sleep is added afterwards for Foresight, whose built-in time provider needs no installation.
    // Terraform takes the state lock before it loads provider schemas, so the lock is what refuses it.
    writeFileSync(join(dir, 'main.tf'), 'resource "terraform_data" "a" {}\n');
    let r = tf(dir, env, ['init', '-input=false', '-no-color']);
    assert.equal(r.status, 0, r.out);
    r = fs(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color']);
    assert.equal(r.status, 0, r.out);
    writeFileSync(join(dir, 'main.tf'), 'resource "terraform_data" "a" {}\nresource "time_sleep" "slow" {\n  create_duration = "4s"\n}\n');
    const child = spawn('node', [CLI, 'apply', '-auto-approve', '-input=false', '-no-color'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const done = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Wait until the apply is creating the slow resource (it holds the lock from before the plan).
    const deadline = Date.now() + 30_000;
    while (!/time_sleep\.slow: Creating\.\.\./.test(out) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
    assert.match(out, /time_sleep\.slow: Creating\.\.\./);
    assert.ok(existsSync(join(dir, '.terraform.tfstate.lock.info')));
    r = tf(dir, env, ['apply', '-auto-approve', '-input=false', '-no-color', '-lock-timeout=0s']);
    assert.notEqual(r.status, 0);
    assert.match(r.out, /Error acquiring the state lock/, r.out);
    assert.equal(await done, 0, out);
    assert.ok(!existsSync(join(dir, '.terraform.tfstate.lock.info')));
    const st = JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')) as { resources: { type: string }[] };
    assert.deepEqual(st.resources.map((x) => x.type).sort(), ['terraform_data', 'time_sleep']);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
