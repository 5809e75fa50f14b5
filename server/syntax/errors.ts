// Syntax diagnostics a person understands, with HCL's own messages and ranges ("Unclosed configuration
// block", "Unterminated template string", "Argument or block definition required", "Missing newline after
// argument", "Invalid character", ...) instead of tree-sitter's ERROR/MISSING nodes.
//
// Tree-sitter recovers from errors differently from HCL, so the structure is re-checked with a small
// HCL-faithful scanner and body parser (tokens, newline rules, brace nesting, expression boundaries). When
// that finds nothing but the tree still holds ERROR/MISSING nodes (an expression-level error the checker
// does not model), the first such node becomes an "Invalid expression" diagnostic. Never throws.
// Siblings: treesitter.ts (parser), document.ts (parsed files); config/load.ts calls syntaxDiagnostics.

import type { Diagnostic, Range } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import { SourceText } from '../config/source';
import type { SyntaxNode, Tree } from './treesitter';

export type Kind =
  | 'nl'
  | 'ident'
  | 'number'
  | 'string' // a whole quoted template or heredoc
  | 'ocurly'
  | 'ccurly'
  | 'obrack'
  | 'cbrack'
  | 'oparen'
  | 'cparen'
  | 'eq'
  | 'comma'
  | 'op' // operators and other punctuation valid inside expressions
  | 'invalid'
  | 'eof';

export interface Tok {
  kind: Kind;
  start: number;
  end: number;
  text: string;
  /** A string whose end is missing: HCL's parser goes into recovery after it. */
  bad?: boolean;
}

/**
 * The deepest nesting of blocks accepted. Deeper blocks are reported ("Blocks too deeply nested") and
 * skipped, here and by the configuration loader (config/hclbody.ts), so that walks over bodies stay well
 * inside Node's default stack.
 */
export const MAX_BLOCK_DEPTH = 256;
export const BLOCKS_TOO_DEEP_SUMMARY = 'Blocks too deeply nested';
const BLOCKS_TOO_DEEP_DETAIL = `Blocks may be nested at most ${MAX_BLOCK_DEPTH} levels deep; this block is deeper.`;

const UNCLOSED_BLOCK_DETAIL =
  'There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.';
const MULTILINE_DETAIL =
  'Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the "heredoc" multi-line template syntax.';

const ID_START = /[\p{ID_Start}_]/u;
const ID_CONT = /[\p{ID_Continue}\-]/u;
const HEREDOC_HEAD = /<<(-?)([\p{ID_Start}_][\p{ID_Continue}\-]*)\r?\n/uy;

class Scanner {
  readonly toks: Tok[] = [];
  constructor(
    private readonly s: string,
    private readonly diag: (summary: string, detail: string, a: number, b: number, ctxStart?: number) => void,
  ) {}

  scan(): Tok[] {
    let i = 0;
    const s = this.s;
    while (i < s.length) i = this.scanOne(i, this.toks, false);
    this.toks.push({ kind: 'eof', start: s.length, end: s.length, text: '' });
    return this.toks;
  }

