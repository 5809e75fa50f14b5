// Plan features beyond the basic lifecycle: data sources read during plan or deferred to apply, counted local
// modules with outputs, refresh-only plans reporting drift, -replace, -refresh=false, prevent_destroy and
// ignore_changes, replace_triggered_by, sensitive values, and the action reasons of orphans.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Value } from '../../server/lang/value';
import type { Provider, ReadResourceRequest } from '../../server/providers/provider';
import { actions, doApply, doPlan, newEnv, planApply, stateJSON, writeConfig } from './harness';

test('A data source with known configuration is read during plan; one depending on a pending change is read during apply', async () => {
  const env = newEnv({
    'main.tf':
      'data "null_data_source" "now" {\n  inputs = { a = "1" }\n}\nresource "terraform_data" "r" {\n  input = data.null_data_source.now.outputs.a\n}\ndata "null_data_source" "later" {\n  inputs = { b = terraform_data.r.output }\n}\noutput "later" {\n  value = data.null_data_source.later.outputs.b\n}\n',
  });
  const p = await doPlan(env);
  assert.deepEqual(p.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.deepEqual(actions(p.plan), ['data.null_data_source.later: Read ReadBecauseConfigUnknown', 'terraform_data.r: Create']);
  assert.ok(p.plan.priorState.resource({ module: '', mode: 'data', type: 'null_data_source', name: 'now' }), 'read during plan, kept in the prior state');
  const a = await doApply(env, p.plan);
  assert.deepEqual(a.diagnostics, []);
  const sj = stateJSON(a.state) as { outputs: Record<string, { value: unknown }> };
  assert.equal(sj.outputs.later.value, '1');
});

test('A counted local module expands into instances whose resources and outputs are addressed with keys', async () => {
  const env = newEnv({
    'main.tf': 'module "m" {\n  count  = 2\n  source = "./m"\n  name   = "n${count.index}"\n}\noutput "names" {\n  value = module.m[*].out\n}\n',
    'm/main.tf': 'variable "name" {\n  type = string\n}\nresource "terraform_data" "x" {\n  input = var.name\n}\noutput "out" {\n  value = terraform_data.x.output\n}\n',
  });
  const r = await planApply(env);
  assert.deepEqual(actions(r.plan), ['module.m[0].terraform_data.x: Create', 'module.m[1].terraform_data.x: Create']);
  const sj = stateJSON(r.state) as { outputs: Record<string, { value: unknown }>; resources: { module?: string }[] };
  assert.deepEqual(sj.outputs.names.value, ['n0', 'n1']);
  assert.deepEqual(sj.resources.map((x) => x.module), ['module.m[0]', 'module.m[1]']);
  // Fewer module instances: the dropped instance's objects go with DeleteBecauseNoModule; dropping the module
  // call altogether leaves them without configuration (DeleteBecauseNoResourceConfig), as Terraform reports it.
  writeConfig({ 'main.tf': 'module "m" {\n  count  = 1\n  source = "./m"\n  name   = "n${count.index}"\n}\n' }, env.dir);
  const p = await doPlan(env);
  assert.deepEqual(actions(p.plan), ['module.m[0].terraform_data.x: NoOp', 'module.m[1].terraform_data.x: Delete DeleteBecauseNoModule']);
  writeConfig({ 'main.tf': '' }, env.dir);
  const p2 = await doPlan(env);
  assert.deepEqual(actions(p2.plan), ['module.m[0].terraform_data.x: Delete DeleteBecauseNoResourceConfig', 'module.m[1].terraform_data.x: Delete DeleteBecauseNoResourceConfig']);
});

test('Drift found by refresh is reported, and a refresh-only apply records it without other changes', async () => {
  const env = newEnv({ 'main.tf': 'resource "terraform_data" "a" {\n  input = "x"\n}\nresource "terraform_data" "gone" {\n  input = "y"\n}\n' });
  await planApply(env);
  env.rec.fns.readResource = async (req: ReadResourceRequest, inner: Provider) => {
    const r = await inner.readResource(req);
    const input = req.currentState.entries.get('input')!;
    if (input.isKnown && input.type.kind === 'string' && input.str === 'y') return { ...r, newState: Value.null(r.newState.type) };
    const m = new Map(r.newState.entries);
    m.set('output', Value.string('drifted'));
    return { ...r, newState: Value.object(m) };
  };
  const p = await doPlan(env, { mode: 'refresh-only' });
  assert.deepEqual(p.plan.changes, []);
  assert.deepEqual(
    p.plan.driftedResources.map((d) => `${d.addr.name} ${d.action}`),
    ['terraform_data.a'.split('.')[1] + ' Update', 'gone Delete'],
  );
  assert.ok(p.plan.applyable);
  const a = await doApply(env, p.plan);
  assert.deepEqual(a.diagnostics, []);
  const sj = stateJSON(a.state) as { resources: { name: string; instances: { attributes: { output: unknown } }[] }[] };
  assert.deepEqual(sj.resources.map((r) => r.name), ['a']);
  assert.deepEqual(sj.resources[0].instances[0].attributes.output, { value: 'drifted', type: 'string' });
  // A normal plan after the drift: the deleted object is created again; with -refresh=false nothing is read.
  env.rec.fns = {};
  const calls = env.rec.called('readResource').length;
  const p2 = await doPlan(env, { refresh: false });
  assert.equal(env.rec.called('readResource').length, calls);
  assert.deepEqual(actions(p2.plan), ['terraform_data.a: NoOp', 'terraform_data.gone: Create'], 'terraform_data keeps output while input is unchanged');
});

test('-replace forces ReplaceByRequest; replace_triggered_by on a changed resource gives ReplaceByTriggers', async () => {
  const files = (v: string) => ({
    'main.tf': `resource "terraform_data" "image" {\n  input = "${v}"\n}\nresource "terraform_data" "server" {\n  input = "s"\n  lifecycle {\n    replace_triggered_by = [terraform_data.image]\n  }\n}\nresource "terraform_data" "watcher" {\n  input = "w"\n  lifecycle {\n    replace_triggered_by = [terraform_data.image.output]\n  }\n}\n`,
  });
  const env = newEnv(files('1'));
  await planApply(env);
  const p = await doPlan(env, { replace: ['terraform_data.watcher'] });
  assert.deepEqual(actions(p.plan), ['terraform_data.image: NoOp', 'terraform_data.server: NoOp', 'terraform_data.watcher: DeleteThenCreate ReplaceByRequest']);
  writeConfig(files('2'), env.dir);
  const p2 = await doPlan(env);
  assert.deepEqual(actions(p2.plan), [
    'terraform_data.image: Update',
    'terraform_data.server: DeleteThenCreate ReplaceByTriggers',
    'terraform_data.watcher: DeleteThenCreate ReplaceByTriggers',
  ]);
});

test('prevent_destroy stops a plan that would replace the object; ignore_changes keeps the prior value', async () => {
  const files = (v: string) => ({
    'main.tf': `resource "terraform_data" "ignored" {\n  input = "${v}"\n  lifecycle {\n    ignore_changes = [input]\n  }\n}\nresource "terraform_data" "precious" {\n  triggers_replace = ["${v}"]\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n`,
  });
  const env = newEnv(files('a'));
  await planApply(env);
  writeConfig(files('b'), env.dir);
  const p = await doPlan(env);
  assert.deepEqual(actions(p.plan), ['terraform_data.ignored: NoOp', 'terraform_data.precious: DeleteThenCreate ReplaceBecauseCannotUpdate']);
  assert.deepEqual(
    p.diagnostics.map((d) => d.summary),
    ['Instance cannot be destroyed'],
  );
  assert.ok(p.plan.errored);
});

test('A sensitive variable stays marked in the planned value and is recorded in sensitive_attributes', async () => {
  const env = newEnv({
    'main.tf': 'variable "pw" {\n  type      = string\n  default   = "hunter2"\n  sensitive = true\n}\nresource "terraform_data" "db" {\n  input = { user = "admin", password = var.pw }\n}\n',
  });
  const r = await planApply(env);
  const after = r.plan.changes[0].after;
  const input = after.entries.get('input')!;
  assert.ok(input.entries.get('password')!.isSensitive);
  const sj = stateJSON(r.state) as { resources: { instances: { sensitive_attributes: unknown }[] }[] };
  assert.deepEqual(sj.resources[0].instances[0].sensitive_attributes, [
    [
      { type: 'get_attr', value: 'input' },
      { type: 'get_attr', value: 'password' },
    ],
  ]);
});

test('A resource using an aliased provider configuration records it in the state and gets its own configured instance', async () => {
  const env = newEnv({
    'main.tf': 'provider "random" {\n  alias = "b"\n}\nresource "random_id" "x" {\n  provider    = random.b\n  byte_length = 2\n}\nresource "random_id" "y" {\n  byte_length = 2\n}\n',
  });
  const r = await planApply(env);
  const sj = stateJSON(r.state) as { resources: { name: string; provider: string }[] };
  assert.deepEqual(
    sj.resources.map((x) => [x.name, x.provider]),
    [
      ['x', 'provider["registry.terraform.io/hashicorp/random"].b'],
      ['y', 'provider["registry.terraform.io/hashicorp/random"]'],
    ],
  );
  const p = await doPlan(env);
  assert.deepEqual(actions(p.plan), ['random_id.x: NoOp', 'random_id.y: NoOp']);
});

test('terraform import: the object is imported and refreshed into the state; importing again is refused', async () => {
  const { importResource } = await import('../../server/engine');
  const { load } = await import('./harness');
  const env = newEnv({ 'main.tf': 'resource "terraform_data" "by_cli" {}\n' });
  const config = await load(env.dir);
  const events: string[] = [];
  const opts = {
    config,
    state: env.state,
    providers: () => env.rec.provider(),
    addr: 'terraform_data.by_cli',
    id: 'cli-456',
    cwd: env.dir,
    hooks: {
      preImportState: (_a: unknown, id: string) => events.push(`importing ${id}`),
      postImportState: (_a: unknown, objs: readonly { typeName: string }[]) => events.push(`prepared ${objs.map((o) => o.typeName).join(',')}`),
      preRefresh: () => events.push('refresh'),
    },
  };
  const r = await importResource(opts);
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(events, ['importing cli-456', 'prepared terraform_data', 'refresh']);
  const sj = stateJSON(r.state) as { resources: { instances: { attributes: { id: string } }[] }[] };
  assert.equal(sj.resources[0].instances[0].attributes.id, 'cli-456');
  const again = await importResource({ ...opts, state: r.state, id: 'again' });
  assert.deepEqual(again.diagnostics.map((d) => d.summary), ['Resource already managed by Terraform']);
  const missing = await importResource({ ...opts, addr: 'terraform_data.undeclared' });
  assert.deepEqual(missing.diagnostics.map((d) => d.summary), ['Configuration for import target does not exist']);
});
