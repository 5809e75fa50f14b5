// Tests for the provider SDK (server/providers/sdk): a toy provider written with defineProvider is driven
// through the loopback to show validation (validators, int64, deprecation), planning (defaults, unknown
// marking of computed attributes, plan modifiers, modifyPlan), apply, import, state upgrades, unknown type
// names and cancellation, and the state JSON codec round-trips values exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../../server/lang/types';
import { Num } from '../../../server/lang/number';
import { Value } from '../../../server/lang/value';
import { goString } from '../../../server/providers/gostring';
import { formatPath } from '../../../server/providers/path';
import type { Provider } from '../../../server/providers/provider';
import { DEFAULT_CLIENT_CAPABILITIES } from '../../../server/providers/provider';
import { impliedType, nullObject } from '../../../server/providers/schema';
import { loopbackProvider } from '../../../server/providers/wire';
import { proposedNew } from '../../../server/plans/objchange/proposed';
import { assertPlanValid } from '../../../server/plans/objchange/valid';
import {
  atLeast,
  atLeastSumOf,
  atMost,
  attr,
  between,
  blockOf,
  defineProvider,
  get,
  lengthAtLeast,
  marshalState,
  objectFor,
  oneOf,
  planModifier,
  requiresReplace,
  requiresReplaceIf,
  S,
  str,
  unmarshalState,
  useStateForUnknown,
  validator,
  attrError,
  withAttrs,
} from '../../../server/providers/sdk';
import type { ResourceType } from '../../../server/providers/sdk';

const s = (x: string) => Value.string(x);
const n = (x: number) => Value.number(x);

let aborted = false;
const thing: ResourceType = {
  version: 1,
  attributes: {
    name: attr.string({ required: true, validators: [lengthAtLeast(2)], planModifiers: [requiresReplace()] }),
    size: attr.int64({ optional: true, computed: true, default: 1, validators: [atLeast(1), atMost(10)] }),
    pct: attr.number({ optional: true, validators: [between(0, 100)] }),
    kind: attr.string({ optional: true, validators: [oneOf('a', 'b')], planModifiers: [requiresReplaceIf(({ config }) => config.isKnown && !config.isNull && config.str === 'b', 'Replace only when changing to "b".')] }),
    total: attr.int64({ optional: true, validators: [atLeastSumOf('size', 'pct')] }),
    old: attr.string({ optional: true, deprecationMessage: 'Use name.' }),
    note: attr.string({ optional: true, validators: [validator('no x', ({ path, value }) => (value.isKnown && !value.isNull && value.str.includes('x') ? [attrError(path, 'Bad note', 'No x allowed.')] : []))] }),
    id: attr.string({ computed: true, planModifiers: [useStateForUnknown()] }),
    stamp: attr.string({ computed: true }),
    upper: attr.string({ computed: true, planModifiers: [planModifier('upper-case name', ({ resourcePlan }) => (get(resourcePlan, 'name').isKnown ? { plan: s(str(get(resourcePlan, 'name'))!.toUpperCase()) } : {}))] }),
  },
  modifyPlan: ({ planned }) => (str(get(planned, 'note')) === 'replace-me' ? { requiresReplace: [[{ kind: 'attr', name: 'note' }]] } : {}),
  create: ({ planned }) => ({ state: withAttrs(planned, { id: s('id-' + str(get(planned, 'name'))), stamp: s('t1') }) }),
  update: ({ planned }) => ({ state: withAttrs(planned, { stamp: s('t2') }) }),
  importState: (id) => (id === 'bad' ? { state: null, diagnostics: [attrError([], 'Bad id', 'Cannot import "bad".')] } : { state: { name: s(id), id: s(id), size: n(1), upper: s(id.toUpperCase()), stamp: s('imported') } }),
  upgraders: {
    0: {
      priorSchema: blockOf({ title: attr.string({ required: true }), id: attr.string({ computed: true }) }),
      upgrade: (prior) => ({ state: { name: get(prior, 'title'), id: get(prior, 'id'), size: n(1), upper: S(str(get(prior, 'title'))?.toUpperCase()), stamp: s('upgraded') } }),
    },
  },
};

function provider(): Provider {
  return loopbackProvider(
    defineProvider({
      name: 'toy',
      resources: {
        toy_thing: thing,
        toy_old: { deprecationMessage: 'Use toy_thing.', attributes: { id: attr.string({ computed: true }) }, create: () => ({ state: { id: s('x') } }) },
        toy_wo: {
          attributes: { token: attr.string({ optional: true, writeOnly: true }), id: attr.string({ computed: true }) },
          create: ({ planned }) => ({ state: withAttrs(planned, { id: s('w') }) }),
        },
        toy_wait: {
          attributes: { id: attr.string({ computed: true }) },
          create: (_req, ctx) =>
            new Promise((resolve) => ctx.signal.addEventListener('abort', () => ((aborted = true), resolve({ state: null, diagnostics: [attrError([], 'Cancelled', 'Stopped.')] })))),
        },
      },
    }),
  );
}

