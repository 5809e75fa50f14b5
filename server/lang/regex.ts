// RE2 regular expressions (Go's regexp package, as Terraform's regex/regexall/replace use them) on top of
// JavaScript's RegExp. compileRE2 parses RE2 syntax itself, rejects what Go's regexp/syntax rejects with the
// same error code and expression text, and translates the pattern to an equivalent JS RegExp:
//   - flags (?i) (?s) (?m) (?U), also scoped (?i:…) and negated (?-s), are applied during translation
//     (case-insensitive literals/classes are expanded, `.`/`^`/`$` written out explicitly, greediness swapped);
//   - \A \z, \s (ASCII only in RE2), \pX / \p{Name} (scripts become \p{Script=…}), POSIX [[:alpha:]],
//     \Q…\E, \x{…} and octal escapes are translated;
//   - all groups become plain JS capture groups; RE2 names ((?P<n>…) or (?<n>…)) are kept in `names`.
// Matching helpers follow Go's "All" semantics: an empty match right after a previous match is skipped.

export class RE2SyntaxError extends Error {
  constructor(
    readonly code: string,
    readonly expr: string,
  ) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
  }
}

export interface RE2 {
  source: string;
  regexp: RegExp; // global + unicode ("gu"), lastIndex is reset by the helpers
  /** Number of capture groups. */
  groups: number;
  /** Name of each capture group (index 1..groups), '' when unnamed. */
  names: string[];
}

interface Flags {
  i: boolean;
  s: boolean;
  m: boolean;
  U: boolean;
}

const PERL_CLASSES: Record<string, string> = {
  d: '0-9',
  s: '\\t\\n\\f\\r ',
  w: '0-9A-Za-z_',
};
const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7f',
  blank: '\\t ',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};
const GENERAL_CATEGORIES = new Set([
  'C', 'Cc', 'Cf', 'Co', 'Cs', 'L', 'Ll', 'Lm', 'Lo', 'Lt', 'Lu', 'M', 'Mc', 'Me', 'Mn', 'N', 'Nd', 'Nl', 'No',
  'P', 'Pc', 'Pd', 'Pe', 'Pf', 'Pi', 'Po', 'Ps', 'S', 'Sc', 'Sk', 'Sm', 'So', 'Z', 'Zl', 'Zp', 'Zs',
]);

function jsEscapeChar(cp: number, inClass: boolean): string {
  const ch = String.fromCodePoint(cp);
  if (inClass) {
    if ('\\]^-['.includes(ch)) return '\\' + ch;
  } else if ('\\^$.|?*+()[]{}/'.includes(ch)) return '\\' + ch;
  if (cp < 0x20 || cp === 0x7f) return '\\x' + cp.toString(16).padStart(2, '0');
  if (cp === 0x2028 || cp === 0x2029) return '\\u' + cp.toString(16);
  return ch;
}

function caseVariants(cp: number): number[] {
  const ch = String.fromCodePoint(cp);
  const out = new Set<number>([cp]);
  for (const v of [ch.toLowerCase(), ch.toUpperCase()]) if ([...v].length === 1) out.add(v.codePointAt(0)!);
  // Simple folds that toLowerCase/toUpperCase miss in one direction.
  if (cp === 0x6b || cp === 0x4b) out.add(0x212a);
  if (cp === 0x73 || cp === 0x53) out.add(0x17f);
  return [...out];
}

/** Unicode property name → JS \p{…} body, or undefined when RE2 does not know it. */
function unicodeClass(name: string): string | undefined {
  if (name === 'Any') return 'any';
  if (GENERAL_CATEGORIES.has(name)) return name;
  try {
    new RegExp(`\\p{Script=${name}}`, 'u');
    return `Script=${name}`;
  } catch {
    return undefined;
  }
}

