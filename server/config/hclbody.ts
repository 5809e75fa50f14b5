// Generic HCL structure built from a tree-sitter tree: bodies of attributes and blocks with exact ranges,
// before any Terraform meaning is applied (load.ts applies it, like HCL's Body.Content with a schema).
// Expressions are kept as source text + range + the static references (traversals) they contain + their
// AST from lang/parse.ts (Expression.ast), so the tree can be deleted right after loading.

import type { Range } from '../diags/diagnostic';
import type { Expr, StepRun, Traversal, TraverseStep } from '../lang/ast';
import { compactSteps, isStepRun, NONE, stepParts } from '../lang/ast';
import { internName, MAX_EXPR_DEPTH, parseExpression, references, TOO_DEEP_SUMMARY } from '../lang/parse';
import type { Diagnostic } from '../diags/diagnostic';
import { rangeSpan, rangeWithin } from '../diags/diagnostic';
import { MAX_BLOCK_DEPTH } from '../syntax/errors';
import { Value } from '../lang/value';
import type { SyntaxNode } from '../syntax/treesitter';
import { SourceText } from './source';

/** A step of a static reference: `.name` or `[literal]`. */
export type RefStep = { kind: 'attr'; name: string; range: Range } | { kind: 'index'; key: string | number; range: Range };

/** A static reference found in an expression (`var.x`, `aws_instance.a[0].id`), HCL's hcl.Traversal. */
export interface Reference {
  root: string;
  rootRange: Range;
  steps: RefStep[];
  /** The whole static traversal (root and literal steps). */
  range: Range;
}

export interface Expression {
  /** UTF-16 offset of the expression in its file's text. */
  offset: number;
  range: Range;
  /** The expression's source text. */
  text: string;
  /** Static references, in source order, excluding `for` iteration symbols. */
  refs: Reference[];
  /** Coarse kind of the expression's syntax, enough for static checks. */
  shape: 'literal' | 'string' | 'template' | 'tuple' | 'object' | 'traversal' | 'call' | 'other';
  /** For `tuple` shapes: the elements; for `object` shapes: keys and values. */
  elems?: Expression[];
  items?: { key: Expression; value: Expression }[];
  /** Name of the function for `call` shapes, and arguments. */
  callName?: string;
  args?: Expression[];
  /** For shape 'literal'/'string' without interpolation: the literal value. */
  literal?: string | number | boolean | null;
  /**
   * The expression's AST (lang/parse.ts), with ranges in this file. When the text has syntax errors (already
   * reported by the syntax check) it is an unknown literal spanning the expression.
   */
  ast: Expr;
}

export interface Attribute {
  name: string;
  nameRange: Range;
  expr: Expression;
  /** From the name to the end of the expression. */
  range: Range;
}

export interface Block {
  type: string;
  typeRange: Range;
  labels: string[];
  labelRanges: Range[];
  openBraceRange: Range;
  /** The whole block. */
  range: Range;
  /** Type and labels ("resource "a" "b""), the block's context range. */
  defRange: Range;
  body: Body;
}

export interface Body {
  attributes: Attribute[];
  blocks: Block[];
  range: Range;
  /** Range just before the closing brace (HCL's MissingItemRange for a block body). */
  endRange: Range;
}

/**
 * Builds the generic body of a parsed file (root node `config_file`). Nodes with errors are skipped, and so
 * are blocks nested deeper than MAX_BLOCK_DEPTH (the syntax check reports them). `diags` receives the
 * "Expression too deeply nested" errors of attribute expressions (other expression syntax errors are
 * reported by the syntax check).
 */
export function bodyFromTree(root: SyntaxNode, src: SourceText, diags: Diagnostic[] = []): Body {
  const bodyNode = root.namedChildren.find((c) => c?.type === 'body') ?? null;
  const end = src.range(src.text.length, src.text.length);
  if (!bodyNode) return { attributes: [], blocks: [], range: src.range(0, src.text.length), endRange: end };
  const b = bodyFromNode(bodyNode, src, 0, diags);
  b.range = src.range(0, src.text.length);
  b.endRange = end;
  return b;
}

