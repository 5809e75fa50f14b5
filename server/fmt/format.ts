// The formatter: gives the exact bytes `terraform fmt` (Terraform 1.11, hclwrite) would write for a file.
//
// Contract: `format(src, filename)` is pure and synchronous. When the source has syntax errors, `output` is
// undefined and `diagnostics` holds HCL's error messages (the caller prints them and exits 2, as Terraform
// does); otherwise `output` is the canonical text and `diagnostics` is empty. The algorithm is Terraform's:
// normalise block labels, unwrap legacy "${expr}" values and quoted variable types, then re-space every
// token by the line-oriented rules of hclwrite (indent by net brackets per line, fixed spacing between token
// pairs, then align "=" and trailing comments over runs of consecutive lines).

import type { Diagnostic, Pos, Range } from '../diags/diagnostic';
import { T, lex, type Token } from './lexer';
import { isGoPrint } from '../lang/goquote';
import { decodeStringLit, goQuote, parseConfig, type PBlock, type PBody, type Span, type SynDiag } from './parser';

export interface FormatResult {
  /** The formatted text, absent when the source has syntax errors. */
  output?: string;
  diagnostics: Diagnostic[];
  /** Context string ("resource \"a\" \"b\"") for a diagnostic range, as Terraform prints after "on FILE line N, in". */
  contextOf?: (r: Range) => string | undefined;
}

/** A token as the formatter handles it: its text and the number of spaces written before it. */
interface FTok {
  type: T;
  text: string;
  spaces: number;
}

export function format(src: string, filename: string): FormatResult {
  let body = src;
  let bomBytes = 0;
  if (body.charCodeAt(0) === 0xfeff) {
    body = body.slice(1);
    bomBytes = 3;
  }
  const tokens = lex(body);
  const positions = new PosMap(body, bomBytes);
  const fmtSpan = (sp: Span) => {
    const a = positions.pos(sp.s);
    const b = positions.pos(sp.e);
    return a.line === b.line ? `${filename}:${a.line},${a.column}-${b.column}` : `${filename}:${a.line},${a.column}-${b.line},${b.column}`;
  };
  const parsed = parseConfig(body, tokens, fmtSpan);
  const synDiags = [...lexDiagnostics(body, tokens), ...parsed.diags];
  if (synDiags.length > 0) {
    const toRange = (sp: Span): Range => ({ filename, start: positions.pos(sp.s), end: positions.pos(sp.e) });
    const diagnostics: Diagnostic[] = synDiags.map((d) => ({
      severity: 'error',
      summary: d.summary,
      detail: d.detail,
      subject: toRange(d.subject),
      context: d.context ? toRange(d.context) : undefined,
      source: 'syntax',
    }));
    const blocks = parsed.body.blocks.map((b) => ({ block: b, s: positions.pos(b.span.s).byte, e: positions.pos(b.span.e).byte }));
    const contextOf = (r: Range): string | undefined => {
      const off = r.start.byte - 1;
      const hit = blocks.find((b) => off >= b.s && off < b.e);
      if (!hit) return undefined;
      return [hit.block.type, ...hit.block.labels.map(goQuote)].join(' ');
    };
    return { diagnostics, contextOf };
  }

  const out = rewrite(body, tokens, parsed.body);
  formatTokens(out);
  let text = '';
  for (const t of out) text += (t.spaces > 0 ? ' '.repeat(t.spaces) : '') + t.text;
  return { output: text, diagnostics: [] };
}

// ---------------------------------------------------------------------------------------------------------
// Terraform's rewrites (its `fmt` command's formatBody), applied while copying the token stream.

