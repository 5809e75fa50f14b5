// Collection built-in functions (go-cty stdlib and Terraform's lang/funcs): alltrue, anytrue, chunklist,
// coalesce, coalescelist, compact, concat, contains, distinct, element, flatten, index, keys, length,
// lookup, matchkeys, merge, one, range, reverse, setintersection, setproduct, setsubtract, setunion,
// slice, sort, sum, transpose, values, zipmap. Type functions mirror cty's (they may see unknown or marked
// arguments); messages are passed without their final period.

import { Num } from '../number';
import * as T from '../types';
import type { Type } from '../types';
import { Value, type Mark } from '../value';
import { fn, FuncArgError, FuncError, type FuncSpec } from './function';
import { ConvertError, convert, ctyEquals, goQuote, graphemes, toGoInt, unify } from './_util';

const dyn = (name: string, extra: Partial<Omit<import('./function').Param, 'name' | 'type'>> = {}) => ({
  name,
  type: T.Dynamic,
  ...extra,
});

function unionMarks(...vals: Value[]): Set<Mark> {
  const s = new Set<Mark>();
  for (const v of vals) for (const m of v.marks) s.add(m);
  return s;
}

const isSeq = (t: Type) => t.kind === 'list' || t.kind === 'set' || t.kind === 'tuple';

function emptyOrList(elems: Value[], ety: Type): Value {
  return Value.list(elems, ety);
}

// ---- concat ----------------------------------------------------------------------------------------------

function concatType(args: readonly Value[]): Type {
  if (args.length === 0) throw new FuncError('at least one argument is required');
  if (args[0].type.kind === 'list' && args.every((a) => a.type.kind === 'list')) {
    const common = unify(args.map((a) => a.type));
    if (common) return common;
  }
  const etys: Type[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i];
    const t = v.type;
    if (t.kind === 'tuple') etys.push(...t.elems);
    else if (t.kind === 'list') {
      if (!v.isKnown) return T.Dynamic;
      for (let j = 0; j < v.elems.length; j++) etys.push(t.elem);
    } else throw new FuncArgError(i, `all arguments must be lists or tuples; got ${T.friendlyName(t)}`);
  }
  return T.Tuple(etys);
}

// ---- flatten ---------------------------------------------------------------------------------------------

function flattener(list: Value): { out: Value[]; marks: Set<Mark>; known: boolean } {
  const [l, lm] = list.unmark();
  const marks = new Set<Mark>(lm);
  if (!l.isKnown) return { out: [], marks, known: false };
  const out: Value[] = [];
  let known = true;
  for (const val of l.elems) {
    if (val.type.kind === 'dynamic' && !val.isKnown) known = false;
    if (!val.isNull && isSeq(val.type)) {
      if (!val.isKnown) {
        known = false;
        for (const m of val.marks) marks.add(m);
        continue;
      }
      const r = flattener(val);
      for (const m of r.marks) marks.add(m);
      if (r.known) out.push(...r.out);
      else known = false;
    } else out.push(val);
  }
  return { out, marks, known };
}

// ---- sets ------------------------------------------------------------------------------------------------

function setOpType(args: readonly Value[]): Type {
  const etys: Type[] = [];
  for (const a of args) {
    const ety = (a.type as T.CollectionType).elem ?? T.Dynamic;
    if (a.type.kind === 'dynamic') {
      etys.push(T.Dynamic);
      continue;
    }
    if (a.isKnown && !a.isNull && a.elems.length === 0 && ety.kind === 'dynamic') continue;
    etys.push(ety);
  }
  if (etys.length === 0) return T.Set(T.Dynamic);
  const u = unify(etys);
  if (!u) throw new FuncError('given sets must all have compatible element types');
  return T.Set(u);
}

function setOp(op: 'union' | 'intersection' | 'subtract', allowUnknowns: boolean) {
  return (args: readonly Value[]): Value => {
    const retType = setOpType(args) as T.CollectionType;
    const conv = (a: Value, i: number) => {
      try {
        return convert(a, retType);
      } catch (e) {
        if (e instanceof ConvertError) throw new FuncArgError(i, e.message);
        throw e;
      }
    };
    const first = conv(args[0], 0);
    if (!allowUnknowns && !first.isWhollyKnown) return Value.unknown(retType);
    let acc: Value[] = [...first.elems];
    for (let i = 1; i < args.length; i++) {
      const s = conv(args[i], i);
      if (!allowUnknowns && !s.isWhollyKnown) return Value.unknown(retType);
      const has = (set: readonly Value[], v: Value) => set.some((x) => x.isKnown && v.isKnown && ctyEquals(x, v) === true && x.isNull === v.isNull);
      if (op === 'union') acc = acc.concat(s.elems.filter((v) => !has(acc, v)));
      else if (op === 'intersection') acc = acc.filter((v) => has(s.elems, v));
      else acc = acc.filter((v) => !has(s.elems, v));
    }
    return Value.set(acc, retType.elem);
  };
}

