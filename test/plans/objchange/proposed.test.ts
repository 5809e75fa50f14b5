// Tests for server/plans/objchange/proposed.ts: ProposedNew and PlannedDataResourceObject, one scenario per
// rule of the reference (terraform-contracts.md §2) and per nesting mode, including the worked examples of §2.6a.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import { goString } from '../../../server/providers/gostring';
import type { Block } from '../../../server/providers/schema';
import { plannedDataResourceObject, proposedNew } from '../../../server/plans/objchange/proposed';
import { exactEq } from '../../../server/plans/objchange/values';
import { b, blk, comp, fill, list, map, n, nb, nested, nul, obj, opt, optComp, req, s, set, unk } from './_helpers';

// The schema of the reference's worked examples (§2.6a).
const disk = blk({ label: req(T.String), serial: comp(T.String) });
const rule = blk({ port: req(T.Number), rule_id: comp(T.String) });
const S = blk(
  { name: req(T.String), size: optComp(T.Number), id: comp(T.String), tags: opt(T.Map(T.String)), secret: opt(T.String, { writeOnly: true }) },
  { disk: nb('list', disk), rule: nb('set', rule) },
);
const diskT = T.List(fill(disk).type);
const ruleT = fill(rule).type;
const d = (label: string, serial?: string) => fill(disk, { label: s(label), ...(serial ? { serial: s(serial) } : {}) });
const r = (port: number, id?: string) => fill(rule, { port: n(port), ...(id ? { rule_id: s(id) } : {}) });
const prior1 = fill(S, { name: s('a'), size: n(3), id: s('i-1'), disk: list(fill(disk).type, d('x', 's1')) });

const tupleOf = (...es: Value[]) => Value.tuple(es);

interface Case {
  scenario: string;
  schema?: Block;
  prior: Value;
  config: Value;
  want: Value;
  data?: boolean;
}

function check(c: Case): void {
  test(c.scenario, () => {
    const schema = c.schema ?? S;
    const got = c.data ? plannedDataResourceObject(schema, c.config) : proposedNew(schema, c.prior, c.config);
    assert.ok(exactEq(got, c.want), `got  ${goString(got)}\nwant ${goString(c.want)}`);
  });
}

// ---- §2.1 top level and §2.6a worked examples ---------------------------------------------------------------

check({
  scenario: 'Creating with an optional+computed attribute unset proposes null for it and takes list blocks from config verbatim.',
  prior: nul(fill(S).type),
  config: fill(S, { name: s('a'), disk: list(fill(disk).type, d('x')) }),
  want: fill(S, { name: s('a'), disk: list(fill(disk).type, d('x')) }),
});
check({
  scenario: 'Updating keeps computed prior values and correlates list blocks by index even when a label changed.',
  prior: prior1,
  config: fill(S, { name: s('a'), disk: list(fill(disk).type, d('y')) }),
  want: fill(S, { name: s('a'), size: n(3), id: s('i-1'), disk: list(fill(disk).type, d('y', 's1')) }),
});
check({
  scenario: 'A configured optional+computed attribute wins over the prior value.',
  prior: prior1,
  config: fill(S, { name: s('a'), size: n(5), disk: list(fill(disk).type, d('x')) }),
  want: fill(S, { name: s('a'), size: n(5), id: s('i-1'), disk: list(fill(disk).type, d('x', 's1')) }),
});
check({
  scenario: 'An unknown configured optional+computed attribute counts as set and is proposed unknown.',
  prior: prior1,
  config: fill(S, { name: s('a'), size: unk(T.Number), disk: list(fill(disk).type, d('x')) }),
  want: fill(S, { name: s('a'), size: unk(T.Number), id: s('i-1'), disk: list(fill(disk).type, d('x', 's1')) }),
});
check({
  scenario: 'Set blocks are matched by their non-computed values, so the computed rule_id of port 443 is kept.',
  prior: fill(S, { name: s('a'), rule: set(ruleT, r(80, 'r1'), r(443, 'r2')) }),
  config: fill(S, { name: s('a'), rule: set(ruleT, r(443)) }),
  want: fill(S, { name: s('a'), rule: set(ruleT, r(443, 'r2')) }),
});
check({
  scenario: 'A set block element with no matching prior element gets a null prior, so its computed attributes are null.',
  prior: fill(S, { name: s('a'), rule: set(ruleT, r(80, 'r1'), r(443, 'r2')) }),
  config: fill(S, { name: s('a'), rule: set(ruleT, r(8443)) }),
  want: fill(S, { name: s('a'), rule: set(ruleT, r(8443)) }),
});
check({
  scenario: 'A non-computed attribute takes the config value even when it is null and the prior had one.',
  prior: fill(S, { name: s('a'), tags: map(T.String, { a: s('1') }) }),
  config: fill(S, { name: s('a') }),
  want: fill(S, { name: s('a') }),
});
check({
  scenario: 'With neither prior nor config the result is the null prior.',
  prior: nul(fill(S).type),
  config: nul(fill(S).type),
  want: nul(fill(S).type),
});
check({
  scenario: 'A null config with a non-null prior returns the prior unchanged.',
  prior: prior1,
  config: nul(fill(S).type),
  want: prior1,
});
check({
  scenario: 'A wholly unknown config returns the prior unchanged.',
  prior: prior1,
  config: unk(fill(S).type),
  want: prior1,
});
check({
  scenario: 'A write-only attribute is proposed from config like any non-computed attribute.',
  prior: prior1,
  config: fill(S, { name: s('a'), secret: s('pw'), disk: list(fill(disk).type, d('x')) }),
  want: fill(S, { name: s('a'), size: n(3), id: s('i-1'), secret: s('pw'), disk: list(fill(disk).type, d('x', 's1')) }),
});
check({
  scenario: 'A computed-only attribute set in config (ignore_changes) takes the config value.',
  prior: prior1,
  config: fill(S, { name: s('a'), id: s('forced'), disk: list(fill(disk).type, d('x')) }),
  want: fill(S, { name: s('a'), size: n(3), id: s('forced'), disk: list(fill(disk).type, d('x', 's1')) }),
});

