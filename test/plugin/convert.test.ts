// Tests for server/plugin/convert.ts: every request and response of the provider interface survives the trip
// through the real protobuf encoding of tfplugin6 and tfplugin5 (proto-loader's serializers), the built-in
// providers' schemas round-trip exactly, protocol 5 refuses nested attribute types, and diagnostics keep their
// attribute paths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../server/lang/types';
import { Value } from '../../server/lang/value';
import { loadProtos } from '../../server/plugin/proto/load';
import { codecs, ConvertError, diagnosticsFromProto, diagnosticsToProto, RPC_NAMES, schemaFromProto, schemaToProto, type Method, type ProtoVersion, type Schemas } from '../../server/plugin/convert';
import { BUILTIN_PROVIDERS } from '../../server/providers/builtin/index';
import type { Schema } from '../../server/providers/schema';
import { path } from '../../server/providers/path';
import { toWire } from '../../server/providers/wire';
import { blk, nb, nested, opt, req, comp, s, n, unk, nul, obj, list } from '../plans/objchange/_helpers';

const protos = loadProtos();
const service = (v: ProtoVersion) => (v === 5 ? protos.tfplugin5 : protos.tfplugin6).Provider.service as unknown as Record<string, { requestSerialize(x: unknown): Buffer; requestDeserialize(b: Buffer): any; responseSerialize(x: unknown): Buffer; responseDeserialize(b: Buffer): any }>;
const canon = (x: unknown) => JSON.stringify(sortKeys(toWire(x))).replace(/,"\$p":\d+/g, '');
function sortKeys(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(sortKeys);
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortKeys(v)]));
  return x;
}

/** A request and its response through protobuf bytes in both directions, compared with the originals. */
function trip<M extends Method>(v: ProtoVersion, method: M, schemas: Schemas, request: any, response: any): void {
  const c = codecs(v)[method] as any;
  const rpc = service(v)[RPC_NAMES[v][method]];
  assert.ok(rpc, `${RPC_NAMES[v][method]} in tfplugin${v}`);
  const reqMsg = rpc.requestDeserialize(rpc.requestSerialize(c.requestToProto(request, schemas)));
  const gotReq = c.requestFromProto(reqMsg, schemas);
  if (request !== undefined) assert.equal(canon(gotReq), canon(request), `${method} request`);
  const resMsg = rpc.responseDeserialize(rpc.responseSerialize(c.responseToProto(response, schemas, request)));
  assert.equal(canon(c.responseFromProto(resMsg, schemas, request)), canon(response), `${method} response`);
}

const thing: Schema = {
  version: 2,
  block: {
    ...blk(
      { id: comp(T.String), name: req(T.String, { description: 'The name.', descriptionKind: 'markdown' }), secret: opt(T.String, { sensitive: true }), wo: opt(T.String, { writeOnly: true }), old: opt(T.Number, { deprecated: true }), any: opt(T.Dynamic), tags: opt(T.Map(T.String)) },
      { rule: nb('list', blk({ port: req(T.Number) }), { minItems: 1, maxItems: 3 }), one: nb('single', blk({ x: opt(T.Bool) })), grp: nb('group', blk({ y: opt(T.String) })), byname: nb('map', blk({ z: opt(T.String) })), set: nb('set', blk({ w: opt(T.String) })) },
    ),
    description: 'A thing.',
  },
};
const schemas: Schemas & { diagnostics: []; serverCapabilities: any } = {
  provider: { version: 0, block: blk({ region: opt(T.String) }) },
  providerMeta: { version: 0, block: blk({ module: opt(T.String) }) },
  resourceTypes: { thing },
  dataSources: { info: { version: 0, block: blk({ q: req(T.String), out: comp(T.List(T.String)) }) } },
  diagnostics: [],
  serverCapabilities: { planDestroy: true, getProviderSchemaOptional: false, moveResourceState: true },
};
const thingObj = (o: Record<string, Value>) => {
  const full: Record<string, Value> = {
    id: nul(T.String), name: nul(T.String), secret: nul(T.String), wo: nul(T.String), old: nul(T.Number), any: nul(T.Dynamic), tags: nul(T.Map(T.String)),
    rule: Value.list([], T.Obj({ port: T.Number })), one: nul(T.Obj({ x: T.Bool })), grp: obj({ y: nul(T.String) }), byname: Value.map(new Map(), T.Obj({ z: T.String })), set: Value.set([], T.Obj({ w: T.String })),
  };
  return obj({ ...full, ...o });
};

