// Shared types (lang/types.ts): values of the same structure share one type object, types that differ never do, and
// type constraints are never shared.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../server/lang/types';
import { Value } from '../../server/lang/value';
import { typeFromJSON } from '../../server/providers/wire';
import { parseExpression } from '../../server/lang/parse';
import { typeFromExpr } from '../../server/lang/convert';

const str = (s: string) => Value.string(s);
const num = (n: number) => Value.number(n);

test('values of the same structure share their type', () => {
  const a = Value.object({ name: str('a'), size: num(1), tags: Value.list([str('x')], T.String) });
  const b = Value.object({ name: str('b'), size: num(2), tags: Value.list([str('y'), str('z')], T.String) });
  assert.equal(a.type, b.type);
  assert.equal(Value.object({ inner: a }).type, Value.object({ inner: b }).type);
  assert.equal(Value.tuple([a, num(1)]).type, Value.tuple([b, num(3)]).type);
  assert.equal(T.List(T.String), T.List(T.String));
  assert.equal(T.Map(a.type), T.Map(b.type));
  assert.equal(Value.object({}).type, T.EmptyObject);
  // Decoded from cty's JSON type syntax too, and equal to the values' types.
  assert.equal(typeFromJSON(['object', { name: 'string', size: 'number', tags: ['list', 'string'] }]), a.type);
  assert.equal(typeFromJSON(['tuple', ['string', 'number']]), Value.tuple([str('a'), num(1)]).type);
});

test('types that differ are never the same object, whatever the names hold', () => {
  const types: T.Type[] = [
    Value.object({ a: str('') }).type,
    Value.object({ a: num(0) }).type,
    Value.object({ b: str('') }).type,
    Value.object({ a: str(''), b: str('') }).type,
    Value.object({ '': str('') }).type,
    Value.object({ '\u0000list': str('') }).type,
    Value.object({ '\u0000tuple': num(0) }).type,
    Value.object({ '\u0000object': num(0) }).type,
    Value.object({ a: Value.object({}) }).type,
    T.EmptyObject,
    T.List(T.String),
    T.Set(T.String),
    T.Map(T.String),
    T.List(T.Number),
    T.List(T.List(T.String)),
    Value.tuple([]).type,
    Value.tuple([str('')]).type,
    Value.tuple([str(''), str('')]).type,
    Value.tuple([num(0)]).type,
    Value.tuple([Value.tuple([])]).type,
  ];
  for (let i = 0; i < types.length; i++) {
    for (let j = 0; j < types.length; j++) {
      assert.equal(T.typeEquals(types[i], types[j]), i === j, `${T.typeString(types[i])} / ${T.typeString(types[j])}`);
      if (i !== j) assert.notEqual(types[i], types[j]);
    }
  }
});

test('an object type is shared only with the same attribute order, and equal either way', () => {
  const ab = Value.object(new Map([['a', str('')], ['b', num(0)]]));
  const ba = Value.object(new Map([['b', num(0)], ['a', str('')]]));
  assert.notEqual(ab.type, ba.type);
  assert.ok(T.typeEquals(ab.type, ba.type));
  assert.deepEqual([...(ab.type as T.ObjectType).attrs.keys()], ['a', 'b']);
  assert.deepEqual([...(ba.type as T.ObjectType).attrs.keys()], ['b', 'a']);
});

test('type constraints with optional attributes are not shared, nor what contains them', () => {
  const parse = (src: string) => {
    const e = parseExpression(src, 'types.tf');
    assert.deepEqual(e.diagnostics, []);
    const r = typeFromExpr(e.expr!, { constraint: true, withDefaults: true });
    assert.deepEqual(r.diagnostics, []);
    return r.type;
  };
  const c = parse('object({ a = optional(string, "x"), b = number })') as T.ObjectType;
  assert.ok(c.optional?.has('a'));
  const v = Value.object({ a: str('x'), b: num(1) });
  assert.ok(!(v.type as T.ObjectType).optional);
  assert.notEqual(T.List(c), T.List(c));
  assert.ok(T.typeEquals(T.List(c), T.List(c)));
});

test('sharing stays right past the point where the shared types start again', () => {
  // Far more distinct types than the trie keeps: each is still equal to a fresh one of its structure, and
  // a structure made again after the restart is shared again.
  const made: T.Type[] = [];
  for (let i = 0; i < 30_000; i++) made.push(Value.object({ [`k${i}`]: str(''), [`l${i % 7}`]: num(0) }).type);
  for (const i of [0, 1, 12_345, 29_999]) {
    const again = Value.object({ [`k${i}`]: str(''), [`l${i % 7}`]: num(0) }).type;
    assert.ok(T.typeEquals(made[i], again));
    assert.equal(Value.object({ [`k${i}`]: str(''), [`l${i % 7}`]: num(0) }).type, again);
  }
});
