// Generic bodies (hclbody.ts Body) built without a tree-sitter tree, for files the hand-written syntax check
// (syntax/errors.ts) finds free of errors: the checker's structure gives the blocks, labels and attribute
// expression extents, lang/parse.ts parses each attribute's expression, and a small token walk gives the
// coarse shapes (tuple elements, object items, call arguments) exactly as hclbody.ts derives them from
// tree-sitter nodes: the same ranges, texts, references, literals and lazily parsed element ASTs.
//
// This is the cold path's fast lane: tree-sitter's parse and the walk over its nodes across the WebAssembly
// boundary cost several times more than everything here. Anything this module is not sure to build exactly as
// the tree-sitter path would (parse diagnostics, heredocs closed with trailing blanks, `$$`/`%%` escapes,
// labels with templates, `::` function names, odd number tokens) makes it return undefined, and the caller
// takes the tree-sitter path. test/config/fastbody.test.ts compares both paths on every configuration in the
// repository's corpora and on mutations of them.

import type { Diagnostic } from '../diags/diagnostic';
import { rangeSpan, rangeWithin } from '../diags/diagnostic';
import type { Expr, ObjectItem } from '../lang/ast';
import { exact, NONE } from '../lang/ast';
import { internName, MAX_EXPR_DEPTH, parseExpression } from '../lang/parse';
import { Value } from '../lang/value';
import type { SynItem, SynStructure, Tok } from '../syntax/errors';
import { MAX_BLOCK_DEPTH } from '../syntax/errors';
import type { Attribute, Block, Body, Expression, Reference } from './hclbody';
import { astReferences } from './hclbody';
import type { SourceText } from './source';

/** A quoted string of printable ASCII without a quote, backslash, `$` or `%`: no escapes, no template sequences. */
const PLAIN_QUOTED = /^"[\x20\x21\x23\x26-\x5b\x5d-\x7e]+"$/;

/** Thrown (and caught in fastBody) when the file needs the tree-sitter path. */
class Unsure extends Error {}

function unsure(): never {
  throw new Unsure();
}

/**
 * The body of a file from its syntax structure, or undefined when the tree-sitter path must build it.
 * `diags` would receive "Expression too deeply nested" errors; a file with any is left to the other path.
 */
export function fastBody(st: SynStructure, src: SourceText, _diags: Diagnostic[] = []): Body | undefined {
  // Text with a lone UTF-16 surrogate (never read from a file, only possible in unsaved editor text) counts its
  // columns as tree-sitter's UTF-8 transcoding does: left to the tree-sitter path.
  if (treeSitterRejects(src.text) || LONE_SURROGATE.test(src.text)) return undefined;
  try {
    const b = new Builder(st.toks, src);
    const body = b.body(st.items, 0);
    body.range = src.range(0, src.text.length);
    body.endRange = src.range(src.text.length, src.text.length);
    return body;
  } catch (e) {
    if (e instanceof Unsure) return undefined;
    throw e;
  }
}

class Builder {
  private readonly text: string;
  constructor(
    private readonly toks: Tok[],
    private readonly src: SourceText,
  ) {
    this.text = src.text;
  }

  body(items: SynItem[], depth: number): Body {
    const attributes: Attribute[] = [];
    const blocks: Block[] = [];
    for (const it of items) {
      if (it.kind === 'attr') {
        const expr = this.topExpression(it.first, it.last);
        attributes.push({ name: internName(it.name.text), nameRange: this.range(it.name.start, it.name.end), expr, range: this.range(it.name.start, expr.offset + expr.text.length) });
      } else {
        if (depth >= MAX_BLOCK_DEPTH) unsure();
        blocks.push(this.block(it, depth + 1));
      }
    }
    // Range and endRange are set by the caller (block or file).
    return { attributes: exact(attributes), blocks: exact(blocks), range: undefined as never, endRange: undefined as never };
  }