/** Parses an RE2 pattern; throws RE2SyntaxError with Go's code and expression. */
export function compileRE2(pattern: string): RE2 {
  const p = [...pattern]; // code points
  const n = p.length;
  let i = 0;
  let groups = 0;
  const names: string[] = [''];
  const str = (a: number, b: number) => p.slice(a, b).join('');
  const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

  // A parsed "atom" (JS source) that a quantifier may follow; `null` when nothing repeatable precedes.
  type Frame = { flags: Flags; out: string; lastAtom: boolean; lastAtomStart: number; lastWasRepeat: boolean; repeatStart: number; start: number };

  const parseEscape = (flags: Flags, inClass: boolean): { src: string; cp?: number; ranges?: string } => {
    // p[i] === '\\'
    const start = i;
    i++;
    if (i >= n) throw new RE2SyntaxError('trailing backslash at end of expression', '');
    const c = p[i++];
    const lit = (cp: number) => ({ src: litSrc(cp, flags, inClass), cp });
    switch (c) {
      case 'a':
        return lit(7);
      case 'f':
        return lit(12);
      case 't':
        return lit(9);
      case 'n':
        return lit(10);
      case 'r':
        return lit(13);
      case 'v':
        return lit(11);
      case 'x': {
        if (p[i] === '{') {
          const close = p.indexOf('}', i);
          const hex = close < 0 ? '' : str(i + 1, close);
          if (close < 0 || !/^[0-9A-Fa-f]+$/.test(hex) || parseInt(hex, 16) > 0x10ffff)
            throw new RE2SyntaxError('invalid escape sequence', str(start, close < 0 ? n : close + 1));
          i = close + 1;
          return lit(parseInt(hex, 16));
        }
        const hex = str(i, i + 2);
        if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new RE2SyntaxError('invalid escape sequence', str(start, Math.min(n, i + 2)));
        i += 2;
        return lit(parseInt(hex, 16));
      }
      case 'd':
      case 's':
      case 'w':
        return { src: inClass ? PERL_CLASSES[c] : `[${PERL_CLASSES[c]}]`, ranges: PERL_CLASSES[c] };
      case 'D':
      case 'S':
      case 'W': {
        const body = PERL_CLASSES[c.toLowerCase()];
        if (inClass) return { src: '', ranges: '^' + body };
        return { src: `[^${body}]` };
      }
      case 'p':
      case 'P': {
        let name: string;
        if (p[i] === '{') {
          const close = p.indexOf('}', i);
          if (close < 0) throw new RE2SyntaxError('invalid character class range', str(start, n));
          name = str(i + 1, close);
          i = close + 1;
        } else {
          if (i >= n) throw new RE2SyntaxError('invalid character class range', str(start, n));
          name = p[i++];
        }
        let neg = c === 'P';
        if (name.startsWith('^')) {
          neg = !neg;
          name = name.slice(1);
        }
        const u = unicodeClass(name);
        if (u === undefined) throw new RE2SyntaxError('invalid character class range', str(start, i));
        const body = u === 'any' ? '\\s\\S' : `\\p{${u}}`;
        if (inClass) return { src: neg ? '' : body, ranges: neg ? '^' + body : body };
        return { src: neg ? (u === 'any' ? '[^\\s\\S]' : `\\P{${u}}`) : u === 'any' ? '[\\s\\S]' : `\\p{${u}}` };
      }
      default:
        break;
    }
    if (c >= '0' && c <= '7') {
      // Octal escapes: \0 and \1..\7 only when followed by more octal digits (otherwise a backreference).
      if (c !== '0' && !(p[i] >= '0' && p[i] <= '7')) throw new RE2SyntaxError('invalid escape sequence', str(start, i));
      let j = i;
      while (j < n && j < i + 2 && p[j] >= '0' && p[j] <= '7') j++;
      const v = parseInt(str(i - 1, j), 8);
      i = j;
      return lit(v);
    }
    if (!inClass) {
      if (c === 'A') return { src: '(?<![\\s\\S])' };
      if (c === 'z') return { src: '(?![\\s\\S])' };
      if (c === 'b') return { src: '\\b' };
      if (c === 'B') return { src: '\\B' };
    }
    const cp = c.codePointAt(0)!;
    if (cp < 0x80 && !/[0-9A-Za-z]/.test(c)) return lit(cp);
    throw new RE2SyntaxError('invalid escape sequence', str(start, i));
  };

  const litSrc = (cp: number, flags: Flags, inClass: boolean): string => {
    if (flags.i) {
      const vs = caseVariants(cp);
      if (vs.length > 1) {
        const body = vs.map((v) => jsEscapeChar(v, true)).join('');
        return inClass ? body : `[${body}]`;
      }
    }
    return jsEscapeChar(cp, inClass);
  };

  const parseClass = (flags: Flags): string => {
    const start = i;
    i++; // [
    let neg = false;
    if (p[i] === '^') {
      neg = true;
      i++;
    }
    let body = '';
    const negParts: string[] = [];
    let first = true;
    for (;;) {
      if (i >= n) throw new RE2SyntaxError('missing closing ]', str(start, n));
      const c = p[i];
      if (c === ']' && !first) {
        i++;
        break;
      }
      first = false;
      if (c === '[' && p[i + 1] === ':') {
        const close = pattern.indexOf(':]', 0);
        const rest = str(i, n);
        const m = /^\[:(\^?)([a-z]+):\]/.exec(rest);
        void close;
        if (m) {
          const cls = POSIX[m[2]];
          if (!cls) throw new RE2SyntaxError('invalid character class range', m[0]);
          if (m[1]) negParts.push(cls);
          else body += cls;
          i += [...m[0]].length;
          continue;
        }
      }
      let lo: number;
      let loSrc: string;
      const itemStart = i;
      if (c === '\\') {
        const e = parseEscape({ ...flags, i: false }, true);
        if (e.cp === undefined) {
          if (e.ranges && e.ranges.startsWith('^')) negParts.push(e.ranges.slice(1));
          else body += e.ranges ?? e.src;
          continue;
        }
        lo = e.cp;
        loSrc = e.src;
      } else {
        lo = c.codePointAt(0)!;
        loSrc = jsEscapeChar(lo, true);
        i++;
      }
      if (p[i] === '-' && p[i + 1] !== undefined && p[i + 1] !== ']') {
        i++;
        let hi: number;
        if (p[i] === '\\') {
          const e = parseEscape({ ...flags, i: false }, true);
          if (e.cp === undefined) throw new RE2SyntaxError('invalid character class range', str(itemStart, i));
          hi = e.cp;
        } else hi = p[i++].codePointAt(0)!;
        if (hi < lo) throw new RE2SyntaxError('invalid character class range', str(itemStart, i));
        body += jsEscapeChar(lo, true) + '-' + jsEscapeChar(hi, true);
        if (flags.i) body += foldRange(lo, hi);
      } else {
        body += loSrc;
        if (flags.i) body += caseVariants(lo).map((v) => jsEscapeChar(v, true)).join('');
      }
    }
    // Negated pieces inside a class ([\D], [[:^alpha:]]) become lookahead-free alternatives.
    if (negParts.length === 0) {
      if (body === '') return neg ? '[\\s\\S]' : '[^\\s\\S]';
      return `[${neg ? '^' : ''}${body}]`;
    }
    const alts = [...(body ? [`[${body}]`] : []), ...negParts.map((x) => `[^${x}]`)];
    const any = `(?:${alts.join('|')})`;
    return neg ? `(?:(?!${any})[\\s\\S])` : any;
  };

  const foldRange = (lo: number, hi: number): string => {
    if (hi - lo > 2000) return '';
    let extra = '';
    for (let c = lo; c <= hi; c++) for (const v of caseVariants(c)) if (v < lo || v > hi) extra += jsEscapeChar(v, true);
    return extra;
  };

  const parseFlags = (flags: Flags): { flags: Flags; scoped: boolean } => {
    // p[i] at first flag char after "(?"
    const start = i - 2;
    const nf = { ...flags };
    let neg = false;
    let sawFlag = false;
    for (;;) {
      if (i >= n) throw new RE2SyntaxError('missing closing )', pattern);
      const c = p[i++];
      if (c === 'i' || c === 's' || c === 'm' || c === 'U') {
        nf[c] = !neg;
        sawFlag = true;
      } else if (c === '-') {
        if (neg) throw new RE2SyntaxError('invalid or unsupported Perl syntax', str(start, i));
        neg = true;
        sawFlag = false;
      } else if (c === ')' || c === ':') {
        if (neg && !sawFlag) throw new RE2SyntaxError('invalid or unsupported Perl syntax', str(start, i));
        return { flags: nf, scoped: c === ':' };
      } else throw new RE2SyntaxError('invalid or unsupported Perl syntax', str(start, i));
    }
  };

  const parseAlt = (flags: Flags, depth: number, groupStart: number): { src: string; flags: Flags } => {
    const branches: string[] = [];
    let out = '';
    let atomStart = -1; // index in `out` where the last repeatable atom starts
    let lastRepeat = false; // the previous token was a quantifier
    let repeatTextStart = 0;
    let cur = flags;
    const pushAtom = (src: string) => {
      atomStart = out.length;
      out += src;
      lastRepeat = false;
    };
    while (i < n) {
      const c = p[i];
      if (c === '|') {
        i++;
        branches.push(out);
        out = '';
        atomStart = -1;
        lastRepeat = false;
        continue;
      }
      if (c === ')') {
        if (depth === 0) throw new RE2SyntaxError('unexpected )', pattern);
        break;
      }
      if (c === '*' || c === '+' || c === '?' || (c === '{' && repeatSpec(i) !== undefined)) {
        const qStart = i;
        let q: string;
        let max = -1;
        let min = 0;
        if (c === '{') {
          const r = repeatSpec(i)!;
          i = r.end;
          q = str(qStart, i);
          min = r.min;
          max = r.max;
          if (min > 1000 || max > 1000 || (max >= 0 && max < min)) throw new RE2SyntaxError('invalid repeat count', q);
          q = max === -2 ? `{${min},}` : max === -1 ? `{${min}}` : `{${min},${max}}`;
        } else {
          i++;
          q = c;
        }
        let lazy = false;
        if (p[i] === '?') {
          lazy = true;
          i++;
        }
        if (cur.U) lazy = !lazy;
        const opText = str(qStart, i);
        if (lastRepeat) throw new RE2SyntaxError('invalid nested repetition operator', str(repeatTextStart, i));
        if (atomStart < 0) throw new RE2SyntaxError('missing argument to repetition operator', opText);
        const atom = out.slice(atomStart);
        out = out.slice(0, atomStart) + `(?:${atom})` + q + (lazy ? '?' : '');
        lastRepeat = true;
        repeatTextStart = qStart;
        continue;
      }
      if (c === '(') {
        const start = i;
        i++;
        if (p[i] === '?') {
          i++;
          if (p[i] === 'P' && p[i + 1] === '<') i += 1;
          if (p[i] === '<' && p[i + 1] !== '=' && p[i + 1] !== '!') {
            const close = p.indexOf('>', i);
            if (close < 0) throw new RE2SyntaxError('invalid named capture', str(start, n));
            const name = str(i + 1, close);
            if (!/^[A-Za-z0-9_]+$/.test(name)) throw new RE2SyntaxError('invalid named capture', str(start, close + 1));
            i = close + 1;
            groups++;
            names[groups] = name;
            const inner = parseAlt(cur, depth + 1, start);
            expectClose(start);
            pushAtom(`(${inner.src})`);
            continue;
          }
          if (p[i] === 'P' && p[i + 1] === '=') throw new RE2SyntaxError('invalid named capture', str(start, Math.min(n, i + 2)));
          if (p[i] === '=' || p[i] === '!' || (p[i] === '<' && (p[i + 1] === '=' || p[i + 1] === '!'))) {
            throw new RE2SyntaxError('invalid or unsupported Perl syntax', str(start, i + (p[i] === '<' ? 2 : 1)));
          }
          const f = parseFlags(cur);
          if (f.scoped) {
            const inner = parseAlt(f.flags, depth + 1, start);
            expectClose(start);
            pushAtom(`(?:${inner.src})`);
          } else {
            cur = f.flags;
          }
          continue;
        }
        groups++;
        names[groups] = '';
        const inner = parseAlt(cur, depth + 1, start);
        expectClose(start);
        pushAtom(`(${inner.src})`);
        continue;
      }
      if (c === '[') {
        pushAtom(parseClass(cur));
        continue;
      }
      if (c === '\\') {
        if (p[i + 1] === 'Q') {
          i += 2;
          let end = -1;
          for (let k = i; k < n - 1; k++) if (p[k] === '\\' && p[k + 1] === 'E') {
            end = k;
            break;
          }
          const litEnd = end < 0 ? n : end;
          for (let k = i; k < litEnd; k++) pushAtom(litSrc(p[k].codePointAt(0)!, cur, false));
          i = end < 0 ? n : end + 2;
          continue;
        }
        const e = parseEscape(cur, false);
        if (e.src.startsWith('(?<!') || e.src.startsWith('(?!') || e.src === '\\b' || e.src === '\\B') {
          out += e.src;
          atomStart = -1;
          lastRepeat = false;
          // Go allows repeating empty-width assertions; treat them as atoms for quantifiers.
          atomStart = out.length - e.src.length;
        } else pushAtom(e.src);
        continue;
      }
      if (c === '.') {
        i++;
        pushAtom(cur.s ? '[\\s\\S]' : '[^\\n]');
        continue;
      }
      if (c === '^') {
        i++;
        pushAtom(cur.m ? '(?:(?<![\\s\\S])|(?<=\\n))' : '(?<![\\s\\S])');
        continue;
      }
      if (c === '$') {
        i++;
        pushAtom(cur.m ? '(?:(?![\\s\\S])|(?=\\n))' : '(?![\\s\\S])');
        continue;
      }
      i++;
      pushAtom(litSrc(c.codePointAt(0)!, cur, false));
    }
    branches.push(out);
    void groupStart;
    return { src: branches.join('|'), flags: cur };
  };

  const expectClose = (start: number) => {
    if (p[i] !== ')') throw new RE2SyntaxError('missing closing )', pattern);
    void start;
    i++;
  };

  /** `{n}`, `{n,}`, `{n,m}` at index k; max -1 = exact, -2 = unbounded. */
  const repeatSpec = (k: number): { min: number; max: number; end: number } | undefined => {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(str(k, Math.min(n, k + 24)));
    if (!m) return undefined;
    const min = parseInt(m[1], 10);
    const max = m[2] === undefined ? -1 : m[3] === '' ? -2 : parseInt(m[3], 10);
    return { min, max, end: k + m[0].length };
  };

  const top = parseAlt({ i: false, s: false, m: false, U: false }, 0, 0);
  if (i < n) throw new RE2SyntaxError('unexpected )', pattern);
  let regexp: RegExp;
  try {
    regexp = new RegExp(top.src, 'gu');
  } catch (e) {
    throw new RE2SyntaxError('invalid or unsupported Perl syntax', pattern);
  }
  return { source: pattern, regexp, groups, names };
}

