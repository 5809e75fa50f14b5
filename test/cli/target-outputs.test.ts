// Root outputs under -target, as Terraform's TargetsTransformer keeps them: an output is planned only when it
// depends on at least one resource and every resource it depends on is targeted (or a dependency of a target); a
// targeted destroy plans no output change and leaves the outputs in state. Before, an output depending on any
// targeted resource was planned (with its untargeted parts), and a targeted destroy removed every output from state.
// A destroy plan shows an output's new known value as its prior ("plain" below: "q", not the "p" in state), because
// its refresh plan wrote the new values into the prior state.
// Each plan runs with a single resource instance per target so the output is deterministic; where `terraform` is on
// PATH each command also runs through it live on a copy of the same workspace and state and must print the same bytes
// (skipped with a printed notice otherwise).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve(process.cwd(), 'dist/cli.js');
const ROOT = mkdtempSync(join(tmpdir(), 'foresight-target-outputs-'));
const RC = join(ROOT, 'empty.tfrc');
writeFileSync(RC, '');
const ENV = { ...process.env, TF_CLI_CONFIG_FILE: RC, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '', TF_LOG: '', TF_DATA_DIR: '', TF_WORKSPACE: '' };
const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8', env: ENV }).status === 0;
if (!hasTerraform) console.log('# terraform is not on PATH: the live comparisons in target-outputs.test.ts are skipped');

const BASE = join(ROOT, 'base');
mkdirSync(BASE);
const CONFIG = (a: string) => `resource "terraform_data" "a" {
  input = "${a}"
}

resource "terraform_data" "b" {
  input = "b"
}

output "a" {
  value = terraform_data.a.output
}

output "both" {
  value = [terraform_data.a.output, terraform_data.b.output]
}

output "plain" {
  value = "p"
}
`;
writeFileSync(join(BASE, 'main.tf'), CONFIG('a1'));
const first = spawnSync(process.execPath, [CLI, 'apply', '-auto-approve', '-no-color'], { cwd: BASE, env: ENV, encoding: 'utf8' });
assert.equal(first.status, 0, first.stdout + first.stderr);
// The next runs see a changed input for terraform_data.a.
writeFileSync(join(BASE, 'main.tf'), CONFIG('a2').replace('"p"', '"q"'));

function sortProgress(s: string): string {
  const lines = s.split('\n');
  const progress = /^\S+: (Refreshing state|Destroying|Destruction complete|Creating|Creation complete|Modifying|Modifications complete)/;
  for (let i = 0; i < lines.length; ) {
    let j = i;
    while (j < lines.length && progress.test(lines[j])) j++;
    if (j > i + 1) lines.splice(i, j - i, ...lines.slice(i, j).sort());
    i = Math.max(j, i + 1);
  }
  return lines.join('\n');
}

let copies = 0;
function run(tool: 'foresight' | 'terraform', args: string[]): { status: number | null; stdout: string; stderr: string; state: { outputs: Record<string, { value: unknown }> } } {
  const dir = join(ROOT, `run-${copies++}`);
  cpSync(BASE, dir, { recursive: true });
  const r =
    tool === 'foresight'
      ? spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env: ENV, encoding: 'utf8' })
      : spawnSync('terraform', args, { cwd: dir, env: ENV, encoding: 'utf8' });
  // Ids masked; runs of per-resource progress lines sorted (terraform walks independent resources concurrently).
  const mask = (s: string) => sortProgress(s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID'));
  return { status: r.status, stdout: mask(r.stdout), stderr: mask(r.stderr), state: JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')) };
}

function compare(args: string[]): ReturnType<typeof run> {
  const f = run('foresight', args);
  if (hasTerraform) {
    const t = run('terraform', args);
    assert.deepEqual({ ...f, state: f.state.outputs }, { ...t, state: t.state.outputs }, `${args.join(' ')} differs from terraform`);
  }
  return f;
}

test('a targeted plan plans only the outputs whose resources are all targeted', () => {
  const a = compare(['plan', '-no-color', '-target=terraform_data.a']);
  assert.equal(a.status, 0, a.stderr);
  assert.match(a.stdout, /Changes to Outputs:\n {2}~ a = "a1" -> \(known after apply\)\n\n/);
  assert.doesNotMatch(a.stdout, /both|plain/);
  const b = compare(['plan', '-no-color', '-target=terraform_data.b']);
  assert.doesNotMatch(b.stdout, /Changes to Outputs/);
});

test('a targeted destroy plans no output change and keeps the outputs in state', () => {
  const d = compare(['destroy', '-auto-approve', '-no-color', '-target=terraform_data.b']);
  assert.equal(d.status, 0, d.stderr);
  assert.doesNotMatch(d.stdout, /Changes to Outputs/);
  assert.deepEqual(Object.keys(d.state.outputs).sort(), ['a', 'both', 'plain']);
  const all = compare(['destroy', '-auto-approve', '-no-color']);
  assert.equal(all.status, 0, all.stderr);
  assert.match(all.stdout, /\n {2}- plain = "q" -> null\n/);
  assert.deepEqual(all.state.outputs, {});
});
