// Tests for server/plans/objchange/compatible.ts: AssertObjectCompatible, one scenario per rule and message
// of the reference (terraform-contracts.md §4) for every nesting mode, with the exact texts as FormatError
// prints them, and the "inconsistent result after apply" / "inconsistent final plan" diagnostics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import { formatError } from '../../../server/providers/path';
import type { Block } from '../../../server/providers/schema';
import {
  assertObjectCompatible,
  inconsistentFinalPlanDiagnostics,
  inconsistentResultDiagnostics,
  legacyInconsistentResultWarning,
} from '../../../server/plans/objchange/compatible';
import { blk, comp, fill, list, map, n, nb, nested, nul, num, obj, opt, optComp, s, set, unk } from './_helpers';

interface Case {
  scenario: string;
  schema: Block;
  planned: Value;
  actual: Value;
  want: string[];
}

function check(c: Case): void {
  test(c.scenario, () => {
    assert.deepEqual(assertObjectCompatible(c.schema, c.planned, c.actual).map(formatError), c.want);
  });
}

// ---- object level and attributes (§4.1, §4.3) ---------------------------------------------------------------------

const A = blk({
  v: opt(T.String),
  num: optComp(T.Number),
  id: comp(T.String),
  secret: opt(T.String, { sensitive: true }),
  tags: opt(T.Map(T.String)),
  ports: opt(T.List(T.Number)),
  cidrs: opt(T.Set(T.String)),
  any: opt(T.Dynamic),
  o: opt(T.Obj({ x: T.String })),
});
const a = (o: Record<string, Value> = {}) => fill(A, o);

