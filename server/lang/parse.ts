// Parser for expressions of Terraform's native syntax (HCL): text → ast.ts Expr, with HCL's diagnostics.
//
// Contract:
//   parseExpression(text, filename)       a standalone expression (console input, -var values); reports
//                                         "Extra characters after expression" for trailing tokens.
//   exprFromNode(node, filename, src)     the `expression` node of an attribute in a tree-sitter tree of `src`;
//                                         ranges are positions in `src`.
//   references(expr)                      every scope traversal the expression reads (as HCL's Variables()),
//                                         excluding names bound by enclosing `for` expressions.
// The tree-sitter tree only locates the expression: its text is re-scanned here by a lexer and a
// recursive-descent parser that follow hclsyntax, so that syntax errors carry HCL's own summaries and
// details, which tree-sitter's ERROR nodes cannot give. Positions follow diagnostic.ts (1-based line and
// column in code points, 0-based UTF-8 byte offset).

import type { SyntaxNode } from '../syntax/treesitter';
import type { Diagnostic, Pos, Range } from '../diags/diagnostic';
import { posAt, rangeSpan } from '../diags/diagnostic';
import { Num } from './number';
import { Value } from './value';
import type { BinaryOp, Expr, ObjectItem, StepRun, Traversal, TraverseStep } from './ast';
import { appendSteps, compactSteps, COMPACT_RUN_MIN, exact, forEachChild, NONE, trimSteps } from './ast';
import { intern } from './intern';

type TT =
  | 'ident'
  | 'number'
  | 'oparen'
  | 'cparen'
  | 'obrack'
  | 'cbrack'
  | 'obrace'
  | 'cbrace'
  | 'dot'
  | 'comma'
  | 'ellipsis'
  | 'arrow'
  | 'question'
  | 'colon'
  | 'dcolon'
  | 'equal'
  | 'op' // binary/unary operators, text in `text`
  | 'oquote'
  | 'cquote'
  | 'oheredoc'
  | 'cheredoc'
  | 'lit' // template literal chunk, decoded text in `value`
  | 'interp' // ${
  | 'control' // %{
  | 'seqend' // } closing an interpolation/directive
  | 'nl'
  | 'eof'
  | 'invalid'
  | 'bitop';

interface Tok {
  type: TT;
  start: number;
  end: number;
  text: string;
  /** lit: decoded text. */
  value?: string;
  /** interp/control: `${~`; seqend: `~}`. */
  strip?: boolean;
  /** oheredoc: flush (<<-) form. */
  flush?: boolean;
}

/** Every token type, by its code in Tokens.kind. */
const TT_LIST: readonly TT[] = [
  'ident', 'number', 'oparen', 'cparen', 'obrack', 'cbrack', 'obrace', 'cbrace', 'dot', 'comma', 'ellipsis', 'arrow', 'question',
  'colon', 'dcolon', 'equal', 'op', 'oquote', 'cquote', 'oheredoc', 'cheredoc', 'lit', 'interp', 'control', 'seqend', 'nl', 'eof',
  'invalid', 'bitop',
];
const TT_CODE = Object.fromEntries(TT_LIST.map((t, i) => [t, i])) as Record<TT, number>;
const C_IDENT = TT_CODE.ident;
const C_DOT = TT_CODE.dot;
const C_NL = TT_CODE.nl;
const F_STRIP = 1;
const F_FLUSH = 2;

/** Interned names (see internName); cleared when full, so it stays small. */
const NAMES = new Map<string, string>();
const NAMES_MAX = 8192;

/**
 * One string per name: a configuration repeats a few names (`var`, `env`, `id`) thousands of times, and each token's
 * text is a copy of its own. Traversal roots and attribute steps are kept for as long as their file's model.
 */
export function internName(s: string): string {
  return s.length > 64 ? s : intern(NAMES, s, NAMES_MAX);
}

/** The capacity of pooled token arrays (Tokens.release takes back only these); texts up to LONG_TEXT start from them. */
const POOLED_CAP = 256;
/** Texts longer than this start with arrays of their own length (at most one token per character). */
const LONG_TEXT = 65536;
const TOKEN_POOL: { kind: Uint8Array; start: Int32Array; end: Int32Array; flags: Uint8Array }[] = [];

/**
 * The token stream of a text, stored as parallel typed arrays rather than one object per token: a 5 MB
 * line can hold millions of tokens, and millions of long-lived objects cost more in garbage collection
 * than the whole parse. `at(q)` gives a token as a (short-lived) Tok object.
 */
class Tokens {
  n = 0;
  kind: Uint8Array;
  start: Int32Array;
  end: Int32Array;
  flags: Uint8Array;
  /** Decoded text of `lit` tokens, by token index (made with the first: most expressions have none). */
  private vals: Map<number, string> | undefined;
  /** The last token given by at(), which the parser usually asks for twice (peek, then next). */
  private lastQ = -1;
  private last: Tok | undefined;
  constructor(readonly text: string) {
    // A token is at least one character long, except the final eof. Long texts start at their most tokens:
    // growing by copies to millions of tokens costs more than the memory held for the parse. Short texts
    // (most attribute values) take the arrays of a released stream: four typed arrays per expression were
    // four allocations outside the heap, each counted as external memory pressure by the GC. Texts up to the
    // long ones start from those too (growing if they hold more tokens), as they would start at that size anyway.
    const pooled = text.length <= LONG_TEXT ? TOKEN_POOL.pop() : undefined;
    if (pooled) {
      this.kind = pooled.kind;
      this.start = pooled.start;
      this.end = pooled.end;
      this.flags = pooled.flags;
      return;
    }
    // Pooled streams are POOLED_CAP long (release() takes back only those): a short text's arrays sized to the
    // text were never given back, and every expression allocated four.
    const cap = text.length > LONG_TEXT ? text.length + 1 : POOLED_CAP;
    this.kind = new Uint8Array(cap);
    this.start = new Int32Array(cap);
    this.end = new Int32Array(cap);
    this.flags = new Uint8Array(cap);
  }
  /** The decoded text of the `lit` token at `q`. */
  value(q: number): string | undefined {
    return this.vals?.get(q);
  }
  /**
   * Gives the arrays back for reuse once the parse is over (nothing reads a stream after its parse: step runs
   * copy their offsets). The stream must not be used afterwards.
   */
  release(): void {
    if (this.kind.length !== POOLED_CAP || TOKEN_POOL.length >= 4) return;
    this.flags.fill(0, 0, this.n);
    TOKEN_POOL.push({ kind: this.kind, start: this.start, end: this.end, flags: this.flags });
    this.n = 0;
  }
  push(type: TT, start: number, end: number, extra?: { value?: string; strip?: boolean; flush?: boolean }): void {
    const q = this.n;
    if (q === this.kind.length) this.grow();
    this.kind[q] = TT_CODE[type];
    this.start[q] = start;
    this.end[q] = end;
    if (extra) {
      if (extra.value !== undefined) (this.vals ??= new Map()).set(q, extra.value);
      this.flags[q] = (extra.strip ? F_STRIP : 0) | (extra.flush ? F_FLUSH : 0);
    }
    this.n = q + 1;
  }
  pushCode(code: number, start: number, end: number): void {
    const q = this.n;
    if (q === this.kind.length) this.grow();
    this.kind[q] = code;
    this.start[q] = start;
    this.end[q] = end;
    this.n = q + 1;
  }
  private grow(): void {
    // Doubling, but never past the most tokens the text can hold.
    const cap = Math.min(this.kind.length * 4, this.text.length + 1);
    const k = new Uint8Array(cap);
    k.set(this.kind);
    this.kind = k;
    const s = new Int32Array(cap);
    s.set(this.start);
    this.start = s;
    const e = new Int32Array(cap);
    e.set(this.end);
    this.end = e;
    const f = new Uint8Array(cap);
    f.set(this.flags);
    this.flags = f;
  }
  type(q: number): TT {
    return TT_LIST[this.kind[q]];
  }
  textOf(q: number): string {
    return this.text.slice(this.start[q], this.end[q]);
  }
  at(q: number): Tok {
    if (q === this.lastQ) return this.last!;
    const type = TT_LIST[this.kind[q]];
    const t: Tok = { type, start: this.start[q], end: this.end[q], text: this.text.slice(this.start[q], this.end[q]) };
    if (type === 'lit') t.value = this.value(q);
    const f = this.flags[q];
    if (f & F_STRIP) t.strip = true;
    if (f & F_FLUSH) t.flush = true;
    this.lastQ = q;
    this.last = t;
    return t;
  }
}

/**
 * Position bookkeeping for a source text that starts at `base` within its file. Positions are found in
 * O(log n): line starts, and the (sparse) non-ASCII code units with running column/byte adjustments, are
 * indexed once, so that a single 5 MB line does not cost a scan from its start for every token.
 */
