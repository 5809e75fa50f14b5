// Numeric built-in functions (go-cty stdlib and Terraform's lang/funcs): abs, ceil, floor, log, max, min,
// parseint, pow, signum. abs/ceil/floor/max/min/parseint keep arbitrary precision; log and pow compute on
// float64 as Terraform does, so their results print in shortest float64 form. Messages have no final period.

import { Num } from '../number';
import * as T from '../types';
import { Value } from '../value';
import { fn, FuncArgError, FuncError, type FuncSpec } from './function';
import { goQuote, toGoInt } from './_util';

const num = (name: string, extra: { allowDynamicType?: boolean; allowMarked?: boolean } = {}) => ({
  name,
  type: T.Number,
  ...extra,
});

/** Go's big.Int SetString digit value for a character in the given base, or -1. */
function digitValue(c: string, base: number): number {
  const code = c.charCodeAt(0);
  let d = -1;
  if (code >= 48 && code <= 57) d = code - 48;
  else if (code >= 97 && code <= 122) d = code - 97 + 10;
  else if (code >= 65 && code <= 90) d = base <= 36 ? code - 65 + 10 : code - 65 + 36;
  return d >= 0 && d < base ? d : -1;
}

function parseBigInt(s: string, base: number): bigint | undefined {
  let i = 0;
  let neg = false;
  if (s[0] === '+' || s[0] === '-') {
    neg = s[0] === '-';
    i = 1;
  }
  if (i >= s.length) return undefined;
  let r = 0n;
  const b = BigInt(base);
  for (; i < s.length; i++) {
    const d = digitValue(s[i], base);
    if (d < 0) return undefined;
    r = r * b + BigInt(d);
  }
  return neg ? -r : r;
}

function floatResult(x: number): Value {
  // A NaN makes cty panic in Terraform 1.11; the panic is reported as a call error.
  if (Number.isNaN(x)) throw new FuncError('panic in function implementation: can\'t use NaN as a number');
  return Value.number(Num.from(x));
}

export const functions: Record<string, FuncSpec> = {
  abs: fn({
    params: [num('num', { allowDynamicType: true, allowMarked: true })],
    returns: T.Number,
    impl: ([n]) => {
      const [u, m] = n.unmark();
      return Value.number(u.num.abs()).markWith(m);
    },
  }),
  ceil: fn({
    params: [num('num')],
    returns: T.Number,
    impl: ([n]) => Value.number(n.num.isInf() ? n.num : n.num.ceil()),
  }),
  floor: fn({
    params: [num('num')],
    returns: T.Number,
    impl: ([n]) => Value.number(n.num.isInf() ? n.num : n.num.floor()),
  }),
  log: fn({
    params: [num('num'), num('base')],
    returns: T.Number,
    impl: ([n, b]) => floatResult(Math.log(n.num.toNumber()) / Math.log(b.num.toNumber())),
  }),
  pow: fn({
    params: [num('num'), num('power')],
    returns: T.Number,
    impl: ([n, p]) => floatResult(goPow(n.num.toNumber(), p.num.toNumber())),
  }),
  signum: fn({
    params: [num('num')],
    returns: T.Number,
    impl: ([n]) => {
      const i = toGoInt(n);
      return Value.number(i < 0 ? -1 : i > 0 ? 1 : 0);
    },
  }),
  max: fn({
    params: [],
    varParam: num('numbers', { allowDynamicType: true }),
    returns: T.Number,
    impl: (args) => {
      if (args.length === 0) throw new FuncError('must pass at least one number');
      let best = Num.NEG_INF;
      let bestV: Value = Value.number(best);
      for (const a of args)
        if (a.num.cmp(best) > 0) {
          best = a.num;
          bestV = a;
        }
      return bestV;
    },
  }),
  min: fn({
    params: [],
    varParam: num('numbers', { allowDynamicType: true }),
    returns: T.Number,
    impl: (args) => {
      if (args.length === 0) throw new FuncError('must pass at least one number');
      let best = Num.POS_INF;
      let bestV: Value = Value.number(best);
      for (const a of args)
        if (a.num.cmp(best) < 0) {
          best = a.num;
          bestV = a;
        }
      return bestV;
    },
  }),
  parseint: fn({
    params: [{ name: 'number', type: T.Dynamic }, num('base')],
    type: (args) => {
      if (args[0].type.kind !== 'string')
        throw new FuncArgError(0, `first argument must be a string, not ${T.friendlyName(args[0].type)}`);
      return T.Number;
    },
    impl: ([s, b]) => {
      let base: number;
      try {
        base = toGoInt(b);
      } catch (e) {
        if (e instanceof FuncError) throw new FuncArgError(1, e.message);
        throw e;
      }
      if (base < 2 || base > 62) throw new FuncArgError(1, 'base must be a whole number between 2 and 62 inclusive');
      const r = parseBigInt(s.str, base);
      if (r === undefined) throw new FuncArgError(0, `cannot parse ${goQuote(s.str)} as a base ${base} integer`);
      return Value.number(r);
    },
  }),
};