// ---- §2.4 single and group blocks -----------------------------------------------------------------------------

const inner = blk({ v: opt(T.String), c: comp(T.String) });
const SG = blk({}, { one: nb('single', inner), grp: nb('group', inner) });
check({
  scenario: 'A single block removed from config is proposed null even though the prior had it.',
  schema: SG,
  prior: fill(SG, { one: fill(inner, { v: s('a'), c: s('c1') }), grp: fill(inner, { c: s('g') }) }),
  config: fill(SG, { grp: fill(inner) }),
  want: fill(SG, { grp: fill(inner, { c: s('g') }) }),
});
check({
  scenario: 'A single block added in config merges with the empty value, so its computed attributes are null.',
  schema: SG,
  prior: fill(SG, { grp: fill(inner) }),
  config: fill(SG, { one: fill(inner, { v: s('a') }), grp: fill(inner) }),
  want: fill(SG, { one: fill(inner, { v: s('a') }), grp: fill(inner) }),
});
check({
  scenario: 'A single block present in both keeps its computed prior attribute.',
  schema: SG,
  prior: fill(SG, { one: fill(inner, { v: s('a'), c: s('c1') }), grp: fill(inner) }),
  config: fill(SG, { one: fill(inner, { v: s('b') }), grp: fill(inner) }),
  want: fill(SG, { one: fill(inner, { v: s('b'), c: s('c1') }), grp: fill(inner) }),
});
check({
  scenario: 'An unknown single block (dynamic block with unknown for_each) is proposed unknown.',
  schema: SG,
  prior: fill(SG, { one: fill(inner, { v: s('a'), c: s('c1') }), grp: fill(inner) }),
  config: fill(SG, { one: unk(fill(inner).type), grp: fill(inner) }),
  want: fill(SG, { one: unk(fill(inner).type), grp: fill(inner) }),
});

// ---- §2.6 list blocks ---------------------------------------------------------------------------------------

const SL = blk({}, { disk: nb('list', disk) });
const DT = fill(disk).type;
check({
  scenario: 'List block elements beyond the prior length are taken from config verbatim and extra prior elements are dropped.',
  schema: SL,
  prior: fill(SL, { disk: list(DT, d('a', 's1')) }),
  config: fill(SL, { disk: list(DT, d('a'), d('b')) }),
  want: fill(SL, { disk: list(DT, d('a', 's1'), d('b')) }),
});
check({
  scenario: 'An empty list of blocks in config is proposed as the empty config list.',
  schema: SL,
  prior: fill(SL, { disk: list(DT, d('a', 's1')) }),
  config: fill(SL, { disk: list(DT) }),
  want: fill(SL, { disk: list(DT) }),
});
check({
  scenario: 'An unknown list block collection is proposed unknown.',
  schema: SL,
  prior: fill(SL, { disk: list(DT, d('a', 's1')) }),
  config: fill(SL, { disk: unk(diskT) }),
  want: fill(SL, { disk: unk(diskT) }),
});
check({
  scenario: 'An unknown list block element with a prior counterpart is replaced by the prior element.',
  schema: SL,
  prior: fill(SL, { disk: list(DT, d('a', 's1')) }),
  config: fill(SL, { disk: list(DT, unk(DT)) }),
  want: fill(SL, { disk: list(DT, d('a', 's1')) }),
});
const dynBlk = blk({ any: opt(T.Dynamic), c: comp(T.String) });
const SD = blk({}, { items: nb('list', dynBlk), byKey: nb('map', dynBlk) });
check({
  scenario: 'A list block with a dynamically-typed attribute is a tuple and stays a tuple after merging.',
  schema: SD,
  prior: obj({ items: tupleOf(obj({ any: s('x'), c: s('c0') })), byKey: obj({}) }),
  config: obj({ items: tupleOf(obj({ any: n(1), c: nul(T.String) }), obj({ any: b(true), c: nul(T.String) })), byKey: obj({}) }),
  want: obj({ items: tupleOf(obj({ any: n(1), c: s('c0') }), obj({ any: b(true), c: nul(T.String) })), byKey: obj({}) }),
});
check({
  scenario: 'A map block with a dynamically-typed attribute is an object keyed by block label and stays an object.',
  schema: SD,
  prior: obj({ items: tupleOf(), byKey: obj({ a: obj({ any: s('x'), c: s('ca') }) }) }),
  config: obj({ items: tupleOf(), byKey: obj({ a: obj({ any: s('y'), c: nul(T.String) }), b: obj({ any: n(2), c: nul(T.String) }) }) }),
  want: obj({ items: tupleOf(), byKey: obj({ a: obj({ any: s('y'), c: s('ca') }), b: obj({ any: n(2), c: nul(T.String) }) }) }),
});