function bodyFromNode(node: SyntaxNode, src: SourceText, depth: number, diags: Diagnostic[]): Body {
  const attributes: Attribute[] = [];
  const blocks: Block[] = [];
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (c.type === 'attribute') {
      const id = c.namedChildren.find((x) => x?.type === 'identifier');
      const e = c.namedChildren.find((x) => x?.type === 'expression');
      if (!id || !e) continue;
      const expr = expressionFromNode(e, src, 0, diags);
      attributes.push({ name: internName(id.text), nameRange: nodeRange(id, src), expr, range: src.range(c.startIndex, e.endIndex) });
    } else if (c.type === 'block') {
      if (depth >= MAX_BLOCK_DEPTH) continue;
      const blk = blockFromNode(c, src, depth + 1, diags);
      if (blk) blocks.push(blk);
    }
  }
  return { attributes, blocks, range: nodeRange(node, src), endRange: src.range(node.endIndex, node.endIndex) };
}

function blockFromNode(c: SyntaxNode, src: SourceText, depth: number, diags: Diagnostic[]): Block | undefined {
  const kids = c.children.filter((x): x is SyntaxNode => !!x);
  const id = kids[0];
  if (!id || id.type !== 'identifier') return undefined;
  const labels: string[] = [];
  const labelRanges: Range[] = [];
  let open: SyntaxNode | undefined;
  let body: SyntaxNode | undefined;
  let close: SyntaxNode | undefined;
  for (const k of kids.slice(1)) {
    if (k.type === 'string_lit') {
      labels.push(stringLitValue(k));
      labelRanges.push(nodeRange(k, src));
    } else if (k.type === 'identifier' && !open) {
      labels.push(k.text);
      labelRanges.push(nodeRange(k, src));
    } else if (k.type === 'block_start') open = k;
    else if (k.type === 'body') body = k;
    else if (k.type === 'block_end') close = k;
  }
  if (!open) return undefined;
  const openRange = nodeRange(open, src);
  const lastHeader = labelRanges.length ? labelRanges[labelRanges.length - 1] : nodeRange(id, src);
  const b: Body = body
    ? bodyFromNode(body, src, depth, diags)
    : { attributes: [], blocks: [], range: openRange, endRange: openRange };
  b.range = src.range(open.startIndex, (close ?? c).endIndex);
  const closeStart = close && !close.isMissing ? close.startIndex : c.endIndex;
  b.endRange = src.range(closeStart, closeStart);
  return {
    type: id.text,
    typeRange: nodeRange(id, src),
    labels,
    labelRanges,
    openBraceRange: openRange,
    range: nodeRange(c, src),
    defRange: rangeSpan(nodeRange(id, src), lastHeader),
    body: b,
  };
}

export function nodeRange(n: SyntaxNode, src: SourceText): Range {
  return src.range(n.startIndex, n.endIndex);
}

/** The value of a `string_lit` node (a quoted string without interpolation), with escapes applied. */
export function stringLitValue(n: SyntaxNode): string {
  let out = '';
  for (const c of n.namedChildren) {
    if (!c) continue;
    if (c.type === 'template_literal') out += c.text;
    else if (c.type === 'escape_sequence') out += unescape(c.text);
  }
  return out;
}

function unescape(s: string): string {
  switch (s) {
    case '\\n':
      return '\n';
    case '\\r':
      return '\r';
    case '\\t':
      return '\t';
    case '\\"':
      return '"';
    case '\\\\':
      return '\\';
    case '$${':
      return '${';
    case '%%{':
      return '%{';
  }
  if (s.startsWith('\\u') || s.startsWith('\\U')) return String.fromCodePoint(parseInt(s.slice(2), 16));
  return s;
}

/**
 * Builds an Expression from an `expression` node (or any expression-like node). `depth` is its nesting
 * inside the attribute's expression: element expressions are built only while the expression itself is not
 * too deeply nested (MAX_EXPR_DEPTH), and only the outermost reports "Expression too deeply nested" into
 * `diags`.
 */