function rewrite(src: string, tokens: Token[], root: PBody): FTok[] {
  const replace = new Map<number, { last: number; with: FTok[] }>();
  const toF = (t: Token): FTok => ({ type: t.type, text: src.slice(t.start, t.end), spaces: 0 });
  const slice = (first: number, last: number) => tokens.slice(first, last + 1).map(toF);

  const visit = (body: PBody, inBlocks: string[]) => {
    for (const a of body.attrs) {
      const exprToks = slice(a.exprFirst, a.exprLast);
      const cleaned = inBlocks.length === 1 && inBlocks[0] === 'variable' && a.name === 'type' ? typeExpr(exprToks) : valueExpr(exprToks);
      if (cleaned !== exprToks) replace.set(a.exprFirst, { last: a.exprLast, with: cleaned });
    }
    for (const b of body.blocks) {
      if (b.labelFirst >= 0) replace.set(b.afterType, { last: b.labelLast, with: labelTokens(currentLabels(src, tokens, b)) });
      visit(b.body, [...inBlocks, b.type]);
    }
  };
  visit(root, []);

  const out: FTok[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const r = replace.get(i);
    if (r) {
      out.push(...r.with);
      i = r.last;
      continue;
    }
    if (tokens[i].type === T.EOF) break;
    out.push(toF(tokens[i]));
  }
  return out;
}

/** The labels hclwrite reads back from a block: bare names, and quoted strings made of one plain literal. */
function currentLabels(src: string, tokens: Token[], b: PBlock): string[] {
  const labels: string[] = [];
  for (const [first, last] of b.labelSpans) {
    const toks = tokens.slice(first, last + 1);
    if (toks.length === 1 && toks[0].type === T.Ident) {
      labels.push(src.slice(toks[0].start, toks[0].end));
    } else if (toks.length === 3 && toks[0].type === T.OQuote && toks[1].type === T.QuotedLit && toks[2].type === T.CQuote) {
      const [value, diags] = decodeStringLit(src.slice(toks[1].start, toks[1].end), toks[1].start);
      if (diags.length === 0) labels.push(value);
    } else if (toks.length === 2 && toks[0].type === T.OQuote && toks[1].type === T.CQuote) {
      labels.push('');
    }
  }
  return labels;
}

function labelTokens(labels: string[]): FTok[] {
  const out: FTok[] = [];
  for (const l of labels) {
    out.push({ type: T.OQuote, text: '"', spaces: 0 });
    if (l !== '') out.push({ type: T.QuotedLit, text: escapeQuoted(l), spaces: 0 });
    out.push({ type: T.CQuote, text: '"', spaces: 0 });
  }
  return out;
}

/** Writes a string as the body of an HCL quoted literal, escaping as hclwrite does. */
function escapeQuoted(s: string): string {
  let out = '';
  const chars = [...s];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    switch (ch) {
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '$':
      case '%':
        out += chars[i + 1] === '{' ? ch + ch : ch;
        break;
      default: {
        if (isGoPrint(ch.codePointAt(0)!)) out += ch;
        else {
          const c = ch.codePointAt(0)!;
          out += c < 0x10000 ? '\\u' + c.toString(16).padStart(4, '0') : '\\U' + c.toString(16).padStart(8, '0');
        }
      }
    }
  }
  return out;
}

const tok = (type: T, text: string): FTok => ({ type, text, spaces: 0 });

/** Unwraps an attribute value that is exactly one interpolation, "${expr}", to `expr`; otherwise returns `toks`. */
function valueExpr(toks: FTok[]): FTok[] {
  if (toks.length < 5) return toks;
  const n = toks.length;
  if (toks[0].type !== T.OQuote || toks[1].type !== T.TemplateInterp || toks[n - 2].type !== T.TemplateSeqEnd || toks[n - 1].type !== T.CQuote) {
    return toks;
  }
  const inside = toks.slice(2, n - 2);
  let quotes = 0;
  for (const t of inside) {
    if (t.type === T.OQuote) {
      quotes++;
      continue;
    }
    if (t.type === T.CQuote) {
      quotes--;
      continue;
    }
    if (quotes > 0) continue;
    if (t.type === T.TemplateInterp || t.type === T.TemplateSeqEnd || t.type === T.QuotedLit) return toks;
  }
  let a = 0;
  let b = inside.length;
  while (a < b && inside[a].type === T.Newline) a++;
  while (b > a && inside[b - 1].type === T.Newline) b--;
  const trimmed = inside.slice(a, b);
  let multiLine = false;
  let leadParen = false;
  let trailParen = false;
  trimmed.forEach((t, i) => {
    if (i === 0 && t.type === T.OParen) leadParen = true;
    else if (t.type === T.Newline) multiLine = true;
    else if (i === trimmed.length - 1 && t.type === T.CParen) trailParen = true;
  });
  if (multiLine && !(leadParen && trailParen)) return [tok(T.OParen, '('), ...trimmed, tok(T.CParen, ')')];
  return trimmed;
}

