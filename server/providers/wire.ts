// A plain-JSON wire form for provider requests and responses, so that nothing crosses the provider boundary
// by reference. Values become JSON with their cty type (in cty's JSON type syntax: "string",
// ["list","string"], ["object",{"a":"number"}], "dynamic"); Uint8Arrays become base64 strings tagged
// {"$bytes": …}; Maps become {"$map": [[k, v], …]}; everything else is copied as JSON.
//
// `loopbackProvider` wraps an in-process provider so that every request and response goes through this
// encoding, which is how tests make sure engine code never relies on object identity. Marked values must
// not be sent to providers (see marks.ts): encoding one throws, as it is an engine bug.
// Siblings: provider.ts (the interface), schema.ts.

import { Num } from '../lang/number';
import * as T from '../lang/types';
import type { Type } from '../lang/types';
import { Value } from '../lang/value';
import type { FullRefinements } from './gostring';
import type { Provider } from './provider';

export type TypeJSON = string | [string, TypeJSON] | ['object', Record<string, TypeJSON>] | ['tuple', TypeJSON[]];

/** A type in cty's JSON type syntax. */
export function typeToJSON(t: Type): TypeJSON {
  switch (t.kind) {
    case 'list':
    case 'set':
    case 'map':
      return [t.kind, typeToJSON(t.elem)];
    case 'tuple':
      return ['tuple', t.elems.map(typeToJSON)];
    case 'object': {
      const o: Record<string, TypeJSON> = {};
      for (const k of T.attrNames(t)) o[k] = typeToJSON(t.attrs.get(k)!);
      return ['object', o];
    }
    case 'typeval':
      return 'dynamic';
    default:
      return t.kind;
  }
}