class Source {
  private lineStarts: number[] = [0];
  /** Offsets of code units >= 0x80, ascending. */
  private naPos: number[] = [];
  /** naBytes[k]: UTF-8 bytes minus code units of the first k non-ASCII code units; naCols[k]: code points minus code units. */
  private naBytes: number[] = [0];
  private naCols: number[] = [0];
  constructor(
    readonly text: string,
    readonly filename: string,
    readonly base: Pos,
    private readonly outer?: OuterPositions,
  ) {
    if (outer) return;
    // Line starts and non-ASCII code units are found by the engine's native searches, not a loop over every
    // character: a 5 MB line costs a few milliseconds.
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) this.lineStarts.push(nl + 1);
    let b = 0;
    let c = 0;
    const nonAscii = /[^\x00-\x7f]/g;
    for (let m = nonAscii.exec(text); m; m = nonAscii.exec(text)) {
      let i = m.index;
      const ch = text.charCodeAt(i);
      if (ch >= 0xd800 && ch <= 0xdbff && i + 1 < text.length) {
        const lo = text.charCodeAt(i + 1);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          // The pair counts as one code point of 4 bytes, all on its high half.
          this.naPos.push(i, i + 1);
          b += 3;
          this.naBytes.push(b);
          this.naCols.push(c);
          b -= 1;
          c -= 1;
          this.naBytes.push(b);
          this.naCols.push(c);
          i++;
          nonAscii.lastIndex = i + 1;
          continue;
        }
      }
      b += ch < 0x800 ? 1 : 2;
      this.naPos.push(i);
      this.naBytes.push(b);
      this.naCols.push(c);
    }
  }
  /** Index into the adjustment tables: how many non-ASCII code units lie before `index`. */
  private before(index: number): number {
    const a = this.naPos;
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid] < index) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  pos(index: number): Pos {
    if (this.outer) return this.outer.source.pos(this.outer.offset + index);
    // Binary search the line.
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    const ls = this.lineStarts[lo];
    const kLs = this.naPos.length === 0 ? 0 : this.before(ls);
    const kIx = this.naPos.length === 0 ? 0 : this.before(index);
    const col = index - ls + this.naCols[kIx] - this.naCols[kLs];
    const bytes = index - ls + this.naBytes[kIx] - this.naBytes[kLs];
    const lineByte = lo === 0 ? this.base.byte : this.base.byte + ls + this.naBytes[kLs];
    return {
      line: this.base.line + lo,
      column: (lo === 0 ? this.base.column : 1) + col,
      byte: lineByte + bytes,
    };
  }
  range(start: number, end: number): Range {
    if (this.outer) return this.outer.source.range(this.outer.offset + start, this.outer.offset + end);
    return { filename: this.filename, start: this.pos(start), end: this.pos(end) };
  }
}

const ID_START = /[\p{ID_Start}_]/u;
const ID_CONT = /[\p{ID_Continue}\-]/u;
const NUMBER_AT = /[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const HEREDOC_AT = /<<(-?)([\p{ID_Start}_][\p{ID_Continue}\-]*)\r?\n/uy;

/** ASCII letters, digits, `_` and `-`: identifier characters decided without a regular expression. */
function asciiIdCont(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

type Mode = { kind: 'brace' } | { kind: 'interp' } | { kind: 'quoted' } | { kind: 'heredoc'; marker: string };

const TWO_OPS: Record<string, TT> = {
  '==': 'op',
  '!=': 'op',
  '<=': 'op',
  '>=': 'op',
  '&&': 'op',
  '||': 'op',
  '=>': 'arrow',
  '::': 'dcolon',
};
const TWO_FIRST = new Set(Object.keys(TWO_OPS).map((k) => k[0]));
const ONE_CHAR: Record<string, TT> = {
  '(': 'oparen',
  ')': 'cparen',
  '[': 'obrack',
  ']': 'cbrack',
  '.': 'dot',
  ',': 'comma',
  '?': 'question',
  ':': 'colon',
  '=': 'equal',
  '<': 'op',
  '>': 'op',
  '!': 'op',
  '+': 'op',
  '-': 'op',
  '*': 'op',
  '/': 'op',
  '%': 'op',
  '&': 'bitop',
  '|': 'bitop',
  '^': 'bitop',
  '~': 'bitop',
};

/** Scans the whole text into tokens (HCL's scanner, with template modes). */
function scan(src: Source, diags: Diagnostic[], template = false): Tokens {
  const s = src.text;
  const toks = new Tokens(s);
  // A whole-file template is a heredoc without a closing marker.
  const stack: Mode[] = template ? [{ kind: 'heredoc', marker: '' }] : [];
  let i = 0;
  const push = (type: TT, start: number, end: number, extra?: { value?: string; strip?: boolean; flush?: boolean }) => toks.push(type, start, end, extra);
  // (An empty stack is tested first: reading index -1 of an array is a slow property lookup.)
  const top = (): Mode | undefined => (stack.length > 0 ? stack[stack.length - 1] : undefined);

  const scanTemplate = (mode: Extract<Mode, { kind: 'quoted' | 'heredoc' }>) => {
    // Scans literal text until a sequence start or the end of the template.
    let litStart = i;
    let val = '';
    const flushLit = () => {
      if (i > litStart) push('lit', litStart, i, { value: val });
      val = '';
    };
    const atLineStart = () => i === 0 || s[i - 1] === '\n';
    for (;;) {
      if (mode.kind === 'heredoc' && mode.marker !== '' && atLineStart()) {
        // A line holding only the marker (after optional indentation) closes the heredoc.
        let j = i;
        while (j < s.length && (s[j] === ' ' || s[j] === '\t')) j++;
        if (s.startsWith(mode.marker, j)) {
          let k = j + mode.marker.length;
          if (k === s.length || s[k] === '\n' || (s[k] === '\r' && s[k + 1] === '\n')) {
            flushLit();
            push('cheredoc', i, k);
            i = k;
            stack.pop();
            return;
          }
        }
      }
      if (i >= s.length) {
        flushLit();
        stack.pop();
        return;
      }
      const c = s[i];
      if (mode.kind === 'quoted' && c === '"') {
        flushLit();
        push('cquote', i, i + 1);
        i++;
        stack.pop();
        return;
      }
      if (mode.kind === 'quoted' && c === '\n') {
        // Quoted strings cannot span lines: the template ends here unterminated.
        flushLit();
        stack.pop();
        return;
      }
      if ((c === '$' || c === '%') && s[i + 1] === c && s[i + 2] === '{') {
        val += c + '{';
        i += 3;
        continue;
      }
      if ((c === '$' || c === '%') && s[i + 1] === '{') {
        flushLit();
        const strip = s[i + 2] === '~';
        push(c === '$' ? 'interp' : 'control', i, i + (strip ? 3 : 2), { strip });
        i += strip ? 3 : 2;
        stack.push({ kind: 'interp' });
        return;
      }
      if (mode.kind === 'quoted' && c === '\\') {
        const e = s[i + 1];
        const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };
        if (e !== undefined && simple[e] !== undefined) {
          val += simple[e];
          i += 2;
          continue;
        }
        if (e === 'u' || e === 'U') {
          const n = e === 'u' ? 4 : 8;
          const hex = s.slice(i + 2, i + 2 + n);
          if (hex.length === n && /^[0-9a-fA-F]+$/.test(hex)) {
            const cp = parseInt(hex, 16);
            if (cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff)) {
              val += String.fromCodePoint(cp);
              i += 2 + n;
              continue;
            }
          }
          diags.push(
            err('Invalid escape sequence', `The \\${e} escape sequence requires ${n} hexadecimal digits.`, src.range(i, i + 2)),
          );
          i += 2;
          continue;
        }
        if (e === undefined || e === '\n') {
          i++;
          continue;
        }
        diags.push(
          err('Invalid escape sequence', `The symbol ${JSON.stringify(e)} is not a valid escape sequence selector.`, src.range(i, i + 2)),
        );
        val += e;
        i += 2;
        continue;
      }
      if (c === '\r' && s[i + 1] === '\n') {
        val += '\n';
        i += 2;
        continue;
      }
      if (c !== '\n' && c !== '\r') {
        // A run of plain characters is appended at once.
        let j = i + 1;
        while (j < s.length) {
          const d = s.charCodeAt(j);
          if (d === 34 || d === 36 || d === 37 || d === 92 || d === 10 || d === 13) break; // " $ % \\ \n \r
          j++;
        }
        val += s.slice(i, j);
        i = j;
        continue;
      }
      val += c;
      i++;
      if (mode.kind === 'heredoc' && c === '\n') {
        // Each heredoc line is its own literal token (flush trimming works per line).
        flushLit();
        litStart = i;
      }
    }
  };

  for (;;) {
    const m = top();
    if (m && (m.kind === 'quoted' || m.kind === 'heredoc')) {
      scanTemplate(m);
      continue;
    }
    if (i >= s.length) break;
    // The commonest tokens (ASCII identifiers, dots, spaces), decided on character codes alone.
    const cc = s.charCodeAt(i);
    if ((cc >= 97 && cc <= 122) || (cc >= 65 && cc <= 90) || cc === 95) {
      let j = i + 1;
      while (j < s.length && asciiIdCont(s.charCodeAt(j))) j++;
      if (j >= s.length || s.charCodeAt(j) < 0x80) {
        toks.pushCode(C_IDENT, i, j);
        i = j;
        continue;
      }
    } else if (cc === 46 && s.charCodeAt(i + 1) !== 46) {
      toks.pushCode(C_DOT, i, i + 1);
      i++;
      continue;
    } else if (cc === 32) {
      i++;
      continue;
    }
    const c = s[i];
    const c2 = s[i + 1];
    if (c === ' ' || c === '\t' || (c === '\r' && c2 !== '\n')) {
      i++;
      continue;
    }
    if (c === '\n' || (c === '\r' && c2 === '\n')) {
      const w = c === '\n' ? 1 : 2;
      push('nl', i, i + w);
      i += w;
      continue;
    }
    if (c === '#' || (c === '/' && c2 === '/')) {
      const st = i;
      while (i < s.length && s[i] !== '\n') i++;
      if (i < s.length) {
        i++;
        push('nl', st, i);
      }
      continue;
    }
    if (c === '/' && c2 === '*') {
      const e = s.indexOf('*/', i + 2);
      i = e < 0 ? s.length : e + 2;
      continue;
    }
    if (c >= '0' && c <= '9') {
      NUMBER_AT.lastIndex = i;
      const m = NUMBER_AT.exec(s)!;
      push('number', i, i + m[0].length);
      i += m[0].length;
      continue;
    }
    const cp = s.codePointAt(i)!;
    const ch = cp < 0x80 ? c : String.fromCodePoint(cp);
    if (cp < 0x80 ? (cp >= 97 && cp <= 122) || (cp >= 65 && cp <= 90) || cp === 95 : ID_START.test(ch)) {
      let j = i + ch.length;
      while (j < s.length) {
        const a = s.charCodeAt(j);
        if (a < 0x80) {
          if (!asciiIdCont(a)) break;
          j++;
          continue;
        }
        const d = String.fromCodePoint(s.codePointAt(j)!);
        if (!ID_CONT.test(d)) break;
        j += d.length;
      }
      push('ident', i, j);
      i = j;
      continue;
    }
    if (c === '"') {
      push('oquote', i, i + 1);
      i++;
      stack.push({ kind: 'quoted' });
      continue;
    }
    if (c === '<' && c2 === '<') {
      HEREDOC_AT.lastIndex = i;
      const hm = HEREDOC_AT.exec(s);
      if (hm) {
        push('oheredoc', i, i + hm[0].length, { flush: hm[1] === '-' });
        i += hm[0].length;
        stack.push({ kind: 'heredoc', marker: hm[2] });
        continue;
      }
    }
    if (c === '.' && c2 === '.' && s[i + 2] === '.') {
      push('ellipsis', i, i + 3);
      i += 3;
      continue;
    }
    const two = c2 !== undefined && TWO_FIRST.has(c) ? TWO_OPS[c + c2] : undefined;
    if (two) {
      push(two, i, i + 2);
      i += 2;
      continue;
    }
    if (c === '~' && c2 === '}' && top()?.kind === 'interp') {
      push('seqend', i, i + 2, { strip: true });
      stack.pop();
      i += 2;
      continue;
    }
    if (c === '{') {
      push('obrace', i, i + 1);
      stack.push({ kind: 'brace' });
      i++;
      continue;
    }
    if (c === '}') {
      const t = top();
      if (t?.kind === 'interp') {
        push('seqend', i, i + 1);
        stack.pop();
      } else {
        push('cbrace', i, i + 1);
        if (t?.kind === 'brace') stack.pop();
      }
      i++;
      continue;
    }
    if (ONE_CHAR[c]) {
      push(ONE_CHAR[c], i, i + 1);
      i++;
      continue;
    }
    push('invalid', i, i + ch.length);
    i += ch.length;
  }
  push('eof', s.length, s.length);
  // HCL's checkInvalidTokens: scanner-level diagnostics come first.
  const cInvalid = TT_CODE.invalid;
  const cBitop = TT_CODE.bitop;
  for (let q = 0; q < toks.n; q++) {
    const k = toks.kind[q];
    if (k !== cInvalid && k !== cBitop) continue;
    const t = toks.at(q);
    if (t.type === 'invalid') {
      if (t.text === "'") {
        diags.push(err('Invalid character', 'Single quotes are not valid. Use double quotes (") to enclose strings.', src.range(t.start, t.end)));
      } else {
        diags.push(err('Invalid character', 'This character is not used within the language.', src.range(t.start, t.end)));
      }
    } else if (t.type === 'bitop') {
      const detail =
        t.text === '&'
          ? 'Bitwise operators are not supported. Did you mean boolean AND ("&&")?'
          : t.text === '|'
            ? 'Bitwise operators are not supported. Did you mean boolean OR ("||")?'
            : t.text === '~'
              ? 'Bitwise operators are not supported. Did you mean boolean NOT ("!")?'
              : 'Bitwise operators are not supported.';
      diags.push(err('Unsupported operator', detail, src.range(t.start, t.end)));
    }
  }
  return toks;
}