export function expressionFromNode(n: SyntaxNode, src: SourceText, depth = 0, diags?: Diagnostic[], parentRefs?: Reference[]): Expression {
  const range = nodeRange(n, src);
  const text = n.text;
  let refs: Reference[] = [];
  let parsed: { expr?: Expr; diagnostics: Diagnostic[] } | undefined;
  if (parentRefs) {
    // An element of an already collected expression: its references are the parent's inside its range (the
    // parent's walk reaches the element with the same, empty, set of bound names).
    for (const r of parentRefs) if (rangeWithin(r.range, range)) refs.push(r);
  } else {
    parsed = parseExpression(text, src.filename, range.start);
    // The references of a cleanly parsed expression come from its AST (the same static traversals, without
    // walking the tree-sitter tree); otherwise from the tree.
    if (parsed.expr && parsed.diagnostics.length === 0) refs = astReferences(parsed.expr);
    else collectRefs(n, src, new Set(), refs);
  }
  let e: Expression;
  if (depth > 0) {
    // Element expressions: the AST is parsed on first use (most are never evaluated on their own). The
    // element of an expression that is not too deeply nested is not too deeply nested either.
    let ast: Expr | undefined;
    e = {
      offset: n.startIndex,
      range,
      text,
      refs,
      shape: 'other',
      get ast(): Expr {
        if (!ast) ast = parseExpression(text, src.filename, range.start).expr ?? { kind: 'literal', value: Value.unknown(), range };
        return ast;
      },
      set ast(v: Expr) {
        ast = v;
      },
    };
  } else {
    parsed ??= parseExpression(text, src.filename, range.start);
    const ast: Expr = parsed.expr ?? { kind: 'literal', value: Value.unknown(), range };
    e = { offset: n.startIndex, range, text, refs, shape: 'other', ast };
    const tooDeep = parsed.diagnostics.filter((d) => d.summary === TOO_DEEP_SUMMARY);
    if (tooDeep.length > 0) {
      diags?.push(...tooDeep);
      return e;
    }
  }
  if (depth >= MAX_EXPR_DEPTH) return e;
  const inner = unwrap(n);
  if (!inner) return e;
  switch (inner.type) {
    case 'literal_value': {
      const v = inner.namedChildren[0];
      if (v?.type === 'string_lit') {
        e.shape = 'string';
        e.literal = stringLitValue(v);
      } else if (v?.type === 'numeric_lit') {
        e.shape = 'literal';
        e.literal = Number(v.text);
      } else if (v?.type === 'bool_lit') {
        e.shape = 'literal';
        e.literal = v.text === 'true';
      } else if (v?.type === 'null_lit') {
        e.shape = 'literal';
        e.literal = null;
      }
      break;
    }
    case 'template_expr':
      e.shape = 'template';
      break;
    case 'tuple':
      e.shape = 'tuple';
      e.elems = inner.namedChildren.filter((x): x is SyntaxNode => x?.type === 'expression').map((x) => expressionFromNode(x, src, depth + 1, undefined, refs));
      break;
    case 'object':
      e.shape = 'object';
      e.items = inner.namedChildren
        .filter((x): x is SyntaxNode => x?.type === 'object_elem')
        .map((el) => {
          const k = el.childForFieldName('key');
          const v = el.childForFieldName('val');
          return { key: keyExpression(k!, src, depth + 1, refs), value: expressionFromNode(v!, src, depth + 1, undefined, refs) };
        })
        .filter((x) => x.key && x.value);
      break;
    case 'function_call': {
      e.shape = 'call';
      e.callName = inner.namedChildren[0]?.text;
      const args = inner.namedChildren.find((x) => x?.type === 'function_arguments');
      e.args = args ? args.namedChildren.filter((x): x is SyntaxNode => x?.type === 'expression').map((x) => expressionFromNode(x, src, depth + 1, undefined, refs)) : [];
      break;
    }
    case 'variable_expr':
      e.shape = 'traversal';
      break;
  }
  return e;
}

