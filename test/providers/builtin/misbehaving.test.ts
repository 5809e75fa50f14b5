// Tests with the misbehaving provider (misbehaving.ts): a create of each resource type goes through a small
// model of core's plan and apply steps (ProposedNew, PlanResourceChange, type conformance, AssertPlanValid,
// ApplyResourceChange, AssertObjectCompatible), over the loopback and the built-in registry's crash guard.
// Each broken contract must surface as Terraform's exact diagnostic, and the provider must keep answering
// other calls afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import type { Provider } from '../../../server/providers/provider';
import { DEFAULT_CLIENT_CAPABILITIES } from '../../../server/providers/provider';
import { impliedType, nullObject } from '../../../server/providers/schema';
import { loopbackProvider } from '../../../server/providers/wire';
import { guardProvider } from '../../../server/providers/builtin';
import { proposedNew } from '../../../server/plans/objchange/proposed';
import { assertPlanValid, invalidPlanDiagnostics } from '../../../server/plans/objchange/valid';
import { assertObjectCompatible, inconsistentResultDiagnostics } from '../../../server/plans/objchange/compatible';
import { testConformance } from '../../../server/plans/objchange/conformance';
import { MIS_ADDRESS, MIS_BLOCK, misbehavingProvider } from './misbehaving';

const BUG = "This is a bug in the provider, which should be reported in the provider's own issue tracker.";
const CONFIG = Value.object({ name: Value.string('a'), secret: Value.string('s'), id: Value.null(T.String) });

/** Core's create of `<type>.x`: the diagnostics it would report, as "Summary: Detail" strings. */
async function create(p: Provider, type: string): Promise<string[]> {
  const addr = `${type}.x`;
  const show = (ds: { summary: string; detail?: string }[]) => ds.map((d) => `${d.summary}: ${d.detail ?? ''}`);
  const prior = nullObject(MIS_BLOCK);
  const plan = await p.planResourceChange({
    typeName: type,
    priorState: prior,
    proposedNewState: proposedNew(MIS_BLOCK, prior, CONFIG),
    config: CONFIG,
    priorPrivate: new Uint8Array(0),
    clientCapabilities: DEFAULT_CLIENT_CAPABILITIES,
  });
  if (plan.diagnostics.length) return show(plan.diagnostics);
  const conform = testConformance(plan.plannedState.type, impliedType(MIS_BLOCK));
  if (conform.length) return show(invalidPlanDiagnostics(conform, MIS_ADDRESS, addr));
  const invalid = assertPlanValid(MIS_BLOCK, prior, CONFIG, plan.plannedState);
  if (invalid.length) return show(invalidPlanDiagnostics(invalid, MIS_ADDRESS, addr));
  const applied = await p.applyResourceChange({ typeName: type, priorState: prior, plannedState: plan.plannedState, config: CONFIG, plannedPrivate: new Uint8Array(0) });
  if (applied.diagnostics.length) return show(applied.diagnostics);
  const incompatible = assertObjectCompatible(MIS_BLOCK, plan.plannedState, applied.newState);
  return show(inconsistentResultDiagnostics(incompatible, addr, `provider["${MIS_ADDRESS}"]`));
}

interface Case {
  scenario: string;
  type: string;
  want: string[];
}
function check(c: Case): void {
  test(c.scenario, async () => {
    const p = loopbackProvider(guardProvider(misbehavingProvider()));
    assert.deepEqual(await create(p, c.type), c.want);
    // The provider still answers afterwards.
    assert.deepEqual(await create(p, 'mis_ok'), []);
  });
}

check({ scenario: 'A well-behaved create produces no diagnostics (the control case).', type: 'mis_ok', want: [] });
check({
  scenario: 'A plan that overrides a configured value is an invalid plan naming the attribute and both values.',
  type: 'mis_plan_changes_config',
  want: [`Provider produced invalid plan: Provider "${MIS_ADDRESS}" planned an invalid value for mis_plan_changes_config.x.name: planned value cty.StringVal("changed") does not match config value cty.StringVal("a").\n\n${BUG}`],
});
check({
  scenario: 'A plan that overrides a sensitive configured value does not reveal either value.',
  type: 'mis_plan_sensitive',
  want: [`Provider produced invalid plan: Provider "${MIS_ADDRESS}" planned an invalid value for mis_plan_sensitive.x.secret: sensitive planned value does not match config value.\n\n${BUG}`],
});
check({
  scenario: 'A null plan for a configured resource is planned for absence.',
  type: 'mis_plan_absent',
  want: [`Provider produced invalid plan: Provider "${MIS_ADDRESS}" planned an invalid value for mis_plan_absent.x: planned for absence but config wants existence.\n\n${BUG}`],
});
check({
  scenario: 'A planned object with an attribute the schema lacks fails type conformance.',
  type: 'mis_plan_extra_attr',
  want: [`Provider produced invalid plan: Provider "${MIS_ADDRESS}" planned an invalid value for mis_plan_extra_attr.x: unsupported attribute "bogus".\n\n${BUG}`],
});
check({
  scenario: 'An applied value different from the planned known value is an inconsistent result.',
  type: 'mis_apply_inconsistent',
  want: [
    `Provider produced inconsistent result after apply: When applying changes to mis_apply_inconsistent.x, provider "provider[\\"${MIS_ADDRESS}\\"]" produced an unexpected new value: .name: was cty.StringVal("a"), but now cty.StringVal("drifted").\n\n${BUG}`,
  ],
});
check({
  scenario: 'An applied value of the wrong type for an unknown placeholder is reported as a wrong final value type.',
  type: 'mis_apply_wrong_type',
  want: [
    `Provider produced inconsistent result after apply: When applying changes to mis_apply_wrong_type.x, provider "provider[\\"${MIS_ADDRESS}\\"]" produced an unexpected new value: .id: wrong final value type: string required.\n\n${BUG}`,
  ],
});
check({
  scenario: 'A provider that throws answers "Plugin did not respond" through the crash guard instead of an exception.',
  type: 'mis_throws',
  want: ['Plugin did not respond: The plugin encountered an error, and failed to respond to the plugin.(*GRPCProvider).PlanResourceChange call. The plugin logs may contain more details.'],
});

test('A hanging apply does not block other calls, and StopProvider ends it with its cancellation diagnostic.', async () => {
  const p = loopbackProvider(guardProvider(misbehavingProvider()));
  const hung = create(p, 'mis_hangs');
  let settled = false;
  void hung.then(() => (settled = true));
  assert.deepEqual(await create(p, 'mis_ok'), []);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(settled, false);
  await p.stopProvider();
  assert.deepEqual(await hung, ['Request cancelled: The ApplyResourceChange request was cancelled.']);
});

test('Values cross the guarded loopback as copies: the provider never sees the caller\'s objects.', async () => {
  let seen: Value | undefined;
  const inner = misbehavingProvider();
  const spy: Provider = { ...inner, planResourceChange: async (req) => ((seen = req.config), inner.planResourceChange(req)) };
  const p = loopbackProvider(guardProvider(spy));
  await create(p, 'mis_ok');
  assert.ok(seen && seen !== CONFIG);
});

test('A misbehaving provider behind the guard still reports its schema and unknown-method answers normally.', async () => {
  const p = loopbackProvider(guardProvider(misbehavingProvider()));
  const s = await p.getProviderSchema();
  assert.equal(Object.keys(s.resourceTypes).length, 9);
  const r = await p.readResource({ typeName: 'mis_ok', currentState: Value.null(impliedType(MIS_BLOCK)), private: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  assert.deepEqual(r.diagnostics, []);
});
