// Built-in date/time functions of Terraform 1.11: formatdate, timeadd, timecmp, timestamp and plantimestamp.
// Timestamps are RFC 3339 strings parsed strictly as go-cty does (with its error texts); durations follow
// Go's time.ParseDuration. Times keep nanoseconds and their UTC offset, so timeadd prints in the offset it
// was given, as Go's Time.Format(RFC3339) does.
//
// timestamp() is known even while planning: the Terraform 1.11 console prints a real value for it (the corpus
// wraps it in length()/timecmp()), so ctx.planning does not turn it unknown. plantimestamp() gives the time
// this process started planning, and is unknown outside planning (Terraform's validate walk). Terraform's
// console does not offer plantimestamp at all; the function table decides that, not this module.
// Messages carry no trailing period: the call wrapper appends one (see crypto.ts).

import * as T from '../types';
import { Value } from '../value';
import { goQuote } from './crypto';
import { FuncArgError, FuncError, type FuncSpec } from './function';

export interface Time {
  /** Seconds since the Unix epoch (UTC). */
  sec: bigint;
  nsec: number;
  /** UTC offset in seconds; null for "Z". */
  offset: number | null;
}

class ParseErr extends Error {}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days from 1970-01-01 to the civil date (proleptic Gregorian). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** go-cty's strict RFC 3339 parser, with its error texts (without the trailing period). */
export function parseTimestamp(s: string): Time {
  let rest = s;
  const fail = (layout: string, value: string, message = ''): never => {
    if (layout === '' && value === '' && message !== '') throw new ParseErr(`not a valid RFC3339 timestamp${message}`);
    const what: Record<string, string> = {
      '2006': 'year',
      '01': 'month',
      '02': 'day of month',
      '15': 'hour',
      '04': 'minute',
      '05': 'second',
      'Z07:00': 'UTC offset',
    };
    if (layout === 'T') throw new ParseErr("not a valid RFC3339 timestamp: missing required time introducer 'T'");
    if (layout === ':' || layout === '-') {
      if (value === '') throw new ParseErr(`not a valid RFC3339 timestamp: end of string where ${goQuote(layout)} is expected`);
      throw new ParseErr(`not a valid RFC3339 timestamp: found ${goQuote(value)} where ${goQuote(layout)} is expected`);
    }
    const w = what[layout] ?? 'timestamp segment';
    if (value === '') throw new ParseErr(`not a valid RFC3339 timestamp: end of string before ${w}`);
    if (w === 'hour' && value.includes(':')) throw new ParseErr('not a valid RFC3339 timestamp: hour must be between 0 and 23 inclusive');
    if (w === 'hour' && value.length !== 2) throw new ParseErr('not a valid RFC3339 timestamp: hour must have exactly two digits');
    if (w === 'minute' && value.length !== 2) throw new ParseErr('not a valid RFC3339 timestamp: minute must have exactly two digits');
    throw new ParseErr(`not a valid RFC3339 timestamp: cannot use ${goQuote(value)} as ${w}`);
  };
  const num = (layout: string, digits: number, min: number, max: number): number => {
    const m = new RegExp(`^\\d{${digits}}`).exec(rest);
    if (!m) fail(layout, rest);
    const v = parseInt(m![0], 10);
    rest = rest.slice(digits);
    if (v < min || v > max) fail(layout, rest);
    return v;
  };
  const lit = (c: string) => {
    if (!rest.startsWith(c)) fail(c, rest);
    rest = rest.slice(c.length);
  };
  const year = num('2006', 4, 0, 9999);
  lit('-');
  const month = num('01', 2, 1, 12);
  lit('-');
  const day = num('02', 2, 1, 31);
  lit('T');
  const hour = num('15', 2, 0, 23);
  lit(':');
  const minute = num('04', 2, 0, 59);
  lit(':');
  const second = num('05', 2, 0, 59);
  let nsec = 0;
  const frac = /^\.(\d+)/.exec(rest);
  if (frac) {
    nsec = parseInt(frac[1].slice(0, 9).padEnd(9, '0'), 10);
    rest = rest.slice(frac[0].length);
  }
  let offset: number | null;
  if (rest.startsWith('Z')) {
    offset = null;
    rest = rest.slice(1);
  } else {
    const m = /^([+-])(\d\d):(\d\d)/.exec(rest);
    if (!m || parseInt(m[2], 10) > 23 || parseInt(m[3], 10) > 59) fail('Z07:00', rest);
    offset = (m![1] === '-' ? -1 : 1) * (parseInt(m![2], 10) * 3600 + parseInt(m![3], 10) * 60);
    rest = rest.slice(6);
  }
  if (rest !== '') fail('', rest);
  if (day > daysIn(month, year)) fail('', '', ': day out of range');
  const local = BigInt(daysFromCivil(year, month, day)) * 86400n + BigInt(hour * 3600 + minute * 60 + second);
  return { sec: local - BigInt(offset ?? 0), nsec, offset };
}

