// Tests for the built-in terraform provider (server/providers/builtin/terraform.ts) through the loopback:
// terraform_data's validation, plans (create, update, no-op, replacement by triggers_replace), apply, refresh,
// import, state decoding and the move from null_resource, and terraform_remote_state on the local backend.
// Every plan and apply answer is checked against objchange's contracts by the harness.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import { goString } from '../../../server/providers/gostring';
import { TERRAFORM_PROVIDER_ADDRESS } from '../../../server/providers/builtin/terraform';
import { Harness, at } from './_harness';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const s = (x: string) => Value.string(x);
const TD = 'terraform_data';

interface Case {
  scenario: string;
  run: (h: Harness) => Promise<unknown>;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, async () => {
    const h = new Harness(TERRAFORM_PROVIDER_ADDRESS);
    assert.deepEqual(await c.run(h), c.want);
  });
}

// ---- validation --------------------------------------------------------------------------------------------------

check({
  scenario: 'Setting the computed id or output of terraform_data is rejected as read-only; input and triggers_replace are fine.',
  run: async (h) => [await h.validate(TD, { id: s('x'), output: s('y') }), await h.validate(TD, { input: s('a'), triggers_replace: Value.tuple([s('b')]) })],
  want: [['error: "id" attribute is read-only', 'error: "output" attribute is read-only'], []],
});

// ---- plan and apply --------------------------------------------------------------------------------------------

check({
  scenario: 'Creating terraform_data with an input plans an unknown id and an unknown output of the input type, then applies a UUID and output = input.',
  run: async (h) => {
    const p = await h.plan(TD, null, { input: s('hello') });
    const a = await h.apply(TD, null, p.planned, { input: s('hello') });
    return [goString(p.planned), UUID.test(at(a.state, 'id').str), goString(at(a.state, 'output'))];
  },
  want: ['cty.ObjectVal(map[string]cty.Value{"id":cty.UnknownVal(cty.String).RefineNotNull(), "input":cty.StringVal("hello"), "output":cty.UnknownVal(cty.String), "triggers_replace":cty.NullVal(cty.DynamicPseudoType)})', true, 'cty.StringVal("hello")'],
});

check({
  scenario: 'Creating terraform_data without an input plans a known null output.',
  run: async (h) => goString(at((await h.plan(TD, null, {})).planned, 'output')),
  want: 'cty.NullVal(cty.DynamicPseudoType)',
});

check({
  scenario: 'Changing the input of terraform_data updates in place: the id is kept and the output is unknown until apply.',
  run: async (h) => {
    const { state } = await h.converge(TD, null, { input: s('one') });
    const p = await h.plan(TD, state, { input: Value.number(2) });
    const a = await h.apply(TD, state, p.planned, { input: Value.number(2) });
    return [p.replaced, p.requiresReplace, at(p.planned, 'id').str === at(state, 'id').str, goString(at(p.planned, 'output')), at(a.state, 'id').str === at(state, 'id').str, goString(at(a.state, 'output'))];
  },
  want: [false, [], true, 'cty.UnknownVal(cty.Number)', true, 'cty.NumberIntVal(2)'],
});

check({
  scenario: 'Planning terraform_data with an unchanged configuration returns the prior state exactly.',
  run: async (h) => {
    const attrs = { input: Value.object({ a: s('x') }), triggers_replace: s('t') };
    const { state } = await h.converge(TD, null, attrs);
    const p = await h.plan(TD, state, attrs);
    return [goString(p.planned) === goString(state), p.requiresReplace];
  },
  want: [true, []],
});

check({
  scenario: 'Changing triggers_replace requires replacement; the replacement plan has a new unknown id and the apply a different UUID.',
  run: async (h) => {
    const { state } = await h.converge(TD, null, { input: s('x'), triggers_replace: s('v1') });
    const { state: next, plan } = await h.converge(TD, state, { input: s('x'), triggers_replace: s('v2') });
    return [plan.requiresReplace, plan.replaced, goString(at(plan.planned, 'id')), at(next, 'id').str !== at(state, 'id').str, goString(at(next, 'output'))];
  },
  want: [['.triggers_replace'], true, 'cty.UnknownVal(cty.String).RefineNotNull()', true, 'cty.StringVal("x")'],
});

check({
  scenario: 'A triggers_replace value of a different type (a tuple instead of a list) counts as a change, as cty RawEquals does.',
  run: async (h) => {
    const list = Value.list([s('a')], T.String);
    const { state } = await h.converge(TD, null, { triggers_replace: list });
    return (await h.plan(TD, state, { triggers_replace: Value.tuple([s('a')]) })).requiresReplace;
  },
  want: ['.triggers_replace'],
});

