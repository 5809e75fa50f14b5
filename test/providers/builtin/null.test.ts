// Tests for the built-in null provider (server/providers/builtin/null.ts) through the loopback: null_resource's
// create, no-op and update plans, replacement by triggers (ignoring null-valued keys), refresh, the missing
// import, and the deprecated null_data_source. Plans and applies are checked against objchange by the harness.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import { goString } from '../../../server/providers/gostring';
import { NULL_PROVIDER_ADDRESS } from '../../../server/providers/builtin/null';
import { stringMap } from '../../../server/providers/sdk';
import { Harness, at } from './_harness';

const NR = 'null_resource';

interface Case {
  scenario: string;
  run: (h: Harness) => Promise<unknown>;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, async () => {
    assert.deepEqual(await c.run(new Harness(NULL_PROVIDER_ADDRESS)), c.want);
  });
}

check({
  scenario: 'Creating a null_resource plans an unknown id and applies a random non-negative integer string.',
  run: async (h) => {
    const p = await h.plan(NR, null, { triggers: stringMap({ a: '1' }) });
    const a = await h.apply(NR, null, p.planned, { triggers: stringMap({ a: '1' }) });
    return [goString(at(p.planned, 'id')), /^[0-9]+$/.test(at(a.state, 'id').str), goString(at(a.state, 'triggers'))];
  },
  want: ['cty.UnknownVal(cty.String)', true, 'cty.MapVal(map[string]cty.Value{"a":cty.StringVal("1")})'],
});

check({
  scenario: 'An unchanged null_resource plans its prior state; changing a trigger value replaces it with a new id.',
  run: async (h) => {
    const { state } = await h.converge(NR, null, { triggers: stringMap({ a: '1' }) });
    const same = await h.plan(NR, state, { triggers: stringMap({ a: '1' }) });
    const { state: next, plan } = await h.converge(NR, state, { triggers: stringMap({ a: '2' }) });
    return [goString(same.planned) === goString(state), same.requiresReplace, plan.requiresReplace, plan.replaced, at(next, 'id').str !== at(state, 'id').str];
  },
  want: [true, [], ['.triggers'], true, true],
});

check({
  scenario: 'Adding a trigger key whose value is null does not replace a null_resource (the old SDK never stored such keys).',
  run: async (h) => {
    const { state } = await h.converge(NR, null, { triggers: stringMap({ a: '1' }) });
    const withNull = Value.map(new Map([['a', Value.string('1')], ['b', Value.null(T.String)]]), T.String);
    const p = await h.plan(NR, state, { triggers: withNull });
    const removed = await h.plan(NR, state, {});
    return [p.requiresReplace, p.replaced, goString(at(p.planned, 'id')) === goString(at(state, 'id')), removed.requiresReplace];
  },
  want: [[], false, true, ['.triggers']],
});

check({
  scenario: 'Refreshing a null_resource keeps it; importing one is not implemented, with the framework message.',
  run: async (h) => {
    const { state } = await h.converge(NR, null, {});
    const r = await h.read(NR, state);
    const imp = await h.import(NR, '123');
    return [goString(r.state) === goString(state), imp.diagnostics];
  },
  want: [true, ['error: Resource Import Not Implemented: This resource does not support import. Please contact the provider developer for additional information.']],
});

check({
  scenario: 'null_data_source is deprecated, copies inputs to outputs, defaults has_computed_default and has the id "static".',
  run: async (h) => {
    const v = await h.validateData('null_data_source', { inputs: stringMap({ k: 'v' }) });
    const r = await h.readData('null_data_source', { inputs: stringMap({ k: 'v' }) });
    const kept = await h.readData('null_data_source', { has_computed_default: Value.string('mine') });
    return [v, goString(at(r.state, 'outputs')), at(r.state, 'has_computed_default').str, at(r.state, 'id').str, /^[0-9]+$/.test(at(r.state, 'random').str), at(kept.state, 'has_computed_default').str];
  },
  want: [
    ['warning: Deprecated: The null_data_source was historically used to construct intermediate values to re-use elsewhere in configuration, the same can now be achieved using locals or the terraform_data resource type in Terraform 1.4 and later.'],
    'cty.MapVal(map[string]cty.Value{"k":cty.StringVal("v")})',
    'default',
    'static',
    true,
    'mine',
  ],
});

check({
  scenario: 'The null provider schema: null_resource has triggers (optional map of strings) and a computed id; null_data_source is marked deprecated.',
  run: async (h) => {
    const r = await h.p.getProviderSchema();
    const nr = r.resourceTypes.null_resource;
    return [nr.version, goString(Value.null(T.Map(T.String))) === 'cty.NullVal(cty.Map(cty.String))', nr.block.attributes.triggers.optional, nr.block.attributes.id.computed, r.dataSources.null_data_source.block.deprecated];
  },
  want: [0, true, true, true, true],
});

check({
  scenario: 'Stored null_resource state of schema version 0 decodes unchanged; attributes from other versions are ignored.',
  run: async (h) => {
    const u = await h.upgrade(NR, 0, '{"id":"42","triggers":{"a":"b"},"legacy":1}');
    return [u.diagnostics, goString(u.state)];
  },
  want: [[], 'cty.ObjectVal(map[string]cty.Value{"id":cty.StringVal("42"), "triggers":cty.MapVal(map[string]cty.Value{"a":cty.StringVal("b")})})'],
});

check({
  scenario: 'Unknown triggers replace a null_resource that had triggers but not one that had none, as the Go modifier compares elements.',
  run: async (h) => {
    const unknown = Value.unknown(T.Map(T.String));
    const { state: withTriggers } = await h.converge(NR, null, { triggers: stringMap({ a: '1' }) });
    const { state: without } = await h.converge(NR, null, {});
    return [(await h.plan(NR, withTriggers, { triggers: unknown })).requiresReplace, (await h.plan(NR, without, { triggers: unknown })).requiresReplace];
  },
  want: [['.triggers'], []],
});