// ---- slice -----------------------------------------------------------------------------------------------

function sliceIndexes(args: readonly Value[]): { start: number; end: number; known: boolean } {
  const [list] = args[0].unmark();
  let length = 0;
  let lengthKnown = false;
  if (list.type.kind === 'tuple') {
    length = list.type.elems.length;
    lengthKnown = true;
  } else if (list.isKnown) {
    length = list.elems.length;
    lengthKnown = true;
  }
  let start = 0;
  let end = 0;
  const idx = (v: Value, i: number, what: string) => {
    try {
      return toGoInt(v);
    } catch (e) {
      if (e instanceof FuncError) throw new FuncArgError(i, `invalid ${what} index: ${e.message}`);
      throw e;
    }
  };
  if (args[1].isKnown) {
    start = idx(args[1], 1, 'start');
    if (start < 0) throw new FuncArgError(1, 'start index must not be less than zero');
    if (lengthKnown && start > length) throw new FuncArgError(1, 'start index must not be greater than the length of the list');
  }
  if (args[2].isKnown) {
    end = idx(args[2], 2, 'end');
    if (end < 0) throw new FuncArgError(2, 'end index must not be less than zero');
    if (lengthKnown && end > length) throw new FuncArgError(2, 'end index must not be greater than the length of the list');
  }
  const known = args[1].isKnown && args[2].isKnown;
  if (known && start > end) throw new FuncArgError(1, 'start index must not be greater than end index');
  return { start, end, known };
}

function sliceType(args: readonly Value[]): Type {
  const t = args[0].type;
  if (t.kind === 'set')
    throw new FuncArgError(
      0,
      'cannot slice a set, because its elements do not have indices; explicitly convert to a list if the ordering of the result is not important',
    );
  if (t.kind !== 'list' && t.kind !== 'tuple') throw new FuncArgError(0, 'must be a list or tuple value');
  const { start, end, known } = sliceIndexes(args);
  if (t.kind === 'list') return t;
  if (!known) return T.Dynamic;
  return T.Tuple(t.elems.slice(start, end));
}

// ---- misc type functions ----------------------------------------------------------------------------

function mergeType(args: readonly Value[]): Type {
  if (args.length === 0) return T.EmptyObject;
  const attrs = new Map<string, Type>();
  let first: Type | undefined;
  let matching = true;
  let attrsKnown = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    let ty = arg.type;
    if (ty.kind === 'dynamic') return T.Dynamic;
    if (ty.kind !== 'map' && ty.kind !== 'object') {
      throw new FuncError(`arguments must be maps or objects, got ${goQuote(T.friendlyName(ty))}`);
    }
    if (ty.kind === 'object') {
      if (arg.isNull) ty = T.EmptyObject;
      for (const [k, t] of (ty as T.ObjectType).attrs) attrs.set(k, t);
    } else if (!arg.isNull) {
      if (arg.isKnown) for (const k of arg.entries.keys()) attrs.set(k, ty.elem);
      else attrsKnown = false;
    }
    if (i === 0) {
      first = ty;
      continue;
    }
    if (matching && !T.typeEquals(ty, first!)) matching = false;
  }
  if (matching) return first!;
  if (!attrsKnown) return T.Dynamic;
  return T.Obj(attrs);
}

function lookupType(args: readonly Value[]): Type {
  if (args.length < 1 || args.length > 3) throw new FuncError(`lookup() takes two or three arguments, got ${args.length}`);
  const ty = args[0].type;
  if (ty.kind === 'object') {
    if (!args[1].isKnown) return T.Dynamic;
    const key = args[1].str;
    const at = ty.attrs.get(key);
    if (at) return at;
    if (args.length === 3) return args[2].type;
    throw new FuncArgError(0, `the given object has no attribute ${goQuote(key)}`);
  }
  if (ty.kind === 'map') {
    if (args.length === 3) {
      try {
        convert(args[2], ty.elem);
      } catch (e) {
        if (e instanceof ConvertError) throw new FuncArgError(2, 'the default value must have the same type as the map elements');
        throw e;
      }
    }
    return ty.elem;
  }
  throw new FuncArgError(0, 'lookup() requires a map as the first argument');
}

