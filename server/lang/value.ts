// Values of the configuration language, equivalent to go-cty values as Terraform uses them.
//
// A Value is immutable. It has a Type (types.ts), and is one of: known (with data), null, or unknown
// ("known after apply"). Any value may carry marks ("sensitive", "ephemeral"); marks sit on the value
// they were applied to, so a list can hold one sensitive element. Operations must propagate marks:
// the result of an operation carries the union of the marks of the operands it read (see `withMarksOf`).
//
// Data layout by type kind (the `data` field, only meaningful when the value is known and not null):
//   string            JS string, normalised to NFC as cty does
//   number            Num (number.ts), arbitrary precision
//   bool              boolean
//   list/tuple/set    readonly Value[]   (sets hold distinct elements in cty's set order, see sortSetElements)
//   map/object        ReadonlyMap<string, Value> (objects hold exactly their type's attributes)
//   typeval           Type               (only the console's `type()` produces these)

import { goFormatG10, goQuote } from './format';
import { Num } from './number';
import * as T from './types';
import type { Type } from './types';

export type Mark = 'sensitive' | 'ephemeral';
const NON_ASCII = /[^\x00-\x7f]/;

/** The empty mark set that unmarked values share. */
export const NO_MARKS: ReadonlySet<Mark> = new Set();

/**
 * The union of two mark sets. Almost every value an evaluation meets has no marks, so the union allocates only
 * when both sides have some: otherwise it is one of the two sets, which must then be read, never changed.
 */
export function unionMarks(a: ReadonlySet<Mark>, b: ReadonlySet<Mark>): ReadonlySet<Mark> {
  if (b.size === 0 || a === b) return a;
  if (a.size === 0) return b;
  const s = new Set(a);
  for (const m of b) s.add(m);
  return s;
}

/** Refinements that an unknown value may carry (cty's refinements); only `notNull` is used by the engine today. */
export interface Refinements {
  notNull?: boolean;
}

export type Data = string | Num | boolean | readonly Value[] | ReadonlyMap<string, Value> | Type | null | undefined;

export class Value {
  private constructor(
    readonly type: Type,
    /** undefined = unknown, null = null, anything else = known data as documented above. */
    readonly data: Data,
    readonly marks: ReadonlySet<Mark>,
    readonly refinements?: Refinements,
  ) {}

  // ---- constructors -------------------------------------------------------------------------------

  static string(s: string): Value {
    // ASCII text is already in NFC, and testing for it costs a fraction of normalize() (strings are made per
    // template and function result, tens of thousands at a cold analysis).
    return new Value(T.String, NON_ASCII.test(s) ? s.normalize('NFC') : s, NO_MARKS);
  }
  static number(n: Num | number | bigint): Value {
    return new Value(T.Number, n instanceof Num ? n : Num.from(n), NO_MARKS);
  }
  static bool(b: boolean): Value {
    return b ? TRUE : FALSE;
  }
  static null(t: Type = T.Dynamic): Value {
    return new Value(t, null, NO_MARKS);
  }
  static unknown(t: Type = T.Dynamic, refinements?: Refinements): Value {
    return new Value(t, undefined, NO_MARKS, refinements);
  }
  /** A list of the given element type; elements must already have exactly that type (or be of dynamic type when elem is dynamic). */
  static list(elems: readonly Value[], elem: Type): Value {
    return new Value(T.List(elem), elems, NO_MARKS);
  }
  /** A set; duplicates are removed and elements put in cty's order. Unknown elements are kept. */
  static set(elems: readonly Value[], elem: Type): Value {
    return new Value(T.Set(elem), sortSetElements(dedupe(elems)), NO_MARKS);
  }
  static map(entries: ReadonlyMap<string, Value>, elem: Type): Value {
    return new Value(T.Map(elem), entries, NO_MARKS);
  }
  static tuple(elems: readonly Value[]): Value {
    return new Value(T.TupleOf(elems), elems, NO_MARKS);
  }
  static object(attrs: ReadonlyMap<string, Value> | Record<string, Value>): Value {
    const m = attrs instanceof Map ? attrs : new Map(Object.entries(attrs));
    return new Value(T.ObjOf(m), m, NO_MARKS);
  }
  static typeVal(t: Type): Value {
    return new Value(T.TypeVal, t, NO_MARKS);
  }
  /** Low-level constructor for code that has already established type and data agree (conversion, functions). */
  static raw(type: Type, data: Data, marks: ReadonlySet<Mark> = NO_MARKS, refinements?: Refinements): Value {
    return new Value(type, data, marks, refinements);
  }