/** Go's Time.Format(time.RFC3339). */
export function formatRFC3339(t: Time): string {
  const f = fields(t);
  const p2 = (n: number) => String(n).padStart(2, '0');
  const year = f.year < 0 ? '-' + String(-f.year).padStart(4, '0') : String(f.year).padStart(4, '0');
  return `${year}-${p2(f.month)}-${p2(f.day)}T${p2(f.hour)}:${p2(f.minute)}:${p2(f.second)}${zone(t, true, true)}`;
}

function zone(t: Time, colon: boolean, z: boolean): string {
  const off = t.offset ?? 0;
  if (off === 0 && z) return 'Z';
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  const hh = String(Math.floor(a / 3600)).padStart(2, '0');
  const mm = String(Math.floor((a % 3600) / 60)).padStart(2, '0');
  return sign + hh + (colon ? ':' : '') + mm;
}

function fields(t: Time) {
  const local = t.sec + BigInt(t.offset ?? 0);
  const days = local >= 0n ? local / 86400n : -((-local + 86399n) / 86400n);
  const secOfDay = Number(local - days * 86400n);
  const [year, month, day] = civilFromDays(Number(days));
  const weekday = (((Number(days) + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
  return { year, month, day, hour: Math.floor(secOfDay / 3600), minute: Math.floor((secOfDay % 3600) / 60), second: secOfDay % 60, weekday };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** cty's formatdate; throws FuncArgError(0) for a bad format. */
export function formatDate(format: string, t: Time): string {
  const f = fields(t);
  const isVerb = (c: string) => /[A-Za-z]/.test(c);
  const p2 = (n: number) => String(n).padStart(2, '0');
  let out = '';
  let i = 0;
  const bad = (tok: string, extra = '') => new FuncArgError(0, `invalid date format verb ${goQuote(tok)}${extra}`);
  while (i < format.length) {
    const c = format[i];
    if (c === "'") {
      if (format[i + 1] === "'") {
        out += "'";
        i += 2;
        continue;
      }
      let j = i + 1;
      let closed = false;
      let lit = '';
      while (j < format.length) {
        if (format[j] === "'") {
          if (format[j + 1] === "'") {
            lit += "'";
            j += 2;
            continue;
          }
          closed = true;
          j++;
          break;
        }
        lit += format[j++];
      }
      if (!closed) throw new FuncArgError(0, "unterminated literal '");
      out += lit;
      i = j;
      continue;
    }
    if (!isVerb(c)) {
      let j = i;
      while (j < format.length && format[j] !== "'" && !isVerb(format[j])) j++;
      out += format.slice(i, j);
      i = j;
      continue;
    }
    let j = i;
    while (j < format.length && format[j] === c) j++;
    const tok = format.slice(i, j);
    const n = tok.length;
    i = j;
    switch (c) {
      case 'Y':
        if (n === 2) out += p2(((f.year % 100) + 100) % 100);
        else if (n === 4) out += String(f.year).padStart(4, '0');
        else throw bad(tok, ': year must either be "YY" or "YYYY"');
        break;
      case 'M':
        if (n === 1) out += f.month;
        else if (n === 2) out += p2(f.month);
        else if (n === 3) out += MONTHS[f.month - 1].slice(0, 3);
        else if (n === 4) out += MONTHS[f.month - 1];
        else throw bad(tok, ': month must be "M", "MM", "MMM", or "MMMM"');
        break;
      case 'D':
        if (n === 1) out += f.day;
        else if (n === 2) out += p2(f.day);
        else throw bad(tok, ': day of month must either be "D" or "DD"');
        break;
      case 'E':
        if (n === 3) out += DAYS[f.weekday].slice(0, 3);
        else if (n === 4) out += DAYS[f.weekday];
        else throw bad(tok, ': day of week must either be "EEE" or "EEEE"');
        break;
      case 'h':
        if (n === 1) out += f.hour;
        else if (n === 2) out += p2(f.hour);
        else throw bad(tok, ': 24-hour must either be "h" or "hh"');
        break;
      case 'H': {
        const h = f.hour % 12 === 0 ? 12 : f.hour % 12;
        if (n === 1) out += h;
        else if (n === 2) out += p2(h);
        else throw bad(tok, ': 12-hour must either be "H" or "HH"');
        break;
      }
      case 'A':
      case 'a':
        if (n !== 2) throw bad(tok, `: must be "${c}${c}"`);
        out += f.hour < 12 ? (c === 'A' ? 'AM' : 'am') : c === 'A' ? 'PM' : 'pm';
        break;
      case 'm':
        if (n === 1) out += f.minute;
        else if (n === 2) out += p2(f.minute);
        else throw bad(tok, ': minute must either be "m" or "mm"');
        break;
      case 's':
        if (n === 1) out += f.second;
        else if (n === 2) out += p2(f.second);
        else throw bad(tok, ': second must either be "s" or "ss"');
        break;
      case 'Z':
        if (n === 1) out += zone(t, true, true);
        else if (n === 3) {
          const z = zone(t, false, false);
          out += z === '+0000' ? 'UTC' : z;
        } else if (n === 4) out += zone(t, false, false);
        else if (n === 5) out += zone(t, true, false);
        else throw bad(tok, ': timezone must be Z, ZZZZ, or ZZZZZ');
        break;
      default:
        throw bad(tok);
    }
  }
  return out;
}

const UNITS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  'µs': 1e3, // U+00B5
  'μs': 1e3, // U+03BC
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Go's time.ParseDuration, in nanoseconds; throws FuncError with Go's message. */
export function parseDuration(orig: string): bigint {
  let s = orig;
  let neg = false;
  const invalid = () => new FuncError(`time: invalid duration ${goQuote(orig)}`);
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid();
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || (s[0] >= '0' && s[0] <= '9'))) throw invalid();
    const m = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const intPart = m[1];
    const fracPart = m[2];
    if (intPart === '' && (fracPart === undefined || fracPart === '')) throw invalid();
    s = s.slice(m[0].length);
    let k = 0;
    while (k < s.length && s[k] !== '.' && !(s[k] >= '0' && s[k] <= '9')) k++;
    const u = s.slice(0, k);
    s = s.slice(k);
    if (u === '') throw new FuncError(`time: missing unit in duration ${goQuote(orig)}`);
    const unit = UNITS[u];
    if (unit === undefined) throw new FuncError(`time: unknown unit ${goQuote(u)} in duration ${goQuote(orig)}`);
    let v = BigInt(intPart || '0') * BigInt(unit);
    if (fracPart) {
      const f = parseInt(fracPart.slice(0, 18), 10);
      const scale = 10 ** Math.min(fracPart.length, 18);
      v += BigInt(Math.trunc(f * (unit / scale)));
    }
    total += v;
    if (total > 9223372036854775807n) throw invalid();
  }
  return neg ? -total : total;
}

export function addDuration(t: Time, ns: bigint): Time {
  const total = BigInt(t.nsec) + ns;
  let secs = total / 1000000000n;
  let rem = total % 1000000000n;
  if (rem < 0n) {
    rem += 1000000000n;
    secs -= 1n;
  }
  return { sec: t.sec + secs, nsec: Number(rem), offset: t.offset };
}

function parseOr(idx: number | undefined, s: string): Time {
  try {
    return parseTimestamp(s);
  } catch (e) {
    if (e instanceof ParseErr) throw idx === undefined ? new FuncError(e.message) : new FuncArgError(idx, e.message);
    throw e;
  }
}

function nowTime(): Time {
  const ms = Date.now();
  return { sec: BigInt(Math.floor(ms / 1000)), nsec: 0, offset: null };
}
const planStart = nowTime();

export const functions: Record<string, FuncSpec> = {
  formatdate: {
    params: [
      { name: 'format', type: T.String },
      { name: 'time', type: T.String },
    ],
    returns: T.String,
    impl: (args) => {
      const t = parseOr(1, args[1].str);
      return Value.string(formatDate(args[0].str, t));
    },
  },
  timeadd: {
    params: [
      { name: 'timestamp', type: T.String },
      { name: 'duration', type: T.String },
    ],
    returns: T.String,
    impl: (args) => {
      const t = parseOr(undefined, args[0].str);
      const d = parseDuration(args[1].str);
      return Value.string(formatRFC3339(addDuration(t, d)));
    },
  },
  timecmp: {
    params: [
      { name: 'timestamp_a', type: T.String },
      { name: 'timestamp_b', type: T.String },
    ],
    returns: T.Number,
    impl: (args) => {
      const a = parseOr(0, args[0].str);
      const b = parseOr(1, args[1].str);
      const c = a.sec < b.sec ? -1 : a.sec > b.sec ? 1 : Math.sign(a.nsec - b.nsec);
      return Value.number(c);
    },
  },
  timestamp: {
    params: [],
    returns: T.String,
    impl: () => Value.string(formatRFC3339(nowTime())),
  },
  plantimestamp: {
    params: [],
    returns: T.String,
    impl: (_args, ctx) => (ctx.planning ? Value.string(formatRFC3339(planStart)) : Value.unknown(T.String, { notNull: true })),
  },
};
