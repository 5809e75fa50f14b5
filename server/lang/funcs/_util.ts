// Helpers shared by the string, collection and numeric built-in functions (string.ts, collection.ts,
// numeric.ts): grapheme segmentation, go-cty-style integer extraction, value equality, Go-style quoting,
// and a small local type unification / conversion (cty's convert package semantics) used until
// lang/convert.ts is available to these modules. Nothing here is a function visible to configurations.

import { Num } from '../number';
import * as T from '../types';
import type { Type } from '../types';
import { Value } from '../value';
import { FuncError } from './function';

// ---- text -----------------------------------------------------------------------------------------------

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** The grapheme clusters of a string ("characters" as Terraform counts them). */
export function graphemes(s: string): string[] {
  const out: string[] = [];
  for (const seg of segmenter.segment(s)) out.push(seg.segment);
  return out;
}

/** Length of a string in UTF-8 bytes (Go's len()). */
export function utf8Len(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

// One implementation of Go's quoting for the whole engine (lang/goquote.ts); re-exported for this module's users.
import { goQuote, goQuoteRune, isGoPrint } from '../goquote';
export { goQuote, goQuoteRune, isGoPrint };

/** Go's unicode.IsSpace. */
export function isGoSpace(cp: number): boolean {
  switch (cp) {
    case 0x09:
    case 0x0a:
    case 0x0b:
    case 0x0c:
    case 0x0d:
    case 0x20:
    case 0x85:
    case 0xa0:
      return true;
  }
  if (cp < 0x100) return false;
  return /\p{Z}/u.test(String.fromCodePoint(cp));
}

// ---- numbers --------------------------------------------------------------------------------------------

export const WHOLE_NUMBER_MSG = 'value must be a whole number, between -9223372036854775808 and 9223372036854775807';
const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

/**
 * The number as a Go int, as gocty.FromCtyValue does it; throws FuncError with cty's message when the
 * number is fractional or out of range (`prefix` is prepended, e.g. "invalid index: ").
 */
export function toGoInt(v: Value, prefix = ''): number {
  const n = v.num;
  const b = n.isInf() ? undefined : n.toBigInt();
  if (b === undefined || b < MIN_INT64 || b > MAX_INT64) throw new FuncError(prefix + WHOLE_NUMBER_MSG);
  return globalThis.Number(b);
}

// ---- equality -------------------------------------------------------------------------------------------

/**
 * cty's Value.Equals as the `==` operator and stdlib.Equal compute it, ignoring marks: true/false, or
 * undefined when the answer depends on unknown values.
 */
export function ctyEquals(a: Value, b: Value): boolean | undefined {
  if (!a.isKnown || !b.isKnown) return undefined;
  if (a.isNull || b.isNull) {
    if (a.isNull && b.isNull) return true;
    return false;
  }
  if (!T.typeEquals(a.type, b.type)) return false;
  switch (a.type.kind) {
    case 'string':
    case 'bool':
      return a.data === b.data;
    case 'number':
      return a.num.equals(b.num);
    case 'list':
    case 'tuple': {
      if (a.elems.length !== b.elems.length) return false;
      let unknown = false;
      for (let i = 0; i < a.elems.length; i++) {
        const e = ctyEquals(a.elems[i], b.elems[i]);
        if (e === false) return false;
        if (e === undefined) unknown = true;
      }
      return unknown ? undefined : true;
    }
    case 'set': {
      if (!a.isWhollyKnown || !b.isWhollyKnown) return undefined;
      if (a.elems.length !== b.elems.length) return false;
      return a.elems.every((x) => b.elems.some((y) => ctyEquals(x, y) === true));
    }
    case 'map':
    case 'object': {
      if (a.entries.size !== b.entries.size) return false;
      let unknown = false;
      for (const [k, x] of a.entries) {
        const y = b.entries.get(k);
        if (!y) return false;
        const e = ctyEquals(x, y);
        if (e === false) return false;
        if (e === undefined) unknown = true;
      }
      return unknown ? undefined : true;
    }
    case 'typeval':
      return T.typeEquals(a.typeValue, b.typeValue);
    default:
      return false;
  }
}

// ---- type unification and conversion (local stand-in for lang/convert.ts) -----------------------------

/** cty's UnifyUnsafe: a type all given types convert to, or undefined. */
export function unify(types: readonly Type[]): Type | undefined {
  if (types.length === 0) return T.Dynamic;
  if (types.every((t) => T.typeEquals(t, types[0]))) return types[0];
  let map = 0,
    list = 0,
    set = 0,
    obj = 0,
    tup = 0,
    dyn = 0;
  for (const t of types) {
    if (t.kind === 'map') map++;
    else if (t.kind === 'list') list++;
    else if (t.kind === 'set') set++;
    else if (t.kind === 'object') obj++;
    else if (t.kind === 'tuple') tup++;
    else if (t.kind === 'dynamic') dyn++;
  }
  const n = types.length;
  const elemsOf = (ts: readonly Type[]): Type[] => {
    const out: Type[] = [];
    for (const t of ts) {
      if (t.kind === 'list' || t.kind === 'set' || t.kind === 'map') out.push(t.elem);
      else if (t.kind === 'tuple') out.push(...t.elems);
      else if (t.kind === 'object') out.push(...t.attrs.values());
    }
    return out;
  };
  const coll = (mk: (e: Type) => Type): Type | undefined => {
    if (dyn > 0) return T.Dynamic;
    const e = unify(elemsOf(types));
    return e && mk(e);
  };
  if (map > 0 && map + dyn === n) return coll(T.Map);
  if (map > 0 && map + obj + dyn === n) {
    const r = coll(T.Map);
    if (r) return r;
  }
  if (list > 0 && list + dyn === n) return coll(T.List);
  if (list > 0 && list + tup + dyn === n) {
    const r = coll(T.List);
    if (r) return r;
  }
  if (set > 0 && set + dyn === n) return coll(T.Set);
  if (obj > 0 && obj + dyn === n) {
    if (dyn > 0) return T.Dynamic;
    const first = types[0] as T.ObjectType;
    const names = [...first.attrs.keys()];
    const same = types.every(
      (t) => (t as T.ObjectType).attrs.size === names.length && names.every((k) => (t as T.ObjectType).attrs.has(k)),
    );
    if (!same) return coll(T.Map);
    const attrs = new Map<string, Type>();
    for (const k of names) {
      const u = unify(types.map((t) => (t as T.ObjectType).attrs.get(k)!));
      if (!u) return undefined;
      attrs.set(k, u);
    }
    return T.Obj(attrs);
  }
  if (tup > 0 && tup + dyn === n) {
    if (dyn > 0) return T.Dynamic;
    const len = (types[0] as T.TupleType).elems.length;
    if (!types.every((t) => (t as T.TupleType).elems.length === len)) return coll(T.List);
    const elems: Type[] = [];
    for (let i = 0; i < len; i++) {
      const u = unify(types.map((t) => (t as T.TupleType).elems[i]));
      if (!u) return undefined;
      elems.push(u);
    }
    return T.Tuple(elems);
  }
  if (obj > 0 && tup > 0) return undefined;
  // Preference order: the given types, primitives with string first, dynamic last.
  const rank = (t: Type) => (t.kind === 'dynamic' ? 9 : t.kind === 'string' ? 0 : t.kind === 'number' ? 1 : t.kind === 'bool' ? 2 : 3);
  const candidates = [...types].sort((a, b) => rank(a) - rank(b));
  for (const want of candidates) {
    if (types.every((t) => canConvert(t, want))) return want;
  }
  return undefined;
}

/** Whether a value of type `from` may convert to `to` (unsafe conversions included). */
export function canConvert(from: Type, to: Type): boolean {
  if (to.kind === 'dynamic' || from.kind === 'dynamic' || T.typeEquals(from, to)) return true;
  if (T.isPrimitive(to) && T.isPrimitive(from)) {
    if (to.kind === 'string') return true;
    if (from.kind === 'string') return true;
    return false;
  }
  switch (to.kind) {
    case 'list':
    case 'set':
      if (from.kind === 'list' || from.kind === 'set') return canConvert(from.elem, to.elem);
      if (from.kind === 'tuple') {
        if (to.elem.kind === 'dynamic') return unify(from.elems) !== undefined;
        return from.elems.every((e) => canConvert(e, to.elem));
      }
      return false;
    case 'map':
      if (from.kind === 'map') return canConvert(from.elem, to.elem);
      if (from.kind === 'object') {
        const ts = [...from.attrs.values()];
        if (to.elem.kind === 'dynamic') return unify(ts) !== undefined;
        return ts.every((e) => canConvert(e, to.elem));
      }
      return false;
    case 'tuple':
      if (from.kind === 'tuple')
        return from.elems.length === to.elems.length && from.elems.every((e, i) => canConvert(e, to.elems[i]));
      if (from.kind === 'list') return to.elems.every((e) => canConvert(from.elem, e));
      return false;
    case 'object':
      if (from.kind === 'object') {
        for (const [k, t] of to.attrs) {
          const f = from.attrs.get(k);
          if (!f) {
            if (!to.optional?.has(k)) return false;
          } else if (!canConvert(f, t)) return false;
        }
        return true;
      }
      if (from.kind === 'map') return [...to.attrs.values()].every((t) => canConvert(from.elem, t));
      return false;
    default:
      return false;
  }
}

/** Thrown by `convert` with cty's conversion error message (no final period). */
export class ConvertError extends Error {}

/** Converts a value to a type as cty's convert.Convert does (unsafe conversions included). */
export function convert(v: Value, to: Type): Value {
  const [u, marks] = v.unmark();
  return convertInner(u, to).markWith(marks);
}

function convertInner(v: Value, to: Type): Value {
  if (to.kind === 'dynamic') return v;
  if (T.typeEquals(v.type, to) && T.isFullyKnownType(to)) return v;
  if (!v.isKnown) {
    if (v.type.kind !== 'dynamic' && !canConvert(v.type, to)) throw new ConvertError(mismatch(v.type, to));
    return Value.unknown(T.isFullyKnownType(to) ? to : v.type.kind === 'dynamic' ? to : v.type);
  }
  if (v.isNull) {
    if (v.type.kind !== 'dynamic' && !canConvert(v.type, to)) throw new ConvertError(mismatch(v.type, to));
    return Value.null(to);
  }
  const from = v.type;
  if (T.isPrimitive(to)) {
    if (!T.isPrimitive(from)) throw new ConvertError(mismatch(from, to));
    if (to.kind === 'string') {
      if (from.kind === 'number') return Value.string(v.num.toString());
      if (from.kind === 'bool') return Value.string(v.bool ? 'true' : 'false');
      return v;
    }
    if (to.kind === 'number') {
      if (from.kind === 'string') {
        const n = Num.parse(v.str);
        if (!n) throw new ConvertError('a number is required');
        return Value.number(n);
      }
      throw new ConvertError(mismatch(from, to));
    }
    // bool
    if (from.kind === 'string') {
      if (v.str === 'true') return Value.bool(true);
      if (v.str === 'false') return Value.bool(false);
      if (v.str.toLowerCase() === 'true') throw new ConvertError('a bool is required; to convert from string, use lowercase "true"');
      if (v.str.toLowerCase() === 'false') throw new ConvertError('a bool is required; to convert from string, use lowercase "false"');
      throw new ConvertError('a bool is required');
    }
    throw new ConvertError(mismatch(from, to));
  }
  switch (to.kind) {
    case 'list':
    case 'set': {
      let elems: readonly Value[];
      if (from.kind === 'list' || from.kind === 'set' || from.kind === 'tuple') elems = v.elems;
      else throw new ConvertError(mismatch(from, to));
      let ety = to.elem;
      if (!T.isFullyKnownType(ety)) {
        const u = unify(elems.map((e) => e.type));
        if (!u) throw new ConvertError(`all ${to.kind} elements must have the same type`);
        ety = u.kind === 'dynamic' && from.kind !== 'tuple' ? (from as T.CollectionType).elem : u;
      }
      const out = elems.map((e, i) => convertElem(e, ety, `element ${i}`));
      return to.kind === 'list' ? Value.list(out, ety) : Value.set(out, ety);
    }
    case 'map': {
      if (from.kind !== 'map' && from.kind !== 'object') throw new ConvertError(mismatch(from, to));
      let ety = to.elem;
      if (!T.isFullyKnownType(ety)) {
        const u = unify([...v.entries.values()].map((e) => e.type));
        if (!u) throw new ConvertError('all map elements must have the same type');
        ety = u;
      }
      const out = new Map<string, Value>();
      for (const k of [...v.entries.keys()].sort(T.compareBytes)) out.set(k, convertElem(v.entries.get(k)!, ety, `element ${JSON.stringify(k)}`));
      return Value.map(out, ety);
    }
    case 'tuple': {
      if (from.kind !== 'tuple' && from.kind !== 'list') throw new ConvertError(mismatch(from, to));
      if (v.elems.length !== to.elems.length) throw new ConvertError(`tuple required, but have ${T.friendlyName(from)}`);
      return Value.tuple(v.elems.map((e, i) => convertElem(e, to.elems[i], `element ${i}`)));
    }
    case 'object': {
      if (from.kind !== 'object' && from.kind !== 'map') throw new ConvertError(mismatch(from, to));
      const out = new Map<string, Value>();
      for (const [k, t] of to.attrs) {
        const e = v.entries.get(k);
        if (!e) {
          if (to.optional?.has(k)) {
            out.set(k, Value.null(t));
            continue;
          }
          throw new ConvertError(`attribute ${JSON.stringify(k)} is required`);
        }
        out.set(k, convertElem(e, t, `attribute ${JSON.stringify(k)}`));
      }
      return Value.object(out);
    }
    default:
      throw new ConvertError(mismatch(from, to));
  }
}

function convertElem(e: Value, t: Type, where: string): Value {
  try {
    return convert(e, t);
  } catch (err) {
    if (err instanceof ConvertError) throw new ConvertError(`${where}: ${err.message}`);
    throw err;
  }
}

function mismatch(from: Type, to: Type): string {
  return `${T.friendlyNameForConstraint(to)} required`;
}