/** Static references of an AST (lang/parse.ts references), as collectRefs reports them. */
export function astReferences(e: Expr): Reference[] {
  return references(e).map(toReference);
}

/** A Traversal as a Reference: the literal steps up to the first non-literal index. */
export function toReference(t: Traversal): Reference {
  // Compact runs of attribute steps (lang/ast.ts: a traversal millions of steps long) are literal steps
  // already: they are carried over whole, without building their steps.
  const parts: (RefStep | StepRun)[] = [];
  let last = t.rootRange; // the range of the last literal step (or the root)
  let whole = true;
  for (const st of stepParts(t.steps)) {
    if (isStepRun(st)) {
      parts.push(st);
      last = st.at(st.count - 1).range;
      continue;
    }
    if (st.kind === 'attr') parts.push(st);
    else if (st.key.isKnown && !st.key.isNull && st.key.type.kind === 'string') parts.push({ kind: 'index', key: st.key.str, range: st.range });
    else if (st.key.isKnown && !st.key.isNull && st.key.type.kind === 'number') parts.push({ kind: 'index', key: Number(st.key.num.toString()), range: st.range });
    else {
      whole = false;
      break;
    }
    last = st.range;
  }
  // Attribute steps only (the usual `var.x`, `aws_instance.a.id`): the traversal's own steps array is shared,
  // which the AST keeps anyway; otherwise a copy of exactly the parts' length (push reserves 16 slots).
  let steps: RefStep[];
  if (parts.length === t.steps.length && parts.every((p, i) => p === t.steps[i])) steps = t.steps as RefStep[];
  else if (parts.some((p) => isStepRun(p as TraverseStep | StepRun))) steps = compactSteps(parts as (TraverseStep | StepRun)[]) as RefStep[];
  else steps = parts.slice() as RefStep[];
  // A traversal of attribute steps only is its own reference (the same four fields, the steps shared): one object
  // instead of two (20,000 fewer in the bench's loaded model of 5,000 resources). Neither is modified once parsed.
  if (whole && steps === t.steps) return t as Reference;
  // A traversal taken whole (every step literal) is its reference's range (the same end); checks.ts refsOf
  // recognises such references by that identity and reuses them.
  const range = whole ? t.range : rangeSpan(t.rootRange, last);
  return { root: t.root, rootRange: t.rootRange, steps, range };
}

/** An object key as an Expression; a bare identifier key has its name as its only reference (not the parent's). */
function keyExpression(k: SyntaxNode, src: SourceText, depth: number, parentRefs: Reference[]): Expression {
  const kids = k.namedChildren;
  const bare = kids.length === 1 && kids[0]?.type === 'variable_expr';
  if (!bare) return expressionFromNode(k, src, depth, undefined, parentRefs);
  const v = kids[0]!;
  const vr = nodeRange(v, src);
  return expressionFromNode(k, src, depth, undefined, [{ root: internName(v.text), rootRange: vr, steps: NONE, range: vr }]);
}

/** The single meaningful child of an expression node: the node itself when it is not an `expression`. */
function unwrap(n: SyntaxNode): SyntaxNode | undefined {
  let cur = n;
  for (;;) {
    if (cur.type !== 'expression' && cur.type !== 'collection_value') return cur;
    const kids = cur.namedChildren.filter((x): x is SyntaxNode => !!x && x.type !== 'comment');
    if (kids.length === 1) {
      cur = kids[0];
      continue;
    }
    if (kids.length > 1 && kids[0].type === 'variable_expr' && kids.slice(1).every((k) => k.type === 'get_attr' || k.type === 'index'))
      return kids[0];
    // parenthesised: "(" expression ")"
    if (cur.childCount === 3 && cur.child(0)?.type === '(' && kids.length === 1) {
      cur = kids[0];
      continue;
    }
    return undefined;
  }
}

