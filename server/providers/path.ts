// Attribute paths: a sequence of steps from a resource object to one value inside it, as cty.Path.
//
// A step is an attribute step (`.name`) or an index step (`[key]`, the key being a Value: a number for
// lists and tuples, a string for maps, the element itself for sets). Paths locate provider diagnostics,
// requires-replace attributes, sensitive marks and contract violations. This module applies paths to
// values (cty's Path.Apply), prints them as Terraform does (FormatCtyPath, FormatError,
// FormatErrorPrefixed, and Go syntax for the one message that uses `%#v` of a path), and converts them to
// and from the plugin protocol's AttributePath. Siblings: gostring.ts (renderings), schema.ts, marks.ts.

import * as T from '../lang/types';
import { Value } from '../lang/value';
import { goQuote, goString, numG } from './gostring';

export type Step = { readonly kind: 'attr'; readonly name: string } | { readonly kind: 'index'; readonly key: Value };
export type Path = readonly Step[];

/** An attribute step. */
export function attrStep(name: string): Step {
  return { kind: 'attr', name };
}
/** An index step; JS numbers become number keys, JS strings string keys. */
export function indexStep(key: Value | number | string): Step {
  return { kind: 'index', key: typeof key === 'number' ? Value.number(key) : typeof key === 'string' ? Value.string(key) : key };
}
/** A path from a compact description: strings are attribute steps, numbers index steps, `{ key }` string index steps. */
export function path(...steps: (string | number | { key: string | Value })[]): Path {
  return steps.map((s) => (typeof s === 'string' ? attrStep(s) : typeof s === 'number' ? indexStep(s) : indexStep(s.key)));
}

/** A problem located at a path (cty's PathError). The message never repeats the path. */
export interface PathError {
  readonly path: Path;
  readonly message: string;
}
export function pathError(p: Path, message: string): PathError {
  return { path: p.slice(), message };
}

// ---- application -----------------------------------------------------------------------------------------

export type ApplyResult = { value: Value; error?: undefined } | { value?: undefined; error: string };

/**
 * The attribute of an object value; for an unknown object, an unknown of the attribute's type (as cty's
 * GetAttr). Callers ensure the value is an object (or dynamic unknown) and not null.
 */
export function getAttr(v: Value, name: string): Value {
  if (!v.isKnown) {
    const t = v.type.kind === 'object' ? v.type.attrs.get(name) ?? T.Dynamic : T.Dynamic;
    return Value.unknown(t);
  }
  return v.entries.get(name) ?? Value.null(T.Dynamic);
}

/** Element type of a collection, element i's type of a tuple, or dynamic. */
function elementType(t: T.Type, key?: Value): T.Type {
  if (t.kind === 'list' || t.kind === 'set' || t.kind === 'map') return t.elem;
  if (t.kind === 'tuple' && key && key.isKnown && !key.isNull && key.type.kind === 'number') return t.elems[key.num.toNumber()] ?? T.Dynamic;
  return T.Dynamic;
}

/** Applies one step, as cty's GetAttrStep.Apply / IndexStep.Apply (sets cannot be indexed). */
export function applyStep(v: Value, step: Step): ApplyResult {
  if (step.kind === 'attr') {
    if (v.isNull) return { error: 'attempt to get attribute from null value' };
    if (v.type.kind !== 'object') return { error: 'not an object type' };
    if (!v.type.attrs.has(step.name)) return { error: `object has no attribute ${JSON.stringify(step.name)}` };
    return { value: getAttr(v, step.name) };
  }
  if (v.isNull) return { error: 'cannot index a null value' };
  const k = v.type.kind;
  const key = step.key;
  if (k === 'list' || k === 'tuple') {
    if (key.type.kind !== 'number') return { error: 'key must be a number' };
  } else if (k === 'map') {
    if (key.type.kind !== 'string') return { error: 'key must be a string' };
  } else return { error: 'not a map or list' };
  if (!v.isKnown || !key.isKnown) return { value: Value.unknown(elementType(v.type, key)) };
  if (key.isNull) return { error: 'key is null' };
  if (k === 'map') {
    const e = v.entries.get(key.str);
    return e ? { value: e } : { error: 'value does not have given index key' };
  }
  const n = key.num;
  const i = n.isInteger() ? n.toNumber() : -1;
  if (i < 0 || i >= v.elems.length) return { error: 'value does not have given index key' };
  return { value: v.elems[i] };
}

