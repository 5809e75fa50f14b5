// Marks around provider calls: providers never see marked values, so Terraform removes every mark before a
// call, remembers where each mark was, and re-applies the marks by path to the answer; it also marks the
// paths the schema declares sensitive.
//
// `unmarkDeepWithPaths` and `markWithPaths` are cty's UnmarkDeepWithPaths / MarkWithPaths; `sensitivePaths`
// is configschema's Block.SensitivePaths (every sensitive attribute, also when null, one path per list
// element, map key and set element of nested blocks and nested attribute types); `writeOnlyPaths` lists
// the write-only attributes the same way. Paths are produced in cty's walk order (attributes by name). A path that no longer exists in the value being re-marked is
// skipped. Siblings: path.ts, schema.ts; callers: the plan/apply engine and server/plans/objchange.

import { compareBytes } from '../lang/types';
import type { Mark } from '../lang/value';
import { Value } from '../lang/value';
import type { Path } from './path';
import { attrStep, indexStep } from './path';
import type { Attribute, Block, NestedObject } from './schema';

/** The marks found at one path of a value (cty.PathValueMarks). */
export interface PathMarks {
  readonly path: Path;
  readonly marks: readonly Mark[];
}

/** The value with every mark removed, and the marks with the paths where they were. */
export function unmarkDeepWithPaths(v: Value): { value: Value; marks: PathMarks[] } {
  const out: PathMarks[] = [];
  const value = unmarkInto(v, [], out);
  return { value, marks: out };
}

function unmarkInto(v: Value, p: Path, out: PathMarks[]): Value {
  let cur = v;
  if (v.marks.size) {
    out.push({ path: p, marks: [...v.marks] });
    cur = v.unmark()[0];
  }
  if (!cur.isKnown || cur.isNull || !cur.hasMarksDeep) return cur;
  const k = cur.type.kind;
  if (k === 'list' || k === 'tuple' || k === 'set') {
    const elems = cur.elems.map((e, i) => unmarkInto(e, [...p, indexStep(k === 'set' ? e.unmarkDeep()[0] : Value.number(i))], out));
    return Value.raw(cur.type, elems, undefined, cur.refinements);
  }
  if (k === 'map' || k === 'object') {
    const m = new Map<string, Value>();
    for (const key of [...cur.entries.keys()].sort(compareBytes)) {
      m.set(key, unmarkInto(cur.entries.get(key)!, [...p, k === 'map' ? indexStep(Value.string(key)) : attrStep(key)], out));
    }
    return Value.raw(cur.type, m, undefined, cur.refinements);
  }
  return cur;
}

/** Removes one kind of mark from a list of path marks (Terraform drops `ephemeral` before re-marking a plan). */
export function removeMark(pms: readonly PathMarks[], mark: Mark): PathMarks[] {
  const out: PathMarks[] = [];
  for (const pm of pms) {
    const ms = pm.marks.filter((m) => m !== mark);
    if (ms.length) out.push({ path: pm.path, marks: ms });
  }
  return out;
}

/** The value with the given marks applied at their paths; paths that do not exist in the value are skipped. */
export function markWithPaths(v: Value, pms: readonly PathMarks[]): Value {
  let cur = v;
  for (const pm of pms) cur = markAt(cur, pm.path, 0, pm.marks);
  return cur;
}

function markAt(v: Value, p: Path, i: number, marks: readonly Mark[]): Value {
  if (i === p.length) return v.mark(...marks);
  if (!v.isKnown || v.isNull) return v;
  const step = p[i];
  const k = v.type.kind;
  if (step.kind === 'attr') {
    if (k !== 'object') return v;
    const e = v.entries.get(step.name);
    if (!e) return v;
    const ne = markAt(e, p, i + 1, marks);
    if (ne === e) return v;
    const m = new Map(v.entries);
    m.set(step.name, ne);
    return Value.raw(v.type, m, v.marks, v.refinements);
  }
  const key = step.key;
  if (!key.isKnown || key.isNull) return v;
  if (k === 'map' && key.type.kind === 'string') {
    const e = v.entries.get(key.str);
    if (!e) return v;
    const m = new Map(v.entries);
    m.set(key.str, markAt(e, p, i + 1, marks));
    return Value.raw(v.type, m, v.marks, v.refinements);
  }
  if ((k === 'list' || k === 'tuple') && key.type.kind === 'number') {
    const idx = key.num.toNumber();
    if (!Number.isInteger(idx) || idx < 0 || idx >= v.elems.length) return v;
    const elems = v.elems.slice();
    elems[idx] = markAt(elems[idx], p, i + 1, marks);
    return Value.raw(v.type, elems, v.marks, v.refinements);
  }
  if (k === 'set') {
    const want = key.unmarkDeep()[0].toString();
    const idx = v.elems.findIndex((e) => e.unmarkDeep()[0].toString() === want);
    if (idx < 0) return v;
    const elems = v.elems.slice();
    elems[idx] = markAt(elems[idx], p, i + 1, marks);
    return Value.raw(v.type, elems, v.marks, v.refinements);
  }
  return v;
}

