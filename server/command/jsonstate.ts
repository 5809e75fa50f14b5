// The JSON representation of a state (Terraform's internal/command/jsonstate): what `terraform show -json`
// prints for the current state, and the decoded module tree the human state renderer (format/state.ts) draws.
//
// Also holds cty's JSON value codec (ctyjson.Unmarshal/Marshal) over the lang Value model, which the output and
// show commands use for output values and resource attributes.
//
// Contracts:
// - `marshalState` returns exactly the bytes of Go's json.Marshal of jsonstate's `state` struct (compact, struct
//   field order, map keys sorted, HTML-safe escaping), without a trailing newline.
// - Resource attribute values are decoded with the resource type's schema (`SchemaSource`); sensitive paths from
//   the state plus the schema's sensitive attributes are marked 'sensitive' on the decoded values. When no
//   schema is known (a provider Foresight cannot load) the stored JSON is decoded by inference, so the output stays
//   usable rather than failing as Terraform would.
// - Nothing here does I/O.

import { goQuote } from '../states/statefile';
import { Num } from '../lang/number';
import * as T from '../lang/types';
import type { Type } from '../lang/types';
import { Value } from '../lang/value';
import { typeFromJSON, typeToJSON } from '../providers/wire';
import type { Attribute, Block, NestedBlock, Schema } from '../providers/schema';
import { impliedType } from '../providers/schema';
import { startBuiltinProvider } from '../providers/builtin/index';
import {
  compareInstanceKeys,
  instanceKeySuffix,
  parseModuleInstance,
  type AttrPath,
  type CheckResult,
  type InstanceKey,
  type ObjectSrc,
  type OutputValue,
  type ResourceState,
  type State,
} from '../states/state';

// ---- JSON with exact numbers -------------------------------------------------------------------------------------

export type JV = null | boolean | string | JNum | JV[] | JObj;
export class JNum {
  constructor(readonly text: string) {}
}
export class JObj {
  constructor(readonly entries: [string, JV][]) {}
  get(k: string): JV | undefined {
    let f: JV | undefined;
    for (const [n, v] of this.entries) if (n === k) f = v;
    return f;
  }
}

