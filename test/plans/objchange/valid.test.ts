// Tests for server/plans/objchange/valid.ts: AssertPlanValid, one scenario per rule and message of the
// reference (terraform-contracts.md §3) for every nesting mode, with the exact texts as FormatError prints
// them, and the "Provider produced invalid plan" diagnostics built from them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import { formatError } from '../../../server/providers/path';
import type { Block } from '../../../server/providers/schema';
import { assertPlanValid, invalidPlanDiagnostics, legacyInvalidPlanWarning } from '../../../server/plans/objchange/valid';
import { blk, comp, fill, list, map, n, nb, nested, nul, obj, opt, optComp, req, s, set, unk } from './_helpers';

interface Case {
  scenario: string;
  schema: Block;
  prior?: Value;
  config: Value;
  planned: Value;
  want: string[];
}

function check(c: Case): void {
  test(c.scenario, () => {
    const prior = c.prior ?? Value.null(c.config.type);
    const got = assertPlanValid(c.schema, prior, c.config, c.planned).map(formatError);
    assert.deepEqual(got, c.want);
  });
}

// ---- attributes (§3.3) ----------------------------------------------------------------------------------------

const A = blk({
  name: req(T.String),
  opt: opt(T.String),
  sopt: opt(T.String, { sensitive: true }),
  oc: optComp(T.String),
  id: comp(T.String),
  wo: opt(T.String, { writeOnly: true }),
});
const a = (o: Record<string, Value>) => fill(A, { name: s('n'), ...o });

check({ scenario: 'A plan identical to the config is valid.', schema: A, config: a({ opt: s('x') }), planned: a({ opt: s('x') }), want: [] });
check({
  scenario: 'An unknown config value may be planned as a refined unknown (refinements are ignored).',
  schema: A,
  config: a({ opt: unk(T.String) }),
  planned: a({ opt: unk(T.String, { notNull: true }) }),
  want: [],
});
check({
  scenario: 'Planning the prior value for a changed non-computed attribute is accepted as diff suppression.',
  schema: A,
  prior: a({ opt: s('OLD') }),
  config: a({ opt: s('old') }),
  planned: a({ opt: s('OLD') }),
  want: [],
});
check({
  scenario: 'Diff suppression does not apply when the config value is null.',
  schema: A,
  prior: a({ opt: s('OLD') }),
  config: a({}),
  planned: a({ opt: s('OLD') }),
  want: ['.opt: planned value cty.StringVal("OLD") for a non-computed attribute'],
});
check({
  scenario: 'A computed-only attribute may be planned as anything.',
  schema: A,
  config: a({}),
  planned: a({ id: s('i-1') }),
  want: [],
});
check({
  scenario: 'An optional+computed attribute left unset may be planned as any value, known or unknown.',
  schema: A,
  config: a({}),
  planned: a({ oc: unk(T.String) }),
  want: [],
});
check({
  scenario: 'A configured optional+computed attribute planned with another value on create is reported against the config value.',
  schema: A,
  config: a({ oc: s('x') }),
  planned: a({ oc: s('y') }),
  want: ['.oc: planned value cty.StringVal("y") does not match config value cty.StringVal("x")'],
});
check({
  scenario: 'An unknown optional+computed config value planned as a known value is an error naming config and prior.',
  schema: A,
  prior: a({ oc: s('p') }),
  config: a({ oc: unk(T.String) }),
  planned: a({ oc: s('y') }),
  want: ['.oc: planned value cty.StringVal("y") does not match config value cty.UnknownVal(cty.String) nor prior value cty.StringVal("p")'],
});
check({
  scenario: 'A value planned for an unset non-computed attribute is reported with the planned value.',
  schema: A,
  config: a({}),
  planned: a({ opt: s('x') }),
  want: ['.opt: planned value cty.StringVal("x") for a non-computed attribute'],
});
check({
  scenario: 'A value planned for an unset sensitive non-computed attribute hides the value.',
  schema: A,
  config: a({}),
  planned: a({ sopt: s('x') }),
  want: ['.sopt: sensitive planned value for a non-computed attribute'],
});
check({
  scenario: 'A changed value without a prior is reported against the config value.',
  schema: A,
  config: a({ opt: s('a') }),
  planned: a({ opt: s('b') }),
  want: ['.opt: planned value cty.StringVal("b") does not match config value cty.StringVal("a")'],
});
check({
  scenario: 'A changed sensitive value without a prior hides both values.',
  schema: A,
  config: a({ sopt: s('a') }),
  planned: a({ sopt: s('b') }),
  want: ['.sopt: sensitive planned value does not match config value'],
});
check({
  scenario: 'A changed value with a prior is reported against config and prior.',
  schema: A,
  prior: a({ opt: s('p') }),
  config: a({ opt: s('a') }),
  planned: a({ opt: s('b') }),
  want: ['.opt: planned value cty.StringVal("b") does not match config value cty.StringVal("a") nor prior value cty.StringVal("p")'],
});
check({
  scenario: 'A changed sensitive value with a prior hides all three values.',
  schema: A,
  prior: a({ sopt: s('p') }),
  config: a({ sopt: s('a') }),
  planned: a({ sopt: s('b') }),
  want: ['.sopt: sensitive planned value does not match config value nor prior value'],
});
check({
  scenario: 'A write-only attribute must be planned null even when configured.',
  schema: A,
  config: a({ wo: s('secret') }),
  planned: a({ wo: s('other') }),
  want: ['.wo: planned value for write-only attribute is not null'],
});
check({
  scenario: 'A write-only attribute planned null is valid.',
  schema: A,
  config: a({ wo: s('secret') }),
  planned: a({ wo: nul(T.String) }),
  want: [],
});
check({
  scenario: 'Several invalid attributes are all reported, in attribute-name order.',
  schema: A,
  config: a({}),
  planned: a({ opt: s('x'), name: s('changed') }),
  want: ['.name: planned value cty.StringVal("changed") does not match config value cty.StringVal("n")', '.opt: planned value cty.StringVal("x") for a non-computed attribute'],
});