// ---- schema-declared paths ---------------------------------------------------------------------------------

type AttrPredicate = (a: Attribute) => boolean;

const isSensitive: AttrPredicate = (a) => !!a.sensitive;
const isWriteOnly: AttrPredicate = (a) => !!a.writeOnly;

/** Paths of every schema-sensitive attribute in the value (configschema's SensitivePaths). */
export function sensitivePaths(b: Block, v: Value, base: Path = []): Path[] {
  const out: Path[] = [];
  if (blockContains(b, isSensitive)) blockPaths(b, v, base, isSensitive, out);
  return out;
}

/** Paths of every write-only attribute in the value (one per list element, map key and set element). */
export function writeOnlyPaths(b: Block, v: Value, base: Path = []): Path[] {
  const out: Path[] = [];
  if (blockContains(b, isWriteOnly)) blockPaths(b, v, base, isWriteOnly, out);
  return out;
}

/** The value with its schema-sensitive attributes marked `sensitive`. */
export function markSensitive(b: Block, v: Value): Value {
  return markWithPaths(
    v,
    sensitivePaths(b, v).map((path) => ({ path, marks: ['sensitive'] as Mark[] })),
  );
}

/** blockContains per predicate and schema block (schemas are not changed once loaded). */
const containsKept = new WeakMap<AttrPredicate, WeakMap<Block, boolean>>();

/** Whether the block or anything nested in it has an attribute the predicate selects. */
function blockContains(b: Block, pred: AttrPredicate): boolean {
  let byBlock = containsKept.get(pred);
  if (!byBlock) containsKept.set(pred, (byBlock = new WeakMap()));
  let r = byBlock.get(b);
  if (r === undefined) byBlock.set(b, (r = blockContainsNow(b, pred)));
  return r;
}

function blockContainsNow(b: Block, pred: AttrPredicate): boolean {
  for (const a of Object.values(b.attributes)) if (pred(a) || (a.nestedType && objectContains(a.nestedType, pred))) return true;
  for (const nb of Object.values(b.blockTypes)) if (blockContains(nb.block, pred)) return true;
  return false;
}
function objectContains(o: NestedObject, pred: AttrPredicate): boolean {
  for (const a of Object.values(o.attributes)) if (pred(a) || (a.nestedType && objectContains(a.nestedType, pred))) return true;
  return false;
}

function childValue(v: Value, name: string): Value | undefined {
  if (!v.isKnown || v.isNull || v.type.kind !== 'object') return undefined;
  return v.entries.get(name);
}

function eachElement(v: Value, p: Path, fn: (e: Value, p: Path) => void): void {
  const [c] = v.unmark();
  if (!c.isKnown || c.isNull) return;
  const k = c.type.kind;
  if (k === 'list' || k === 'tuple') c.elems.forEach((e, i) => fn(e, [...p, indexStep(i)]));
  else if (k === 'set') c.elems.forEach((e) => fn(e, [...p, indexStep(e)]));
  else if (k === 'map') for (const [key, e] of c.entries) fn(e, [...p, indexStep(Value.string(key))]);
  else if (k === 'object') for (const [key, e] of c.entries) fn(e, [...p, attrStep(key)]);
}

function blockPaths(b: Block, v: Value, base: Path, pred: AttrPredicate, out: Path[]): void {
  for (const [name, a] of Object.entries(b.attributes)) if (pred(a)) out.push([...base, attrStep(name)]);
  if (v.isNull) return;
  for (const [name, a] of Object.entries(b.attributes)) {
    if (!a.nestedType || pred(a) || !objectContains(a.nestedType, pred)) continue;
    const av = childValue(v, name);
    if (av) objectPaths(a.nestedType, av, [...base, attrStep(name)], pred, out);
  }
  for (const [name, nb] of Object.entries(b.blockTypes)) {
    if (!blockContains(nb.block, pred)) continue;
    const bv = childValue(v, name);
    if (!bv || bv.isNull || !bv.isKnown) continue;
    const p = [...base, attrStep(name)];
    if (nb.nesting === 'single' || nb.nesting === 'group') blockPaths(nb.block, bv.unmark()[0], p, pred, out);
    else eachElement(bv, p, (e, ep) => blockPaths(nb.block, e.unmark()[0], ep, pred, out));
  }
}

function objectPaths(o: NestedObject, v: Value, base: Path, pred: AttrPredicate, out: Path[]): void {
  const [c] = v.unmark();
  if (c.isNull || !c.isKnown) return;
  const attrsOf = (ev: Value, p: Path) => {
    const [e] = ev.unmark();
    if (e.isNull || !e.isKnown) return;
    for (const [name, a] of Object.entries(o.attributes)) {
      if (pred(a)) out.push([...p, attrStep(name)]);
      else if (a.nestedType && objectContains(a.nestedType, pred)) {
        const av = childValue(e, name);
        if (av) objectPaths(a.nestedType, av, [...p, attrStep(name)], pred, out);
      }
    }
  };
  if (o.nesting === 'single') attrsOf(c, base);
  else eachElement(c, base, attrsOf);
}
