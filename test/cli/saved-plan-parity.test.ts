// Saved plans as Terraform 1.11.4 shows and applies them, found by a differential sweep:
//   - `show -json PLANFILE`: planned output values carry their type (and the value, sensitive ones too); after_unknown
//     is false for a wholly known output and {} for a wholly known resource; the plan's check results are the
//     top-level "checks" and its prior_state has none; count/for_each expressions with neither a constant value nor
//     references are omitted; child modules' resources use the root's provider configuration key when they inherit
//     it (no `module.x:name` entry); relevant_attributes come from changed resources and outputs and from every child
//     module output; "variables" holds the values as the caller set them (a primitive -var is its string); a declared
//     default is shown converted to its type, optional attributes' defaults applied.
//   - `show PLANFILE`: output changes are against the state before the refresh (they were lost).
//   - `apply PLANFILE` with a variable set differently: an error from -var/-var-file, a warning from TF_VAR_.
// Each case is a shell line run once with TOOL=foresight and, where `terraform` is on PATH, once with TOOL=terraform
// on a copy of the same workspace; their outputs must be byte-identical after masking ids and timestamps (skipped
// with a printed notice where terraform is absent, when the foresight run is still checked for its key facts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve(process.cwd(), 'dist/cli.js');
const ROOT = mkdtempSync(join(tmpdir(), 'foresight-saved-plan-'));
const RC = join(ROOT, 'empty.tfrc');
writeFileSync(RC, '');
const ENV = { ...process.env, TF_CLI_CONFIG_FILE: RC, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '', TF_LOG: '', TF_DATA_DIR: '', TF_WORKSPACE: '' };
const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8', env: ENV }).status === 0;
if (!hasTerraform) console.log('# terraform is not on PATH: the live comparisons in saved-plan-parity.test.ts are skipped');

function workspace(name: string, files: Record<string, string>): string {
  const dir = join(ROOT, name);
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
  const r = spawnSync('bash', ['-c', `${process.execPath} ${CLI} init -no-color >/dev/null && ${process.execPath} ${CLI} apply -auto-approve -no-color`], { cwd: dir, env: ENV, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return dir;
}

const MAIN = `variable "names" {
  type    = list(string)
  default = ["a", "b"]
}

variable "n" {
  type    = number
  default = 1
}

variable "obj" {
  type = object({
    a = string
    b = optional(number, 5)
  })
  default = { a = "x" }
}

resource "terraform_data" "x" {
  for_each = toset(var.names)
  input    = upper(each.key)
}

resource "terraform_data" "c" {
  count = var.n
  input = terraform_data.x["a"].output
}

check "c" {
  assert {
    condition     = length(var.names) > 0
    error_message = "Empty."
  }
}

output "m" {
  value = { for k, v in terraform_data.x : k => v.output }
}

output "secret" {
  value     = "s"
  sensitive = true
}

module "mod" {
  source = "./mod"
}

module "each" {
  source   = "./mod"
  for_each = toset(["k"])
}
`;
const MOD = 'resource "terraform_data" "r" {\n  count = 2\n  input = "r-${count.index}"\n}\n\noutput "ids" {\n  value = terraform_data.r[*].id\n}\n';
const BASE = workspace('base', { 'main.tf': MAIN, 'mod/main.tf': MOD });

let copies = 0;
function run(tool: 'foresight' | 'terraform', line: string): { status: number | null; stdout: string; stderr: string } {
  const dir = join(ROOT, `run-${copies++}`);
  cpSync(BASE, dir, { recursive: true });
  const bin = tool === 'foresight' ? `${process.execPath} ${CLI}` : 'terraform';
  const init = tool === 'terraform' ? 'terraform init -no-color >/dev/null && ' : '';
  const r = spawnSync('bash', ['-c', init + line], { cwd: dir, env: { ...ENV, TOOL: bin }, encoding: 'utf8' });
  const mask = (s: string) =>
    s
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID')
      .replace(/"timestamp":"[^"]*"/g, '"timestamp":"T"')
      .split('\n')
      .filter((l) => !/: (Refreshing state|Destroying|Destruction complete|Creating|Creation complete)/.test(l))
      .join('\n');
  return { status: r.status, stdout: mask(r.stdout), stderr: mask(r.stderr) };
}

// relevant_attributes is compared as a set: Terraform sorts it with a comparator that reads another slice than the
// one it sorts (marshalRelevantAttrs), so its order is an artifact of the analyzer's map iteration, not a rule.
function canonical(stdout: string): string {
  if (!stdout.startsWith('{')) return stdout;
  const j = JSON.parse(stdout) as { relevant_attributes?: unknown[] };
  if (j.relevant_attributes) j.relevant_attributes = j.relevant_attributes.map((x) => JSON.stringify(x)).sort().map((x) => JSON.parse(x) as unknown);
  return JSON.stringify(j);
}

function compare(line: string): { status: number | null; stdout: string; stderr: string } {
  const f = run('foresight', line);
  if (hasTerraform) {
    const t = run('terraform', line);
    assert.deepEqual({ ...f, stdout: canonical(f.stdout) }, { ...t, stdout: canonical(t.stdout) }, `${line} differs from terraform`);
    // Apart from that order, byte for byte.
    if (f.stdout.startsWith('{')) assert.equal(f.stdout.replace(/"relevant_attributes":\[[^\]]*(\[[^\]]*\][^\]]*)*\],/, ''), t.stdout.replace(/"relevant_attributes":\[[^\]]*(\[[^\]]*\][^\]]*)*\],/, ''));
  }
  return f;
}