  block(it: Extract<SynItem, { kind: 'block' }>, depth: number): Block {
    const labels: string[] = [];
    const labelRanges = [];
    for (const l of it.labels) {
      if (l.kind === 'string') {
        if (!l.text.startsWith('"') || !l.text.endsWith('"') || l.text.length < 2 || hasTemplateSyntax(l.text)) unsure();
        labels.push(stringLitText(l.text));
      } else labels.push(l.text);
      labelRanges.push(this.range(l.start, l.end));
    }
    const body = this.body(it.items, depth);
    body.range = this.range(it.open.start, it.close.end);
    body.endRange = this.range(it.close.start, it.close.start);
    const typeRange = this.range(it.id.start, it.id.end);
    const lastHeader = labelRanges.length ? labelRanges[labelRanges.length - 1] : typeRange;
    return {
      type: it.id.text,
      typeRange,
      labels: exact(labels),
      labelRanges: exact(labelRanges),
      openBraceRange: this.range(it.open.start, it.open.end),
      range: this.range(it.id.start, it.close.end),
      defRange: rangeSpan(typeRange, lastHeader),
      body,
    };
  }

  private range(a: number, b: number) {
    return this.src.range(a, b);
  }

  /** The end of a token as tree-sitter's node ends (a heredoc ends at its closing marker). */
  private tokEnd(t: Tok): number {
    if (t.kind === 'string' && t.text.startsWith('<<')) {
      const c = this.text.charCodeAt(t.end - 1);
      if (c === 32 || c === 9 || c === 13) unsure();
    }
    return t.end;
  }

  /** An attribute's expression (hclbody expressionFromNode at depth 0). */
  topExpression(first: number, last: number): Expression {
    if (last < first) unsure();
    const start = this.toks[first].start;
    const end = this.tokEnd(this.toks[last]);
    const range = this.range(start, end);
    const text = this.text.slice(start, end);
    const tk = this.toks[first];
    if (first === last && tk.kind === 'string' && PLAIN_QUOTED.test(tk.text)) {
      // A quoted string of plain ASCII (no escapes, no template sequences): the AST parsing would give, built
      // directly (the most common attribute value; parsing each alone cost ~25 µs).
      const inner = this.range(start + 1, end - 1);
      const lit: Expr = { kind: 'template', parts: [{ kind: 'literal', value: Value.string(tk.text.slice(1, -1)), range: inner }], range: inner };
      const e: Expression = { offset: start, range, text, refs: [], shape: 'other', ast: lit };
      this.shape(e, first, last, 0, e.refs, lit);
      return e;
    }
    const parsed = parseExpression(text, this.src.filename, undefined, { source: this.src, offset: start });
    if (!parsed.expr || parsed.diagnostics.length > 0) unsure();
    const refs = astReferences(parsed.expr);
    const e: Expression = { offset: start, range, text, refs, shape: 'other', ast: parsed.expr };
    this.shape(e, first, last, 0, refs, parsed.expr);
    return e;
  }

  /**
   * An element expression (expressionFromNode at depth > 0): the parent's references inside its range. Its AST
   * is `known` (the parent AST's node for it, which is what parsing its text gives) when there is one, else
   * parsed on first use as the tree path does.
   */
  private element(first: number, last: number, depth: number, parentRefs: Reference[], known: Expr | undefined, keyRef?: Reference): Expression {
    const start = this.toks[first].start;
    const end = this.tokEnd(this.toks[last]);
    const range = this.range(start, end);
    const text = this.text.slice(start, end);
    const refs = keyRef ? [keyRef] : exact(parentRefs.filter((r) => rangeWithin(r.range, range)));
    // Newlines are insignificant inside the parent's brackets but not in the element's text parsed alone:
    // such an element's AST is whatever parsing its text gives, as on the tree path.
    if (known) for (let k = first; k <= last; k++) if (this.toks[k].kind === 'nl') known = undefined;
    if (known) {
      // A plain data property: accessor pairs on object literals cost a dictionary-mode object each.
      const e: Expression = { offset: start, range, text, refs, shape: 'other', ast: known };
      this.shape(e, first, last, depth, refs, known);
      return e;
    }
    const src = this.src;
    let ast: Expr | undefined;
    const e: Expression = {
      offset: start,
      range,
      text,
      refs,
      shape: 'other',
      get ast(): Expr {
        if (!ast) ast = parseExpression(text, src.filename, undefined, { source: src, offset: start }).expr ?? { kind: 'literal', value: Value.unknown(), range };
        return ast;
      },
      set ast(v: Expr) {
        ast = v;
      },
    };
    this.shape(e, first, last, depth, refs, undefined);
    return e;
  }