  // ---- predicates -----------------------------------------------------------------------------------

  get isKnown(): boolean {
    return this.data !== undefined;
  }
  get isNull(): boolean {
    return this.data === null;
  }
  get isMarked(): boolean {
    return this.marks.size > 0;
  }
  get isSensitive(): boolean {
    return this.marks.has('sensitive');
  }
  /** True when this value and everything nested in it is known. */
  get isWhollyKnown(): boolean {
    if (this.data === undefined) return false;
    if (this.data === null) return true;
    const k = this.type.kind;
    if (k === 'list' || k === 'set' || k === 'tuple') return (this.data as readonly Value[]).every((v) => v.isWhollyKnown);
    if (k === 'map' || k === 'object') {
      for (const v of (this.data as ReadonlyMap<string, Value>).values()) if (!v.isWhollyKnown) return false;
    }
    return true;
  }
  /** True when this value or anything nested in it carries a mark. */
  get hasMarksDeep(): boolean {
    if (this.marks.size > 0) return true;
    if (this.data === undefined || this.data === null) return false;
    const k = this.type.kind;
    if (k === 'list' || k === 'set' || k === 'tuple') return (this.data as readonly Value[]).some((v) => v.hasMarksDeep);
    if (k === 'map' || k === 'object') {
      for (const v of (this.data as ReadonlyMap<string, Value>).values()) if (v.hasMarksDeep) return true;
    }
    return false;
  }

  // ---- accessors (callers check type, known and null first) ---------------------------------------

  get str(): string {
    return this.data as string;
  }
  get num(): Num {
    return this.data as Num;
  }
  get bool(): boolean {
    return this.data as boolean;
  }
  /** Elements of a list, set or tuple. */
  get elems(): readonly Value[] {
    return this.data as readonly Value[];
  }
  /** Entries of a map or object. */
  get entries(): ReadonlyMap<string, Value> {
    return this.data as ReadonlyMap<string, Value>;
  }
  get typeValue(): Type {
    return this.data as Type;
  }
  /** Number of elements of a known collection or structural value. */
  get length(): number {
    const k = this.type.kind;
    if (k === 'map' || k === 'object') return this.entries.size;
    return this.elems.length;
  }

  // ---- marks ------------------------------------------------------------------------------------------

  mark(...marks: Mark[]): Value {
    if (marks.every((m) => this.marks.has(m))) return this;
    const s = new Set(this.marks);
    for (const m of marks) s.add(m);
    return new Value(this.type, this.data, s, this.refinements);
  }
  markWith(marks: ReadonlySet<Mark>): Value {
    if (marks.size === 0) return this;
    return this.mark(...marks);
  }
  /** The value without its own (top-level) marks, and those marks. */
  unmark(): [Value, ReadonlySet<Mark>] {
    if (this.marks.size === 0) return [this, NO_MARKS];
    return [new Value(this.type, this.data, NO_MARKS, this.refinements), this.marks];
  }
  /** The value with all marks removed at every depth, and the union of all marks found. */
  unmarkDeep(): [Value, ReadonlySet<Mark>] {
    if (!this.hasMarksDeep) return [this, NO_MARKS];
    const found = new Set<Mark>();
    const v = unmarkDeepInto(this, found);
    return [v, found];
  }
  /** This value carrying the union of its marks and the other values' top-level marks. */
  withMarksOf(...others: Value[]): Value {
    let r: Value = this;
    for (const o of others) r = r.markWith(o.marks);
    return r;
  }

  toString(): string {
    return debugString(this);
  }
}

const TRUE = Value.raw(T.Bool, true);
const FALSE = Value.raw(T.Bool, false);

export const True = TRUE;
export const False = FALSE;
export const NullDynamic = Value.null(T.Dynamic);
export const UnknownDynamic = Value.unknown(T.Dynamic);
export const EmptyString = Value.string('');

function unmarkDeepInto(v: Value, found: Set<Mark>): Value {
  for (const m of v.marks) found.add(m);
  let data = v.data;
  if (data !== undefined && data !== null) {
    const k = v.type.kind;
    if (k === 'list' || k === 'set' || k === 'tuple') data = (data as readonly Value[]).map((e) => unmarkDeepInto(e, found));
    else if (k === 'map' || k === 'object') {
      const m = new Map<string, Value>();
      for (const [key, e] of data as ReadonlyMap<string, Value>) m.set(key, unmarkDeepInto(e, found));
      data = m;
    }
  }
  return Value.raw(v.type, data, undefined, v.refinements);
}

/**
 * Structural equality as cty's RawEquals: same type, same knownness, same data, same marks.
 * Use equality.ts-style logic (the `==` operator) elsewhere; this is for sets, caching and tests.
 */