// ---- §2.6 map blocks ----------------------------------------------------------------------------------------

const SM = blk({}, { disk: nb('map', disk) });
check({
  scenario: 'Map block elements are correlated by key: matched keys merge, new keys are verbatim, prior-only keys are dropped.',
  schema: SM,
  prior: fill(SM, { disk: map(DT, { a: d('a', 's1'), gone: d('g', 's2') }) }),
  config: fill(SM, { disk: map(DT, { a: d('a2'), b: d('b') }) }),
  want: fill(SM, { disk: map(DT, { a: d('a2', 's1'), b: d('b') }) }),
});
check({
  scenario: 'An empty map of blocks in config is proposed as is.',
  schema: SM,
  prior: fill(SM, { disk: map(DT, { a: d('a', 's1') }) }),
  config: fill(SM, { disk: map(DT, {}) }),
  want: fill(SM, { disk: map(DT, {}) }),
});

// ---- §2.6 set blocks ----------------------------------------------------------------------------------------

const SS = blk({}, { rule: nb('set', rule) });
check({
  scenario: 'When several prior set elements qualify, the first unused one is taken for each config element.',
  schema: SS,
  prior: fill(SS, { rule: set(ruleT, r(80, 'r1'), r(80, 'r2')) }),
  config: fill(SS, { rule: set(ruleT, r(80)) }),
  want: fill(SS, { rule: set(ruleT, r(80, 'r1')) }),
});
check({
  scenario: 'A set element whose config holds an unknown where the prior differs never matches, so computed values are null.',
  schema: SS,
  prior: fill(SS, { rule: set(ruleT, r(80, 'r1')) }),
  config: fill(SS, { rule: set(ruleT, fill(rule, { port: unk(T.Number) })) }),
  want: fill(SS, { rule: set(ruleT, fill(rule, { port: unk(T.Number) })) }),
});
const withNestedSet = blk({ port: req(T.Number), cidrs: opt(T.Set(T.String)), rid: comp(T.String) });
const SNS = blk({}, { rule: nb('set', withNestedSet) });
const NST = fill(withNestedSet).type;
check({
  scenario: 'Set elements containing a nested set only match when the nested sets are identical.',
  schema: SNS,
  prior: fill(SNS, { rule: set(NST, fill(withNestedSet, { port: n(1), cidrs: set(T.String, s('a')), rid: s('x') })) }),
  config: fill(SNS, { rule: set(NST, fill(withNestedSet, { port: n(1), cidrs: set(T.String, s('a'), s('b')) })) }),
  want: fill(SNS, { rule: set(NST, fill(withNestedSet, { port: n(1), cidrs: set(T.String, s('a'), s('b')) })) }),
});
check({
  scenario: 'Set elements with identical nested sets match and keep their computed values.',
  schema: SNS,
  prior: fill(SNS, { rule: set(NST, fill(withNestedSet, { port: n(1), cidrs: set(T.String, s('a')), rid: s('x') })) }),
  config: fill(SNS, { rule: set(NST, fill(withNestedSet, { port: n(1), cidrs: set(T.String, s('a')) })) }),
  want: fill(SNS, { rule: set(NST, fill(withNestedSet, { port: n(1), cidrs: set(T.String, s('a')), rid: s('x') })) }),
});

// ---- §2.5 nested attribute types ------------------------------------------------------------------------------

