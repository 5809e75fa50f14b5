// Cost grows linearly: planning and applying 3,000 independent terraform_data resources, a no-op plan over
// them and a destroy stay within generous time bounds (quadratic work would blow them).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { doApply, doPlan, newEnv } from './harness';

test('3,000 independent resources: create, no-op plan and destroy each finish in seconds', async () => {
  let cfg = '';
  for (let i = 0; i < 3000; i++) cfg += `resource "terraform_data" "r${i}" {\n  input = "${i}"\n}\n`;
  const env = newEnv({ 'main.tf': cfg });
  env.hooks = {};
  let t = Date.now();
  const p = await doPlan(env);
  const tPlan = Date.now() - t;
  t = Date.now();
  const a = await doApply(env, p.plan);
  const tApply = Date.now() - t;
  assert.deepEqual(a.diagnostics, []);
  t = Date.now();
  const p2 = await doPlan(env);
  const tNoop = Date.now() - t;
  assert.equal(p2.plan.applyable, false);
  t = Date.now();
  const pd = await doPlan(env, { mode: 'destroy' });
  const d = await doApply(env, pd.plan);
  const tDestroy = Date.now() - t;
  assert.deepEqual(d.diagnostics, []);
  assert.ok(d.state.empty());
  console.log(`# 3000 resources: plan ${tPlan} ms, apply ${tApply} ms, no-op plan ${tNoop} ms, destroy ${tDestroy} ms`);
  for (const x of [tPlan, tApply, tNoop, tDestroy]) assert.ok(x < 20000, `each step under 20 s (${x} ms)`);
});