/** Applies a whole path (cty's Path.Apply); the error names the first step that failed. */
export function applyPath(v: Value, p: Path): ApplyResult {
  let cur = v;
  for (let i = 0; i < p.length; i++) {
    const r = applyStep(cur, p[i]);
    if (r.error !== undefined) return { error: `at step ${i}: ${r.error}` };
    cur = r.value;
  }
  return { value: cur };
}

// ---- formatting --------------------------------------------------------------------------------------------

/** A path as Terraform prints it (tfdiags.FormatCtyPath): `.tags["Name"]`, `.disk[0].size`, `.rule[...]`. */
export function formatPath(p: Path): string {
  let out = '';
  for (const s of p) {
    if (s.kind === 'attr') {
      out += '.' + s.name;
      continue;
    }
    const key = s.key;
    let k: string;
    if (!key.isKnown) k = '(not yet known)';
    else if (key.isNull) k = 'null';
    else if (key.type.kind === 'number') k = numG(key.num);
    else if (key.type.kind === 'string') k = goQuote(key.str);
    else k = '...';
    out += `[${k}]`;
  }
  return out;
}

/** tfdiags.FormatError: `PATH: MESSAGE`, or just the message at the root. */
export function formatError(e: PathError): string {
  return e.path.length ? `${formatPath(e.path)}: ${e.message}` : e.message;
}

/** tfdiags.FormatErrorPrefixed: `PREFIX` + `PATH: MESSAGE`, or `PREFIX: MESSAGE` at the root. */
export function formatErrorPrefixed(e: PathError, prefix: string): string {
  return e.path.length ? `${prefix}${formatPath(e.path)}: ${e.message}` : `${prefix}: ${e.message}`;
}

/** Go syntax of a path (`%#v`): `cty.Path{cty.GetAttrStep{Name:"foo"}, cty.IndexStep{Key:cty.NumberIntVal(0)}}`. */
export function goPath(p: Path): string {
  if (p.length === 0) return 'cty.Path(nil)';
  const steps = p.map((s) => (s.kind === 'attr' ? `cty.GetAttrStep{Name:${goQuote(s.name)}}` : `cty.IndexStep{Key:${goString(s.key)}}`));
  return `cty.Path{${steps.join(', ')}}`;
}

/** True when both paths have the same steps (index keys compared by kind and known value). */
export function pathEquals(a: Path, b: Path): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.kind !== y.kind) return false;
    if (x.kind === 'attr') {
      if (x.name !== (y as typeof x).name) return false;
    } else if (!keyEquals(x.key, (y as typeof x).key)) return false;
  }
  return true;
}

function keyEquals(a: Value, b: Value): boolean {
  if (a.type.kind !== b.type.kind || a.isKnown !== b.isKnown || a.isNull !== b.isNull) return false;
  if (!a.isKnown || a.isNull) return true;
  if (a.type.kind === 'number') return a.num.equals(b.num);
  if (a.type.kind === 'string') return a.str === b.str;
  return a.toString() === b.toString();
}

// ---- protocol and diagnostic forms ---------------------------------------------------------------------------

/** One step of the plugin protocol's AttributePath (tfplugin6 AttributePath.Step): exactly one field is set. */
export type ProtocolStep = { attributeName: string } | { elementKeyString: string } | { elementKeyInt: number };

/**
 * A path in protocol form. Set elements and non-string/number keys cannot be expressed and are dropped
 * together with everything after them (as Terraform's path conversion stops there).
 */
export function toProtocolPath(p: Path): ProtocolStep[] {
  const out: ProtocolStep[] = [];
  for (const s of p) {
    if (s.kind === 'attr') out.push({ attributeName: s.name });
    else if (s.key.isKnown && !s.key.isNull && s.key.type.kind === 'string') out.push({ elementKeyString: s.key.str });
    else if (s.key.isKnown && !s.key.isNull && s.key.type.kind === 'number') out.push({ elementKeyInt: s.key.num.toNumber() });
    else break;
  }
  return out;
}

/** A path from protocol form: attribute names → attribute steps, string keys → string index steps, ints → number index steps. */
export function fromProtocolPath(steps: readonly ProtocolStep[]): Path {
  return steps.map((s) =>
    'attributeName' in s ? attrStep(s.attributeName) : 'elementKeyString' in s ? indexStep(Value.string(s.elementKeyString)) : indexStep(Value.number(s.elementKeyInt)),
  );
}

/** The path as diags/diagnostic.ts stores it (strings for attributes and map keys, numbers for indexes). */
export function toDiagnosticPath(p: Path): (string | number)[] {
  return toProtocolPath(p).map((s) => ('attributeName' in s ? s.attributeName : 'elementKeyString' in s ? s.elementKeyString : s.elementKeyInt));
}
