// Tests for server/providers/wire.ts: values, types, schemas, paths and bytes survive the JSON wire form
// exactly, marked values are refused, and loopbackProvider never hands over the caller's objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Num } from '../../server/lang/number';
import * as T from '../../server/lang/types';
import { Value } from '../../server/lang/value';
import { goString, goType } from '../../server/providers/gostring';
import { path, pathEquals } from '../../server/providers/path';
import type { PlanResourceChangeRequest, PlanResourceChangeResponse, Provider } from '../../server/providers/provider';
import { DEFAULT_CLIENT_CAPABILITIES } from '../../server/providers/provider';
import type { Schema } from '../../server/providers/schema';
import { loopbackProvider, roundTrip, toWire, typeFromJSON, typeToJSON, wireKey } from '../../server/providers/wire';
import { exactEq } from '../../server/plans/objchange/values';
import { blk, list, map, n, nb, nul, obj, opt, s, set, unk, b } from '../plans/objchange/_helpers';

interface Case {
  scenario: string;
  value: Value;
}
function check(c: Case): void {
  test(c.scenario, () => {
    const back = roundTrip(c.value);
    assert.ok(back !== c.value);
    assert.ok(exactEq(back, c.value), `${goString(back)} != ${goString(c.value)}`);
    assert.equal(goString(back), goString(c.value));
  });
}

check({ scenario: 'Primitive values round-trip.', value: obj({ s: s('é"\n'), t: b(true), f: b(false) }) });
check({
  scenario: 'Numbers round-trip with their precision: 512-bit literals, float64 results and big integers.',
  value: Value.tuple([Value.number(Num.parse('0.1')!), n(0.1), Value.number(Num.fromInt(2n ** 70n)), n(-3), Value.number(Num.POS_INF)]),
});
check({
  scenario: 'Collections, nulls and unknowns of every kind round-trip with their types.',
  value: obj({
    l: list(T.String, s('a'), unk(T.String)),
    st: set(T.Number, n(2), n(1)),
    m: map(T.Bool, { x: b(true), y: nul(T.Bool) }),
    e: list(T.String),
    nl: nul(T.List(T.Obj({ a: T.String }))),
    u: unk(T.Map(T.String)),
    d: unk(),
    dyn: obj({ inner: Value.tuple([s('x'), n(1)]) }),
  }),
});
check({
  scenario: 'Refinements of unknown values round-trip.',
  value: Value.tuple([
    unk(T.String, { notNull: true, stringPrefix: 'arn:' }),
    unk(T.Number, { notNull: true, numberLower: { value: Num.fromInt(0), inclusive: true }, numberUpper: { value: Num.fromInt(9), inclusive: false } }),
    unk(T.List(T.String), { lengthLower: 1, lengthUpper: 3 }),
  ]),
});

test('Types round-trip through cty JSON type syntax.', () => {
  const t = T.Obj({ a: T.List(T.Set(T.Number)), b: T.Map(T.Bool), c: T.Tuple([T.String, T.Dynamic]) });
  assert.deepEqual(typeToJSON(t), ['object', { a: ['list', ['set', 'number']], b: ['map', 'bool'], c: ['tuple', ['string', 'dynamic']] }]);
  assert.equal(goType(typeFromJSON(JSON.parse(JSON.stringify(typeToJSON(t))))), goType(t));
});

test('A marked value is refused at the provider boundary.', () => {
  assert.throws(() => roundTrip(obj({ a: s('x').mark('sensitive') })), /marked value sent across the provider boundary/);
});

