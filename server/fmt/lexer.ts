// Tokenizer for HCL native syntax, producing the same token stream as HCL's own scanner (hclsyntax).
//
// The formatter and its syntax checker both work on this stream, so its token boundaries and types must
// match HCL's exactly: for example a line comment includes its terminating newline, a heredoc opener
// includes the newline after its marker, and a lone "$" inside a quoted string is a literal token of its own.
// Offsets are UTF-16 indices into the source string (the BOM, if any, already removed by the caller).

export const enum T {
  OBrace = '{',
  CBrace = '}',
  OBrack = '[',
  CBrack = ']',
  OParen = '(',
  CParen = ')',
  OQuote = '«',
  CQuote = '»',
  OHeredoc = 'H',
  CHeredoc = 'h',
  Star = '*',
  Slash = '/',
  Plus = '+',
  Minus = '-',
  Percent = '%',
  Equal = '=',
  EqualOp = '==',
  NotEqual = '!=',
  LessThan = '<',
  LessThanEq = '<=',
  GreaterThan = '>',
  GreaterThanEq = '>=',
  And = '&&',
  Or = '||',
  Bang = '!',
  Dot = '.',
  Comma = ',',
  DoubleColon = '::',
  Ellipsis = '...',
  FatArrow = '=>',
  Question = '?',
  Colon = ':',
  TemplateInterp = '${',
  TemplateControl = '%{',
  TemplateSeqEnd = '$}',
  QuotedLit = 'Q',
  StringLit = 'S',
  NumberLit = 'N',
  Ident = 'I',
  Comment = 'C',
  Newline = 'NL',
  EOF = 'EOF',
  BitwiseAnd = '&',
  BitwiseOr = '|',
  BitwiseNot = '~',
  BitwiseXor = '^',
  Apostrophe = "'",
  Backtick = '`',
  Semicolon = ';',
  Invalid = 'INVALID',
  QuotedNewline = 'QNL',
  /** A placeholder used by the formatter when a token has no neighbour. */
  Nil = 'NIL',
}

export interface Token {
  type: T;
  /** Start offset (UTF-16 index) in the source. */
  start: number;
  /** End offset (exclusive). */
  end: number;
}

const SELF: Record<string, T> = {
  '[': T.OBrack,
  ']': T.CBrack,
  '(': T.OParen,
  ')': T.CParen,
  '.': T.Dot,
  ',': T.Comma,
  '*': T.Star,
  '/': T.Slash,
  '%': T.Percent,
  '+': T.Plus,
  '-': T.Minus,
  '=': T.Equal,
  '<': T.LessThan,
  '>': T.GreaterThan,
  '!': T.Bang,
  '?': T.Question,
  ':': T.Colon,
  '&': T.BitwiseAnd,
  '|': T.BitwiseOr,
  '~': T.BitwiseNot,
  '^': T.BitwiseXor,
  ';': T.Semicolon,
  '`': T.Backtick,
  "'": T.Apostrophe,
};

const TWO: Record<string, T> = {
  '==': T.EqualOp,
  '!=': T.NotEqual,
  '>=': T.GreaterThanEq,
  '<=': T.LessThanEq,
  '&&': T.And,
  '||': T.Or,
  '::': T.DoubleColon,
  '=>': T.FatArrow,
};

const ID_START = /[\p{ID_Start}_]/u;
const ID_CONTINUE = /[\p{ID_Continue}-]/u;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Length in UTF-16 units of the code point at `i`. */
function cpLen(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
}

function isIdentStart(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 128) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  return ID_START.test(String.fromCodePoint(s.codePointAt(i)!));
}

function isIdentContinue(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 128) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || isDigit(c);
  return ID_CONTINUE.test(String.fromCodePoint(s.codePointAt(i)!));
}

/** End of an identifier starting at `i` (which must satisfy isIdentStart). */
function identEnd(s: string, i: number): number {
  let j = i + cpLen(s, i);
  while (j < s.length && isIdentContinue(s, j)) j += cpLen(s, j);
  return j;
}

interface Heredoc {
  marker: string;
  startOfLine: boolean;
}