test('show -json of a saved plan is Terraform\'s document', () => {
  const p = compare('$TOOL plan -out=p.plan -var n=2 -var \'names=["a","q"]\' >/dev/null && $TOOL show -json p.plan');
  assert.equal(p.status, 0, p.stderr);
  const j = JSON.parse(p.stdout) as Record<string, any>;
  assert.deepEqual(j.variables, { n: { value: '2' }, names: { value: ['a', 'q'] }, obj: { value: { a: 'x', b: 5 } } });
  assert.deepEqual(j.planned_values.outputs.secret, { sensitive: true, type: 'string', value: 's' });
  assert.ok(Array.isArray(j.checks) && !('checks' in j.prior_state));
  assert.equal(j.configuration.provider_config['module.mod:terraform'], undefined);
  assert.deepEqual(j.configuration.root_module.variables.obj.default, { a: 'x', b: 5 });
  assert.equal(j.configuration.root_module.module_calls.mod.module.resources[0].provider_config_key, 'terraform');
  assert.ok(j.relevant_attributes.some((r: { resource: string }) => r.resource === 'module.each["k"].terraform_data.r'));
  const noop = compare('$TOOL plan -out=p.plan >/dev/null && $TOOL show -json p.plan');
  assert.equal(JSON.parse(noop.stdout).output_changes.m.after_unknown, false);
});

test('show of a saved plan keeps its output changes', () => {
  const s = compare('$TOOL plan -no-color -out=p.plan -var \'names=["a","q"]\' >/dev/null && $TOOL show -no-color p.plan');
  assert.equal(s.status, 0, s.stderr);
  assert.match(s.stdout, /Changes to Outputs:\n {2}~ m +=/);
});

test('applying a saved plan with a variable set differently', () => {
  const e = compare('$TOOL plan -out=p.plan -var n=2 >/dev/null; $TOOL apply -no-color -var n=3 p.plan');
  assert.equal(e.status, 1);
  assert.match(e.stderr, /Error: Can't change variable when applying a saved plan/);
  assert.match(e.stderr.replace(/\s+/g, ' '), /The saved plan specifies "2" as the value whereas during apply the value "3" was set by a CLI argument\./);
  const same = compare('$TOOL plan -out=p.plan -var n=2 >/dev/null; $TOOL apply -no-color -var n=2 p.plan');
  assert.equal(same.status, 0, same.stderr);
  const w = compare('$TOOL plan -out=p.plan -var n=2 >/dev/null; TF_VAR_n=3 $TOOL apply -no-color p.plan');
  assert.equal(w.status, 0, w.stderr);
  assert.match(w.stdout, /Warning: Ignoring variable when applying a saved plan[\s\S]*Apply complete!/);
});
