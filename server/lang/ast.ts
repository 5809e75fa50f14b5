// The expression AST of Terraform's native (HCL) syntax, produced by parse.ts and evaluated by eval.ts.
//
// Every node carries the Range of its source text. Template directives are lowered the way HCL lowers
// them: `%{if}` becomes a `conditional` whose branches are templates, `%{for}` a `templateJoin` over a
// tuple `for` expression. Strip markers (`~`) are applied at parse time by trimming neighbouring literals.

import type { Range } from '../diags/diagnostic';
import type { Value } from './value';

/** One step after the root of a traversal: `.name` or `[key]` with a literal key. */
export type TraverseStep =
  | { kind: 'attr'; name: string; range: Range }
  | { kind: 'index'; key: Value; range: Range };

/** A static reference: root name plus literal steps (var.x, aws_instance.a[0].id, count.index). */
export interface Traversal {
  root: string;
  rootRange: Range;
  steps: TraverseStep[];
  range: Range;
}

export interface ObjectItem {
  key: Expr;
  /** True when the key was written as a bare identifier (`a = 1`), which means the string "a". */
  keyIsIdent: boolean;
  value: Expr;
}

export type Expr =
  | { kind: 'literal'; value: Value; range: Range }
  /** A template of several parts; each part's value is converted to string and concatenated. */
  | { kind: 'template'; parts: Expr[]; range: Range }
  /** A template holding exactly one interpolation ("${x}"): evaluates to x's value unconverted. */
  | { kind: 'templateWrap'; wrapped: Expr; range: Range }
  /** The lowered `%{for}` directive: joins the string elements of a tuple. */
  | { kind: 'templateJoin'; tuple: Expr; range: Range }
  | { kind: 'scopeTraversal'; traversal: Traversal; range: Range }
  /** Literal attribute/index steps applied to the result of any expression. */
  | { kind: 'relTraversal'; source: Expr; steps: TraverseStep[]; range: Range }
  | { kind: 'index'; collection: Expr; key: Expr; range: Range; bracketRange: Range }
  /** `source[*].each` or `source.*.each`; `each` is evaluated once per element with `anonSymbol` bound to it. */
  | { kind: 'splat'; source: Expr; each: Expr; range: Range; markerRange: Range }
  | { kind: 'anonSymbol'; range: Range }
  | {
      kind: 'call';
      name: string;
      args: Expr[];
      expandFinal: boolean;
      nameRange: Range;
      openParenRange: Range;
      closeParenRange: Range;
      range: Range;
    }
  | { kind: 'conditional'; cond: Expr; trueExpr: Expr; falseExpr: Expr; range: Range }
  | { kind: 'unary'; op: '!' | '-'; operand: Expr; range: Range }
  | { kind: 'binary'; op: BinaryOp; lhs: Expr; rhs: Expr; range: Range }
  | { kind: 'tuple'; elems: Expr[]; range: Range; openRange: Range }
  | { kind: 'object'; items: ObjectItem[]; range: Range; openRange: Range }
  | {
      kind: 'for';
      keyVar?: string;
      valVar: string;
      collection: Expr;
      keyExpr?: Expr;
      valExpr: Expr;
      cond?: Expr;
      group: boolean;
      range: Range;
      openRange: Range;
      closeRange: Range;
    }
  | { kind: 'paren'; expr: Expr; range: Range };

export type BinaryOp = '||' | '&&' | '==' | '!=' | '<' | '>' | '<=' | '>=' | '+' | '-' | '*' | '/' | '%';

/** Calls `f` on each direct child expression of `e`. */
export function forEachChild(e: Expr, f: (c: Expr) => void): void {
  switch (e.kind) {
    case 'literal':
    case 'scopeTraversal':
    case 'anonSymbol':
      return;
    case 'template':
      e.parts.forEach(f);
      return;
    case 'templateWrap':
      f(e.wrapped);
      return;
    case 'templateJoin':
      f(e.tuple);
      return;
    case 'relTraversal':
      f(e.source);
      return;
    case 'index':
      f(e.collection);
      f(e.key);
      return;
    case 'splat':
      f(e.source);
      f(e.each);
      return;
    case 'call':
      e.args.forEach(f);
      return;
    case 'conditional':
      f(e.cond);
      f(e.trueExpr);
      f(e.falseExpr);
      return;
    case 'unary':
      f(e.operand);
      return;
    case 'binary':
      f(e.lhs);
      f(e.rhs);
      return;
    case 'tuple':
      e.elems.forEach(f);
      return;
    case 'object':
      for (const it of e.items) {
        f(it.key);
        f(it.value);
      }
      return;
    case 'for':
      f(e.collection);
      if (e.keyExpr) f(e.keyExpr);
      f(e.valExpr);
      if (e.cond) f(e.cond);
      return;
    case 'paren':
      f(e.expr);
      return;
  }
}

// ---- compact steps -------------------------------------------------------------------------------------
//
// A traversal written as one long chain of attribute steps (`a.b.b.b...`, millions of steps on a single
// 5 MB line) would cost several objects per step for as long as its AST lives. The parser stores such runs
// compactly instead (a StepRun builds its step i when asked), and the steps array is a Proxy over them: it
// is an array to every reader (Array.isArray, length, indexing, iteration, the array methods), and `slice`
// gives another compact view rather than building the steps. Short chains are plain arrays, as always.

/** A run of `count` steps stored compactly; `at(i)` builds step i. */
export interface StepRun {
  readonly count: number;
  at(i: number): TraverseStep;
}