// ---- the object itself (§3.1) -----------------------------------------------------------------------------------

check({
  scenario: 'A null plan for a non-null config is planned for absence at the root.',
  schema: A,
  config: a({}),
  planned: nul(a({}).type),
  want: ['planned for absence but config wants existence'],
});
check({
  scenario: 'A non-null plan for a null config is planned for existence at the root.',
  schema: A,
  config: nul(a({}).type),
  planned: a({}),
  want: ['planned for existence but config wants absence'],
});

// ---- nested blocks (§3.1, §3.2) -------------------------------------------------------------------------------

const inner = blk({ v: opt(T.String), c: comp(T.String) });
const IT = fill(inner).type;
const i = (v?: string, c?: string) => fill(inner, { ...(v !== undefined ? { v: s(v) } : {}), ...(c !== undefined ? { c: s(c) } : {}) });
const B = blk({}, { one: nb('single', inner), grp: nb('group', inner), l: nb('list', inner), m: nb('map', inner), st: nb('set', inner) });
const bv = (o: Record<string, Value>) => fill(B, { grp: i(), ...o });

check({
  scenario: 'Planning a value for an unknown dynamic single block is reported with the planned value.',
  schema: B,
  config: bv({ one: unk(IT) }),
  planned: bv({ one: i('x') }),
  want: ['.one: planned value cty.ObjectVal(map[string]cty.Value{"c":cty.NullVal(cty.String), "v":cty.StringVal("x")}) for unknown dynamic block'],
});
check({
  scenario: 'An unknown dynamic block planned unknown is valid.',
  schema: B,
  config: bv({ l: unk(T.List(IT)) }),
  planned: bv({ l: unk(T.List(IT)) }),
  want: [],
});
check({
  scenario: 'A configured block planned as unknown is reported.',
  schema: B,
  config: bv({ l: list(IT, i('a')) }),
  planned: bv({ l: unk(T.List(IT)) }),
  want: ['.l: attribute representing nested block must not be unknown itself; set nested attribute values to unknown instead'],
});
check({
  scenario: 'A single block dropped by the plan is planned for absence at the block path.',
  schema: B,
  config: bv({ one: i('a') }),
  planned: bv({}),
  want: ['.one: planned for absence but config wants existence'],
});
check({
  scenario: 'A single block added by the plan is planned for existence at the block path.',
  schema: B,
  config: bv({}),
  planned: bv({ one: i() }),
  want: ['.one: planned for existence but config wants absence'],
});
check({
  scenario: 'Attributes inside a group block are checked with the block path.',
  schema: B,
  config: bv({ grp: i('a') }),
  planned: bv({ grp: i('b', 'c') }),
  want: ['.grp.v: planned value cty.StringVal("b") does not match config value cty.StringVal("a")'],
});
check({
  scenario: 'A null list of blocks in the plan is reported.',
  schema: B,
  config: bv({ l: list(IT, i('a')) }),
  planned: bv({ l: nul(T.List(IT)) }),
  want: ['.l: attribute representing a list of nested blocks must be empty to indicate no blocks, not null'],
});
check({
  scenario: 'A list of blocks with a different length is reported with both counts.',
  schema: B,
  config: bv({ l: list(IT, i('a')) }),
  planned: bv({ l: list(IT, i('a'), i('b')) }),
  want: ['.l: block count in plan (2) disagrees with count in config (1)'],
});
check({
  scenario: 'A null list of blocks in config (legacy ignore_changes) counts as empty.',
  schema: B,
  config: bv({ l: nul(T.List(IT)) }),
  planned: bv({ l: list(IT, i('a')) }),
  want: ['.l: block count in plan (1) disagrees with count in config (0)'],
});
check({
  scenario: 'An unknown element in a planned list of blocks is reported at its index.',
  schema: B,
  config: bv({ l: list(IT, i('a'), i('b')) }),
  planned: bv({ l: list(IT, i('a'), unk(IT)) }),
  want: ['.l[1]: element representing nested block must not be unknown itself; set nested attribute values to unknown instead'],
});
check({
  scenario: 'Attributes inside list blocks are checked against the config and prior element at the same index.',
  schema: B,
  prior: bv({ l: list(IT, i('p0', 'c0')) }),
  config: bv({ l: list(IT, i('a'), i('b')) }),
  planned: bv({ l: list(IT, i('x', 'c0'), i('b', 'new')) }),
  want: ['.l[0].v: planned value cty.StringVal("x") does not match config value cty.StringVal("a") nor prior value cty.StringVal("p0")'],
});
check({
  scenario: 'A null map of blocks in the plan is reported.',
  schema: B,
  config: bv({ m: map(IT, { a: i('a') }) }),
  planned: bv({ m: nul(T.Map(IT)) }),
  want: ['.m: attribute representing a map of nested blocks must be empty to indicate no blocks, not null'],
});
check({
  scenario: 'A map of blocks with a different number of keys is reported with both counts.',
  schema: B,
  config: bv({ m: map(IT, { a: i('a') }) }),
  planned: bv({ m: map(IT, {}) }),
  want: ['.m: block count in plan (0) disagrees with count in config (1)'],
});
check({
  scenario: 'A map of blocks with a renamed key reports the planned key at its element path and the config key at the block.',
  schema: B,
  config: bv({ m: map(IT, { a: i('a') }) }),
  planned: bv({ m: map(IT, { b: i('a') }) }),
  want: ['.m["b"]: block key "b" from plan is not present in config', '.m: block key "a" from config is not present in plan'],
});
check({
  scenario: 'An unknown element of a map of blocks is reported at its key; attributes of other elements are checked by key.',
  schema: B,
  config: bv({ m: map(IT, { a: i('a'), b: i('b') }) }),
  planned: bv({ m: map(IT, { a: unk(IT), b: i('z') }) }),
  want: [
    '.m["a"]: element representing nested block must not be unknown itself; set nested attribute values to unknown instead',
    '.m["b"].v: planned value cty.StringVal("z") does not match config value cty.StringVal("b")',
  ],
});
check({
  scenario: 'A null set of blocks in the plan is reported.',
  schema: B,
  config: bv({ st: set(IT, i('a')) }),
  planned: bv({ st: nul(T.Set(IT)) }),
  want: ['.st: attribute representing a set of nested blocks must be empty to indicate no blocks, not null'],
});
check({
  scenario: 'An unknown element in a planned set of blocks is reported at an unknown key.',
  schema: B,
  config: bv({ st: set(IT, i('a')) }),
  planned: bv({ st: set(IT, unk(IT)) }),
  want: ['.st[(not yet known)]: element representing nested block must not be unknown itself; set nested attribute values to unknown instead'],
});
check({
  scenario: 'Set blocks are otherwise trusted: a different count and changed contents are not reported.',
  schema: B,
  config: bv({ st: set(IT, i('a')) }),
  planned: bv({ st: set(IT, i('b', 'x'), i('c')) }),
  want: [],
});