function err(summary: string, detail: string, subject: Range, context?: Range): Diagnostic {
  const d: Diagnostic = { severity: 'error', summary, detail, subject, source: 'syntax' };
  if (context) d.context = context;
  return d;
}

/**
 * The deepest nesting of expressions accepted (brackets, braces, parentheses, calls, unary operators,
 * conditionals, template interpolations and directives, splats, operator chains: the height of the AST).
 * Every recursive walk over an AST (this parser, references(), eval.ts) then stays well inside Node's
 * default stack (about 1 MB): at this limit each uses a small fraction of it, measured by
 * test/robustness/deep.test.ts.
 */
export const MAX_EXPR_DEPTH = 256;

export const TOO_DEEP_SUMMARY = 'Expression too deeply nested';
const TOO_DEEP_DETAIL = `This expression is nested more than ${MAX_EXPR_DEPTH} levels deep (brackets, braces, parentheses, function calls, operators, conditionals or templates), which is the limit. Split it into several local values.`;

const OPENERS: ReadonlySet<TT> = new Set<TT>(['oparen', 'obrack', 'obrace', 'oquote', 'oheredoc', 'interp', 'control']);
const CLOSERS: ReadonlySet<TT> = new Set<TT>(['cparen', 'cbrack', 'cbrace', 'cquote', 'cheredoc', 'seqend']);

/**
 * The height check of a parsed AST: the first node (in source order) deeper than MAX_EXPR_DEPTH, if any.
 * Operator chains (`1 + 1 + ...`) and index chains are built by loops in the parser, so their depth is only
 * known here. The recursion stops at the limit, so it is at most MAX_EXPR_DEPTH + 1 frames deep; leaves (most
 * nodes) cost no allocation.
 */
export function tooDeepNode(root: Expr): Expr | undefined {
  return firstDeeper(root, 1);
}

function firstDeeper(e: Expr, d: number): Expr | undefined {
  if (d > MAX_EXPR_DEPTH) return e;
  if (e.kind === 'literal' || e.kind === 'scopeTraversal' || e.kind === 'anonSymbol') return undefined;
  let found: Expr | undefined;
  forEachChild(e, (c) => {
    if (found === undefined) found = firstDeeper(c, d + 1);
  });
  return found;
}

/** The "Expression too deeply nested" diagnostic for the construct at `subject`. */
export function tooDeepDiagnostic(subject: Range): Diagnostic {
  return err(TOO_DEEP_SUMMARY, TOO_DEEP_DETAIL, subject);
}

const BINARY_LEVELS: BinaryOp[][] = [['||'], ['&&'], ['==', '!='], ['<', '>', '<=', '>='], ['+', '-'], ['*', '/', '%']];
/** Each binary operator's precedence: its index in BINARY_LEVELS (higher binds tighter). */
const BINARY_LEVEL = new Map<string, number>(BINARY_LEVELS.flatMap((ops, level) => ops.map((op) => [op, level] as const)));

/** Thrown to unwind the parser after a reported error. Not an Error: capturing a stack trace costs more than the parse. */
class ParseAbort {}

class Parser {
  private p = 0;
  /** Current nesting of expressions being parsed (see MAX_EXPR_DEPTH). */
  private depth = 0;
  private nlStack: boolean[] = [true];
  /** Set once a diagnostic has been reported, to stop cascading (as HCL's "recovery" mode). */
  private failed = false;
  /** Parsing a whole-file template rather than an expression. */
  wholeTemplate = false;
  constructor(
    private toks: Tokens,
    private src: Source,
    readonly diags: Diagnostic[],
  ) {}

  private get includeNl(): boolean {
    return this.nlStack[this.nlStack.length - 1];
  }
  pushNl(b: boolean) {
    this.nlStack.push(b);
  }
  popNl() {
    this.nlStack.pop();
  }
  /** Index of the next significant token (newlines are skipped where they are not significant). */
  private peekIndex(): number {
    let q = this.p;
    if (!this.includeNl) while (this.toks.kind[q] === C_NL) q++;
    return q;
  }
  peek(): Tok {
    return this.toks.at(this.peekIndex());
  }
  next(): Tok {
    const q = this.peekIndex();
    this.p = q;
    const t = this.toks.at(q);
    if (t.type !== 'eof') this.p++;
    return t;
  }
  rangeOf(t: Tok): Range {
    return this.src.range(t.start, t.end);
  }
  span(a: Range, b: Range): Range {
    return rangeSpan(a, b);
  }
  fail(summary: string, detail: string, subject: Range, context?: Range): never {
    if (!this.failed) this.diags.push(err(summary, detail, subject, context));
    this.failed = true;
    throw new ParseAbort();
  }