/**
 * Go's math.Pow, whose results are not always correctly rounded (pow(10, 308) is 1.0000000000000006e308
 * in Go, 1e308 in JS): Terraform prints Go's value, so the integer part of the exponent is computed the way
 * Go computes it, by repeated squaring of the mantissa with a separate binary exponent. The fractional part
 * uses exp(yf·log(x)) as Go does, with JS's exp and log.
 */
function goPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (y === 1) return x;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if ((x === -1) && !Number.isFinite(y)) return 1;
  if (x === 0 || !Number.isFinite(x) || !Number.isFinite(y)) return Math.pow(x, y);
  if (y === 0.5) return Math.sqrt(x);
  if (y === -0.5) return 1 / Math.sqrt(x);
  let yi = Math.trunc(Math.abs(y));
  let yf = Math.abs(y) - yi;
  if (yf !== 0 && x < 0) return NaN;
  if (yi >= 2 ** 63) {
    // The exponent is so large that only its parity and the magnitude of x matter; JS agrees with Go here.
    return Math.pow(x, y);
  }
  let a1 = 1;
  let ae = 0;
  if (yf !== 0) {
    if (yf > 0.5) {
      yf--;
      yi++;
    }
    a1 = Math.exp(yf * Math.log(x));
  }
  let [x1, xe] = frexp(x);
  for (let i = BigInt(yi); i !== 0n; i >>= 1n) {
    if (xe < -(1 << 12) || 1 << 12 < xe) {
      // Catastrophic overflow or underflow: the result is 0 or Inf either way.
      ae += xe;
      break;
    }
    if ((i & 1n) === 1n) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe <<= 1;
    if (x1 < 0.5) {
      x1 += x1;
      xe--;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  return ldexp(a1, ae);
}

/** Splits a finite non-zero x into a fraction in [0.5, 1) and a power of two: x = frac · 2^exp. */
function frexp(x: number): [number, number] {
  const view = new DataView(new ArrayBuffer(8));
  let e0 = 0;
  if (Math.abs(x) < 2.2250738585072014e-308) {
    x *= 2 ** 52; // normalise a subnormal first
    e0 = -52;
  }
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const exp = ((hi >>> 20) & 0x7ff) - 1022;
  view.setUint32(0, (hi & ~(0x7ff << 20)) | (1022 << 20));
  return [view.getFloat64(0), exp + e0];
}

/** frac · 2^exp, rounding once as Go's math.Ldexp does (the multiplications by powers of two are exact until the last). */
function ldexp(frac: number, exp: number): number {
  if (frac === 0 || !Number.isFinite(frac)) return frac;
  const [f, e] = frexp(frac);
  let total = e + exp;
  let m = f;
  if (total > 1024) return f < 0 ? -Infinity : Infinity;
  if (total < -1075 - 53) return f < 0 ? -0 : 0;
  // 2 ** 1024 is not a float64, so scale in two steps; each is exact except a final subnormal rounding.
  if (total > 0) return m * 2 ** (total - 1) * 2;
  if (total < -1021) return m * 2 ** (total + 53) * 2 ** -53;
  return m * 2 ** total;
}