check({ scenario: 'An identical result is compatible.', schema: A, planned: a({ v: s('x') }), actual: a({ v: s('x') }), want: [] });
check({
  scenario: 'A null plan with a non-null result is reported at the root.',
  schema: A,
  planned: nul(a().type),
  actual: a(),
  want: ['Root object was absent, but now present'],
});
check({
  scenario: 'A non-null plan with a null result is reported at the root.',
  schema: A,
  planned: a(),
  actual: nul(a().type),
  want: ['Root object was present, but now absent'],
});
check({ scenario: 'Both null is compatible.', schema: A, planned: nul(a().type), actual: nul(a().type), want: [] });
check({
  scenario: 'An unknown planned value may become any value of its type.',
  schema: A,
  planned: a({ id: unk(T.String), num: unk(T.Number) }),
  actual: a({ id: s('i-1'), num: n(3) }),
  want: [],
});
check({
  scenario: 'An unknown planned value refined not-null cannot become null.',
  schema: A,
  planned: a({ id: unk(T.String, { notNull: true }) }),
  actual: a(),
  want: ['.id: final value cty.NullVal(cty.String) does not conform to planning placeholder cty.UnknownVal(cty.String).RefineNotNull()'],
});
check({
  scenario: 'An unknown planned string refined with a prefix must keep the prefix.',
  schema: A,
  planned: a({ id: unk(T.String, { notNull: true, stringPrefix: 'i-' }) }),
  actual: a({ id: s('x-1') }),
  want: ['.id: final value cty.StringVal("x-1") does not conform to planning placeholder cty.UnknownVal(cty.String).Refine().NotNull().StringPrefixFull("i-").NewValue()'],
});
check({
  scenario: 'An unknown planned number refined with bounds must stay within them.',
  schema: A,
  planned: a({ num: unk(T.Number, { numberLower: { value: num(1), inclusive: true }, numberUpper: { value: num(10), inclusive: false } }) }),
  actual: a({ num: n(10) }),
  want: ['.num: final value cty.NumberIntVal(10) does not conform to planning placeholder cty.UnknownVal(cty.Number).Refine().NumberLowerBound(cty.NumberIntVal(1), true).NumberUpperBound(cty.NumberIntVal(10), false).NewValue()'],
});
check({
  scenario: 'An unknown planned collection refined with length bounds must stay within them.',
  schema: A,
  planned: a({ ports: unk(T.List(T.Number), { notNull: true, lengthLower: 2 }) }),
  actual: a({ ports: list(T.Number, n(1)) }),
  want: ['.ports: final value cty.ListVal([]cty.Value{cty.NumberIntVal(1)}) does not conform to planning placeholder cty.UnknownVal(cty.List(cty.Number)).Refine().NotNull().CollectionLengthLowerBound(2).NewValue()'],
});
check({
  scenario: 'A known planned value that became null is reported with the planned value.',
  schema: A,
  planned: a({ v: s('x') }),
  actual: a(),
  want: ['.v: was cty.StringVal("x"), but now null'],
});
check({
  scenario: 'A null planned value that became non-null is reported with the new value.',
  schema: A,
  planned: a(),
  actual: a({ v: s('x') }),
  want: ['.v: was null, but now cty.StringVal("x")'],
});
check({
  scenario: 'A known planned value that became unknown is reported.',
  schema: A,
  planned: a({ v: s('x') }),
  actual: a({ v: unk(T.String) }),
  want: ['.v: was known, but now unknown'],
});
check({
  scenario: 'A changed primitive value is reported with both values; numbers compare by value.',
  schema: A,
  planned: a({ v: s('prod'), num: n(1.5) }),
  actual: a({ v: s('Prod'), num: n(1.5) }),
  want: ['.v: was cty.StringVal("prod"), but now cty.StringVal("Prod")'],
});
check({
  scenario: 'A changed number is rendered as NumberIntVal or NumberFloatVal.',
  schema: A,
  planned: a({ num: n(1000000) }),
  actual: a({ num: n(0.25) }),
  want: ['.num: was cty.NumberIntVal(1e+06), but now cty.NumberFloatVal(0.25)'],
});
check({
  scenario: 'A value of the wrong type is reported with cty\'s mismatch message.',
  schema: A,
  planned: a({ v: s('x') }),
  actual: obj({ ...Object.fromEntries(a({ v: s('x') }).entries), v: n(1) }),
  want: ['.v: wrong final value type: string required'],
});
check({
  scenario: 'A dynamically-typed planned value accepts anything.',
  schema: A,
  planned: a({ any: unk(T.Dynamic) }),
  actual: a({ any: obj({ k: n(1) }) }),
  want: [],
});
check({
  scenario: 'Map elements that vanished or appeared are reported with quoted keys; changed elements at their key path.',
  schema: A,
  planned: a({ tags: map(T.String, { env: s('prod'), gone: s('g') }) }),
  actual: a({ tags: map(T.String, { env: s('Prod'), added: s('a') }) }),
  want: ['.tags["env"]: was cty.StringVal("prod"), but now cty.StringVal("Prod")', '.tags: element "gone" has vanished', '.tags: new element "added" has appeared'],
});
check({
  scenario: 'List elements that vanished or appeared are reported with plain indexes.',
  schema: A,
  planned: a({ ports: list(T.Number, n(1), n(2), n(3)) }),
  actual: a({ ports: list(T.Number, n(1), n(5)) }),
  want: ['.ports[1]: was cty.NumberIntVal(2), but now cty.NumberIntVal(5)', '.ports: element 2 has vanished'],
});
check({
  scenario: 'A new list element is reported as appeared.',
  schema: A,
  planned: a({ ports: list(T.Number, n(1)) }),
  actual: a({ ports: list(T.Number, n(1), n(2)) }),
  want: ['.ports: new element 1 has appeared'],
});
check({
  scenario: 'An object attribute is compared attribute by attribute.',
  schema: A,
  planned: a({ o: obj({ x: s('a') }) }),
  actual: a({ o: obj({ x: s('b') }) }),
  want: ['.o.x: was cty.StringVal("a"), but now cty.StringVal("b")'],
});
check({
  scenario: 'A set element with an unknown may become a known element.',
  schema: A,
  planned: a({ cidrs: set(T.String, s('a'), unk(T.String)) }),
  actual: a({ cidrs: set(T.String, s('a'), s('b')) }),
  want: [],
});
check({
  scenario: 'A planned set element with no equivalent is reported first, in full, at the set path.',
  schema: A,
  planned: a({ cidrs: set(T.String, s('a'), s('b')) }),
  actual: a({ cidrs: set(T.String, s('a'), s('c')) }),
  want: ['.cidrs: planned set element cty.StringVal("b") does not correlate with any element in actual'],
});
check({
  scenario: 'An extra actual set element is reported, and the growth of the set as a length change.',
  schema: A,
  planned: a({ cidrs: set(T.String, s('a')) }),
  actual: a({ cidrs: set(T.String, s('a'), s('c')) }),
  want: ['.cidrs: actual set element cty.StringVal("c") does not correlate with any element in plan', '.cidrs: length changed from 1 to 2'],
});
check({
  scenario: 'Two planned unknown set elements that became one known element coalesce without error.',
  schema: A,
  planned: a({ cidrs: set(T.String, unk(T.String), unk(T.String)) }),
  actual: a({ cidrs: set(T.String, s('a')) }),
  want: [],
});
check({
  scenario: 'A schema-sensitive attribute reports one vague error instead of its values.',
  schema: A,
  planned: a({ secret: s('a') }),
  actual: a({ secret: s('b') }),
  want: ['.secret: inconsistent values for sensitive attribute'],
});
check({
  scenario: 'An attribute marked sensitive (by a variable) also reports the vague error.',
  schema: A,
  planned: a({ v: s('a').mark('sensitive') }),
  actual: a({ v: s('b') }),
  want: ['.v: inconsistent values for sensitive attribute'],
});
check({
  scenario: 'Marks alone do not make values incompatible.',
  schema: A,
  planned: a({ tags: map(T.String, { k: s('a').mark('sensitive') }) }),
  actual: a({ tags: map(T.String, { k: s('a') }) }),
  want: [],
});