/** All matches as Go's FindAll*Index: non-overlapping, skipping empty matches adjacent to the previous one. */
export function findAll(re: RE2, s: string, limit = -1): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  const rx = re.regexp;
  rx.lastIndex = 0;
  let prevEnd = -1;
  let pos = 0;
  while (pos <= s.length && (limit < 0 || out.length < limit)) {
    rx.lastIndex = pos;
    const m = rx.exec(s);
    if (!m) break;
    const end = m.index + m[0].length;
    if (m[0].length === 0 && m.index === prevEnd) {
      // Go ignores an empty match right after the previous match; retry one character later.
      if (m.index >= s.length) break;
      pos = m.index + (s.codePointAt(m.index)! > 0xffff ? 2 : 1);
      continue;
    }
    out.push(m);
    prevEnd = end;
    pos = m[0].length === 0 ? end + (end < s.length && s.codePointAt(end)! > 0xffff ? 2 : 1) : end;
  }
  return out;
}

export function findFirst(re: RE2, s: string): RegExpExecArray | null {
  re.regexp.lastIndex = 0;
  return re.regexp.exec(s);
}

/** Go's Regexp.ReplaceAllString: `$1`, `${1}`, `$name`, `${name}`, `$$` in the template. */
export function replaceAll(re: RE2, s: string, template: string): string {
  let out = '';
  let last = 0;
  for (const m of findAll(re, s)) {
    out += s.slice(last, m.index) + expandTemplate(re, m, template);
    last = m.index + m[0].length;
  }
  return out + s.slice(last);
}

function expandTemplate(re: RE2, m: RegExpExecArray, t: string): string {
  let out = '';
  let i = 0;
  while (i < t.length) {
    const k = t.indexOf('$', i);
    if (k < 0) {
      out += t.slice(i);
      break;
    }
    out += t.slice(i, k);
    i = k + 1;
    if (t[i] === '$') {
      out += '$';
      i++;
      continue;
    }
    let name: string | undefined;
    if (t[i] === '{') {
      const close = t.indexOf('}', i);
      const inner = close < 0 ? '' : t.slice(i + 1, close);
      if (close >= 0 && /^[A-Za-z0-9_]+$/.test(inner)) {
        name = inner;
        i = close + 1;
      }
    } else {
      const mm = /^[A-Za-z0-9_]+/.exec(t.slice(i));
      if (mm) {
        name = mm[0];
        i += mm[0].length;
      }
    }
    if (name === undefined) {
      out += '$';
      continue;
    }
    let idx = -1;
    if (/^\d+$/.test(name)) {
      const v = parseInt(name, 10);
      if (v <= re.groups && name.length < 10) idx = v;
    } else idx = re.names.indexOf(name);
    if (idx >= 0 && m[idx] !== undefined) out += m[idx];
  }
  return out;
}
