// Files too large for tree-sitter within the language server's parse budget (megabytes, often on a single
// line): read with lang/parse.ts's own HCL body parser, which is linear in the text, instead of being dropped.
//
// Contract: largeFile(text, display, src, budgetMs) never throws. A file without syntax errors gets the same
// generic body (config/hclbody.ts Body) and diagnostic contexts the tree-sitter path gives: the same ranges,
// texts, references, shapes, literals and lazily parsed element ASTs (test/fuzz/large.test.ts compares both
// paths on the repository's configurations). A file with syntax errors gets the hand-written checker's
// diagnostics (errors.ts), an empty body and the "File too large to analyse fully" warning.
// config/load.ts calls it for a file predicted to blow the budget (overBudget) and after a parse that did.

import type { Diagnostic, Range } from '../diags/diagnostic';
import { rangeSpan } from '../diags/diagnostic';
import type { Expr } from '../lang/ast';
import { NONE } from '../lang/ast';
import { MAX_EXPR_DEPTH, parseConfigBody, parseExpression, type RawBlock, type RawItem } from '../lang/parse';
import { Value } from '../lang/value';
import type { Attribute, Block, Body, Expression, Reference } from '../config/hclbody';
import { astReferences } from '../config/hclbody';
import type { SourceText } from '../config/source';
import { analyzeSyntax } from './errors';
import { tooLargeWarning } from './treesitter';

/**
 * Characters tree-sitter reads per millisecond on an idle machine (about 0.6 MB/s). A file longer than the
 * budget allows at this speed cannot be parsed within it, so it is not tried.
 */
const TREE_SITTER_CHARS_PER_MS = 600;

/** True when tree-sitter cannot parse `text` within `budgetMs` even on an idle machine. */
export function overBudget(text: string, budgetMs: number | undefined): boolean {
  return budgetMs !== undefined && text.length > budgetMs * TREE_SITTER_CHARS_PER_MS;
}

export interface LargeFile {
  diagnostics: Diagnostic[];
  contexts: { range: Range; text: string }[];
  body: Body;
  /** False when the file had syntax errors: only they are reported, and the body is empty. */
  complete: boolean;
}

export function largeFile(text: string, display: string, src: SourceText, budgetMs: number): LargeFile {
  try {
    const parsed = parseConfigBody(text, display);
    if (parsed.items) {
      const b = new Builder(src, parsed.spans);
      const body = b.body(parsed.items, true);
      const contexts = parsed.items.filter((it): it is RawBlock => it.kind === 'block').map((blk) => b.context(blk));
      return { diagnostics: [], contexts, body, complete: true };
    }
    return partial(text, display, src, budgetMs, parsed.diagnostics);
  } catch (e) {
    if (!(e instanceof Unsure)) throw e;
    return partial(text, display, src, budgetMs, []);
  }
}

/** Syntax errors as the hand-written checker reports them (or the parser's first, if the checker saw none). */
function partial(text: string, display: string, src: SourceText, budgetMs: number, parseDiags: Diagnostic[]): LargeFile {
  const syn = analyzeSyntax(text, display);
  const diagnostics = syn.diagnostics.length > 0 ? syn.diagnostics : parseDiags.slice(0, 1);
  diagnostics.push(tooLargeWarning(display, text, budgetMs));
  const end = src.range(text.length, text.length);
  return { diagnostics, contexts: syn.blocks, body: { attributes: [], blocks: [], range: src.range(0, text.length), endRange: end }, complete: false };
}

/** A construct this module does not build exactly as the tree-sitter path would; the file is then partial. */
class Unsure {}

class Builder {
  constructor(
    private readonly src: SourceText,
    private readonly spans: Map<Expr, [number, number]>,
  ) {}

  private range(a: number, b: number): Range {
    return this.src.range(a, b);
  }

