// Type conversion and unification with go-cty's `convert` semantics, and type-constraint parsing.
//
// Contract:
//   convert(v, want)      → { value } or { error } where error is cty's message ("a number is required",
//                           "number required", "attribute \"x\" is required", ...). Marks are preserved.
//   canConvertType(a, b)  whether a conversion path exists at all (cty's GetConversion != nil).
//   unify(types)          the common type values of `types` can all be converted to (UnifyUnsafe: dynamic
//                         members are ignored when others exist), or undefined.
//   typeFromExpr(expr)    parses a type constraint expression (`list(string)`, `optional(number, 1)`).
//   constraintName(t)     cty's FriendlyNameForConstraint ("list of any single type").

import type { Diagnostic } from '../diags/diagnostic';
import type { Expr } from './ast';
import { Num } from './number';
import * as T from './types';
import type { Type } from './types';
import { Value, type Mark } from './value';

export type ConvResult = { value: Value; error?: undefined; path?: undefined } | { value?: undefined; error: string; path?: (string | number)[] };

/** cty's FriendlyNameForConstraint: dynamic reads "any type"; collections of dynamic read "of any single type". */
export function constraintName(t: Type): string {
  switch (t.kind) {
    case 'list':
    case 'set':
    case 'map':
      return t.elem.kind === 'dynamic' ? `${t.kind} of any single type` : `${t.kind} of ${constraintName(t.elem)}`;
    case 'dynamic':
      return 'any type';
    default:
      return T.friendlyName(t);
  }
}

/** Whether cty has a conversion from `from` to `to` (value-independent part). */
export function canConvertType(from: Type, to: Type): boolean {
  if (to.kind === 'dynamic' || from.kind === 'dynamic') return true;
  if (T.typeEquals(from, to)) return true;
  if (T.isPrimitive(from) && T.isPrimitive(to)) {
    return from.kind === 'string' || to.kind === 'string';
  }
  switch (to.kind) {
    case 'list':
    case 'set':
      if (from.kind === 'list' || from.kind === 'set') return canConvertType(from.elem, to.elem);
      if (from.kind === 'tuple') {
        if (to.elem.kind === 'dynamic') return from.elems.length === 0 || unify(from.elems) !== undefined;
        return from.elems.every((e) => canConvertType(e, to.elem));
      }
      return false;
    case 'map':
      if (from.kind === 'map') return canConvertType(from.elem, to.elem);
      if (from.kind === 'object') {
        const ts = [...from.attrs.values()];
        if (to.elem.kind === 'dynamic') return ts.length === 0 || unify(ts) !== undefined;
        return ts.every((e) => canConvertType(e, to.elem));
      }
      return false;
    case 'tuple':
      if (from.kind === 'tuple') return from.elems.length === to.elems.length && from.elems.every((e, i) => canConvertType(e, to.elems[i]));
      if (from.kind === 'list' || from.kind === 'set') return to.elems.every((e) => canConvertType(from.elem, e));
      return false;
    case 'object':
      if (from.kind === 'object') {
        for (const [k, t] of to.attrs) {
          const f = from.attrs.get(k);
          if (!f) {
            if (!to.optional?.has(k)) return false;
            continue;
          }
          if (!canConvertType(f, t)) return false;
        }
        return true;
      }
      if (from.kind === 'map') return [...to.attrs.values()].every((t) => canConvertType(from.elem, t));
      return false;
    default:
      return false;
  }
}