const natt = { v: opt(T.String), c: comp(T.String) };
const NA = blk({
  one: nested('single', natt),
  many: nested('list', natt),
  keyed: nested('map', natt),
  bag: nested('set', natt),
});
const NAT = obj({ v: nul(T.String), c: nul(T.String) }).type;
const e = (v?: string, c?: string) => obj({ v: v === undefined ? nul(T.String) : s(v), c: c === undefined ? nul(T.String) : s(c) });
check({
  scenario: 'A single nested attribute merges its computed inner attribute from the prior.',
  schema: NA,
  prior: fill(NA, { one: e('a', 'c1') }),
  config: fill(NA, { one: e('b') }),
  want: fill(NA, { one: e('b', 'c1') }),
});
check({
  scenario: 'A single nested attribute removed from config is proposed null.',
  schema: NA,
  prior: fill(NA, { one: e('a', 'c1') }),
  config: fill(NA),
  want: fill(NA),
});
check({
  scenario: 'A list nested attribute correlates by index; an unknown element with a prior counterpart becomes an object of unknowns.',
  schema: NA,
  prior: fill(NA, { many: list(NAT, e('a', 'c1'), e('b', 'c2')) }),
  config: fill(NA, { many: list(NAT, e('a'), unk(NAT), e('z')) }),
  want: fill(NA, { many: list(NAT, e('a', 'c1'), obj({ v: unk(T.String), c: unk(T.String) }), e('z')) }),
});
check({
  scenario: 'A null element of a list nested attribute stays null.',
  schema: NA,
  prior: fill(NA, { many: list(NAT, e('a', 'c1')) }),
  config: fill(NA, { many: list(NAT, nul(NAT)) }),
  want: fill(NA, { many: list(NAT, nul(NAT)) }),
});
check({
  scenario: 'A map nested attribute correlates by key.',
  schema: NA,
  prior: fill(NA, { keyed: map(NAT, { k: e('a', 'c1'), old: e('o', 'c0') }) }),
  config: fill(NA, { keyed: map(NAT, { k: e('a'), new: e('n') }) }),
  want: fill(NA, { keyed: map(NAT, { k: e('a', 'c1'), new: e('n') }) }),
});
check({
  scenario: 'A set nested attribute matches elements that differ only in computed attributes.',
  schema: NA,
  prior: fill(NA, { bag: set(NAT, e('a', 'c1'), e('b', 'c2')) }),
  config: fill(NA, { bag: set(NAT, e('b'), e('q')) }),
  want: fill(NA, { bag: set(NAT, e('b', 'c2'), e('q')) }),
});
check({
  scenario: 'An unknown set nested attribute element is merged as an object of unknowns.',
  schema: NA,
  prior: fill(NA, { bag: set(NAT, e('a', 'c1')) }),
  config: fill(NA, { bag: set(NAT, unk(NAT)) }),
  want: fill(NA, { bag: set(NAT, obj({ v: unk(T.String), c: unk(T.String) })) }),
});
check({
  scenario: 'An unknown nested attribute value is proposed unknown.',
  schema: NA,
  prior: fill(NA, { many: list(NAT, e('a', 'c1')) }),
  config: fill(NA, { many: unk(T.List(NAT)) }),
  want: fill(NA, { many: unk(T.List(NAT)) }),
});

const OC = blk({ oc: nested('single', natt, { optional: true, computed: true }), co: nested('single', { c: comp(T.String) }, { optional: false, computed: true }) });
check({
  scenario: 'An optional+computed nested attribute left unset whose prior holds a non-computed value is proposed null (it came from removed config).',
  schema: OC,
  prior: fill(OC, { oc: e('a', 'c1') }),
  config: fill(OC),
  want: fill(OC),
});
check({
  scenario: 'An optional+computed nested attribute left unset whose prior holds only computed values keeps the prior.',
  schema: OC,
  prior: fill(OC, { oc: e(undefined, 'c1') }),
  config: fill(OC),
  want: fill(OC, { oc: e(undefined, 'c1') }),
});
check({
  scenario: 'A computed-only nested attribute keeps its prior value.',
  schema: OC,
  prior: fill(OC, { co: obj({ c: s('x') }) }),
  config: fill(OC),
  want: fill(OC, { co: obj({ c: s('x') }) }),
});

// ---- §2.7 data sources ----------------------------------------------------------------------------------------

const DS = blk({ q: opt(T.String), out: comp(T.String) }, { l: nb('list', disk), st: nb('set', rule), m: nb('map', disk) });
check({
  scenario: 'A deferred data source read makes computed attributes unknown, also inside list blocks, but not inside set or map blocks.',
  schema: DS,
  data: true,
  prior: nul(),
  config: fill(DS, { q: s('x'), l: list(DT, d('a')), st: set(ruleT, r(1)), m: map(DT, { k: d('k') }) }),
  want: fill(DS, {
    q: s('x'),
    out: unk(T.String),
    l: list(DT, fill(disk, { label: s('a'), serial: unk(T.String) })),
    st: set(ruleT, r(1)),
    m: map(DT, { k: d('k') }),
  }),
});