  /** Index of the token closing the bracket opened at `i` (same-kind nesting; tokens are balanced here). */
  private matching(i: number, last: number): number {
    const open = this.toks[i].kind;
    const close = open === 'obrack' ? 'cbrack' : open === 'ocurly' ? 'ccurly' : 'cparen';
    let level = 0;
    for (let k = i; k <= last; k++) {
      const kind = this.toks[k].kind;
      if (kind === 'obrack' || kind === 'ocurly' || kind === 'oparen') level++;
      else if (kind === 'cbrack' || kind === 'ccurly' || kind === 'cparen') {
        level--;
        if (level === 0) return kind === close ? k : unsure();
      } else if (kind === 'op' && this.toks[k].text === '[*') {
        // "[*" opens a bracket closed by the next "]"
        level++;
      }
    }
    return unsure();
  }

  /** Sets shape, literal, elems, items, callName and args as hclbody.ts's unwrap + switch do. */
  private shape(e: Expression, first: number, last: number, depth: number, refs: Reference[], ast: Expr | undefined): void {
    if (depth >= MAX_EXPR_DEPTH) return;
    const t = this.toks;
    // Parentheses around the whole expression are looked through.
    while (t[first].kind === 'oparen' && this.matching(first, last) === last) {
      ast = ast?.kind === 'paren' ? ast.expr : undefined;
      first++;
      last--;
      while (t[first].kind === 'nl') first++;
      while (t[last].kind === 'nl') last--;
      if (last < first) unsure();
    }
    const a = t[first];
    if (first === last) {
      if (a.kind === 'string') {
        if (a.text.startsWith('<<')) {
          e.shape = 'template';
          return;
        }
        if (hasTemplateSyntax(a.text) || !a.text.endsWith('"') || a.text.length < 2) {
          if (hasEscapedTemplateSyntax(a.text)) unsure();
          e.shape = 'template';
          return;
        }
        e.shape = 'string';
        e.literal = stringLitText(a.text);
        return;
      }
      if (a.kind === 'number') {
        if (!/^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(a.text)) unsure();
        e.shape = 'literal';
        e.literal = Number(a.text);
        return;
      }
      if (a.kind === 'ident') {
        if (a.text === 'true' || a.text === 'false') {
          e.shape = 'literal';
          e.literal = a.text === 'true';
        } else if (a.text === 'null') {
          e.shape = 'literal';
          e.literal = null;
        } else e.shape = 'traversal';
        return;
      }
      return;
    }
    if (a.kind === 'obrack' && this.matching(first, last) === last) {
      if (this.firstInside(first, last)?.text === 'for') return;
      e.shape = 'tuple';
      const parts = this.split(first + 1, last - 1, false);
      const elems = ast?.kind === 'tuple' && ast.elems.length === parts.length ? ast.elems : undefined;
      e.elems = parts.map(([x, y], i) => this.element(x, y, depth + 1, refs, elems?.[i]));
      return;
    }
    if (a.kind === 'ocurly' && this.matching(first, last) === last) {
      if (this.firstInside(first, last)?.text === 'for') return;
      e.shape = 'object';
      const parts = this.split(first + 1, last - 1, true);
      const items = ast?.kind === 'object' && ast.items.length === parts.length ? ast.items : undefined;
      e.items = parts.map(([x, y], i) => this.item(x, y, depth + 1, refs, items?.[i]));
      return;
    }
    if (a.kind === 'ident' && t[first + 1].kind === 'oparen' && this.matching(first + 1, last) === last) {
      e.shape = 'call';
      e.callName = a.text;
      const parts = this.split(first + 2, last - 1, false);
      const lastPart = parts[parts.length - 1];
      if (lastPart && t[lastPart[1]].kind === 'op' && t[lastPart[1]].text === '...') {
        lastPart[1]--;
        while (lastPart[1] >= lastPart[0] && t[lastPart[1]].kind === 'nl') lastPart[1]--;
        if (lastPart[1] < lastPart[0]) unsure();
      }
      const args = ast?.kind === 'call' && ast.args.length === parts.length ? ast.args : undefined;
      e.args = parts.map(([x, y], i) => this.element(x, y, depth + 1, refs, args?.[i]));
      return;
    }
    if (a.kind === 'ident') {
      if (a.text === 'true' || a.text === 'false' || a.text === 'null') unsure();
      // A traversal: .name, .0 and [...] steps only (a splat or anything else makes it 'other').
      let k = first + 1;
      while (k <= last) {
        const s = t[k];
        if (s.kind === 'op' && s.text === '.') {
          // A newline may follow the dot inside brackets (tree-sitter keeps it a traversal).
          while (k + 1 < last && t[k + 1].kind === 'nl') k++;
          const n = t[k + 1];
          if (k + 1 > last) unsure();
          if (n.kind === 'ident') k += 2;
          else if (n.kind === 'number') {
            if (!/^[0-9]+$/.test(n.text)) unsure();
            k += 2;
          } else return;
          continue;
        }
        if (s.kind === 'obrack') {
          k = this.matching(k, last) + 1;
          continue;
        }
        if (s.kind === 'op' && (s.text === ':' || s.text === '.*' || s.text === '[*')) {
          if (s.text === ':') unsure();
          return;
        }
        if (s.kind === 'nl') unsure();
        return;
      }
      e.shape = 'traversal';
    }
  }