/** The type for cty's JSON type syntax; throws on malformed input (callers only decode what they encoded). */
export function typeFromJSON(j: unknown): Type {
  if (j === 'string') return T.String;
  if (j === 'number') return T.Number;
  if (j === 'bool') return T.Bool;
  if (j === 'dynamic') return T.Dynamic;
  if (Array.isArray(j) && j.length === 2) {
    const [k, a] = j;
    if (k === 'list') return T.List(typeFromJSON(a));
    if (k === 'set') return T.Set(typeFromJSON(a));
    if (k === 'map') return T.Map(typeFromJSON(a));
    if (k === 'tuple' && Array.isArray(a)) return T.sharedTuple(a.map(typeFromJSON));
    if (k === 'object' && a && typeof a === 'object') return T.sharedObj(new Map(Object.entries(a as Record<string, unknown>).map(([n, t]) => [n, typeFromJSON(t)])));
  }
  throw new Error(`invalid type JSON ${JSON.stringify(j)}`);
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface WireRefinements {
  notNull?: boolean;
  isNull?: boolean;
  stringPrefix?: string;
  numberLower?: [string, boolean];
  numberUpper?: [string, boolean];
  lengthLower?: number;
  lengthUpper?: number;
}

/** A value's data as JSON; its type travels separately (see encodeValue). */
function dataToJSON(v: Value): Json {
  if (v.marks.size) throw new Error(`marked value sent across the provider boundary: ${v.toString()}`);
  if (!v.isKnown) {
    const r = v.refinements as FullRefinements | undefined;
    const w: WireRefinements = {};
    if (r?.notNull) w.notNull = true;
    if (r?.isNull) w.isNull = true;
    if (r?.stringPrefix) w.stringPrefix = r.stringPrefix;
    if (r?.numberLower) w.numberLower = [r.numberLower.value.toString(), r.numberLower.inclusive];
    if (r?.numberUpper) w.numberUpper = [r.numberUpper.value.toString(), r.numberUpper.inclusive];
    if (r?.lengthLower !== undefined) w.lengthLower = r.lengthLower;
    if (r?.lengthUpper !== undefined) w.lengthUpper = r.lengthUpper;
    return { $u: w as { [k: string]: Json } };
  }
  if (v.isNull) return null;
  switch (v.type.kind) {
    case 'string':
      return v.str;
    case 'bool':
      return v.bool;
    case 'number':
      return { $n: v.num.toString(), $p: v.num.precision };
    case 'list':
    case 'set':
    case 'tuple':
      return { $l: v.elems.map(dataToJSON) };
    case 'map':
    case 'object': {
      const o: { [k: string]: Json } = {};
      for (const [k, e] of v.entries) o[k] = dataToJSON(e);
      return { $m: o };
    }
    default:
      return null;
  }
}

function dataFromJSON(t: Type, j: Json): Value {
  if (j === null) return Value.null(t);
  if (typeof j === 'string') return Value.string(j);
  if (typeof j === 'boolean') return Value.bool(j);
  if (typeof j !== 'object' || Array.isArray(j)) throw new Error(`invalid value JSON ${JSON.stringify(j)}`);
  if ('$u' in j) {
    const w = j.$u as WireRefinements;
    const r: FullRefinements = {};
    if (w.notNull) r.notNull = true;
    if (w.isNull) r.isNull = true;
    if (w.stringPrefix) r.stringPrefix = w.stringPrefix;
    if (w.numberLower) r.numberLower = { value: parseNum(w.numberLower[0]), inclusive: w.numberLower[1] };
    if (w.numberUpper) r.numberUpper = { value: parseNum(w.numberUpper[0]), inclusive: w.numberUpper[1] };
    if (w.lengthLower !== undefined) r.lengthLower = w.lengthLower;
    if (w.lengthUpper !== undefined) r.lengthUpper = w.lengthUpper;
    return Value.unknown(t, Object.keys(r).length ? r : undefined);
  }
  if ('$n' in j) {
    const n = parseNum(j.$n as string);
    return Value.number(typeof j.$p === 'number' ? n.withPrec(j.$p) : n);
  }
  if ('$l' in j) {
    const es = j.$l as Json[];
    if (t.kind === 'tuple') return Value.tuple(es.map((e, i) => dataFromJSON(t.elems[i], e)));
    const et = t.kind === 'list' || t.kind === 'set' ? t.elem : T.Dynamic;
    const vals = es.map((e) => dataFromJSON(et, e));
    return Value.raw(t, t.kind === 'set' ? Value.set(vals, et).elems : vals);
  }
  if ('$m' in j) {
    const o = j.$m as { [k: string]: Json };
    const m = new Map<string, Value>();
    for (const [k, e] of Object.entries(o)) m.set(k, dataFromJSON(t.kind === 'object' ? t.attrs.get(k) ?? T.Dynamic : t.kind === 'map' ? t.elem : T.Dynamic, e));
    return t.kind === 'object' ? Value.object(m) : Value.map(m, t.kind === 'map' ? t.elem : T.Dynamic);
  }
  throw new Error(`invalid value JSON ${JSON.stringify(j)}`);
}

function parseNum(s: string): Num {
  if (s === '+Inf') return Num.POS_INF;
  if (s === '-Inf') return Num.NEG_INF;
  const n = Num.parse(s);
  if (!n) throw new Error(`invalid number ${s}`);
  return n;
}

/** A value as JSON: {"$value": {type, data}}. Marked values throw. */
export function encodeValue(v: Value): Json {
  return { $value: { type: typeToJSON(v.type) as Json, data: dataToJSON(v) } };
}

/** The value of encodeValue's output. */
export function decodeValue(j: Json): Value {
  const w = (j as { $value: { type: Json; data: Json } }).$value;
  return dataFromJSON(typeFromJSON(w.type), w.data);
}

/** Any request or response as plain JSON: Values, Types, Maps, Sets and Uint8Arrays are tagged. */
export function toWire(x: unknown): Json {
  if (x === undefined || x === null) return null;
  if (x instanceof Value) return encodeValue(x);
  if (x instanceof Uint8Array) return { $bytes: Buffer.from(x).toString('base64') };
  if (x instanceof Map) return { $map: [...x].map(([k, v]) => [toWire(k), toWire(v)]) };
  if (Array.isArray(x)) return x.map(toWire);
  if (typeof x === 'object') {
    if ('kind' in x && typeof (x as { kind: unknown }).kind === 'string' && isTypeObject(x)) return { $type: typeToJSON(x as Type) as Json };
    const o: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(x)) if (v !== undefined) o[k] = toWire(v);
    return o;
  }
  if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') return x;
  throw new Error(`cannot send ${typeof x} across the provider boundary`);
}

/**
 * A string that identifies a request as JSON.stringify(toWire(x)) does (two requests get the same string exactly
 * when their wire forms are the same), written directly: no wire objects are made, and a type's JSON is made once
 * per type object. For cache keys (the language server's PlanResourceChange cache). Throws where toWire throws.
 */
export function wireKey(x: unknown): string {
  const out: string[] = [];
  keyOf(x, out);
  return out.join('');
}

const typeKeys = new WeakMap<Type, string>();

function typeKey(t: Type): string {
  let k = typeKeys.get(t);
  if (k === undefined) typeKeys.set(t, (k = JSON.stringify(typeToJSON(t))));
  return k;
}

