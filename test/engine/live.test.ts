// Live comparison with Terraform (skipped with a notice when `terraform` is not installed): Terraform applies a
// first configuration; then, from the state file Terraform wrote, both Terraform (`plan -out` + `show -json`) and
// the engine plan a second configuration. The resource changes (address, deposed key, actions, action reason) and
// output change actions must agree.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStateFile } from '../../server/states/statefile';
import { actionJSON, actionReasonJSON } from '../../server/plans/plan';
import { instanceAddrString } from '../../server/states/state';
import { doApply, doPlan, newEnv, stateJSON } from './harness';

const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;

function tf(dir: string, args: string[]): string {
  const empty = join(dir, '..', 'empty.tfrc');
  writeFileSync(empty, '');
  return execFileSync('terraform', args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, TF_CLI_CONFIG_FILE: empty, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

interface Case {
  name: string;
  v1: string;
  v2: string;
  flags?: { replace?: string[]; targets?: string[]; mode?: 'destroy' | 'refresh-only' };
  taint?: string;
}

const CASES: Case[] = [
  {
    name: 'nested modules with depends_on, counted children and outputs flowing up',
    v1: 'resource "terraform_data" "z" {}\n',
    v2: 'resource "terraform_data" "first" {\n  input = "f"\n}\nmodule "outer" {\n  source     = "./outer"\n  n          = 2\n  depends_on = [terraform_data.first]\n}\nresource "terraform_data" "last" {\n  input = module.outer.ids\n}\noutput "ids" {\n  value = module.outer.ids\n}\n',
  },
  {
    name: 'replace_triggered_by per instance (count.index, each.key) and on an attribute that does not change',
    v1: 'variable "v" {\n  default = ["1", "2"]\n}\nresource "terraform_data" "src" {\n  count = 2\n  input = var.v[count.index]\n}\nresource "terraform_data" "dst" {\n  count = 2\n  lifecycle {\n    replace_triggered_by = [terraform_data.src[count.index]]\n  }\n}\nresource "terraform_data" "m" {\n  for_each = { a = "x", b = "y" }\n  input    = each.value\n}\nresource "terraform_data" "n" {\n  for_each = { a = 1, b = 2 }\n  lifecycle {\n    replace_triggered_by = [terraform_data.m[each.key].id]\n  }\n}\n',
    v2: 'variable "v" {\n  default = ["1", "3"]\n}\nresource "terraform_data" "src" {\n  count = 2\n  input = var.v[count.index]\n}\nresource "terraform_data" "dst" {\n  count = 2\n  lifecycle {\n    replace_triggered_by = [terraform_data.src[count.index]]\n  }\n}\nresource "terraform_data" "m" {\n  for_each = { a = "x", b = "z" }\n  input    = each.value\n}\nresource "terraform_data" "n" {\n  for_each = { a = 1, b = 2 }\n  lifecycle {\n    replace_triggered_by = [terraform_data.m[each.key].id]\n  }\n}\n',
  },
  {
    name: 'ignore_changes on an element of an attribute',
    v1: 'resource "terraform_data" "a" {\n  input = { a = "1", b = "2" }\n  lifecycle {\n    ignore_changes = [input["a"]]\n  }\n}\nresource "terraform_data" "b" {\n  input = { a = "1", b = "2" }\n  lifecycle {\n    ignore_changes = [input["a"]]\n  }\n}\n',
    v2: 'resource "terraform_data" "a" {\n  input = { a = "9", b = "2" }\n  lifecycle {\n    ignore_changes = [input["a"]]\n  }\n}\nresource "terraform_data" "b" {\n  input = { a = "9", b = "3" }\n  lifecycle {\n    ignore_changes = [input["a"]]\n  }\n}\n',
  },
  {
    name: 'check blocks with scoped data sources, variable validations in modules, output preconditions in modules',
    v1: 'resource "terraform_data" "z" {}\n',
    v2: 'variable "n" {\n  default = 2\n  validation {\n    condition     = var.n > 0\n    error_message = "positive"\n  }\n}\nresource "terraform_data" "a" {\n  input = var.n\n}\ncheck "c" {\n  data "terraform_remote_state" "s" {\n    backend = "local"\n    config  = { path = "${path.module}/other.tfstate" }\n  }\n  assert {\n    condition     = data.terraform_remote_state.s.outputs == {}\n    error_message = "no outputs expected"\n  }\n}\nmodule "m" {\n  for_each = toset(["x", "y"])\n  source   = "./m2"\n  v        = each.key\n}\n',
  },
  {
    name: 'outputs set to null, removed, made sensitive, unknown, and new with null',
    v1: 'resource "terraform_data" "a" {\n  input = "x"\n}\noutput "n" {\n  value = "v"\n}\noutput "gone" {\n  value = 1\n}\noutput "s" {\n  value = "s"\n}\noutput "u" {\n  value = terraform_data.a.output\n}\n',
    v2: 'resource "terraform_data" "a" {\n  input = "y"\n}\noutput "n" {\n  value = null\n}\noutput "s" {\n  value     = "s"\n  sensitive = true\n}\noutput "u" {\n  value = terraform_data.a.output\n}\noutput "newnull" {\n  value = null\n}\n',
  },
  {
    name: 'a reference chain through a local and a module output records transitive dependencies',
    v1: 'resource "terraform_data" "z" {}\n',
    v2: 'resource "terraform_data" "a" {}\nlocals {\n  l = terraform_data.a.id\n}\nresource "terraform_data" "b" {\n  input = local.l\n}\nresource "terraform_data" "c" {\n  input = terraform_data.b.id\n  depends_on = [terraform_data.z2]\n}\nresource "terraform_data" "z2" {}\n',
  },
  {
    name: 'targeted plan with outputs over targeted and untargeted resources',
    v1: 'resource "terraform_data" "z" {}\n',
    v2: 'resource "terraform_data" "a" {\n  input = "a"\n}\nresource "terraform_data" "b" {\n  input = "b"\n}\noutput "oa" {\n  value = terraform_data.a.output\n}\noutput "ob" {\n  value = terraform_data.b.output\n}\noutput "const" {\n  value = 1\n}\n',
    flags: { targets: ['terraform_data.a'] },
  },
  {
    name: 'refresh-only with configuration changes and a new output',
    v1: 'resource "terraform_data" "a" {\n  input = "1"\n}\noutput "old" {\n  value = terraform_data.a.output\n}\n',
    v2: 'resource "terraform_data" "a" {\n  input = "2"\n}\noutput "old" {\n  value = terraform_data.a.output\n}\noutput "new" {\n  value = "n"\n}\n',
    flags: { mode: 'refresh-only' },
  },
  {
    name: 'tainted create_before_destroy, count zero, for_each over a converted list, destroy target',
    v1: 'resource "terraform_data" "t" {\n  lifecycle {\n    create_before_destroy = true\n  }\n}\nresource "terraform_data" "f" {\n  for_each = toset(["a", "b"])\n}\n',
    v2: 'resource "terraform_data" "t" {\n  lifecycle {\n    create_before_destroy = true\n  }\n}\nresource "terraform_data" "f" {\n  for_each = toset(["b", "c"])\n}\nresource "terraform_data" "zero" {\n  count = 0\n}\noutput "n" {\n  value = length(terraform_data.zero)\n}\n',
    taint: 'terraform_data.t',
  },
  {
    name: 'destroy plan limited by -target',
    v1: 'resource "terraform_data" "a" {}\nresource "terraform_data" "b" {\n  input = terraform_data.a.id\n}\nresource "terraform_data" "c" {}\n',
    v2: 'resource "terraform_data" "a" {}\nresource "terraform_data" "b" {\n  input = terraform_data.a.id\n}\nresource "terraform_data" "c" {}\n',
    flags: { mode: 'destroy', targets: ['terraform_data.a'] },
  },
  {
    name: 'data sources deferred by unknown configuration or pending dependencies, depends_on, module outputs',
    v1: 'resource "terraform_data" "z" {}\n',
    v2: 'resource "terraform_data" "a" {\n  input = "x"\n}\ndata "terraform_remote_state" "u" {\n  backend = "local"\n  config = {\n    path = terraform_data.a.output == "x" ? "${path.module}/other.tfstate" : "nope"\n  }\n}\ndata "terraform_remote_state" "d" {\n  backend    = "local"\n  config     = { path = "${path.module}/other.tfstate" }\n  depends_on = [terraform_data.a]\n}\nmodule "m" {\n  count  = 2\n  source = "./m"\n}\nresource "terraform_data" "b" {\n  input      = module.m[*]\n  depends_on = [data.terraform_remote_state.d]\n}\noutput "m" {\n  value = length(module.m)\n}\n',
  },
  {
    name: 'create_before_destroy propagates to the dependencies of a create_before_destroy resource',
    v1: 'resource "terraform_data" "a" {\n  triggers_replace = 1\n}\nresource "terraform_data" "b" {\n  triggers_replace = 1\n  input = terraform_data.a.id\n  lifecycle {\n    create_before_destroy = true\n  }\n}\n',
    v2: 'resource "terraform_data" "a" {\n  triggers_replace = 2\n}\nresource "terraform_data" "b" {\n  triggers_replace = 2\n  input = terraform_data.a.id\n  lifecycle {\n    create_before_destroy = true\n  }\n}\n',
  },
  {
    name: 'module for_each over a map, locals with for expressions, sensitive values, remote state data source',
    v1: 'locals {\n  envs = { a = 1, b = 2 }\n}\nmodule "m" {\n  for_each = local.envs\n  source   = "./m"\n}\n',
    v2: 'variable "pw" {\n  default   = "s3cret"\n  sensitive = true\n}\nlocals {\n  envs  = { a = 1, c = 3 }\n  names = [for k, v in local.envs : "${k}-${v}"]\n}\nmodule "m" {\n  for_each = local.envs\n  source   = "./m"\n}\nresource "terraform_data" "n" {\n  for_each = toset(local.names)\n  input    = { name = each.value, pw = var.pw }\n}\ndata "terraform_remote_state" "self" {\n  backend = "local"\n  config = {\n    path = "${path.module}/terraform.tfstate"\n  }\n}\nresource "terraform_data" "rs" {\n  input = data.terraform_remote_state.self.outputs\n}\noutput "names" {\n  value = local.names\n}\noutput "secret" {\n  value     = var.pw\n  sensitive = true\n}\n',
  },
  {
    name: 'moved blocks, implied count moves, removed blocks, import blocks, ignore_changes, deleted outputs',
    v1: 'resource "terraform_data" "old" {\n  input = "p"\n}\nresource "terraform_data" "single" {}\nresource "terraform_data" "forget" {}\nresource "terraform_data" "ig" {\n  input = "a"\n  lifecycle {\n    ignore_changes = [input]\n  }\n}\noutput "gone" {\n  value = 1\n}\n',
    v2: 'resource "terraform_data" "new" {\n  input = "p"\n}\nmoved {\n  from = terraform_data.old\n  to   = terraform_data.new\n}\nresource "terraform_data" "single" {\n  count = 1\n}\nremoved {\n  from = terraform_data.forget\n  lifecycle {\n    destroy = false\n  }\n}\nimport {\n  to = terraform_data.imp\n  id = "abc"\n}\nresource "terraform_data" "imp" {}\nresource "terraform_data" "ig" {\n  input = "b"\n  lifecycle {\n    ignore_changes = [input]\n  }\n}\n',
  },
  {
    name: 'targeting a counted instance',
    v1: 'resource "terraform_data" "base" {}\n',
    v2: 'resource "terraform_data" "base" {}\nresource "terraform_data" "app" {\n  count = 2\n  input = terraform_data.base.id\n}\nresource "terraform_data" "other" {}\n',
    flags: { targets: ['terraform_data.app[1]'] },
  },
  {
    name: 'count shrinks, for_each loses a key, a resource loses its configuration',
    v1: 'resource "terraform_data" "c" {\n  count = 3\n  input = count.index\n}\nresource "terraform_data" "f" {\n  for_each = toset(["a", "b"])\n  input = each.key\n}\nresource "terraform_data" "gone" {}\noutput "o" {\n  value = terraform_data.c[0].output\n}\n',
    v2: 'resource "terraform_data" "c" {\n  count = 1\n  input = count.index\n}\nresource "terraform_data" "f" {\n  for_each = toset(["a"])\n  input = each.key\n}\n',
  },
  {
    name: 'repetition changes and a removed module call',
    v1: 'resource "terraform_data" "w" {\n  for_each = toset(["x"])\n}\nmodule "m" {\n  source = "./m"\n}\n',
    v2: 'resource "terraform_data" "w" {\n  count = 1\n}\n',
  },
  {
    name: 'a module call with fewer instances',
    v1: 'module "m" {\n  count  = 2\n  source = "./m"\n}\n',
    v2: 'module "m" {\n  count  = 1\n  source = "./m"\n}\n',
  },
  {
    name: 'replacements: cannot update, by request, by triggers, tainted, create_before_destroy',
    v1: 'resource "terraform_data" "a" {\n  triggers_replace = 1\n}\nresource "terraform_data" "b" {\n  input = "b"\n}\nresource "terraform_data" "t" {\n  input = "t"\n}\nresource "terraform_data" "d" {\n  input = "1"\n}\nresource "terraform_data" "e" {\n  lifecycle {\n    replace_triggered_by = [terraform_data.d]\n  }\n}\nresource "terraform_data" "cbd" {\n  triggers_replace = 1\n  lifecycle {\n    create_before_destroy = true\n  }\n}\n',
    v2: 'resource "terraform_data" "a" {\n  triggers_replace = 2\n}\nresource "terraform_data" "b" {\n  input = "b"\n}\nresource "terraform_data" "t" {\n  input = "t"\n}\nresource "terraform_data" "d" {\n  input = "2"\n}\nresource "terraform_data" "e" {\n  lifecycle {\n    replace_triggered_by = [terraform_data.d]\n  }\n}\nresource "terraform_data" "cbd" {\n  triggers_replace = 2\n  lifecycle {\n    create_before_destroy = true\n  }\n}\n',
    flags: { replace: ['terraform_data.b'] },
    taint: 'terraform_data.t',
  },
  {
    name: 'destroy plan over references and outputs',
    v1: 'resource "terraform_data" "a" {}\nresource "terraform_data" "b" {\n  input = terraform_data.a.id\n}\noutput "b" {\n  value = terraform_data.b.output\n}\n',
    v2: 'resource "terraform_data" "a" {}\nresource "terraform_data" "b" {\n  input = terraform_data.a.id\n}\noutput "b" {\n  value = terraform_data.b.output\n}\n',
    flags: { mode: 'destroy' },
  },
  {
    name: 'unknown values flow into an update and a new output',
    v1: 'resource "terraform_data" "a" {\n  input = "1"\n}\nresource "terraform_data" "b" {\n  input = terraform_data.a.output\n}\n',
    v2: 'resource "terraform_data" "a" {\n  input = "2"\n}\nresource "terraform_data" "b" {\n  input = terraform_data.a.output\n}\noutput "x" {\n  value = terraform_data.b.output\n}\n',
  },
];

for (const c of CASES) {
  test(`Live: ${c.name} — the engine plans what Terraform plans`, async (t) => {
    if (!hasTerraform) {
      t.diagnostic('terraform not installed: skipped');
      return;
    }
    const root = mkdtempSync(join(tmpdir(), 'fs-live-'));
    const dir = join(root, 'w');
    const env = newEnv({
      'main.tf': c.v1,
      'm/main.tf': 'resource "terraform_data" "in" {}\n',
      'outer/main.tf': 'variable "n" {}\nmodule "inner" {\n  count  = var.n\n  source = "../m2"\n  v      = substr("abcdef", count.index, 1)\n}\noutput "ids" {\n  value = module.inner[*].o\n}\n',
      'm2/main.tf': 'variable "v" {\n  validation {\n    condition     = length(var.v) == 1\n    error_message = "one letter"\n  }\n}\nresource "terraform_data" "r" {\n  input = var.v\n}\noutput "o" {\n  value = terraform_data.r.output\n  precondition {\n    condition     = var.v != "q"\n    error_message = "no q"\n  }\n}\n',
    });
    execFileSync('cp', ['-r', env.dir, dir]);
    tf(dir, ['init', '-input=false', '-no-color']);
    tf(dir, ['apply', '-input=false', '-auto-approve', '-no-color']);
    if (c.taint) tf(dir, ['taint', '-no-color', c.taint]);
    writeFileSync(join(dir, 'main.tf'), c.v2);
    writeFileSync(join(env.dir, 'main.tf'), c.v2);
    // A fixed state file for terraform_remote_state to read (the live one changes during apply).
    const v1State = readFileSync(join(dir, 'terraform.tfstate'), 'utf8');
    writeFileSync(join(dir, 'other.tfstate'), v1State);
    writeFileSync(join(env.dir, 'other.tfstate'), v1State);
    tf(dir, ['init', '-input=false', '-no-color']);
    const args = ['plan', '-input=false', '-no-color', '-out=p'];
    for (const r of c.flags?.replace ?? []) args.push(`-replace=${r}`);
    for (const r of c.flags?.targets ?? []) args.push(`-target=${r}`);
    if (c.flags?.mode === 'destroy') args.push('-destroy');
    if (c.flags?.mode === 'refresh-only') args.push('-refresh-only');
    tf(dir, args);
    const pj = JSON.parse(tf(dir, ['show', '-json', 'p'])) as {
      resource_changes?: { address: string; previous_address?: string; deposed?: string; change: { actions: string[]; importing?: { id: string } }; action_reason?: string }[];
      output_changes?: Record<string, { actions: string[] }>;
    };
    const want = (pj.resource_changes ?? []).map((r) =>
      `${r.address}${r.deposed ? ' deposed' : ''}${r.previous_address ? ' from ' + r.previous_address : ''}${r.change.importing ? ' import ' + r.change.importing.id : ''} ${r.change.actions.join(',')} ${r.action_reason ?? ''}`.trim(),
    );
    const wantOut = Object.entries(pj.output_changes ?? {}).map(([k, v]) => `${k} ${v.actions.join(',')}`);

    const stateText = readFileSync(join(dir, 'terraform.tfstate'), 'utf8');
    writeFileSync(join(env.dir, 'terraform.tfstate'), stateText);
    env.state = readStateFile(stateText).file!.state;
    const mine = await doPlan(env, { replace: c.flags?.replace, targets: c.flags?.targets, mode: c.flags?.mode });
    assert.deepEqual(mine.diagnostics.filter((d) => d.severity === 'error'), []);
    const got = mine.plan.changes.map((r) => {
      const prev = instanceAddrString(r.prevRunAddr) !== instanceAddrString(r.addr) ? ' from ' + instanceAddrString(r.prevRunAddr) : '';
      return `${instanceAddrString(r.addr)}${r.deposedKey ? ' deposed' : ''}${prev}${r.importing ? ' import ' + r.importing.id : ''} ${actionJSON(r.action).join(',')} ${actionReasonJSON(r.actionReason) ?? ''}`.trim();
    });
    const gotOut = mine.plan.outputs.map((o) => `${o.name} ${actionJSON(o.action).join(',')}`);
    assert.deepEqual(got, want);
    assert.deepEqual(gotOut, wantOut);

    // Both apply the plan; the resulting states agree (ids masked).
    tf(dir, ['apply', '-input=false', '-no-color', 'p']);
    const a = await doApply(env, mine.plan);
    assert.deepEqual(a.diagnostics.filter((d) => d.severity === 'error'), []);
    const norm = (j: unknown) => {
      const o = JSON.parse(JSON.stringify(j)) as Record<string, unknown>;
      delete o.serial;
      delete o.lineage;
      // Terraform writes check results in random order (the conformance normaliser sorts them too).
      if (Array.isArray(o.check_results)) {
        const crs = o.check_results as { config_addr: string; objects: { object_addr: string }[] | null }[];
        crs.sort((x, y) => (x.config_addr < y.config_addr ? -1 : 1));
        for (const c of crs) c.objects?.sort((x, y) => (x.object_addr < y.object_addr ? -1 : 1));
      }
      return JSON.stringify(o, null, 1).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<UUID>').replace(/"deposed": "[0-9a-f]{8}"/g, '"deposed": "<K>"');
    };
    assert.equal(norm(stateJSON(a.state)), norm(JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8'))));
  });
}

interface ErrCase {
  name: string;
  v1: string;
  v2: string;
}

const ERR_CASES: ErrCase[] = [
  {
    name: 'a failing precondition and output precondition',
    v1: 'resource "terraform_data" "a" {}\n',
    v2: 'variable "p" {\n  default = 80\n}\nresource "terraform_data" "a" {\n  input = var.p\n  lifecycle {\n    precondition {\n      condition     = var.p > 1024\n      error_message = "too low"\n    }\n  }\n}\noutput "o" {\n  value = 1\n  precondition {\n    condition     = var.p != 80\n    error_message = "reserved"\n  }\n}\n',
  },
  {
    name: 'for_each keys unknown until apply',
    v1: 'resource "terraform_data" "z" {}\n',
    v2: 'resource "terraform_data" "a" {}\nresource "terraform_data" "b" {\n  for_each = toset([terraform_data.a.id, "x"])\n}\n',
  },
  {
    name: 'count unknown until apply',
    v1: 'resource "terraform_data" "z" {}\n',
    v2: 'resource "terraform_data" "a" {\n  input = 2\n}\nresource "terraform_data" "b" {\n  count = terraform_data.a.output\n}\n',
  },
  {
    name: 'a root output exposing a sensitive value',
    v1: 'resource "terraform_data" "z" {}\n',
    v2: 'variable "s" {\n  default   = "x"\n  sensitive = true\n}\noutput "o" {\n  value = var.s\n}\n',
  },
  {
    name: 'prevent_destroy on an instance that falls out of count',
    v1: 'resource "terraform_data" "keep" {\n  count = 2\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n',
    v2: 'resource "terraform_data" "keep" {\n  count = 1\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n',
  },
];

for (const c of ERR_CASES) {
  test(`Live errors: ${c.name} — the engine reports the errors Terraform reports`, async (t) => {
    if (!hasTerraform) {
      t.diagnostic('terraform not installed: skipped');
      return;
    }
    const root = mkdtempSync(join(tmpdir(), 'fs-live-'));
    const dir = join(root, 'w');
    const env = newEnv({ 'main.tf': c.v1 });
    execFileSync('cp', ['-r', env.dir, dir]);
    tf(dir, ['init', '-input=false', '-no-color']);
    tf(dir, ['apply', '-input=false', '-auto-approve', '-no-color']);
    writeFileSync(join(dir, 'main.tf'), c.v2);
    writeFileSync(join(env.dir, 'main.tf'), c.v2);
    const empty = join(root, 'empty.tfrc');
    const r = spawnSync('terraform', ['plan', '-input=false', '-no-color', '-json'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, TF_CLI_CONFIG_FILE: empty, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' },
    });
    const want = r.stdout
      .split('\n')
      .filter((l) => l.includes('"type":"diagnostic"'))
      .map((l) => (JSON.parse(l) as { diagnostic: { severity: string; summary: string; detail: string; range?: { start: { line: number } } } }).diagnostic)
      .filter((d) => d.severity === 'error')
      .map((d) => `${d.summary} | ${d.detail} | line ${d.range?.start.line ?? '-'}`)
      .sort();
    env.state = readStateFile(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')).file!.state;
    const mine = await doPlan(env);
    const got = mine.diagnostics
      .filter((d) => d.severity === 'error')
      .map((d) => `${d.summary} | ${d.detail ?? ''} | line ${d.subject?.start.line ?? '-'}`)
      .sort();
    assert.deepEqual(got, want);
    assert.ok(want.length > 0);
  });
}

test('Live: the examples workspace plans and applies as with Terraform', async (t) => {
  if (!hasTerraform) {
    t.diagnostic('terraform not installed: skipped');
    return;
  }
  const src = join(__dirname, '..', '..', '..', 'examples');
  const root = mkdtempSync(join(tmpdir(), 'fs-live-'));
  const dir = join(root, 'w');
  execFileSync('cp', ['-r', src, dir]);
  const env = newEnv({});
  execFileSync('cp', ['-r', src + '/.', env.dir]);
  tf(dir, ['init', '-input=false', '-no-color']);
  tf(dir, ['plan', '-input=false', '-no-color', '-out=p']);
  const pj = JSON.parse(tf(dir, ['show', '-json', 'p'])) as { resource_changes?: { address: string; change: { actions: string[] } }[]; output_changes?: Record<string, { actions: string[] }> };
  const mine = await doPlan(env);
  assert.deepEqual(mine.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.deepEqual(
    mine.plan.changes.map((c) => `${instanceAddrString(c.addr)} ${actionJSON(c.action).join(',')}`),
    (pj.resource_changes ?? []).map((r) => `${r.address} ${r.change.actions.join(',')}`),
  );
  assert.deepEqual(mine.plan.outputs.map((o) => `${o.name} ${actionJSON(o.action).join(',')}`), Object.entries(pj.output_changes ?? {}).map(([k, v]) => `${k} ${v.actions.join(',')}`));
  tf(dir, ['apply', '-input=false', '-no-color', 'p']);
  const a = await doApply(env, mine.plan);
  assert.deepEqual(a.diagnostics.filter((d) => d.severity === 'error'), []);
  const norm = (j: unknown) => {
    const o = JSON.parse(JSON.stringify(j)) as Record<string, unknown>;
    delete o.serial;
    delete o.lineage;
    return JSON.stringify(o, null, 1).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<UUID>');
  };
  assert.equal(norm(stateJSON(a.state)), norm(JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8'))));
});