  body(items: RawItem[], file: boolean): Body {
    const attributes: Attribute[] = [];
    const blocks: Block[] = [];
    for (const it of items) {
      if (it.kind === 'attribute') {
        const expr = this.top(it.expr, it.exprStart, it.exprEnd);
        attributes.push({ name: it.name, nameRange: this.range(it.nameStart, it.nameEnd), expr, range: this.range(it.nameStart, it.exprEnd) });
      } else blocks.push(this.block(it));
    }
    const n = this.src.text.length;
    // A block's range and endRange are set by block().
    return { attributes, blocks, range: file ? this.range(0, n) : (undefined as never), endRange: file ? this.range(n, n) : (undefined as never) };
  }

  private block(it: RawBlock): Block {
    const labels = it.labels.map((l) => (l.quoted ? stringLitText(this.src.text.slice(l.start + 1, l.end - 1)) : l.value));
    const labelRanges = it.labels.map((l) => this.range(l.start, l.end));
    const typeRange = this.range(it.typeStart, it.typeEnd);
    const body = this.body(it.body, false);
    body.range = this.range(it.openStart, it.closeEnd);
    body.endRange = this.range(it.closeStart, it.closeStart);
    const lastHeader = labelRanges.length ? labelRanges[labelRanges.length - 1] : typeRange;
    return {
      type: it.type,
      typeRange,
      labels,
      labelRanges,
      openBraceRange: this.range(it.openStart, it.openEnd),
      range: this.range(it.typeStart, it.closeEnd),
      defRange: rangeSpan(typeRange, lastHeader),
      body,
    };
  }

  /** A top-level block as a diagnostic context (errors.ts's header text and range). */
  context(it: RawBlock): { range: Range; text: string } {
    const header = [it.type, ...it.labels.map((l) => (l.quoted ? this.src.text.slice(l.start, l.end) : JSON.stringify(l.value)))];
    return { text: header.join(' '), range: this.range(it.typeStart, it.closeEnd) };
  }

  /** An attribute's expression (hclbody expressionFromNode at depth 0). */
  private top(ast: Expr, start: number, end: number): Expression {
    const range = this.range(start, end);
    const refs = astReferences(ast);
    const e: Expression = { offset: start, range, text: this.src.text.slice(start, end), refs, shape: 'other', ast };
    this.shape(e, ast, 0, refs);
    return e;
  }

  /** An element (expressionFromNode at depth > 0): `refs` are the parent's inside it; its AST is parsed on first use, as there. */
  private element(x: Expr, depth: number, refs: Reference[]): Expression {
    const [start, end] = this.span(x);
    const range = this.range(start, end);
    const text = this.src.text.slice(start, end);
    const filename = this.src.filename;
    let ast: Expr | undefined;
    const e: Expression = {
      offset: start,
      range,
      text,
      refs,
      shape: 'other',
      get ast(): Expr {
        if (!ast) ast = parseExpression(text, filename, range.start).expr ?? { kind: 'literal', value: Value.unknown(), range };
        return ast;
      },
      set ast(v: Expr) {
        ast = v;
      },
    };
    this.shape(e, x, depth, refs);
    return e;
  }

  private span(x: Expr): [number, number] {
    const s = this.spans.get(x);
    if (!s) throw new Unsure();
    return s;
  }