function zipmapType(args: readonly Value[]): Type {
  const [keys, values] = args;
  const vt = values.type;
  if (vt.kind === 'list') return T.Map(vt.elem);
  if (vt.kind === 'tuple') {
    if (!keys.isWhollyKnown) return T.Dynamic;
    const ks = keys.unmark()[0].elems;
    if (ks.length !== vt.elems.length)
      throw new FuncError(`number of keys (${ks.length}) does not match number of values (${vt.elems.length})`);
    const attrs = new Map<string, Type>();
    ks.forEach((k, i) => {
      const [kv] = k.unmark();
      if (kv.isNull) throw new FuncError(`keys list has null value at index ${i}`);
      attrs.set(kv.str, vt.elems[i]);
    });
    return T.Obj(attrs);
  }
  throw new FuncError('values argument must be a list or tuple value');
}

function setproductType(args: readonly Value[]): Type {
  if (args.length < 2) throw new FuncError('at least two arguments are required');
  let listCount = 0;
  const etys: Type[] = [];
  args.forEach((a, i) => {
    const t = a.type;
    if (t.kind === 'set') etys.push(t.elem);
    else if (t.kind === 'list') {
      etys.push(t.elem);
      listCount++;
    } else if (t.kind === 'tuple') {
      if (t.elems.length === 0) etys.push(T.Dynamic);
      else {
        const u = unify(t.elems);
        if (!u) throw new FuncArgError(i, 'all elements must be of the same type');
        etys.push(u);
      }
      listCount++;
    } else throw new FuncArgError(i, 'a set or a list is required');
  });
  return listCount === args.length ? T.List(T.Tuple(etys)) : T.Set(T.Tuple(etys));
}

// ---- the functions -------------------------------------------------------------------------------------

