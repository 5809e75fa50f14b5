// Core's checks at each provider call, through the real engine (server/engine/contracts.ts, reference §5): a
// recording provider around the built-in terraform_data (and null_data_source) breaks one contract per test, and
// the plan or apply must report Terraform's exact diagnostic and keep the state Terraform keeps.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../server/lang/types';
import { Value } from '../../server/lang/value';
import type { Provider, PlanResourceChangeRequest, PlanResourceChangeResponse } from '../../server/providers/provider';
import { attrStep } from '../../server/providers/path';
import type { Block } from '../../server/providers/schema';
import { checkAppliedState, checkFinalPlan, unknownAsNull, writeOnlyDiagnostics } from '../../server/engine/contracts';
import { doApply, doPlan, newEnv, planApply, recordProvider, stateJSON, TF, writeConfig, type Env } from './harness';

const BUG = "This is a bug in the provider, which should be reported in the provider's own issue tracker.";
const FQN = `"${TF}"`;
const CFG = `"provider[\\"${TF}\\"]"`;
const NULL = 'registry.terraform.io/hashicorp/null';
const ONE = 'resource "terraform_data" "a" {\n  input = "x"\n}\n';

type Diag = { severity: string; summary: string; detail?: string };
const errors = (ds: Diag[]) => ds.filter((d) => d.severity === 'error').map((d) => `${d.summary}: ${d.detail ?? ''}`);

function withAttr(v: Value, name: string, x: Value): Value {
  const m = new Map(v.entries);
  m.set(name, x);
  return Value.object(m);
}
function without(v: Value, name: string): Value {
  const m = new Map(v.entries);
  m.delete(name);
  return Value.object(m);
}
type Instance = { attributes: Record<string, unknown>; status?: string };
const instances = (env: Env): Instance[] => ((stateJSON(env.state) as { resources: { instances: Instance[] }[] }).resources ?? []).flatMap((r) => r.instances);

/** Overrides PlanResourceChange with `f(request, inner's response, call number)`. */
function onPlan(env: Env, f: (req: PlanResourceChangeRequest, res: PlanResourceChangeResponse, n: number) => PlanResourceChangeResponse): void {
  let n = 0;
  env.rec.fns.planResourceChange = async (req: PlanResourceChangeRequest, inner: Provider) => f(req, await inner.planResourceChange(req), ++n);
}

// ---- PlanResourceChange ---------------------------------------------------------------------------------------

test('A planned object with an attribute the schema lacks: "Provider produced invalid plan" naming the provider by source address; nothing is applied', async () => {
  const env = newEnv({ 'main.tf': ONE });
  onPlan(env, (_q, r) => ({ ...r, plannedState: withAttr(r.plannedState, 'bogus', Value.bool(true)) }));
  const p = await doPlan(env);
  assert.deepEqual(errors(p.diagnostics), [`Provider produced invalid plan: Provider ${FQN} planned an invalid value for terraform_data.a: unsupported attribute "bogus".\n\n${BUG}`]);
  assert.equal(p.plan.errored, true);
});

test('A planned attribute of the wrong type is reported with the attribute path after the address', async () => {
  const env = newEnv({ 'main.tf': ONE });
  onPlan(env, (_q, r) => ({ ...r, plannedState: withAttr(r.plannedState, 'id', Value.number(7)) }));
  const p = await doPlan(env);
  assert.deepEqual(errors(p.diagnostics), [`Provider produced invalid plan: Provider ${FQN} planned an invalid value for terraform_data.a.id: string required, but received number.\n\n${BUG}`]);
});