const blk = blockOf(thing.attributes);
const cfg = (o: Record<string, Value>) => objectFor(blk, o);
const diag = (d: { severity: string; summary: string; detail?: string; path?: readonly unknown[] }) =>
  `${d.severity}: ${d.summary}: ${d.detail}${d.path && d.path.length ? ` [at ${formatPath(d.path as never)}]` : ''}`;

async function plan(p: Provider, prior: Value | null, config: Value) {
  const pr = prior ?? nullObject(blk);
  const r = await p.planResourceChange({ typeName: 'toy_thing', priorState: pr, proposedNewState: proposedNew(blk, pr, config), config, priorPrivate: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  if (!r.diagnostics.length) assert.deepEqual(assertPlanValid(blk, pr, config, r.plannedState), []);
  return r;
}
async function createThing(p: Provider, config: Value): Promise<Value> {
  const r = await plan(p, null, config);
  return (await p.applyResourceChange({ typeName: 'toy_thing', priorState: nullObject(blk), plannedState: r.plannedState, config, plannedPrivate: new Uint8Array(0) })).newState;
}

interface Case {
  scenario: string;
  run: (p: Provider) => Promise<unknown>;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, async () => assert.deepEqual(await c.run(provider()), c.want));
}

// ---- validation --------------------------------------------------------------------------------------------------

check({
  scenario: 'Validators report framework-style messages at their attribute paths; deprecated attributes warn; valid values pass.',
  run: async (p) =>
    (
      await p.validateResourceConfig({
        typeName: 'toy_thing',
        config: cfg({ name: s('x'), size: n(11), pct: n(101), kind: s('c'), total: n(3), old: s('o'), note: s('xx') }),
        clientCapabilities: DEFAULT_CLIENT_CAPABILITIES,
      })
    ).diagnostics.map(diag),
  want: [
    'error: Invalid Attribute Value Length: Attribute name string length must be at least 2, got: 1 [at .name]',
    'error: Invalid Attribute Value: Attribute size value must be at most 10, got: 11 [at .size]',
    'error: Invalid Attribute Value: Attribute pct value must be between 0 and 100, got: 101 [at .pct]',
    'error: Invalid Attribute Value Match: Attribute kind value must be one of: ["a" "b"], got: "c" [at .kind]',
    'error: Invalid Attribute Value: Attribute total value must be at least sum of size + pct, got: 3 [at .total]',
    'warning: Attribute Deprecated: Use name. [at .old]',
    'error: Bad note: No x allowed. [at .note]',
  ],
});
check({
  scenario: 'Null and unknown values skip validators; a deprecated resource type warns; an unknown type is reported.',
  run: async (p) => [
    (await p.validateResourceConfig({ typeName: 'toy_thing', config: cfg({ name: Value.unknown(T.String), size: Value.unknown(T.Number) }), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES })).diagnostics.map(diag),
    (await p.validateResourceConfig({ typeName: 'toy_old', config: Value.object({ id: Value.null(T.String) }), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES })).diagnostics.map(diag),
    (await p.validateResourceConfig({ typeName: 'toy_nope', config: Value.object({}), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES })).diagnostics.map(diag),
  ],
  want: [[], ['warning: Deprecated: Use toy_thing.'], ['error: Resource Type Not Found: No resource type named "toy_nope" was found in the provider.']],
});

// ---- planning ----------------------------------------------------------------------------------------------------

check({
  scenario: 'A create plans defaults for unset optional+computed attributes, unknown for other computed ones, and runs plan modifiers.',
  run: async (p) => {
    const r = await plan(p, null, cfg({ name: s('web') }));
    return ['size', 'id', 'stamp', 'upper'].map((k) => goString(get(r.plannedState, k))).concat(r.requiresReplace.map(formatPath));
  },
  want: ['cty.NumberIntVal(1)', 'cty.UnknownVal(cty.String)', 'cty.UnknownVal(cty.String)', 'cty.StringVal("WEB")'],
});
check({
  scenario: 'An unchanged configuration plans the prior state; an in-place change keeps use-state-for-unknown values and marks others unknown.',
  run: async (p) => {
    const st = await createThing(p, cfg({ name: s('web'), kind: s('a') }));
    const same = await plan(p, st, cfg({ name: s('web'), kind: s('a') }));
    const upd = await plan(p, st, cfg({ name: s('web'), kind: s('a'), pct: n(5) }));
    return [goString(same.plannedState) === goString(st), goString(get(upd.plannedState, 'id')), goString(get(upd.plannedState, 'stamp')), upd.requiresReplace.length];
  },
  want: [true, 'cty.StringVal("id-web")', 'cty.UnknownVal(cty.String)', 0],
});
check({
  scenario: 'requiresReplace fires on a changed value; requiresReplaceIf only when its condition holds; modifyPlan adds its own paths.',
  run: async (p) => {
    const st = await createThing(p, cfg({ name: s('web'), kind: s('a') }));
    const rr = async (c: Value) => (await plan(p, st, c)).requiresReplace.map(formatPath);
    return [await rr(cfg({ name: s('api'), kind: s('a') })), await rr(cfg({ name: s('web'), kind: s('b') })), await rr(cfg({ name: s('web') })), await rr(cfg({ name: s('web'), kind: s('a'), note: s('replace-me') }))];
  },
  want: [['.name'], ['.kind'], [], ['.note']],
});

// ---- apply, import, upgrade, cancellation -----------------------------------------------------------------------------

check({
  scenario: 'Apply calls create and update; a destroy applies to null; the default read keeps the state.',
  run: async (p) => {
    const st = await createThing(p, cfg({ name: s('web') }));
    const c2 = cfg({ name: s('web'), pct: n(5) });
    const pl = await plan(p, st, c2);
    const up = await p.applyResourceChange({ typeName: 'toy_thing', priorState: st, plannedState: pl.plannedState, config: c2, plannedPrivate: new Uint8Array(0) });
    const del = await p.applyResourceChange({ typeName: 'toy_thing', priorState: up.newState, plannedState: nullObject(blk), config: nullObject(blk), plannedPrivate: new Uint8Array(0) });
    const rd = await p.readResource({ typeName: 'toy_thing', currentState: st, private: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    return [str(get(st, 'stamp')), str(get(up.newState, 'stamp')), del.newState.isNull, goString(rd.newState) === goString(st)];
  },
  want: ['t1', 't2', true, true],
});
check({
  scenario: 'Import fills unset attributes with null and passes on the type\'s diagnostics; a type without importState says so.',
  run: async (p) => {
    const ok = await p.importResourceState({ typeName: 'toy_thing', id: 'abc', clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    const bad = await p.importResourceState({ typeName: 'toy_thing', id: 'bad', clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    const none = await p.importResourceState({ typeName: 'toy_old', id: 'x', clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    return [goString(get(ok.importedResources[0].state, 'kind')), str(get(ok.importedResources[0].state, 'name')), bad.diagnostics.map(diag), none.diagnostics.map((d) => d.summary)];
  },
  want: ['cty.NullVal(cty.String)', 'abc', ['error: Bad id: Cannot import "bad".'], ['Resource Import Not Implemented']],
});
check({
  scenario: 'Upgrade decodes the current version ignoring unknown attributes, runs the upgrader of an older version, and explains a missing one.',
  run: async (p) => {
    const cur = await p.upgradeResourceState({ typeName: 'toy_thing', version: 1, rawStateJson: '{"name":"n","size":3,"gone":true}' });
    const old = await p.upgradeResourceState({ typeName: 'toy_thing', version: 0, rawStateJson: '{"title":"t","id":"i"}' });
    const bad = await p.upgradeResourceState({ typeName: 'toy_old', version: 2, rawStateJson: '{}' });
    return [goString(get(cur.upgradedState, 'size')), goString(get(cur.upgradedState, 'id')), str(get(old.upgradedState, 'name')), str(get(old.upgradedState, 'upper')), bad.diagnostics.map((d) => d.detail)];
  },
  want: [
    'cty.NumberIntVal(3)',
    'cty.NullVal(cty.String)',
    't',
    'T',
    ['This resource was implemented without an UpgradeState() method, however Terraform was expecting an implementation for version 2 upgrade.\n\nThis is always an issue with the Terraform Provider and should be reported to the provider developer.'],
  ],
});
check({
  scenario: 'StopProvider aborts the signal of a running lifecycle function, which then reports its own diagnostic.',
  run: async (p) => {
    const b = blockOf({ id: attr.string({ computed: true }) });
    const planned = Value.object({ id: Value.unknown(T.String) });
    const pending = p.applyResourceChange({ typeName: 'toy_wait', priorState: nullObject(b), plannedState: planned, config: Value.object({ id: Value.null(T.String) }), plannedPrivate: new Uint8Array(0) });
    await new Promise((r) => setTimeout(r, 5));
    await p.stopProvider();
    return [(await pending).diagnostics.map(diag), aborted];
  },
  want: [['error: Cancelled: Stopped.'], true],
});

test('objectFor completes an object to its schema and treats a value of the wrong type as a provider bug.', () => {
  assert.equal(goString(get(objectFor(blk, { name: s('x') }), 'pct')), 'cty.NullVal(cty.Number)');
  assert.throws(() => objectFor(blk, { name: n(1) }), /does not fit its schema: \.name: string required/);
});

// ---- state JSON --------------------------------------------------------------------------------------------------

interface JsonCase {
  scenario: string;
  type: T.Type;
  json: string;
  want: string;
}
function checkJson(c: JsonCase): void {
  test(c.scenario, () => {
    const r = unmarshalState(c.json, c.type);
    const got = 'error' in r ? `error: ${r.error}` : goString(r.value);
    assert.equal(got, c.want);
    if ('value' in r) assert.equal(marshalState(r.value, c.type), c.json);
  });
}

checkJson({
  scenario: 'Objects decode with exact numbers and dynamic {value,type} attributes, and encode back to the same text.',
  type: T.Obj({ a: T.Number, d: T.Dynamic, l: T.List(T.String), m: T.Map(T.Bool), s: T.Set(T.Number) }),
  json: '{"a":12345678901234567890.5,"d":{"value":{"x":[1,"y"]},"type":["object",{"x":["tuple",["number","string"]]}]},"l":["p","q"],"m":{"k":true},"s":[1,2]}',
  want: 'cty.ObjectVal(map[string]cty.Value{"a":cty.MustParseNumberVal("12345678901234567890.5"), "d":cty.ObjectVal(map[string]cty.Value{"x":cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.StringVal("y")})}), "l":cty.ListVal([]cty.Value{cty.StringVal("p"), cty.StringVal("q")}), "m":cty.MapVal(map[string]cty.Value{"k":cty.True}), "s":cty.SetVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)})})',
});
checkJson({
  scenario: 'A wrong JSON kind is reported with its path; an attribute the type lacks is unsupported.',
  type: T.Obj({ l: T.List(T.Number) }),
  json: '{"l":[1,"x"]}',
  want: 'error: .l[1]: number required',
});
checkJson({
  scenario: 'Map keys made of digits keep their order and a decimal keeps its exact value (texts the native JSON parser would reorder or round).',
  type: T.Obj({ m: T.Map(T.String), n: T.Number }),
  json: '{"m":{"10":"y","2":"z","b":"x"},"n":0.1}',
  want: 'cty.ObjectVal(map[string]cty.Value{"m":cty.MapVal(map[string]cty.Value{"10":cty.StringVal("y"), "2":cty.StringVal("z"), "b":cty.StringVal("x")}), "n":cty.MustParseNumberVal("0.1")})',
});
checkJson({
  scenario: 'A wrong kind deep inside a map of lists is reported with its whole path.',
  type: T.Obj({ m: T.Map(T.List(T.Bool)) }),
  json: '{"m":{"k":[true,"x"]}}',
  want: 'error: .m["k"][1]: bool required',
});
checkJson({ scenario: 'An unknown attribute in stored JSON is an error when decoding strictly.', type: T.Obj({ a: T.String }), json: '{"b":"x"}', want: 'error: unsupported attribute "b"' });

test('Big numbers keep every digit through the codec.', () => {
  const v = Value.object({ n: Value.number(Num.parse('123456789012345678901234567890')!) });
  assert.equal(marshalState(v), '{"n":123456789012345678901234567890}');
  assert.equal(impliedType(blk).kind, 'object');
});

check({
  scenario: 'Write-only attributes are null in the plan and in the applied object, and the plan stays valid.',
  run: async (p) => {
    const b = blockOf({ token: attr.string({ optional: true, writeOnly: true }), id: attr.string({ computed: true }) });
    const config = objectFor(b, { token: s('secret') });
    const prior = nullObject(b);
    const r = await p.planResourceChange({ typeName: 'toy_wo', priorState: prior, proposedNewState: proposedNew(b, prior, config), config, priorPrivate: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    const a = await p.applyResourceChange({ typeName: 'toy_wo', priorState: prior, plannedState: r.plannedState, config, plannedPrivate: new Uint8Array(0) });
    return [goString(get(r.plannedState, 'token')), assertPlanValid(b, prior, config, r.plannedState).length, goString(get(a.newState, 'token')), str(get(a.newState, 'id'))];
  },
  want: ['cty.NullVal(cty.String)', 0, 'cty.NullVal(cty.String)', 'w'],
});