for (const v of [5, 6] as const) {
  test(`tfplugin${v}: built-in provider schemas round-trip exactly through protobuf`, async () => {
    let count = 0;
    for (const bp of BUILTIN_PROVIDERS) {
      const r = await bp.factory({}).getProviderSchema();
      if (v === 5 && JSON.stringify(toWire(r)).includes('nestedType')) continue;
      trip(v, 'getProviderSchema', schemas, undefined, r);
      count++;
    }
    assert.equal(count, BUILTIN_PROVIDERS.length);
  });

  test(`tfplugin${v}: a schema with every feature round-trips`, () => {
    trip(v, 'getProviderSchema', schemas, undefined, { ...schemas, resourceTypes: { thing }, dataSources: schemas.dataSources });
  });

  test(`tfplugin${v}: every request and response round-trips`, () => {
    const cfg = thingObj({ name: s('a'), any: Value.tuple([s('x'), n(1)]), tags: Value.map(new Map([['k', s('v')]]), T.String), rule: list(T.Obj({ port: T.Number }), obj({ port: n(80) })) });
    const planned = thingObj({ id: unk(T.String, { notNull: true }), name: s('a') });
    const state = thingObj({ id: s('i-1'), name: s('a') });
    const caps = { deferralAllowed: true, writeOnlyAttributesAllowed: true };
    const diags = [{ severity: 'error' as const, summary: 'Bad', detail: 'very bad', path: path('rule', 0, 'port') }, { severity: 'warning' as const, summary: 'Hmm' }];
    const priv = new Uint8Array([1, 2, 3]);
    trip(v, 'validateProviderConfig', schemas, { config: obj({ region: s('r') }) }, { diagnostics: diags });
    trip(v, 'validateResourceConfig', schemas, { typeName: 'thing', config: cfg, clientCapabilities: caps }, { diagnostics: [] });
    trip(v, 'validateDataResourceConfig', schemas, { typeName: 'info', config: obj({ q: s('x'), out: unk(T.List(T.String)) }) }, { diagnostics: diags });
    trip(v, 'configureProvider', schemas, { terraformVersion: '1.11.4', config: obj({ region: nul(T.String) }), clientCapabilities: caps }, { diagnostics: [] });
    trip(v, 'upgradeResourceState', schemas, { typeName: 'thing', version: 1, rawStateJson: '{\n  "id": "x"\n}' }, { upgradedState: state, diagnostics: [] });
    trip(v, 'upgradeResourceState', schemas, { typeName: 'thing', version: 0, rawStateFlatmap: { id: 'x', '%': '1' } }, { upgradedState: state, diagnostics: [] });
    trip(v, 'readResource', schemas, { typeName: 'thing', currentState: state, private: priv, providerMeta: obj({ module: s('m') }), clientCapabilities: caps }, { newState: nul(thingObj({}).type), private: new Uint8Array(0), diagnostics: [], deferred: { reason: 'absent_prereq' } });
    trip(v, 'planResourceChange', schemas, { typeName: 'thing', priorState: nul(thingObj({}).type), proposedNewState: cfg, config: cfg, priorPrivate: new Uint8Array(0), clientCapabilities: caps }, { plannedState: planned, requiresReplace: [path('name'), path('tags', { key: 'k' })], plannedPrivate: priv, diagnostics: [], legacyTypeSystem: true });
    trip(v, 'planResourceChange', schemas, { typeName: 'thing', priorState: state, proposedNewState: nul(thingObj({}).type), config: nul(thingObj({}).type), priorPrivate: priv, clientCapabilities: caps }, { plannedState: nul(thingObj({}).type), requiresReplace: [], plannedPrivate: new Uint8Array(0), diagnostics: [], deferred: { reason: 'resource_config_unknown' } });
    trip(v, 'applyResourceChange', schemas, { typeName: 'thing', priorState: nul(thingObj({}).type), plannedState: planned, config: cfg, plannedPrivate: priv, providerMeta: obj({ module: nul(T.String) }) }, { newState: state, private: priv, diagnostics: diags });
    trip(v, 'importResourceState', schemas, { typeName: 'thing', id: 'i-1', clientCapabilities: caps }, { importedResources: [{ typeName: 'thing', state, private: priv }], diagnostics: [] });
    trip(v, 'moveResourceState', schemas, { sourceProviderAddress: 'registry.terraform.io/hashicorp/old', sourceTypeName: 'old_thing', sourceSchemaVersion: 3, sourceStateJson: '{"id":"x"}', targetTypeName: 'thing', sourcePrivate: priv }, { targetState: state, targetPrivate: new Uint8Array(0), diagnostics: [] });
    trip(v, 'readDataSource', schemas, { typeName: 'info', config: obj({ q: s('x'), out: nul(T.List(T.String)) }), clientCapabilities: caps }, { state: obj({ q: s('x'), out: list(T.String, s('a')) }), diagnostics: [] });
    trip(v, 'stopProvider', schemas, undefined, { error: 'could not stop' });
    trip(v, 'stopProvider', schemas, undefined, {});
  });
}

