// Tests for server/providers/schema.ts: implied types (including dynamic list/map blocks), empty values,
// path lookups to attributes and Block.CoerceValue's behaviour and messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../server/lang/types';
import { Value } from '../../server/lang/value';
import { goString, goType } from '../../server/providers/gostring';
import { formatError, path } from '../../server/providers/path';
import type { Block } from '../../server/providers/schema';
import { attributeByPath, coerceValue, emptyValue, impliedType, nullObject, unknownObject } from '../../server/providers/schema';
import { blk, comp, nb, nested, obj, opt, req, s, list, n, map } from '../plans/objchange/_helpers';

const inner = blk({ v: opt(T.String) });
const dyn = blk({ any: opt(T.Dynamic) });
const S: Block = blk(
  { name: req(T.String), id: comp(T.String), na: nested('list', { x: opt(T.Number), deep: nested('single', { y: comp(T.String) }) }) },
  { one: nb('single', inner), grp: nb('group', inner), l: nb('list', inner), st: nb('set', inner), m: nb('map', inner), dl: nb('list', dyn), dm: nb('map', dyn) },
);

interface Case {
  scenario: string;
  run: () => unknown;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, () => assert.deepEqual(c.run(), c.want));
}

check({
  scenario: 'The implied type has one attribute per schema attribute and block type; dynamic list and map blocks are dynamic.',
  run: () => goType(impliedType(S)),
  want:
    'cty.Object(map[string]cty.Type{"dl":cty.DynamicPseudoType, "dm":cty.DynamicPseudoType, "grp":cty.Object(map[string]cty.Type{"v":cty.String}), "id":cty.String, "l":cty.List(cty.Object(map[string]cty.Type{"v":cty.String})), "m":cty.Map(cty.Object(map[string]cty.Type{"v":cty.String})), "na":cty.List(cty.Object(map[string]cty.Type{"deep":cty.Object(map[string]cty.Type{"y":cty.String}), "x":cty.Number})), "name":cty.String, "one":cty.Object(map[string]cty.Type{"v":cty.String}), "st":cty.Set(cty.Object(map[string]cty.Type{"v":cty.String}))})',
});
check({
  scenario: 'The empty value has null attributes, a null single block, an empty group, empty collections, and tuple/object for dynamic blocks.',
  run: () => goString(emptyValue(S)),
  want:
    'cty.ObjectVal(map[string]cty.Value{"dl":cty.EmptyTupleVal, "dm":cty.EmptyObjectVal, "grp":cty.ObjectVal(map[string]cty.Value{"v":cty.NullVal(cty.String)}), "id":cty.NullVal(cty.String), "l":cty.ListValEmpty(cty.Object(map[string]cty.Type{"v":cty.String})), "m":cty.MapValEmpty(cty.Object(map[string]cty.Type{"v":cty.String})), "na":cty.NullVal(cty.List(cty.Object(map[string]cty.Type{"deep":cty.Object(map[string]cty.Type{"y":cty.String}), "x":cty.Number}))), "name":cty.NullVal(cty.String), "one":cty.NullVal(cty.Object(map[string]cty.Type{"v":cty.String})), "st":cty.SetValEmpty(cty.Object(map[string]cty.Type{"v":cty.String}))})',
});
check({
  scenario: 'Null and unknown objects have the implied type.',
  run: () => [nullObject(inner).toString(), unknownObject(inner).toString()],
  want: ['null(object({\n    v: string,\n}))', 'unknown(object({\n    v: string,\n}))'],
});
check({
  scenario: 'attributeByPath follows blocks and nested attribute types, skips index steps, and stops at blocks.',
  run: () => [
    attributeByPath(S, path('name')) === S.attributes.name,
    attributeByPath(S, path('l', 0, 'v')) === inner.attributes.v,
    attributeByPath(S, path('na', 3, 'deep', 'y'))?.computed,
    attributeByPath(S, path('l')),
    attributeByPath(S, path('name', 'x')),
    attributeByPath(S, path('nope')),
  ],
  want: [true, true, true, undefined, undefined, undefined],
});
check({
  scenario: 'Coercion fills missing optional attributes with null and missing blocks with their empty value.',
  run: () => goString(coerceValue(blk({ a: opt(T.String), c: comp(T.Number) }, { l: nb('list', inner), g: nb('group', inner) }), obj({ a: s('x') })).value),
  want: 'cty.ObjectVal(map[string]cty.Value{"a":cty.StringVal("x"), "c":cty.NullVal(cty.Number), "g":cty.ObjectVal(map[string]cty.Value{"v":cty.NullVal(cty.String)}), "l":cty.ListValEmpty(cty.Object(map[string]cty.Type{"v":cty.String}))})',
});
check({
  scenario: 'Coercion coerces block elements and keeps map and set blocks typed.',
  run: () => {
    const b = blk({}, { l: nb('list', inner), m: nb('map', inner) });
    return goString(coerceValue(b, obj({ l: Value.tuple([obj({})]), m: obj({ k: obj({ v: s('a') }) }) })).value);
  },
  want: 'cty.ObjectVal(map[string]cty.Value{"l":cty.ListVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"v":cty.NullVal(cty.String)})}), "m":cty.ObjectVal(map[string]cty.Value{"k":cty.ObjectVal(map[string]cty.Value{"v":cty.StringVal("a")})})})',
});
check({
  scenario: 'Coercion of null and unknown gives null and unknown of the implied type.',
  run: () => [goString(coerceValue(inner, Value.null()).value), goString(coerceValue(inner, Value.unknown()).value)],
  want: ['cty.NullVal(cty.Object(map[string]cty.Type{"v":cty.String}))', 'cty.UnknownVal(cty.Object(map[string]cty.Type{"v":cty.String}))'],
});
check({
  scenario: 'Coercion reports a non-object, an unexpected attribute, a missing required attribute and a wrong attribute type.',
  run: () => {
    const b = blk({ r: req(T.String), o: opt(T.Number) }, { l: nb('list', inner) });
    return [
      coerceValue(b, s('x')),
      coerceValue(b, obj({ r: s('a'), zz: s('b') })),
      coerceValue(b, obj({ o: n(1) })),
      coerceValue(b, obj({ r: s('a'), o: s('1') })),
      coerceValue(b, obj({ r: s('a'), l: list(inner.attributes.v.type!, s('x')) })),
      coerceValue(b, obj({ r: s('a'), l: Value.tuple([obj({ bad: n(1) })]) })),
    ].map((r) => (r.error ? formatError(r.error) : 'ok'));
  },
  want: ['an object is required', 'unexpected attribute "zz"', 'attribute "r" is required', '.o: number required', '.l[0]: an object is required', '.l[0]: unexpected attribute "bad"'],
});
check({
  scenario: 'Coercion accepts a map value for a map block.',
  run: () => coerceValue(blk({}, { m: nb('map', inner) }), obj({ m: map(impliedType(inner), { a: obj({ v: s('q') }) }) })).error,
  want: undefined,
});
