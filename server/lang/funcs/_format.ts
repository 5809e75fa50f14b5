// The printf-like engine behind the format() and formatlist() built-ins (string.ts), after go-cty's
// stdlib format: the verb grammar (flags, width, precision, [n] argument index, letter), the error texts,
// grapheme-based padding for strings, and Go's fmt rendering of big.Float / big.Int for numeric verbs
// (decimal digits come from Num's shortest decimal form; rounding is half-to-even on those digits).

import type { Num } from '../number';
import * as T from '../types';
import { Value } from '../value';
import { FuncArgError, FuncError } from './function';
import { ConvertError, convert, goQuote, goQuoteRune, graphemes, utf8Len } from './_util';

interface Verb {
  raw: string;
  offset: number;
  argNum: number;
  mode: string;
  zero: boolean;
  sharp: boolean;
  plus: boolean;
  minus: boolean;
  space: boolean;
  prec: number; // -1 when absent
  width: number; // -1 when absent
}

/**
 * Formats `args` (values 1.. of the call) with `format`. Throws FuncError for format errors and
 * FuncArgError (indexes counting the format argument as 0) for unused arguments.
 */
export function formatValues(format: string, args: readonly Value[]): string {
  let out = '';
  let nextArg = 1;
  let highest = 0;
  const s = format;
  let i = 0;
  // Byte offsets are reported as Go does; keep a running UTF-8 offset.
  const byteOff = (idx: number) => utf8Len(s.slice(0, idx));
  while (i < s.length) {
    const c = s[i];
    if (c !== '%') {
      out += c;
      i++;
      continue;
    }
    if (s[i + 1] === '%') {
      out += '%';
      i += 2;
      continue;
    }
    const start = i;
    const verb: Verb = {
      raw: '',
      offset: byteOff(start),
      argNum: nextArg,
      mode: '',
      zero: false,
      sharp: false,
      plus: false,
      minus: false,
      space: false,
      prec: -1,
      width: -1,
    };
    i++;
    const fail = (): never => {
      if (i >= s.length) throw new FuncError(`invalid format string starting at offset ${byteOff(i)}`);
      const ch = String.fromCodePoint(s.codePointAt(i)!);
      throw new FuncError(`unrecognized format character ${goQuoteRune(ch)} at offset ${byteOff(i)}`);
    };
    // flags
    for (;;) {
      const f = s[i];
      if (f === '0') verb.zero = true;
      else if (f === '#') verb.sharp = true;
      else if (f === '-') verb.minus = true;
      else if (f === '+') verb.plus = true;
      else if (f === ' ') verb.space = true;
      else break;
      i++;
    }
    // width
    if (s[i] >= '1' && s[i] <= '9') {
      let w = 0;
      while (s[i] >= '0' && s[i] <= '9') w = w * 10 + (s.charCodeAt(i++) - 48);
      verb.width = w;
    }
    // precision
    if (s[i] === '.') {
      i++;
      let p = 0;
      while (s[i] >= '0' && s[i] <= '9') p = p * 10 + (s.charCodeAt(i++) - 48);
      verb.prec = p;
    }
    // argument index
    if (s[i] === '[') {
      i++;
      if (!(s[i] >= '1' && s[i] <= '9')) fail();
      let n = 0;
      while (s[i] >= '0' && s[i] <= '9') n = n * 10 + (s.charCodeAt(i++) - 48);
      if (s[i] !== ']') fail();
      i++;
      verb.argNum = n;
    }
    if (!/[a-zA-Z]/.test(s[i] ?? '')) fail();
    verb.mode = s[i];
    i++;
    verb.raw = s.slice(start, i);
    if (verb.argNum > highest) highest = verb.argNum;
    out += formatOne(verb, args);
    nextArg = verb.argNum + 1;
  }
  if (highest < args.length) {
    const firstBad = highest + 1;
    if (highest === 0) throw new FuncArgError(firstBad, 'too many arguments; no verbs in format string');
    throw new FuncArgError(firstBad, `too many arguments; only ${highest} used by format string`);
  }
  return out;
}