test('The replacement re-plan: configuration without ignore_changes, the first answer\'s private data, conformance errors with Terraform\'s missing separator', async () => {
  const files = (input: string, trig: number) => ({
    'main.tf': `resource "terraform_data" "a" {\n  input            = "${input}"\n  triggers_replace = [${trig}]\n  lifecycle {\n    ignore_changes = [input]\n  }\n}\n`,
  });
  const env = newEnv(files('one', 1));
  await planApply(env);
  writeConfig(files('two', 2), env.dir);
  const seen: PlanResourceChangeRequest[] = [];
  onPlan(env, (q, r, n) => {
    seen.push(q);
    if (n === 1) return { ...r, plannedPrivate: new TextEncoder().encode('first') };
    return { ...r, plannedState: without(r.plannedState, 'output') };
  });
  const p = await doPlan(env);
  assert.equal(seen.length, 2);
  assert.equal(seen[0].config.entries.get('input')!.str, 'one', 'the first call sees ignore_changes applied');
  assert.equal(seen[1].config.entries.get('input')!.str, 'two', 'the replacement is planned from the configuration as written');
  assert.equal(new TextDecoder().decode(seen[1].priorPrivate), 'first');
  assert.deepEqual(errors(p.diagnostics), [`Provider produced invalid plan: Provider ${FQN} planned an invalid value for terraform_data.amissing required attribute "output".\n\n${BUG}`]);
});

test('A requires-replace path that exists in neither the prior nor the planned object is a provider bug', async () => {
  const env = newEnv({ 'main.tf': ONE });
  await planApply(env);
  writeConfig({ 'main.tf': ONE.replace('"x"', '"y"') }, env.dir);
  onPlan(env, (_q, r) => ({ ...r, requiresReplace: [[attrStep('nope')]] }));
  const p = await doPlan(env);
  assert.deepEqual(errors(p.diagnostics), [
    `Provider produced invalid plan: Provider ${FQN} has indicated "requires replacement" on terraform_data.a for a non-existent attribute path cty.Path{cty.GetAttrStep{Name:"nope"}}.\n\n${BUG}`,
  ]);
});

// ---- UpgradeResourceState and ReadResource --------------------------------------------------------------------

test('An upgraded state with unknown values or extra attributes: "Invalid resource state upgrade" with the implied provider name', async () => {
  for (const [bad, why] of [
    [(v: Value) => withAttr(v, 'id', Value.unknown(T.String)), 'The returned state contains unknown values'],
    [(v: Value) => withAttr(v, 'bogus', Value.string('b')), 'unsupported attribute "bogus"'],
  ] as const) {
    const env = newEnv({ 'main.tf': ONE });
    await planApply(env);
    env.rec.fns.upgradeResourceState = async (req: never, inner: Provider) => {
      const r = await inner.upgradeResourceState(req);
      return { ...r, upgradedState: bad(r.upgradedState) };
    };
    const p = await doPlan(env);
    assert.deepEqual(errors(p.diagnostics), [
      `Invalid resource state upgrade: The terraform provider upgraded the state for terraform_data.a from a previous version, but produced an invalid result: ${why}.`,
    ]);
    assert.equal(env.rec.called('readResource').length, 0, 'nothing is read from an invalid upgrade');
  }
});

test('A refreshed object with unknown values or the wrong types: "Provider produced invalid object" during refresh; the stored object is kept', async () => {
  for (const [bad, why] of [
    [(v: Value) => withAttr(v, 'id', Value.unknown(T.String)), 'The returned state contains unknown values'],
    [(v: Value) => withAttr(v, 'id', Value.bool(true)), '.id: string required, but received bool'],
  ] as const) {
    const env = newEnv({ 'main.tf': ONE });
    await planApply(env);
    const before = JSON.stringify(instances(env));
    env.rec.fns.readResource = async (req: never, inner: Provider) => {
      const r = await inner.readResource(req);
      return { ...r, newState: bad(r.newState) };
    };
    const p = await doPlan(env);
    assert.deepEqual(errors(p.diagnostics), [`Provider produced invalid object: Provider ${FQN} planned an invalid value for terraform_data.a during refresh: ${why}.\n\n${BUG}`]);
    assert.equal(JSON.stringify(instances({ ...env, state: p.plan.priorState })), before);
  }
});