test('protocol 5 cannot carry nested attribute types; protocol 6 can', () => {
  const sc: Schema = { version: 0, block: blk({ obj: nested('list', { a: opt(T.String) }, { description: 'nested' }) }) };
  assert.throws(() => schemaToProto(sc, 5), (e: unknown) => e instanceof ConvertError && /protocol 5 cannot carry nested attribute types/.test(e.message));
  const back = schemaFromProto(service(6).GetProviderSchema.responseDeserialize(service(6).GetProviderSchema.responseSerialize({ provider: schemaToProto(sc, 6) })).provider);
  assert.equal(canon(back), canon(sc));
});

test('the protocol 5 RPC names', () => {
  assert.deepEqual(
    (['getProviderSchema', 'validateProviderConfig', 'validateResourceConfig', 'validateDataResourceConfig', 'configureProvider', 'stopProvider'] as Method[]).map((m) => RPC_NAMES[5][m]),
    ['GetSchema', 'PrepareProviderConfig', 'ValidateResourceTypeConfig', 'ValidateDataSourceConfig', 'Configure', 'Stop'],
  );
  for (const m of Object.keys(RPC_NAMES[5]) as Method[]) assert.ok(service(5)[RPC_NAMES[5][m]], RPC_NAMES[5][m]);
  for (const m of Object.keys(RPC_NAMES[6]) as Method[]) assert.ok(service(6)[RPC_NAMES[6][m]], RPC_NAMES[6][m]);
});

test('diagnostics: attribute paths with attribute, string-key and int-key steps; no attribute means no path', () => {
  const ds = diagnosticsFromProto(diagnosticsToProto([{ severity: 'error', summary: 's', detail: 'd', path: path('a', { key: 'k' }, 3, 'b') }, { severity: 'warning', summary: 'w' }]));
  assert.equal(canon(ds), canon([{ severity: 'error', summary: 's', detail: 'd', path: path('a', { key: 'k' }, 3, 'b') }, { severity: 'warning', summary: 'w' }]));
  // proto-loader's decoded form (oneof selector) of what terraform-plugin-go sends.
  const fromWire = diagnosticsFromProto([{ severity: 'ERROR', summary: 'x', detail: '', attribute: { steps: [{ selector: 'attribute_name', attribute_name: 'n' }, { selector: 'element_key_int', element_key_int: 0 }] } }]);
  assert.equal(canon(fromWire), canon([{ severity: 'error', summary: 'x', path: path('n', 0) }]));
});

test('a value that does not match the schema is a ConvertError naming the field', () => {
  const c = codecs(6).planResourceChange;
  assert.throws(() => c.requestFromProto({ type_name: 'thing', prior_state: { msgpack: Buffer.from([0x81, 0xa1, 0x78, 0x01]) } }, schemas), (e: unknown) => e instanceof ConvertError && e.message === 'an object with 12 attributes is required (1 given)' && e.field === 'prior_state');
  assert.throws(() => c.requestFromProto({ type_name: 'nope' }, schemas), (e: unknown) => e instanceof ConvertError && e.message === 'unknown resource type "nope"');
});
