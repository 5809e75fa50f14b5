// Plan behaviour whose ordering follows Terraform's Context.Plan: an output whose precondition fails gets no
// planned change (conditions steps 7-8).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { actions, doPlan, newEnv, planApply, writeConfig } from './harness';


test('an output whose precondition fails has no planned change', async () => {
  const main = (port: number) =>
    `resource "terraform_data" "r" {\n  input = ${port}\n}\noutput "port" {\n  value = terraform_data.r.output\n  precondition {\n    condition     = ${port} != 8081\n    error_message = "Port ${port} is reserved."\n  }\n}\n`;
  const env = newEnv({ 'main.tf': main(8080) });
  await planApply(env);
  writeConfig({ 'main.tf': main(8081) }, env.dir);
  const p = await doPlan(env);
  assert.deepEqual(p.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.summary}: ${d.detail}`), ['Module output value precondition failed: Port 8081 is reserved.']);
  assert.deepEqual(actions(p.plan), ['terraform_data.r: Update']);
  assert.deepEqual(p.plan.outputs, []);
});
