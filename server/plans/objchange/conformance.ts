// Schema conformance of values returned by providers: cty's Type.TestConformance (every problem as a path
// error, in Terraform's exact words) and convert.MismatchMessage (the one-line reason used by
// AssertObjectCompatible's "wrong final value type"). Core runs `testConformance(value.type,
// impliedType(schema))` on every planned, applied, read, upgraded and imported object (reference §5).
// Siblings: compatible.ts uses mismatchMessage; valid.ts and proposed.ts assume conforming inputs.

import * as T from '../../lang/types';
import type { Type } from '../../lang/types';
import { Value } from '../../lang/value';
import type { Path, PathError, Step } from '../../providers/path';
import { goQuote } from '../../providers/gostring';
import { attrStep, indexStep, pathError } from '../../providers/path';
import type { Block } from '../../providers/schema';
import { impliedType } from '../../providers/schema';

/**
 * Every way `given` fails to conform to `want` (cty TestConformance): `unsupported attribute "x"`,
 * `missing required attribute "x"`, `N elements are required, but got M`, and `string required, but
 * received number`. A `dynamic` wanted type accepts anything. Collection element steps have unknown keys
 * (they print as `[(not yet known)]`); tuple element steps have the element's index.
 */
export function testConformance(given: Type, want: Type, path: Path = []): PathError[] {
  if (conforms(given, want)) return [];
  const errs: PathError[] = [];
  conform(given, want, path.slice(), errs);
  return errs;
}

/**
 * Whether conform would find nothing, without allocating: the answer for nearly every value a provider returns,
 * checked per object of every plan (a schema with a `dynamic` attribute never has a type equal to its values').
 */
function conforms(given: Type, want: Type): boolean {
  if (want.kind === 'dynamic' || given === want) return true;
  switch (want.kind) {
    case 'object': {
      if (given.kind !== 'object' || given.attrs.size !== want.attrs.size) return false;
      for (const [k, w] of want.attrs) {
        const g = given.attrs.get(k);
        if (!g || !conforms(g, w)) return false;
      }
      return true;
    }
    case 'tuple': {
      if (given.kind !== 'tuple' || given.elems.length !== want.elems.length) return false;
      for (let i = 0; i < want.elems.length; i++) if (!conforms(given.elems[i], want.elems[i])) return false;
      return true;
    }
    case 'list':
    case 'map':
    case 'set':
      return given.kind === want.kind && conforms(given.elem, want.elem);
    default:
      return given.kind === want.kind && T.typeEquals(given, want);
  }
}

/** Conformance of a value to a block's implied type. */
export function valueConformsToSchema(b: Block, v: Value): PathError[] {
  return testConformance(v.type, impliedType(b));
}

// `path` is extended in place (push, recurse, pop): pathError copies it when it records a problem.
function conform(given: Type, want: Type, path: Step[], errs: PathError[]): void {
  if (want.kind === 'dynamic') return;
  if (T.typeEquals(given, want)) return;
  if (given.kind === 'object' && want.kind === 'object') {
    const wantNames = T.attrNames(want);
    for (const k of T.attrNames(given)) if (!want.attrs.has(k)) errs.push(pathError(path, `unsupported attribute ${goQuote(k)}`));
    for (const k of wantNames) if (!given.attrs.has(k)) errs.push(pathError(path, `missing required attribute ${goQuote(k)}`));
    for (const k of wantNames) {
      const g = given.attrs.get(k);
      if (!g) continue;
      const w = want.attrs.get(k)!;
      if (w.kind === 'dynamic') continue;
      path.push(attrStep(k));
      conform(g, w, path, errs);
      path.pop();
    }
    return;
  }
  if (given.kind === 'tuple' && want.kind === 'tuple') {
    if (given.elems.length !== want.elems.length) {
      errs.push(pathError(path, `${want.elems.length} elements are required, but got ${given.elems.length}`));
      return;
    }
    want.elems.forEach((w, i) => {
      path.push(indexStep(i));
      conform(given.elems[i], w, path, errs);
      path.pop();
    });
    return;
  }
  if ((given.kind === 'list' && want.kind === 'list') || (given.kind === 'map' && want.kind === 'map') || (given.kind === 'set' && want.kind === 'set')) {
    const keyType = given.kind === 'list' ? T.Number : given.kind === 'map' ? T.String : given.elem;
    path.push(indexStep(Value.unknown(keyType)));
    conform(given.elem, want.elem, path, errs);
    path.pop();
    return;
  }
  errs.push(pathError(path, `${T.friendlyName(want)} required, but received ${T.friendlyName(given)}`));
}