/**
 * The static references under `root`, in source order, skipping names bound by enclosing `for` expressions.
 * Iterative (an explicit stack of pending nodes), since expression trees can be 10,000s of nodes deep.
 */
function collectRefs(root: SyntaxNode, src: SourceText, bound0: Set<string>, out: Reference[]): void {
  type Pending = { n: SyntaxNode; bound: Set<string>; ref?: Reference };
  const stack: Pending[] = [{ n: root, bound: bound0 }];
  while (stack.length > 0) {
    const { n, bound, ref } = stack.pop()!;
    if (ref) {
      out.push(ref);
      continue;
    }
    // Children are pushed in reverse so that they are visited in source order.
    const later: Pending[] = [];
    if (n.type === 'for_tuple_expr' || n.type === 'for_object_expr') {
      const intro = n.namedChildren.find((x) => x?.type === 'for_intro');
      const names = new Set(bound);
      if (intro) {
        const ids = intro.namedChildren.filter((x): x is SyntaxNode => x?.type === 'identifier');
        const coll = intro.namedChildren.find((x) => x?.type === 'expression');
        if (coll) later.push({ n: coll, bound });
        for (const id of ids) names.add(id.text);
      }
      for (const c of n.namedChildren) if (c && c.type !== 'for_intro') later.push({ n: c, bound: names });
    } else if (n.type === 'object_elem') {
      // A bare identifier key (`name = ...`) is the string "name", not a reference.
      const key = n.childForFieldName('key');
      const val = n.childForFieldName('val');
      const bare = key && key.namedChildren.length === 1 && key.namedChildren[0]?.type === 'variable_expr';
      if (key && !bare) later.push({ n: key, bound });
      if (val) later.push({ n: val, bound });
    } else {
      // A traversal lives in a node whose children are variable_expr followed by get_attr/index/splat steps.
      const kids = n.namedChildren.filter((x): x is SyntaxNode => !!x);
      for (let i = 0; i < kids.length; i++) {
        const k = kids[i];
        if (k.type === 'variable_expr') {
          const root = k.text;
          const steps: RefStep[] = [];
          let end = k.endIndex;
          let j = i + 1;
          for (; j < kids.length; j++) {
            const s = kids[j];
            if (s.type === 'get_attr') {
              const id = s.namedChildren.find((x) => x?.type === 'identifier');
              if (!id) break;
              steps.push({ kind: 'attr', name: internName(id.text), range: nodeRange(s, src) });
              end = s.endIndex;
            } else if (s.type === 'index') {
              const key = literalIndexKey(s);
              if (key === undefined) break;
              steps.push({ kind: 'index', key, range: nodeRange(s, src) });
              end = s.endIndex;
            } else break;
          }
          // The reference is reported when its turn comes in source order.
          if (!bound.has(root)) later.push({ n: k, bound, ref: { root, rootRange: nodeRange(k, src), steps, range: src.range(k.startIndex, end) } });
          continue;
        }
        later.push({ n: k, bound });
      }
    }
    for (let k = later.length - 1; k >= 0; k--) stack.push(later[k]);
  }
}

function literalIndexKey(s: SyntaxNode): string | number | undefined {
  const inner = s.namedChildren[0];
  if (!inner) return undefined;
  if (inner.type === 'legacy_index') return Number(inner.text.slice(1));
  const e = inner.namedChildren.find((x) => x?.type === 'expression');
  if (!e) return undefined;
  const lit = e.namedChildren.length === 1 ? e.namedChildren[0] : null;
  if (lit?.type !== 'literal_value') return undefined;
  const v = lit.namedChildren[0];
  if (v?.type === 'numeric_lit') return Number(v.text);
  if (v?.type === 'string_lit') return stringLitValue(v);
  return undefined;
}

/** HCL's traversal text: root.attr[0]["k"]. */
export function refString(r: Reference): string {
  let s = r.root;
  for (const st of r.steps) s += st.kind === 'attr' ? `.${st.name}` : typeof st.key === 'number' ? `[${st.key}]` : `[${JSON.stringify(st.key)}]`;
  return s;
}