check({
  scenario: 'Destroying terraform_data plans null and applies to null.',
  run: async (h) => {
    const { state } = await h.converge(TD, null, { input: s('x') });
    const b = await h.block(TD);
    const r = await h.p.planResourceChange({ typeName: TD, priorState: state, proposedNewState: Value.null(state.type), config: Value.null(state.type), priorPrivate: new Uint8Array(0), clientCapabilities: { deferralAllowed: false, writeOnlyAttributesAllowed: true } });
    const a = await h.apply(TD, state, r.plannedState, {});
    return [r.plannedState.isNull, a.state.isNull, b.attributes.id.computed];
  },
  want: [true, true, true],
});

// ---- refresh, import, upgrade, move --------------------------------------------------------------------------

check({
  scenario: 'Refreshing terraform_data returns the stored object unchanged (there is no remote object to drift).',
  run: async (h) => {
    const { state } = await h.converge(TD, null, { input: s('x') });
    const r = await h.read(TD, state);
    return [goString(r.state) === goString(state), r.diagnostics];
  },
  want: [true, []],
});

check({
  scenario: 'Importing terraform_data by id gives an object with only the id; a later plan with an input updates in place with an unknown output.',
  run: async (h) => {
    const imp = await h.import(TD, 'existing-123');
    const read = await h.read(TD, imp.state!);
    const p = await h.plan(TD, read.state, { input: s('set-after-import') });
    return [goString(imp.state!), p.replaced, goString(at(p.planned, 'output')), at(p.planned, 'id').str];
  },
  want: [
    'cty.ObjectVal(map[string]cty.Value{"id":cty.StringVal("existing-123"), "input":cty.NullVal(cty.DynamicPseudoType), "output":cty.NullVal(cty.DynamicPseudoType), "triggers_replace":cty.NullVal(cty.DynamicPseudoType)})',
    false,
    'cty.UnknownVal(cty.String)',
    'existing-123',
  ],
});

check({
  scenario: 'Stored terraform_data state decodes dynamic attributes from their {value, type} form; an unknown attribute is an error.',
  run: async (h) => {
    const ok = await h.upgrade(TD, 0, '{"id":"i","input":{"value":["a",1],"type":["tuple",["string","number"]]},"output":{"value":"x","type":"string"},"triggers_replace":null}');
    const bad = await h.upgrade(TD, 0, '{"id":"i","foo":1}');
    return [goString(at(ok.state, 'input')), goString(at(ok.state, 'output')), bad.diagnostics];
  },
  want: ['cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NumberIntVal(1)})', 'cty.StringVal("x")', ['error: unsupported attribute "foo"']],
});

check({
  scenario: 'A null_resource of hashicorp/null moves to terraform_data with its id and triggers as an object; other sources are refused.',
  run: async (h) => {
    const req = (addr: string, type: string) => ({ sourceProviderAddress: addr, sourceTypeName: type, sourceSchemaVersion: 0, sourceStateJson: '{"id":"123","triggers":{"a":"b"}}', targetTypeName: TD, sourcePrivate: new Uint8Array(0) });
    const ok = await h.p.moveResourceState(req('registry.terraform.io/hashicorp/null', 'null_resource'));
    const badProvider = await h.p.moveResourceState(req('registry.terraform.io/acme/null2', 'null_resource'));
    const badType = await h.p.moveResourceState(req('registry.terraform.io/hashicorp/null', 'null_data_source'));
    return [goString(ok.targetState), badProvider.diagnostics.map((d) => d.summary), badType.diagnostics.map((d) => d.summary)];
  },
  want: [
    'cty.ObjectVal(map[string]cty.Value{"id":cty.StringVal("123"), "input":cty.NullVal(cty.DynamicPseudoType), "output":cty.NullVal(cty.DynamicPseudoType), "triggers_replace":cty.ObjectVal(map[string]cty.Value{"a":cty.StringVal("b")})})',
    ['Unsupported source provider for move operation'],
    ['Unsupported source resource type for move operation'],
  ],
});

check({
  scenario: 'The terraform provider offers terraform_data and terraform_remote_state with Terraform 1.11 schemas and supports MoveResourceState.',
  run: async (h) => {
    const r = await h.p.getProviderSchema();
    const flags = (b: { attributes: Record<string, { required?: boolean; optional?: boolean; computed?: boolean }> }) =>
      Object.entries(b.attributes).map(([k, a]) => `${k}:${a.required ? 'R' : ''}${a.optional ? 'O' : ''}${a.computed ? 'C' : ''}`).sort();
    return [flags(r.resourceTypes.terraform_data.block), flags(r.dataSources.terraform_remote_state.block), r.serverCapabilities.moveResourceState];
  },
  want: [['id:C', 'input:O', 'output:C', 'triggers_replace:O'], ['backend:R', 'config:O', 'defaults:O', 'outputs:C', 'workspace:O'], true],
});

