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