// ---- nested attribute types are plain values (§4.1 step 4) --------------------------------------------------------

const natt = { v: opt(T.String), c: comp(T.String) };
const N = blk({ one: nested('single', natt), many: nested('list', natt), bag: nested('set', natt) });
const NT = obj({ c: nul(T.String), v: nul(T.String) }).type;
const e = (v?: Value, c?: Value) => obj({ v: v ?? nul(T.String), c: c ?? nul(T.String) });
check({
  scenario: 'A single nested attribute is compared structurally, down to its inner attributes.',
  schema: N,
  planned: fill(N, { one: e(s('a'), unk(T.String)) }),
  actual: fill(N, { one: e(s('b'), s('c')) }),
  want: ['.one.v: was cty.StringVal("a"), but now cty.StringVal("b")'],
});
check({
  scenario: 'A list nested attribute reports vanished elements like any list.',
  schema: N,
  planned: fill(N, { many: list(NT, e(s('a')), e(s('b'))) }),
  actual: fill(N, { many: list(NT, e(s('a'))) }),
  want: ['.many: element 1 has vanished'],
});
check({
  scenario: 'A set nested attribute correlates elements whose unknowns became known.',
  schema: N,
  planned: fill(N, { bag: set(NT, e(s('a'), unk(T.String))) }),
  actual: fill(N, { bag: set(NT, e(s('a'), s('x'))) }),
  want: [],
});
check({
  scenario: 'A set nested attribute element that changed a known value does not correlate and is rendered in full.',
  schema: N,
  planned: fill(N, { bag: set(NT, e(s('a'), unk(T.String))) }),
  actual: fill(N, { bag: set(NT, e(s('b'), s('x'))) }),
  want: ['.bag: planned set element cty.ObjectVal(map[string]cty.Value{"c":cty.UnknownVal(cty.String), "v":cty.StringVal("a")}) does not correlate with any element in actual'],
});

// ---- nested blocks (§4.1 step 5) ----------------------------------------------------------------------------------