  /** The whole input as one expression; trailing tokens are "Extra characters after expression". */
  parseTop(): Expr | undefined {
    try {
      const e = this.parseExpression();
      // Trailing newlines are allowed.
      let t = this.peek();
      while (t.type === 'nl') {
        this.p++;
        t = this.peek();
      }
      if (t.type !== 'eof') {
        this.fail(
          'Extra characters after expression',
          'An expression was successfully parsed, but extra characters were found after it.',
          this.rangeOf(t),
        );
      }
      return e;
    } catch (e) {
      if (e instanceof ParseAbort) return undefined;
      throw e;
    }
  }

  parseExpression(): Expr {
    this.enter();
    const first = this.spans ? this.peekIndex() : 0;
    try {
      const e = this.parseTernary();
      if (this.spans) this.spans.set(e, [this.toks.start[first], this.toks.end[this.p - 1]]);
      return e;
    } finally {
      this.depth--;
    }
  }

  /** When set, the source offsets (UTF-16, first token's start to last token's end) of each expression parsed by parseExpression(). */
  spans?: Map<Expr, [number, number]>;

  // ---- configuration bodies (HCL's body grammar) ----------------------------------------------------
  //
  // Used for files too large for tree-sitter (syntax/large.ts). Strict: the first thing that is not a
  // well-formed argument or block stops with a ParseAbort, and the caller falls back to the syntax checker.

  /** The whole token stream as a configuration body; undefined after the first syntax error. */
  parseFileBody(): RawItem[] | undefined {
    try {
      const items = this.bodyItems(false, 0);
      if (this.toks.type(this.p) !== 'eof') this.fail('Argument or block definition required', 'An argument or block definition is required here.', this.rangeOf(this.toks.at(this.p)));
      return items;
    } catch (e) {
      if (e instanceof ParseAbort) return undefined;
      throw e;
    }
  }

  private bodyItems(inBlock: boolean, depth: number): RawItem[] {
    const items: RawItem[] = [];
    const toks = this.toks;
    for (;;) {
      const ty = toks.type(this.p);
      if (ty === 'nl') {
        this.p++;
        continue;
      }
      if (ty === (inBlock ? 'cbrace' : 'eof')) return items;
      if (ty !== 'ident') this.fail('Argument or block definition required', 'An argument or block definition is required here.', this.rangeOf(toks.at(this.p)));
      items.push(this.bodyItem(depth));
      this.endOfLine();
    }
  }

  /** After an argument or block: a newline (consumed) or the end of the file. */
  private endOfLine(): void {
    const ty = this.toks.type(this.p);
    if (ty === 'nl') this.p++;
    else if (ty !== 'eof') this.fail('Missing newline after argument', 'An argument definition must end with a newline.', this.rangeOf(this.toks.at(this.p)));
  }

  private bodyItem(depth: number): RawItem {
    const toks = this.toks;
    const id = this.p++;
    const name = toks.textOf(id);
    if (toks.type(this.p) === 'equal') {
      this.p++;
      return this.attributeRest(id, name);
    }
    if (depth >= MAX_BLOCK_NESTING) this.fail('Blocks too deeply nested', '', this.rangeOf(toks.at(id)));
    const labels: RawLabel[] = [];
    for (;;) {
      const ty = toks.type(this.p);
      if (ty === 'ident') {
        labels.push({ value: toks.textOf(this.p), start: toks.start[this.p], end: toks.end[this.p], quoted: false });
        this.p++;
        continue;
      }
      if (ty === 'oquote') {
        const open = this.p;
        let q = open + 1;
        let value = '';
        if (toks.type(q) === 'lit') value = toks.value(q++) ?? '';
        if (toks.type(q) !== 'cquote') this.fail('Invalid block label', 'Block labels must be quoted strings without interpolation.', this.rangeOf(toks.at(q)));
        labels.push({ value, start: toks.start[open], end: toks.end[q], quoted: true });
        this.p = q + 1;
        continue;
      }
      break;
    }
    if (toks.type(this.p) !== 'obrace') this.fail('Invalid block definition', 'Either a quoted string block label or an opening brace ("{") is expected here.', this.rangeOf(toks.at(this.p)));
    const open = this.p++;
    let body: RawItem[];
    const ty = toks.type(this.p);
    if (ty === 'nl') body = this.bodyItems(true, depth + 1);
    else if (ty === 'cbrace') body = [];
    else {
      // A single-line block: one argument, then the closing brace.
      if (ty !== 'ident' || toks.type(this.p + 1) !== 'equal') this.fail('Argument or block definition required', 'An argument or block definition is required here.', this.rangeOf(toks.at(this.p)));
      const aid = this.p;
      this.p += 2;
      body = [this.attributeRest(aid, toks.textOf(aid))];
    }
    if (toks.type(this.p) !== 'cbrace') this.fail('Unclosed configuration block', '', this.rangeOf(toks.at(open)));
    const close = this.p++;
    return {
      kind: 'block',
      type: name,
      typeStart: toks.start[id],
      typeEnd: toks.end[id],
      labels,
      openStart: toks.start[open],
      openEnd: toks.end[open],
      closeStart: toks.start[close],
      closeEnd: toks.end[close],
      body,
    };
  }

  /** An argument after its `=`: the expression (with its span), checked for nesting height. */
  private attributeRest(id: number, name: string): RawAttribute {
    const toks = this.toks;
    const first = this.p;
    const ty = toks.type(first);
    if (ty === 'nl' || ty === 'eof') this.fail('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', this.rangeOf(toks.at(first)));
    const expr = this.parseExpression();
    const deep = tooDeepNode(expr);
    if (deep) this.fail(TOO_DEEP_SUMMARY, TOO_DEEP_DETAIL, deep.range);
    return { kind: 'attribute', name, nameStart: toks.start[id], nameEnd: toks.end[id], expr, exprStart: toks.start[first], exprEnd: toks.end[this.p - 1] };
  }

  /** One level deeper; past MAX_EXPR_DEPTH, stops parsing with "Expression too deeply nested". */
  private enter(): void {
    if (++this.depth <= MAX_EXPR_DEPTH) return;
    const toks = this.toks;
    let q = this.peekIndex();
    const start = q;
    while (toks.type(q) === 'op' && (toks.textOf(q) === '!' || toks.textOf(q) === '-')) q++;
    if (toks.type(q) === 'ident' && q + 1 < toks.n && toks.type(q + 1) === 'oparen') q++;
    let end = q;
    if (OPENERS.has(toks.type(q))) {
      // The construct runs to its matching closing token, when there is one.
      let level = 0;
      for (let k = q; k < toks.n; k++) {
        const ty = toks.type(k);
        if (OPENERS.has(ty)) level++;
        else if (CLOSERS.has(ty) && --level === 0) {
          end = k;
          break;
        }
      }
    }
    const subject = this.src.range(toks.start[start], toks.end[end]);
    if (!this.failed) this.diags.push(tooDeepDiagnostic(subject));
    this.failed = true;
    throw new ParseAbort();
  }

  private parseTernary(): Expr {
    const cond = this.parseBinary(0);
    if (this.peek().type !== 'question') return cond;
    this.next();
    const t = this.parseExpression();
    const colon = this.peek();
    if (colon.type !== 'colon') {
      this.fail(
        'Missing false expression in conditional',
        'The conditional operator (...?...:...) requires a false expression, delimited by a colon.',
        this.rangeOf(colon),
      );
    }
    this.next();
    const f = this.parseExpression();
    return { kind: 'conditional', cond, trueExpr: t, falseExpr: f, range: this.span(cond.range, f.range) };
  }

  /**
   * Operators of precedence `minLevel` and higher, left-associative (precedence climbing: one call per operand
   * instead of one per level).
   */
  private parseBinary(minLevel: number): Expr {
    let lhs = this.parseUnary();
    for (;;) {
      const t = this.peek();
      if (t.type !== 'op') return lhs;
      const level = BINARY_LEVEL.get(t.text);
      if (level === undefined || level < minLevel) return lhs;
      this.next();
      const rhs = this.parseBinary(level + 1);
      lhs = { kind: 'binary', op: t.text as BinaryOp, lhs, rhs, range: this.span(lhs.range, rhs.range) };
    }
  }

  private parseUnary(): Expr {
    const t = this.peek();
    if (t.type === 'op' && (t.text === '-' || t.text === '!')) {
      this.next();
      const nt = this.peek();
      if (t.text === '-' && nt.type === 'number') {
        // A negative number literal folds into the literal itself, as HCL does.
        const lit = this.parseTraversals(this.parseNumber(this.next()));
        if (lit.kind === 'literal') {
          return { kind: 'literal', value: Value.number(lit.value.num.neg()), range: this.span(this.rangeOf(t), lit.range) };
        }
        return { kind: 'unary', op: '-', operand: lit, range: this.span(this.rangeOf(t), lit.range) };
      }
      let operand: Expr;
      this.enter();
      try {
        operand = this.parseUnary();
      } finally {
        this.depth--;
      }
      return { kind: 'unary', op: t.text, operand, range: this.span(this.rangeOf(t), operand.range) };
    }
    return this.parseTraversals(this.parseTerm());
  }