test('wireKey tells requests apart exactly as their wire JSON does.', () => {
  const vals: Value[] = [
    s('1'),
    n(1),
    Value.number(Num.parse('1.0')!),
    b(true),
    s('true'),
    nul(T.String),
    nul(T.Number),
    unk(T.String),
    unk(T.String, { notNull: true }),
    unk(T.String, { notNull: true, stringPrefix: 'a' }),
    list(T.String, s('a'), s('b')),
    set(T.String, s('a'), s('b')),
    Value.tuple([s('a'), s('b')]),
    list(T.String),
    set(T.String),
    map(T.String, { a: s('x') }),
    obj({ a: s('x') }),
    obj({ a: s('x'), b: nul(T.String) }),
    obj({ b: nul(T.String), a: s('x') }),
    obj({ a: list(T.String, s('x,')) }),
    obj({ a: list(T.String, s('x'), s('')) }),
    obj({ 'a:': s('x') }),
  ];
  const requests: unknown[] = [];
  for (const v of vals) {
    requests.push({ typeName: 't', priorState: v, config: v, priorPrivate: new Uint8Array([1]), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    requests.push({ typeName: 't', priorState: v, config: nul(v.type), priorPrivate: new Uint8Array(), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    requests.push({ typeName: 'u', priorState: v, config: v, priorPrivate: undefined, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  }
  // The same data built again (other objects) keys the same.
  requests.push({ typeName: 't', priorState: obj({ a: s('x') }), config: obj({ a: s('x') }), priorPrivate: new Uint8Array([1]), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  let pairs = 0;
  for (const x of requests) {
    for (const y of requests) {
      assert.equal(wireKey(x) === wireKey(y), JSON.stringify(toWire(x)) === JSON.stringify(toWire(y)), `${JSON.stringify(toWire(x))} vs ${JSON.stringify(toWire(y))}`);
      if (x !== y && wireKey(x) === wireKey(y)) pairs++;
    }
  }
  assert.ok(pairs >= 2, 'the rebuilt request keys as its equal');
  assert.throws(() => wireKey({ v: obj({ a: s('x').mark('sensitive') }) }), /marked value sent across the provider boundary/);
});

test('A loopback provider receives copies, and its answers (schemas, values, paths, bytes) arrive as equal copies.', async () => {
  const schema: Schema = { version: 2, block: blk({ a: opt(T.String) }, { l: nb('list', blk({ x: opt(T.Number) }), { minItems: 1 }) }) };
  let received: PlanResourceChangeRequest | undefined;
  let answered: PlanResourceChangeResponse | undefined;
  const inner = {
    async getProviderSchema() {
      return { diagnostics: [], provider: schema, resourceTypes: { t_x: schema }, dataSources: {}, serverCapabilities: { planDestroy: false, getProviderSchemaOptional: false, moveResourceState: false } };
    },
    async planResourceChange(req: PlanResourceChangeRequest) {
      received = req;
      answered = {
        diagnostics: [{ severity: 'warning', summary: 'w', path: path('a') }],
        plannedState: req.proposedNewState,
        requiresReplace: [path('l', 0, 'x')],
        plannedPrivate: new Uint8Array([1, 2, 3]),
      };
      return answered;
    },
  } as unknown as Provider;
  const p = loopbackProvider(inner);
  const config = obj({ a: s('v'), l: list(T.Obj({ x: T.Number }), obj({ x: n(1) })) });
  const req: PlanResourceChangeRequest = {
    typeName: 't_x',
    priorState: nul(config.type),
    proposedNewState: config,
    config,
    priorPrivate: new Uint8Array(),
    clientCapabilities: DEFAULT_CLIENT_CAPABILITIES,
  };
  const res = await p.planResourceChange(req);
  assert.ok(received && received !== req && received.config !== config && exactEq(received.config, config));
  assert.ok(res !== answered && res.plannedState !== answered!.plannedState && exactEq(res.plannedState, config));
  assert.deepEqual([...res.plannedPrivate], [1, 2, 3]);
  assert.ok(pathEquals(res.requiresReplace[0], path('l', 0, 'x')));
  assert.ok(res.diagnostics[0].path && pathEquals(res.diagnostics[0].path, path('a')));
  const sch = await p.getProviderSchema();
  assert.equal(sch.resourceTypes.t_x.version, 2);
  assert.equal(goType(sch.resourceTypes.t_x.block.attributes.a.type!), 'cty.String');
  assert.equal(sch.resourceTypes.t_x.block.blockTypes.l.minItems, 1);
});