// ---- ApplyResourceChange and the final plan -------------------------------------------------------------------

test('Unknown values after apply: one error per unknown path, the object is saved with them nulled (tainted, as a failed create)', async () => {
  const env = newEnv({ 'main.tf': ONE });
  env.rec.fns.applyResourceChange = async (req: never, inner: Provider) => {
    const r = await inner.applyResourceChange(req);
    return { ...r, newState: withAttr(r.newState, 'output', Value.unknown(T.String)) };
  };
  const p = await doPlan(env);
  const a = await doApply(env, p.plan);
  assert.deepEqual(errors(a.diagnostics), [
    "Provider returned invalid result object after apply: After the apply operation, the provider still indicated an unknown value for terraform_data.a.output. All values must be known after apply, so this is always a bug in the provider and should be reported in the provider's own repository. Terraform will still save the other known object values in the state.",
  ]);
  const [i] = instances(env);
  assert.equal(i.status, 'tainted');
  assert.equal(i.attributes.output, null);
  assert.deepEqual(i.attributes.input, { value: 'x', type: 'string' });
});

test('A create that returns null: "Root object was present, but now absent"; nothing is saved', async () => {
  const env = newEnv({ 'main.tf': ONE });
  env.rec.fns.applyResourceChange = async (req: never, inner: Provider) => {
    const r = await inner.applyResourceChange(req);
    return { ...r, newState: Value.null(r.newState.type) };
  };
  const a = await doApply(env, (await doPlan(env)).plan);
  assert.deepEqual(errors(a.diagnostics), [
    `Provider produced inconsistent result after apply: When applying changes to terraform_data.a, provider ${CFG} produced an unexpected new value: Root object was present, but now absent.\n\n${BUG}`,
  ]);
  assert.deepEqual(instances(env), []);
});

test('An update whose result fails type conformance: the object cannot be saved and leaves the state (Terraform\'s "cannot not" included)', async () => {
  const env = newEnv({ 'main.tf': ONE });
  await planApply(env);
  writeConfig({ 'main.tf': ONE.replace('"x"', '"y"') }, env.dir);
  env.rec.fns.applyResourceChange = async (req: never, inner: Provider) => {
    const r = await inner.applyResourceChange(req);
    return { ...r, newState: withAttr(r.newState, 'id', Value.number(1)) };
  };
  const a = await doApply(env, (await doPlan(env)).plan);
  assert.deepEqual(errors(a.diagnostics), [
    `Provider produced invalid object: Provider ${CFG} produced an invalid value after apply for terraform_data.a.id: string required, but received number. The result cannot not be saved in the Terraform state.\n\n${BUG}`,
  ]);
  assert.deepEqual(instances(env), []);
});

test('A destroy that returns an object: the errant object is kept in the state and the error names the Delete plan', async () => {
  const env = newEnv({ 'main.tf': ONE });
  await planApply(env);
  env.rec.fns.applyResourceChange = async (req: { priorState: Value }) => ({ newState: req.priorState, private: new Uint8Array(), diagnostics: [] });
  const a = await doApply(env, (await doPlan(env, { mode: 'destroy' })).plan);
  assert.deepEqual(errors(a.diagnostics), [
    "Provider returned invalid result object after apply: After applying a Delete plan, the provider returned a non-null object for terraform_data.a. Destroying should always produce a null value, so this is always a bug in the provider and should be reported in the provider's own repository. Terraform will still save this errant object in the state for debugging and recovery.",
  ]);
  assert.equal(instances(env).length, 1);
});

