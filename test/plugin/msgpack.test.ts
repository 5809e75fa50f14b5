// Tests for server/plugin/msgpack.ts: cty's msgpack encoding byte for byte (including the bytes observed between
// Terraform 1.11.4 and a provider, shared/reference/plugin-protocol.md), round trips of every kind of value, and
// cty's errors for malformed input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decode as genericDecode } from '@msgpack/msgpack';
import * as T from '../../server/lang/types';
import type { Type } from '../../server/lang/types';
import { Value } from '../../server/lang/value';
import { Num } from '../../server/lang/number';
import { decodeDynamicValue, encodeDynamicValue, marshal, MsgpackError, unmarshal } from '../../server/plugin/msgpack';
import { encodeValue } from '../../server/providers/wire';
import { list, map, n, nul, obj, s, set, unk, b } from '../plans/objchange/_helpers';

const hex = (x: Uint8Array) => Buffer.from(x).toString('hex');
const bytes = (h: string) => Buffer.from(h.replace(/\s+/g, ''), 'hex');
/** Type, data and refinements: everything that must survive a round trip (number precision is checked apart:
 * like cty, decoding gives ints precision 64, floats 53 and decimal strings 512). */
const full = (v: Value) => JSON.stringify(sortKeys(encodeValue(v))).replace(/,"\$p":\d+/g, '');
function sortKeys(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(sortKeys);
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortKeys(v)]));
  return x;
}

function roundTrip(v: Value, t: Type = v.type): void {
  const got = unmarshal(marshal(v, t), t);
  assert.equal(full(got), full(v));
}

test('observed: refined unknown string with prefix "from-" (not null)', () => {
  const v = unk(T.String, { notNull: true, stringPrefix: 'from-' });
  assert.equal(hex(marshal(v, T.String)), 'c70a0c8201c202a5' + Buffer.from('from-').toString('hex'));
  roundTrip(v);
});

test('observed: plain unknown is fixext1 d4 00 00, at any type', () => {
  for (const t of [T.String, T.Number, T.List(T.String), T.Obj({ a: T.String }), T.Dynamic]) {
    assert.equal(hex(marshal(Value.unknown(t), t)), 'd40000');
    assert.equal(full(unmarshal(bytes('d40000'), t)), full(Value.unknown(t)));
  }
});

test('observed: dynamic attribute { n = 1, tags = ["x","y"] } is [type JSON, value]', () => {
  const v = obj({ n: n(1), tags: Value.tuple([s('x'), s('y')]) });
  const typeJSON = '["object",{"n":"number","tags":["tuple",["string","string"]]}]';
  const want = '92c43e' + Buffer.from(typeJSON).toString('hex') + '82a16e01a474616773' + '92a178a179';
  assert.equal(typeJSON.length, 0x3e);
  assert.equal(hex(marshal(v, T.Dynamic)), want);
  assert.equal(full(unmarshal(bytes(want), T.Dynamic)), full(v));
});

test('null is c0; a null of a concrete type at a dynamic position keeps its type', () => {
  assert.equal(hex(marshal(nul(T.String), T.String)), 'c0');
  assert.equal(hex(marshal(nul(T.Dynamic), T.Dynamic)), 'c0');
  assert.equal(hex(marshal(nul(T.String), T.Dynamic)), '92c408' + Buffer.from('"string"').toString('hex') + 'c0');
  assert.equal(full(unmarshal(bytes('c0'), T.Dynamic)), full(nul(T.Dynamic)));
  // An unknown of a concrete type inside dynamic also carries its type.
  assert.equal(hex(marshal(unk(T.Number), T.Dynamic)), '92c408' + Buffer.from('"number"').toString('hex') + 'd40000');
});

