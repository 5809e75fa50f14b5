// Types of the configuration language, equivalent to go-cty's type system as Terraform uses it.
//
// A Type is plain immutable data. Primitive types are singletons (compare them with `===` or typeEquals);
// collection and structural types are built with the constructors below and compared with typeEquals.
// The sibling module value.ts holds values of these types; convert.ts converts between them.

export type Type =
  | { readonly kind: 'string' }
  | { readonly kind: 'number' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'dynamic' } // "any": the type is not known yet (DynamicPseudoType)
  | { readonly kind: 'list'; readonly elem: Type }
  | { readonly kind: 'set'; readonly elem: Type }
  | { readonly kind: 'map'; readonly elem: Type }
  | {
      readonly kind: 'object';
      readonly attrs: ReadonlyMap<string, Type>;
      /** Attribute names declared optional(...) in a type constraint; only constraints have these. */
      readonly optional?: ReadonlySet<string>;
      /** Defaults of optional attributes (values of value.ts), only on type constraints. */
      readonly defaults?: ReadonlyMap<string, unknown>;
    }
  | { readonly kind: 'tuple'; readonly elems: readonly Type[] }
  /** The capsule-like type of `type()` results in the console; never appears elsewhere. */
  | { readonly kind: 'typeval' };

export const String: Type = { kind: 'string' };
export const Number: Type = { kind: 'number' };
export const Bool: Type = { kind: 'bool' };
export const Dynamic: Type = { kind: 'dynamic' };
export const TypeVal: Type = { kind: 'typeval' };

export function List(elem: Type): Type {
  return { kind: 'list', elem };
}
export function Set(elem: Type): Type {
  return { kind: 'set', elem };
}
export function Map(elem: Type): Type {
  return { kind: 'map', elem };
}
export function Tuple(elems: readonly Type[]): Type {
  return { kind: 'tuple', elems };
}
/** An object type; attribute order does not matter (cty sorts attribute names). */
export function Obj(attrs: ReadonlyMap<string, Type> | Record<string, Type>): Type {
  const m = attrs instanceof globalThis.Map ? attrs : new globalThis.Map(Object.entries(attrs));
  return { kind: 'object', attrs: m };
}
export const EmptyObject: Type = Obj({});
export const EmptyTuple: Type = Tuple([]);

export type CollectionType = Extract<Type, { kind: 'list' | 'set' | 'map' }>;
export type ObjectType = Extract<Type, { kind: 'object' }>;
export type TupleType = Extract<Type, { kind: 'tuple' }>;

export function isPrimitive(t: Type): boolean {
  return t.kind === 'string' || t.kind === 'number' || t.kind === 'bool';
}
export function isCollection(t: Type): t is CollectionType {
  return t.kind === 'list' || t.kind === 'set' || t.kind === 'map';
}

/** Sorted names, per object type (types are immutable; the size check guards a Map changed after Obj()). */
const sortedNames = new WeakMap<ObjectType, readonly string[]>();

/** Sorted attribute names of an object type (cty orders attributes by name, bytewise). Shared: do not mutate. */
export function attrNames(t: ObjectType): readonly string[] {
  const kept = sortedNames.get(t);
  if (kept && kept.length === t.attrs.size) return kept;
  const names = [...t.attrs.keys()].sort(compareBytes);
  sortedNames.set(t, names);
  return names;
}

/** Bytewise (UTF-8 code unit order as Go compares strings) comparison. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  // Comparing by code point equals comparing UTF-8 bytes.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; ) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(i)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

export function typeEquals(a: Type, b: Type): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'list':
    case 'set':
    case 'map':
      return typeEquals(a.elem, (b as CollectionType).elem);
    case 'tuple': {
      const be = (b as TupleType).elems;
      return a.elems.length === be.length && a.elems.every((t, i) => typeEquals(t, be[i]));
    }
    case 'object': {
      const bo = b as ObjectType;
      if (a.attrs.size !== bo.attrs.size) return false;
      // (Keys and lookups: an entries loop made a pair per attribute, and plan comparisons call this a lot.)
      for (const k of a.attrs.keys()) {
        const u = bo.attrs.get(k);
        if (!u || !typeEquals(a.attrs.get(k)!, u)) return false;
      }
      const ao = a.optional;
      const bop = bo.optional;
      if ((ao?.size ?? 0) !== (bop?.size ?? 0)) return false;
      if (ao && bop) for (const k of ao) if (!bop.has(k)) return false;
      return true;
    }
    default:
      return true;
  }
}

/** True when the type contains no `dynamic` anywhere. */
export function isFullyKnownType(t: Type): boolean {
  switch (t.kind) {
    case 'dynamic':
      return false;
    case 'list':
    case 'set':
    case 'map':
      return isFullyKnownType(t.elem);
    case 'tuple':
      return t.elems.every(isFullyKnownType);
    case 'object':
      for (const a of t.attrs.values()) if (!isFullyKnownType(a)) return false;
      return true;
    default:
      return true;
  }
}

/**
 * The type's name as Terraform's diagnostics write it (cty's FriendlyName):
 * "string", "number", "bool", "list of string", "set of number", "map of bool", "object", "tuple", "dynamic".
 */
export function friendlyName(t: Type): string {
  switch (t.kind) {
    case 'list':
      return `list of ${friendlyName(t.elem)}`;
    case 'set':
      return `set of ${friendlyName(t.elem)}`;
    case 'map':
      return `map of ${friendlyName(t.elem)}`;
    case 'dynamic':
      return 'dynamic';
    case 'typeval':
      return 'type';
    default:
      return t.kind;
  }
}

/** Like friendlyName but for type constraints: `dynamic` reads "any type" (cty's FriendlyNameForConstraint). */
export function friendlyNameForConstraint(t: Type): string {
  switch (t.kind) {
    case 'list':
      return `list of ${friendlyNameForConstraint(t.elem)}`;
    case 'set':
      return `set of ${friendlyNameForConstraint(t.elem)}`;
    case 'map':
      return `map of ${friendlyNameForConstraint(t.elem)}`;
    case 'dynamic':
      return 'any type';
    default:
      return friendlyName(t);
  }
}

/**
 * The type as Terraform's type-constraint syntax writes it, as the console's `type()` prints it
 * (four-space indentation for object and tuple members).
 */
export function typeString(t: Type, indent = ''): string {
  switch (t.kind) {
    case 'string':
    case 'number':
    case 'bool':
      return t.kind;
    case 'dynamic':
      return 'dynamic';
    case 'typeval':
      return 'type';
    case 'list':
    case 'set':
    case 'map':
      return `${t.kind}(${typeString(t.elem, indent)})`;
    case 'tuple': {
      if (t.elems.length === 0) return 'tuple([])';
      const inner = indent + '    ';
      return `tuple([\n${t.elems.map((e) => `${inner}${typeString(e, inner)},\n`).join('')}${indent}])`;
    }
    case 'object': {
      const names = attrNames(t);
      if (names.length === 0) return 'object({})';
      const inner = indent + '    ';
      const lines = names.map((n) => `${inner}${n}: ${typeString(t.attrs.get(n)!, inner)},\n`);
      return `object({\n${lines.join('')}${indent}})`;
    }
  }
}