const dyn = blk({ any: opt(T.Dynamic) });
const BD = blk({}, { m: nb('map', dyn) });
check({
  scenario: 'An object-typed map of blocks reports keys with attribute steps and no count message.',
  schema: BD,
  config: obj({ m: obj({ a: obj({ any: s('x') }), b: obj({ any: n(1) }) }) }),
  planned: obj({ m: obj({ a: unk(obj({ any: s('x') }).type), c: obj({ any: n(1) }) }) }),
  want: [
    '.m.a: element representing nested block must not be unknown itself; set nested attribute values to unknown instead',
    '.m: block key "c" from plan is not present in config',
    '.m: block key "b" from config is not present in plan',
  ],
});
check({
  scenario: 'Attributes inside an object-typed map of blocks are checked with attribute-step paths.',
  schema: BD,
  config: obj({ m: obj({ a: obj({ any: s('x') }) }) }),
  planned: obj({ m: obj({ a: obj({ any: s('y') }) }) }),
  want: ['.m.a.any: planned value cty.StringVal("y") does not match config value cty.StringVal("x")'],
});

// ---- nested attribute types (§3.4) ------------------------------------------------------------------------------

const natt = { v: opt(T.String), c: comp(T.String) };
const N = blk({ one: nested('single', natt), many: nested('list', natt), keyed: nested('map', natt), bag: nested('set', natt) });
const NT = obj({ c: nul(T.String), v: nul(T.String) }).type;
const e = (v?: string, c?: string) => obj({ v: v === undefined ? nul(T.String) : s(v), c: c === undefined ? nul(T.String) : s(c) });