test('A provider with plan_destroy is asked to plan each destroy, at plan and at apply, and must plan null', async () => {
  const env = newEnv({ 'main.tf': ONE });
  await planApply(env);
  env.rec.fns.getProviderSchema = async (_req: never, inner: Provider) => {
    const r = await inner.getProviderSchema();
    return { ...r, serverCapabilities: { ...r.serverCapabilities, planDestroy: true } };
  };
  // Well-behaved: the destroy is planned (with null proposed state and configuration) at plan and again at apply.
  const ok = await doPlan(env, { mode: 'destroy' });
  assert.deepEqual(errors(ok.diagnostics), []);
  const destroyPlans = () => env.rec.called('planResourceChange').filter((c) => (c.req as PlanResourceChangeRequest).proposedNewState.isNull);
  assert.equal(destroyPlans().length, 1);
  assert.ok((destroyPlans()[0].req as PlanResourceChangeRequest).config.isNull);
  // Misbehaving: a non-null destroy plan stops the plan.
  onPlan(env, (q, r) => (q.proposedNewState.isNull ? { ...r, plannedState: q.priorState } : r));
  const bad = await doPlan(env, { mode: 'destroy' });
  assert.deepEqual(errors(bad.diagnostics), [`Provider produced invalid plan: Provider ${FQN} planned a non-null destroy value for terraform_data.a.\n\n${BUG}`]);
  // The apply of the good plan re-plans the destroy and stops there too: the object stays.
  const a = await doApply(env, ok.plan);
  assert.deepEqual(errors(a.diagnostics), [`Provider produced invalid plan: Provider ${FQN} planned a non-null destroy value for terraform_data.a.\n\n${BUG}`]);
  assert.equal(instances(env).length, 1);
});

test('The apply-time plan must agree with the saved one: a changed known value, and a changed action', async () => {
  const env = newEnv({ 'main.tf': ONE });
  onPlan(env, (_q, r, n) => ({ ...r, plannedState: withAttr(r.plannedState, 'id', Value.string(`id-${n}`)) }));
  const a = await doApply(env, (await doPlan(env)).plan);
  assert.deepEqual(errors(a.diagnostics), [
    `Provider produced inconsistent final plan: When expanding the plan for terraform_data.a to include new values learned so far during apply, provider ${FQN} produced an invalid new value for .id: was cty.StringVal("id-1"), but now cty.StringVal("id-2").\n\n${BUG}`,
  ]);
  assert.equal(env.rec.called('applyResourceChange').length, 0);

  const env2 = newEnv({ 'main.tf': ONE });
  await planApply(env2);
  writeConfig({ 'main.tf': ONE.replace('"x"', '"y"') }, env2.dir);
  onPlan(env2, (_q, r, n) => (n === 1 ? r : { ...r, requiresReplace: [[attrStep('input')]] }));
  const p2 = await doPlan(env2);
  assert.equal(p2.plan.changes[0].action, 'Update');
  const a2 = await doApply(env2, p2.plan);
  assert.deepEqual(errors(a2.diagnostics), [
    `Provider produced inconsistent final plan: When expanding the plan for terraform_data.a to include new values learned so far during apply, provider ${FQN} changed the planned action from Update to DeleteThenCreate.\n\n${BUG}`,
  ]);
});

// ---- ImportResourceState --------------------------------------------------------------------------------------