test('numbers: compact ints, float64 for exact non-integers, decimal strings otherwise', () => {
  const cases: [Num, string][] = [
    [Num.fromInt(0), '00'],
    [Num.fromInt(1), '01'],
    [Num.fromInt(127), '7f'],
    [Num.fromInt(128), 'cc80'],
    [Num.fromInt(200), 'ccc8'],
    [Num.fromInt(65535), 'cdffff'],
    [Num.fromInt(65536), 'ce00010000'],
    [Num.fromInt(4294967296), 'cf0000000100000000'],
    [Num.fromInt(-1), 'ff'],
    [Num.fromInt(-32), 'e0'],
    [Num.fromInt(-33), 'd0df'],
    [Num.fromInt(-129), 'd1ff7f'],
    [Num.fromInt(-40000), 'd2ffff63c0'],
    [Num.fromInt(-(2n ** 40n)), 'd3ffffff0000000000'],
    [Num.fromInt(2n ** 63n - 1n), 'cf7fffffffffffffff'],
    [Num.fromFloat64(1.5), 'cb3ff8000000000000'],
    [Num.fromFloat64(-0.25), 'cbbfd0000000000000'],
    [Num.POS_INF, 'cb7ff0000000000000'],
    [Num.NEG_INF, 'cbfff0000000000000'],
    [Num.fromInt(2n ** 63n), 'b3' + Buffer.from('9223372036854775808').toString('hex')],
    [Num.parse('0.1')!, 'a3' + Buffer.from('0.1').toString('hex')],
    [Num.parse('123456789012345678901234567890.5')!, 'd920' + Buffer.from('123456789012345678901234567890.5').toString('hex')],
  ];
  for (const [num, want] of cases) assert.equal(hex(marshal(Value.number(num), T.Number)), want, num.toString());
  // Decoding: ints keep exact values (uint64 too), floats are float64, strings parse at 512 bits.
  assert.equal(unmarshal(bytes('cfffffffffffffffff'), T.Number).num.toString(), '18446744073709551615');
  assert.equal(unmarshal(bytes('d3ffffff0000000000'), T.Number).num.toString(), '-1099511627776');
  assert.equal(unmarshal(bytes('ca3fc00000'), T.Number).num.toString(), '1.5');
  assert.equal(unmarshal(bytes('a3302e31'), T.Number).num.precision, 512);
  assert.equal(unmarshal(bytes('01'), T.Number).num.precision, 64);
  assert.equal(unmarshal(bytes('cb3ff8000000000000'), T.Number).num.precision, 53);
  for (const [num] of cases) roundTrip(Value.number(num));
});

test('strings: fixstr, str8, str16; NFC on decode', () => {
  assert.equal(hex(marshal(s(''), T.String)), 'a0');
  assert.equal(hex(marshal(s('x'.repeat(31)), T.String)).slice(0, 2), 'bf');
  assert.equal(hex(marshal(s('x'.repeat(32)), T.String)).slice(0, 4), 'd920');
  assert.equal(hex(marshal(s('x'.repeat(256)), T.String)).slice(0, 6), 'da0100');
  assert.equal(unmarshal(Buffer.concat([bytes('a3'), Buffer.from('e\u0301')]), T.String).str, '\u00e9');
  roundTrip(s('héllo → 世界'));
});

test('objects: exactly the type\'s attributes, keys sorted bytewise, null attributes as nil', () => {
  const t = T.Obj({ b: T.String, a: T.Number, B: T.Bool });
  const v = obj({ B: nul(T.Bool), a: n(1), b: s('x') });
  assert.equal(hex(marshal(v, t)), '83a142c0a16101a162a178');
  roundTrip(v, t);
  // The generic msgpack reader sees the same map.
  assert.deepEqual(genericDecode(marshal(v, t)), { B: null, a: 1, b: 'x' });
});

test('collections: lists, sets (cty order), maps (sorted keys), tuples, nested, empty', () => {
  roundTrip(list(T.String, s('b'), s('a')));
  roundTrip(set(T.Number, n(3), n(1), n(2)));
  assert.equal(hex(marshal(set(T.String, s('b'), s('a')), T.Set(T.String))), '92a161a162');
  roundTrip(map(T.Bool, { z: b(true), a: b(false) }));
  assert.equal(hex(marshal(map(T.Number, { z: n(1), a: n(2) }), T.Map(T.Number))), '82a16102a17a01');
  roundTrip(Value.tuple([s('a'), n(1), b(true)]));
  roundTrip(Value.list([], T.String));
  roundTrip(Value.set([], T.Obj({ a: T.String })));
  roundTrip(Value.map(new Map(), T.Number));
  const inner = T.Obj({ name: T.String, ports: T.List(T.Number), tags: T.Map(T.String) });
  const v = obj({
    items: list(inner, obj({ name: s('a'), ports: list(T.Number, n(80), n(443)), tags: map(T.String, { k: s('v') }) }), obj({ name: nul(T.String), ports: unk(T.List(T.Number)), tags: nul(T.Map(T.String)) })),
    set: set(inner, obj({ name: s('x'), ports: Value.list([], T.Number), tags: Value.map(new Map(), T.String) })),
    single: nul(inner),
  });
  roundTrip(v);
});