  /** Scans one token at i into out; returns the next offset. */
  private scanOne(i: number, out: Tok[], inInterp: boolean): number {
    // Character codes rather than regular expressions for ASCII: this runs once per character of every file.
    const s = this.s;
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9 || c === 13) return i + 1;
    if (c === 10) return this.tok(out, 'nl', i, i + 1);
    const c1 = s.charCodeAt(i + 1);
    if (c === 35 || (c === 47 && c1 === 47)) {
      const j = s.indexOf('\n', i);
      return j < 0 ? s.length : j; // the newline ending a line comment is still a newline token
    }
    if (c === 47 && c1 === 42) {
      const j = s.indexOf('*/', i + 2);
      return j < 0 ? s.length : j + 2;
    }
    if (c < 0x80 ? (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 : ID_START.test(s[i])) {
      let j = i + 1;
      while (j < s.length) {
        const d = s.charCodeAt(j);
        if (d < 0x80 ? !((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || (d >= 48 && d <= 57) || d === 95 || d === 45) : !ID_CONT.test(s[j])) break;
        j++;
      }
      return this.tok(out, 'ident', i, j);
    }
    if (c >= 48 && c <= 57) {
      let j = i + 1;
      while (j < s.length) {
        const d = s.charCodeAt(j);
        if (!((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69)) break;
        if (d === 101 || d === 69) {
          const e = s.charCodeAt(j + 1);
          if (e === 43 || e === 45) j++;
        }
        j++;
      }
      return this.tok(out, 'number', i, j);
    }
    if (c === 34) return this.scanQuoted(i, out, inInterp);
    if (c === 60 && c1 === 60 && /[-\p{ID_Start}_]/u.test(s[i + 2] ?? '')) {
      HEREDOC_HEAD.lastIndex = i;
      const m = HEREDOC_HEAD.exec(s);
      if (m) return this.scanHeredoc(i, m[2], m[0].length, out);
    }
    if (
      (c1 === 61 && (c === 61 || c === 33 || c === 60 || c === 62)) || // == != <= >=
      (c === 38 && c1 === 38) ||
      (c === 124 && c1 === 124) ||
      (c === 61 && c1 === 62) || // =>
      (c1 === 42 && (c === 46 || c === 91)) // .* [*
    )
      return this.tok(out, 'op', i, i + 2);
    if (c === 46 && c1 === 46 && s.charCodeAt(i + 2) === 46) return this.tok(out, 'op', i, i + 3);
    switch (c) {
      case 123:
        return this.tok(out, 'ocurly', i, i + 1);
      case 125:
        return this.tok(out, 'ccurly', i, i + 1);
      case 91:
        return this.tok(out, 'obrack', i, i + 1);
      case 93:
        return this.tok(out, 'cbrack', i, i + 1);
      case 40:
        return this.tok(out, 'oparen', i, i + 1);
      case 41:
        return this.tok(out, 'cparen', i, i + 1);
      case 61:
        return this.tok(out, 'eq', i, i + 1);
      case 44:
        return this.tok(out, 'comma', i, i + 1);
      case 43: // + - * / % < > ! ? : .
      case 45:
      case 42:
      case 47:
      case 37:
      case 60:
      case 62:
      case 33:
      case 63:
      case 58:
      case 46:
        return this.tok(out, 'op', i, i + 1);
    }
    const cp = s.codePointAt(i)!;
    const w = cp > 0xffff ? 2 : 1;
    this.diag('Invalid character', 'This character is not used within the language.', i, i + w);
    return this.tok(out, 'invalid', i, i + w);
  }

  private tok(out: Tok[], kind: Kind, start: number, end: number): number {
    out.push({ kind, start, end, text: this.s.slice(start, end) });
    return end;
  }

  private scanQuoted(i: number, out: Tok[], inInterp: boolean): number {
    const s = this.s;
    let j = i + 1;
    let firstNl = -1;
    while (j < s.length) {
      const c = s[j];
      if (c === '"') {
        out.push({ kind: 'string', start: i, end: j + 1, text: s.slice(i, j + 1) });
        return j + 1;
      }
      if (c === '\\') {
        const n = s[j + 1];
        if (n !== undefined && !'nrt"\\uU\n'.includes(n))
          this.diag('Invalid escape sequence', `The symbol "${n}" is not a valid escape sequence selector.`, j, j + 2);
        j += 2;
        continue;
      }
      if (c === '\n') {
        if (firstNl < 0) firstNl = j;
        this.diag('Invalid multi-line string', MULTILINE_DETAIL, j, j + 1);
        j++;
        continue;
      }
      if ((c === '$' || c === '%') && s[j + 1] === '{') {
        if (s[j - 1] === c && s[j - 2] !== c) {
          j += 2; // $${ and %%{ escapes
          continue;
        }
        const r = this.scanInterp(j);
        if (r < 0) {
          out.push({ kind: 'string', start: i, end: s.length, text: s.slice(i), bad: true });
          return s.length;
        }
        j = r;
        continue;
      }
      j++;
    }
    out.push({ kind: 'string', start: i, end: s.length, text: s.slice(i), bad: true });
    if (!inInterp) {
      const at = firstNl >= 0 ? firstNl : s.length;
      this.diag('Unterminated template string', 'No closing marker was found for the string.', at, at + 1);
    }
    return s.length;
  }

  /** Scans `${ ... }` starting at j (the `$`); returns the offset after `}`, or -1 at end of file. */
  private scanInterp(j: number): number {
    const s = this.s;
    let k = j + 2;
    let depth = 0;
    const inner: Tok[] = [];
    while (k < s.length) {
      const before = inner.length;
      // A string opening the interpolation is parsed as its expression: its own end is what is missing.
      k = this.scanOne(k, inner, inner.length > 0);
      if (inner.length === 1 && inner[0].bad) return -1;
      const t = inner[before];
      if (!t) continue;
      if (t.kind === 'ocurly') depth++;
      else if (t.kind === 'ccurly') {
        if (depth === 0) return k;
        depth--;
      }
    }
    this.diag(
      'Unclosed template interpolation sequence',
      'There is no closing brace for this interpolation sequence before the end of the quoted template. This might be caused by incorrect nesting inside the given expression.',
      j,
      j + 2,
    );
    return -1;
  }

  private scanHeredoc(i: number, marker: string, headLen: number, out: Tok[]): number {
    const s = this.s;
    let j = i + headLen;
    while (j <= s.length) {
      let e = s.indexOf('\n', j);
      if (e < 0) e = s.length;
      if (s.slice(j, e).replace(/\r$/, '').trim() === marker) {
        out.push({ kind: 'string', start: i, end: e, text: s.slice(i, e) });
        return e;
      }
      if (e >= s.length) break;
      j = e + 1;
    }
    out.push({ kind: 'string', start: i, end: s.length, text: s.slice(i), bad: true });
    // HCL's context for an unterminated heredoc is its content, from the line after the marker to the end.
    this.diag('Unterminated template string', 'No closing marker was found for the string.', s.length, s.length + 1, i + headLen);
    return s.length;
  }
}

/**
 * The structure of a file without syntax errors as the checker read it (token indices into `toks`): what
 * config/fastbody.ts builds bodies from without a tree-sitter tree.
 */
export type SynItem =
  | { kind: 'attr'; name: Tok; first: number; last: number }
  | { kind: 'block'; id: Tok; labels: Tok[]; open: Tok; close: Tok; items: SynItem[] };

export interface SynStructure {
  toks: Tok[];
  items: SynItem[];
}

/** Structure checker over tokens, following HCL's body grammar and recovery. */
class Checker {
  private p = 0;
  private recovery = false;
  /** Items of the body being read (the structure, see SynItem). */
  items: SynItem[] = [];
  constructor(
    private readonly toks: Tok[],
    private readonly diag: (summary: string, detail: string, a: number, b: number, ctxStart?: number) => void,
  ) {}

  private peek(): Tok {
    return this.toks[Math.min(this.p, this.toks.length - 1)];
  }
  private read(): Tok {
    const t = this.peek();
    if (t.bad) this.recovery = true;
    if (this.p < this.toks.length - 1) this.p++;
    return t;
  }
  /** Top-level blocks seen: header text and the offsets from the type name to the closing brace. */
  readonly blocks: { text: string; start: number; end: number }[] = [];
  private depth = 0;
  private closeEnd = 0;

  private err(summary: string, detail: string, t: Tok, ctxStart?: number): void {
    if (this.recovery) return;
    this.diag(summary, detail, t.start, Math.max(t.end, t.start + 1), ctxStart);
  }

  /** Skips to after the token closing the current body (or to EOF). */
  private recover(end: Kind): void {
    this.recovery = true;
    let depth = 0;
    for (;;) {
      const t = this.read();
      if (t.kind === 'eof') return;
      if (t.kind === 'ocurly') depth++;
      else if (t.kind === 'ccurly') {
        if (depth === 0 && end === 'ccurly') return;
        depth--;
      }
    }
  }
  private recoverAfterItem(): void {
    this.recovery = true;
    let depth = 0;
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') return;
      if (t.kind === 'nl' && depth === 0) {
        this.read();
        return;
      }
      if (t.kind === 'ccurly' && depth === 0) return;
      if (t.kind === 'ocurly' || t.kind === 'obrack' || t.kind === 'oparen') depth++;
      if (t.kind === 'ccurly' || t.kind === 'cbrack' || t.kind === 'cparen') depth--;
      this.read();
    }
  }

  body(end: Kind, open?: Tok): void {
    for (;;) {
      const t = this.peek();
      if (t.kind === end) {
        this.read();
        return;
      }
      if (t.kind === 'nl') {
        this.read();
        continue;
      }
      if (t.kind === 'ident') {
        this.item();
        continue;
      }
      const bad = this.read();
      if (bad.kind === 'string' && bad.text.startsWith('"'))
        this.err('Invalid argument name', 'Argument names must not be quoted.', bad);
      else if (bad.kind === 'eof') {
        if (end === 'ccurly' && open)
          this.err('Unclosed configuration block', UNCLOSED_BLOCK_DETAIL, open);
      } else this.err('Argument or block definition required', 'An argument or block definition is required here.', bad);
      if (bad.kind !== 'eof') this.recover(end);
      return;
    }
  }

  private item(): void {
    const id = this.read();
    const next = this.peek();
    if (next.kind === 'eq') {
      this.read();
      const first = this.p;
      const ok = this.expression();
      if (!ok) {
        this.recoverAfterItem();
        return;
      }
      this.items.push({ kind: 'attr', name: id, first, last: this.p - 1 });
      const end = this.peek();
      if (end.kind !== 'nl' && end.kind !== 'eof') {
        if (end.kind === 'comma')
          this.err(
            'Unexpected comma after argument',
            'Argument definitions must be separated by newlines, not commas. An argument definition must end with a newline.',
            end,
          );
        else this.err('Missing newline after argument', 'An argument definition must end with a newline.', end);
        this.recoverAfterItem();
      } else this.read();
      return;
    }
    if (next.kind === 'string' || next.kind === 'ocurly' || next.kind === 'ident') {
      this.block(id);
      return;
    }
    this.err(
      'Argument or block definition required',
      'An argument or block definition is required here. To set an argument, use the equals sign "=" to introduce the argument value.',
      id,
    );
    this.recoverAfterItem();
  }

  private block(id: Tok): void {
    if (this.depth >= MAX_BLOCK_DEPTH) {
      this.tooDeep(id);
      return;
    }
    const header: string[] = [id.text];
    const top = this.depth === 0;
    this.depth++;
    this.closeEnd = -1;
    const outer = this.items;
    try {
      this.blockInner(id, header);
    } finally {
      this.items = outer;
      this.depth--;
      if (top) this.blocks.push({ text: header.join(' '), start: id.start, end: this.closeEnd >= 0 ? this.closeEnd : this.toks[Math.max(0, this.p - 1)].end });
    }
  }

  /** Reports a block nested too deeply (from its type name to its closing brace) and skips it. */
  private tooDeep(id: Tok): void {
    let q = this.p;
    while (q < this.toks.length - 1 && this.toks[q].kind !== 'ocurly' && this.toks[q].kind !== 'nl') q++;
    let end = id.end;
    if (this.toks[q].kind === 'ocurly') {
      let level = 0;
      for (; q < this.toks.length - 1; q++) {
        const k = this.toks[q].kind;
        if (k === 'ocurly') level++;
        else if (k === 'ccurly' && --level === 0) break;
      }
      if (q < this.toks.length - 1) end = this.toks[q].end;
    }
    this.err(BLOCKS_TOO_DEEP_SUMMARY, BLOCKS_TOO_DEEP_DETAIL, { ...id, end });
    this.recovery = true;
    this.p = Math.min(q + 1, this.toks.length - 1);
  }

  private blockInner(id: Tok, header: string[]): void {
    const labels: Tok[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'ocurly') break;
      if (t.kind === 'string' || t.kind === 'ident') {
        this.read();
        labels.push(t);
        header.push(t.kind === 'string' ? t.text : JSON.stringify(t.text));
        continue;
      }
      if (t.kind === 'eq')
        this.err('Invalid block definition', 'The equals sign "=" indicates an argument definition, and must not be used when defining a block.', t);
      else if (t.kind === 'nl')
        this.err(
          'Invalid block definition',
          'A block definition must have block content delimited by "{" and "}", starting on the same line as the block header.',
          t,
        );
      else this.err('Invalid block definition', 'Either a quoted string block label or an opening brace ("{") is expected here.', t);
      this.recoverAfterItem();
      return;
    }
    const open = this.read();
    const blk: Extract<SynItem, { kind: 'block' }> = { kind: 'block', id, labels, open, close: open, items: [] };
    this.items.push(blk);
    this.items = blk.items;
    const n = this.peek();
    if (n.kind === 'nl' || n.kind === 'eof' || n.kind === 'ccurly') this.body('ccurly', open);
    else {
      // single-line block: one attribute then "}"
      const id = this.peek();
      if (id.kind !== 'ident') {
        this.err('Argument or block definition required', 'An argument or block definition is required here.', id);
        this.recover('ccurly');
      } else {
        this.read();
        if (this.peek().kind !== 'eq') {
          this.err(
            'Argument or block definition required',
            'An argument or block definition is required here. To set an argument, use the equals sign "=" to introduce the argument value.',
            id,
          );
          this.recover('ccurly');
        } else {
          this.read();
          const first = this.p;
          this.expression();
          blk.items.push({ kind: 'attr', name: id, first, last: this.p - 1 });
          const e = this.peek();
          if (e.kind === 'ccurly') this.read();
          else {
            if (e.kind === 'eof') this.err('Unclosed configuration block', UNCLOSED_BLOCK_DETAIL, open);
            else if (e.kind === 'comma')
              this.err(
                'Invalid single-argument block definition',
                'Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.',
                e,
              );
            else if (e.kind === 'nl')
              this.err(
                'Invalid single-argument block definition',
                "An argument definition on the same line as its containing block creates a single-line block definition, which must also be closed on the same line. Place the block's closing brace immediately after the argument definition.",
                e,
              );
            else
              this.err(
                'Invalid single-argument block definition',
                'A single-line block definition must end with a closing brace immediately after its single argument definition.',
                e,
              );
            this.recover('ccurly');
          }
        }
      }
    }
    this.closeEnd = this.toks[Math.max(0, this.p - 1)].end;
    blk.close = this.toks[Math.max(0, this.p - 1)];
    const eol = this.peek();
    if (eol.kind === 'nl' || eol.kind === 'eof') this.read();
    else {
      this.err('Missing newline after block definition', 'A block definition must end with a newline.', eol);
      this.recoverAfterItem();
    }
  }