check({
  scenario: 'A configured nested attribute planned null is planned for absence.',
  schema: N,
  config: fill(N, { one: e('a') }),
  planned: fill(N, { one: nul(NT) }),
  want: ['.one: planned for absence but config wants existence'],
});
check({
  scenario: 'An unset nested attribute planned non-null is reported with the planned value (non-computed attribute rule).',
  schema: N,
  config: fill(N),
  planned: fill(N, { one: e('a') }),
  want: ['.one: planned value cty.ObjectVal(map[string]cty.Value{"c":cty.NullVal(cty.String), "v":cty.StringVal("a")}) for a non-computed attribute'],
});
check({
  scenario: 'A configured nested attribute planned unknown is reported.',
  schema: N,
  config: fill(N, { one: e('a') }),
  planned: fill(N, { one: unk(NT) }),
  want: ['.one: planned unknown for configured value'],
});
check({
  scenario: 'A single nested attribute may fill in its computed inner attributes but not change configured ones.',
  schema: N,
  config: fill(N, { one: e('a') }),
  planned: fill(N, { one: e('b', 'computed') }),
  want: ['.one.v: planned value cty.StringVal("b") does not match config value cty.StringVal("a")'],
});
check({
  scenario: 'A list nested attribute with a different length reports both lengths as cty values.',
  schema: N,
  config: fill(N, { many: list(NT, e('a')) }),
  planned: fill(N, { many: list(NT, e('a'), e('b')) }),
  want: ['.many: count in plan (cty.NumberIntVal(2)) disagrees with count in config (cty.NumberIntVal(1))'],
});
check({
  scenario: 'A known list nested attribute planned for an unknown config list reports the unknown length with its range.',
  schema: N,
  config: fill(N, { many: unk(T.List(NT)) }),
  planned: fill(N, { many: list(NT, e('a')) }),
  want: [
    '.many: count in plan (cty.NumberIntVal(1)) disagrees with count in config (cty.UnknownVal(cty.Number).Refine().NotNull().NumberLowerBound(cty.NumberIntVal(0), true).NumberUpperBound(cty.NumberIntVal(9.223372036854775807e+18), true).NewValue())',
  ],
});
check({
  scenario: 'List nested attribute elements are checked by index against config and prior.',
  schema: N,
  prior: fill(N, { many: list(NT, e('p', 'c0')) }),
  config: fill(N, { many: list(NT, e('a'), e('b')) }),
  planned: fill(N, { many: list(NT, e('a', 'c0'), e('x')) }),
  want: ['.many[1].v: planned value cty.StringVal("x") does not match config value cty.StringVal("b")'],
});
check({
  scenario: 'A map nested attribute with a renamed key reports the keys at the attribute path.',
  schema: N,
  config: fill(N, { keyed: map(NT, { a: e('a') }) }),
  planned: fill(N, { keyed: map(NT, { b: e('a') }) }),
  want: ['.keyed: map key "b" from plan is not present in config', '.keyed: map key "a" from config is not present in plan'],
});
check({
  scenario: 'Map nested attribute elements are checked with an attribute step for the key.',
  schema: N,
  config: fill(N, { keyed: map(NT, { a: e('a') }) }),
  planned: fill(N, { keyed: map(NT, { a: e('z') }) }),
  want: ['.keyed.a.v: planned value cty.StringVal("z") does not match config value cty.StringVal("a")'],
});
check({
  scenario: 'A map nested attribute with a different size reports the counts.',
  schema: N,
  config: fill(N, { keyed: map(NT, { a: e('a') }) }),
  planned: fill(N, { keyed: map(NT, { a: e('a'), b: e('b') }) }),
  want: ['.keyed: count in plan (cty.NumberIntVal(2)) disagrees with count in config (cty.NumberIntVal(1))'],
});
check({
  scenario: 'A set nested attribute whose known planned length differs from the config length is reported.',
  schema: N,
  config: fill(N, { bag: set(NT, e('a')) }),
  planned: fill(N, { bag: set(NT, e('a'), e('b')) }),
  want: ['.bag: count in plan (cty.NumberIntVal(2)) disagrees with count in config (cty.NumberIntVal(1))'],
});
check({
  scenario: 'A set nested attribute with unknown elements that might coalesce is accepted, and contents are not checked.',
  schema: N,
  config: fill(N, { bag: set(NT, e('a')) }),
  planned: fill(N, { bag: set(NT, obj({ v: unk(T.String), c: s('x') }), obj({ v: unk(T.String), c: s('y') })) }),
  want: [],
});
check({
  scenario: 'A set nested attribute whose planned range [1, 2] excludes the config length 3 is reported with the range.',
  schema: N,
  config: fill(N, { bag: set(NT, e('a'), e('b'), e('c')) }),
  planned: fill(N, { bag: set(NT, obj({ v: unk(T.String), c: s('x') }), obj({ v: unk(T.String), c: s('y') })) }),
  want: [
    '.bag: count in plan (cty.UnknownVal(cty.Number).Refine().NotNull().NumberLowerBound(cty.NumberIntVal(1), true).NumberUpperBound(cty.NumberIntVal(2), true).NewValue()) disagrees with count in config (cty.NumberIntVal(3))',
  ],
});