/** Rewrites pre-0.12 type constraints in a top-level variable block ("string", list, ...); otherwise returns `toks`. */
function typeExpr(toks: FTok[]): FTok[] {
  if (toks.length === 1) {
    const kw = toks[0];
    if (kw.type === T.Ident && (kw.text === 'list' || kw.text === 'map' || kw.text === 'set')) {
      return [kw, tok(T.OParen, '('), tok(T.Ident, 'any'), tok(T.CParen, ')')];
    }
    return toks;
  }
  if (toks.length === 3 && toks[0].type === T.OQuote && toks[1].type === T.QuotedLit && toks[2].type === T.CQuote) {
    switch (toks[1].text) {
      case 'string':
        return [tok(T.Ident, 'string')];
      case 'list':
      case 'map':
        return [tok(T.Ident, toks[1].text), tok(T.OParen, '('), tok(T.Ident, 'string'), tok(T.CParen, ')')];
    }
  }
  return toks;
}

// ---------------------------------------------------------------------------------------------------------
// hclwrite's whitespace algorithm.

interface Line {
  lead: FTok[];
  assign?: FTok[];
  comment?: FTok[];
}

const NIL: FTok = { type: T.Nil, text: '', spaces: 0 };

function isNewline(t: FTok): boolean {
  return t.type === T.Newline || (t.type === T.Comment && t.text.endsWith('\n'));
}

function bracketChange(t: FTok): number {
  switch (t.type) {
    case T.OBrace:
    case T.OBrack:
    case T.OParen:
    case T.TemplateControl:
    case T.TemplateInterp:
      return 1;
    case T.CBrace:
    case T.CBrack:
    case T.CParen:
    case T.TemplateSeqEnd:
      return -1;
    default:
      return 0;
  }
}

/** Sets `spaces` on every token of the sequence, in place. */
export function formatTokens(toks: FTok[]): void {
  const lines = splitLines(toks);
  indent(lines);
  space(lines);
  align(lines);
}

function splitLines(toks: FTok[]): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (let i = 0; i < toks.length; i++) {
    if (isNewline(toks[i])) {
      lines.push({ lead: toks.slice(start, i + 1) });
      start = i + 1;
    }
  }
  lines.push({ lead: toks.slice(start) });
  for (const line of lines) {
    const lead = line.lead;
    if (lead.length === 0) continue;
    if (lead.length > 1 && lead[lead.length - 1].type === T.Comment) {
      line.comment = lead.slice(lead.length - 1);
      line.lead = lead.slice(0, lead.length - 1);
    }
    for (let i = 1; i < line.lead.length; i++) {
      if (line.lead[i].type !== T.Equal) continue;
      let net = 0;
      for (let j = i; j < line.lead.length; j++) net += bracketChange(line.lead[j]);
      if (net === 0) {
        line.assign = line.lead.slice(i);
        line.lead = line.lead.slice(0, i);
      }
      break;
    }
  }
  return lines;
}

function indent(lines: Line[]): void {
  const stack: number[] = [];
  for (const line of lines) {
    if (line.lead.length === 0) continue;
    if (line.lead[0].type === T.Newline) {
      line.lead[0].spaces = 0;
      continue;
    }
    let net = 0;
    for (const t of line.lead) {
      net += bracketChange(t);
      if (t.type === T.OHeredoc) break;
    }
    if (line.assign) for (const t of line.assign) net += bracketChange(t);
    if (net > 0) {
      line.lead[0].spaces = 2 * stack.length;
      stack.push(net);
    } else {
      let closed = -net;
      while (closed > 0 && stack.length > 0) {
        const top = stack[stack.length - 1];
        if (closed > top) {
          closed -= top;
          stack.pop();
        } else if (closed < top) {
          stack[stack.length - 1] = top - closed;
          closed = 0;
        } else {
          stack.pop();
          closed = 0;
        }
      }
      line.lead[0].spaces = 2 * stack.length;
    }
  }
}