const enum Mode {
  Main,
  Str,
  Heredoc,
}

/** Scans a whole configuration file. The result always ends with an EOF token. */
export function lex(src: string): Token[] {
  const out: Token[] = [];
  const n = src.length;
  const modes: Mode[] = [Mode.Main];
  let braces = 0;
  const retBraces: number[] = [];
  const heredocs: Heredoc[] = [];
  let i = 0;
  const emit = (type: T, start: number, end: number) => {
    out.push({ type, start, end });
  };
  const openTemplateSeq = (type: T, start: number) => {
    const end = src.charCodeAt(start + 2) === 126 /* ~ */ ? start + 3 : start + 2;
    emit(type, start, end);
    braces++;
    retBraces.push(braces);
    if (heredocs.length > 0) heredocs[heredocs.length - 1].startOfLine = false;
    modes.push(Mode.Main);
    return end;
  };

  while (i < n) {
    const mode = modes[modes.length - 1];
    const c = src.charCodeAt(i);
    if (mode === Mode.Main) {
      if (c === 32 || c === 9) {
        i++;
        continue;
      }
      if (isDigit(c)) {
        let j = i + 1;
        let good = j;
        while (j < n) {
          const d = src.charCodeAt(j);
          if (isDigit(d)) {
            j++;
            good = j;
          } else if (d === 46) {
            j++;
          } else if (d === 101 || d === 69) {
            let k = j + 1;
            const sgn = src.charCodeAt(k);
            if (sgn === 43 || sgn === 45) k++;
            if (k < n && isDigit(src.charCodeAt(k))) {
              j = k + 1;
              good = j;
            } else break;
          } else break;
        }
        emit(T.NumberLit, i, good);
        i = good;
        continue;
      }
      if (isIdentStart(src, i)) {
        const j = identEnd(src, i);
        emit(T.Ident, i, j);
        i = j;
        continue;
      }
      if (c === 35 /* # */ || (c === 47 /* / */ && src.charCodeAt(i + 1) === 47)) {
        let j = src.indexOf('\n', i);
        j = j < 0 ? n : j + 1;
        emit(T.Comment, i, j);
        i = j;
        continue;
      }
      if (c === 47 && src.charCodeAt(i + 1) === 42 /* * */) {
        const j = src.indexOf('*/', i + 2);
        if (j >= 0) {
          emit(T.Comment, i, j + 2);
          i = j + 2;
          continue;
        }
      }
      if (c === 10) {
        emit(T.Newline, i, i + 1);
        i++;
        continue;
      }
      if (c === 13 && src.charCodeAt(i + 1) === 10) {
        emit(T.Newline, i, i + 2);
        i += 2;
        continue;
      }
      if (c === 46 && src.startsWith('...', i)) {
        emit(T.Ellipsis, i, i + 3);
        i += 3;
        continue;
      }
      const two = TWO[src.substr(i, 2)];
      if (two !== undefined) {
        emit(two, i, i + 2);
        i += 2;
        continue;
      }
      if (c === 123 /* { */) {
        emit(T.OBrace, i, i + 1);
        braces++;
        i++;
        continue;
      }
      if (c === 125 /* } */ || (c === 126 /* ~ */ && src.charCodeAt(i + 1) === 125)) {
        const len = c === 125 ? 1 : 2;
        if (retBraces.length > 0 && retBraces[retBraces.length - 1] === braces) {
          emit(T.TemplateSeqEnd, i, i + len);
          braces--;
          retBraces.pop();
          modes.pop();
        } else {
          emit(len === 1 ? T.CBrace : T.TemplateSeqEnd, i, i + len);
          braces--;
        }
        i += len;
        continue;
      }
      if (c === 34 /* " */) {
        emit(T.OQuote, i, i + 1);
        modes.push(Mode.Str);
        i++;
        continue;
      }
      if (c === 60 /* < */ && src.charCodeAt(i + 1) === 60) {
        let j = i + 2;
        if (src.charCodeAt(j) === 45) j++;
        if (j < n && isIdentStart(src, j)) {
          const k = identEnd(src, j);
          let e = -1;
          if (src.charCodeAt(k) === 10) e = k + 1;
          else if (src.charCodeAt(k) === 13 && src.charCodeAt(k + 1) === 10) e = k + 2;
          if (e > 0) {
            emit(T.OHeredoc, i, e);
            heredocs.push({ marker: src.slice(j, k), startOfLine: true });
            modes.push(Mode.Heredoc);
            i = e;
            continue;
          }
        }
      }
      const self = SELF[src[i]];
      if (self !== undefined) {
        emit(self, i, i + 1);
        i++;
        continue;
      }
      const l = cpLen(src, i);
      emit(T.Invalid, i, i + l);
      i += l;
      continue;
    }

    if (mode === Mode.Str) {
      if ((c === 36 || c === 37) && src.charCodeAt(i + 1) === 123) {
        i = openTemplateSeq(c === 36 ? T.TemplateInterp : T.TemplateControl, i);
        continue;
      }
      if (c === 34) {
        emit(T.CQuote, i, i + 1);
        modes.pop();
        i++;
        continue;
      }
      if (c === 36 || c === 37) {
        emit(T.QuotedLit, i, escapedIntroducerEnd(src, i));
        i = out[out.length - 1].end;
        continue;
      }
      if (c === 10 || c === 13) {
        let j = i + 1;
        while (j < n && (src.charCodeAt(j) === 10 || src.charCodeAt(j) === 13)) j++;
        emit(T.QuotedNewline, i, j);
        i = j;
        continue;
      }
      let j = i;
      for (;;) {
        const d = src.charCodeAt(j);
        if (j >= n || d === 36 || d === 37 || d === 34 || d === 10 || d === 13) break;
        if (d === 92 /* \ */) {
          const e = src.charCodeAt(j + 1);
          if (j + 1 >= n || e === 10 || e === 13) break;
          j += 1 + cpLen(src, j + 1);
          continue;
        }
        j += cpLen(src, j);
      }
      if (j > i) {
        emit(T.QuotedLit, i, j);
        i = j;
        continue;
      }
      const l = cpLen(src, i);
      emit(T.Invalid, i, i + l);
      i += l;
      continue;
    }

    // Heredoc template body.
    const doc = heredocs[heredocs.length - 1];
    if ((c === 36 || c === 37) && src.charCodeAt(i + 1) === 123) {
      i = openTemplateSeq(c === 36 ? T.TemplateInterp : T.TemplateControl, i);
      continue;
    }
    let j: number;
    if (c === 36 || c === 37) {
      j = escapedIntroducerEnd(src, i);
    } else {
      j = i;
      while (j < n) {
        const d = src.charCodeAt(j);
        if (d === 36 || d === 37 || d === 10 || d === 13) break;
        j++;
      }
    }
    let eol = -1;
    if (src.charCodeAt(j) === 10) eol = j + 1;
    else if (src.charCodeAt(j) === 13 && src.charCodeAt(j + 1) === 10) eol = j + 2;
    if (eol < 0) {
      if (j === i) {
        // Nothing the heredoc scanner accepts (a lone carriage return): HCL gives up on the rest.
        if (j < n) emit(T.Invalid, i, n);
        i = n;
        break;
      }
      doc.startOfLine = false;
      emit(T.StringLit, i, j);
      i = j;
      continue;
    }
    if (doc.startOfLine && src.slice(i, j).trim() === doc.marker) {
      emit(T.CHeredoc, i, j);
      emit(T.Newline, j, eol);
      heredocs.pop();
      modes.pop();
      i = eol;
      continue;
    }
    doc.startOfLine = true;
    emit(T.StringLit, i, eol);
    i = eol;
  }
  emit(T.EOF, n, n);
  return out;
}

/** End of the literal that starts with a "$" or "%" not followed by "{": "$${" (and "$${~") or the lone symbol. */
function escapedIntroducerEnd(src: string, i: number): number {
  const c = src.charCodeAt(i);
  if (src.charCodeAt(i + 1) === c && src.charCodeAt(i + 2) === 123) {
    return src.charCodeAt(i + 3) === 126 ? i + 4 : i + 3;
  }
  return i + 1;
}