  /**
   * Skims one expression: operands joined by operators, with brackets balanced (newlines inside brackets
   * are insignificant). Stops before a newline, comma, or closing bracket at depth 0, or before a token that
   * cannot continue the expression (two operands in a row). Returns false after reporting an error.
   */
  private expression(): boolean {
    const stack: Tok[] = [];
    let wantOperand = true;
    for (;;) {
      const t = this.peek();
      const depth = stack.length;
      if (t.kind === 'eof') {
        if (depth > 0) {
          const o = stack[stack.length - 1];
          if (o.kind === 'obrack')
            this.err('Unterminated tuple constructor expression', 'There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.', o);
          else if (o.kind === 'ocurly')
            this.err('Unterminated object constructor expression', 'There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.', o);
          else
            this.err('Unbalanced parentheses', 'Expected a closing parenthesis to terminate the expression.', o);
          return false;
        }
        if (wantOperand) {
          this.err('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', t);
          return false;
        }
        return true;
      }
      if (t.kind === 'nl') {
        if (depth === 0) {
          if (wantOperand) {
            this.err('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', t);
            return false;
          }
          return true;
        }
        this.read();
        continue;
      }
      if (t.kind === 'ocurly' || t.kind === 'obrack' || t.kind === 'oparen') {
        if (!wantOperand && depth === 0 && t.kind === 'ocurly') return true;
        stack.push(this.read());
        wantOperand = true;
        continue;
      }
      if (t.kind === 'ccurly' || t.kind === 'cbrack' || t.kind === 'cparen') {
        if (depth === 0) {
          if (wantOperand) {
            this.err('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', t);
            return false;
          }
          return true;
        }
        const o = stack[stack.length - 1];
        const match = (o.kind === 'ocurly' && t.kind === 'ccurly') || (o.kind === 'obrack' && t.kind === 'cbrack') || (o.kind === 'oparen' && t.kind === 'cparen');
        if (!match) {
          if (o.kind === 'obrack') {
            if (wantOperand) this.err('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', t);
            else this.err('Missing item separator', 'Expected a comma to mark the beginning of the next item.', t, o.start);
          } else if (o.kind === 'oparen') {
            if (wantOperand) this.err('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', t);
            else this.err('Missing argument separator', 'A comma is required to separate each function argument from the next.', t);
          } else this.err('Missing attribute separator', 'Expected a newline or comma to mark the beginning of the next attribute.', t);
          return false;
        }
        this.read();
        stack.pop();
        wantOperand = false;
        continue;
      }
      if (t.kind === 'comma') {
        if (depth === 0) return !wantOperand || (this.err('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', t), false);
        this.read();
        wantOperand = true;
        continue;
      }
      if (t.kind === 'eq' || t.kind === 'op') {
        if (depth === 0 && t.kind === 'eq') return true;
        const unary = t.text === '-' || t.text === '!';
        const postfix = t.text === '.' || t.text === '.*' || t.text === '[*' || t.text === '...';
        if (wantOperand && !unary && depth === 0 && !postfix) {
          this.err('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', t);
          return false;
        }
        this.read();
        if (t.text === '[*') {
          // "[*]" splat: consume the "]"
          if (this.peek().kind === 'cbrack') this.read();
          wantOperand = false;
          continue;
        }
        wantOperand = t.text !== '.*' && t.text !== '...';
        if (t.text === '.') wantOperand = true;
        continue;
      }
      if (t.kind === 'invalid') {
        if (depth === 0 && !wantOperand) return true;
        this.read();
        continue;
      }
      // operand: ident, number, string
      if (!wantOperand) {
        // `for` expressions and `x if y` read as operand sequences inside brackets
        if (depth > 0) {
          this.read();
          continue;
        }
        // function call name followed by "(" handled by oparen; an index "[" by obrack
        return true;
      }
      this.read();
      wantOperand = false;
      // a traversal's `[` index directly after an operand
    }
  }
}