test('unknowns: refinements of each kind survive a round trip with cty\'s bytes', () => {
  roundTrip(unk(T.String, { notNull: true }));
  assert.equal(hex(marshal(unk(T.String, { notNull: true }), T.String)), 'c7030c8101c2');
  assert.equal(hex(marshal(unk(T.Number, { notNull: true }), T.Number)), 'c7030c8101c2');
  const nr = unk(T.Number, { notNull: true, numberLower: { value: Num.fromInt(0), inclusive: true }, numberUpper: { value: Num.fromInt(10), inclusive: false } });
  assert.equal(hex(marshal(nr, T.Number)), 'c70b0c8301c2039200c3' + '04920ac2');
  roundTrip(nr);
  const lr = unk(T.List(T.String), { notNull: true, lengthLower: 1, lengthUpper: 3 });
  assert.equal(hex(marshal(lr, T.List(T.String))), 'c7070c8301c205010603');
  roundTrip(lr);
  // Refinements that do not apply to the type are not written; a dynamic unknown is never refined.
  assert.equal(hex(marshal(unk(T.Dynamic, { notNull: true }), T.Dynamic)), 'd40000');
  // Nullness true decodes to a known null.
  assert.equal(full(unmarshal(bytes('c7030c8101c3'), T.String)), full(nul(T.String)));
  // A one-byte ext body of any code is an unknown.
  assert.equal(full(unmarshal(bytes('d40700'), T.Bool)), full(unk(T.Bool)));
  // An ext-12 body at a dynamic position is a plain unknown.
  assert.equal(full(unmarshal(bytes('c7030c8101c2'), T.Dynamic)), full(unk(T.Dynamic)));
  // A long prefix is cut below 256 bytes.
  const long = unk(T.String, { notNull: true, stringPrefix: 'a'.repeat(300) });
  const dec = unmarshal(marshal(long, T.String), T.String);
  assert.equal((dec.refinements as { stringPrefix: string }).stringPrefix, 'a'.repeat(254));
});

test('malformed input: cty\'s messages with the path', () => {
  const t = T.Obj({ a: T.String, b: T.Number });
  const err = (h: string, ty: Type) => {
    try {
      unmarshal(bytes(h), ty);
    } catch (e) {
      assert.ok(e instanceof MsgpackError, String(e));
      return e.message;
    }
    assert.fail('no error');
  };
  assert.equal(err('81a161a178', t), 'an object with 2 attributes is required (1 given)');
  // cty steps into object attributes with index steps (unmarshalObject), so paths print as ["name"].
  assert.equal(err('82a161a178a17a01', t), '["z"]: unsupported attribute');
  assert.equal(err('82a16101a16201', t), '["a"]: string is required');
  assert.equal(err('82a161a178a162a178', t), '["b"]: number is required');
  assert.equal(err('a178', T.List(T.String)), 'a list is required');
  assert.equal(err('91c3', T.List(T.String)), '[0]: string is required');
  assert.equal(err('d50501ff', T.String), 'unsupported extension type 0x05 with len 2');
  assert.equal(err('93010203', T.Tuple([T.Number, T.Number])), 'a tuple of length 2 is required');
  assert.equal(err('93c40822737472696e672201', T.Dynamic), 'dynamic value array must have exactly two elements');
  assert.equal(err('a3616263', T.Number), 'number is required');
  assert.equal(err('92', T.List(T.String)), '[0]: EOF');
});

test('marked values are refused (an engine bug, not user input)', () => {
  assert.throws(() => marshal(s('x').mark('sensitive'), T.String), /value has marks/);
});

test('DynamicValue: msgpack sent; msgpack, else JSON, else null accepted', () => {
  const t = T.Obj({ a: T.String, n: T.Number, d: T.Dynamic });
  const v = obj({ a: s('x'), n: Value.number(Num.parse('12345678901234567890.25')!), d: Value.tuple([s('p')]) });
  const dv = encodeDynamicValue(v, t);
  assert.equal(dv.json.length, 0);
  assert.equal(full(decodeDynamicValue(dv, t)), full(v));
  const j = decodeDynamicValue({ json: Buffer.from('{"a":"x","n":12345678901234567890.25,"d":{"value":["p"],"type":["tuple",["string"]]}}') }, t);
  assert.equal(full(j), full(obj({ a: s('x'), n: Value.number(Num.parse('12345678901234567890.25')!), d: Value.tuple([s('p')]) })));
  assert.equal(full(decodeDynamicValue({ msgpack: Buffer.alloc(0), json: Buffer.alloc(0) }, t)), full(nul(t)));
  assert.equal(full(decodeDynamicValue(undefined, t)), full(nul(t)));
});