  private parseNumber(t: Tok): Expr {
    const n = Num.parse(t.text);
    if (!n) this.fail('Invalid number literal', `Failed to recognize the value of this number literal.`, this.rangeOf(t));
    return { kind: 'literal', value: Value.number(n), range: this.rangeOf(t) };
  }

  /** Attribute/index/splat steps after a term. */
  private parseTraversals(from: Expr, attrOnly = false): Expr {
    const r = this.traversalSteps(from, attrOnly);
    // The steps arrays grew by push, which reserves 16 slots for the first step: trimmed to their length, since
    // a configuration's ASTs live as long as it is open (a third of their memory was spare capacity).
    if (r.kind === 'scopeTraversal') r.traversal.steps = trimSteps(r.traversal.steps);
    else if (r.kind === 'relTraversal') r.steps = trimSteps(r.steps);
    return r;
  }

  private traversalSteps(from: Expr, attrOnly: boolean): Expr {
    for (;;) {
      const run = this.attrRun(from);
      if (run) {
        from = run;
        continue;
      }
      const t = this.peek();
      if (t.type === 'dot') {
        this.next();
        const n = this.peek();
        if (n.type === 'ident') {
          this.next();
          from = this.addStep(from, { kind: 'attr', name: internName(n.text), range: this.span(this.rangeOf(t), this.rangeOf(n)) });
          continue;
        }
        if (n.type === 'number' && !attrOnly) {
          // Legacy index syntax: foo.0
          this.next();
          if (!/^[0-9]+$/.test(n.text)) {
            this.fail('Invalid legacy index syntax', 'When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax instead, like [1][0].', this.rangeOf(n));
          }
          from = this.addStep(from, { kind: 'index', key: Value.number(Num.parse(n.text)!), range: this.span(this.rangeOf(t), this.rangeOf(n)) });
          continue;
        }
        if (n.type === 'op' && n.text === '*' && !attrOnly) {
          this.next();
          const marker = this.span(this.rangeOf(t), this.rangeOf(n));
          const anon: Expr = { kind: 'anonSymbol', range: marker };
          this.enter();
          let each: Expr;
          try {
            each = this.parseTraversals(anon, true);
          } finally {
            this.depth--;
          }
          from = { kind: 'splat', source: from, each, range: this.span(from.range, each.range), markerRange: marker };
          continue;
        }
        this.fail('Invalid attribute name', 'An attribute name is required after a dot.', this.rangeOf(n));
      }
      if (t.type === 'obrack' && !attrOnly) {
        this.next();
        this.pushNl(false);
        try {
          const n = this.peek();
          if (n.type === 'op' && n.text === '*') {
            this.next();
            const close = this.next();
            if (close.type !== 'cbrack') {
              this.fail('Missing close bracket on splat index', 'The star for a full splat operator must be immediately followed by a closing bracket ("]").', this.rangeOf(close));
            }
            this.popNl();
            const marker = this.span(this.rangeOf(t), this.rangeOf(close));
            const anon: Expr = { kind: 'anonSymbol', range: marker };
            this.enter();
            let each: Expr;
            try {
              each = this.parseTraversals(anon);
            } finally {
              this.depth--;
            }
            from = { kind: 'splat', source: from, each, range: this.span(from.range, each.range), markerRange: marker };
            this.pushNl(false);
            continue;
          }
          const key = this.parseExpression();
          const close = this.next();
          if (close.type !== 'cbrack') {
            this.fail('Missing close bracket on index', 'The index operator must end with a closing bracket ("]").', this.rangeOf(close));
          }
          const br = this.span(this.rangeOf(t), this.rangeOf(close));
          const lit = literalKey(key);
          if (lit) from = this.addStep(from, { kind: 'index', key: lit, range: br });
          else from = { kind: 'index', collection: from, key, range: this.span(from.range, br), bracketRange: br };
        } finally {
          this.popNl();
        }
        continue;
      }
      return from;
    }
  }

  private addStep(from: Expr, step: TraverseStep): Expr {
    return this.addPart(from, step, step.range);
  }

  /** Appends a step or a compact run whose last step's range is `last`. */
  private addPart(from: Expr, part: TraverseStep | StepRun, last: Range): Expr {
    const range = this.span(from.range, last);
    // `from` was built by this parser and is not shared: steps are appended in place (linear in the chain).
    if (from.kind === 'scopeTraversal') {
      from.traversal.steps = appendSteps(from.traversal.steps, part);
      from.traversal.range = range;
      from.range = range;
      return from;
    }
    if (from.kind === 'relTraversal') {
      from.steps = appendSteps(from.steps, part);
      from.range = range;
      return from;
    }
    return { kind: 'relTraversal', source: from, steps: compactSteps([part]), range };
  }

  /**
   * A run of adjacent `.name` steps at the next token, appended at once: a long run (a 5 MB line of
   * `.a.a.a`) is stored compactly (ast.ts StepRun) and its ranges are computed only when read. Returns
   * undefined when the next tokens are not `.name`.
   */
  private attrRun(from: Expr): Expr | undefined {
    const toks = this.toks;
    const q0 = this.peekIndex();
    let q = q0;
    while (toks.kind[q] === C_DOT && toks.kind[q + 1] === C_IDENT) q += 2;
    const count = (q - q0) >> 1;
    if (count === 0) return undefined;
    this.p = q;
    const src = this.src;
    if (count < COMPACT_RUN_MIN) {
      for (let k = q0; k < q; k += 2) {
        from = this.addStep(from, { kind: 'attr', name: internName(toks.textOf(k + 1)), range: src.range(toks.start[k], toks.end[k + 1]) });
      }
      return from;
    }
    // Per step: the dot's start, the name's start and end.
    const offs = new Int32Array(count * 3);
    for (let i = 0, k = q0; i < count; i++, k += 2) {
      offs[3 * i] = toks.start[k];
      offs[3 * i + 1] = toks.start[k + 1];
      offs[3 * i + 2] = toks.end[k + 1];
    }
    const text = toks.text;
    const run: StepRun = {
      count,
      at: (i) => ({ kind: 'attr', name: text.slice(offs[3 * i + 1], offs[3 * i + 2]), range: src.range(offs[3 * i], offs[3 * i + 2]) }),
    };
    return this.addPart(from, run, src.range(offs[3 * count - 3], offs[3 * count - 1]));
  }

  private parseTerm(): Expr {
    const t = this.peek();
    switch (t.type) {
      case 'oparen': {
        this.next();
        this.pushNl(false);
        let inner: Expr;
        try {
          inner = this.parseExpression();
          const close = this.peek();
          if (close.type !== 'cparen') {
            this.fail('Unbalanced parentheses', 'Expected a closing parenthesis to terminate the expression.', this.rangeOf(close), this.span(this.rangeOf(t), this.rangeOf(close)));
          }
          this.next();
          return { kind: 'paren', expr: inner, range: this.span(this.rangeOf(t), this.rangeOf(close)) };
        } finally {
          this.popNl();
        }
      }
      case 'number':
        this.next();
        return this.parseNumber(t);
      case 'ident':
        return this.parseIdentTerm();
      case 'oquote':
        return this.parseQuoted();
      case 'oheredoc':
        return this.parseHeredoc();
      case 'obrack':
        return this.parseTupleOrFor();
      case 'obrace':
        return this.parseObjectOrFor();
      case 'eof':
        return this.fail('Missing expression', 'Expected the start of an expression, but found the end of the file.', this.rangeOf(t));
      default:
        return this.fail('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', this.rangeOf(t));
    }
  }

  private parseIdentTerm(): Expr {
    const t = this.next();
    const r = this.rangeOf(t);
    const n = this.peek();
    if (n.type === 'oparen' || n.type === 'dcolon') {
      let name = t.text;
      let nameEnd = t;
      while (this.peek().type === 'dcolon') {
        this.next();
        const part = this.next();
        if (part.type !== 'ident') {
          this.fail('Missing function name', 'Function scope resolution symbol :: must be followed by a function name in this scope.', this.rangeOf(part));
        }
        name += '::' + part.text;
        nameEnd = part;
      }
      const open = this.peek();
      if (open.type !== 'oparen') {
        this.fail('Missing function parameter list', 'Function scoped name must be followed by an opening parenthesis "(".', this.rangeOf(open));
      }
      return this.parseCall(name, this.span(r, this.rangeOf(nameEnd)));
    }
    switch (t.text) {
      case 'true':
        return { kind: 'literal', value: Value.bool(true), range: r };
      case 'false':
        return { kind: 'literal', value: Value.bool(false), range: r };
      case 'null':
        return { kind: 'literal', value: Value.null(), range: r };
    }
    const tr: Traversal = { root: internName(t.text), rootRange: r, steps: [], range: r };
    return { kind: 'scopeTraversal', traversal: tr, range: r };
  }

