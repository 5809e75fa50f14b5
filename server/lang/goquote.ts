// Go's string quoting (strconv.Quote / QuoteRune, the `%q` verb) and unicode.IsPrint, which Terraform's
// messages and printed values use. One implementation for every part of the engine that reproduces a Go
// message: lang (console values, function errors), providers and objchange (Go-syntax values), fmt (syntax
// error texts) and the commands. Go's encoding/json quoting is different and lives in states/statefile.ts.

const PRINT = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isGoPrint(cp: number): boolean {
  return cp === 0x20 || PRINT.test(String.fromCodePoint(cp));
}

function goEscapeRune(cp: number, quote: string): string {
  const c = String.fromCodePoint(cp);
  if (c === quote || c === '\\') return '\\' + c;
  if (isGoPrint(cp)) return c;
  switch (cp) {
    case 7:
      return '\\a';
    case 8:
      return '\\b';
    case 12:
      return '\\f';
    case 10:
      return '\\n';
    case 13:
      return '\\r';
    case 9:
      return '\\t';
    case 11:
      return '\\v';
  }
  if (cp < 0x20 || cp === 0x7f) return '\\x' + cp.toString(16).padStart(2, '0');
  if (cp < 0x10000) return '\\u' + cp.toString(16).padStart(4, '0');
  return '\\U' + cp.toString(16).padStart(8, '0');
}

/** Go's strconv.Quote: double quotes, Go's escapes, printable Unicode kept as it is. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) out += goEscapeRune(ch.codePointAt(0)!, '"');
  return out + '"';
}

/** Go's strconv.QuoteRune. */
export function goQuoteRune(ch: string): string {
  return "'" + goEscapeRune(ch.codePointAt(0)!, "'") + "'";
}
