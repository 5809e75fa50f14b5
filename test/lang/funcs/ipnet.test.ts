// Unit tests of the CIDR built-ins (server/lang/funcs/ipnet.ts); expected values from the corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { functions as F } from '../../../server/lang/funcs/ipnet';
import { FuncArgError, FuncError, type FuncContext } from '../../../server/lang/funcs/function';
import { Value } from '../../../server/lang/value';

const ctx: FuncContext = { baseDir: '.', planning: false, console: true };
const s = (x: string) => Value.string(x);
const n = (x: number) => Value.number(x);
const call = (name: string, ...args: Value[]) => F[name].impl(args, ctx);
function throwsMsg(fn: () => unknown, cls: typeof FuncError | typeof FuncArgError, msg: string) {
  assert.throws(fn, (e: unknown) => e instanceof cls && (e as Error).message === msg, msg);
}

test('cidrhost', () => {
  const h = (p: string, x: number) => call('cidrhost', s(p), n(x)).str;
  assert.equal(h('10.0.0.0/8', 5), '10.0.0.5');
  assert.equal(h('10.0.0.0/24', -1), '10.0.0.255');
  assert.equal(h('fd00::/64', 10), 'fd00::a');
  assert.equal(h('192.168.1.0/30', 3), '192.168.1.3');
  assert.equal(h('10.0.0.5/24', 1), '10.0.0.1');
  assert.equal(h('010.0.0.0/8', 1), '10.0.0.1');
  assert.equal(h('2001:db8::/32', -1), '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff');
  throwsMsg(() => h('10.0.0.0/24', 256), FuncError, 'prefix of 24 does not accommodate a host numbered 256');
  throwsMsg(() => h('10.0.0.0/8', 16777216), FuncError, 'prefix of 8 does not accommodate a host numbered 16777216');
  throwsMsg(() => h('bad', 1), FuncError, 'invalid CIDR expression: invalid CIDR address: bad');
  throwsMsg(() => h('10.0.0.0/33', 1), FuncError, 'invalid CIDR expression: invalid CIDR address: 10.0.0.0/33');
});

test('cidrnetmask', () => {
  const m = (p: string) => call('cidrnetmask', s(p)).str;
  assert.equal(m('10.0.0.0/8'), '255.0.0.0');
  assert.equal(m('172.16.0.0/12'), '255.240.0.0');
  assert.equal(m('0.0.0.0/0'), '0.0.0.0');
  assert.equal(m('10.0.0.0/32'), '255.255.255.255');
  throwsMsg(() => m('fd00::/64'), FuncError, 'IPv6 addresses cannot have a netmask: fd00::/64');
  throwsMsg(() => m('10.0.0.0'), FuncError, 'invalid CIDR expression: invalid CIDR address: 10.0.0.0');
});

test('cidrsubnet', () => {
  const c = (p: string, b: number, x: number) => call('cidrsubnet', s(p), n(b), n(x)).str;
  assert.equal(c('10.0.0.0/16', 8, 2), '10.0.2.0/24');
  assert.equal(c('fd00::/56', 8, 1), 'fd00:0:0:1::/64');
  assert.equal(c('10.0.0.0/16', 0, 0), '10.0.0.0/16');
  assert.equal(c('10.1.2.3/16', 4, 15), '10.1.240.0/20');
  assert.equal(c('10.0.0.0/16', 8, -1), '0.0.1.0/24');
  throwsMsg(() => c('10.0.0.0/16', 8, 256), FuncError, 'prefix extension of 8 does not accommodate a subnet numbered 256');
  throwsMsg(() => c('10.0.0.0/30', 4, 0), FuncError, 'insufficient address space to extend prefix of 30 by 4');
});

test('cidrsubnets', () => {
  const c = (p: string, ...bits: number[]) => call('cidrsubnets', s(p), ...bits.map(n)).elems.map((v) => v.str);
  assert.deepEqual(c('10.0.0.0/16', 8, 8, 4), ['10.0.0.0/24', '10.0.1.0/24', '10.0.16.0/20']);
  assert.deepEqual(c('10.0.0.0/16'), []);
  assert.deepEqual(c('fd00::/56', 8, 16), ['fd00::/64', 'fd00:0:0:1::/72']);
  throwsMsg(() => c('10.0.0.0/30', 8), FuncArgError, 'would extend prefix to 38 bits, which is too long for an IPv4 address');
  throwsMsg(
    () => c('10.0.0.0/24', 1, 1, 1),
    FuncArgError,
    'not enough remaining address space for a subnet with a prefix of 25 bits after 10.0.0.128/25',
  );
  throwsMsg(() => c('10.0.0.0/8', 0), FuncArgError, 'must extend prefix by at least one bit');
});
