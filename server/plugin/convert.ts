// Conversion between the plugin protocol's messages (tfplugin5/tfplugin6, in @grpc/proto-loader's object form)
// and the provider interface's requests and responses (server/providers/provider.ts).
//
// API (stable; used by serve.ts and the client in server/plugin/client/):
//   ProtoVersion = 5 | 6
//   RPC_NAMES[version][method]         — the gRPC method for a Provider method: protocol 5 names differ
//       (GetSchema, PrepareProviderConfig, ValidateResourceTypeConfig, ValidateDataSourceConfig, Configure, Stop).
//   schemaToProto / schemaFromProto   — Schema ↔ tfplugin Schema (blocks, nested blocks with min/max items,
//       nested attribute types (6 only: converting one for 5 throws ConvertError), descriptions and their kind,
//       deprecation, sensitive, write-only; attribute types as cty type JSON bytes).
//   diagnosticsToProto / diagnosticsFromProto, pathToProto / pathFromProto — AttributePath steps
//       (attribute_name, element_key_string, element_key_int); a diagnostic without `attribute` has no path.
//   CODECS[method]                    — per Provider method: requestToProto(req, schemas), requestFromProto(msg,
//       schemas), responseToProto(res, schemas, req), responseFromProto(msg, schemas, req). Values travel as
//       msgpack DynamicValues of the schema's implied type (msgpack.ts); private data as bytes; RawState as JSON
//       text; deferred reasons and capabilities as their messages. `schemas` is the provider's
//       GetProviderSchemaResponse (the type of each value comes from it); the request is passed to the response
//       converters so they know which type a response value has.
//   Errors: a message that cannot be decoded (unknown type name, malformed msgpack) throws ConvertError; for a
//   value its message is cty's decoder error exactly as Terraform reports it (`["prefix"]: string is required`)
//   and `field` names the message field; callers turn it into a diagnostic or a gRPC error.

import * as T from '../lang/types';
import type { Type } from '../lang/types';
import { Value } from '../lang/value';
import type * as P from '../providers/provider';
import { fromProtocolPath, toProtocolPath, type Path, type ProtocolStep } from '../providers/path';
import type { Attribute, Block, BlockNesting, NestedBlock, NestedObject, Schema, AttributeNesting } from '../providers/schema';
import { impliedType } from '../providers/schema';
import { typeFromJSON, typeToJSON } from '../providers/wire';
import { decodeDynamicValue, encodeDynamicValue, MsgpackError, type DynamicValue } from './msgpack';

export type ProtoVersion = 5 | 6;

