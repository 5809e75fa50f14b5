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

// ---- shared types ---------------------------------------------------------------------------------------
//
// Values carry their types, and the values of a plan or a state repeat a few types thousands of times: every
// object value used to have an object type (and a Map of its attributes' types) of its own, a quarter of the
// language server's heap at 5,000 planned resources. So the types built here from types that are shared (the
// primitives, and what these constructors built before) are shared too: one object per structure, found by its
// parts (kind, attribute names, the parts' ids) in a trie. Types are immutable, so sharing changes nothing a reader
// can see; an object type is shared only with types whose attributes come in the same order, as a Map's order is
// visible. Type constraints (`optional` attributes, defaults) are never shared, nor is anything built from them.

/** Ids of shared types. */
const sharedIds = new WeakMap<Type, number>();
let nextSharedId = 0;
for (const t of [String, Number, Bool, Dynamic]) sharedIds.set(t, nextSharedId++);

/** A step of the trie: by attribute name (tuples and collections use one name of their own), then by part id. */
interface Shared {
  next: globalThis.Map<string, globalThis.Map<number, Shared>> | undefined;
  type: Type | undefined;
}
const newShared = (): Shared => ({ next: undefined, type: undefined });
let sharedRoot = newShared();
let sharedSteps = 0;
/** The trie starts again past this many steps (types already shared stay valid; later ones are shared anew). */
const SHARED_STEPS_MAX = 50_000;
/** Object and tuple types with more attributes or elements than this are not shared. */
const SHARED_PARTS_MAX = 64;

function stepOf(n: Shared | undefined, name: string, id: number): Shared | undefined {
  return n?.next?.get(name)?.get(id);
}

function addStep(n: Shared, name: string, id: number): Shared {
  n.next ??= new globalThis.Map();
  let byId = n.next.get(name);
  if (!byId) n.next.set(name, (byId = new globalThis.Map()));
  let c = byId.get(id);
  if (!c) {
    byId.set(id, (c = newShared()));
    sharedSteps++;
  }
  return c;
}

/** Records `t` at the end of `path` (pairs of name and id) and gives it an id. */
function share(path: readonly (string | number)[], t: Type): Type {
  if (sharedSteps + path.length / 2 > SHARED_STEPS_MAX) {
    sharedRoot = newShared();
    sharedSteps = 0;
  }
  let n = sharedRoot;
  for (let i = 0; i < path.length; i += 2) n = addStep(n, path[i] as string, path[i + 1] as number);
  n.type = t;
  sharedIds.set(t, nextSharedId++);
  return t;
}

// Names of the first step of each kind; an object's first step is its first attribute's (or EMPTY_OBJECT's).
const LIST = '\u0000list';
const SET = '\u0000set';
const MAP = '\u0000map';
const TUPLE = '\u0000tuple';
const ELEM = '';
const EMPTY_OBJECT = '\u0000object';
const OBJECT = -1;

function collection(kind: 'list' | 'set' | 'map', elem: Type): Type {
  const id = sharedIds.get(elem);
  if (id === undefined) return { kind, elem };
  const name = kind === 'list' ? LIST : kind === 'set' ? SET : MAP;
  return stepOf(sharedRoot, name, id)?.type ?? share([name, id], { kind, elem });
}

export function List(elem: Type): Type {
  return collection('list', elem);
}
export function Set(elem: Type): Type {
  return collection('set', elem);
}
export function Map(elem: Type): Type {
  return collection('map', elem);
}
/** A tuple type (`elems` is kept: do not change it afterwards). */
export function Tuple(elems: readonly Type[]): Type {
  return { kind: 'tuple', elems };
}
/** An object type; attribute order does not matter (cty sorts attribute names). `attrs` is kept when it is a Map. */
export function Obj(attrs: ReadonlyMap<string, Type> | Record<string, Type>): Type {
  const m = attrs instanceof globalThis.Map ? attrs : new globalThis.Map(Object.entries(attrs));
  return { kind: 'object', attrs: m };
}

/** The tuple type of these values' types (shared when theirs are). */
export function TupleOf(elems: readonly { readonly type: Type }[]): Type {
  return sharedTuple(elems.map((e) => e.type));
}

/** A tuple type of `elems`, which it keeps unless an equal shared type is found (shared when the elements' are). */
export function sharedTuple(elems: readonly Type[]): Type {
  if (elems.length > SHARED_PARTS_MAX) return { kind: 'tuple', elems };
  // The first step says "tuple" and holds the length, so a tuple is never a prefix of another.
  let n = stepOf(sharedRoot, TUPLE, elems.length);
  for (let i = 0; i < elems.length; i++) {
    const id = sharedIds.get(elems[i]);
    if (id === undefined) return { kind: 'tuple', elems };
    n = stepOf(n, ELEM, id);
  }
  if (n?.type) return n.type;
  const path: (string | number)[] = [TUPLE, elems.length];
  for (const e of elems) path.push(ELEM, sharedIds.get(e)!);
  return share(path, { kind: 'tuple', elems });
}

/**
 * The shared object type with these attributes (in this order; `typeOf` gives an attribute's type), or what `make`
 * makes, shared when every attribute's type is. The path ends with an OBJECT step, so an object is never a prefix of
 * another.
 */
function sharedObject<V>(attrs: ReadonlyMap<string, V>, typeOf: (v: V) => Type, make: () => Type): Type {
  if (attrs.size > SHARED_PARTS_MAX) return make();
  let n: Shared | undefined = attrs.size === 0 ? stepOf(sharedRoot, EMPTY_OBJECT, 0) : sharedRoot;
  for (const [name, v] of attrs) {
    const id = sharedIds.get(typeOf(v));
    if (id === undefined) return make();
    n = stepOf(n, name, id);
  }
  const found = stepOf(n, ELEM, OBJECT)?.type;
  if (found) return found;
  const path: (string | number)[] = attrs.size === 0 ? [EMPTY_OBJECT, 0] : [];
  for (const [name, v] of attrs) path.push(name, sharedIds.get(typeOf(v))!);
  path.push(ELEM, OBJECT);
  return share(path, make());
}

const typeOfValue = (v: { readonly type: Type }) => v.type;
const itself = (t: Type) => t;

/** The object type of these attributes' values' types, in their order (shared when theirs are). */
export function ObjOf(attrs: ReadonlyMap<string, { readonly type: Type }>): Type {
  return sharedObject(attrs, typeOfValue, () => {
    const types = new globalThis.Map<string, Type>();
    for (const [name, v] of attrs) types.set(name, v.type);
    return { kind: 'object', attrs: types };
  });
}

/** An object type of `attrs`, which it keeps unless an equal shared type is found (shared when the attributes' are). */
export function sharedObj(attrs: ReadonlyMap<string, Type>): Type {
  return sharedObject(attrs, itself, () => ({ kind: 'object', attrs }));
}

export const EmptyObject: Type = ObjOf(new globalThis.Map());
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