const inner = blk({ v: opt(T.String), c: comp(T.String) });
const IT = fill(inner).type;
const i = (v?: string, c?: Value) => fill(inner, { ...(v !== undefined ? { v: s(v) } : {}), ...(c ? { c } : {}) });
const B = blk({}, { one: nb('single', inner), grp: nb('group', inner), l: nb('list', inner), m: nb('map', inner), st: nb('set', inner) });
const bv = (o: Record<string, Value>) => fill(B, { grp: i(), ...o });

check({
  scenario: 'A single block that appeared is reported without the root prefix.',
  schema: B,
  planned: bv({}),
  actual: bv({ one: i('a') }),
  want: ['.one: was absent, but now present'],
});
check({
  scenario: 'A single block that vanished is reported without the root prefix.',
  schema: B,
  planned: bv({ one: i('a') }),
  actual: bv({}),
  want: ['.one: was present, but now absent'],
});
check({
  scenario: 'An unknown single block (dynamic block) may expand to nothing.',
  schema: B,
  planned: bv({ one: unk(IT) }),
  actual: bv({}),
  want: [],
});
check({
  scenario: 'Attributes inside a group block are checked with the block path.',
  schema: B,
  planned: bv({ grp: i('a', unk(T.String)) }),
  actual: bv({ grp: i('b', s('c')) }),
  want: ['.grp.v: was cty.StringVal("a"), but now cty.StringVal("b")'],
});
check({
  scenario: 'A list of blocks whose length changed reports both counts.',
  schema: B,
  planned: bv({ l: list(IT, i('a')) }),
  actual: bv({ l: list(IT, i('a'), i('b')) }),
  want: ['.l: block count changed from 1 to 2'],
});
check({
  scenario: 'Attributes of list blocks are checked per index.',
  schema: B,
  planned: bv({ l: list(IT, i('a', unk(T.String))) }),
  actual: bv({ l: list(IT, i('a', s('x'))) }),
  want: [],
});
check({
  scenario: 'List and set blocks are skipped when the plan had them unknown or the result is null.',
  schema: B,
  planned: bv({ l: unk(T.List(IT)), st: set(IT, i('a')) }),
  actual: bv({ l: list(IT, i('a'), i('b')), st: nul(T.Set(IT)) }),
  want: [],
});
check({
  scenario: 'A map of blocks whose size changed reports both counts.',
  schema: B,
  planned: bv({ m: map(IT, { a: i('a') }) }),
  actual: bv({ m: map(IT, { a: i('a'), b: i('b') }) }),
  want: ['.m: block count changed from 1 to 2'],
});
check({
  scenario: 'Map block elements are compared by key with index-step paths.',
  schema: B,
  planned: bv({ m: map(IT, { a: i('a') }) }),
  actual: bv({ m: map(IT, { a: i('z') }) }),
  want: ['.m["a"].v: was cty.StringVal("a"), but now cty.StringVal("z")'],
});
check({
  scenario: 'A set block element whose known value changed does not correlate.',
  schema: B,
  planned: bv({ st: set(IT, i('a', unk(T.String))) }),
  actual: bv({ st: set(IT, i('b', s('x'))) }),
  want: ['.st: planned set element cty.ObjectVal(map[string]cty.Value{"c":cty.UnknownVal(cty.String), "v":cty.StringVal("a")}) does not correlate with any element in actual'],
});
check({
  scenario: 'A set block that grew reports the new element and the length change.',
  schema: B,
  planned: bv({ st: set(IT, i('a', unk(T.String))) }),
  actual: bv({ st: set(IT, i('a', s('x')), i('a', s('y'))) }),
  want: ['.st: block set length changed from 1 to 2'],
});
check({
  scenario: 'A set block with an element no planned element covers reports the actual element.',
  schema: B,
  planned: bv({ st: set(IT, i('a')) }),
  actual: bv({ st: set(IT, i('a'), i('b')) }),
  want: [
    '.st: actual set element cty.ObjectVal(map[string]cty.Value{"c":cty.NullVal(cty.String), "v":cty.StringVal("b")}) does not correlate with any element in plan',
    '.st: block set length changed from 1 to 2',
  ],
});

