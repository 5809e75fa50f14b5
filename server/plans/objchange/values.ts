// Value helpers shared by the objchange modules: the exact comparisons Terraform's objchange package uses
// (cty RawEquals with and without refinements), a cty.Walk equivalent, and typed attribute/element access
// that behaves like cty on null and unknown containers. Siblings: proposed.ts, valid.ts, compatible.ts,
// conformance.ts. Nothing here knows about schemas.

import type { Num } from '../../lang/number';
import * as T from '../../lang/types';
import { Value } from '../../lang/value';
import { refinementsOf } from '../../providers/gostring';
import type { Path, Step } from '../../providers/path';
import { attrStep, indexStep } from '../../providers/path';

/**
 * cty's RawEquals: same type, knownness, nullness, marks and data; sets compare as sets (element order does
 * not matter). With `refinements` true, unknown values must also carry identical refinements; otherwise
 * refinements are ignored (RawEquals after unrefinedValue on both sides).
 */
export function rawEq(a: Value, b: Value, refinements: boolean): boolean {
  if (a === b) return true;
  if (a.data === undefined || b.data === undefined) {
    if (a.data !== b.data) return false;
    if (!T.typeEquals(a.type, b.type) || !sameMarks(a, b)) return false;
    return !refinements || sameRefinements(a, b);
  }
  if (!T.typeEquals(a.type, b.type) || !sameMarks(a, b)) return false;
  if (a.data === null || b.data === null) return a.data === b.data;
  switch (a.type.kind) {
    case 'string':
    case 'bool':
      return a.data === b.data;
    case 'number':
      return a.num.equals(b.num);
    case 'list':
    case 'tuple': {
      const ae = a.elems;
      const be = b.elems;
      if (ae.length !== be.length) return false;
      for (let i = 0; i < ae.length; i++) if (!rawEq(ae[i], be[i], refinements)) return false;
      return true;
    }
    case 'set': {
      const ae = a.elems;
      const be = b.elems;
      if (ae.length !== be.length) return false;
      let inOrder = true;
      for (let i = 0; i < ae.length && inOrder; i++) if (!rawEq(ae[i], be[i], refinements)) inOrder = false;
      if (inOrder) return true;
      const used = new Array<boolean>(be.length).fill(false);
      outer: for (const x of ae) {
        for (let j = 0; j < be.length; j++) {
          if (!used[j] && rawEq(x, be[j], refinements)) {
            used[j] = true;
            continue outer;
          }
        }
        return false;
      }
      return true;
    }
    case 'map':
    case 'object': {
      const ae = a.entries;
      const be = b.entries;
      if (ae.size !== be.size) return false;
      for (const [k, v] of ae) {
        const w = be.get(k);
        if (!w || !rawEq(v, w, refinements)) return false;
      }
      return true;
    }
    default:
      return a.toString() === b.toString();
  }
}

function sameMarks(a: Value, b: Value): boolean {
  if (a.marks.size !== b.marks.size) return false;
  for (const m of a.marks) if (!b.marks.has(m)) return false;
  return true;
}

type Bound = { value: Num; inclusive: boolean };

function sameRefinements(a: Value, b: Value): boolean {
  const ra = refinementsOf(a) ?? {};
  const rb = refinementsOf(b) ?? {};
  if (!!ra.notNull !== !!rb.notNull || !!ra.isNull !== !!rb.isNull) return false;
  if ((ra.stringPrefix ?? '') !== (rb.stringPrefix ?? '')) return false;
  if ((ra.lengthLower ?? 0) !== (rb.lengthLower ?? 0) || ra.lengthUpper !== rb.lengthUpper) return false;
  const boundEq = (x?: Bound, y?: Bound) => x === y || (!!x && !!y && x.inclusive === y.inclusive && x.value.equals(y.value));
  return boundEq(ra.numberLower, rb.numberLower) && boundEq(ra.numberUpper, rb.numberUpper);
}

/** RawEquals after dropping every refinement (objchange's unrefinedValue on both sides). */
export function unrefinedEq(a: Value, b: Value): boolean {
  return rawEq(a, b, false);
}

/** RawEquals including refinements. */
export function exactEq(a: Value, b: Value): boolean {
  return rawEq(a, b, true);
}

/** cty's GetAttr on an object that may be unknown (→ unknown of the attribute type) or null (→ null of it). */
export function attrOf(v: Value, name: string): Value {
  if (v.data === undefined || v.data === null) {
    const t = v.type.kind === 'object' ? v.type.attrs.get(name) ?? T.Dynamic : T.Dynamic;
    return v.data === undefined ? Value.unknown(t) : Value.null(t);
  }
  return v.entries.get(name) ?? Value.null(T.Dynamic);
}

/** Element type of a collection value's type (dynamic for tuples and anything else). */
export function elemType(t: T.Type): T.Type {
  return t.kind === 'list' || t.kind === 'set' || t.kind === 'map' ? t.elem : T.Dynamic;
}

/** Elements of a known list/tuple/set as [key, element] pairs in iteration order (keys as cty index keys). */
export function iterElements(v: Value): [Value, Value][] {
  const k = v.type.kind;
  if (k === 'list' || k === 'tuple') return v.elems.map((e, i) => [Value.number(i), e]);
  if (k === 'set') return v.elems.map((e) => [e, e]);
  if (k === 'map') return [...v.entries].sort((x, y) => T.compareBytes(x[0], y[0])).map(([key, e]) => [Value.string(key), e]);
  if (k === 'object') return [...v.entries].sort((x, y) => T.compareBytes(x[0], y[0])).map(([key, e]) => [Value.string(key), e]);
  return [];
}

/** Number of elements of a known collection or structural value. */
export function lengthOf(v: Value): number {
  const k = v.type.kind;
  return k === 'map' || k === 'object' ? v.entries.size : v.elems.length;
}

export type WalkAction = 'descend' | 'skip' | 'stop';

/**
 * cty.Walk: visits the value and, when the callback says 'descend', its elements (list/tuple/set by index
 * or element key, map by string key, object by attribute name in sorted order); nulls and unknowns have no
 * children. Returns false when a callback said 'stop'.
 */
export function walk(v: Value, fn: (p: Path, v: Value) => WalkAction, p: Step[] = []): boolean {
  const act = fn(p, v);
  if (act === 'stop') return false;
  if (act === 'skip' || v.data === undefined || v.data === null) return true;
  const k = v.type.kind;
  if (k === 'list' || k === 'tuple' || k === 'set') {
    const es = v.elems;
    for (let i = 0; i < es.length; i++) {
      p.push(indexStep(k === 'set' ? es[i] : Value.number(i)));
      const ok = walk(es[i], fn, p);
      p.pop();
      if (!ok) return false;
    }
  } else if (k === 'map' || k === 'object') {
    const keys = [...v.entries.keys()].sort(T.compareBytes);
    for (const key of keys) {
      p.push(k === 'map' ? indexStep(Value.string(key)) : attrStep(key));
      const ok = walk(v.entries.get(key)!, fn, p);
      p.pop();
      if (!ok) return false;
    }
  }
  return true;
}