/** cty's MismatchMessage: why a value of type `got` cannot be used where `want` is required. */
export function mismatchMessage(got: Type, want: Type): string {
  if (want.kind === 'object' && got.kind === 'object') {
    const missing = [...want.attrs.keys()].filter((k) => !got.attrs.has(k) && !want.optional?.has(k)).sort(T.compareBytes);
    if (missing.length === 1) return `attribute ${JSON.stringify(missing[0])} is required`;
    if (missing.length > 1) return `attributes ${missing.slice(0, -1).map((m) => JSON.stringify(m)).join(', ')} and ${JSON.stringify(missing[missing.length - 1])} are required`;
    for (const k of [...want.attrs.keys()].sort(T.compareBytes)) {
      const g = got.attrs.get(k);
      if (g && !canConvertType(g, want.attrs.get(k)!)) return `attribute ${JSON.stringify(k)}: ${mismatchMessage(g, want.attrs.get(k)!)}`;
    }
  }
  if ((want.kind === 'list' || want.kind === 'set') && (got.kind === 'list' || got.kind === 'set') && !canConvertType(got.elem, want.elem)) {
    return `incorrect ${want.kind} element type: ${mismatchMessage(got.elem, want.elem)}`;
  }
  if (want.kind === 'map' && got.kind === 'map') return `incorrect map element type: ${mismatchMessage(got.elem, want.elem)}`;
  if ((want.kind === 'list' || want.kind === 'set') && got.kind === 'tuple' && want.elem.kind !== 'dynamic') {
    const i = got.elems.findIndex((e) => !canConvertType(e, want.elem));
    if (i >= 0) return `element ${i}: ${mismatchMessage(got.elems[i], want.elem)}`;
  }
  if (want.kind === 'map' && got.kind === 'object' && want.elem.kind !== 'dynamic') {
    for (const k of [...got.attrs.keys()].sort(T.compareBytes)) {
      const g = got.attrs.get(k)!;
      if (!canConvertType(g, want.elem)) return `element ${JSON.stringify(k)}: ${mismatchMessage(g, want.elem)}`;
    }
  }
  if (want.kind === 'tuple' && got.kind === 'tuple' && want.elems.length !== got.elems.length) {
    return `tuple required with exactly ${want.elems.length} element${want.elems.length === 1 ? '' : 's'}`;
  }
  return `${constraintName(want)} required`;
}

/** Converts a value to a type, as cty's convert.Convert. */
export function convert(v: Value, want: Type): ConvResult {
  if (want.kind === 'dynamic') return { value: v };
  if (T.typeEquals(v.type, want) && !(want.kind === 'object' && want.optional?.size)) return { value: v };
  const [u, marks] = v.unmark();
  const r = convertUnmarked(u, want, []);
  if (r.error !== undefined) return r;
  return { value: r.value.markWith(marks) };
}

function fail(error: string, path: (string | number)[]): ConvResult {
  return { error, path };
}