test('Import blocks: no objects, several objects, a null object, an object without a type name', async () => {
  const files = { 'main.tf': 'import {\n  to = terraform_data.a\n  id = "abc"\n}\nresource "terraform_data" "a" {\n}\n' };
  const cases: [string, (r: { importedResources: { typeName: string; state: Value; private: Uint8Array }[] }) => unknown, string[]][] = [
    ['none', (r) => ({ ...r, importedResources: [] }), ['Import returned no resources: While attempting to import with ID abc, the providerreturned no instance states.']],
    [
      'several',
      (r) => ({ ...r, importedResources: [r.importedResources[0], r.importedResources[0]] }),
      ['Multiple import states not supported: While attempting to import with ID abc, the provider returned multiple resource instance states. This is not currently supported.'],
    ],
    [
      'null',
      (r) => ({ ...r, importedResources: [{ ...r.importedResources[0], state: Value.null(r.importedResources[0].state.type) }] }),
      ['Import returned null resource: While attempting to import with ID abc, the providerreturned an instance with no state.'],
    ],
    ['untyped', (r) => ({ ...r, importedResources: [{ ...r.importedResources[0], typeName: '' }] }), ["import of terraform_data.a didn't set type: "]],
  ];
  for (const [name, bad, want] of cases) {
    const env = newEnv(files);
    env.rec.fns.importResourceState = async (req: never, inner: Provider) => bad(await inner.importResourceState(req));
    const p = await doPlan(env);
    assert.deepEqual(errors(p.diagnostics), want, name);
    assert.equal(p.plan.changes.length, 0, name);
  }
});

// ---- ReadDataSource -------------------------------------------------------------------------------------------

test('Data source results: null, not wholly known, the wrong type; each named by the provider configuration address', async () => {
  const files = { 'main.tf': 'data "null_data_source" "d" {\n  inputs = { a = "b" }\n}\n' };
  const cfg = `"provider[\\"${NULL}\\"]"`;
  const cases: [(v: Value) => Value, string][] = [
    [(v) => Value.null(v.type), `Provider produced null object: Provider ${cfg} produced a null value for data.null_data_source.d.\n\n${BUG}`],
    [(v) => withAttr(v, 'random', Value.unknown(T.String)), `Provider produced invalid object: Provider ${cfg} produced a value for data.null_data_source.d that is not wholly known.\n\n${BUG}`],
    [(v) => withAttr(v, 'random', Value.bool(false)), `Provider produced invalid object: Provider ${cfg} produced an invalid value for data.null_data_source.d.random: string required, but received bool.\n\n${BUG}`],
  ];
  for (const [bad, want] of cases) {
    const env = newEnv(files);
    const rec = recordProvider(env, NULL);
    rec.fns.readDataSource = async (req: never, inner: Provider) => {
      const r = await inner.readDataSource(req);
      return { ...r, state: bad(r.state) };
    };
    const p = await doPlan(env);
    assert.deepEqual(errors(p.diagnostics), [want]);
  }
});

// ---- the pure checks ------------------------------------------------------------------------------------------

const WO: Block = {
  attributes: { id: { type: T.String, computed: true }, token: { type: T.String, optional: true, writeOnly: true } },
  blockTypes: { rule: { nesting: 'list', block: { attributes: { key: { type: T.String, optional: true, writeOnly: true } }, blockTypes: {} } } },
};

test('Write-only attributes: one error per non-null write-only value, element paths included', () => {
  const v = Value.object({
    id: Value.string('i'),
    token: Value.string('t'),
    rule: Value.list([Value.object({ key: Value.null(T.String) }), Value.object({ key: Value.string('k') })], T.Obj(new Map([['key', T.String]]))),
  });
  assert.deepEqual(
    writeOnlyDiagnostics(WO, v, 'S', (p) => `at x${p.map((s) => (s.kind === 'attr' ? '.' + s.name : `[${s.key.num.toString()}]`)).join('')}`).map((d) => d.detail).sort(),
    ['at x.rule[1].key', 'at x.token'],
  );
});

test('unknownAsNull keeps known values and nulls every unknown, inside collections too', () => {
  const v = Value.object({ a: Value.unknown(T.String), b: Value.list([Value.string('x'), Value.unknown(T.String)], T.String), c: Value.string('k') });
  const n = unknownAsNull(v);
  assert.ok(n.isWhollyKnown);
  assert.ok(n.entries.get('a')!.isNull);
  assert.ok(n.entries.get('b')!.elems[1].isNull);
  assert.equal(n.entries.get('c')!.str, 'k');
});

