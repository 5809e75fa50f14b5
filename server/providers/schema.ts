// Provider schemas: the equivalent of Terraform's configschema package.
//
// A provider describes each resource type, data source, the provider configuration and provider_meta with a
// Schema: a version number and a Block. A Block has attributes (each with a type, or a nested attribute type
// with its own attributes) and nested block types (with a nesting mode and item limits). Everything here is
// plain, immutable, structured-clone friendly data (no classes, no functions), so schemas can cross the
// provider boundary unchanged.
//
// This module also derives what the engine needs from a schema: the implied object type of a block
// (`impliedType`), its empty value (`emptyValue`, what ProposedNew uses for a null prior), null and unknown
// objects, path lookups to attributes (`attributeByPath`), and coercion of a decoded value to the schema
// (`coerceValue`, Terraform's Block.CoerceValue). Siblings: path.ts (attribute paths), gostring.ts (Go-syntax
// renderings for messages), marks.ts (sensitive marks around provider calls), provider.ts (the provider
// interface), wire.ts (the JSON wire form of requests and responses); server/plans/objchange uses them.

import * as T from '../lang/types';
import type { Type, ObjectType } from '../lang/types';
import { Value } from '../lang/value';
import type { Path } from './path';
import { goQuote } from './gostring';
import { pathError, type PathError } from './path';

/** How a nested attribute type repeats its object: one object, or a list, set or map of them. */
export type AttributeNesting = 'single' | 'list' | 'set' | 'map';
/** How a nested block repeats; `group` is a single block that is never null (absent means "all defaults"). */
export type BlockNesting = 'single' | 'group' | 'list' | 'set' | 'map';
export type DescriptionKind = 'plain' | 'markdown';

/**
 * One attribute. Exactly one of `type` and `nestedType` is set. At least one of required, optional and
 * computed is set; optional+computed means "the provider chooses a value when the configuration leaves it
 * unset". A write-only attribute is accepted in configuration but never stored: providers must return null.
 */
export interface Attribute {
  readonly type?: Type;
  readonly nestedType?: NestedObject;
  readonly description?: string;
  readonly descriptionKind?: DescriptionKind;
  readonly required?: boolean;
  readonly optional?: boolean;
  readonly computed?: boolean;
  readonly sensitive?: boolean;
  readonly deprecated?: boolean;
  readonly writeOnly?: boolean;
}

/** A nested attribute type: an object with its own attributes, repeated according to `nesting`. */
export interface NestedObject {
  readonly nesting: AttributeNesting;
  readonly attributes: Readonly<Record<string, Attribute>>;
}

/** The body of a resource, data source, provider configuration or nested block. */
export interface Block {
  readonly attributes: Readonly<Record<string, Attribute>>;
  readonly blockTypes: Readonly<Record<string, NestedBlock>>;
  readonly description?: string;
  readonly descriptionKind?: DescriptionKind;
  readonly deprecated?: boolean;
}