export const functions: Record<string, FuncSpec> = {
  alltrue: fn({
    params: [{ name: 'list', type: T.List(T.Bool) }],
    returns: T.Bool,
    impl: ([l]) => {
      for (const v of l.elems) {
        if (!v.isKnown) return Value.unknown(T.Bool, { notNull: true });
        if (v.isNull || !v.bool) return Value.bool(false);
      }
      return Value.bool(true);
    },
  }),
  anytrue: fn({
    params: [{ name: 'list', type: T.List(T.Bool) }],
    returns: T.Bool,
    impl: ([l]) => {
      let unknown = false;
      for (const v of l.elems) {
        if (!v.isKnown) {
          unknown = true;
          continue;
        }
        if (v.isNull) continue;
        if (v.bool) return Value.bool(true);
      }
      return unknown ? Value.unknown(T.Bool, { notNull: true }) : Value.bool(false);
    },
  }),
  chunklist: fn({
    params: [
      { name: 'list', type: T.List(T.Dynamic), allowMarked: true },
      { name: 'size', type: T.Number, allowMarked: true },
    ],
    type: (args) => T.List(args[0].type),
    impl: (args) => {
      const [list, lm] = args[0].unmark();
      const [sizeV, sm] = args[1].unmark();
      const marks = new Set<Mark>([...lm, ...sm]);
      let size: number;
      try {
        size = toGoInt(sizeV);
      } catch (e) {
        if (e instanceof FuncError) throw new FuncError(`invalid size: ${e.message}`);
        throw e;
      }
      if (size < 0) throw new FuncError('the size argument must be positive');
      const lt = list.type;
      if (list.elems.length === 0) return Value.list([], lt).markWith(marks);
      if (size === 0) return Value.list([list], lt).markWith(marks);
      const ety = (lt as T.CollectionType).elem;
      const out: Value[] = [];
      for (let i = 0; i < list.elems.length; i += size) out.push(Value.list(list.elems.slice(i, i + size), ety));
      return Value.list(out, lt).markWith(marks);
    },
  }),
  coalesce: fn({
    params: [],
    varParam: dyn('vals', { allowUnknown: true, allowDynamicType: true, allowNull: true }),
    type: (args) => {
      const t = args.length === 0 ? undefined : unify(args.map((a) => a.type));
      if (!t) throw new FuncError('all arguments must have the same type');
      return t;
    },
    impl: (args) => {
      const retType = unify(args.map((a) => a.type))!;
      for (const a of args) {
        const v = convert(a, retType);
        if (!v.isKnown) return Value.unknown(retType, { notNull: true });
        if (v.isNull) continue;
        if (retType.kind === 'string' && v.str === '' && !v.isMarked) continue;
        return v;
      }
      throw new FuncError('no non-null, non-empty-string arguments');
    },
  }),
  coalescelist: fn({
    params: [],
    varParam: dyn('vals', { allowUnknown: true, allowDynamicType: true, allowNull: true }),
    type: (args) => {
      if (args.length === 0) throw new FuncError('at least one argument is required');
      for (const a of args) {
        if (!a.isKnown) return T.Dynamic;
        if (a.type.kind !== 'list' && a.type.kind !== 'tuple') throw new FuncError('coalescelist arguments must be lists or tuples');
      }
      const first = args[0].type;
      return args.every((a) => T.typeEquals(a.type, first)) ? first : T.Dynamic;
    },
    impl: (args) => {
      for (const a of args) {
        if (!a.isKnown) return Value.unknown(T.Dynamic);
        if (a.isNull) continue;
        if (a.elems.length > 0) return a;
      }
      throw new FuncError('no non-null arguments');
    },
  }),
  compact: fn({
    params: [{ name: 'list', type: T.List(T.String) }],
    returns: T.List(T.String),
    impl: ([l]) => {
      if (!l.isWhollyKnown) return Value.unknown(T.List(T.String), { notNull: true });
      return Value.list(
        l.elems.filter((v) => !v.isNull && v.str !== ''),
        T.String,
      );
    },
  }),
  concat: fn({
    params: [],
    varParam: dyn('seqs', { allowMarked: true }),
    type: concatType,
    impl: (args) => {
      const retType = concatType(args);
      const marks = new Set<Mark>();
      const vals: Value[] = [];
      if (retType.kind === 'list') {
        args.forEach((a, i) => {
          let l: Value;
          try {
            l = convert(a, retType);
          } catch (e) {
            if (e instanceof ConvertError) throw new FuncArgError(i, e.message);
            throw e;
          }
          const [u, m] = l.unmark();
          for (const x of m) marks.add(x);
          vals.push(...u.elems);
        });
        return Value.list(vals, retType.elem).markWith(marks);
      }
      if (retType.kind === 'dynamic') return Value.unknown(T.Dynamic).markWith(unionMarks(...args));
      for (const a of args) {
        const [u, m] = a.unmark();
        for (const x of m) marks.add(x);
        vals.push(...u.elems);
      }
      return Value.tuple(vals).markWith(marks);
    },
  }),
  contains: fn({
    params: [dyn('list'), dyn('value')],
    returns: T.Bool,
    impl: ([l, v]) => {
      const k = l.type.kind;
      if (k !== 'list' && k !== 'tuple' && k !== 'set') throw new FuncError('argument must be list, tuple, or set');
      if (l.isKnown && l.elems.length === 0) return Value.bool(false);
      if (!l.isKnown || !v.isKnown) return Value.unknown(T.Bool, { notNull: true });
      let unknown = false;
      for (const e of l.elems) {
        const eq = ctyEquals(v, e);
        if (eq === undefined) unknown = true;
        else if (eq) return Value.bool(true);
      }
      return unknown ? Value.unknown(T.Bool, { notNull: true }) : Value.bool(false);
    },
  }),
  distinct: fn({
    params: [{ name: 'list', type: T.List(T.Dynamic) }],
    type: (args) => args[0].type,
    impl: ([l]) => {
      if (!l.isWhollyKnown) return Value.unknown(l.type, { notNull: true });
      const out: Value[] = [];
      for (const v of l.elems) if (!out.some((o) => ctyEquals(o, v) === true)) out.push(v);
      return Value.list(out, (l.type as T.CollectionType).elem);
    },
  }),
  element: fn({
    params: [dyn('list', { allowMarked: true }), { name: 'index', type: T.Number }],
    type: (args) => {
      const lt = args[0].type;
      if (lt.kind === 'list') return lt.elem;
      if (lt.kind === 'tuple') {
        if (!args[1].isKnown) return T.Dynamic;
        let index = toGoInt(args[1], 'invalid index: ');
        if (lt.elems.length === 0) throw new FuncError('cannot use element function with an empty list');
        index = index % lt.elems.length;
        if (index < 0) throw new FuncError(`panic in function implementation: runtime error: index out of range [${index}]`);
        return lt.elems[index];
      }
      throw new FuncError(`cannot read elements from ${T.friendlyName(lt)}`);
    },
    impl: (args) => {
      let index = toGoInt(args[1], 'invalid index: ');
      const [input, marks] = args[0].unmark();
      if (!input.isKnown) return Value.unknown(input.type.kind === 'list' ? input.type.elem : T.Dynamic).markWith(marks);
      const l = input.elems.length;
      if (l === 0) throw new FuncError('cannot use element function with an empty list');
      index = index % l;
      // Terraform 1.11's cty indexes with the negative remainder and panics.
      if (index < 0) throw new FuncError(`panic in function implementation: runtime error: index out of range [${index}]`);
      return input.elems[index].markWith(marks);
    },
  }),
  flatten: fn({
    params: [dyn('list', { allowMarked: true })],
    type: (args) => {
      if (!args[0].isWhollyKnown) return T.Dynamic;
      const t = args[0].type;
      if (!isSeq(t)) throw new FuncError('can only flatten lists, sets and tuples');
      const r = flattener(args[0]);
      if (!r.known) return T.Dynamic;
      return T.Tuple(r.out.map((v) => v.type));
    },
    impl: (args) => {
      const [u, m] = args[0].unmark();
      if (u.isKnown && u.elems.length === 0) return Value.tuple([]).markWith(m);
      const r = flattener(args[0]);
      if (!r.known) return Value.unknown(T.Dynamic).markWith(r.marks);
      return Value.tuple(r.out).markWith(r.marks);
    },
  }),
  index: fn({
    params: [dyn('list'), dyn('value')],
    returns: T.Number,
    impl: ([l, v]) => {
      if (l.type.kind !== 'list' && l.type.kind !== 'tuple') throw new FuncError('argument must be a list or tuple');
      if (!l.isKnown) return Value.unknown(T.Number, { notNull: true });
      if (l.elems.length === 0) throw new FuncError('cannot search an empty list');
      for (let i = 0; i < l.elems.length; i++) {
        const eq = ctyEquals(l.elems[i], v);
        if (eq === undefined) return Value.unknown(T.Number, { notNull: true });
        if (eq) return Value.number(i);
      }
      throw new FuncError('item not found');
    },
  }),
  keys: fn({
    params: [dyn('inputMap', { allowUnknown: true, allowMarked: true })],
    type: (args) => {
      const t = args[0].type;
      if (t.kind === 'map') return T.List(T.String);
      if (t.kind === 'object') return T.Tuple(T.attrNames(t).map(() => T.String));
      throw new FuncArgError(0, 'must have map or object type');
    },
    impl: (args) => {
      const [m, marks] = args[0].unmark();
      if (m.type.kind === 'object') return Value.tuple(T.attrNames(m.type).map((n) => Value.string(n))).markWith(marks);
      if (!m.isKnown) return Value.unknown(T.List(T.String), { notNull: true }).markWith(marks);
      const ks = [...m.entries.keys()].sort(T.compareBytes);
      return Value.list(
        ks.map((k) => Value.string(k)),
        T.String,
      ).markWith(marks);
    },
  }),
  length: fn({
    params: [dyn('value', { allowDynamicType: true, allowUnknown: true, allowMarked: true })],
    type: (args) => {
      const t = args[0].type;
      if (t.kind === 'string' || t.kind === 'tuple' || t.kind === 'object' || t.kind === 'list' || t.kind === 'map' || t.kind === 'set' || t.kind === 'dynamic')
        return T.Number;
      throw new FuncError('argument must be a string, a collection type, or a structural type');
    },
    impl: (args) => {
      const [c, marks] = args[0].unmark();
      const t = c.type;
      switch (t.kind) {
        case 'dynamic':
          return Value.unknown(T.Number).markWith(marks);
        case 'tuple':
          return Value.number(t.elems.length).markWith(marks);
        case 'object':
          return Value.number(t.attrs.size).markWith(marks);
        case 'string':
          if (!c.isKnown) return Value.unknown(T.Number, { notNull: true }).markWith(marks);
          return Value.number(graphemes(c.str).length).markWith(marks);
        default:
          if (!c.isKnown) return Value.unknown(T.Number, { notNull: true }).markWith(marks);
          return Value.number(c.length).markWith(marks);
      }
    },
  }),
  lookup: fn({
    params: [dyn('inputMap', { allowMarked: true, allowUnknown: true }), { name: 'key', type: T.String, allowMarked: true, allowUnknown: true }],
    varParam: dyn('default', { allowUnknown: true, allowDynamicType: true, allowNull: true, allowMarked: true }),
    type: (args) => lookupType(args.map((a, i) => (i === 1 ? a.unmark()[0] : a))),
    impl: (args) => {
      const [mapV, mm] = args[0].unmark();
      const [keyV, km] = args[1].unmark();
      const marks = new Set<Mark>([...mm, ...km]);
      const retType = lookupType([args[0], keyV, ...args.slice(2)]);
      if (!(mapV.isKnown && keyV.isKnown)) return Value.unknown(retType).markWith(marks);
      const key = keyV.str;
      if (mapV.type.kind === 'object') {
        const v = mapV.entries.get(key);
        if (v) return v.markWith(marks);
      } else if (!mapV.isNull) {
        const v = mapV.entries.get(key);
        if (v) return v.markWith(marks);
      }
      if (args.length === 3) {
        let d: Value;
        try {
          d = convert(args[2], retType);
        } catch (e) {
          if (e instanceof ConvertError) throw new FuncError(e.message);
          throw e;
        }
        return d.markWith(marks);
      }
      throw new FuncError(`lookup failed to find key ${km.has('sensitive') ? '(sensitive value)' : goQuote(key)}`);
    },
  }),
  matchkeys: fn({
    params: [
      { name: 'values', type: T.List(T.Dynamic) },
      { name: 'keys', type: T.List(T.Dynamic) },
      { name: 'searchset', type: T.List(T.Dynamic) },
    ],
    type: (args) => {
      if (!unify([args[1].type, args[2].type])) throw new FuncError('keys and searchset must be of the same type');
      return args[0].type;
    },
    impl: (args) => {
      const [values] = args;
      const ety = (values.type as T.CollectionType).elem;
      if (!values.isKnown) return Value.unknown(values.type);
      if (values.elems.length !== args[1].elems.length) throw new FuncError('length of keys and values should be equal');
      const ty = unify([args[1].type, args[2].type])!;
      const keys = convert(args[1], ty);
      const search = convert(args[2], ty);
      if (search.elems.length === 0) return Value.list([], ety);
      if (!values.isWhollyKnown || !keys.isWhollyKnown) return Value.unknown(values.type);
      const out: Value[] = [];
      for (let i = 0; i < keys.elems.length; i++) {
        for (const s of search.elems) {
          const eq = ctyEquals(keys.elems[i], s);
          if (eq === undefined) return Value.list([], ety);
          if (eq) {
            out.push(values.elems[i]);
            break;
          }
        }
      }
      return Value.list(out, ety);
    },
  }),
  merge: fn({
    params: [],
    varParam: dyn('maps', { allowDynamicType: true, allowNull: true, allowMarked: true }),
    type: mergeType,
    impl: (args) => {
      const retType = mergeType(args);
      const out = new Map<string, Value>();
      const marks = new Set<Mark>();
      for (const a of args) {
        if (a.isNull) continue;
        const [u, m] = a.unmark();
        for (const x of m) marks.add(x);
        if (!u.isKnown) return Value.unknown(retType).markWith(marks);
        for (const k of [...u.entries.keys()].sort(T.compareBytes)) out.set(k, u.entries.get(k)!);
      }
      const sorted = new Map([...out.keys()].sort(T.compareBytes).map((k) => [k, out.get(k)!] as const));
      if (retType.kind === 'map') return Value.map(sorted, retType.elem).markWith(marks);
      return Value.object(sorted).markWith(marks);
    },
  }),
  one: fn({
    params: [dyn('list')],
    type: (args) => {
      const t = args[0].type;
      if (t.kind === 'list' || t.kind === 'set') return t.elem;
      if (t.kind === 'tuple') {
        if (t.elems.length === 0) return T.Dynamic;
        if (t.elems.length === 1) return t.elems[0];
      }
      throw new FuncArgError(0, 'must be a list, set, or tuple value with either zero or one elements');
    },
    impl: ([v]) => {
      const t = v.type;
      if (t.kind === 'list' || t.kind === 'set') {
        if (!v.isKnown) return Value.unknown(t.elem);
        if (v.elems.length === 0) return Value.null(t.elem);
        if (v.elems.length === 1) return v.elems[0];
      } else if (t.kind === 'tuple') {
        if (t.elems.length === 0) return Value.null(T.Dynamic);
        if (t.elems.length === 1) return v.elems[0];
      }
      throw new FuncArgError(0, 'must be a list, set, or tuple value with either zero or one elements');
    },
  }),
  range: fn({
    params: [],
    varParam: { name: 'params', type: T.Number },
    returns: T.List(T.Number),
    impl: (args) => {
      let start: Num, end: Num, step: Num;
      const n = args.map((a) => a.num);
      switch (args.length) {
        case 1:
          [start, end, step] = [Num.ZERO, n[0], n[0].sign() < 0 ? Num.from(-1) : Num.ONE];
          break;
        case 2:
          [start, end, step] = [n[0], n[1], n[1].cmp(n[0]) < 0 ? Num.from(-1) : Num.ONE];
          break;
        case 3:
          [start, end, step] = [n[0], n[1], n[2]];
          break;
        default:
          throw new FuncError('must have one, two, or three arguments');
      }
      // cty compares the step with zero by identity, so a zero step is never rejected here.
      const down = step.sign() < 0;
      if (down) {
        if (end.cmp(start) > 0) throw new FuncArgError(1, 'end must be less than start when step is negative');
      } else if (end.cmp(start) < 0) throw new FuncArgError(1, 'end must be greater than start when step is positive');
      const vals: Value[] = [];
      let num = start;
      for (;;) {
        if (down ? num.cmp(end) <= 0 : num.cmp(end) >= 0) break;
        if (vals.length >= 1024)
          throw new FuncError(
            'more than 1024 values were generated; either decrease the difference between start and end or use a smaller step',
          );
        vals.push(Value.number(num));
        num = num.add(step);
      }
      return Value.list(vals, T.Number);
    },
  }),
  reverse: fn({
    params: [dyn('list', { allowMarked: true })],
    type: (args) => {
      const t = args[0].type;
      if (t.kind === 'tuple') return T.Tuple([...t.elems].reverse());
      if (t.kind === 'list' || t.kind === 'set') return T.List(t.elem);
      throw new FuncArgError(0, `can only reverse list or tuple values, not ${T.friendlyName(t)}`);
    },
    impl: (args) => {
      const [u, m] = args[0].unmark();
      const out = [...u.elems].reverse();
      if (u.type.kind === 'tuple') return Value.tuple(out).markWith(m);
      return emptyOrList(out, (u.type as T.CollectionType).elem).markWith(m);
    },
  }),
  setintersection: fn({
    params: [{ name: 'first_set', type: T.Set(T.Dynamic), allowDynamicType: true }],
    varParam: { name: 'other_sets', type: T.Set(T.Dynamic), allowDynamicType: true },
    type: setOpType,
    impl: setOp('intersection', false),
  }),
  setsubtract: fn({
    params: [
      { name: 'a', type: T.Set(T.Dynamic), allowDynamicType: true },
      { name: 'b', type: T.Set(T.Dynamic), allowDynamicType: true },
    ],
    type: setOpType,
    impl: setOp('subtract', false),
  }),
  setunion: fn({
    params: [{ name: 'first_set', type: T.Set(T.Dynamic), allowDynamicType: true }],
    varParam: { name: 'other_sets', type: T.Set(T.Dynamic), allowDynamicType: true },
    type: setOpType,
    impl: setOp('union', true),
  }),
  setproduct: fn({
    params: [],
    varParam: dyn('sets', { allowMarked: true, allowUnknown: true }),
    type: setproductType,
    impl: (args) => {
      const retType = setproductType(args) as T.CollectionType;
      const ety = retType.elem as T.TupleType;
      const marks = unionMarks(...args);
      const lists = args.map((a) => a.unmark()[0]);
      if (lists.some((l) => !l.isKnown)) return Value.unknown(retType).markWith(marks);
      const total = lists.reduce((n, l) => n * l.elems.length, 1);
      const mk = (elems: Value[]) => (retType.kind === 'list' ? Value.list(elems, ety) : Value.set(elems, ety));
      if (total === 0) return mk([]).markWith(marks);
      const product: Value[] = [];
      const idx = lists.map(() => 0);
      for (let i = 0; i < total; i++) {
        product.push(
          Value.tuple(
            lists.map((l, j) => {
              const v = l.elems[idx[j]];
              return T.typeEquals(v.type, ety.elems[j]) ? v : convert(v, ety.elems[j]);
            }),
          ),
        );
        for (let j = idx.length - 1; j >= 0; j--) {
          idx[j]++;
          if (idx[j] < lists[j].elems.length) break;
          idx[j] = 0;
        }
      }
      return mk(product).markWith(marks);
    },
  }),
  slice: fn({
    params: [dyn('list', { allowMarked: true }), { name: 'start_index', type: T.Number }, { name: 'end_index', type: T.Number }],
    type: sliceType,
    impl: (args) => {
      const [u, m] = args[0].unmark();
      const retType = sliceType(args);
      if (retType.kind === 'dynamic') return Value.unknown(T.Dynamic).markWith(m);
      const { start, end } = sliceIndexes(args);
      if (!u.isKnown) return Value.unknown(retType).markWith(m);
      const out = u.elems.slice(start, end);
      if (retType.kind === 'tuple') return Value.tuple(out).markWith(m);
      return Value.list(out, (retType as T.CollectionType).elem).markWith(m);
    },
  }),
  sort: fn({
    params: [{ name: 'list', type: T.List(T.String), allowUnknown: true }],
    returns: T.List(T.String),
    impl: ([l]) => {
      if (!l.isWhollyKnown) return Value.unknown(T.List(T.String), { notNull: true });
      if (l.elems.length === 0) return l;
      const strs = l.elems.map((v, i) => {
        if (v.isNull) throw new FuncError(`given list element ${i} is null; a null string cannot be sorted`);
        return v.str;
      });
      strs.sort(T.compareBytes);
      return Value.list(
        strs.map((s) => Value.string(s)),
        T.String,
      );
    },
  }),
  sum: fn({
    params: [dyn('list')],
    returns: T.Number,
    impl: ([l]) => {
      const k = l.type.kind;
      if (!(isSeq(l.type) || k === 'map' || k === 'object')) throw new FuncArgError(0, 'cannot sum noniterable');
      if (l.length === 0) throw new FuncArgError(0, 'cannot sum an empty list');
      if (!isSeq(l.type)) throw new FuncArgError(0, `argument must be list, set, or tuple. Received ${T.friendlyName(l.type)}`);
      if (!l.isWhollyKnown) return Value.unknown(T.Number, { notNull: true });
      const bad = () => new FuncArgError(0, 'argument must be list, set, or tuple of number values');
      const toNum = (v: Value): Num => {
        if (v.isNull) throw bad();
        try {
          return convert(v, T.Number).num;
        } catch (e) {
          if (e instanceof ConvertError) throw bad();
          throw e;
        }
      };
      let s = toNum(l.elems[0]);
      for (const v of l.elems.slice(1)) {
        const n = toNum(v);
        if (s.isInf() && n.isInf() && s.sign() !== n.sign()) throw new FuncError("can't compute sum of opposing infinities");
        s = s.add(n);
      }
      return Value.number(s);
    },
  }),
  transpose: fn({
    params: [{ name: 'values', type: T.Map(T.List(T.String)) }],
    returns: T.Map(T.List(T.String)),
    impl: ([m]) => {
      const rt = T.Map(T.List(T.String));
      if (!m.isWhollyKnown) return Value.unknown(rt, { notNull: true });
      const tmp = new Map<string, string[]>();
      for (const inKey of [...m.entries.keys()].sort(T.compareBytes)) {
        const inVal = m.entries.get(inKey)!;
        if (inVal.isNull) throw new FuncError('input must not contain null list');
        for (const v of inVal.elems) {
          if (v.isNull) throw new FuncError('input list must not contain null string');
          const arr = tmp.get(v.str) ?? [];
          arr.push(inKey);
          arr.sort(T.compareBytes);
          tmp.set(v.str, arr);
        }
      }
      const out = new Map<string, Value>();
      for (const k of [...tmp.keys()].sort(T.compareBytes))
        out.set(
          k,
          Value.list(
            tmp.get(k)!.map((s) => Value.string(s)),
            T.String,
          ),
        );
      return Value.map(out, T.List(T.String));
    },
  }),
  values: fn({
    params: [dyn('mapping', { allowMarked: true })],
    type: (args) => {
      const t = args[0].type;
      if (t.kind === 'map') return T.List(t.elem);
      if (t.kind === 'object') return T.Tuple(T.attrNames(t).map((n) => t.attrs.get(n)!));
      throw new FuncError('values() requires a map as the first argument');
    },
    impl: (args) => {
      const [u, m] = args[0].unmark();
      const vals = [...u.entries.keys()].sort(T.compareBytes).map((k) => u.entries.get(k)!);
      if (u.type.kind === 'object') return Value.tuple(vals).markWith(m);
      return Value.list(vals, (u.type as T.CollectionType).elem).markWith(m);
    },
  }),
  zipmap: fn({
    params: [
      { name: 'keys', type: T.List(T.String), allowMarked: true },
      dyn('values', { allowMarked: true }),
    ],
    type: zipmapType,
    impl: (args) => {
      const retType = zipmapType(args);
      const [keys, km] = args[0].unmark();
      const [values, vm] = args[1].unmark();
      const marks = new Set<Mark>([...km, ...vm]);
      if (!keys.isWhollyKnown) return Value.unknown(retType).markWith(marks);
      if (keys.elems.length !== values.elems.length)
        throw new FuncError(`number of keys (${keys.elems.length}) does not match number of values (${values.elems.length})`);
      const out = new Map<string, Value>();
      keys.elems.forEach((k, i) => {
        const [kv, kvm] = k.unmark();
        for (const x of kvm) marks.add(x);
        if (kv.isNull) throw new FuncError(`keys list has null value at index ${i}`);
        out.set(kv.str, values.elems[i]);
      });
      const sorted = new Map([...out.keys()].sort(T.compareBytes).map((k) => [k, out.get(k)!] as const));
      if (retType.kind === 'map') return Value.map(sorted, retType.elem).markWith(marks);
      return Value.object(sorted).markWith(marks);
    },
  }),
};
