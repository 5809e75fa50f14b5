// Tests for the collection built-ins (server/lang/funcs/collection.ts); expectations come from the
// conformance corpus and from terraform 1.11.4's console.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { functions as F } from '../../../server/lang/funcs/collection';
import { Value } from '../../../server/lang/value';
import { call, list, map, set, v } from './_helpers';

const c = (name: string, ...a: Parameters<typeof call> extends [unknown, unknown, ...infer R] ? R : never) => call(F, name, ...a);

test('alltrue / anytrue', () => {
  assert.equal(c('alltrue', []), 'true');
  assert.equal(c('alltrue', ['true', true]), 'true');
  assert.equal(c('alltrue', [null]), 'false');
  assert.equal(c('anytrue', [false, 'false']), 'false');
  assert.equal(c('anytrue', [null, true]), 'true');
});

test('chunklist', () => {
  assert.equal(c('chunklist', ['a', 'b', 'c', 'd', 'e'], 2), 'list[list["a", "b"], list["c", "d"], list["e"]]');
  assert.equal(c('chunklist', [1, 2, 3], 0), 'list[list[1, 2, 3]]');
  assert.equal(c('chunklist', [], 3), 'list[]');
  assert.equal(c('chunklist', [1, 2], -1), 'ERR call: the size argument must be positive');
});

test('coalesce / coalescelist', () => {
  assert.equal(c('coalesce', '', 'b'), '"b"');
  assert.equal(c('coalesce', null, 'x'), '"x"');
  assert.equal(c('coalesce', 1, '2'), '"1"');
  assert.equal(c('coalesce', null, 2, 'x'), '"2"');
  assert.equal(c('coalesce', 0, 1), '0');
  assert.equal(c('coalesce', [], ['a']), 'list[]');
  assert.equal(c('coalesce', null, null), 'ERR call: no non-null, non-empty-string arguments');
  assert.equal(c('coalesce'), 'ERR call: all arguments must have the same type');
  assert.equal(c('coalescelist', [], ['a']), 'tuple["a"]');
  assert.equal(c('coalescelist', [], []), 'ERR call: no non-null arguments');
  assert.equal(c('coalescelist', 'a'), 'ERR call: coalescelist arguments must be lists or tuples');
  assert.equal(c('coalescelist', null, ['z']), 'ERR call: coalescelist arguments must be lists or tuples');
});

test('compact, concat, contains, distinct', () => {
  assert.equal(c('compact', list('a', '', 'b', null, 'c')), 'list["a", "b", "c"]');
  assert.equal(c('compact', [1, 2]), 'list["1", "2"]');
  assert.equal(c('compact', ['a', ['b']]), 'ERR arg list: element 1: string required');
  assert.equal(c('concat', [1, 2], [3]), 'tuple[1, 2, 3]');
  assert.equal(c('concat', list('a'), list(1)), 'list["a", "1"]');
  assert.equal(c('concat', list('a'), ['b', 1]), 'tuple["a", "b", 1]');
  assert.equal(c('concat', [1], 'x'), 'ERR arg seqs: all arguments must be lists or tuples; got string');
  assert.equal(c('concat'), 'ERR call: at least one argument is required');
  assert.equal(c('contains', [1, 2, 3], '2'), 'false');
  assert.equal(c('contains', [[1]], [1]), 'true');
  assert.equal(c('contains', set('x'), 'x'), 'true');
  assert.equal(c('contains', 'abc', 'a'), 'ERR call: argument must be list, tuple, or set');
  assert.equal(c('distinct', ['a', 'b', 'a', 'c', 'b']), 'list["a", "b", "c"]');
  assert.equal(c('distinct', [1, '1']), 'list["1"]');
  assert.equal(c('distinct', [{ a: 1 }, { a: 1 }, { a: 2 }]), 'list[object{a=1}, object{a=2}]');
});

