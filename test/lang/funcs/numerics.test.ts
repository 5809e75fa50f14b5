// Tests for the numeric built-ins (server/lang/funcs/numeric.ts); expectations come from the
// conformance corpus and from terraform 1.11.4's console.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { functions as F } from '../../../server/lang/funcs/numeric';
import { Num } from '../../../server/lang/number';
import { Value } from '../../../server/lang/value';
import { call } from './_helpers';

const c = (name: string, ...a: Parameters<typeof call> extends [unknown, unknown, ...infer R] ? R : never) => call(F, name, ...a);
const big = (s: string) => Value.number(Num.parse(s)!);
const WHOLE = 'value must be a whole number, between -9223372036854775808 and 9223372036854775807';

test('abs, ceil, floor, signum', () => {
  assert.equal(c('abs', -5), '5');
  assert.equal(c('abs', -0.5), '0.5');
  assert.equal(c('abs', '-3'), '3');
  assert.equal(c('abs', 'x'), 'ERR arg num: a number is required');
  assert.equal(c('abs', null), 'ERR arg num: argument must not be null');
  assert.equal(c('abs', Value.number(-1).mark('sensitive')), '1[sensitive]');
  assert.equal(c('ceil', 1.2), '2');
  assert.equal(c('ceil', -1.2), '-1');
  assert.equal(c('ceil', Value.number(Num.POS_INF)), '+Inf');
  assert.equal(c('floor', -0.5), '-1');
  assert.equal(c('floor', 1.8), '1');
  assert.equal(c('signum', -3), '-1');
  assert.equal(c('signum', 0), '0');
  assert.equal(c('signum', 7.5), `ERR call: ${WHOLE}`);
});

test('log and pow compute on float64', () => {
  assert.equal(c('log', 100, 10), '2');
  assert.equal(c('log', 8, 2), '3');
  assert.equal(c('log', 0, 10), '-Inf');
  assert.equal(c('log', 10, 1), '+Inf');
  assert.match(c('log', -1, 10), /^ERR call: /);
  assert.equal(c('pow', 2, 10), '1024');
  assert.equal(c('pow', 2, -1), '0.5');
  assert.equal(c('pow', 0, 0), '1');
  assert.equal(c('pow', 2, 0.5), '1.4142135623730951');
  assert.equal(c('pow', -2, 3), '-8');
  assert.equal(c('pow', 10, 400), '+Inf');
  assert.match(c('pow', -8, 1 / 3), /^ERR call: /);
  assert.equal(c('pow', 2, 63), Num.from(2 ** 63).toString());
});

test('max and min', () => {
  assert.equal(c('max', 1, 5, 3), '5');
  assert.equal(c('max', 1, '20'), '20');
  assert.equal(c('max', 0.1, 0.2), '0.2');
  assert.equal(c('max'), 'ERR call: must pass at least one number');
  assert.equal(c('max', 'a', 1), 'ERR arg numbers: a number is required');
  assert.equal(c('min', 0.1, 0.01), '0.01');
  assert.equal(c('min', Value.number(Num.NEG_INF), 0), '-Inf');
});

test('parseint', () => {
  assert.equal(c('parseint', 'FF', 16), '255');
  assert.equal(c('parseint', '-1010', 2), '-10');
  assert.equal(c('parseint', 'zz', 36), '1295');
  assert.equal(c('parseint', '12', 37), '39');
  assert.equal(c('parseint', '+5', 10), '5');
  assert.equal(c('parseint', '123456789012345678901234567890', 10), big('123456789012345678901234567890').toString());
  assert.equal(c('parseint', '12', 1), 'ERR arg base: base must be a whole number between 2 and 62 inclusive');
  assert.equal(c('parseint', '9', 8), 'ERR arg number: cannot parse "9" as a base 8 integer');
  assert.equal(c('parseint', '', 10), 'ERR arg number: cannot parse "" as a base 10 integer');
  assert.equal(c('parseint', '0x10', 16), 'ERR arg number: cannot parse "0x10" as a base 16 integer');
  assert.equal(c('parseint', '1.5', 10), 'ERR arg number: cannot parse "1.5" as a base 10 integer');
  assert.equal(c('parseint', 12, 10), 'ERR arg number: first argument must be a string, not number');
});
