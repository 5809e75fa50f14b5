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

import type { Diagnostic, Range } from '../diags/diagnostic';
import type { Expr } from './ast';
import { forEachChild } from './ast';
import { evalExpr } from './eval';
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

const INVALID_TYPE = 'Invalid type specification';

/** hcl.ExprAsKeyword: a bare single name (including true/false/null written bare). */
function asKeyword(e: Expr): string {
  if (e.kind === 'scopeTraversal' && e.traversal.steps.length === 0) return e.traversal.root;
  if (e.kind === 'literal' && e.range.end.byte - e.range.start.byte <= 5) {
    const v = e.value;
    if (v.type.kind === 'dynamic' && v.isNull) return 'null';
    if (v.type.kind === 'bool') return v.bool ? 'true' : 'false';
  }
  return '';
}

function argsRange(e: Extract<Expr, { kind: 'call' }>) {
  return { filename: e.range.filename, start: e.openParenRange.start, end: e.closeParenRange.end };
}

/**
 * Parses a type constraint expression as HCL's typeexpr does (TypeConstraintWithDefaults by default):
 * `constraint` allows `any` and optional(); `withDefaults` allows optional(type, default).
 * Defaults are stored on the object type's `defaults` (values of value.ts). `variable` adds Terraform's rules
 * for a variable block's `type` argument (legacy bare list/map, quoted constraints).
 */