export class ConvertError extends Error {
  constructor(
    message: string,
    /** The message field that did not decode (for example "planned_state"), when a value failed. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Provider methods that are RPCs (close() is not). */
export type Method = Exclude<keyof P.Provider, 'close'>;

const RPC6: Record<Method, string> = {
  getProviderSchema: 'GetProviderSchema',
  validateProviderConfig: 'ValidateProviderConfig',
  validateResourceConfig: 'ValidateResourceConfig',
  validateDataResourceConfig: 'ValidateDataResourceConfig',
  configureProvider: 'ConfigureProvider',
  upgradeResourceState: 'UpgradeResourceState',
  readResource: 'ReadResource',
  planResourceChange: 'PlanResourceChange',
  applyResourceChange: 'ApplyResourceChange',
  importResourceState: 'ImportResourceState',
  moveResourceState: 'MoveResourceState',
  readDataSource: 'ReadDataSource',
  stopProvider: 'StopProvider',
};
const RPC5: Record<Method, string> = {
  ...RPC6,
  getProviderSchema: 'GetSchema',
  validateProviderConfig: 'PrepareProviderConfig',
  validateResourceConfig: 'ValidateResourceTypeConfig',
  validateDataResourceConfig: 'ValidateDataSourceConfig',
  configureProvider: 'Configure',
  stopProvider: 'Stop',
};
export const RPC_NAMES: Record<ProtoVersion, Record<Method, string>> = { 5: RPC5, 6: RPC6 };

// ---- message shapes (proto-loader objects; keepCase) ----------------------------------------------------------

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Msg = Record<string, any>;

// ---- types and schemas --------------------------------------------------------------------------------------

export function typeToBytes(t: Type): Buffer {
  return Buffer.from(JSON.stringify(typeToJSON(t)), 'utf8');
}

export function typeFromBytes(b: Uint8Array, where: string): Type {
  try {
    return typeFromJSON(JSON.parse(Buffer.from(b).toString('utf8')));
  } catch (e) {
    throw new ConvertError(`${where}: invalid type: ${(e as Error).message}`);
  }
}

const kindToProto = (k: 'plain' | 'markdown' | undefined) => (k === 'markdown' ? 'MARKDOWN' : 'PLAIN');
const kindFromProto = (k: unknown): 'plain' | 'markdown' | undefined => (k === 'MARKDOWN' || k === 1 ? 'markdown' : undefined);

function attributeToProto(name: string, a: Attribute, v: ProtoVersion): Msg {
  const m: Msg = {
    name,
    type: a.type ? typeToBytes(a.type) : Buffer.alloc(0),
    description: a.description ?? '',
    required: !!a.required,
    optional: !!a.optional,
    computed: !!a.computed,
    sensitive: !!a.sensitive,
    description_kind: kindToProto(a.descriptionKind),
    deprecated: !!a.deprecated,
    write_only: !!a.writeOnly,
  };
  if (a.nestedType) {
    if (v === 5) throw new ConvertError(`attribute ${JSON.stringify(name)}: protocol 5 cannot carry nested attribute types`);
    m.nested_type = {
      attributes: Object.entries(a.nestedType.attributes).map(([n, x]) => attributeToProto(n, x, v)),
      nesting: a.nestedType.nesting.toUpperCase(),
    };
  }
  return m;
}

function attributeFromProto(m: Msg, where: string): Attribute {
  const a: { -readonly [K in keyof Attribute]: Attribute[K] } = {};
  if (m.nested_type) {
    const nesting = String(m.nested_type.nesting).toLowerCase() as AttributeNesting;
    if (!['single', 'list', 'set', 'map'].includes(nesting)) throw new ConvertError(`${where}: invalid nesting mode ${m.nested_type.nesting}`);
    const attributes: Record<string, Attribute> = {};
    for (const x of m.nested_type.attributes ?? []) attributes[x.name] = attributeFromProto(x, `${where}.${x.name}`);
    a.nestedType = { nesting, attributes } as NestedObject;
  } else {
    a.type = typeFromBytes(m.type ?? Buffer.alloc(0), where);
  }
  if (m.description) a.description = m.description;
  const dk = kindFromProto(m.description_kind);
  if (dk) a.descriptionKind = dk;
  if (m.required) a.required = true;
  if (m.optional) a.optional = true;
  if (m.computed) a.computed = true;
  if (m.sensitive) a.sensitive = true;
  if (m.deprecated) a.deprecated = true;
  if (m.write_only) a.writeOnly = true;
  return a;
}

function blockToProto(b: Block, v: ProtoVersion, version = 0): Msg {
  return {
    version,
    attributes: Object.keys(b.attributes)
      .sort(T.compareBytes)
      .map((n) => attributeToProto(n, b.attributes[n], v)),
    block_types: Object.keys(b.blockTypes)
      .sort(T.compareBytes)
      .map((n) => {
        const nb = b.blockTypes[n];
        return { type_name: n, block: blockToProto(nb.block, v), nesting: nb.nesting.toUpperCase(), min_items: nb.minItems ?? 0, max_items: nb.maxItems ?? 0 };
      }),
    description: b.description ?? '',
    description_kind: kindToProto(b.descriptionKind),
    deprecated: !!b.deprecated,
  };
}

function blockFromProto(m: Msg | null | undefined, where: string): Block {
  const attributes: Record<string, Attribute> = {};
  const blockTypes: Record<string, NestedBlock> = {};
  for (const a of m?.attributes ?? []) attributes[a.name] = attributeFromProto(a, `${where}.${a.name}`);
  for (const nbm of m?.block_types ?? []) {
    const nesting = String(nbm.nesting).toLowerCase() as BlockNesting;
    if (!['single', 'group', 'list', 'set', 'map'].includes(nesting)) throw new ConvertError(`${where}.${nbm.type_name}: invalid nesting mode ${nbm.nesting}`);
    const nb: { -readonly [K in keyof NestedBlock]: NestedBlock[K] } = { nesting, block: blockFromProto(nbm.block, `${where}.${nbm.type_name}`) };
    if (Number(nbm.min_items)) nb.minItems = Number(nbm.min_items);
    if (Number(nbm.max_items)) nb.maxItems = Number(nbm.max_items);
    blockTypes[nbm.type_name] = nb;
  }
  const b: { -readonly [K in keyof Block]: Block[K] } = { attributes, blockTypes };
  if (m?.description) b.description = m.description;
  const dk = kindFromProto(m?.description_kind);
  if (dk) b.descriptionKind = dk;
  if (m?.deprecated) b.deprecated = true;
  return b;
}

export function schemaToProto(s: Schema, v: ProtoVersion): Msg {
  return { version: s.version, block: blockToProto(s.block, v, s.version) };
}

export function schemaFromProto(m: Msg | null | undefined, where = 'schema'): Schema {
  return { version: Number(m?.version ?? 0), block: blockFromProto(m?.block, where) };
}

// ---- paths and diagnostics ----------------------------------------------------------------------------------

export function pathToProto(p: Path): Msg {
  return {
    steps: toProtocolPath(p).map((s) => ('attributeName' in s ? { attribute_name: s.attributeName } : 'elementKeyString' in s ? { element_key_string: s.elementKeyString } : { element_key_int: s.elementKeyInt })),
  };
}

export function pathFromProto(m: Msg): Path {
  const steps: ProtocolStep[] = [];
  for (const s of m.steps ?? []) {
    const sel = s.selector ?? (s.attribute_name ? 'attribute_name' : s.element_key_string ? 'element_key_string' : 'element_key_int');
    if (sel === 'attribute_name') steps.push({ attributeName: s.attribute_name });
    else if (sel === 'element_key_string') steps.push({ elementKeyString: s.element_key_string });
    else steps.push({ elementKeyInt: Number(s.element_key_int) });
  }
  return fromProtocolPath(steps);
}

export function diagnosticsToProto(ds: readonly P.ProviderDiagnostic[]): Msg[] {
  return ds.map((d) => {
    const m: Msg = { severity: d.severity === 'warning' ? 'WARNING' : 'ERROR', summary: d.summary, detail: d.detail ?? '' };
    if (d.path) m.attribute = pathToProto(d.path);
    return m;
  });
}

export function diagnosticsFromProto(ms: readonly Msg[] | null | undefined): P.ProviderDiagnostic[] {
  return (ms ?? []).map((m) => {
    const d: P.ProviderDiagnostic = { severity: m.severity === 'WARNING' || m.severity === 2 ? 'warning' : 'error', summary: m.summary ?? '' };
    if (m.detail) d.detail = m.detail;
    if (m.attribute) d.path = pathFromProto(m.attribute);
    return d;
  });
}

// ---- values ---------------------------------------------------------------------------------------------------

export interface Schemas {
  provider: Schema;
  providerMeta?: Schema;
  resourceTypes: Record<string, Schema>;
  dataSources: Record<string, Schema>;
}

function resourceType(s: Schemas, name: string): Type {
  const r = s.resourceTypes[name];
  if (!r) throw new ConvertError(`unknown resource type ${JSON.stringify(name)}`);
  return impliedType(r.block);
}
function dataType(s: Schemas, name: string): Type {
  const r = s.dataSources[name];
  if (!r) throw new ConvertError(`unknown data source ${JSON.stringify(name)}`);
  return impliedType(r.block);
}
const providerType = (s: Schemas) => impliedType(s.provider.block);
const metaType = (s: Schemas) => (s.providerMeta ? impliedType(s.providerMeta.block) : T.Dynamic);

function enc(v: Value, t: Type): Msg {
  return encodeDynamicValue(v, t);
}
function dec(m: DynamicValue | null | undefined, t: Type, what: string): Value {
  try {
    return decodeDynamicValue(m, t);
  } catch (e) {
    // The message is cty's alone (path first), as Terraform reports an undecodable answer; `field` says which.
    if (e instanceof MsgpackError) throw new ConvertError(e.message, what);
    throw e;
  }
}
/** provider_meta: absent (undefined) when the request has none. */
function encMeta(v: Value | undefined, s: Schemas): Msg | undefined {
  return v === undefined ? undefined : enc(v, metaType(s));
}
function decMeta(m: DynamicValue | null | undefined, s: Schemas): Value | undefined {
  if (!m || (!m.msgpack?.length && !m.json?.length)) return undefined;
  return dec(m, metaType(s), 'provider_meta');
}

const bytes = (b: Uint8Array | undefined | null): Buffer => (b && b.length ? Buffer.from(b.buffer, b.byteOffset, b.length) : Buffer.alloc(0));
const priv = (b: Uint8Array | undefined | null): Uint8Array => (b && b.length ? new Uint8Array(b) : new Uint8Array(0));

function capsToProto(c: P.ClientCapabilities | undefined): Msg {
  return { deferral_allowed: !!c?.deferralAllowed, write_only_attributes_allowed: !!c?.writeOnlyAttributesAllowed };
}
function capsFromProto(m: Msg | null | undefined): P.ClientCapabilities {
  return { deferralAllowed: !!m?.deferral_allowed, writeOnlyAttributesAllowed: !!m?.write_only_attributes_allowed };
}
function deferredToProto(d: P.Deferred | undefined): Msg | undefined {
  return d ? { reason: d.reason.toUpperCase() } : undefined;
}
function deferredFromProto(m: Msg | null | undefined): P.Deferred | undefined {
  if (!m) return undefined;
  const r = typeof m.reason === 'string' ? m.reason.toLowerCase() : (['unknown', 'resource_config_unknown', 'provider_config_unknown', 'absent_prereq'][m.reason] ?? 'unknown');
  return { reason: r as P.DeferredReason };
}
function rawStateToProto(json: string | undefined, flatmap?: Record<string, string>): Msg {
  return { json: json === undefined ? Buffer.alloc(0) : Buffer.from(json, 'utf8'), flatmap: flatmap ?? {} };
}

// ---- codecs per method ----------------------------------------------------------------------------------------

export interface Codec<Req, Res> {
  requestToProto(req: Req, s: Schemas): Msg;
  requestFromProto(m: Msg, s: Schemas): Req;
  responseToProto(res: Res, s: Schemas, req: Req): Msg;
  responseFromProto(m: Msg, s: Schemas, req: Req): Res;
}

type Req<M extends Method> = Parameters<P.Provider[M]>[0];
type Res<M extends Method> = Awaited<ReturnType<P.Provider[M]>>;

const diagOnly = {
  responseToProto: (r: P.Response) => ({ diagnostics: diagnosticsToProto(r.diagnostics) }),
  responseFromProto: (m: Msg) => ({ diagnostics: diagnosticsFromProto(m.diagnostics) }),
};

function schemasToProto(r: P.GetProviderSchemaResponse, v: ProtoVersion): Msg {
  const map = (o: Record<string, Schema> | undefined) => Object.fromEntries(Object.entries(o ?? {}).map(([k, x]) => [k, schemaToProto(x, v)]));
  const m: Msg = {
    provider: schemaToProto(r.provider, v),
    resource_schemas: map(r.resourceTypes),
    data_source_schemas: map(r.dataSources),
    functions: {},
    ephemeral_resource_schemas: map(r.ephemeralResourceTypes),
    diagnostics: diagnosticsToProto(r.diagnostics),
    server_capabilities: {
      plan_destroy: r.serverCapabilities.planDestroy,
      get_provider_schema_optional: r.serverCapabilities.getProviderSchemaOptional,
      move_resource_state: r.serverCapabilities.moveResourceState,
    },
  };
  if (r.providerMeta) m.provider_meta = schemaToProto(r.providerMeta, v);
  return m;
}

export function schemasFromProto(m: Msg): P.GetProviderSchemaResponse {
  const map = (o: Record<string, Msg> | undefined, kind: string) => Object.fromEntries(Object.entries(o ?? {}).map(([k, x]) => [k, schemaFromProto(x, `${kind} ${k}`)]));
  const r: P.GetProviderSchemaResponse = {
    provider: schemaFromProto(m.provider, 'provider'),
    resourceTypes: map(m.resource_schemas, 'resource'),
    dataSources: map(m.data_source_schemas, 'data source'),
    diagnostics: diagnosticsFromProto(m.diagnostics),
    serverCapabilities: {
      planDestroy: !!m.server_capabilities?.plan_destroy,
      getProviderSchemaOptional: !!m.server_capabilities?.get_provider_schema_optional,
      moveResourceState: !!m.server_capabilities?.move_resource_state,
    },
  };
  const eph = m.ephemeral_resource_schemas;
  if (eph && Object.keys(eph).length) r.ephemeralResourceTypes = map(eph, 'ephemeral resource');
  // An absent provider_meta decodes (with defaults) as null; an empty block means "no provider_meta schema".
  if (m.provider_meta && (m.provider_meta.block?.attributes?.length || m.provider_meta.block?.block_types?.length)) r.providerMeta = schemaFromProto(m.provider_meta, 'provider_meta');
  return r;
}

/** The codecs for one protocol version (they differ only in the schema conversion and PrepareProviderConfig). */
export function codecs(v: ProtoVersion): { [M in Method]: Codec<Req<M>, Res<M>> } {
  return {
    getProviderSchema: {
      requestToProto: () => ({}),
      requestFromProto: () => undefined as never,
      responseToProto: (r) => schemasToProto(r, v),
      responseFromProto: (m) => schemasFromProto(m),
    },
    validateProviderConfig: {
      requestToProto: (r, s) => ({ config: enc(r.config, providerType(s)) }),
      requestFromProto: (m, s) => ({ config: dec(m.config, providerType(s), 'config') }),
      // Protocol 5's PrepareProviderConfig answers with the (unchanged) configuration; core ignores it.
      responseToProto: (r, s, req) => (v === 5 ? { prepared_config: enc(req.config, providerType(s)), diagnostics: diagnosticsToProto(r.diagnostics) } : { diagnostics: diagnosticsToProto(r.diagnostics) }),
      responseFromProto: diagOnly.responseFromProto,
    },
    validateResourceConfig: {
      requestToProto: (r, s) => ({ type_name: r.typeName, config: enc(r.config, resourceType(s, r.typeName)), client_capabilities: capsToProto(r.clientCapabilities) }),
      requestFromProto: (m, s) => ({ typeName: m.type_name, config: dec(m.config, resourceType(s, m.type_name), 'config'), clientCapabilities: capsFromProto(m.client_capabilities) }),
      ...diagOnly,
    },
    validateDataResourceConfig: {
      requestToProto: (r, s) => ({ type_name: r.typeName, config: enc(r.config, dataType(s, r.typeName)) }),
      requestFromProto: (m, s) => ({ typeName: m.type_name, config: dec(m.config, dataType(s, m.type_name), 'config') }),
      ...diagOnly,
    },
    configureProvider: {
      requestToProto: (r, s) => ({ terraform_version: r.terraformVersion, config: enc(r.config, providerType(s)), client_capabilities: capsToProto(r.clientCapabilities) }),
      requestFromProto: (m, s) => ({ terraformVersion: m.terraform_version ?? '', config: dec(m.config, providerType(s), 'config'), clientCapabilities: capsFromProto(m.client_capabilities) }),
      ...diagOnly,
    },
    upgradeResourceState: {
      requestToProto: (r) => ({ type_name: r.typeName, version: r.version, raw_state: rawStateToProto(r.rawStateJson, r.rawStateFlatmap) }),
      requestFromProto: (m) => {
        const req: P.UpgradeResourceStateRequest = { typeName: m.type_name, version: Number(m.version ?? 0) };
        const json = m.raw_state?.json;
        if (json && json.length) req.rawStateJson = Buffer.from(json).toString('utf8');
        const flat = m.raw_state?.flatmap;
        if (flat && Object.keys(flat).length) req.rawStateFlatmap = { ...flat };
        return req;
      },
      responseToProto: (r, s, req) => ({ upgraded_state: enc(r.upgradedState, resourceType(s, req.typeName)), diagnostics: diagnosticsToProto(r.diagnostics) }),
      responseFromProto: (m, s, req) => ({ upgradedState: dec(m.upgraded_state, resourceType(s, req.typeName), 'upgraded_state'), diagnostics: diagnosticsFromProto(m.diagnostics) }),
    },
    readResource: {
      requestToProto: (r, s) => ({
        type_name: r.typeName,
        current_state: enc(r.currentState, resourceType(s, r.typeName)),
        private: bytes(r.private),
        provider_meta: encMeta(r.providerMeta, s),
        client_capabilities: capsToProto(r.clientCapabilities),
      }),
      requestFromProto: (m, s) => withMeta({ typeName: m.type_name, currentState: dec(m.current_state, resourceType(s, m.type_name), 'current_state'), private: priv(m.private), clientCapabilities: capsFromProto(m.client_capabilities) }, decMeta(m.provider_meta, s)),
      responseToProto: (r, s, req) => ({ new_state: enc(r.newState, resourceType(s, req.typeName)), diagnostics: diagnosticsToProto(r.diagnostics), private: bytes(r.private), deferred: deferredToProto(r.deferred) }),
      responseFromProto: (m, s, req) => withDeferred({ newState: dec(m.new_state, resourceType(s, req.typeName), 'new_state'), diagnostics: diagnosticsFromProto(m.diagnostics), private: priv(m.private) }, m.deferred),
    },
    planResourceChange: {
      requestToProto: (r, s) => {
        const t = resourceType(s, r.typeName);
        return {
          type_name: r.typeName,
          prior_state: enc(r.priorState, t),
          proposed_new_state: enc(r.proposedNewState, t),
          config: enc(r.config, t),
          prior_private: bytes(r.priorPrivate),
          provider_meta: encMeta(r.providerMeta, s),
          client_capabilities: capsToProto(r.clientCapabilities),
        };
      },
      requestFromProto: (m, s) => {
        const t = resourceType(s, m.type_name);
        return withMeta(
          {
            typeName: m.type_name,
            priorState: dec(m.prior_state, t, 'prior_state'),
            proposedNewState: dec(m.proposed_new_state, t, 'proposed_new_state'),
            config: dec(m.config, t, 'config'),
            priorPrivate: priv(m.prior_private),
            clientCapabilities: capsFromProto(m.client_capabilities),
          },
          decMeta(m.provider_meta, s),
        );
      },
      responseToProto: (r, s, req) => ({
        planned_state: enc(r.plannedState, resourceType(s, req.typeName)),
        requires_replace: (r.requiresReplace ?? []).map(pathToProto),
        planned_private: bytes(r.plannedPrivate),
        diagnostics: diagnosticsToProto(r.diagnostics),
        legacy_type_system: !!r.legacyTypeSystem,
        deferred: deferredToProto(r.deferred),
      }),
      responseFromProto: (m, s, req) => {
        const res: P.PlanResourceChangeResponse = {
          plannedState: dec(m.planned_state, resourceType(s, req.typeName), 'planned_state'),
          requiresReplace: (m.requires_replace ?? []).map(pathFromProto),
          plannedPrivate: priv(m.planned_private),
          diagnostics: diagnosticsFromProto(m.diagnostics),
        };
        if (m.legacy_type_system) res.legacyTypeSystem = true;
        return withDeferred(res, m.deferred);
      },
    },
    applyResourceChange: {
      requestToProto: (r, s) => {
        const t = resourceType(s, r.typeName);
        return {
          type_name: r.typeName,
          prior_state: enc(r.priorState, t),
          planned_state: enc(r.plannedState, t),
          config: enc(r.config, t),
          planned_private: bytes(r.plannedPrivate),
          provider_meta: encMeta(r.providerMeta, s),
        };
      },
      requestFromProto: (m, s) => {
        const t = resourceType(s, m.type_name);
        return withMeta(
          {
            typeName: m.type_name,
            priorState: dec(m.prior_state, t, 'prior_state'),
            plannedState: dec(m.planned_state, t, 'planned_state'),
            config: dec(m.config, t, 'config'),
            plannedPrivate: priv(m.planned_private),
          },
          decMeta(m.provider_meta, s),
        );
      },
      responseToProto: (r, s, req) => ({ new_state: enc(r.newState, resourceType(s, req.typeName)), private: bytes(r.private), diagnostics: diagnosticsToProto(r.diagnostics), legacy_type_system: !!r.legacyTypeSystem }),
      responseFromProto: (m, s, req) => {
        const res: P.ApplyResourceChangeResponse = { newState: dec(m.new_state, resourceType(s, req.typeName), 'new_state'), private: priv(m.private), diagnostics: diagnosticsFromProto(m.diagnostics) };
        if (m.legacy_type_system) res.legacyTypeSystem = true;
        return res;
      },
    },
    importResourceState: {
      requestToProto: (r) => ({ type_name: r.typeName, id: r.id, client_capabilities: capsToProto(r.clientCapabilities) }),
      requestFromProto: (m) => ({ typeName: m.type_name, id: m.id ?? '', clientCapabilities: capsFromProto(m.client_capabilities) }),
      responseToProto: (r, s) => ({
        imported_resources: r.importedResources.map((x) => ({ type_name: x.typeName, state: enc(x.state, resourceType(s, x.typeName)), private: bytes(x.private) })),
        diagnostics: diagnosticsToProto(r.diagnostics),
        deferred: deferredToProto(r.deferred),
      }),
      responseFromProto: (m, s) =>
        withDeferred(
          {
            importedResources: (m.imported_resources ?? []).map((x: Msg) => ({ typeName: x.type_name, state: dec(x.state, resourceType(s, x.type_name), 'imported_resources.state'), private: priv(x.private) })),
            diagnostics: diagnosticsFromProto(m.diagnostics),
          },
          m.deferred,
        ),
    },
    moveResourceState: {
      requestToProto: (r) => ({
        source_provider_address: r.sourceProviderAddress,
        source_type_name: r.sourceTypeName,
        source_schema_version: r.sourceSchemaVersion,
        source_state: rawStateToProto(r.sourceStateJson),
        target_type_name: r.targetTypeName,
        source_private: bytes(r.sourcePrivate),
      }),
      requestFromProto: (m) => ({
        sourceProviderAddress: m.source_provider_address ?? '',
        sourceTypeName: m.source_type_name ?? '',
        sourceSchemaVersion: Number(m.source_schema_version ?? 0),
        sourceStateJson: m.source_state?.json ? Buffer.from(m.source_state.json).toString('utf8') : '',
        targetTypeName: m.target_type_name ?? '',
        sourcePrivate: priv(m.source_private),
      }),
      responseToProto: (r, s, req) => ({ target_state: enc(r.targetState, resourceType(s, req.targetTypeName)), diagnostics: diagnosticsToProto(r.diagnostics), target_private: bytes(r.targetPrivate) }),
      responseFromProto: (m, s, req) => {
        const diagnostics = diagnosticsFromProto(m.diagnostics);
        // A failed move may leave target_state empty: decode to null of the type then.
        return { targetState: dec(m.target_state, resourceType(s, req.targetTypeName), 'target_state'), targetPrivate: priv(m.target_private), diagnostics };
      },
    },
    readDataSource: {
      requestToProto: (r, s) => ({ type_name: r.typeName, config: enc(r.config, dataType(s, r.typeName)), provider_meta: encMeta(r.providerMeta, s), client_capabilities: capsToProto(r.clientCapabilities) }),
      requestFromProto: (m, s) => withMeta({ typeName: m.type_name, config: dec(m.config, dataType(s, m.type_name), 'config'), clientCapabilities: capsFromProto(m.client_capabilities) }, decMeta(m.provider_meta, s)),
      responseToProto: (r, s, req) => ({ state: enc(r.state, dataType(s, req.typeName)), diagnostics: diagnosticsToProto(r.diagnostics), deferred: deferredToProto(r.deferred) }),
      responseFromProto: (m, s, req) => withDeferred({ state: dec(m.state, dataType(s, req.typeName), 'state'), diagnostics: diagnosticsFromProto(m.diagnostics) }, m.deferred),
    },
    stopProvider: {
      requestToProto: () => ({}),
      requestFromProto: () => undefined as never,
      responseToProto: (r) => ({ Error: r.error ?? '' }),
      responseFromProto: (m) => (m.Error ? { error: m.Error } : {}),
    },
  };
}

function withMeta<X extends object>(x: X, meta: Value | undefined): X & { providerMeta?: Value } {
  return meta === undefined ? x : { ...x, providerMeta: meta };
}
function withDeferred<X extends object>(x: X, m: Msg | null | undefined): X & { deferred?: P.Deferred } {
  const d = deferredFromProto(m);
  return d ? { ...x, deferred: d } : x;
}

/** A null of the resource type, for callers that need a placeholder after a failed decode. */
export function nullOfResource(s: Schemas, typeName: string): Value {
  const r = s.resourceTypes[typeName];
  return Value.null(r ? impliedType(r.block) : T.Dynamic);
}