/** Whether cty has a conversion (safe or unsafe) from one type to another; a close approximation of convert.GetConversionUnsafe. */
export function canConvert(from: Type, to: Type): boolean {
  if (to.kind === 'dynamic' || from.kind === 'dynamic' || T.typeEquals(from, to)) return true;
  if (T.isPrimitive(from) && T.isPrimitive(to)) return from.kind === 'string' || to.kind === 'string';
  switch (to.kind) {
    case 'list':
    case 'set':
      if (from.kind === 'list' || from.kind === 'set') return canConvert(from.elem, to.elem);
      if (from.kind === 'tuple') return from.elems.every((e) => canConvert(e, to.elem));
      return false;
    case 'map':
      if (from.kind === 'map') return canConvert(from.elem, to.elem);
      if (from.kind === 'object') return [...from.attrs.values()].every((e) => canConvert(e, to.elem));
      return false;
    case 'object':
      if (from.kind === 'object') {
        for (const [k, t] of to.attrs) {
          const f = from.attrs.get(k);
          if (f ? !canConvert(f, t) : !to.optional?.has(k)) return false;
        }
        return true;
      }
      if (from.kind === 'map') return [...to.attrs.values()].every((t) => canConvert(from.elem, t));
      return false;
    case 'tuple':
      if (from.kind === 'tuple') return from.elems.length === to.elems.length && from.elems.every((e, i) => canConvert(e, to.elems[i]));
      if (from.kind === 'list' || from.kind === 'set') return to.elems.every((t) => canConvert(from.elem, t));
      return false;
    default:
      return false;
  }
}

/** cty's convert.MismatchMessage(got, want): why a value of type `got` cannot be used as `want`. */
export function mismatchMessage(got: Type, want: Type): string {
  if (got.kind === 'object' && want.kind === 'object') return mismatchObjects(got, want);
  if (got.kind === 'tuple' && want.kind === 'list' && want.elem.kind === 'dynamic') return 'all list elements must have the same type';
  if (got.kind === 'tuple' && want.kind === 'set' && want.elem.kind === 'dynamic') return 'all set elements must have the same type';
  if (got.kind === 'object' && want.kind === 'map' && want.elem.kind === 'dynamic') return 'all map elements must have the same type';
  if ((got.kind === 'tuple' || got.kind === 'object') && T.isCollection(want)) {
    if (want.kind === 'list' && got.kind !== 'tuple') return 'list required';
    if (want.kind === 'set' && got.kind !== 'tuple') return 'set required';
    if (want.kind === 'map' && got.kind !== 'object') return 'map required';
    if (got.kind === 'tuple') {
      for (let i = 0; i < got.elems.length; i++) {
        const g = got.elems[i];
        if (T.typeEquals(g, want.elem) || canConvert(g, want.elem)) continue;
        return `element ${i}: ${mismatchMessage(g, want.elem)}`;
      }
    } else if (got.kind === 'object') {
      for (const k of T.attrNames(got)) {
        const g = got.attrs.get(k)!;
        if (T.typeEquals(g, want.elem) || canConvert(g, want.elem)) continue;
        return `element ${goQuote(k)}: ${mismatchMessage(g, want.elem)}`;
      }
    }
    return `all elements must be ${T.friendlyNameForConstraint(want.elem)}`;
  }
  if (T.isCollection(got) && T.isCollection(want)) {
    if (want.kind !== got.kind) return `${want.kind} required`;
    return `incorrect ${want.kind} element type: ${mismatchMessage(got.elem, want.elem)}`;
  }
  return `${T.friendlyNameForConstraint(want)} required`;
}

function mismatchObjects(got: T.ObjectType, want: T.ObjectType): string {
  const missing: string[] = [];
  let mismatch = '';
  for (const name of T.attrNames(want)) {
    const g = got.attrs.get(name);
    const w = want.attrs.get(name)!;
    if (!g) {
      if (!want.optional?.has(name)) missing.push(name);
      continue;
    }
    if (T.typeEquals(g, w) || mismatch) continue;
    if (!canConvert(g, w)) mismatch = `attribute ${goQuote(name)}: ${mismatchMessage(g, w)}`;
  }
  if (missing.length === 1) return `attribute ${goQuote(missing[0])} is required`;
  if (missing.length === 2) return `attributes ${goQuote(missing[0])} and ${goQuote(missing[1])} are required`;
  if (missing.length > 2) {
    return `attributes ${missing.slice(0, -1).map((m) => goQuote(m) + ', ').join('')}and ${goQuote(missing[missing.length - 1])} are required`;
  }
  return mismatch || 'incorrect object attributes';
}