export function typeFromExpr(
  expr: Expr,
  opts: { constraint?: boolean; withDefaults?: boolean; variable?: boolean } = {},
): { type: Type; diagnostics: Diagnostic[] } {
  const constraint = opts.constraint ?? true;
  const withDefaults = opts.withDefaults ?? true;
  const diags: Diagnostic[] = [];
  const bad = (detail: string, subject: Range, context?: Range): Type => {
    const d: Diagnostic = { severity: 'error', summary: INVALID_TYPE, detail, subject };
    if (context) d.context = context;
    diags.push(d);
    return T.Dynamic;
  };
  const walk = (e: Expr): Type => {
    const kw = asKeyword(e);
    switch (kw) {
      case 'bool':
        return T.Bool;
      case 'string':
        return T.String;
      case 'number':
        return T.Number;
      case 'any':
        if (constraint) return T.Dynamic;
        return bad(`The keyword "any" cannot be used in this type specification: an exact type is required.`, e.range);
      case 'list':
      case 'map':
      case 'set':
        return bad(`The ${kw} type constructor requires one argument specifying the element type.`, e.range);
      case 'object':
        return bad('The object type constructor requires one argument specifying the attribute types and values as a map.', e.range);
      case 'tuple':
        return bad('The tuple type constructor requires one argument specifying the element types as a list.', e.range);
      case '':
        break;
      default:
        return bad(`The keyword ${JSON.stringify(kw)} is not a valid type specification.`, e.range);
    }
    if (e.kind !== 'call' || e.expandFinal) {
      return bad('A type specification is either a primitive type keyword (bool, number, string) or a complex type constructor call, like list(string).', e.range);
    }
    const name = e.name;
    const ar = argsRange(e);
    if (name === 'bool' || name === 'string' || name === 'number') return bad(`Primitive type keyword ${JSON.stringify(name)} does not expect arguments.`, ar);
    if (name === 'any') return bad(`Type constraint keyword "any" does not expect arguments.`, ar);
    if (e.args.length !== 1 && ['list', 'set', 'map', 'object', 'tuple'].includes(name)) {
      const subject = e.args.length > 1 ? { filename: ar.filename, start: e.args[1].range.start, end: e.args[e.args.length - 1].range.end } : ar;
      const detail =
        name === 'object'
          ? 'The object type constructor requires one argument specifying the attribute types and values as a map.'
          : name === 'tuple'
            ? 'The tuple type constructor requires one argument specifying the element types as a list.'
            : `The ${name} type constructor requires one argument specifying the element type.`;
      return bad(detail, subject, ar);
    }
    switch (name) {
      case 'list':
        return T.List(walk(e.args[0]));
      case 'set':
        return T.Set(walk(e.args[0]));
      case 'map':
        return T.Map(walk(e.args[0]));
      case 'tuple': {
        const a = e.args[0];
        if (a.kind !== 'tuple') return bad('Tuple type constructor requires a list of element types.', a.range, e.range);
        return T.Tuple(a.elems.map(walk));
      }
      case 'object': {
        const a = e.args[0];
        if (a.kind !== 'object') {
          return bad('Object type constructor requires a map whose keys are attribute names and whose values are the corresponding attribute types.', a.range, e.range);
        }
        const attrs = new Map<string, Type>();
        const optional = new Set<string>();
        const defaults = new Map<string, unknown>();
        for (const it of a.items) {
          const attrName = asKeyword(it.key);
          if (attrName === '') {
            bad('Object constructor map keys must be attribute names.', it.key.range, e.range);
            continue;
          }
          let atyExpr = it.value;
          let defaultExpr: Expr | undefined;
          let defaultVal: Value | undefined;
          if (atyExpr.kind === 'call' && atyExpr.name === 'optional') {
            const oc = atyExpr;
            const oar = argsRange(oc);
            if (oc.args.length < 1) {
              bad('Optional attribute modifier requires the attribute type as its argument.', oar, oc.range);
              continue;
            }
            if (constraint) {
              if (withDefaults) {
                if (oc.args.length === 2) {
                  defaultExpr = oc.args[1];
                  const r = constantValue(defaultExpr);
                  diags.push(...r.diagnostics);
                  if (r.value) {
                    optional.add(attrName);
                    defaultVal = r.value;
                  }
                } else if (oc.args.length === 1) optional.add(attrName);
                else bad('Optional attribute modifier expects at most two arguments: the attribute type, and a default value.', oar, oc.range);
              } else if (oc.args.length === 1) optional.add(attrName);
              else bad('Optional attribute modifier expects only one argument: the attribute type.', oar, oc.range);
            } else {
              bad('Optional attribute modifier is only for type constraints, not for exact types.', oc.nameRange, oc.range);
            }
            atyExpr = oc.args[0];
          }
          const aty = walk(atyExpr);
          if (defaultVal && defaultExpr) {
            const c = convert(defaultVal, aty);
            if (c.error !== undefined) {
              diags.push({
                severity: 'error',
                summary: 'Invalid default value for optional attribute',
                detail: `This default value is not compatible with the attribute's type constraint: ${c.error}.`,
                subject: defaultExpr.range,
              });
            } else defaults.set(attrName, defaultVal);
          }
          attrs.set(attrName, aty);
        }
        return { kind: 'object', attrs, ...(optional.size ? { optional } : {}), ...(defaults.size ? { defaults } : {}) };
      }
      case 'optional':
        return bad('Keyword "optional" is valid only as a modifier for object type attributes.', e.nameRange);
      default:
        return bad(`Keyword ${JSON.stringify(name)} is not a valid type constructor.`, e.range);
    }
  };
  if (opts.variable) {
    // Terraform's own rules for a variable's `type`: quoted legacy constraints are an error, and the bare
    // legacy keywords list and map mean list(any) and map(any).
    if (expr.kind === 'template' && expr.parts.every((p) => p.kind === 'literal')) {
      const text = expr.parts.map((p) => (p.kind === 'literal' ? p.value.str : '')).join('');
      diags.push({
        severity: 'error',
        summary: 'Invalid quoted type constraints',
        detail: `Terraform 0.11 and earlier required type constraints to be given in quotes, but that form is now deprecated and will be removed in a future version of Terraform. Remove the quotes around ${JSON.stringify(text)}.`,
        subject: expr.range,
      });
      return { type: T.Dynamic, diagnostics: diags };
    }
    const kw = asKeyword(expr);
    if (kw === 'list') return { type: T.List(T.Dynamic), diagnostics: diags };
    if (kw === 'map') return { type: T.Map(T.Dynamic), diagnostics: diags };
  }
  const t = walk(expr);
  return { type: t, diagnostics: diags };
}

/** Evaluates an expression without any variables or functions (HCL's Value(nil)), as for optional() defaults. */
export function constantValue(e: Expr): { value?: Value; diagnostics: Diagnostic[] } {
  const diags: Diagnostic[] = [];
  const visit = (x: Expr) => {
    if (x.kind === 'scopeTraversal') {
      diags.push({ severity: 'error', summary: 'Variables not allowed', detail: 'Variables may not be used here.', subject: x.range });
      return;
    }
    if (x.kind === 'call') {
      diags.push({ severity: 'error', summary: 'Function calls not allowed', detail: 'Functions may not be called here.', subject: x.range });
      return;
    }
    forEachChild(x, visit);
  };
  visit(e);
  if (diags.length) return { diagnostics: diags };
  const r = evalExpr(e, { variables: new Map(), funcCtx: { baseDir: '.', planning: false, console: false } });
  if (r.diagnostics.some((d) => d.severity === 'error')) return { diagnostics: r.diagnostics };
  return { value: r.value, diagnostics: r.diagnostics };
}