/** A nested block type. minItems/maxItems only apply to list and set nesting (0 means "no limit"). */
export interface NestedBlock {
  readonly nesting: BlockNesting;
  readonly block: Block;
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** A versioned schema. State stored under an older version is upgraded by the provider (UpgradeResourceState). */
export interface Schema {
  readonly version: number;
  readonly block: Block;
}

// ---- construction helpers (mainly for providers written in TypeScript and for tests) -------------------

/** A block from partial parts; missing parts are empty. */
export function block(attributes: Record<string, Attribute> = {}, blockTypes: Record<string, NestedBlock> = {}): Block {
  return { attributes, blockTypes };
}

// ---- implied types ---------------------------------------------------------------------------------------

const impliedCache = new WeakMap<object, Type>();

/** The type of an attribute's value: its `type`, or the type implied by its nested attribute type. */
export function attributeType(a: Attribute): Type {
  if (a.nestedType) return nestedObjectType(a.nestedType);
  return a.type ?? T.Dynamic;
}

/** The object type of one element of a nested attribute type. */
export function nestedObjectElementType(o: NestedObject): ObjectType {
  let t = impliedCache.get(o.attributes);
  if (!t) {
    const m = new Map<string, Type>();
    for (const [k, a] of Object.entries(o.attributes)) m.set(k, attributeType(a));
    t = T.Obj(m);
    impliedCache.set(o.attributes, t);
  }
  return t as ObjectType;
}

/** The type of a nested attribute type's whole value (object, list, set or map of the element object type). */
export function nestedObjectType(o: NestedObject): Type {
  let t = impliedCache.get(o);
  if (!t) {
    const e = nestedObjectElementType(o);
    switch (o.nesting) {
      case 'single':
        t = e;
        break;
      case 'list':
        // Terraform uses a dynamic constraint (so tuples are allowed) when the elements have dynamic parts.
        t = T.isFullyKnownType(e) ? T.List(e) : T.Dynamic;
        break;
      case 'set':
        t = T.Set(e);
        break;
      case 'map':
        t = T.isFullyKnownType(e) ? T.Map(e) : T.Dynamic;
        break;
    }
    impliedCache.set(o, t);
  }
  return t;
}

/**
 * The object type implied by a block: one attribute per schema attribute and per nested block type.
 * A list or map block whose own type contains `dynamic` is typed `dynamic` here, because its values are
 * tuples or objects whose element types may differ (as in Terraform's configschema).
 */
export function impliedType(b: Block): ObjectType {
  let t = impliedCache.get(b);
  if (!t) {
    const m = new Map<string, Type>();
    for (const [k, a] of Object.entries(b.attributes)) m.set(k, attributeType(a));
    for (const [k, nb] of Object.entries(b.blockTypes)) m.set(k, nestedBlockType(nb));
    t = T.Obj(m);
    impliedCache.set(b, t);
  }
  return t as ObjectType;
}

/** The type of a nested block type's value within its parent object. */
export function nestedBlockType(nb: NestedBlock): Type {
  let t = impliedCache.get(nb);
  if (!t) {
    const e = impliedType(nb.block);
    switch (nb.nesting) {
      case 'single':
      case 'group':
        t = e;
        break;
      case 'list':
        t = T.isFullyKnownType(e) ? T.List(e) : T.Dynamic;
        break;
      case 'set':
        t = T.Set(e);
        break;
      case 'map':
        t = T.isFullyKnownType(e) ? T.Map(e) : T.Dynamic;
        break;
    }
    impliedCache.set(nb, t);
  }
  return t;
}

/** True when the block's type has `dynamic` in it (list blocks then hold tuples, map blocks objects). */
export function blockHasDynamicTypes(b: Block): boolean {
  return !T.isFullyKnownType(impliedType(b));
}

// ---- null, unknown and empty values ------------------------------------------------------------------------

/** A null object of the block's implied type (the value of an absent resource instance). */
export function nullObject(b: Block): Value {
  return Value.null(impliedType(b));
}

/** A wholly unknown object of the block's implied type (what core plans for a data source it cannot read yet). */
export function unknownObject(b: Block): Value {
  return Value.unknown(impliedType(b));
}

/**
 * The block's empty value: every attribute null, `single` blocks null, `group` blocks their own empty
 * value, `list` blocks an empty list (empty tuple when dynamically typed), `set` blocks an empty set,
 * `map` blocks an empty map (empty object when dynamically typed).
 */
export function emptyValue(b: Block): Value {
  const m = new Map<string, Value>();
  for (const [k, a] of Object.entries(b.attributes)) m.set(k, Value.null(attributeType(a)));
  for (const [k, nb] of Object.entries(b.blockTypes)) m.set(k, nestedBlockEmptyValue(nb));
  return Value.raw(impliedType(b), m);
}

/** The empty value of one nested block type (see emptyValue). */
export function nestedBlockEmptyValue(nb: NestedBlock): Value {
  const et = impliedType(nb.block);
  const dyn = !T.isFullyKnownType(et);
  switch (nb.nesting) {
    case 'single':
      return Value.null(et);
    case 'group':
      return emptyValue(nb.block);
    case 'list':
      return dyn ? Value.tuple([]) : Value.list([], et);
    case 'set':
      return Value.set([], et);
    case 'map':
      return dyn ? Value.object({}) : Value.map(new Map(), et);
  }
}

// ---- path lookups ------------------------------------------------------------------------------------------

/**
 * The attribute a path leads to, as configschema's Block.AttributeByPath: attribute steps are followed
 * through nested blocks and nested attribute types, index steps are skipped; undefined when the path
 * ends at a block, at the object itself, or leaves the schema.
 */
export function attributeByPath(b: Block, path: Path, from = 0): Attribute | undefined {
  for (let i = from; i < path.length; i++) {
    const step = path[i];
    if (step.kind !== 'attr') continue;
    const a = b.attributes[step.name];
    if (a) {
      if (i < path.length - 1) return a.nestedType ? objectAttributeByPath(a.nestedType, path, i + 1) : undefined;
      return a;
    }
    const nb = b.blockTypes[step.name];
    if (nb) return attributeByPath(nb.block, path, i + 1);
    return undefined;
  }
  return undefined;
}

/** As attributeByPath, inside a nested attribute type. */
export function objectAttributeByPath(o: NestedObject, path: Path, from = 0): Attribute | undefined {
  for (let i = from; i < path.length; i++) {
    const step = path[i];
    if (step.kind !== 'attr') continue;
    const a = o.attributes[step.name];
    if (!a) return undefined;
    if (i < path.length - 1) return a.nestedType ? objectAttributeByPath(a.nestedType, path, i + 1) : undefined;
    return a;
  }
  return undefined;
}

// ---- coercion ----------------------------------------------------------------------------------------------

/** Converts one value to a type; returns an error message when it cannot. */
export type Converter = (v: Value, want: Type) => { value: Value } | { error: string };

/**
 * The default converter: accepts values whose type already conforms (see conformance.ts in
 * server/plans/objchange), anything for `dynamic`, and null/unknown of any type (retyped). Callers with
 * the language's full conversion rules pass their own.
 */
export const exactConverter: Converter = (v, want) => {
  if (want.kind === 'dynamic' || T.typeEquals(v.type, want)) return { value: v };
  if (!v.isKnown) return { value: Value.raw(want, undefined, v.marks, v.refinements) };
  if (v.isNull) return { value: Value.raw(want, null, v.marks) };
  return { error: `${T.friendlyNameForConstraint(want)} required` };
};

export type CoerceResult = { value: Value; error?: undefined } | { value: Value; error: PathError };

/**
 * Forces a decoded value into the block's implied type, as Terraform's Block.CoerceValue: null and unknown
 * become typed; other non-objects fail with "an object is required"; unknown attribute names fail with
 * `unexpected attribute "x"`; missing optional/computed attributes become null, a missing required one fails
 * with `attribute "x" is required`; attribute values go through `convert`; missing blocks get their empty
 * value; block collections are coerced element by element. On error the value is unknown.
 */
export function coerceValue(b: Block, v: Value, convert: Converter = exactConverter, path: Path = []): CoerceResult {
  const ty = impliedType(b);
  if (v.isNull) return { value: Value.null(ty) };
  if (!v.isKnown) return { value: Value.unknown(ty) };
  const fail = (p: Path, msg: string): CoerceResult => ({ value: Value.unknown(ty), error: pathError(p, msg) });
  if (v.type.kind !== 'object') return fail(path, 'an object is required');
  const inAttrs = v.entries;
  const vt = v.type;
  for (const name of T.attrNames(vt)) {
    if (!(name in b.attributes) && !(name in b.blockTypes)) return fail(path, `unexpected attribute ${goQuote(name)}`);
  }
  const names = sortedMemberNames(b);
  const out = new Map<string, Value>();
  // Whether `v` already is the result: every member kept as it was, in the same order, typed as its value.
  let same = v.marks.size === 0 && inAttrs.size === names.attributes.length + names.blockTypes.length;
  const keep = (name: string, before: Value | undefined, after: Value) => {
    if (same && (before !== after || vt.attrs.get(name) !== after.type)) same = false;
    out.set(name, after);
  };
  for (const name of names.attributes) {
    const a = b.attributes[name];
    const at = attributeType(a);
    const given = inAttrs.get(name);
    let val = given;
    if (!val) {
      if (a.computed || a.optional) val = Value.null(at);
      else if (a.required) return fail(path, `attribute ${goQuote(name)} is required`);
      else return fail(path, `attribute ${goQuote(name)} has none of required, optional, or computed set`);
    }
    const r = convert(val, at);
    if ('error' in r) return fail([...path, { kind: 'attr', name }], r.error);
    keep(name, given, r.value);
  }
  for (const name of names.blockTypes) {
    const nb = b.blockTypes[name];
    const et = impliedType(nb.block);
    const coll = inAttrs.get(name);
    const p: Path = [...path, { kind: 'attr', name }];
    if (!coll) {
      keep(name, coll, nestedBlockEmptyValue(nb));
      continue;
    }
    if (nb.nesting === 'single' || nb.nesting === 'group') {
      const r = coerceValue(nb.block, coll, convert, p);
      if (r.error) return { value: Value.unknown(ty), error: r.error };
      keep(name, coll, r.value);
      continue;
    }
    same = false;
    const ct = nb.nesting === 'list' ? T.List(et) : nb.nesting === 'set' ? T.Set(et) : T.Map(et);
    if (coll.isNull) {
      out.set(name, Value.null(ct));
      continue;
    }
    if (!coll.isKnown) {
      out.set(name, Value.unknown(ct));
      continue;
    }
    const [raw, marks] = coll.unmark();
    const k = raw.type.kind;
    if (nb.nesting === 'map') {
      if (k !== 'map' && k !== 'object') return fail(path, 'must be a map');
      if (raw.entries.size === 0) {
        out.set(name, nestedBlockEmptyValue(nb).markWith(marks));
        continue;
      }
      const elems = new Map<string, Value>();
      for (const [key, e] of raw.entries) {
        const r = coerceValue(nb.block, e, convert, [...p, { kind: 'index', key: Value.string(key) }]);
        if (r.error) return { value: Value.unknown(ty), error: r.error };
        elems.set(key, r.value);
      }
      const useObject = k === 'object' || !T.isFullyKnownType(et);
      out.set(name, (useObject ? Value.object(elems) : Value.map(elems, et)).markWith(marks));
      continue;
    }
    if (k !== 'list' && k !== 'set' && k !== 'tuple') {
      return fail(path, nb.nesting === 'list' ? 'must be a list' : `cannot iterate over ${raw.toString()}`);
    }
    if (raw.elems.length === 0) {
      out.set(name, nestedBlockEmptyValue(nb).markWith(marks));
      continue;
    }
    const elems: Value[] = [];
    for (let i = 0; i < raw.elems.length; i++) {
      const key = k === 'set' ? raw.elems[i] : Value.number(i);
      const r = coerceValue(nb.block, raw.elems[i], convert, [...p, { kind: 'index', key }]);
      if (r.error) return { value: Value.unknown(ty), error: r.error };
      elems.push(r.value);
    }
    const dyn = !T.isFullyKnownType(et);
    const coerced = nb.nesting === 'set' ? Value.set(elems, et) : dyn ? Value.tuple(elems) : Value.list(elems, et);
    out.set(name, coerced.markWith(marks));
  }
  if (same) {
    const order = inAttrs.keys();
    for (const k of out.keys()) if (order.next().value !== k) return { value: Value.object(out) };
    return { value: v };
  }
  return { value: Value.object(out) };
}

const memberNames = new WeakMap<Block, { attributes: readonly string[]; blockTypes: readonly string[] }>();

/** A block's attribute and nested block type names, each sorted (schemas are immutable once built). */
function sortedMemberNames(b: Block): { attributes: readonly string[]; blockTypes: readonly string[] } {
  let n = memberNames.get(b);
  if (!n) {
    n = { attributes: Object.keys(b.attributes).sort(T.compareBytes), blockTypes: Object.keys(b.blockTypes).sort(T.compareBytes) };
    memberNames.set(b, n);
  }
  return n;
}