const dyn = blk({ any: opt(T.Dynamic) });
const BD = blk({}, { m: nb('map', dyn) });
check({
  scenario: 'An object-typed map of blocks reports vanished and new keys, and recurses with attribute steps (a dynamic attribute keeps its planned concrete type).',
  schema: BD,
  planned: obj({ m: obj({ a: obj({ any: s('x') }), gone: obj({ any: s('g') }) }) }),
  actual: obj({ m: obj({ a: obj({ any: n(1) }), added: obj({ any: s('n') }) }) }),
  want: ['.m.a.any: wrong final value type: string required', '.m: block key "gone" has vanished', '.m: new block key "added" has appeared'],
});

// ---- diagnostics (§5.7, §5.8, §8) --------------------------------------------------------------------------------

const BUG = "This is a bug in the provider, which should be reported in the provider's own issue tracker.";
test('Apply-result incompatibilities become "Provider produced inconsistent result after apply" with the escaped provider configuration address.', () => {
  const S = blk({ tags: opt(T.Map(T.String)) });
  const errs = [
    ...assertObjectCompatible(S, fill(S, { tags: map(T.String, { env: s('prod') }) }), fill(S, { tags: map(T.String, { env: s('Prod') }) })),
    ...assertObjectCompatible(S, fill(S), nul(fill(S).type)),
  ];
  const diags = inconsistentResultDiagnostics(errs, 'aws_s3_bucket.b', 'provider["registry.terraform.io/hashicorp/aws"]');
  assert.deepEqual(
    diags.map((d) => [d.summary, d.detail]),
    [
      [
        'Provider produced inconsistent result after apply',
        `When applying changes to aws_s3_bucket.b, provider "provider[\\"registry.terraform.io/hashicorp/aws\\"]" produced an unexpected new value: .tags["env"]: was cty.StringVal("prod"), but now cty.StringVal("Prod").\n\n${BUG}`,
      ],
      [
        'Provider produced inconsistent result after apply',
        `When applying changes to aws_s3_bucket.b, provider "provider[\\"registry.terraform.io/hashicorp/aws\\"]" produced an unexpected new value: Root object was present, but now absent.\n\n${BUG}`,
      ],
    ],
  );
});

test('Final-plan incompatibilities become "Provider produced inconsistent final plan" naming the provider FQN.', () => {
  const errs = assertObjectCompatible(A, a({ v: s('x') }), a({ v: s('y') }));
  const diags = inconsistentFinalPlanDiagnostics(errs, 'aws_instance.web', 'registry.terraform.io/hashicorp/aws');
  assert.deepEqual(
    diags.map((d) => [d.severity, d.summary, d.detail]),
    [
      [
        'error',
        'Provider produced inconsistent final plan',
        `When expanding the plan for aws_instance.web to include new values learned so far during apply, provider "registry.terraform.io/hashicorp/aws" produced an invalid new value for .v: was cty.StringVal("x"), but now cty.StringVal("y").\n\n${BUG}`,
      ],
    ],
  );
});

test('A legacy-SDK provider gets a warning log line for an inconsistent apply result.', () => {
  const errs = assertObjectCompatible(A, a({ v: s('x') }), a({ v: s('y') }));
  assert.equal(
    legacyInconsistentResultWarning(errs, 'provider["registry.terraform.io/hashicorp/aws"]', 'aws_instance.web'),
    '[WARN] Provider "provider[\\"registry.terraform.io/hashicorp/aws\\"]" produced an unexpected new value for aws_instance.web, but we are tolerating it because it is using the legacy plugin SDK.\n    The following problems may be the cause of any confusing errors from downstream operations:\n      - .v: was cty.StringVal("x"), but now cty.StringVal("y")',
  );
});