function convertUnmarked(v: Value, want: Type, path: (string | number)[]): ConvResult {
  if (want.kind === 'dynamic') return { value: v };
  if (T.typeEquals(v.type, want) && !(want.kind === 'object' && want.optional?.size)) return { value: v };
  if (!canConvertType(v.type, want)) return fail(mismatchMessage(v.type, want), path);
  const target = concreteTarget(v.type, want);
  if (v.isNull) return { value: Value.null(target) };
  if (!v.isKnown) return { value: Value.unknown(target) };
  if (v.type.kind === 'dynamic') return { value: v };
  const from = v.type;
  // Primitives.
  if (T.isPrimitive(from) && T.isPrimitive(want)) {
    if (want.kind === 'string') {
      if (from.kind === 'number') return { value: Value.string(v.num.toString()) };
      return { value: Value.string(v.bool ? 'true' : 'false') };
    }
    if (want.kind === 'number') {
      const n = Num.parse(v.str);
      if (!n) return fail('a number is required', path);
      return { value: Value.number(n) };
    }
    if (want.kind === 'bool') {
      if (v.str === 'true') return { value: Value.bool(true) };
      if (v.str === 'false') return { value: Value.bool(false) };
      return fail('a bool is required', path);
    }
  }
  switch (want.kind) {
    case 'list':
    case 'set': {
      const elems = from.kind === 'map' || from.kind === 'object' ? [...v.entries.values()] : v.elems;
      let et = want.elem;
      if (et.kind === 'dynamic') {
        const u = elems.length === 0 ? (from.kind === 'list' || from.kind === 'set' ? from.elem : T.Dynamic) : from.kind === 'list' || from.kind === 'set' ? from.elem : unify(elems.map((e) => e.type));
        if (!u) return fail(mismatchMessage(from, want), path);
        et = u;
      }
      const out: Value[] = [];
      for (let i = 0; i < elems.length; i++) {
        const [eu, em] = elems[i].unmark();
        const r = convertUnmarked(eu, et, [...path, i]);
        if (r.error !== undefined) return r;
        out.push(r.value.markWith(em));
      }
      if (want.kind === 'list') return { value: Value.list(out, et) };
      // Set elements cannot carry marks: cty moves them to the set itself.
      const setMarks = new Set<Mark>();
      const plain = out.map((x) => {
        const [d, m] = x.unmarkDeep();
        for (const y of m) setMarks.add(y);
        return d;
      });
      return { value: Value.set(plain, et).markWith(setMarks) };
    }
    case 'map': {
      const entries = v.entries;
      let et = want.elem;
      if (et.kind === 'dynamic') {
        const u = entries.size === 0 ? (from.kind === 'map' ? from.elem : T.Dynamic) : from.kind === 'map' ? from.elem : unify([...entries.values()].map((e) => e.type));
        if (!u) return fail(mismatchMessage(from, want), path);
        et = u;
      }
      const out = new Map<string, Value>();
      for (const k of [...entries.keys()].sort(T.compareBytes)) {
        const [eu, em] = entries.get(k)!.unmark();
        const r = convertUnmarked(eu, et, [...path, k]);
        if (r.error !== undefined) return r;
        out.set(k, r.value.markWith(em));
      }
      return { value: Value.map(out, et) };
    }
    case 'tuple': {
      const elems = v.elems;
      if (elems.length !== want.elems.length) return fail(mismatchMessage(from, want), path);
      const out: Value[] = [];
      for (let i = 0; i < elems.length; i++) {
        const [eu, em] = elems[i].unmark();
        const r = convertUnmarked(eu, want.elems[i], [...path, i]);
        if (r.error !== undefined) return r;
        out.push(r.value.markWith(em));
      }
      return { value: Value.tuple(out) };
    }
    case 'object': {
      const entries = v.entries;
      if (from.kind === 'map') {
        for (const k of entries.keys()) if (!want.attrs.has(k)) return fail(`unexpected attribute ${JSON.stringify(k)}`, path);
      }
      const out = new Map<string, Value>();
      for (const k of [...want.attrs.keys()].sort(T.compareBytes)) {
        const at = want.attrs.get(k)!;
        const src = entries.get(k);
        if (!src || (src.isNull && want.optional?.has(k))) {
          if (!want.optional?.has(k)) return fail(`attribute ${JSON.stringify(k)} is required`, path);
          const def = want.defaults?.get(k) as Value | undefined;
          if (def) {
            const r = convertUnmarked(def, at, [...path, k]);
            if (r.error !== undefined) return r;
            out.set(k, r.value);
          } else out.set(k, Value.null(stripOptional(at)));
          continue;
        }
        const [eu, em] = src.unmark();
        const r = convertUnmarked(eu, at, [...path, k]);
        if (r.error !== undefined) return r;
        out.set(k, r.value.markWith(em));
      }
      return { value: Value.object(out) };
    }
  }
  return fail(mismatchMessage(from, want), path);
}

/** Type constraint with optional-attribute annotations removed (the type values of it really have). */
export function stripOptional(t: Type): Type {
  switch (t.kind) {
    case 'list':
      return T.List(stripOptional(t.elem));
    case 'set':
      return T.Set(stripOptional(t.elem));
    case 'map':
      return T.Map(stripOptional(t.elem));
    case 'tuple':
      return T.Tuple(t.elems.map(stripOptional));
    case 'object': {
      const m = new Map<string, Type>();
      for (const [k, a] of t.attrs) m.set(k, stripOptional(a));
      return T.Obj(m);
    }
    default:
      return t;
  }
}

/** The concrete type a value of type `from` gets when converted to constraint `want` (for nulls and unknowns). */
function concreteTarget(from: Type, want: Type): Type {
  if (want.kind === 'dynamic') return from;
  switch (want.kind) {
    case 'list':
    case 'set':
    case 'map':
      if (want.elem.kind === 'dynamic' && from.kind !== 'dynamic') {
        if (from.kind === 'list' || from.kind === 'set' || from.kind === 'map') return { kind: want.kind, elem: from.elem };
        if (from.kind === 'tuple') return { kind: want.kind, elem: unify(from.elems) ?? T.Dynamic };
        if (from.kind === 'object') return { kind: want.kind, elem: unify([...from.attrs.values()]) ?? T.Dynamic };
      }
      return stripOptional(want);
    default:
      return stripOptional(want);
  }
}