test('element, index, one', () => {
  assert.equal(c('element', ['a', 'b', 'c'], 7), '"b"');
  assert.match(c('element', ['a', 'b', 'c'], -1), /^ERR call: panic/);
  assert.equal(c('element', [], 0), 'ERR call: cannot use element function with an empty list');
  assert.equal(
    c('element', ['a', 'b'], 1.9),
    'ERR call: invalid index: value must be a whole number, between -9223372036854775808 and 9223372036854775807',
  );
  assert.equal(c('element', { a: 1 }, 0), 'ERR call: cannot read elements from object');
  assert.equal(c('index', ['a', 'b', 'a'], 'a'), '0');
  assert.equal(c('index', ['a'], 'z'), 'ERR call: item not found');
  assert.equal(c('index', [], 1), 'ERR call: cannot search an empty list');
  assert.equal(c('index', set('a'), 'a'), 'ERR call: argument must be a list or tuple');
  assert.equal(c('one', []), 'null(dynamic)');
  assert.equal(c('one', set('x', 'x')), '"x"');
  assert.equal(c('one', [1, 2]), 'ERR arg list: must be a list, set, or tuple value with either zero or one elements');
});

test('flatten', () => {
  assert.equal(c('flatten', [[1, [2, [3]]]]), 'tuple[1, 2, 3]');
  assert.equal(c('flatten', [[], [[]]]), 'tuple[]');
  assert.equal(c('flatten', [null, [1]]), 'tuple[null(dynamic), 1]');
  assert.equal(c('flatten', 'x'), 'ERR call: can only flatten lists, sets and tuples');
});

test('keys, values, length, lookup', () => {
  assert.equal(c('keys', { b: 1, a: 2, B: 3, '1': 4 }), 'tuple["1", "B", "a", "b"]');
  assert.equal(c('keys', map({ z: 1, y: 2 })), 'list["y", "z"]');
  assert.equal(c('keys', [1]), 'ERR arg inputMap: must have map or object type');
  assert.equal(c('keys', v({ a: 1 }).mark('sensitive')), 'tuple["a"][sensitive]');
  assert.equal(c('values', { b: 1, a: 'x' }), 'tuple["x", 1]');
  assert.equal(c('values', [1]), 'ERR call: values() requires a map as the first argument');
  assert.equal(c('length', 'e\u0301'), '1');
  assert.equal(c('length', '👨\u200d👩\u200d👧'), '1');
  assert.equal(c('length', '\r\n'), '1');
  assert.equal(c('length', set(1, 1, 2)), '2');
  assert.equal(c('length', 123), 'ERR call: argument must be a string, a collection type, or a structural type');
  assert.equal(c('length', v([1, 2]).mark('sensitive')), '2[sensitive]');
  assert.equal(c('lookup', { a: 1 }, 'z', 0), '0');
  assert.equal(c('lookup', { a: 1 }, 'z'), 'ERR arg inputMap: the given object has no attribute "z"');
  assert.equal(c('lookup', [1], 0, 1), 'ERR arg inputMap: lookup() requires a map as the first argument');
  assert.equal(c('lookup', {}, 'a', null), 'null(dynamic)');
  assert.equal(c('lookup', map({ a: 'x' }), 'a', 'default'), '"x"');
  assert.equal(c('lookup', map({ a: 1 }), 'b'), 'ERR call: lookup failed to find key "b"');
});

test('matchkeys, merge', () => {
  assert.equal(
    c('matchkeys', ['i-1', 'i-2', 'i-3'], ['us-west', 'us-east', 'us-west'], ['us-west']),
    'list["i-1", "i-3"]',
  );
  assert.equal(c('matchkeys', ['a', 'b'], ['x'], ['x']), 'ERR call: length of keys and values should be equal');
  assert.equal(c('matchkeys', ['a', 'b'], [1, 2], [2]), 'list["b"]');
  assert.equal(c('merge', { a: 1, b: 2 }, { b: 3 }), 'object{a=1, b=3}');
  assert.equal(c('merge'), 'object{}');
  assert.equal(c('merge', { a: 1 }, null), 'object{a=1}');
  assert.equal(c('merge', { a: 1 }, [1]), 'ERR call: arguments must be maps or objects, got "tuple"');
  assert.equal(c('merge', map({ a: 'x' }), map({ b: 'y' })), 'map{a="x", b="y"}');
  assert.equal(c('merge', map({ a: 1 }), { b: 'x' }), 'object{a=1, b="x"}');
});

