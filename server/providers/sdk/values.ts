// Small helpers for provider code working with resource objects as cty Values: reading attributes as
// JavaScript values (null reads as undefined), building attribute values from JavaScript values, and
// completing an object to a block's implied type (`objectFor`: absent attributes become typed nulls, absent
// blocks their empty value, every value must already have the schema's type). Nothing here knows about the
// provider interface; define.ts and the built-in providers use it. Siblings: json.ts, schema.ts, define.ts.

import * as T from '../../lang/types';
import type { Type } from '../../lang/types';
import { Value } from '../../lang/value';
import { coerceValue, type Block } from '../schema';
import { formatError } from '../path';

/** The attribute `name` of an object value; an unknown or null object gives an unknown or null of the attribute's type. */
export function get(obj: Value, name: string): Value {
  if (obj.data === undefined || obj.data === null) {
    const t = obj.type.kind === 'object' ? obj.type.attrs.get(name) ?? T.Dynamic : T.Dynamic;
    return obj.data === undefined ? Value.unknown(t) : Value.null(t);
  }
  return obj.entries.get(name) ?? Value.null(T.Dynamic);
}

/** A copy of an object value with some attributes replaced (attributes not in the object are added). */
export function withAttrs(obj: Value, changes: Readonly<Record<string, Value>>): Value {
  const m = new Map(obj.isKnown && !obj.isNull ? obj.entries : []);
  for (const [k, v] of Object.entries(changes)) m.set(k, v);
  return Value.object(m);
}

/**
 * The object of the block's implied type holding `attrs`: missing attributes are null, missing blocks
 * empty. A value of the wrong type is a bug in the provider and throws with the attribute path.
 */
export function objectFor(b: Block, attrs: Value | Readonly<Record<string, Value>>): Value {
  const v = attrs instanceof Value ? attrs : Value.object(new Map(Object.entries(attrs)));
  const r = coerceValue(b, v);
  if (r.error) throw new Error(`provider built an object that does not fit its schema: ${formatError(r.error)}`);
  return r.value;
}

// ---- reading -------------------------------------------------------------------------------------------------

/** The string, or undefined for null. Unknown values are a caller bug (check isKnown first). */
export function str(v: Value): string | undefined {
  if (v.isNull) return undefined;
  if (!v.isKnown) throw new Error('str() of an unknown value');
  return v.str;
}

/** The number as a JavaScript number (integers beyond 2^53 lose precision), or undefined for null. */
export function num(v: Value): number | undefined {
  if (v.isNull) return undefined;
  if (!v.isKnown) throw new Error('num() of an unknown value');
  return v.num.toNumber();
}

/** The number as a bigint when it is an integer, undefined for null or a fraction. */
export function bigint(v: Value): bigint | undefined {
  if (v.isNull || !v.isKnown || !v.num.isInteger()) return undefined;
  return v.num.toBigInt();
}

/** The bool, or undefined for null. */
export function bool(v: Value): boolean | undefined {
  if (v.isNull) return undefined;
  if (!v.isKnown) throw new Error('bool() of an unknown value');
  return v.bool;
}

/** Elements of a known list, set or tuple of strings (nulls skipped). */
export function strings(v: Value): string[] {
  if (v.isNull || !v.isKnown) return [];
  return v.elems.filter((e) => !e.isNull).map((e) => e.str);
}

// ---- building --------------------------------------------------------------------------------------------------

export const S = (s: string | undefined): Value => (s === undefined ? Value.null(T.String) : Value.string(s));
export const N = (n: number | bigint | undefined): Value => (n === undefined ? Value.null(T.Number) : Value.number(n));
export const B = (b: boolean | undefined): Value => (b === undefined ? Value.null(T.Bool) : Value.bool(b));

/** A list of strings (an empty list when `xs` is empty). */
export function stringList(xs: readonly string[]): Value {
  return Value.list(
    xs.map((x) => Value.string(x)),
    T.String,
  );
}

/** A map of strings; null when `m` is undefined. */
export function stringMap(m: Readonly<Record<string, string>> | undefined): Value {
  if (m === undefined) return Value.null(T.Map(T.String));
  return Value.map(new Map(Object.entries(m).map(([k, v]) => [k, Value.string(v)])), T.String);
}

/** A null of the given type (shorthand for typed nulls in provider code). */
export function nullOf(t: Type): Value {
  return Value.null(t);
}