/** Parses JSON keeping number texts; throws SyntaxError on bad input. */
export function parseJV(src: string): JV {
  let i = 0;
  const ws = () => {
    while (i < src.length && ' \t\r\n'.includes(src[i])) i++;
  };
  const value = (): JV => {
    ws();
    const c = src[i];
    if (c === '{') {
      i++;
      const entries: [string, JV][] = [];
      ws();
      if (src[i] === '}') {
        i++;
        return new JObj(entries);
      }
      for (;;) {
        ws();
        const k = value();
        if (typeof k !== 'string') throw new SyntaxError('expected key');
        ws();
        if (src[i++] !== ':') throw new SyntaxError("expected ':'");
        entries.push([k, value()]);
        ws();
        const d = src[i++];
        if (d === '}') return new JObj(entries);
        if (d !== ',') throw new SyntaxError("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const items: JV[] = [];
      ws();
      if (src[i] === ']') {
        i++;
        return items;
      }
      for (;;) {
        items.push(value());
        ws();
        const d = src[i++];
        if (d === ']') return items;
        if (d !== ',') throw new SyntaxError("expected ',' or ']'");
      }
    }
    if (c === '"') {
      const s = i;
      i++;
      while (i < src.length && src[i] !== '"') i += src[i] === '\\' ? 2 : 1;
      i++;
      return JSON.parse(src.slice(s, i)) as string;
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(src.slice(i, i + 400));
    if (m) {
      i += m[0].length;
      return new JNum(m[0]);
    }
    if (src.startsWith('true', i)) return (i += 4), true;
    if (src.startsWith('false', i)) return (i += 5), false;
    if (src.startsWith('null', i)) return (i += 4), null;
    throw new SyntaxError(`invalid character at ${i}`);
  };
  const v = value();
  ws();
  if (i < src.length) throw new SyntaxError('trailing data');
  return v;
}

// ---- ctyjson ---------------------------------------------------------------------------------------------------

function numOf(j: JNum): Num {
  const n = Num.parse(j.text);
  if (!n) throw new Error(`invalid number ${j.text}`);
  return n;
}

/** ctyjson.Unmarshal: the value of `j` as type `ty`; throws on a mismatch. */
export function ctyUnmarshal(j: JV, ty: Type): Value {
  if (ty.kind === 'dynamic') {
    if (j === null) return Value.null(T.Dynamic);
    if (!(j instanceof JObj)) throw new Error('dynamic value must be an object with value and type');
    const t = j.get('type');
    const v = j.get('value');
    if (t === undefined || v === undefined) throw new Error('dynamic value must have value and type');
    return ctyUnmarshal(v, typeFromJSON(plain(t)));
  }
  if (j === null) return Value.null(ty);
  switch (ty.kind) {
    case 'string':
      if (typeof j === 'string') return Value.string(j);
      if (j instanceof JNum) return Value.string(j.text);
      if (typeof j === 'boolean') return Value.string(j ? 'true' : 'false');
      throw new Error('string required');
    case 'number':
      if (j instanceof JNum) return Value.number(numOf(j));
      if (typeof j === 'string') {
        const n = Num.parse(j);
        if (n) return Value.number(n);
      }
      throw new Error('number required');
    case 'bool':
      if (typeof j === 'boolean') return Value.bool(j);
      if (j === 'true' || j === 'false') return Value.bool(j === 'true');
      throw new Error('bool required');
    case 'list':
    case 'set': {
      if (!Array.isArray(j)) throw new Error('array required');
      const es = j.map((e) => ctyUnmarshal(e, ty.elem));
      return ty.kind === 'list' ? Value.list(es, ty.elem) : Value.set(es, ty.elem);
    }
    case 'tuple': {
      if (!Array.isArray(j) || j.length !== ty.elems.length) throw new Error('tuple required');
      return Value.tuple(j.map((e, i) => ctyUnmarshal(e, ty.elems[i])));
    }
    case 'map': {
      if (!(j instanceof JObj)) throw new Error('object required');
      const m = new Map<string, Value>();
      for (const [k, v] of j.entries) m.set(k, ctyUnmarshal(v, ty.elem));
      return Value.map(m, ty.elem);
    }
    case 'object': {
      if (!(j instanceof JObj)) throw new Error('object required');
      const m = new Map<string, Value>();
      for (const [k, v] of j.entries) {
        const at = ty.attrs.get(k);
        if (!at) throw new Error(`unsupported attribute ${JSON.stringify(k)}`);
        m.set(k, ctyUnmarshal(v, at));
      }
      for (const [k, at] of ty.attrs) if (!m.has(k)) m.set(k, Value.null(at));
      return Value.raw(ty, new Map(T.attrNames(ty).map((k) => [k, m.get(k)!])));
    }
    default:
      throw new Error(`cannot decode ${ty.kind}`);
  }
}

/** A JV as a plain JS value (numbers as JS numbers); for type descriptions only. */
function plain(j: JV): unknown {
  if (j instanceof JNum) return Number(j.text);
  if (j instanceof JObj) return Object.fromEntries(j.entries.map(([k, v]) => [k, plain(v)]));
  if (Array.isArray(j)) return j.map(plain);
  return j;
}

/** A value for JSON of unknown type, as jsondecode infers it (objects and tuples). */
export function inferValue(j: JV): Value {
  if (j === null) return Value.null(T.Dynamic);
  if (typeof j === 'string') return Value.string(j);
  if (typeof j === 'boolean') return Value.bool(j);
  if (j instanceof JNum) return Value.number(numOf(j));
  if (Array.isArray(j)) return Value.tuple(j.map(inferValue));
  const m = new Map<string, Value>();
  for (const [k, v] of j.entries) m.set(k, inferValue(v));
  return Value.object(new Map([...m.keys()].sort(T.compareBytes).map((k) => [k, m.get(k)!])));
}

/** ctyjson.Marshal of an unmarked, known value (Go's escaping, sorted keys). */
export function ctyMarshal(v: Value): string {
  if (v.isNull || !v.isKnown) return 'null';
  switch (v.type.kind) {
    case 'string':
      return goQuote(v.str);
    case 'number':
      return v.num.toString();
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'list':
    case 'set':
    case 'tuple':
      return '[' + v.elems.map(ctyMarshal).join(',') + ']';
    case 'map':
    case 'object': {
      const keys = [...v.entries.keys()].sort(T.compareBytes);
      return '{' + keys.map((k) => goQuote(k) + ':' + ctyMarshal(v.entries.get(k)!)).join(',') + '}';
    }
    default:
      return 'null';
  }
}

/** ctyjson.MarshalType (compact). */
export function ctyMarshalType(t: Type): string {
  return JSON.stringify(typeToJSON(t));
}

/** The value of a stored output. Throws when the stored JSON does not match its type. */
export function outputValue(o: OutputValue): Value {
  const ty = typeFromJSON(JSON.parse(o.typeJSON) as unknown);
  return ctyUnmarshal(parseJV(o.valueJSON), ty);
}

// ---- schemas ---------------------------------------------------------------------------------------------------

/** Finds the schema of a resource type: (provider FQN, mode, type) -> schema, or undefined when unknown. */
export type SchemaSource = (provider: string, mode: 'managed' | 'data', type: string) => Schema | undefined;

const dyn = (o: Partial<Attribute>): Attribute => ({ type: T.Dynamic, ...o });
/**
 * The schemas of Terraform's built-in provider (terraform.io/builtin/terraform). Kept here until the built-in
 * provider module exposes them; must agree with it.
 */
export const BUILTIN_SCHEMAS: Readonly<Record<string, Schema>> = {
  'managed:terraform_data': {
    version: 0,
    block: {
      attributes: {
        id: { type: T.String, computed: true },
        input: dyn({ optional: true }),
        output: dyn({ computed: true }),
        triggers_replace: dyn({ optional: true }),
      },
      blockTypes: {},
    },
  },
  'data:terraform_remote_state': {
    version: 0,
    block: {
      attributes: {
        backend: { type: T.String, required: true },
        config: dyn({ optional: true }),
        defaults: dyn({ optional: true }),
        outputs: dyn({ computed: true }),
        workspace: { type: T.String, optional: true },
      },
      blockTypes: {},
    },
  },
};

export const builtinSchemas: SchemaSource = (provider, mode, type) =>
  provider === 'terraform.io/builtin/terraform' ? BUILTIN_SCHEMAS[`${mode}:${type}`] : undefined;

/**
 * The schemas of the providers a state uses, from Foresight's built-in providers (GetProviderSchema), falling back
 * to BUILTIN_SCHEMAS; providers Foresight cannot start have no schema (their objects are decoded by inference).
 */
export async function stateSchemas(state: State): Promise<SchemaSource> {
  const got = new Map<string, { resourceTypes: Record<string, Schema>; dataSources: Record<string, Schema> }>();
  const fqns = new Set<string>();
  for (const [, r] of state.allResources()) fqns.add(providerFQN(r.provider));
  for (const fqn of fqns) {
    try {
      const p = startBuiltinProvider(fqn);
      if (!p) continue;
      const resp = await p.getProviderSchema();
      if (!resp.diagnostics?.some((d) => d.severity === 'error')) got.set(fqn, { resourceTypes: resp.resourceTypes, dataSources: resp.dataSources });
    } catch {
      // keep the fallback
    }
  }
  return (provider, mode, type) => {
    const g = got.get(provider);
    const s = g ? (mode === 'data' ? g.dataSources[type] : g.resourceTypes[type]) : undefined;
    return s ?? builtinSchemas(provider, mode, type);
  };
}

/** The provider FQN of a resource's provider configuration address (`provider["X"].alias` -> X). */
export function providerFQN(config: string): string {
  const m = /^(?:module\.[^.]+(?:\[[^\]]*\])?\.)*provider\["([^"]+)"\]/.exec(config);
  return m ? m[1] : config;
}

// ---- decoded state tree -----------------------------------------------------------------------------------------

export interface JResource {
  address: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  key: InstanceKey;
  providerName: string;
  schemaVersion: number;
  /** The attribute object with sensitive parts marked, or null when there are no attributes. */
  value: Value | null;
  /** The schema block used to decode, undefined when inferred. */
  block?: Block;
  dependsOn: string[];
  tainted: boolean;
  deposedKey?: string;
}

export interface JModule {
  address: string;
  resources: JResource[];
  children: JModule[];
}

export interface JOutput {
  name: string;
  sensitive: boolean;
  value: Value;
}

function markPath(v: Value, path: AttrPath, i = 0): Value {
  if (i === path.length) return v.mark('sensitive');
  if (v.isNull || !v.isKnown) return v;
  const step = path[i];
  const k = v.type.kind;
  if (step.type === 'get_attr') {
    if (k !== 'object' && k !== 'map') return v;
    const e = v.entries.get(step.name);
    if (!e) return v;
    const m = new Map(v.entries);
    m.set(step.name, markPath(e, path, i + 1));
    return Value.raw(v.type, m, v.marks);
  }
  let key: unknown;
  try {
    key = (JSON.parse(step.key) as { value: unknown }).value;
  } catch {
    return v;
  }
  if (k === 'map' || k === 'object') {
    if (typeof key !== 'string') return v;
    const e = v.entries.get(key);
    if (!e) return v;
    const m = new Map(v.entries);
    m.set(key, markPath(e, path, i + 1));
    return Value.raw(v.type, m, v.marks);
  }
  if (k === 'list' || k === 'tuple') {
    if (typeof key !== 'number' || key < 0 || key >= v.elems.length) return v;
    const es = [...v.elems];
    es[key] = markPath(es[key], path, i + 1);
    return Value.raw(v.type, es, v.marks);
  }
  return v;
}

/** Marks the schema's sensitive attributes (configschema Block.SensitivePaths applied to the value). */
function markSchemaSensitive(v: Value, b: Block): Value {
  if (v.isNull || !v.isKnown || v.type.kind !== 'object') return v;
  let changed = false;
  const m = new Map(v.entries);
  for (const [name, a] of Object.entries(b.attributes)) {
    const e = m.get(name);
    if (!e) continue;
    if (a.sensitive) {
      m.set(name, e.mark('sensitive'));
      changed = true;
    } else if (a.nestedType && !e.isNull && e.isKnown) {
      const inner = { attributes: a.nestedType.attributes, blockTypes: {} } as Block;
      const apply = (x: Value) => markSchemaSensitive(x, inner);
      const nv = mapElems(e, a.nestedType.nesting === 'single' ? undefined : apply, apply);
      m.set(name, nv);
      changed = true;
    }
  }
  for (const [name, nb] of Object.entries(b.blockTypes) as [string, NestedBlock][]) {
    const e = m.get(name);
    if (!e || e.isNull || !e.isKnown) continue;
    const apply = (x: Value) => markSchemaSensitive(x, nb.block);
    m.set(name, mapElems(e, nb.nesting === 'single' || nb.nesting === 'group' ? undefined : apply, apply));
    changed = true;
  }
  return changed ? Value.raw(v.type, m, v.marks) : v;
}

function mapElems(v: Value, each: ((x: Value) => Value) | undefined, single: (x: Value) => Value): Value {
  if (!each) return single(v);
  const k = v.type.kind;
  if (k === 'list' || k === 'tuple' || k === 'set') return Value.raw(v.type, v.elems.map(each), v.marks);
  if (k === 'map' || k === 'object') return Value.raw(v.type, new Map([...v.entries].map(([n, x]) => [n, each(x)])), v.marks);
  return v;
}

/** Decodes one stored object: with the schema when known, else by inference. */
export function decodeObject(obj: ObjectSrc, block: Block | undefined): Value | null {
  let v: Value;
  if (obj.attrsJSON === undefined) {
    const m = new Map<string, Value>();
    for (const [k, s] of Object.entries(obj.attrsFlat ?? {}).sort((a, b) => T.compareBytes(a[0], b[0]))) m.set(k, Value.string(s));
    v = Value.object(m);
  } else {
    const j = parseJV(obj.attrsJSON);
    if (j === null) return null;
    if (block) {
      try {
        v = ctyUnmarshal(j, impliedType(block));
      } catch {
        v = inferValue(j);
        block = undefined;
      }
    } else v = inferValue(j);
  }
  for (const p of obj.sensitivePaths) v = markPath(v, p);
  if (block) v = markSchemaSensitive(v, block);
  return v;
}

function modLess(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function resourceSortKey(r: ResourceState): [number, string, string] {
  return [r.mode === 'data' ? 0 : 1, r.type, r.name];
}

function marshalResources(state: State, module: string, schemas: SchemaSource): JResource[] {
  const ms = state.modules.get(module);
  if (!ms) return [];
  const rs = [...ms.resources.values()].sort((a, b) => {
    const ka = resourceSortKey(a);
    const kb = resourceSortKey(b);
    return ka[0] - kb[0] || modLess(ka[1], kb[1]) || modLess(ka[2], kb[2]);
  });
  const out: JResource[] = [];
  for (const r of rs) {
    const provider = providerFQN(r.provider);
    const schema = schemas(provider, r.mode, r.type);
    const insts = [...r.instances.values()].sort((a, b) => compareInstanceKeys(a.key, b.key));
    for (const is of insts) {
      const base = {
        address: (module ? module + '.' : '') + (r.mode === 'data' ? 'data.' : '') + `${r.type}.${r.name}` + instanceKeySuffix(is.key),
        mode: r.mode,
        type: r.type,
        name: r.name,
        key: is.key,
        providerName: provider,
      };
      const mk = (obj: ObjectSrc, deposedKey?: string): JResource => ({
        ...base,
        // Terraform builds deposed entries from the current one's base fields, without the schema version.
        schemaVersion: deposedKey === undefined ? obj.schemaVersion : 0,
        value: decodeObject(obj, schema?.block),
        block: schema?.block,
        dependsOn: [...obj.dependencies],
        tainted: obj.status === 'tainted',
        deposedKey,
      });
      if (is.current) out.push(mk(is.current));
      for (const dk of [...is.deposed.keys()].sort(modLess)) out.push(mk(is.deposed.get(dk)!, dk));
    }
  }
  return out;
}

/** jsonstate's module tree: root resources, then child modules sorted by address, recursively. */
export function marshalModules(state: State, schemas: SchemaSource): JModule {
  const children = new Map<string, Set<string>>();
  for (const mod of state.modules.keys()) {
    if (mod === '') continue;
    const steps = parseModuleInstance(mod);
    for (let n = steps.length; n > 0; n--) {
      const child = moduleOfSteps(steps.slice(0, n));
      const parent = moduleOfSteps(steps.slice(0, n - 1));
      if (!children.has(parent)) children.set(parent, new Set());
      children.get(parent)!.add(child);
    }
  }
  const build = (addr: string): JModule => ({
    address: addr,
    resources: marshalResources(state, addr, schemas),
    children: [...(children.get(addr) ?? [])].sort(modLess).map(build),
  });
  return build('');
}

function moduleOfSteps(steps: [string, InstanceKey][]): string {
  return steps.map(([n, k]) => `module.${n}${instanceKeySuffix(k)}`).join('.');
}

export function marshalOutputs(state: State): JOutput[] {
  return [...state.outputs.keys()].sort(modLess).map((name) => {
    const o = state.outputs.get(name)!;
    return { name, sensitive: o.sensitive, value: outputValue(o) };
  });
}

// ---- JSON text ---------------------------------------------------------------------------------------------------

/** jsonstate.SensitiveAsBool, marshalled. */
export function sensitiveAsBoolJSON(v: Value): string {
  if (v.isSensitive) return 'true';
  const k = v.type.kind;
  if (v.isNull || k === 'string' || k === 'number' || k === 'bool' || k === 'dynamic') return 'false';
  if (k === 'list' || k === 'tuple' || k === 'set') {
    if (!v.isKnown || v.elems.length === 0) return '[]';
    return '[' + v.elems.map(sensitiveAsBoolJSON).join(',') + ']';
  }
  if (k === 'map' || k === 'object') {
    if (!v.isKnown || v.entries.size === 0) return '{}';
    const parts: string[] = [];
    for (const key of [...v.entries.keys()].sort(T.compareBytes)) {
      const s = sensitiveAsBoolJSON(v.entries.get(key)!);
      if (s !== 'false') parts.push(goQuote(key) + ':' + s);
    }
    return '{' + parts.join(',') + '}';
  }
  return 'false';
}

function unmarkDeep(v: Value): Value {
  return v.unmarkDeep()[0];
}

function resourceJSON(r: JResource): string {
  const f: string[] = [];
  f.push(`"address":${goQuote(r.address)}`);
  f.push(`"mode":${goQuote(r.mode)}`);
  f.push(`"type":${goQuote(r.type)}`);
  f.push(`"name":${goQuote(r.name)}`);
  if (r.key !== undefined) f.push(`"index":${typeof r.key === 'number' ? String(r.key) : goQuote(r.key)}`);
  f.push(`"provider_name":${goQuote(r.providerName)}`);
  f.push(`"schema_version":${r.schemaVersion}`);
  if (r.value && !r.value.isNull && r.value.entries.size > 0) {
    const keys = [...r.value.entries.keys()].sort(T.compareBytes);
    f.push(`"values":{${keys.map((k) => goQuote(k) + ':' + ctyMarshal(unmarkDeep(r.value!.entries.get(k)!))).join(',')}}`);
  }
  if (r.value) f.push(`"sensitive_values":${sensitiveAsBoolJSON(r.value)}`);
  else f.push(`"sensitive_values":false`);
  if (r.dependsOn.length) f.push(`"depends_on":[${r.dependsOn.map(goQuote).join(',')}]`);
  if (r.tainted) f.push(`"tainted":true`);
  if (r.deposedKey) f.push(`"deposed_key":${goQuote(r.deposedKey)}`);
  return '{' + f.join(',') + '}';
}

function moduleJSON(m: JModule, root: boolean): string {
  const f: string[] = [];
  if (m.resources.length) f.push(`"resources":[${m.resources.map(resourceJSON).join(',')}]`);
  if (!root) f.push(`"address":${goQuote(m.address)}`);
  if (m.children.length) f.push(`"child_modules":[${m.children.map((c) => moduleJSON(c, false)).join(',')}]`);
  return '{' + f.join(',') + '}';
}

export function outputsJSON(outs: readonly JOutput[]): string {
  return (
    '{' +
    outs
      .map((o) => {
        const v = unmarkDeep(o.value);
        return `${goQuote(o.name)}:{"sensitive":${o.sensitive},"value":${ctyMarshal(v)},"type":${ctyMarshalType(v.type)}}`;
      })
      .join(',') +
    '}'
  );
}

/** A JSON object with Go's map key order (sorted). */
function sortedObject(fields: Record<string, string>): string {
  return '{' + Object.keys(fields).sort().map((k) => `${goQuote(k)}:${fields[k]}`).join(',') + '}';
}

/** Splits `module.a.module.b.REST` into the module path and the rest (module keys kept as written). */
function splitModule(addr: string): { module: string; rest: string } {
  const m = /^((?:module\.[A-Za-z_][\w-]*(?:\[(?:\d+|"(?:[^"\\]|\\.)*")\])?\.)*)(.*)$/.exec(addr)!;
  return { module: m[1].replace(/\.$/, ''), rest: m[2] };
}

function staticAddrJSON(kind: string, addr: string): string {
  const f: Record<string, string> = { to_display: goQuote(addr) };
  const { module, rest } = splitModule(addr);
  if (kind === 'resource') {
    f.kind = goQuote('resource');
    const r = /^(data\.)?([^.]+)\.([^.]+)$/.exec(rest);
    if (r) {
      f.mode = goQuote(r[1] ? 'data' : 'managed');
      f.type = goQuote(r[2]);
      f.name = goQuote(r[3]);
    }
  } else {
    f.kind = goQuote(kind === 'output' ? 'output_value' : kind);
    f.name = goQuote(rest.replace(/^(check|output|var)\./, ''));
  }
  if (module) f.module = goQuote(module);
  return sortedObject(f);
}

function dynamicAddrJSON(kind: string, addr: string): string {
  const f: Record<string, string> = { to_display: goQuote(addr) };
  const { module, rest } = splitModule(addr);
  if (module) f.module = goQuote(module);
  if (kind === 'resource') {
    const km = /\[(\d+|"(?:[^"\\]|\\.)*")\]$/.exec(rest);
    if (km) f.instance_key = km[1].startsWith('"') ? goQuote(JSON.parse(km[1]) as string) : km[1];
  }
  return sortedObject(f);
}

/** jsonchecks.MarshalCheckStates: results and instances sorted by display address, problems by message. */
export function checksJSON(results: readonly CheckResult[]): string {
  const parts = results.map((r) => {
    const insts = (r.objects ?? [])
      .map((o) => {
        const g = [`"address":${dynamicAddrJSON(r.objectKind, o.objectAddr)}`, `"status":${goQuote(o.status)}`];
        const probs = [...(o.failureMessages ?? [])].sort();
        if (probs.length) g.push(`"problems":[${probs.map((m) => `{"message":${goQuote(m)}}`).join(',')}]`);
        return { key: o.objectAddr, text: '{' + g.join(',') + '}' };
      })
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const f = [`"address":${staticAddrJSON(r.objectKind, r.configAddr)}`, `"status":${goQuote(r.status)}`];
    if (insts.length) f.push(`"instances":[${insts.map((i) => i.text).join(',')}]`);
    return { key: r.configAddr, text: '{' + f.join(',') + '}' };
  });
  parts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return '[' + parts.map((p) => p.text).join(',') + ']';
}

/** `terraform show -json` for a state file (null: no state). No trailing newline. */
export function marshalState(file: { terraformVersion: string; state: State } | null, schemas: SchemaSource): string {
  if (!file || file.state.empty()) return '{"format_version":"1.0"}';
  const f = [`"format_version":"1.0"`, `"terraform_version":${goQuote(file.terraformVersion)}`];
  const outs = marshalOutputs(file.state);
  const values: string[] = [];
  if (outs.length) values.push(`"outputs":${outputsJSON(outs)}`);
  values.push(`"root_module":${moduleJSON(marshalModules(file.state, schemas), true)}`);
  f.push(`"values":{${values.join(',')}}`);
  const checks = file.state.checkResults;
  if (checks && checks.length) f.push(`"checks":${checksJSON(checks)}`);
  return '{' + f.join(',') + '}';
}