function spaceCell(cell: FTok[]): void {
  for (let i = 0; i < cell.length - 1; i++) {
    const before = i > 0 ? cell[i - 1] : NIL;
    cell[i + 1].spaces = spaceAfter(cell[i], before, cell[i + 1]) ? 1 : 0;
  }
}

function space(lines: Line[]): void {
  for (const line of lines) {
    spaceCell(line.lead);
    if (line.assign) {
      line.assign[0].spaces = 1;
      spaceCell(line.assign);
    }
  }
}

const TEMPLATE_EDGE = new Set<T>([T.QuotedLit, T.StringLit, T.OQuote, T.OHeredoc]);
const TEMPLATE_AFTER = new Set<T>([T.QuotedLit, T.StringLit, T.CQuote, T.CHeredoc]);
const NEGATION_BEFORE = new Set<T>([
  T.Nil,
  T.OParen,
  T.OBrace,
  T.OBrack,
  T.Equal,
  T.Colon,
  T.Comma,
  T.Question,
  T.Plus,
  T.Star,
  T.Slash,
  T.Percent,
  T.Minus,
  T.EqualOp,
  T.NotEqual,
  T.GreaterThan,
  T.GreaterThanEq,
  T.LessThan,
  T.LessThanEq,
  T.And,
  T.Or,
  T.Bang,
]);

/** Whether one space goes between `subject` and `after` (hclwrite's spacing rules, in its order of precedence). */
function spaceAfter(subject: FTok, before: FTok, after: FTok): boolean {
  const s = subject.type;
  const a = after.type;
  if (a === T.Newline || a === T.Nil) return false;
  if (s === T.Ident && a === T.OParen) return false;
  if ((s === T.Ident && a === T.DoubleColon) || (s === T.DoubleColon && a === T.Ident)) return false;
  if (s === T.Dot || a === T.Dot) return false;
  if (a === T.Comma || a === T.Ellipsis) return false;
  if (s === T.Comma) return true;
  if (TEMPLATE_EDGE.has(s) || TEMPLATE_AFTER.has(a)) return false;
  if (s === T.Ident && subject.text === 'in' && before.type === T.Ident) return true;
  if (a === T.OBrack && (s === T.Ident || s === T.NumberLit || bracketChange(subject) < 0)) return false;
  if (s === T.Bang) return false;
  if (s === T.Minus) return !NEGATION_BEFORE.has(before.type);
  if (s === T.OBrace || a === T.CBrace) return !(s === T.OBrace && a === T.CBrace);
  if ((s === T.TemplateInterp || s === T.TemplateControl) && a === T.OBrace) return true;
  if (s === T.CBrace && a === T.TemplateSeqEnd) return true;
  if (s === T.TemplateSeqEnd && (a === T.TemplateInterp || a === T.TemplateControl)) return false;
  if (bracketChange(subject) > 0) return false;
  if (bracketChange(after) < 0) return false;
  return true;
}

let segmenter: Intl.Segmenter | undefined;

/** Width of a token for alignment: grapheme clusters ("\r\n" is one). */
function graphemes(text: string): number {
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x7f || (c < 0x20 && c !== 9 && c !== 10)) {
      ascii = false;
      break;
    }
  }
  if (ascii) return text.length;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let n = 0;
  for (const _ of segmenter.segment(text)) n++;
  return n;
}

function columns(cell: FTok[] | undefined): number {
  if (!cell) return 0;
  let n = 0;
  for (const t of cell) n += t.spaces + graphemes(t.text);
  return n;
}