test('range', () => {
  assert.equal(c('range', 5, 0, -2), 'list[5, 3, 1]');
  assert.equal(c('range', 0, 1, 0.25), 'list[0, 0.25, 0.5, 0.75]');
  assert.equal(c('range', 3, 1), 'list[3, 2]');
  assert.equal(c('range', -3), 'list[0, -1, -2]');
  assert.equal(c('range', 1.5), 'list[0, 1]');
  const tooMany =
    'ERR call: more than 1024 values were generated; either decrease the difference between start and end or use a smaller step';
  assert.equal(c('range', 1, 2, 0), tooMany);
  assert.equal(c('range', 1025), tooMany);
  assert.equal(c('range', 0, 1, 1, 1), 'ERR call: must have one, two, or three arguments');
});

test('reverse, slice, sort, sum', () => {
  assert.equal(c('reverse', set(1, 2)), 'list[2, 1]');
  assert.equal(c('reverse', 'abc'), 'ERR arg list: can only reverse list or tuple values, not string');
  assert.equal(c('slice', ['a', 'b', 'c', 'd'], 1, 3), 'tuple["b", "c"]');
  assert.equal(c('slice', [1, 2, 3], 2, 1), 'ERR arg start_index: start index must not be greater than end index');
  assert.equal(c('slice', [1, 2, 3], 0, 4), 'ERR arg end_index: end index must not be greater than the length of the list');
  assert.equal(c('slice', [1, 2, 3], -1, 2), 'ERR arg start_index: start index must not be less than zero');
  assert.equal(c('slice', list('a', 'b'), 1, 2), 'list["b"]');
  assert.match(c('slice', set('a'), 0, 1), /^ERR arg list: cannot slice a set/);
  assert.equal(c('sort', [3, 20, 100]), 'list["100", "20", "3"]');
  assert.equal(c('sort', ['é', 'e', 'z']), 'list["e", "z", "é"]');
  assert.equal(c('sort', list(null)), 'ERR call: given list element 0 is null; a null string cannot be sorted');
  assert.equal(c('sum', [0.1, 0.2]), Value.number(0.1).num.add(Value.number(0.2).num).toString());
  assert.equal(c('sum', []), 'ERR arg list: cannot sum an empty list');
  assert.equal(c('sum', ['1', 2]), '3');
  assert.equal(c('sum', ['a']), 'ERR arg list: argument must be list, set, or tuple of number values');
  assert.equal(c('sum', [null]), 'ERR arg list: argument must be list, set, or tuple of number values');
});

test('sets', () => {
  assert.equal(c('setintersection', ['a', 'b', 'c'], ['b', 'c', 'd']), 'set["b", "c"]');
  assert.equal(c('setintersection', ['a'], []), 'set[]');
  assert.equal(c('setintersection', [1], ['1']), 'set["1"]');
  assert.equal(c('setsubtract', ['a', 'b', 'c'], ['b']), 'set["a", "c"]');
  assert.equal(c('setunion', [1], ['a']), 'set["1", "a"]');
  assert.equal(c('setunion', ['a'], [['b']]), 'ERR call: given sets must all have compatible element types');
  assert.equal(c('setproduct', ['a', 'b'], [1, 2]), 'list[tuple["a", 1], tuple["a", 2], tuple["b", 1], tuple["b", 2]]');
  assert.equal(c('setproduct', ['x'], []), 'list[]');
  assert.equal(c('setproduct', ['a']), 'ERR call: at least two arguments are required');
  assert.equal(c('setproduct', set('a'), ['b']), 'set[tuple["a", "b"]]');
});

test('transpose, zipmap', () => {
  assert.equal(c('transpose', { a: ['1', '2'], b: ['2', '3'] }), 'map{1=list["a"], 2=list["a", "b"], 3=list["b"]}');
  assert.equal(c('transpose', { a: [] }), 'map{}');
  assert.equal(c('transpose', { a: 'x' }), 'ERR arg values: element "a": list of string required');
  assert.equal(c('zipmap', ['a', 'a'], [1, 2]), 'object{a=2}');
  assert.equal(c('zipmap', ['a'], [1, 2]), 'ERR call: number of keys (1) does not match number of values (2)');
  assert.equal(c('zipmap', [1, 2], ['x', 'y']), 'object{1="x", 2="y"}');
  assert.equal(c('zipmap', list('a'), list([1])), 'map{a=tuple[1]}');
  assert.equal(c('zipmap', ['a', null], [1, 2]), 'ERR call: keys list has null value at index 1');
});