  /** Shape, literal, elems, items, callName and args as hclbody.ts derives them from tree-sitter's nodes. */
  private shape(e: Expression, x: Expr, depth: number, refs: Reference[]): void {
    if (depth >= MAX_EXPR_DEPTH) return;
    let inner = x;
    while (inner.kind === 'paren') inner = inner.expr;
    const [start, end] = this.span(inner);
    const text = this.src.text;
    switch (inner.kind) {
      case 'literal': {
        // tree-sitter reads `-1` as a unary operation on 1, not as a literal.
        if (text.charCodeAt(start) === 45) return;
        const v = inner.value;
        e.shape = 'literal';
        e.literal = v.isNull ? null : v.type.kind === 'bool' ? v.bool : v.type.kind === 'number' ? Number(text.slice(start, end)) : unsure();
        return;
      }
      case 'template':
        if (text.charCodeAt(start) === 34 && inner.parts.every((p) => p.kind === 'literal')) {
          e.shape = 'string';
          e.literal = stringLitText(text.slice(start + 1, end - 1));
        } else e.shape = 'template';
        return;
      case 'templateWrap':
        e.shape = 'template';
        return;
      case 'tuple': {
        e.shape = 'tuple';
        const within = distribute(refs, inner.elems.map((el) => this.span(el)), this.src);
        e.elems = inner.elems.map((el, i) => this.element(el, depth + 1, within[i]));
        return;
      }
      case 'object': {
        e.shape = 'object';
        const parts: Expr[] = [];
        for (const it of inner.items) parts.push(it.key, it.value);
        const within = distribute(refs, parts.map((p) => this.span(p)), this.src);
        e.items = inner.items.map((it, i) => {
          let key: Expression;
          const name = it.key.kind === 'scopeTraversal' ? it.key.traversal.root : '';
          if (it.keyIsIdent && (name === 'true' || name === 'false' || name === 'null')) {
            // tree-sitter reads these keys as literals, not as bare names.
            key = this.element(it.key, depth + 1, within[2 * i]);
            key.shape = 'literal';
            key.literal = name === 'null' ? null : name === 'true';
          } else if (it.keyIsIdent && it.key.kind === 'scopeTraversal') {
            const r = it.key.range;
            key = this.element(it.key, depth + 1, [{ root: name, rootRange: r, steps: NONE, range: r }]);
          } else key = this.element(it.key, depth + 1, within[2 * i]);
          return { key, value: this.element(it.value, depth + 1, within[2 * i + 1]) };
        });
        return;
      }
      case 'call': {
        e.shape = 'call';
        e.callName = inner.name;
        const within = distribute(refs, inner.args.map((a) => this.span(a)), this.src);
        e.args = inner.args.map((a, i) => this.element(a, depth + 1, within[i]));
        return;
      }
      case 'scopeTraversal':
        e.shape = 'traversal';
        return;
      case 'relTraversal':
      case 'index': {
        // A traversal as tree-sitter has it: a name followed by attribute and index steps only.
        let y: Expr = inner;
        while (y.kind === 'relTraversal' || y.kind === 'index') y = y.kind === 'relTraversal' ? y.source : y.collection;
        if (y.kind === 'scopeTraversal') e.shape = 'traversal';
        return;
      }
    }
  }
}

function unsure(): never {
  throw new Unsure();
}

/**
 * The references of `refs` inside each of `spans` (disjoint, in source order), as hclbody's per-element
 * filter finds them; one pass when the references are in source order (they are: HCL's Variables() walk).
 */
function distribute(refs: Reference[], spans: [number, number][], src: SourceText): Reference[][] {
  const out: Reference[][] = spans.map(() => []);
  if (refs.length === 0) return out;
  const bytes = spans.map(([a, b]) => [src.pos(a).byte, src.pos(b).byte]);
  let sorted = true;
  for (let k = 1; k < refs.length && sorted; k++) if (refs[k].range.start.byte < refs[k - 1].range.start.byte) sorted = false;
  if (!sorted) {
    bytes.forEach(([a, b], i) => {
      for (const r of refs) if (r.range.start.byte >= a && r.range.end.byte <= b) out[i].push(r);
    });
    return out;
  }
  let j = 0;
  for (let i = 0; i < bytes.length; i++) {
    const [a, b] = bytes[i];
    while (j < refs.length && refs[j].range.start.byte < a) j++;
    for (let k = j; k < refs.length && refs[k].range.start.byte < b; k++) if (refs[k].range.end.byte <= b) out[i].push(refs[k]);
  }
  return out;
}

/**
 * The value hclbody.ts's stringLitValue gives a quoted string without interpolation: tree-sitter's
 * template_literal text, i.e. the raw text between the quotes (escapes not decoded) without the spaces and
 * tabs at either end, which its grammar skips. Strings it would read otherwise are left partial.
 */
function stringLitText(inner: string): string {
  const v = inner.replace(/^[ \t]+|[ \t]+$/g, '');
  if (v.length > 0 && (/^\s/.test(v) || /\s$/.test(v))) unsure();
  return v;
}