test('A nil apply result without errors is "an invalid nil value"; with the provider\'s errors it says nothing more', () => {
  const b: Block = { attributes: { id: { type: T.String, computed: true } }, blockTypes: {} };
  const planned = Value.object({ id: Value.unknown(T.String) });
  const before = Value.null(T.Obj(new Map([['id', T.String]])));
  const r = checkAppliedState(b, 'Create', planned, Value.null(), false, 'provider["p"]', 'x_y.z', before);
  assert.deepEqual(r.diags.map((d) => d.detail), [`Provider "provider[\\"p\\"]" produced an invalid nil value after apply for x_y.z.\n\n${BUG}`]);
  assert.deepEqual(checkAppliedState(b, 'Create', planned, Value.null(), true, 'provider["p"]', 'x_y.z', before).diags, []);
});

test('checkFinalPlan: Update becoming NoOp is allowed; a replace-order swap is Terraform\'s own bug', () => {
  const b: Block = { attributes: { id: { type: T.String, computed: true } }, blockTypes: {} };
  const v = Value.object({ id: Value.string('a') });
  assert.deepEqual(checkFinalPlan(b, 'Update', 'NoOp', v, v, 'p', 'x_y.z'), []);
  assert.deepEqual(
    checkFinalPlan(b, 'CreateThenDelete', 'DeleteThenCreate', v, v, 'p', 'x_y.z').map((d) => `${d.summary}: ${d.detail}`),
    ['Terraform produced inconsistent final plan: When expanding the plan for x_y.z to include new values learned so far during apply, the planned action changed from CreateThenDelete to DeleteThenCreate.\n\nThis is a bug in Terraform and should be reported.'],
  );
});

// ---- MoveResourceState ----------------------------------------------------------------------------------------

test('A moved block from null_resource to terraform_data asks terraform_data\'s provider to translate the object (MoveResourceState)', async () => {
  const env = newEnv({ 'main.tf': 'resource "null_resource" "a" {\n  triggers = { k = "v" }\n}\n' });
  const nul = recordProvider(env, NULL);
  await planApply(env);
  const id = instances(env)[0].attributes.id;
  writeConfig({ 'main.tf': 'resource "terraform_data" "a" {\n  triggers_replace = { k = "v" }\n}\n\nmoved {\n  from = null_resource.a\n  to   = terraform_data.a\n}\n' }, env.dir);
  const p = await doPlan(env);
  assert.deepEqual(errors(p.diagnostics), []);
  const [req] = env.rec.called('moveResourceState').map((c) => c.req as { sourceProviderAddress: string; sourceTypeName: string; targetTypeName: string; sourceStateJson: string });
  assert.equal(req.sourceProviderAddress, NULL);
  assert.equal(req.sourceTypeName, 'null_resource');
  assert.equal(req.targetTypeName, 'terraform_data');
  assert.equal(JSON.parse(req.sourceStateJson).id, id);
  assert.equal(nul.called('readResource').length, 0, 'the moved object is read by its new provider');
  const c = p.plan.changes.find((x) => x.addr.type === 'terraform_data')!;
  assert.equal(c.prevRunAddr.type, 'null_resource');
  assert.equal(c.before.entries.get('id')!.str, id);
});

test('A moved block across types to a provider without MoveResourceState is an error at the moved block', async () => {
  const env = newEnv({ 'main.tf': ONE });
  await planApply(env);
  writeConfig({ 'main.tf': 'resource "null_resource" "a" {\n}\n\nmoved {\n  from = terraform_data.a\n  to   = null_resource.a\n}\n' }, env.dir);
  const p = await doPlan(env);
  const e = p.diagnostics.filter((d) => d.severity === 'error');
  assert.deepEqual(e.map((d) => `${d.summary}: ${d.detail}`), ['Unsupported `moved` across resource types: The provider "registry.terraform.io/hashicorp/null" does not support moved operations across resource types and providers.']);
  assert.equal(e[0].subject?.start.line, 4);
});