  private parseCall(name: string, nameRange: Range): Expr {
    const open = this.next();
    this.pushNl(false);
    try {
      const args: Expr[] = [];
      let expandFinal = false;
      let close: Tok;
      for (;;) {
        const t = this.peek();
        if (t.type === 'cparen') {
          close = this.next();
          break;
        }
        const arg = this.parseExpression();
        args.push(arg);
        const sep = this.peek();
        if (sep.type === 'ellipsis') {
          this.next();
          expandFinal = true;
          const c = this.peek();
          if (c.type !== 'cparen') {
            this.fail('Missing closing parenthesis', 'An expanded function argument (with ...) must be immediately followed by closing parentheses.', this.rangeOf(c));
          }
          close = this.next();
          break;
        }
        if (sep.type === 'cparen') {
          close = this.next();
          break;
        }
        if (sep.type !== 'comma') {
          if (sep.type === 'eof') {
            this.fail('Unterminated function call', 'There is no closing parenthesis for this function call before the end of the file. This may be caused by incorrect parenthesis nesting elsewhere in this file.', this.rangeOf(open));
          }
          this.fail('Missing argument separator', 'A comma is required to separate each function argument from the next.', this.rangeOf(sep));
        }
        this.next();
      }
      const cr = this.rangeOf(close);
      return {
        kind: 'call',
        name,
        args: exact(args),
        expandFinal,
        nameRange,
        openParenRange: this.rangeOf(open),
        closeParenRange: cr,
        range: this.span(nameRange, cr),
      };
    } finally {
      this.popNl();
    }
  }

  private parseTupleOrFor(): Expr {
    const open = this.next();
    this.pushNl(false);
    try {
      const n = this.peek();
      if (n.type === 'ident' && n.text === 'for') return this.parseFor(open, false);
      const elems: Expr[] = [];
      for (;;) {
        const t = this.peek();
        if (t.type === 'cbrack') break;
        elems.push(this.parseExpression());
        const sep = this.peek();
        if (sep.type === 'cbrack') break;
        if (sep.type === 'eof') {
          this.fail('Unterminated tuple constructor expression', 'There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.', this.rangeOf(open));
        }
        if (sep.type !== 'comma') {
          this.fail('Missing item separator', 'Expected a comma to mark the beginning of the next item.', this.rangeOf(sep), this.span(this.rangeOf(open), this.rangeOf(sep)));
        }
        this.next();
      }
      const close = this.next();
      return { kind: 'tuple', elems: exact(elems), range: this.span(this.rangeOf(open), this.rangeOf(close)), openRange: this.rangeOf(open) };
    } finally {
      this.popNl();
    }
  }

  private parseObjectOrFor(): Expr {
    const open = this.next();
    this.pushNl(true);
    try {
      const skipNl = () => {
        while (this.peek().type === 'nl') this.next();
      };
      skipNl();
      const n = this.peek();
      if (n.type === 'ident' && n.text === 'for') {
        this.pushNl(false);
        try {
          return this.parseFor(open, true);
        } finally {
          this.popNl();
        }
      }
      const items: ObjectItem[] = [];
      for (;;) {
        skipNl();
        const t = this.peek();
        if (t.type === 'cbrace') break;
        if (t.type === 'eof') this.fail('Missing expression', 'Expected the start of an expression, but found the end of the file.', this.rangeOf(t));
        this.pushNl(false);
        let key: Expr;
        let keyIsIdent = false;
        try {
          let kq = this.p;
          while (this.toks.kind[kq] === C_NL) kq++;
          const kt = this.toks.at(kq);
          const after = kq + 1 < this.toks.n ? this.toks.at(kq + 1) : undefined;
          if (kt.type === 'ident' && after && (after.type === 'equal' || after.type === 'colon')) {
            // A bare name (even true/false/null) before "=" is the attribute name itself.
            this.next();
            const r = this.rangeOf(kt);
            key = { kind: 'scopeTraversal', traversal: { root: internName(kt.text), rootRange: r, steps: NONE, range: r }, range: r };
            keyIsIdent = true;
            this.spans?.set(key, [kt.start, kt.end]);
          } else key = this.parseExpression();
        } finally {
          this.popNl();
        }
        const eq = this.peek();
        if (eq.type !== 'equal' && eq.type !== 'colon') {
          if (eq.type === 'nl' || eq.type === 'comma' || eq.type === 'cbrace') {
            this.fail('Missing attribute value', 'Expected an attribute value, introduced by an equals sign ("=").', this.rangeOf(eq));
          }
          this.fail('Missing key/value separator', 'Expected an equals sign ("=") to mark the beginning of the attribute value.', this.rangeOf(eq));
        }
        this.next();
        this.pushNl(false);
        let value: Expr;
        try {
          value = this.parseExpression();
        } finally {
          this.popNl();
        }
        items.push({ key, keyIsIdent, value });
        const sep = this.peek();
        if (sep.type === 'cbrace') break;
        if (sep.type === 'comma' || sep.type === 'nl') {
          this.next();
          continue;
        }
        if (sep.type === 'eof') {
          this.fail('Unterminated object constructor expression', 'There is no corresponding closing brace before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.', this.rangeOf(open));
        }
        this.fail('Missing attribute separator', 'Expected a newline or comma to mark the beginning of the next attribute.', this.rangeOf(sep), this.span(this.rangeOf(open), this.rangeOf(sep)));
      }
      const close = this.next();
      return { kind: 'object', items: exact(items), range: this.span(this.rangeOf(open), this.rangeOf(close)), openRange: this.rangeOf(open) };
    } finally {
      this.popNl();
    }
  }

  private parseFor(open: Tok, isObject: boolean): Expr {
    const closeType: TT = isObject ? 'cbrace' : 'cbrack';
    const forTok = this.next();
    const bad = (detail: string, at: Tok): never =>
      this.fail("Invalid 'for' expression", detail, this.rangeOf(at), this.span(this.rangeOf(open), this.rangeOf(at)));
    let t = this.next();
    if (t.type !== 'ident') bad("For expression requires variable name after 'for'.", t);
    let keyVar: string | undefined;
    let valVar = t.text;
    if (this.peek().type === 'comma') {
      this.next();
      t = this.next();
      if (t.type !== 'ident') bad("For expression requires value variable name after comma.", t);
      keyVar = valVar;
      valVar = t.text;
    }
    t = this.next();
    if (t.type !== 'ident' || t.text !== 'in') bad("For expression requires the 'in' keyword after its name declarations.", t);
    const collection = this.parseExpression();
    t = this.next();
    if (t.type !== 'colon') bad('For expression requires a colon after the collection expression.', t);
    let keyExpr: Expr | undefined;
    let valExpr = this.parseExpression();
    if (this.peek().type === 'arrow') {
      const arrow = this.next();
      if (!isObject) bad('Key expression is not valid when building a tuple.', arrow);
      keyExpr = valExpr;
      valExpr = this.parseExpression();
    }
    let group = false;
    if (this.peek().type === 'ellipsis') {
      const el = this.next();
      if (!isObject) bad('Grouping ellipsis (...) cannot be used when building a tuple.', el);
      group = true;
    }
    let cond: Expr | undefined;
    if (this.peek().type === 'ident' && this.peek().text === 'if') {
      this.next();
      cond = this.parseExpression();
    }
    const close = this.peek();
    if (close.type !== closeType) {
      if (close.type === 'eof') {
        bad(isObject ? 'Missing closing brace.' : 'Missing closing bracket.', close);
      }
      bad("Extra characters after the end of the 'for' expression.", close);
    }
    if (isObject && !keyExpr) bad('Key expression is required when building an object.', close);
    this.next();
    void forTok;
    const range = this.span(this.rangeOf(open), this.rangeOf(close));
    return {
      kind: 'for',
      keyVar,
      valVar,
      collection,
      keyExpr,
      valExpr,
      cond,
      group,
      range,
      openRange: this.rangeOf(open),
      closeRange: this.rangeOf(close),
    };
  }

  // ---- templates ------------------------------------------------------------------------------------

  private parseQuoted(): Expr {
    const open = this.next();
    const items = this.templateItems('cquote', open);
    const close = this.peek();
    if (close.type !== 'cquote') {
      this.fail('Unterminated template string', 'No closing marker was found for the string.', this.span(this.rangeOf(open), this.rangeOf(close)));
    }
    this.next();
    // As HCL, a quoted template's range spans its parts (the quotes only when it has none).
    const range = items.length > 0 ? this.span(items[0].range, items[items.length - 1].range) : this.span(this.rangeOf(open), this.rangeOf(close));
    return this.buildTemplate(items, range, false);
  }

  /** A whole input scanned as a template (templatefile / templatestring). */
  parseWholeTemplate(): Expr | undefined {
    try {
      const items = this.templateItems('eof', this.toks.at(0));
      const t = this.toks.at(this.p);
      if (t.type !== 'eof') {
        const prev = items[items.length - 1];
        this.fail(
          'Unclosed template interpolation sequence',
          'There is no closing brace for this interpolation sequence before the end of the file. This might be caused by incorrect nesting inside the given expression.',
          prev ? prev.range : this.rangeOf(t),
        );
      }
      const all = this.src.range(0, this.src.text.length);
      return this.buildTemplate(items, all, true);
    } catch (e) {
      if (e instanceof ParseAbort) return undefined;
      throw e;
    }
  }

