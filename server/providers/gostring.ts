// Go-syntax rendering of values, types and paths, as go-cty's GoString (`%#v`) prints them.
//
// Terraform embeds values in several provider-contract messages with `%#v` ("planned value
// cty.StringVal("a") does not match config value cty.StringVal("b")"), and formats numbers in attribute paths
// with big.Float's shortest `%g`. This module reproduces those renderings exactly; path.ts and
// server/plans/objchange use it. Pure functions only.

import type { Num } from '../lang/number';
import { Num as NumClass } from '../lang/number';
import * as T from '../lang/types';
import type { Type } from '../lang/types';
import type { Refinements, Value } from '../lang/value';

/**
 * Refinements of an unknown value as cty knows them. value.ts declares only `notNull`; the other fields are
 * read when present so that providers decoding refined unknowns (msgpack extension 12) can carry them.
 */
export interface FullRefinements extends Refinements {
  /** True when the value is known to be null (cty's "definitely null"). */
  isNull?: boolean;
  stringPrefix?: string;
  numberLower?: { value: Num; inclusive: boolean };
  numberUpper?: { value: Num; inclusive: boolean };
  lengthLower?: number;
  lengthUpper?: number;
}

/** The refinements of a value, typed with every field cty supports. */
export function refinementsOf(v: Value): FullRefinements | undefined {
  return v.refinements as FullRefinements | undefined;
}

/** True when an unknown value carries any refinement at all. */
export function isRefined(v: Value): boolean {
  const r = refinementsOf(v);
  if (!r) return false;
  return !!(r.notNull || r.isNull || r.stringPrefix || r.numberLower || r.numberUpper || r.lengthLower || r.lengthUpper !== undefined);
}

// One implementation of Go's quoting for the whole engine (lang/goquote.ts); re-exported for this module's users.
import { goQuote } from '../lang/goquote';
export { goQuote };

/** Digits and decimal-point position of a shortest decimal, laid out as Go's `%g` with shortest precision. */
function formatG(neg: boolean, mant: string, dp: number): string {
  const sign = neg ? '-' : '';
  const exp = dp - 1;
  if (exp < -4 || exp >= 6) {
    const frac = mant.length > 1 ? '.' + mant.slice(1) : '';
    const e = Math.abs(exp);
    return `${sign}${mant[0]}${frac}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' + e : e}`;
  }
  if (dp <= 0) return `${sign}0.${'0'.repeat(-dp)}${mant}`;
  if (dp >= mant.length) return sign + mant + '0'.repeat(dp - mant.length);
  return `${sign}${mant.slice(0, dp)}.${mant.slice(dp)}`;
}

/** A number as big.Float's Text('g', -1) / `%v`: `0`, `12`, `999999`, `1e+06`, `1.5`, `1e-05`, `+Inf`. */
export function numG(n: Num): string {
  if (n.isInf()) return n.isNegative() ? '-Inf' : '+Inf';
  if (n.isZero()) return n.isNegative() ? '-0' : '0';
  const d = n.shortestDecimal();
  return formatG(d.neg, d.mant, d.exp);
}

/** A float64 as Go's `%#v`/`%g` shortest form. */
function float64G(x: number): string {
  return numG(NumClass.from(x));
}

/** cty's GoString of a type: `cty.String`, `cty.List(cty.Number)`, `cty.Object(map[string]cty.Type{"a":cty.Bool})`. */
export function goType(t: Type): string {
  switch (t.kind) {
    case 'string':
      return 'cty.String';
    case 'number':
      return 'cty.Number';
    case 'bool':
      return 'cty.Bool';
    case 'dynamic':
      return 'cty.DynamicPseudoType';
    case 'list':
      return `cty.List(${goType(t.elem)})`;
    case 'set':
      return `cty.Set(${goType(t.elem)})`;
    case 'map':
      return `cty.Map(${goType(t.elem)})`;
    case 'tuple':
      if (t.elems.length === 0) return 'cty.EmptyTuple';
      return `cty.Tuple([]cty.Type{${t.elems.map(goType).join(', ')}})`;
    case 'object': {
      const names = T.attrNames(t);
      if (names.length === 0) return 'cty.EmptyObject';
      return `cty.Object(map[string]cty.Type{${names.map((n) => `${goQuote(n)}:${goType(t.attrs.get(n)!)}`).join(', ')}})`;
    }
    case 'typeval':
      return 'cty.DynamicPseudoType';
  }
}

