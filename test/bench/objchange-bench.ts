// Micro-benchmark of the plan contract functions (server/plans/objchange): ProposedNew and AssertPlanValid on
// a resource with 200 top-level attributes and three levels of nested blocks (a list block holding a set
// block holding a single block). `benchObjchange` returns the mean milliseconds per call of each (goal:
// at most 0.2 ms); test/bench/bench.ts calls it. `objchangeBenchFixture` exposes the inputs for tests.

import * as T from '../../server/lang/types';
import { Value } from '../../server/lang/value';
import type { Attribute, Block } from '../../server/providers/schema';
import { assertPlanValid } from '../../server/plans/objchange/valid';
import { proposedNew } from '../../server/plans/objchange/proposed';

function attrs(prefix: string, count: number): Record<string, Attribute> {
  const out: Record<string, Attribute> = {};
  for (let i = 0; i < count; i++) {
    const type = i % 5 === 3 ? T.List(T.String) : i % 5 === 4 ? T.Map(T.String) : i % 2 ? T.Number : T.String;
    const mode = i % 4;
    out[`${prefix}${i}`] = mode === 0 ? { type, required: true } : mode === 1 ? { type, optional: true } : mode === 2 ? { type, computed: true } : { type, optional: true, computed: true };
  }
  return out;
}

function valueFor(a: Attribute, i: number, variant: string): Value {
  const t = a.type!;
  if (t.kind === 'string') return Value.string(`v${i}${variant}`);
  if (t.kind === 'number') return Value.number(i);
  if (t.kind === 'list') return Value.list([Value.string(`a${i}`), Value.string(`b${variant}`)], T.String);
  return Value.map(new Map([['k', Value.string(`m${i}`)]]), T.String);
}

/** An object for a block: computed attributes get values only in state (`state` true), config leaves them null. */
function objectFor(b: Block, state: boolean, variant: string, nested: (name: string) => Value): Value {
  const m = new Map<string, Value>();
  let i = 0;
  for (const [k, a] of Object.entries(b.attributes)) {
    const computedOnly = a.computed && !a.optional;
    m.set(k, computedOnly && !state ? Value.null(a.type!) : valueFor(a, i, variant));
    i++;
  }
  for (const k of Object.keys(b.blockTypes)) m.set(k, nested(k));
  return Value.object(m);
}

export interface ObjchangeBenchFixture {
  schema: Block;
  prior: Value;
  config: Value;
}

export function objchangeBenchFixture(): ObjchangeBenchFixture {
  const level3: Block = { attributes: attrs('c', 3), blockTypes: {} };
  const level2: Block = { attributes: attrs('b', 5), blockTypes: { inner: { nesting: 'single', block: level3 } } };
  const level1: Block = { attributes: attrs('a', 10), blockTypes: { rule: { nesting: 'set', block: level2 } } };
  const schema: Block = { attributes: attrs('attr', 200), blockTypes: { disk: { nesting: 'list', block: level1 } } };

  const build = (state: boolean, variant: string) => {
    const l3 = () => objectFor(level3, state, variant, () => Value.null(T.Dynamic));
    const l2 = (j: number) => objectFor(level2, state, `${variant}${j}`, () => l3());
    const l2t = l2(0).type;
    const l1 = (j: number) => objectFor(level1, state, `${variant}${j}`, () => Value.set([l2(0), l2(1)], l2t));
    const l1t = l1(0).type;
    return objectFor(schema, state, variant, () => Value.list([l1(0), l1(1)], l1t));
  };
  return { schema, prior: build(true, ''), config: build(false, '') };
}

function measure(fn: () => void, iterations: number): number {
  for (let i = 0; i < Math.min(200, iterations); i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return (performance.now() - t0) / iterations;
}

/** Mean milliseconds per ProposedNew and per AssertPlanValid call (the plan is the proposed value). */
export function benchObjchange(iterations = 2000): { proposedNewMs: number; planValidMs: number } {
  const { schema, prior, config } = objchangeBenchFixture();
  const planned = proposedNew(schema, prior, config);
  const proposedNewMs = measure(() => void proposedNew(schema, prior, config), iterations);
  const planValidMs = measure(() => void assertPlanValid(schema, prior, config, planned), iterations);
  return { proposedNewMs, planValidMs };
}