function formatOne(verb: Verb, args: readonly Value[]): string {
  const idx = verb.argNum - 1;
  if (idx >= args.length) {
    throw new FuncError(
      `not enough arguments for ${goQuote(verb.raw)} at ${verb.offset}: need index ${verb.argNum} but have ${args.length} total`,
    );
  }
  const arg = args[idx].unmarkDeep()[0];
  const bad = (msg: string) => new FuncError(`unsupported value for ${goQuote(verb.raw)} at ${verb.offset}: ${msg}`);
  if (verb.mode !== 'v' && arg.isNull) throw bad('null value cannot be formatted');
  const conv = (t: T.Type) => {
    try {
      return convert(arg, t);
    } catch (e) {
      if (e instanceof ConvertError) throw bad(e.message);
      throw e;
    }
  };
  switch (verb.mode) {
    case 'v':
      if (!verb.sharp && !arg.isNull) {
        if (arg.type.kind === 'string') return padWidth(verb, arg.str);
        if (arg.type.kind === 'number') return padWidth(verb, numText(arg.num, 'g', -1));
      }
      return padWidth(verb, jsonOf(arg));
    case 't':
      return conv(T.Bool).bool ? 'true' : 'false';
    case 'b':
    case 'd':
    case 'o':
    case 'x':
    case 'X': {
      const n = conv(T.Number).num;
      const b = n.isInf() ? undefined : n.toBigInt();
      if (b === undefined) throw bad('an integer is required');
      return goFormatInt(verb, b);
    }
    case 'e':
    case 'E':
    case 'f':
    case 'g':
    case 'G':
      return goFormatFloat(verb, conv(T.Number).num);
    case 's':
    case 'q': {
      let str = conv(T.String).str;
      if (verb.prec > 0) str = graphemes(str).slice(0, verb.prec).join('');
      return padWidth(verb, verb.mode === 's' ? str : jsonString(str));
    }
    default:
      throw new FuncError(`unsupported format verb ${goQuoteRune(verb.mode)} in ${goQuote(verb.raw)} at offset ${verb.offset}`);
  }
}

function padWidth(verb: Verb, s: string): string {
  if (verb.width < 0) return s;
  const have = graphemes(s).length;
  if (have >= verb.width) return s;
  const pads = (verb.zero ? '0' : ' ').repeat(verb.width - have);
  return verb.minus ? s + pads : pads + s;
}

// ---- JSON (cty's json.Marshal) ----------------------------------------------------------------------

/** A string as Go's encoding/json writes it (HTML-safe escaping). */
export function jsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
    }
    if (cp < 0x20 || ch === '<' || ch === '>' || ch === '&' || cp === 0x2028 || cp === 0x2029) {
      out += '\\u' + cp.toString(16).padStart(4, '0');
      continue;
    }
    out += ch;
  }
  return out + '"';
}

function jsonOf(v: Value): string {
  if (v.isNull) return 'null';
  switch (v.type.kind) {
    case 'string':
      return jsonString(v.str);
    case 'number':
      return numText(v.num, 'f', -1);
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'list':
    case 'set':
    case 'tuple':
      return '[' + v.elems.map(jsonOf).join(',') + ']';
    case 'map':
    case 'object': {
      const keys = [...v.entries.keys()].sort(T.compareBytes);
      return '{' + keys.map((k) => jsonString(k) + ':' + jsonOf(v.entries.get(k)!)).join(',') + '}';
    }
    default:
      throw new FuncError('unsupported value');
  }
}

// ---- numbers (Go's big.Float / big.Int formatting) ----------------------------------------------------

interface Decimal {
  neg: boolean;
  inf: boolean;
  /** Significant digits without leading or trailing zeros; "" for zero. Value = 0.mant × 10^exp. */
  mant: string;
  exp: number;
}

function decimalOf(n: Num): Decimal {
  let s = n.toString();
  if (s === '+Inf' || s === 'Infinity') return { neg: false, inf: true, mant: '', exp: 0 };
  if (s === '-Inf' || s === '-Infinity') return { neg: true, inf: true, mant: '', exp: 0 };
  let neg = false;
  if (s[0] === '-') {
    neg = true;
    s = s.slice(1);
  } else if (s[0] === '+') s = s.slice(1);
  let e10 = 0;
  const ei = s.search(/[eE]/);
  if (ei >= 0) {
    e10 = parseInt(s.slice(ei + 1), 10);
    s = s.slice(0, ei);
  }
  const dot = s.indexOf('.');
  let intPart = dot >= 0 ? s.slice(0, dot) : s;
  const frac = dot >= 0 ? s.slice(dot + 1) : '';
  let digits = intPart + frac;
  let exp = intPart.length + e10;
  const lead = digits.match(/^0*/)![0].length;
  digits = digits.slice(lead);
  exp -= lead;
  digits = digits.replace(/0+$/, '');
  if (digits === '') exp = 0;
  intPart = '';
  return { neg, inf: false, mant: digits, exp };
}

function roundDec(d: Decimal, n: number): void {
  if (n < 0 || n >= d.mant.length) return;
  const m = d.mant;
  let up: boolean;
  if (m[n] === '5' && n + 1 === m.length) up = n > 0 && (m.charCodeAt(n - 1) - 48) % 2 === 1;
  else up = m[n] >= '5';
  if (up) {
    let k = n;
    while (k > 0 && m[k - 1] === '9') k--;
    if (k === 0) {
      d.mant = '1';
      d.exp++;
      return;
    }
    d.mant = m.slice(0, k - 1) + String.fromCharCode(m.charCodeAt(k - 1) + 1);
  } else {
    d.mant = m.slice(0, n).replace(/0+$/, '');
    if (d.mant === '') d.exp = 0;
  }
}