// ---- diagnostics (§3.5, §8) -----------------------------------------------------------------------------------

test('Each plan error becomes a "Provider produced invalid plan" diagnostic naming the provider FQN and the prefixed path.', () => {
  const errs = assertPlanValid(A, Value.null(a({}).type), a({ opt: s('a') }), a({ opt: s('b') }));
  const root = assertPlanValid(A, Value.null(a({}).type), a({}), Value.null(a({}).type));
  const diags = invalidPlanDiagnostics([...errs, ...root], 'registry.terraform.io/hashicorp/aws', 'aws_instance.web');
  assert.deepEqual(
    diags.map((d) => [d.severity, d.summary, d.detail]),
    [
      [
        'error',
        'Provider produced invalid plan',
        'Provider "registry.terraform.io/hashicorp/aws" planned an invalid value for aws_instance.web.opt: planned value cty.StringVal("b") does not match config value cty.StringVal("a").\n\nThis is a bug in the provider, which should be reported in the provider\'s own issue tracker.',
      ],
      [
        'error',
        'Provider produced invalid plan',
        'Provider "registry.terraform.io/hashicorp/aws" planned an invalid value for aws_instance.web: planned for absence but config wants existence.\n\nThis is a bug in the provider, which should be reported in the provider\'s own issue tracker.',
      ],
    ],
  );
});

test('A legacy-SDK provider gets a warning log line listing every problem instead of diagnostics.', () => {
  const errs = assertPlanValid(A, Value.null(a({}).type), a({ opt: s('a') }), a({ opt: s('b') }));
  assert.equal(
    legacyInvalidPlanWarning(errs, 'registry.terraform.io/hashicorp/aws', 'aws_instance.web'),
    '[WARN] Provider "registry.terraform.io/hashicorp/aws" produced an invalid plan for aws_instance.web, but we are tolerating it because it is using the legacy plugin SDK.\n    The following problems may be the cause of any confusing errors from downstream operations:\n      - .opt: planned value cty.StringVal("b") does not match config value cty.StringVal("a")',
  );
});