export function rawEquals(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (!T.typeEquals(a.type, b.type)) return false;
  if (a.marks.size !== b.marks.size) return false;
  for (const m of a.marks) if (!b.marks.has(m)) return false;
  if (a.data === undefined || b.data === undefined) return a.data === b.data;
  if (a.data === null || b.data === null) return a.data === b.data;
  switch (a.type.kind) {
    case 'string':
    case 'bool':
      return a.data === b.data;
    case 'number':
      return a.num.equals(b.num);
    case 'list':
    case 'set':
    case 'tuple': {
      const ae = a.elems;
      const be = b.elems;
      return ae.length === be.length && ae.every((v, i) => rawEquals(v, be[i]));
    }
    case 'map':
    case 'object': {
      const ae = a.entries;
      const be = b.entries;
      if (ae.size !== be.size) return false;
      for (const [k, v] of ae) {
        const w = be.get(k);
        if (!w || !rawEquals(v, w)) return false;
      }
      return true;
    }
    case 'typeval':
      return T.typeEquals(a.typeValue, b.typeValue);
    default:
      return false;
  }
}

function dedupe(elems: readonly Value[]): Value[] {
  const out: Value[] = [];
  for (const e of elems) {
    // Unknown values are never equal to each other in a set: each stays.
    if (e.isKnown && out.some((o) => o.isKnown && rawEquals(o, e))) continue;
    out.push(e);
  }
  return out;
}

/**
 * cty's set order: strings bytewise, numbers numerically, bools false first; null and unknown
 * elements last. Other element types are ordered bytewise by cty's set-hash string (setHashString).
 */
export function sortSetElements(elems: Value[]): Value[] {
  const rank = (v: Value) => (v.isNull ? 1 : !v.isKnown ? 2 : 0);
  return elems.slice().sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    if (ra !== rb || ra !== 0) return ra - rb;
    switch (a.type.kind) {
      case 'string':
        return T.compareBytes(a.str, b.str);
      case 'number':
        return a.num.cmp(b.num);
      case 'bool':
        return (a.bool ? 1 : 0) - (b.bool ? 1 : 0);
      default:
        return T.compareBytes(setHashString(a), setHashString(b));
    }
  });
}

/**
 * cty's appendSetHashBytes: the string a set element is hashed and (for non-primitive elements) ordered by.
 * Marks are ignored; unknown is "?", null "~", numbers as big.Float's String (%.10g), strings Go-quoted,
 * maps {k:v;}, lists and sets [e;], objects <v;> in attribute-name order, tuples <e;>.
 */
export function setHashString(v: Value): string {
  if (!v.isKnown) return '?';
  if (v.isNull) return '~';
  const ty = v.type;
  switch (ty.kind) {
    case 'number':
      return goFormatG10(v.num);
    case 'bool':
      return v.bool ? 'T' : 'F';
    case 'string':
      return goQuote(v.str);
    case 'map': {
      let s = '{';
      for (const k of [...v.entries.keys()].sort(T.compareBytes)) s += `${goQuote(k)}:${setHashString(v.entries.get(k)!)};`;
      return s + '}';
    }
    case 'list':
    case 'set':
      return '[' + v.elems.map((e) => setHashString(e) + ';').join('') + ']';
    case 'object': {
      let s = '<';
      for (const k of [...ty.attrs.keys()].sort(T.compareBytes)) s += setHashString(v.entries.get(k)!) + ';';
      return s + '>';
    }
    case 'tuple':
      return '<' + v.elems.map((e) => setHashString(e) + ';').join('') + '>';
    default:
      return '?';
  }
}

function debugString(v: Value): string {
  const m = v.marks.size ? `[${[...v.marks].join(',')}]` : '';
  if (!v.isKnown) return `unknown(${T.typeString(v.type)})${m}`;
  if (v.isNull) return `null(${T.typeString(v.type)})${m}`;
  switch (v.type.kind) {
    case 'string':
      return JSON.stringify(v.str) + m;
    case 'number':
      return v.num.toString() + m;
    case 'bool':
      return String(v.bool) + m;
    case 'list':
    case 'set':
    case 'tuple':
      return `${v.type.kind}[${v.elems.map(debugString).join(', ')}]${m}`;
    case 'map':
    case 'object':
      return `${v.type.kind}{${[...v.entries].map(([k, e]) => `${k}=${debugString(e)}`).join(', ')}}${m}`;
    case 'typeval':
      return `type(${T.typeString(v.typeValue)})`;
    default:
      return '?';
  }
}