function fmtE(d: Decimal, prec: number, ch: string): string {
  let out = d.mant.length > 0 ? d.mant[0] : '0';
  if (prec > 0) {
    out += '.';
    let frac = d.mant.slice(1, 1 + prec);
    frac += '0'.repeat(prec - frac.length);
    out += frac;
  }
  out += ch;
  const exp = d.mant.length === 0 ? 0 : d.exp - 1;
  out += exp < 0 ? '-' : '+';
  const a = Math.abs(exp);
  out += a < 10 ? '0' + a : String(a);
  return out;
}

function fmtF(d: Decimal, prec: number): string {
  let out: string;
  if (d.exp > 0) {
    const m = Math.min(d.mant.length, d.exp);
    out = d.mant.slice(0, m) + '0'.repeat(d.exp - m);
  } else out = '0';
  if (prec > 0) {
    out += '.';
    for (let i = 1; i <= prec; i++) {
      const j = d.exp + i - 1;
      out += j < 0 || j >= d.mant.length ? '0' : d.mant[j];
    }
  }
  return out;
}

/** big.Float.Text(fmt, prec) without the sign handling differences: returns the full text including '-'. */
function numText(n: Num, fmt: 'e' | 'E' | 'f' | 'g' | 'G', prec: number): string {
  const d = decimalOf(n);
  if (d.inf) return d.neg ? '-Inf' : '+Inf';
  const sign = d.neg ? '-' : '';
  const shortest = prec < 0;
  switch (fmt) {
    case 'e':
    case 'E':
      if (shortest) prec = Math.max(d.mant.length - 1, 0);
      else roundDec(d, 1 + prec);
      return sign + fmtE(d, prec, fmt);
    case 'f':
      if (shortest) prec = Math.max(d.mant.length - d.exp, 0);
      else roundDec(d, d.exp + prec);
      return sign + fmtF(d, prec);
    default: {
      if (shortest) prec = d.mant.length;
      else {
        if (prec === 0) prec = 1;
        roundDec(d, prec);
      }
      let eprec = prec;
      if (eprec > d.mant.length && d.mant.length >= d.exp) eprec = d.mant.length;
      if (shortest) eprec = 6;
      const exp = d.exp - 1;
      if (exp < -4 || exp >= eprec) {
        if (prec > d.mant.length) prec = d.mant.length;
        return sign + fmtE(d, prec - 1, fmt === 'g' ? 'e' : 'E');
      }
      if (prec > d.exp) prec = d.mant.length;
      return sign + fmtF(d, Math.max(prec - d.exp, 0));
    }
  }
}

function goFormatFloat(verb: Verb, n: Num): string {
  const mode = verb.mode as 'e' | 'E' | 'f' | 'g' | 'G';
  let prec = verb.prec;
  if (prec < 0 && mode !== 'g' && mode !== 'G') prec = 6;
  let buf = numText(n, mode, prec);
  const zeroFlag = verb.zero && !verb.minus;
  let sign = '';
  if (buf[0] === '-') {
    sign = '-';
    buf = buf.slice(1);
  } else if (buf[0] === '+') {
    sign = verb.space ? ' ' : '+';
    buf = buf.slice(1);
  } else if (verb.plus) sign = '+';
  else if (verb.space) sign = ' ';
  const padding = verb.width > sign.length + buf.length ? verb.width - sign.length - buf.length : 0;
  if (zeroFlag && !n.isInf()) return sign + '0'.repeat(padding) + buf;
  if (verb.minus) return sign + buf + ' '.repeat(padding);
  return ' '.repeat(padding) + sign + buf;
}

function goFormatInt(verb: Verb, x: bigint): string {
  const ch = verb.mode;
  const base = ch === 'b' ? 2 : ch === 'o' ? 8 : ch === 'd' ? 10 : 16;
  const neg = x < 0n;
  const sign = neg ? '-' : verb.plus ? '+' : verb.space ? ' ' : '';
  let prefix = '';
  if (verb.sharp) prefix = ch === 'b' ? '0b' : ch === 'o' ? '0' : ch === 'x' ? '0x' : ch === 'X' ? '0X' : '';
  let digits = (neg ? -x : x).toString(base);
  if (ch === 'X') digits = digits.toUpperCase();
  let zeros = 0;
  let left = 0;
  let right = 0;
  const precSet = verb.prec >= 0;
  if (precSet) {
    if (digits.length < verb.prec) zeros = verb.prec - digits.length;
    else if (digits === '0' && verb.prec === 0) return '';
  }
  const length = sign.length + prefix.length + zeros + digits.length;
  if (verb.width >= 0 && length < verb.width) {
    const d = verb.width - length;
    if (verb.minus) right = d;
    else if (verb.zero && !precSet) zeros = d;
    else left = d;
  }
  return ' '.repeat(left) + sign + prefix + '0'.repeat(zeros) + digits + ' '.repeat(right);
}
