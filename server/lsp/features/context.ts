// The syntactic context of a cursor position, for completion and signature help: which blocks enclose it,
// whether it is where an argument or block name goes or inside an expression, and which function call's
// argument list it is in.
//
// Works on HCL's own token stream (server/fmt/lexer.ts) of the text before the cursor, not on the syntax
// tree: while the user types, the text is usually incomplete (`x = var.`, `resource "ran`), and tree-sitter's
// error recovery then places the cursor in ERROR nodes; the token stream stays exact. Linear in the text
// before the cursor.

import { lex, T, type Token } from '../../fmt/lexer';

export interface BlockFrame {
  kind: 'block';
  type: string;
  labels: string[];
  /** Offset of the block's `{`. */
  open: number;
}

export interface ExprFrame {
  kind: 'expr';
  /** The opening token: `{`, `[`, `(`, `${`, `%{`, a quote or a heredoc. */
  tok: T;
  /** For `(` directly after an identifier: the function's name. */
  fn?: string;
  /** Offset of the function name. */
  fnStart?: number;
  /** Number of commas seen at this level (the argument index inside a call). */
  commas: number;
  open: number;
}

export type Frame = BlockFrame | ExprFrame;

export type CursorContext =
  /** Where a new argument or nested block name goes (`prefix` is the identifier typed so far). */
  | { kind: 'name'; blocks: BlockFrame[]; prefix: string; prefixStart: number }
  /** Inside the quoted label of a block header (`resource "ran`). */
  | { kind: 'label'; blocks: BlockFrame[]; blockType: string; index: number; prefix: string; prefixStart: number }
  /** Inside an expression; `attribute` is the argument it is the value of (when directly so). */
  | { kind: 'expr'; blocks: BlockFrame[]; attribute?: string; inString: boolean; call?: ExprFrame }
  /** Inside a quoted string that is directly an argument's value (`method = "G`). */
  | { kind: 'string'; blocks: BlockFrame[]; attribute: string; prefix: string; prefixStart: number }
  | { kind: 'none' };

export function blocksOf(frames: readonly Frame[]): BlockFrame[] {
  return frames.filter((f): f is BlockFrame => f.kind === 'block');
}

function isLabelTok(toks: readonly Token[], i: number): { end: number } | undefined {
  const t = toks[i];
  if (!t) return undefined;
  if (t.type === T.Ident) return { end: i + 1 };
  if (t.type === T.OQuote) {
    let j = i + 1;
    if (toks[j]?.type === T.QuotedLit) j++;
    if (toks[j]?.type === T.CQuote) return { end: j + 1 };
  }
  return undefined;
}

/** True when the tokens of a line so far are a block header: an identifier then labels. */
function headerOf(text: string, line: readonly Token[]): { type: string; labels: string[] } | undefined {
  if (line.length === 0 || line[0].type !== T.Ident) return undefined;
  const type = text.slice(line[0].start, line[0].end);
  const labels: string[] = [];
  let i = 1;
  while (i < line.length) {
    const l = isLabelTok(line, i);
    if (!l) return undefined;
    const t = line[i];
    if (t.type === T.Ident) labels.push(text.slice(t.start, t.end));
    else labels.push(line[i + 1]?.type === T.QuotedLit ? text.slice(line[i + 1].start, line[i + 1].end) : '');
    i = l.end;
  }
  return { type, labels };
}

/** The frames open at the end of `text` and the tokens of the current line at the innermost block level. */
export function scan(text: string): { frames: Frame[]; line: Token[]; toks: Token[] } {
  const toks = lex(text);
  const frames: Frame[] = [];
  let line: Token[] = [];
  const top = (): Frame | undefined => frames[frames.length - 1];
  const atBlockLevel = (): boolean => {
    const f = top();
    return f === undefined || f.kind === 'block';
  };
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (t.type === T.EOF) break;
    if (t.type === T.Comment) {
      // A line comment includes its newline.
      if (atBlockLevel() && text.charCodeAt(t.end - 1) === 10) line = [];
      continue;
    }
    if (t.type === T.Newline) {
      if (atBlockLevel()) line = [];
      continue;
    }
    const f = top();
    switch (t.type) {
      case T.OBrace: {
        const h = atBlockLevel() ? headerOf(text, line) : undefined;
        if (h) {
          frames.push({ kind: 'block', type: h.type, labels: h.labels, open: t.start });
          line = [];
          continue;
        }
        frames.push({ kind: 'expr', tok: T.OBrace, commas: 0, open: t.start });
        break;
      }
      case T.OBrack:
      case T.TemplateInterp:
      case T.TemplateControl:
      case T.OQuote:
      case T.OHeredoc:
        frames.push({ kind: 'expr', tok: t.type, commas: 0, open: t.start });
        break;
      case T.OParen: {
        const prev = toks[i - 1];
        const fn = prev?.type === T.Ident && prev.end === t.start ? text.slice(prev.start, prev.end) : undefined;
        frames.push({ kind: 'expr', tok: T.OParen, commas: 0, open: t.start, ...(fn ? { fn, fnStart: prev.start } : {}) });
        break;
      }
      case T.CBrace:
      case T.TemplateSeqEnd:
      case T.CBrack:
      case T.CParen:
      case T.CQuote:
      case T.CHeredoc:
        if (f) frames.pop();
        if (f?.kind === 'block') {
          line = [];
          continue;
        }
        break;
      case T.Comma:
        if (f?.kind === 'expr') f.commas++;
        break;
    }
    line.push(t);
  }
  return { frames, line, toks };
}