/**
 * cty's unification (unsafe form, as HCL uses for conditionals and collection constructors): the most
 * specific type all of `types` convert to. Dynamic members are ignored unless all are dynamic.
 */
export function unify(types: readonly Type[]): Type | undefined {
  const ts = types.filter((t) => t.kind !== 'dynamic');
  if (ts.length === 0) return T.Dynamic;
  const first = ts[0];
  if (ts.every((t) => T.typeEquals(t, first))) return first;
  if (ts.every(T.isPrimitive)) {
    if (ts.some((t) => t.kind === 'string')) return T.String;
    return undefined;
  }
  const kinds = new Set(ts.map((t) => t.kind));
  // Objects: same attribute names → object of unified attributes; otherwise a map.
  if ([...kinds].every((k) => k === 'object' || k === 'map')) {
    if (kinds.size === 1 && kinds.has('object')) {
      const objs = ts as T.ObjectType[];
      const names = [...objs[0].attrs.keys()].sort();
      const same = objs.every((o) => o.attrs.size === names.length && names.every((n) => o.attrs.has(n)));
      if (same) {
        const m = new Map<string, Type>();
        for (const n of names) {
          const u = unify(objs.map((o) => o.attrs.get(n)!));
          if (!u) return undefined;
          m.set(n, u);
        }
        return T.Obj(m);
      }
    }
    const elems: Type[] = [];
    for (const t of ts) {
      if (t.kind === 'map') elems.push(t.elem);
      else elems.push(...(t as T.ObjectType).attrs.values());
    }
    const u = elems.length === 0 ? T.Dynamic : unify(elems);
    return u ? T.Map(u) : undefined;
  }
  if ([...kinds].every((k) => k === 'tuple' || k === 'list' || k === 'set')) {
    if (kinds.size === 1 && kinds.has('tuple')) {
      const tups = ts as T.TupleType[];
      const n = tups[0].elems.length;
      if (tups.every((t) => t.elems.length === n)) {
        const out: Type[] = [];
        for (let i = 0; i < n; i++) {
          const u = unify(tups.map((t) => t.elems[i]));
          if (!u) return undefined;
          out.push(u);
        }
        return T.Tuple(out);
      }
    }
    const elems: Type[] = [];
    for (const t of ts) {
      if (t.kind === 'tuple') elems.push(...t.elems);
      else elems.push((t as T.CollectionType).elem);
    }
    const u = elems.length === 0 ? T.Dynamic : unify(elems);
    if (!u) return undefined;
    return kinds.has('set') ? T.Set(u) : T.List(u);
  }
  return undefined;
}

// ---- type constraints ---------------------------------------------------------------------------------