  private parseHeredoc(): Expr {
    const open = this.next();
    const items = this.templateItems('cheredoc', open);
    const close = this.peek();
    if (close.type !== 'cheredoc') {
      this.fail('Unterminated template string', 'No closing marker was found for the string.', this.span(this.rangeOf(open), this.rangeOf(close)));
    }
    this.next();
    if (open.flush) flushTrim(items);
    return this.buildTemplate(items, this.span(this.rangeOf(open), this.rangeOf(close)), true);
  }

  /** Reads the flat sequence of literals, interpolations and directives up to the closing token. */
  private templateItems(end: TT, _open: Tok): TItem[] {
    const items: TItem[] = [];
    this.pushNl(true);
    try {
      for (;;) {
        const t = this.toks.at(this.p);
        if (t.type === end || t.type === 'eof') return items;
        if (t.type === 'lit') {
          this.p++;
          items.push({ kind: 'lit', text: t.value ?? '', range: this.rangeOf(t), lineStart: t.start === 0 || this.src.text[t.start - 1] === '\n' });
          continue;
        }
        if (t.type === 'interp') {
          this.p++;
          this.pushNl(false);
          let e: Expr;
          try {
            if (this.peek().type === 'seqend') {
              this.fail('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', this.rangeOf(this.peek()));
            }
            e = this.parseExpression();
          } finally {
            this.popNl();
          }
          const close = this.skipNlTok();
          if (close.type !== 'seqend') this.unterminatedSeq(close, 'interpolation');
          this.p++;
          items.push({ kind: 'interp', expr: e, stripLeft: !!t.strip, stripRight: !!close.strip, range: this.span(this.rangeOf(t), this.rangeOf(close)) });
          continue;
        }
        if (t.type === 'control') {
          this.p++;
          this.pushNl(false);
          let item: TItem;
          try {
            const kw = this.next();
            if (kw.type !== 'ident') {
              this.fail('Invalid template directive', 'A template directive keyword ("if", "for", etc) is expected at the beginning of a %{ sequence.', this.rangeOf(kw));
            }
            switch (kw.text) {
              case 'if':
                item = { kind: 'if', cond: this.parseExpression(), stripLeft: !!t.strip, stripRight: false, range: this.rangeOf(t) };
                break;
              case 'else':
              case 'endif':
              case 'endfor':
                item = { kind: kw.text, stripLeft: !!t.strip, stripRight: false, range: this.rangeOf(t) };
                break;
              case 'for': {
                const a = this.next();
                if (a.type !== 'ident') this.fail('Invalid template for directive', 'Directive for requires a variable name after "for".', this.rangeOf(a));
                let keyVar: string | undefined;
                let valVar = a.text;
                let nt = this.next();
                if (nt.type === 'comma') {
                  const b = this.next();
                  if (b.type !== 'ident') this.fail('Invalid template for directive', 'Directive for requires a value variable name after the comma.', this.rangeOf(b));
                  keyVar = valVar;
                  valVar = b.text;
                  nt = this.next();
                }
                if (nt.type !== 'ident' || nt.text !== 'in') {
                  this.fail('Invalid template for directive', 'Directive for requires an "in" keyword after its variable names.', this.rangeOf(nt));
                }
                item = { kind: 'for', keyVar, valVar, coll: this.parseExpression(), stripLeft: !!t.strip, stripRight: false, range: this.rangeOf(t) };
                break;
              }
              default:
                this.fail('Invalid template control keyword', `"${kw.text}" is not a valid template control keyword.`, this.rangeOf(kw));
            }
          } finally {
            this.popNl();
          }
          const close = this.skipNlTok();
          if (close.type !== 'seqend') this.unterminatedSeq(close, 'directive');
          this.p++;
          item.stripRight = !!close.strip;
          item.range = this.span(this.rangeOf(t), this.rangeOf(close));
          items.push(item);
          continue;
        }
        // Anything else inside a template means the sequence structure broke down.
        return items;
      }
    } finally {
      this.popNl();
    }
  }

  private skipNlTok(): Tok {
    while (this.toks.kind[this.p] === C_NL) this.p++;
    return this.toks.at(this.p);
  }

  private unterminatedSeq(t: Tok, what: string): never {
    if (t.type === 'eof' && this.wholeTemplate) {
      let q = this.p - 1;
      while (q > 0 && this.toks.type(q) !== 'interp' && this.toks.type(q) !== 'control') q--;
      const prev = q > 0 && this.toks.type(q - 1) === 'lit' ? this.toks.at(q - 1) : this.toks.at(q);
      this.fail(
        'Unclosed template interpolation sequence',
        'There is no closing brace for this interpolation sequence before the end of the file. This might be caused by incorrect nesting inside the given expression.',
        this.rangeOf(prev),
      );
    }
    if (t.type === 'eof' || t.type === 'cquote' || t.type === 'cheredoc') {
      this.fail('Unterminated template string', 'No closing marker was found for the string.', this.rangeOf(t));
    }
    if (what === 'interpolation') {
      this.fail('Extra characters after interpolation expression', 'Expected a closing brace to end the interpolation expression, but found extra characters.', this.rangeOf(t));
    }
    this.fail('Extra characters in directive', 'Expected a closing brace to end the directive, but found extra characters.', this.rangeOf(t));
  }

  /** Applies strip markers, then nests directives into conditionals and joins. */
  private buildTemplate(items: TItem[], range: Range, heredoc: boolean): Expr {
    for (let k = 0; k < items.length; k++) {
      const it = items[k];
      if (it.kind === 'lit') continue;
      if (it.stripLeft && k > 0 && items[k - 1].kind === 'lit') {
        const l = items[k - 1] as LitItem;
        l.text = l.text.replace(/[ \t\r\n]+$/, '');
      }
      if (it.stripRight && k + 1 < items.length && items[k + 1].kind === 'lit') {
        const l = items[k + 1] as LitItem;
        l.text = l.text.replace(/^[ \t\r\n]+/, '');
      }
    }
    void heredoc;
    let pos = 0;
    let nesting = this.depth;
    const parseSeq = (stopAt: string[]): { parts: Expr[]; stop?: TItem } => {
      const parts: Expr[] = [];
      while (pos < items.length) {
        const it = items[pos];
        switch (it.kind) {
          case 'lit':
            pos++;
            parts.push({ kind: 'literal', value: Value.string(it.text), range: it.range });
            break;
          case 'interp':
            pos++;
            parts.push(it.expr);
            break;
          case 'if': {
            pos++;
            if (++nesting > MAX_EXPR_DEPTH) this.fail(TOO_DEEP_SUMMARY, TOO_DEEP_DETAIL, it.range);
            const t = parseSeq(['else', 'endif']);
            let f: Expr[] = [];
            let endRange = it.range;
            if (!t.stop) this.fail('Unexpected end of template', `The if directive at ${rangeString(it.range)} is missing its corresponding endif directive.`, it.range);
            if (t.stop.kind === 'else') {
              const e = parseSeq(['endif']);
              if (!e.stop) this.fail('Unexpected end of template', `The if directive at ${rangeString(it.range)} is missing its corresponding endif directive.`, it.range);
              f = e.parts;
              endRange = e.stop.range;
            } else endRange = t.stop.range;
            const r = this.span(it.range, endRange);
            nesting--;
            parts.push({
              kind: 'conditional',
              cond: it.cond,
              trueExpr: { kind: 'template', parts: t.parts, range: r },
              falseExpr: { kind: 'template', parts: f, range: r },
              range: r,
            });
            break;
          }
          case 'for': {
            pos++;
            if (++nesting > MAX_EXPR_DEPTH) this.fail(TOO_DEEP_SUMMARY, TOO_DEEP_DETAIL, it.range);
            const body = parseSeq(['endfor']);
            if (!body.stop) this.fail('Unexpected end of template', `The for directive at ${rangeString(it.range)} is missing its corresponding endfor directive.`, it.range);
            if (body.stop.kind !== 'endfor') {
              // Reported without stopping: HCL goes on and also reports the now-unbalanced endfor.
              this.diags.push(err('Unexpected else directive', 'An else clause is not expected for a for directive.', body.stop.range));
            }
            const r = this.span(it.range, body.stop.range);
            const fe: Expr = {
              kind: 'for',
              keyVar: it.keyVar,
              valVar: it.valVar,
              collection: it.coll,
              valExpr: { kind: 'template', parts: body.parts, range: r },
              group: false,
              range: r,
              openRange: it.range,
              closeRange: body.stop.range,
            };
            nesting--;
            parts.push({ kind: 'templateJoin', tuple: fe, range: r });
            break;
          }
          default:
            if (stopAt.includes(it.kind) || (it.kind === 'else' && stopAt.includes('endfor'))) {
              pos++;
              return { parts, stop: it };
            }
            this.fail(`Unexpected ${it.kind} directive`, 'The control directives within this template are unbalanced.', it.range);
        }
      }
      return { parts };
    };
    const { parts } = parseSeq([]);
    if (parts.length === 1 && items.length === 1 && items[0].kind === 'interp') {
      return { kind: 'templateWrap', wrapped: parts[0], range };
    }
    return { kind: 'template', parts: exact(parts), range };
  }
}

