// Plan behaviour whose ordering follows Terraform's Context.Plan: an output whose precondition fails gets no
// planned change (conditions steps 7-8); invalid move statements are reported after the plan walk, so refresh
// still runs, and they replace every other result (moved-blocks step 13); -destroy -target refreshes only the
// targets and what they depend on, as the pre-destroy refresh is a normal targeted plan (target-replace-refresh
// step 9).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { actions, doPlan, newEnv, planApply, writeConfig } from './harness';


test('an output whose precondition fails has no planned change', async () => {
  const main = (port: number) =>
    `resource "terraform_data" "r" {\n  input = ${port}\n}\noutput "port" {\n  value = terraform_data.r.output\n  precondition {\n    condition     = terraform_data.r.input != 8081\n    error_message = "Port ${port} is reserved."\n  }\n}\n`;
  const env = newEnv({ 'main.tf': main(8080) });
  await planApply(env);
  writeConfig({ 'main.tf': main(8081) }, env.dir);
  const p = await doPlan(env);
  assert.deepEqual(p.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.summary}: ${d.detail}`), ['Module output value precondition failed: Port 8081 is reserved.']);
  assert.deepEqual(actions(p.plan), ['terraform_data.r: Update']);
  assert.deepEqual(p.plan.outputs, []);
});

test('a redundant move statement is reported after refresh, and alone', async () => {
  const env = newEnv({ 'main.tf': 'resource "terraform_data" "a" {\n  input = "a"\n}\n' });
  await planApply(env);
  writeConfig({ 'main.tf': 'resource "terraform_data" "a" {\n  input = "b"\n}\nmoved {\n  from = terraform_data.nothing\n  to   = terraform_data.nothing\n}\n' }, env.dir);
  env.rec.calls = [];
  const p = await doPlan(env);
  assert.deepEqual(p.diagnostics.map((d) => d.summary), ['Redundant move statement']);
  assert.equal(env.rec.called('readResource').length, 1, 'refresh ran before the move statements were validated');
  assert.deepEqual(p.plan.changes, []);
  assert.deepEqual(p.plan.outputs, []);
});

test('-destroy -target refreshes only the targets, not their dependents or unrelated resources', async () => {
  const env = newEnv({
    'main.tf':
      'resource "terraform_data" "base" {\n  input = "base"\n}\nresource "terraform_data" "app" {\n  count = 2\n  input = "${terraform_data.base.output}-${count.index}"\n}\nresource "terraform_data" "other" {\n  input = "other"\n}\n',
  });
  await planApply(env);
  env.rec.calls = [];
  const p = await doPlan(env, { mode: 'destroy', targets: ['terraform_data.base'] });
  assert.deepEqual(p.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.equal(env.rec.called('readResource').length, 1, 'only terraform_data.base is refreshed');
  assert.deepEqual(actions(p.plan), ['terraform_data.app[0]: Delete', 'terraform_data.app[1]: Delete', 'terraform_data.base: Delete']);
});