function align(lines: Line[]): void {
  let chainStart = -1;
  let max = 0;
  const closeAssign = (end: number) => {
    for (let k = chainStart; k < end; k++) lines[k].assign![0].spaces = max - columns(lines[k].lead) + 1;
    chainStart = -1;
    max = 0;
  };
  lines.forEach((line, i) => {
    if (!line.assign) {
      if (chainStart !== -1) closeAssign(i);
    } else {
      if (chainStart === -1) chainStart = i;
      max = Math.max(max, columns(line.lead));
    }
  });
  if (chainStart !== -1) closeAssign(lines.length);

  const closeComment = (end: number) => {
    for (let k = chainStart; k < end; k++) {
      lines[k].comment![0].spaces = max - (columns(lines[k].lead) + columns(lines[k].assign)) + 1;
    }
    chainStart = -1;
    max = 0;
  };
  lines.forEach((line, i) => {
    if (!line.comment) {
      if (chainStart !== -1) closeComment(i);
    } else {
      if (chainStart === -1) chainStart = i;
      max = Math.max(max, columns(line.lead) + columns(line.assign));
    }
  });
  if (chainStart !== -1) closeComment(lines.length);
}

// ---------------------------------------------------------------------------------------------------------
// Lexical diagnostics (HCL's checkInvalidTokens) and positions.

function lexDiagnostics(src: string, tokens: Token[]): SynDiag[] {
  const diags: SynDiag[] = [];
  let bitwise = 0;
  let backtick = 0;
  let apostrophe = 0;
  let semicolon = 0;
  for (const t of tokens) {
    const subject = { s: t.start, e: t.end };
    switch (t.type) {
      case T.BitwiseAnd:
      case T.BitwiseOr:
      case T.BitwiseXor:
      case T.BitwiseNot:
        if (bitwise < 4) {
          const suggestion =
            t.type === T.BitwiseAnd
              ? ' Did you mean boolean AND ("&&")?'
              : t.type === T.BitwiseOr
                ? ' Did you mean boolean OR ("||")?'
                : t.type === T.BitwiseNot
                  ? ' Did you mean boolean NOT ("!")?'
                  : '';
          diags.push({ summary: 'Unsupported operator', detail: `Bitwise operators are not supported.${suggestion}`, subject });
          bitwise++;
        }
        break;
      case T.Backtick:
        if (backtick % 2 === 0) {
          diags.push({
            summary: 'Invalid character',
            detail: 'The "`" character is not valid. To create a multi-line string, use the "heredoc" syntax, like "<<EOT".',
            subject,
          });
        }
        if (backtick <= 2) backtick++;
        break;
      case T.Apostrophe:
        if (apostrophe % 2 === 0) {
          diags.push({ summary: 'Invalid character', detail: 'Single quotes are not valid. Use double quotes (") to enclose strings.', subject });
        }
        if (apostrophe <= 2) apostrophe++;
        break;
      case T.Semicolon:
        if (semicolon < 1) {
          diags.push({
            summary: 'Invalid character',
            detail: 'The ";" character is not valid. Use newlines to separate arguments and blocks, and commas to separate items in collection values.',
            subject,
          });
          semicolon++;
        }
        break;
      case T.QuotedNewline:
        diags.push({
          summary: 'Invalid multi-line string',
          detail:
            'Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the "heredoc" multi-line template syntax.',
          subject,
        });
        break;
      case T.Invalid: {
        const chars = src.slice(t.start, t.end);
        if (chars === '\u201c' || chars === '\u201d') {
          diags.push({
            summary: 'Invalid character',
            detail:
              '"Curly quotes" are not valid here. These can sometimes be inadvertently introduced when sharing code via documents or discussion forums. It might help to replace the character with a "straight quote".',
            subject,
          });
        } else {
          diags.push({ summary: 'Invalid character', detail: 'This character is not used within the language.', subject });
        }
        break;
      }
    }
  }
  return diags;
}

/** Converts UTF-16 offsets into HCL positions (1-based line and column, 0-based UTF-8 byte offset). */
class PosMap {
  private readonly lineStarts: number[] = [0];
  private segmenter?: Intl.Segmenter;

  constructor(
    private readonly src: string,
    private readonly byteBase: number,
  ) {
    for (let i = 0; i < src.length; i++) if (src.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  pos(offset: number): Pos {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    const ls = this.lineStarts[lo];
    this.segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    let column = 1;
    for (const _ of this.segmenter.segment(this.src.slice(ls, offset))) column++;
    return { line: lo + 1, column, byte: this.byteBase + Buffer.byteLength(this.src.slice(0, offset), 'utf8') };
  }
}