/** Runs shorter than this are stored as plain step objects. */
export const COMPACT_RUN_MIN = 512;

class CompactSteps {
  /** The parts in order: single steps and runs; starts[k] is the index of part k's first step. */
  readonly parts: (TraverseStep | StepRun)[] = [];
  readonly starts: number[] = [];
  total = 0;
  readonly target: TraverseStep[] = [];
  append(p: TraverseStep | StepRun): void {
    this.parts.push(p);
    this.starts.push(this.total);
    this.total += isRun(p) ? p.count : 1;
  }
  at(i: number): TraverseStep {
    const s = this.starts;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    const p = this.parts[lo];
    return isRun(p) ? p.at(i - s[lo]) : p;
  }
  /** Steps [a, b) as parts (runs are narrowed by views). */
  sliceParts(a: number, b: number): (TraverseStep | StepRun)[] {
    const out: (TraverseStep | StepRun)[] = [];
    for (let k = 0; k < this.parts.length; k++) {
      const p = this.parts[k];
      const from = this.starts[k];
      const n = isRun(p) ? p.count : 1;
      const lo = Math.max(a, from);
      const hi = Math.min(b, from + n);
      if (lo >= hi) continue;
      if (!isRun(p)) out.push(p);
      else if (lo === from && hi === from + n) out.push(p);
      else out.push(runView(p, lo - from, hi - lo));
    }
    return out;
  }
}

function isRun(p: TraverseStep | StepRun): p is StepRun {
  return typeof (p as StepRun).at === 'function';
}

function runView(r: StepRun, offset: number, count: number): StepRun {
  return { count, at: (i) => r.at(offset + i) };
}

const compactOf = new WeakMap<readonly TraverseStep[], CompactSteps>();

function indexOf(prop: string | symbol, total: number): number {
  if (typeof prop !== 'string' || prop.length === 0) return -1;
  const c = prop.charCodeAt(0);
  if (c < 48 || c > 57) return -1;
  const i = Number(prop);
  return Number.isInteger(i) && i < total && String(i) === prop ? i : -1;
}

/** A steps array over `parts`, compact when a part is a run. */
export function compactSteps(parts: (TraverseStep | StepRun)[]): TraverseStep[] {
  if (!parts.some(isRun)) return parts as TraverseStep[];
  const c = new CompactSteps();
  for (const p of parts) c.append(p);
  const proxy = new Proxy(c.target, {
    get(target, prop, receiver) {
      const i = indexOf(prop, c.total);
      if (i >= 0) return c.at(i);
      // (The target's own length stays 0: setting it to millions would allocate that many holes.)
      if (prop === 'length') return c.total;
      if (prop === 'slice') {
        return (a?: number, b?: number) => {
          const n = c.total;
          const lo = a === undefined ? 0 : a < 0 ? Math.max(n + a, 0) : Math.min(a, n);
          const hi = b === undefined ? n : b < 0 ? Math.max(n + b, 0) : Math.min(b, n);
          return compactSteps(c.sliceParts(lo, Math.max(lo, hi)));
        };
      }
      if (prop === 'push') {
        return (...steps: TraverseStep[]) => {
          for (const s of steps) c.append(s);
          return c.total;
        };
      }
      return Reflect.get(target, prop, receiver);
    },
    has(target, prop) {
      return indexOf(prop, c.total) >= 0 || Reflect.has(target, prop);
    },
    getOwnPropertyDescriptor(target, prop) {
      const i = indexOf(prop, c.total);
      if (i >= 0) return { value: c.at(i), writable: true, enumerable: true, configurable: true };
      if (prop === 'length') return { value: c.total, writable: true, enumerable: false, configurable: false };
      return Reflect.getOwnPropertyDescriptor(target, prop);
    },
    ownKeys(target) {
      const keys: (string | symbol)[] = [];
      for (let i = 0; i < c.total; i++) keys.push(String(i));
      return [...keys, ...Reflect.ownKeys(target)];
    },
  });
  compactOf.set(proxy, c);
  return proxy;
}

/** Appends a step or a run to a steps array; returns the array to use from now on (it may be new). */
export function appendSteps(steps: TraverseStep[], p: TraverseStep | StepRun): TraverseStep[] {
  const c = compactOf.get(steps);
  if (c) {
    c.append(p);
    return steps;
  }
  if (!isRun(p)) {
    steps.push(p);
    return steps;
  }
  return compactSteps([...steps, p]);
}

/**
 * The one empty array of the model's lists (exact's result for none; a key's steps): a model of 5,000 resources had
 * about 100,000 empty arrays of its own. Frozen, so code that would add to a list it did not build fails at once.
 */
export const NONE = Object.freeze([]) as never[];

/**
 * `a` without spare capacity. Arrays grown by push (or filled by filter) reserve 16 slots for their first element;
 * ASTs and the bodies built from them live as long as their configuration is open, so theirs are trimmed.
 */
export function exact<T>(a: T[]): T[] {
  return a.length === 0 ? NONE : a.slice();
}

/** `steps` without spare capacity: a copy of exactly its length (the same array when empty or compact). */
export function trimSteps(steps: TraverseStep[]): TraverseStep[] {
  return steps.length === 0 || compactOf.has(steps) ? steps : steps.slice();
}

/** The parts of a steps array: its single steps, and its runs when it is compact (for linear walks that can skip runs). */
export function stepParts(steps: readonly TraverseStep[]): readonly (TraverseStep | StepRun)[] {
  return compactOf.get(steps)?.parts ?? steps;
}

export { isRun as isStepRun };