/** Parses a type constraint expression as Terraform's `type =` argument (typeexpr with optional attributes). */
export function typeFromExpr(expr: Expr): { type: Type; diagnostics: Diagnostic[] } {
  const diags: Diagnostic[] = [];
  const bad = (e: Expr, detail: string): Type => {
    diags.push({ severity: 'error', summary: 'Invalid type specification', detail, subject: e.range });
    return T.Dynamic;
  };
  const walk = (e: Expr, allowOptional: boolean): { t: Type; optional?: boolean; def?: Value } => {
    if (e.kind === 'paren') return walk(e.expr, allowOptional);
    if (e.kind === 'scopeTraversal' && e.traversal.steps.length === 0) {
      switch (e.traversal.root) {
        case 'string':
          return { t: T.String };
        case 'number':
          return { t: T.Number };
        case 'bool':
          return { t: T.Bool };
        case 'any':
          return { t: T.Dynamic };
        case 'list':
        case 'map':
        case 'set':
        case 'object':
        case 'tuple':
          return { t: bad(e, `The ${e.traversal.root} type constructor requires one argument specifying the element type.`) };
      }
      return { t: bad(e, `The keyword ${JSON.stringify(e.traversal.root)} is not a valid type specification.`) };
    }
    if (e.kind === 'call') {
      const name = e.name;
      if (name === 'optional') {
        if (!allowOptional) return { t: bad(e, 'Keyword "optional" is valid only as a modifier for object type attributes.') };
        if (e.args.length < 1 || e.args.length > 2) return { t: bad(e, 'The "optional" type modifier takes one or two arguments.') };
        const inner = walk(e.args[0], false).t;
        let def: Value | undefined;
        if (e.args.length === 2) {
          const a = e.args[1];
          def = constValue(a);
          if (!def) diags.push({ severity: 'error', summary: 'Invalid default value', detail: 'Default values for optional attributes must be constant.', subject: a.range });
        }
        return { t: inner, optional: true, def };
      }
      if (name === 'list' || name === 'set' || name === 'map') {
        if (e.args.length !== 1) return { t: bad(e, `The ${name} type constructor requires one argument specifying the element type.`) };
        const el = walk(e.args[0], false).t;
        return { t: name === 'list' ? T.List(el) : name === 'set' ? T.Set(el) : T.Map(el) };
      }
      if (name === 'object') {
        const a = e.args[0];
        if (e.args.length !== 1 || a.kind !== 'object') return { t: bad(e, 'The object type constructor requires one argument specifying the attribute types as a map.') };
        const attrs = new Map<string, Type>();
        const optional = new Set<string>();
        const defaults = new Map<string, unknown>();
        for (const it of a.items) {
          let key: string | undefined;
          if (it.keyIsIdent && it.key.kind === 'scopeTraversal') key = it.key.traversal.root;
          else {
            const kv = constValue(it.key);
            if (kv && kv.type.kind === 'string' && kv.isKnown && !kv.isNull) key = kv.str;
          }
          if (key === undefined) {
            bad(it.key, 'Object constructor map keys must be attribute names.');
            continue;
          }
          const r = walk(it.value, true);
          attrs.set(key, r.t);
          if (r.optional) optional.add(key);
          if (r.def) defaults.set(key, r.def);
        }
        const t: Type = { kind: 'object', attrs, ...(optional.size ? { optional } : {}), ...(defaults.size ? { defaults } : {}) };
        return { t };
      }
      if (name === 'tuple') {
        const a = e.args[0];
        if (e.args.length !== 1 || a.kind !== 'tuple') return { t: bad(e, 'The tuple type constructor requires one argument specifying the element types as a list.') };
        return { t: T.Tuple(a.elems.map((x) => walk(x, false).t)) };
      }
      return { t: bad(e, `Keyword ${JSON.stringify(name)} is not a valid type constructor.`) };
    }
    return { t: bad(e, 'A type specification is either a primitive type keyword (bool, number, string) or a complex type constructor call, like list(string).') };
  };
  const t = walk(expr, false).t;
  return { type: t, diagnostics: diags };
}

/** Values of constant expressions (literals, templates without interpolation, tuples, objects); undefined otherwise. */
function constValue(e: Expr): Value | undefined {
  switch (e.kind) {
    case 'literal':
      return e.value;
    case 'paren':
      return constValue(e.expr);
    case 'template': {
      let s = '';
      for (const p of e.parts) {
        const v = constValue(p);
        if (!v) return undefined;
        const c = convert(v, T.String);
        if (c.error !== undefined || c.value.isNull) return undefined;
        s += c.value.str;
      }
      return Value.string(s);
    }
    case 'unary':
      if (e.op === '-') {
        const v = constValue(e.operand);
        if (v && v.type.kind === 'number' && v.isKnown && !v.isNull) return Value.number(v.num.neg());
      }
      return undefined;
    case 'tuple': {
      const out: Value[] = [];
      for (const x of e.elems) {
        const v = constValue(x);
        if (!v) return undefined;
        out.push(v);
      }
      return Value.tuple(out);
    }
    case 'object': {
      const m = new Map<string, Value>();
      for (const it of e.items) {
        const k = it.keyIsIdent && it.key.kind === 'scopeTraversal' ? it.key.traversal.root : constValue(it.key)?.str;
        const v = constValue(it.value);
        if (k === undefined || !v) return undefined;
        m.set(k, v);
      }
      return Value.object(m);
    }
    default:
      return undefined;
  }
}
