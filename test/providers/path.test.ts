// Tests for server/providers/path.ts and gostring.ts: FormatCtyPath, FormatError(Prefixed), Go syntax of
// paths and values (`%#v`), path application and the protocol/diagnostic path forms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Num } from '../../server/lang/number';
import * as T from '../../server/lang/types';
import { Value } from '../../server/lang/value';
import { goQuote, goString, numG } from '../../server/providers/gostring';
import {
  applyPath,
  formatError,
  formatErrorPrefixed,
  formatPath,
  fromProtocolPath,
  goPath,
  indexStep,
  path,
  pathError,
  toDiagnosticPath,
  toProtocolPath,
  pathEquals,
} from '../../server/providers/path';
import { list, map, n, nul, obj, s, set, unk, b } from '../plans/objchange/_helpers';

interface Case {
  scenario: string;
  got: () => unknown;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, () => assert.deepEqual(c.got(), c.want));
}

check({
  scenario: 'Paths print attribute steps with dots and index keys as Terraform does.',
  got: () => [
    formatPath(path('tags', { key: 'Name' })),
    formatPath(path('ebs_block_device', 0, 'volume_size')),
    formatPath([...path('rule'), indexStep(obj({ a: n(1) }))]),
    formatPath([...path('ingress'), indexStep(unk(T.Number))]),
    formatPath([...path('x'), indexStep(nul(T.String))]),
    formatPath(path({ key: 'q"\\é\n' })),
    formatPath([indexStep(1000000), indexStep(999999), indexStep(Value.number(Num.parse('0.00001')!)), indexStep(1234567)]),
  ],
  want: ['.tags["Name"]', '.ebs_block_device[0].volume_size', '.rule[...]', '.ingress[(not yet known)]', '.x[null]', '["q\\"\\\\é\\n"]', '[1e+06][999999][1e-05][1.234567e+06]'],
});
check({
  scenario: 'FormatError and FormatErrorPrefixed join path and message, or address and message at the root.',
  got: () => [
    formatError(pathError(path('ami'), 'bad')),
    formatError(pathError([], 'bad')),
    formatErrorPrefixed(pathError(path('ami'), 'bad'), 'aws_instance.web'),
    formatErrorPrefixed(pathError([], 'planned for existence but config wants absence'), 'aws_instance.web'),
  ],
  want: ['.ami: bad', 'bad', 'aws_instance.web.ami: bad', 'aws_instance.web: planned for existence but config wants absence'],
});
check({
  scenario: 'A path in Go syntax lists its steps as cty step literals.',
  got: () => [goPath(path('foo', 0)), goPath(path('m', { key: 'k' })), goPath([])],
  want: ['cty.Path{cty.GetAttrStep{Name:"foo"}, cty.IndexStep{Key:cty.NumberIntVal(0)}}', 'cty.Path{cty.GetAttrStep{Name:"m"}, cty.IndexStep{Key:cty.StringVal("k")}}', 'cty.Path(nil)'],
});
check({
  scenario: 'Values render as cty GoString: primitives, numbers in three forms, collections and structural values.',
  got: () => [
    goString(s('a"b')),
    goString(b(true)),
    goString(n(5)),
    goString(n(1.5)),
    goString(Value.number(Num.parse('0.1')!)),
    goString(n(1e21)),
    goString(list(T.String, s('a'), s('b'))),
    goString(list(T.String)),
    goString(set(T.Number, n(2), n(1))),
    goString(set(T.Number)),
    goString(map(T.String, { b: s('2'), a: s('1') })),
    goString(map(T.Bool, {})),
    goString(Value.tuple([s('x'), n(1)])),
    goString(Value.tuple([])),
    goString(obj({})),
    goString(nul(T.Map(T.String))),
    goString(unk()),
    goString(unk(T.String)),
    goString(unk(T.String, { notNull: true })),
    goString(s('x').mark('sensitive')),
  ],
  want: [
    'cty.StringVal("a\\"b")',
    'cty.True',
    'cty.NumberIntVal(5)',
    'cty.NumberFloatVal(1.5)',
    'cty.MustParseNumberVal("0.1")',
    'cty.NumberIntVal(1e+21)',
    'cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})',
    'cty.ListValEmpty(cty.String)',
    'cty.SetVal([]cty.Value{cty.NumberIntVal(1), cty.NumberIntVal(2)})',
    'cty.SetValEmpty(cty.Number)',
    'cty.MapVal(map[string]cty.Value{"a":cty.StringVal("1"), "b":cty.StringVal("2")})',
    'cty.MapValEmpty(cty.Bool)',
    'cty.TupleVal([]cty.Value{cty.StringVal("x"), cty.NumberIntVal(1)})',
    'cty.EmptyTupleVal',
    'cty.EmptyObjectVal',
    'cty.NullVal(cty.Map(cty.String))',
    'cty.DynamicVal',
    'cty.UnknownVal(cty.String)',
    'cty.UnknownVal(cty.String).RefineNotNull()',
    'cty.StringVal("x").Mark("sensitive")',
  ],
});
check({
  scenario: 'Go quoting escapes controls and keeps printable Unicode; %g switches to exponents at 1e6 and below 1e-4.',
  got: () => [goQuote('tab\there\x01\u200b✓'), numG(Num.parse('0.0001')!), numG(Num.parse('123456.5')!), numG(Num.parse('-2.5e-7')!)],
  want: ['"tab\\there\\x01\\u200b✓"', '0.0001', '123456.5', '-2.5e-07'],
});
check({
  scenario: 'Applying a path walks attributes, list indexes and map keys; sets and missing steps fail; unknown containers give unknowns.',
  got: () => {
    const v = obj({ l: list(T.String, s('a'), s('b')), m: map(T.Number, { k: n(1) }), st: set(T.String, s('x')), u: unk(T.Obj({ q: T.Bool })), z: nul(T.Obj({ q: T.Bool })) });
    const r = (p: ReturnType<typeof path>) => {
      const x = applyPath(v, p);
      return x.error !== undefined ? 'error' : x.value.toString();
    };
    return [r(path('l', 1)), r(path('m', { key: 'k' })), r(path('st', 0)), r(path('l', 5)), r(path('nope')), r(path('u', 'q')), r(path('z', 'q')), r(path('m', 0))];
  },
  want: ['"b"', '1', 'error', 'error', 'error', 'unknown(bool)', 'error', 'error'],
});
check({
  scenario: 'Protocol paths round-trip attribute names, string keys and integer keys; set steps end the protocol path.',
  got: () => {
    const p = path('a', { key: 'k' }, 2, 'b');
    const proto = toProtocolPath(p);
    return [proto, pathEquals(fromProtocolPath(proto), p), toProtocolPath([...path('s'), indexStep(obj({})), ...path('x')]), toDiagnosticPath(p)];
  },
  want: [[{ attributeName: 'a' }, { elementKeyString: 'k' }, { elementKeyInt: 2 }, { attributeName: 'b' }], true, [{ attributeName: 's' }], ['a', 'k', 2, 'b']],
});