  /** The first non-newline token inside the brackets at first..last. */
  private firstInside(first: number, last: number): Tok | undefined {
    for (let k = first + 1; k < last; k++) if (this.toks[k].kind !== 'nl') return this.toks[k];
    return undefined;
  }

  /**
   * Splits the tokens first..last (inside brackets) into elements at depth-0 commas (and newlines, for
   * object items); each element's first and last token index, newlines excluded.
   */
  private split(first: number, last: number, nlSeparates: boolean): [number, number][] {
    const out: [number, number][] = [];
    let level = 0;
    let start = -1;
    let end = -1;
    const flush = () => {
      if (start >= 0) out.push([start, end]);
      start = end = -1;
    };
    for (let k = first; k <= last; k++) {
      const tk = this.toks[k];
      const kind = tk.kind;
      if (level === 0 && (kind === 'comma' || (kind === 'nl' && nlSeparates))) {
        flush();
        continue;
      }
      if (kind === 'obrack' || kind === 'ocurly' || kind === 'oparen' || (kind === 'op' && tk.text === '[*')) level++;
      else if (kind === 'cbrack' || kind === 'ccurly' || kind === 'cparen') level--;
      if (kind === 'nl') continue;
      if (start < 0) start = k;
      end = k;
    }
    flush();
    return out;
  }