function keyOf(x: unknown, out: string[]): void {
  if (x === undefined || x === null) out.push('n');
  else if (x instanceof Value) {
    out.push('V', typeKey(x.type), '=');
    dataKey(x, out);
  } else if (x instanceof Uint8Array) out.push('B', Buffer.from(x).toString('base64'), ';');
  else if (x instanceof Map) {
    out.push('M[');
    for (const [k, v] of x) {
      keyOf(k, out);
      out.push(':');
      keyOf(v, out);
      out.push(',');
    }
    out.push(']');
  } else if (Array.isArray(x)) {
    out.push('[');
    for (const e of x) {
      keyOf(e, out);
      out.push(',');
    }
    out.push(']');
  } else if (typeof x === 'object') {
    if ('kind' in x && typeof (x as { kind: unknown }).kind === 'string' && isTypeObject(x)) out.push('T', typeKey(x as Type));
    else {
      out.push('{');
      for (const k in x) {
        const v = (x as Record<string, unknown>)[k];
        if (v === undefined || !Object.prototype.hasOwnProperty.call(x, k)) continue;
        out.push(JSON.stringify(k), ':');
        keyOf(v, out);
        out.push(',');
      }
      out.push('}');
    }
  } else if (typeof x === 'string') out.push(JSON.stringify(x));
  else if (typeof x === 'number' || typeof x === 'boolean') out.push('p', String(x), ';');
  else throw new Error(`cannot send ${typeof x} across the provider boundary`);
}

/** dataToJSON's distinctions, as a string. */
function dataKey(v: Value, out: string[]): void {
  if (v.marks.size) throw new Error(`marked value sent across the provider boundary: ${v.toString()}`);
  if (!v.isKnown) {
    out.push('U', JSON.stringify(dataToJSON(v)));
    return;
  }
  if (v.isNull) {
    out.push('n');
    return;
  }
  switch (v.type.kind) {
    case 'string':
      out.push(JSON.stringify(v.str));
      return;
    case 'bool':
      out.push(v.bool ? 't' : 'f');
      return;
    case 'number':
      out.push('d', v.num.toString(), '/', String(v.num.precision), ';');
      return;
    case 'list':
    case 'set':
    case 'tuple':
      out.push('[');
      for (const e of v.elems) {
        dataKey(e, out);
        out.push(',');
      }
      out.push(']');
      return;
    case 'map':
    case 'object':
      out.push('{');
      for (const [k, e] of v.entries) {
        out.push(JSON.stringify(k), ':');
        dataKey(e, out);
        out.push(',');
      }
      out.push('}');
      return;
    default:
      out.push('n');
  }
}

function isTypeObject(x: object): boolean {
  const k = (x as { kind: string }).kind;
  return ['string', 'number', 'bool', 'dynamic', 'list', 'set', 'map', 'object', 'tuple', 'typeval'].includes(k) && Object.keys(x).every((p) => ['kind', 'elem', 'elems', 'attrs', 'optional', 'defaults'].includes(p));
}

/** The inverse of toWire. */
export function fromWire(j: Json): unknown {
  if (j === null || typeof j !== 'object') return j;
  if (Array.isArray(j)) return j.map(fromWire);
  if ('$value' in j) return decodeValue(j);
  if ('$bytes' in j) return new Uint8Array(Buffer.from(j.$bytes as string, 'base64'));
  if ('$type' in j) return typeFromJSON(j.$type);
  if ('$map' in j) return new Map((j.$map as Json[][]).map(([k, v]) => [fromWire(k), fromWire(v)]));
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(j)) o[k] = fromWire(v);
  return o;
}

/** A deep copy through JSON text, as a remote provider would see it. */
export function roundTrip<X>(x: X): X {
  return fromWire(JSON.parse(JSON.stringify(toWire(x))) as Json) as X;
}

/** Wraps a provider so every request and response is copied through the wire form. */
export function loopbackProvider(p: Provider): Provider {
  const wrap =
    <Req, Res>(fn: (req: Req) => Promise<Res>) =>
    async (req: Req): Promise<Res> =>
      roundTrip(await fn(roundTrip(req)));
  return {
    getProviderSchema: async () => roundTrip(await p.getProviderSchema()),
    validateProviderConfig: wrap((r) => p.validateProviderConfig(r)),
    validateResourceConfig: wrap((r) => p.validateResourceConfig(r)),
    validateDataResourceConfig: wrap((r) => p.validateDataResourceConfig(r)),
    configureProvider: wrap((r) => p.configureProvider(r)),
    upgradeResourceState: wrap((r) => p.upgradeResourceState(r)),
    readResource: wrap((r) => p.readResource(r)),
    planResourceChange: wrap((r) => p.planResourceChange(r)),
    applyResourceChange: wrap((r) => p.applyResourceChange(r)),
    importResourceState: wrap((r) => p.importResourceState(r)),
    moveResourceState: wrap((r) => p.moveResourceState(r)),
    readDataSource: wrap((r) => p.readDataSource(r)),
    stopProvider: async () => roundTrip(await p.stopProvider()),
    close: () => p.close(),
  };
}