// ---- terraform_remote_state ------------------------------------------------------------------------------------

function stateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-remote-state-'));
  const st = (outputs: string) => `{"version":4,"terraform_version":"1.11.4","serial":1,"lineage":"l","outputs":${outputs},"resources":[],"check_results":null}\n`;
  writeFileSync(join(dir, 'terraform.tfstate'), st('{"greeting":{"value":"hi","type":"string"},"n":{"value":[1,2],"type":["list","number"]}}'));
  mkdirSync(join(dir, 'terraform.tfstate.d', 'staging'), { recursive: true });
  writeFileSync(join(dir, 'terraform.tfstate.d', 'staging', 'terraform.tfstate'), st('{"env":{"value":"staging","type":"string"}}'));
  return dir;
}

interface RSCase {
  scenario: string;
  attrs: (dir: string) => Record<string, Value>;
  want: { outputs?: string; diagnostics: string[] };
}
function checkRemoteState(c: RSCase): void {
  test(c.scenario, async () => {
    const dir = stateDir();
    const h = new Harness(TERRAFORM_PROVIDER_ADDRESS, { workingDir: dir });
    const attrs = c.attrs(dir);
    const v = await h.validateData('terraform_remote_state', attrs);
    const r = v.length ? { state: Value.null(), diagnostics: v } : await h.readData('terraform_remote_state', attrs);
    const got: { outputs?: string; diagnostics: string[] } = { diagnostics: r.diagnostics };
    if (!r.state.isNull) got.outputs = goString(at(r.state, 'outputs'));
    assert.deepEqual(got, c.want);
  });
}

checkRemoteState({
  scenario: 'terraform_remote_state reads the root outputs of the default workspace of a local state file.',
  attrs: () => ({ backend: s('local') }),
  want: { outputs: 'cty.ObjectVal(map[string]cty.Value{"greeting":cty.StringVal("hi"), "n":cty.ListVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)})})', diagnostics: [] },
});
checkRemoteState({
  scenario: 'terraform_remote_state reads another workspace under terraform.tfstate.d and puts outputs over defaults.',
  attrs: () => ({ backend: s('local'), workspace: s('staging'), defaults: Value.object({ env: s('none'), extra: s('d') }) }),
  want: { outputs: 'cty.ObjectVal(map[string]cty.Value{"env":cty.StringVal("staging"), "extra":cty.StringVal("d")})', diagnostics: [] },
});
checkRemoteState({
  scenario: 'terraform_remote_state with config.path reads that file; a missing file reports that no stored state was found.',
  attrs: (dir) => ({ backend: s('local'), config: Value.object({ path: s(join(dir, 'absent.tfstate')) }) }),
  want: { outputs: 'cty.EmptyObjectVal', diagnostics: ['error: Unable to find remote state: No stored state was found for the given workspace in the given backend. [at .workspace]'] },
});
checkRemoteState({
  scenario: 'terraform_remote_state rejects an unknown backend type, configuration arguments the local backend lacks, and non-object defaults.',
  attrs: () => ({ backend: s('nope'), defaults: s('x') }),
  want: { diagnostics: ['error: Invalid backend configuration: There is no backend type named "nope". [at .backend]', 'error: Invalid default values: Defaults must be given in an object value. [at .defaults]'] },
});
checkRemoteState({
  scenario: 'terraform_remote_state reports an unexpected local backend argument with its name.',
  attrs: () => ({ backend: s('local'), config: Value.object({ bucket: s('b') }) }),
  want: { diagnostics: ['error: Invalid backend configuration: The given configuration is not valid for backend "local": unexpected attribute "bucket". [at .config]'] },
});
checkRemoteState({
  scenario: 'terraform_remote_state names removed backends with Terraform\'s message and rejects an empty local path.',
  attrs: () => ({ backend: s('etcd') }),
  want: { diagnostics: ['error: Invalid backend configuration: The "etcd" backend is not supported in Terraform v1.3 or later. [at .backend]'] },
});
checkRemoteState({
  scenario: 'terraform_remote_state rejects an empty local state path as the local backend does.',
  attrs: () => ({ backend: s('local'), config: Value.object({ path: s('') }) }),
  want: { diagnostics: ['error: Invalid local state file path: The "path" attribute value must not be empty. [at .path]'] },
});
