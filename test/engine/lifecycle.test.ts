// End-to-end plan and apply of terraform_data resources through the engine with a recording provider:
// create, no-op, update, replace, references, count and for_each orphans, outputs and destroy.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { actions, doApply, doPlan, newEnv, planApply, stateJSON } from './harness';

test('A single terraform_data with an output is created, then plans no changes, then is destroyed', async () => {
  const env = newEnv({ 'main.tf': 'resource "terraform_data" "web" {\n  input = "v1"\n}\n\noutput "web_output" {\n  value = terraform_data.web.output\n}\n' });
  const p1 = await doPlan(env);
  assert.deepEqual(p1.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.deepEqual(actions(p1.plan), ['terraform_data.web: Create']);
  assert.equal(p1.plan.outputs[0].action, 'Create');
  assert.ok(!p1.plan.outputs[0].after.isKnown, 'output is known after apply');
  assert.ok(env.rec.planResourceChangeCalled);
  const a = await doApply(env, p1.plan);
  assert.deepEqual(a.diagnostics, []);
  assert.deepEqual(env.events, ['pre Create terraform_data.web', 'post Create terraform_data.web']);
  const sj = stateJSON(a.state) as { outputs: Record<string, { value: unknown }>; resources: { instances: { attributes: { input: unknown; output: unknown; id: string } }[] }[] };
  assert.deepEqual(sj.outputs.web_output, { value: 'v1', type: 'string' });
  assert.deepEqual(sj.resources[0].instances[0].attributes.output, { value: 'v1', type: 'string' }, 'dynamic attributes are stored with their type');
  assert.match(sj.resources[0].instances[0].attributes.id, /^[0-9a-f-]{36}$/);

  const p2 = await doPlan(env);
  assert.deepEqual(actions(p2.plan), ['terraform_data.web: NoOp']);
  assert.equal(p2.plan.applyable, false);
  assert.ok(env.rec.called('readResource').length >= 1, 'refreshed');

  const pd = await doPlan(env, { mode: 'destroy' });
  assert.deepEqual(actions(pd.plan), ['terraform_data.web: Delete']);
  assert.equal(pd.plan.outputs[0].action, 'Delete');
  const ad = await doApply(env, pd.plan);
  assert.deepEqual(ad.diagnostics, []);
  assert.ok(ad.state.empty());
});

test('A count that shrinks deletes the out-of-range instances with DeleteBecauseCountIndex and updates the length output', async () => {
  const env = newEnv({
    'main.tf': 'variable "n" {\n  type    = number\n  default = 3\n}\n\nresource "terraform_data" "node" {\n  count = var.n\n  input = "node-${count.index}"\n}\n\noutput "count" {\n  value = length(terraform_data.node)\n}\n',
  });
  await planApply(env);
  const p = await doPlan(env, { vars: { n: '1' } });
  assert.deepEqual(actions(p.plan), ['terraform_data.node[0]: NoOp', 'terraform_data.node[1]: Delete DeleteBecauseCountIndex', 'terraform_data.node[2]: Delete DeleteBecauseCountIndex']);
  assert.equal(p.plan.outputs[0].action, 'Update');
  const a = await doApply(env, p.plan);
  assert.deepEqual(a.diagnostics, []);
  const sj = stateJSON(a.state) as { outputs: Record<string, { value: unknown }>; resources: { instances: unknown[] }[] };
  assert.equal(sj.resources[0].instances.length, 1);
  assert.deepEqual(sj.outputs.count.value, 1);
  const bad = await doPlan(env, { vars: { n: '-1' } });
  assert.equal(bad.diagnostics[0]?.summary, 'Invalid count argument');
  assert.equal(bad.plan.errored, true);
});

test('for_each over a map creates one instance per key, and a removed key is deleted with DeleteBecauseEachKey', async () => {
  const files = (users: string) => ({
    'main.tf': `variable "users" {\n  type = map(string)\n  default = ${users}\n}\n\nresource "terraform_data" "user" {\n  for_each = var.users\n  input = {\n    name = each.key\n    role = each.value\n  }\n}\n\noutput "roles" {\n  value = { for k, u in terraform_data.user : k => u.output.role }\n}\n`,
  });
  const env = newEnv(files('{ alice = "admin", bob = "dev" }'));
  const r = await planApply(env);
  assert.deepEqual(actions(r.plan), ['terraform_data.user["alice"]: Create', 'terraform_data.user["bob"]: Create']);
  const sj = stateJSON(r.state) as { outputs: Record<string, { value: unknown }> };
  assert.deepEqual(sj.outputs.roles.value, { alice: 'admin', bob: 'dev' });
  const p = await doPlan(env, { vars: { users: '{ alice = "admin" }' } });
  assert.deepEqual(actions(p.plan), ['terraform_data.user["alice"]: NoOp', 'terraform_data.user["bob"]: Delete DeleteBecauseEachKey']);
});

test('A reference chain is applied in dependency order and the state records transitive dependencies', async () => {
  const env = newEnv({
    'main.tf': 'resource "terraform_data" "a" {\n  input = "a"\n}\nlocals {\n  x = terraform_data.a.output\n}\nresource "terraform_data" "b" {\n  input = local.x\n}\nresource "terraform_data" "c" {\n  input = terraform_data.b.output\n}\n',
  });
  const r = await planApply(env);
  assert.deepEqual(env.events.filter((e) => e.startsWith('post')), ['post Create terraform_data.a', 'post Create terraform_data.b', 'post Create terraform_data.c']);
  const sj = stateJSON(r.state) as { resources: { name: string; instances: { dependencies?: string[]; attributes: { output: unknown } }[] }[] };
  const c = sj.resources.find((x) => x.name === 'c')!;
  assert.deepEqual(c.instances[0].dependencies, ['terraform_data.a', 'terraform_data.b']);
  assert.deepEqual(c.instances[0].attributes.output, { value: 'a', type: 'string' });
});

test('Changing triggers_replace replaces (DeleteThenCreate), and with create_before_destroy creates first and deletes the deposed object', async () => {
  const files = (rev: number) => ({
    'main.tf': `resource "terraform_data" "plain" {\n  triggers_replace = [${rev}]\n  input = "plain"\n}\nresource "terraform_data" "cbd" {\n  triggers_replace = [${rev}]\n  input = "cbd"\n  lifecycle {\n    create_before_destroy = true\n  }\n}\n`,
  });
  const env = newEnv(files(1));
  await planApply(env);
  const { writeConfig } = await import('./harness');
  writeConfig(files(2), env.dir);
  env.events.length = 0;
  const p = await doPlan(env);
  assert.deepEqual(actions(p.plan), ['terraform_data.cbd: CreateThenDelete ReplaceBecauseCannotUpdate', 'terraform_data.plain: DeleteThenCreate ReplaceBecauseCannotUpdate']);
  const a = await doApply(env, p.plan, 1);
  assert.deepEqual(a.diagnostics, []);
  const ev = env.events.filter((e) => e.startsWith('post'));
  assert.ok(ev.indexOf('post Create terraform_data.cbd') < ev.indexOf('post Delete terraform_data.cbd deposed'));
  assert.ok(ev.indexOf('post Delete terraform_data.plain') < ev.indexOf('post Create terraform_data.plain'));
  const sj = stateJSON(a.state) as { resources: { name: string; instances: { deposed?: string; create_before_destroy?: boolean }[] }[] };
  assert.equal(sj.resources.length, 2);
  for (const r of sj.resources) assert.equal(r.instances.length, 1);
  assert.equal(sj.resources.find((r) => r.name === 'cbd')!.instances[0].create_before_destroy, true);
});