/** The refinement calls cty prints for an unknown value ("" when unrefined). */
function refinementSuffix(v: Value): string {
  const r = refinementsOf(v);
  if (!r || !isRefined(v)) return '';
  let calls = '';
  if (r.isNull) calls += '.Null()';
  else if (r.notNull) calls += '.NotNull()';
  if (r.stringPrefix) calls += `.StringPrefixFull(${goQuote(r.stringPrefix)})`;
  if (r.numberLower && !(r.numberLower.value.isInf() && r.numberLower.value.isNegative())) {
    calls += `.NumberLowerBound(${goNumber(r.numberLower.value)}, ${r.numberLower.inclusive})`;
  }
  if (r.numberUpper && !(r.numberUpper.value.isInf() && !r.numberUpper.value.isNegative())) {
    calls += `.NumberUpperBound(${goNumber(r.numberUpper.value)}, ${r.numberUpper.inclusive})`;
  }
  if (r.lengthLower) calls += `.CollectionLengthLowerBound(${r.lengthLower})`;
  if (r.lengthUpper !== undefined) calls += `.CollectionLengthUpperBound(${r.lengthUpper})`;
  if (calls === '') return '';
  if (calls === '.NotNull()') return '.RefineNotNull()';
  return `.Refine()${calls}.NewValue()`;
}

/** A known number as cty renders it: NumberIntVal, NumberFloatVal or MustParseNumberVal. */
export function goNumber(n: Num): string {
  if (n.isInteger()) return `cty.NumberIntVal(${numG(n)})`;
  if (!n.isInf()) {
    const f = n.toNumber();
    if (Number.isFinite(f) && NumClass.from(f).cmp(n) === 0) return `cty.NumberFloatVal(${float64G(f)})`;
  } else return `cty.NumberFloatVal(${n.isNegative() ? '-Inf' : '+Inf'})`;
  return `cty.MustParseNumberVal(${goQuote(n.toString())})`;
}

/** cty's GoString of a value (Go `%#v`), as Terraform's contract messages embed it. */
export function goString(v: Value): string {
  const marks = v.marks.size ? [...v.marks].sort() : [];
  const base = goStringUnmarked(v);
  if (marks.length === 0) return base;
  if (marks.length === 1) return `${base}.Mark(${goQuote(marks[0])})`;
  return `${base}.WithMarks(${marks.map(goQuote).join(', ')})`;
}

function goStringUnmarked(v: Value): string {
  const t = v.type;
  if (!v.isKnown) {
    if (t.kind === 'dynamic' && !isRefined(v)) return 'cty.DynamicVal';
    return `cty.UnknownVal(${goType(t)})${refinementSuffix(v)}`;
  }
  if (v.isNull) return `cty.NullVal(${goType(t)})`;
  switch (t.kind) {
    case 'string':
      return `cty.StringVal(${goQuote(v.str)})`;
    case 'bool':
      return v.bool ? 'cty.True' : 'cty.False';
    case 'number':
      return goNumber(v.num);
    case 'list':
      if (v.elems.length === 0) return `cty.ListValEmpty(${goType(t.elem)})`;
      return `cty.ListVal([]cty.Value{${v.elems.map(goString).join(', ')}})`;
    case 'set':
      if (v.elems.length === 0) return `cty.SetValEmpty(${goType(t.elem)})`;
      return `cty.SetVal([]cty.Value{${v.elems.map(goString).join(', ')}})`;
    case 'tuple':
      if (v.elems.length === 0) return 'cty.EmptyTupleVal';
      return `cty.TupleVal([]cty.Value{${v.elems.map(goString).join(', ')}})`;
    case 'map': {
      if (v.entries.size === 0) return `cty.MapValEmpty(${goType(t.elem)})`;
      const keys = [...v.entries.keys()].sort(T.compareBytes);
      return `cty.MapVal(map[string]cty.Value{${keys.map((k) => `${goQuote(k)}:${goString(v.entries.get(k)!)}`).join(', ')}})`;
    }
    case 'object': {
      const keys = [...v.entries.keys()].sort(T.compareBytes);
      if (keys.length === 0) return 'cty.EmptyObjectVal';
      return `cty.ObjectVal(map[string]cty.Value{${keys.map((k) => `${goQuote(k)}:${goString(v.entries.get(k)!)}`).join(', ')}})`;
    }
    default:
      return 'cty.DynamicVal';
  }
}
