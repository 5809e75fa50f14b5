// Unit tests of the date/time built-ins (server/lang/funcs/datetime.ts); expected values from the corpus
// and Terraform 1.11.4's console.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { functions as F } from '../../../server/lang/funcs/datetime';
import { FuncArgError, FuncError, type FuncContext } from '../../../server/lang/funcs/function';
import { Value } from '../../../server/lang/value';

const ctx: FuncContext = { baseDir: '.', planning: true, console: true };
const s = (x: string) => Value.string(x);
const call = (name: string, ...args: Value[]) => F[name].impl(args, ctx);
function throwsMsg(fn: () => unknown, cls: typeof FuncError | typeof FuncArgError, msg: string) {
  assert.throws(fn, (e: unknown) => e instanceof cls && (e as Error).message === msg, msg);
}
const fd = (f: string, t: string) => call('formatdate', s(f), s(t)).str;
const ta = (t: string, d: string) => call('timeadd', s(t), s(d)).str;
const tc = (a: string, b: string) => call('timecmp', s(a), s(b)).num.toNumber();

test('formatdate', () => {
  assert.equal(fd('YYYY-MM-DD', '2024-03-05T14:07:09Z'), '2024-03-05');
  assert.equal(fd('DD MMM YYYY hh:mm ZZZ', '2018-01-02T23:12:01Z'), '02 Jan 2018 23:12 UTC');
  assert.equal(fd('EEEE, MMMM D, YYYY', '2024-02-29T00:00:00Z'), 'Thursday, February 29, 2024');
  assert.equal(fd('EEE h:mmaa', '2024-01-01T13:05:00-08:00'), 'Mon 13:05pm');
  assert.equal(fd('HH:mm:ss', '2024-01-01T05:06:07+05:30'), '05:06:07');
  assert.equal(fd('YY M D H m s', '2009-07-08T01:02:03Z'), '09 7 8 1 2 3');
  assert.equal(fd('ZZZZ ZZZZZ Z', '2024-01-01T00:00:00+05:30'), '+0530 +05:30 +05:30');
  assert.equal(fd("'literal' YYYY", '2024-01-01T00:00:00Z'), 'literal 2024');
  assert.equal(fd("''", '2024-01-01T00:00:00Z'), "'");
  assert.equal(fd('DD/MM/YYYY', '2024-01-01T00:00:00.123456Z'), '01/01/2024');
  assert.equal(fd('EEEE, DD-MMM-YY hh:mm:ss ZZZ', '1900-01-01T00:00:00Z'), 'Monday, 01-Jan-00 00:00:00 UTC');
  throwsMsg(() => fd('YYYY', '2024-01-01'), FuncArgError, "not a valid RFC3339 timestamp: missing required time introducer 'T'");
  throwsMsg(() => fd('YYYY', '2024-13-01T00:00:00Z'), FuncArgError, 'not a valid RFC3339 timestamp: cannot use "-01T00:00:00Z" as month');
  throwsMsg(() => fd('YYYY', '2024-06-30T23:59:60Z'), FuncArgError, 'not a valid RFC3339 timestamp: cannot use "Z" as second');
  throwsMsg(() => fd('YYYY', '2017-02-31T00:00:00Z'), FuncArgError, 'not a valid RFC3339 timestamp: day out of range');
  throwsMsg(() => fd('YYYY', ''), FuncArgError, 'not a valid RFC3339 timestamp: end of string before year');
  throwsMsg(() => fd('x', '2024-01-01T00:00:00Z'), FuncArgError, 'invalid date format verb "x"');
  throwsMsg(() => fd('hh:mm A', '2024-01-01T00:30:00Z'), FuncArgError, 'invalid date format verb "A": must be "AA"');
  throwsMsg(() => fd("'unterminated", '2024-01-01T00:00:00Z'), FuncArgError, "unterminated literal '");
});

test('timeadd', () => {
  assert.equal(ta('2024-01-01T00:00:00Z', '1h'), '2024-01-01T01:00:00Z');
  assert.equal(ta('2024-01-01T00:00:00Z', '-30m'), '2023-12-31T23:30:00Z');
  assert.equal(ta('2024-02-28T12:00:00Z', '24h'), '2024-02-29T12:00:00Z');
  assert.equal(ta('2024-01-01T00:00:00Z', '1.5h'), '2024-01-01T01:30:00Z');
  assert.equal(ta('2024-01-01T00:00:00Z', '1h30m15s'), '2024-01-01T01:30:15Z');
  assert.equal(ta('2024-01-01T00:00:00+05:00', '1h'), '2024-01-01T01:00:00+05:00');
  assert.equal(ta('2024-01-01T00:00:00Z', '100ms'), '2024-01-01T00:00:00Z');
  assert.equal(ta('2024-01-01T00:00:00Z', '0s'), '2024-01-01T00:00:00Z');
  throwsMsg(() => ta('2024-01-01T00:00:00Z', '1d'), FuncError, 'time: unknown unit "d" in duration "1d"');
  throwsMsg(() => ta('2024-01-01T00:00:00Z', ''), FuncError, 'time: invalid duration ""');
  throwsMsg(() => ta('2024-01-01T00:00:00Z', '1'), FuncError, 'time: missing unit in duration "1"');
  throwsMsg(() => ta('bad', '1h'), FuncError, 'not a valid RFC3339 timestamp: cannot use "bad" as year');
});

test('timecmp, timestamp, plantimestamp', () => {
  assert.equal(tc('2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z'), 0);
  assert.equal(tc('2024-01-01T00:00:00Z', '2023-12-31T23:59:59Z'), 1);
  assert.equal(tc('2024-01-01T00:00:00+01:00', '2024-01-01T00:00:00Z'), -1);
  assert.equal(tc('2024-01-01T01:00:00+01:00', '2024-01-01T00:00:00Z'), 0);
  throwsMsg(() => tc('2024-01-01T00:00:00Z', 'bad'), FuncArgError, 'not a valid RFC3339 timestamp: cannot use "bad" as year');
  const now = call('timestamp').str;
  assert.equal(now.length, 20);
  assert.equal(tc(now, '2000-01-01T00:00:00Z'), 1);
  assert.ok(call('plantimestamp').isKnown);
  assert.ok(!F.plantimestamp.impl([], { ...ctx, planning: false }).isKnown);
});