interface LitItem {
  kind: 'lit';
  text: string;
  range: Range;
  /** The literal begins at the start of a line (for <<- trimming). */
  lineStart: boolean;
}
type TItem =
  | LitItem
  | { kind: 'interp'; expr: Expr; stripLeft: boolean; stripRight: boolean; range: Range }
  | { kind: 'if'; cond: Expr; stripLeft: boolean; stripRight: boolean; range: Range }
  | { kind: 'for'; keyVar?: string; valVar: string; coll: Expr; stripLeft: boolean; stripRight: boolean; range: Range }
  | { kind: 'else' | 'endif' | 'endfor'; stripLeft: boolean; stripRight: boolean; range: Range };

/** <<- heredocs: removes the smallest indentation found at the start of any line from every line. */
function flushTrim(items: TItem[]): void {
  let min = Infinity;
  // A line start is either a literal marked lineStart, or a non-literal item directly at a line start.
  for (let k = 0; k < items.length; k++) {
    const it = items[k];
    const atLineStart = it.kind === 'lit' ? it.lineStart : k === 0 || (items[k - 1].kind === 'lit' && (items[k - 1] as LitItem).text.endsWith('\n'));
    if (!atLineStart) continue;
    if (it.kind !== 'lit') {
      min = 0;
      continue;
    }
    const m = /^[ \t]*/.exec(it.text)![0].length;
    if (m === it.text.length && k + 1 < items.length && items[k + 1].kind !== 'lit') {
      min = Math.min(min, m);
      continue;
    }
    if (/^[ \t]*\n?$/.test(it.text)) continue; // blank lines do not count
    min = Math.min(min, m);
  }
  if (!isFinite(min) || min === 0) return;
  for (const it of items) {
    if (it.kind === 'lit' && it.lineStart) {
      const lead = /^[ \t]*/.exec(it.text)![0].length;
      it.text = it.text.slice(Math.min(lead, min));
    }
  }
}

function rangeString(r: Range): string {
  if (r.start.line === r.end.line) return `${r.filename}:${r.start.line},${r.start.column}-${r.end.column}`;
  return `${r.filename}:${r.start.line},${r.start.column}-${r.end.line},${r.end.column}`;
}

/** A literal index key (number, or a quoted string without interpolations), as HCL folds into traversals. */
function literalKey(e: Expr): Value | undefined {
  if (e.kind === 'literal') return e.value;
  if (e.kind === 'template' && e.parts.every((p) => p.kind === 'literal')) {
    return Value.string(e.parts.map((p) => (p.kind === 'literal' ? p.value.str : '')).join(''));
  }
  return undefined;
}

/** Reports an AST deeper than MAX_EXPR_DEPTH (operator and index chains the parser built by loops). */
function checkHeight(expr: Expr | undefined, diags: Diagnostic[]): void {
  if (!expr || diags.length > 0) return;
  const deep = tooDeepNode(expr);
  if (deep) diags.push(tooDeepDiagnostic(deep.range));
}

const START: Pos = { line: 1, column: 1, byte: 0 };

/**
 * Where an expression's text lies in its file, when the caller has the file's positions at hand: the AST's
 * positions are then the file's own (`source.pos(offset + index)`), shared with the other ranges built from it
 * and computed without indexing the text again. The text must be exactly the file's text at `offset`.
 */
export interface OuterPositions {
  source: { pos(index: number): Pos; range(start: number, end: number): Range };
  offset: number;
}

/**
 * Parses a standalone expression whose text starts at `start` in its file (ignored with `outer`, which places it).
 * `expr` is absent when the text has syntax errors.
 */
export function parseExpression(text: string, filename: string, start: Pos = START, outer?: OuterPositions): { expr?: Expr; diagnostics: Diagnostic[] } {
  const src = new Source(text, filename, start, outer);
  const diags: Diagnostic[] = [];
  const toks = scan(src, diags);
  const p = new Parser(toks, src, diags);
  const expr = p.parseTop();
  toks.release();
  checkHeight(expr, diags);
  if (diags.length > 0) return { expr: undefined, diagnostics: diags };
  return { expr, diagnostics: diags };
}

/** Parses a whole text as a template (the contents of a templatefile() file). */
export function parseTemplate(text: string, filename: string): { expr?: Expr; diagnostics: Diagnostic[] } {
  const src = new Source(text, filename, START);
  const diags: Diagnostic[] = [];
  const toks = scan(src, diags, true);
  const p = new Parser(toks, src, diags);
  p.wholeTemplate = true;
  const expr = p.parseWholeTemplate();
  checkHeight(expr, diags);
  if (diags.length > 0) return { expr: undefined, diagnostics: diags };
  return { expr, diagnostics: diags };
}

/**
 * Converts the `expression` node of an attribute into an AST. On syntax errors the expression is a
 * literal unknown placeholder spanning the node, beside the diagnostics.
 */
export function exprFromNode(node: SyntaxNode, filename: string, src: string): { expr: Expr; diagnostics: Diagnostic[] } {
  const text = src.slice(node.startIndex, node.endIndex);
  const start = posAt(src, node.startIndex);
  const r = parseExpression(text, filename, start);
  if (r.expr) return { expr: r.expr, diagnostics: r.diagnostics };
  const range: Range = { filename, start, end: posAt(src, node.endIndex) };
  return { expr: { kind: 'literal', value: Value.unknown(), range }, diagnostics: r.diagnostics };
}

/** A block label: its value and the source offsets of its token (with the quotes when quoted). */
export interface RawLabel {
  value: string;
  start: number;
  end: number;
  quoted: boolean;
}
/** An argument of a configuration body; offsets are UTF-16 indexes into the file's text. */
export interface RawAttribute {
  kind: 'attribute';
  name: string;
  nameStart: number;
  nameEnd: number;
  expr: Expr;
  exprStart: number;
  exprEnd: number;
}
export interface RawBlock {
  kind: 'block';
  type: string;
  typeStart: number;
  typeEnd: number;
  labels: RawLabel[];
  openStart: number;
  openEnd: number;
  closeStart: number;
  closeEnd: number;
  body: RawItem[];
}
export type RawItem = RawAttribute | RawBlock;

/** Blocks nested deeper than this stop parseConfigBody (as syntax/errors.ts MAX_BLOCK_DEPTH). */
const MAX_BLOCK_NESTING = 256;

/**
 * Parses a whole configuration file with HCL's body grammar: arguments and blocks, their expressions as
 * ASTs with ranges in the file, and the source span of every expression parsed (for tuple elements,
 * object items and call arguments). Strict: `items` is undefined when the file has any syntax error
 * (`diagnostics` then holds the first one found); callers fall back to syntax/errors.ts for HCL's full
 * reporting. Linear in the text, for files too large for tree-sitter (syntax/large.ts).
 */
export function parseConfigBody(text: string, filename: string): { items?: RawItem[]; spans: Map<Expr, [number, number]>; diagnostics: Diagnostic[] } {
  const src = new Source(text, filename, START);
  const diags: Diagnostic[] = [];
  const toks = scan(src, diags);
  const spans = new Map<Expr, [number, number]>();
  if (diags.length > 0) return { spans, diagnostics: diags };
  const p = new Parser(toks, src, diags);
  p.spans = spans;
  const items = p.parseFileBody();
  if (!items || diags.length > 0) return { spans, diagnostics: diags };
  return { items, spans, diagnostics: diags };
}

/** All scope traversals read by the expression, in source order, as HCL's Variables(). */
export function references(expr: Expr): readonly Traversal[] {
  // An AST never changes once parsed, and one expression is evaluated once per instance of its block (and
  // again by the static checks): each walk is done once.
  const known = referencesOf.get(expr);
  if (known) return known;
  const out: Traversal[] = [];
  // The names bound by the enclosing `for` expressions; one walker closure for the whole tree (this runs for
  // every expression of a configuration: a closure and a set per node were most of its cost).
  let bound: ReadonlySet<string> | undefined;
  const walk = (e: Expr): void => {
    switch (e.kind) {
      case 'literal':
        return;
      case 'scopeTraversal':
        if (!bound?.has(e.traversal.root)) out.push(e.traversal);
        return;
      case 'for': {
        walk(e.collection);
        const outer = bound;
        const inner = new Set(outer);
        inner.add(e.valVar);
        if (e.keyVar) inner.add(e.keyVar);
        bound = inner;
        if (e.keyExpr) walk(e.keyExpr);
        walk(e.valExpr);
        if (e.cond) walk(e.cond);
        bound = outer;
        return;
      }
      case 'object':
        for (const it of e.items) {
          if (!it.keyIsIdent) walk(it.key);
          walk(it.value);
        }
        return;
      default:
        forEachChild(e, walk);
    }
  };
  walk(expr);
  referencesOf.set(expr, out);
  return out;
}
const referencesOf = new WeakMap<Expr, readonly Traversal[]>();

/** Terraform's way of writing a traversal in diagnostics ("var.x", "aws_instance.a[0]"). */
export function traversalString(t: Traversal): string {
  let s = t.root;
  for (const st of t.steps) {
    if (st.kind === 'attr') s += '.' + st.name;
    else if (st.key.type.kind === 'string' && st.key.isKnown && !st.key.isNull) s += `[${JSON.stringify(st.key.str)}]`;
    else if (st.key.type.kind === 'number' && st.key.isKnown && !st.key.isNull) s += `[${st.key.num.toString()}]`;
    else s += '[...]';
  }
  return s;
}