/** The cursor context at `offset` of `text`. */
export function cursorContext(text: string, offset: number): CursorContext {
  const before = text.slice(0, offset);
  const { frames, line, toks } = scan(before);
  // Inside a comment (a line comment not yet ended, or an unclosed block comment): nothing to complete.
  const lastTok = toks.length >= 2 ? toks[toks.length - 2] : undefined;
  if (lastTok?.type === T.Comment && lastTok.end === offset && !before.endsWith('\n') && !before.endsWith('*/')) return { kind: 'none' };
  const blocks = blocksOf(frames);
  const f = frames[frames.length - 1];
  const atBlockLevel = f === undefined || f.kind === 'block';
  if (atBlockLevel) {
    const lineToks = line.filter((t) => t.end <= offset);
    if (lineToks.length === 0 || (lineToks.length === 1 && lineToks[0].type === T.Ident && lineToks[0].end === offset)) {
      const prefix = lineToks.length ? before.slice(lineToks[0].start) : '';
      // Whitespace only between line start and cursor, or one identifier touching the cursor.
      return { kind: 'name', blocks, prefix, prefixStart: offset - prefix.length };
    }
    if (lineToks[0].type === T.Ident && lineToks[1]?.type === T.Equal) {
      return { kind: 'expr', blocks, attribute: before.slice(lineToks[0].start, lineToks[0].end), inString: false };
    }
    return { kind: 'none' };
  }
  // Inside an expression frame.
  if (f.tok === T.OQuote || f.tok === T.OHeredoc) {
    // A quoted label of a block header being typed: the enclosing level is a block and the line is a header.
    const outer = frames[frames.length - 2];
    if (f.tok === T.OQuote && (outer === undefined || outer.kind === 'block')) {
      const hdr = lineUpTo(before, line, f.open);
      if (hdr) {
        const prefix = before.slice(f.open + 1);
        return { kind: 'label', blocks, blockType: hdr.type, index: hdr.labels.length, prefix, prefixStart: f.open + 1 };
      }
    }
    if (f.tok === T.OQuote && outer?.kind === 'block' && line[0]?.type === T.Ident && line[1]?.type === T.Equal && line[2]?.start === f.open) {
      const prefix = before.slice(f.open + 1);
      return { kind: 'string', blocks, attribute: before.slice(line[0].start, line[0].end), prefix, prefixStart: f.open + 1 };
    }
    return { kind: 'none' };
  }
  let attribute: string | undefined;
  // The argument this expression belongs to: the line at the innermost block level, `name = ...`.
  let level = -1;
  for (let i = frames.length - 1; i >= 0 && level < 0; i--) if (frames[i].kind === 'block') level = i;
  if (level === frames.length - 2 || level === -1) {
    if (line[0]?.type === T.Ident && line[1]?.type === T.Equal) attribute = before.slice(line[0].start, line[0].end);
  }
  const call = [...frames].reverse().find((x): x is ExprFrame => x.kind === 'expr' && x.tok === T.OParen);
  const inString = frames.some((x) => x.kind === 'expr' && (x.tok === T.OQuote || x.tok === T.OHeredoc));
  return { kind: 'expr', blocks, attribute, inString, call };
}

/** The header tokens before a quote opened at `quoteOffset`, when they form `type "label"... "`. */
function lineUpTo(text: string, line: readonly Token[], quoteOffset: number): { type: string; labels: string[] } | undefined {
  const toks = line.filter((t) => t.start < quoteOffset);
  return headerOf(text, toks);
}

/** The innermost function call whose argument list contains the end of `text`, with the argument index. */
export function enclosingCall(text: string): { name: string; nameStart: number; argument: number } | undefined {
  const { frames } = scan(text);
  for (let i = frames.length - 1; i >= 0; i--) {
    const f = frames[i];
    if (f.kind === 'block') return undefined;
    if (f.tok === T.OParen) return f.fn ? { name: f.fn, nameStart: f.fnStart!, argument: f.commas } : undefined;
  }
  return undefined;
}