  /** An object item: key and value (hclbody keyExpression / expressionFromNode). */
  private item(first: number, last: number, depth: number, refs: Reference[], ast: ObjectItem | undefined): { key: Expression; value: Expression } {
    const t = this.toks;
    let level = 0;
    let sep = -1;
    for (let k = first; k <= last; k++) {
      const tk = t[k];
      if (tk.kind === 'obrack' || tk.kind === 'ocurly' || tk.kind === 'oparen' || (tk.kind === 'op' && tk.text === '[*')) level++;
      else if (tk.kind === 'cbrack' || tk.kind === 'ccurly' || tk.kind === 'cparen') level--;
      else if (level === 0 && tk.kind === 'op' && tk.text === '?') unsure();
      else if (level === 0 && (tk.kind === 'eq' || (tk.kind === 'op' && tk.text === ':'))) {
        sep = k;
        break;
      }
    }
    if (sep <= first || sep >= last) unsure();
    let kl = sep - 1;
    while (t[kl].kind === 'nl') kl--;
    let vf = sep + 1;
    while (t[vf].kind === 'nl') vf++;
    // A bare name key (tree-sitter's variable_expr; true, false and null are literals there).
    const bare = kl === first && t[first].kind === 'ident' && !['true', 'false', 'null'].includes(t[first].text);
    let key: Expression;
    if (bare) {
      const kr = this.range(t[first].start, t[first].end);
      key = this.element(first, kl, depth, refs, ast?.key, { root: internName(t[first].text), rootRange: kr, steps: NONE, range: kr });
    } else {
      // A keyword key (true = 1) is the name in the object's AST but a literal when its text is parsed alone.
      const keyword = kl === first && t[first].kind === 'ident';
      key = this.element(first, kl, depth, refs, keyword ? undefined : ast?.key);
    }
    return { key, value: this.element(vf, last, depth, refs, ast?.value) };
  }
}

/**
 * The value hclbody.ts's stringLitValue gives a quoted string without interpolation: tree-sitter's
 * template_literal token, i.e. the raw text between the quotes (escapes not decoded) without the spaces and
 * tabs at either end, which the grammar skips as extras. Other blanks at the ends are left to the tree path.
 */
function stringLitText(quoted: string): string {
  const inner = quoted.slice(1, -1);
  const v = inner.replace(/^[ \t]+|[ \t]+$/g, '');
  if (v.length > 0 && (/^\s/.test(v) || /\s$/.test(v))) unsure();
  return v;
}

/**
 * Constructs tree-sitter's grammar rejects although HCL accepts them (it then reports "Invalid expression"
 * through the tree path; a number directly before `...` the syntax check scans as one token): calls of functions
 * named true/false/null, a splat `[ * ]` written with blanks, and a block comment still open at the end of the file.
 * Numbers with an exponent are not among them although tree-sitter's grammar takes `3e20` (no fraction) for an
 * error: HCL and Terraform accept it, and this lane reads it as they do (the tree path, used only for files with
 * syntax errors, still reports it).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function treeSitterRejects(text: string): boolean {
  // A block comment left open at the end of the file (the syntax check lets it run to the end).
  const open = text.lastIndexOf('/*');
  if (open >= 0 && text.indexOf('*/', open + 2) < 0) return true;
  if (/(^|[^A-Za-z0-9_-])(true|false|null)\s*\(/.test(text)) return true;
  return /\[\*\s+\]/.test(text) || /[0-9]\.\.\./.test(text) || spacedSplat(text);
}

/** A `[` or `.` separated from a following `*` by blanks or comments. */
function spacedSplat(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 91 && c !== 46) continue;
    let j = i + 1;
    for (;;) {
      const d = text.charCodeAt(j);
      if (d === 32 || d === 9 || d === 10 || d === 13) j++;
      else if (d === 35 || (d === 47 && text.charCodeAt(j + 1) === 47)) {
        const n = text.indexOf('\n', j);
        j = n < 0 ? text.length : n;
      } else if (d === 47 && text.charCodeAt(j + 1) === 42) {
        const n = text.indexOf('*/', j + 2);
        j = n < 0 ? text.length : n + 2;
      } else break;
    }
    if (j > i + 1 && text.charCodeAt(j) === 42) return true;
  }
  return false;
}

/** An interpolation or directive in a quoted string, or an escaped one (`$${`, `%%{`). */
function hasTemplateSyntax(s: string): boolean {
  return s.includes('${') || s.includes('%{');
}

function hasEscapedTemplateSyntax(s: string): boolean {
  return s.includes('$$') || s.includes('%%');
}