/**
 * Syntax diagnostics for one file. `tree` (the tree-sitter parse of the same text) adds a fallback
 * diagnostic when it holds errors the structural checker did not find.
 */
export function syntaxDiagnostics(text: string, filename: string, tree?: Tree): Diagnostic[] {
  return analyzeSyntax(text, filename, tree).diagnostics;
}

export interface SyntaxAnalysis {
  diagnostics: Diagnostic[];
  /** Top-level blocks as HCL sees them (even when tree-sitter recovered differently): diagnostic contexts. */
  blocks: { text: string; range: Range }[];
  /** The structure, when asked for and the scanner and checker found no error (see SynStructure). */
  structure?: SynStructure;
}

export function analyzeSyntax(text: string, filename: string, tree?: Tree, opts?: { structure?: boolean; src?: SourceText }): SyntaxAnalysis {
  const src = opts?.src ?? new SourceText(filename, text);
  let structure: SynStructure | undefined;
  const out: Diagnostic[] = [];
  let blocks: SyntaxAnalysis['blocks'] = [];
  const lexical: Diagnostic[] = [];
  const structural: Diagnostic[] = [];
  const exponents: [number, number][] = [];
  try {
    const toks = new Scanner(text, (s, d, a, b, c) =>
      lexical.push(error(s, d, rng(src, a, b), c === undefined ? { source: 'syntax' } : { source: 'syntax', context: src.range(c, Math.min(b, text.length)) })),
    ).scan();
    const ch = new Checker(toks, (s, d, a, b, c) =>
      structural.push(error(s, d, rng(src, a, b), c === undefined ? { source: 'syntax' } : { source: 'syntax', context: src.range(c, b) })),
    );
    ch.body('eof');
    blocks = ch.blocks.map((b) => ({ text: b.text, range: src.range(b.start, b.end) }));
    if (tree) for (const t of toks) if (t.kind === 'number' && /^[0-9]+[eE]/.test(text.slice(t.start, t.end))) exponents.push([t.start, t.end]);
    if (opts?.structure && lexical.length === 0 && structural.length === 0) structure = { toks, items: ch.items };
  } catch {
    // the checker is best-effort: never let a bug in it hide the tree-sitter fallback
  }
  out.push(...lexical, ...structural);
  if (out.length === 0 && tree && tree.rootNode.hasError) {
    // tree-sitter's grammar has no exponent without a fraction (`1e30`, which HCL reads as a number): its error
    // nodes over such a number are not errors.
    const n = firstError(tree.rootNode, (e) => exponents.some(([a, b]) => e.startIndex < b && e.endIndex > a));
    if (n) {
      const a = n.startIndex;
      const b = Math.max(n.endIndex, a + 1);
      out.push(
        error('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', rng(src, a, b), {
          source: 'syntax',
        }),
      );
    }
  }
  return structure ? { diagnostics: out, blocks, structure } : { diagnostics: out, blocks };
}

function rng(src: SourceText, a: number, b: number): Range {
  if (a >= src.text.length) {
    // HCL reports end-of-file problems on a one-character range past the end
    const p = src.pos(src.text.length);
    return { filename: src.filename, start: p, end: { line: p.line, column: p.column + 1, byte: p.byte + 1 } };
  }
  return src.range(a, b);
}

/** The first ERROR or MISSING node in document order (without recursion: trees can be 10,000s deep). */
/** The first error node in document order, skipping those `ignore` accepts (and what is inside them). */
function firstError(root: SyntaxNode, ignore: (n: SyntaxNode) => boolean = () => false): SyntaxNode | undefined {
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.isMissing || n.type === 'ERROR') {
      if (ignore(n)) continue;
      return n;
    }
    const kids = n.children;
    for (let k = kids.length - 1; k >= 0; k--) {
      const c = kids[k];
      if (c && (c.hasError || c.isMissing)) stack.push(c);
    }
  }
  return undefined;
}
