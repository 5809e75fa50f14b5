// Arbitrary-precision binary floating point numbers with the semantics of Go's math/big.Float as go-cty
// uses it for Terraform's `number` type.
//
// A Num is immutable. It is one of: a signed zero (+0 or -0), a finite nonzero value
// (-1)^neg × mant × 2^exp with `mant` an odd positive bigint, or a signed infinity. Every Num also has a
// precision in bits (big.Float's Prec), which decides how results computed from it are rounded and how
// it prints. Rounding is always to nearest, ties to even (big.Float's default mode).
//
// Where values come from and which precision they get (matching go-cty):
//   - number literals and tonumber(): Num.parse, precision 512 (cty.ParseNumberVal);
//   - results of float64 functions (pow, log, …): Num.from(number) / Num.fromFloat64, precision 53;
//   - integers computed by Go code (length(), parseint(), …): Num.from(bigint) / Num.fromInt, precision
//     max(64, bit length) (big.Float.SetInt64 / SetInt).
// Arithmetic rounds to the larger precision of the operands, except that multiplication keeps every bit of
// the 512-bit-rounded product (cty's Multiply), and modulo follows cty's Modulo step by step.
//
// Operations that big.Float cannot define (∞-∞, 0×∞, 0/0, ∞/∞) throw NaNError, whose message is the
// text that HCL's operator reports ("can't subtract infinity from itself", …).

/** Thrown when an operation has no defined result (big.Float's ErrNaN panic). The message is HCL's. */
export class NaNError extends Error {}

/** Thrown where Terraform itself crashes with a Go runtime panic (for example ±Inf % x). */
export class GoPanicError extends Error {}

/** An exact decimal form: the value is 0.mant × 10^exp (mant has no leading or trailing zeros; "" for zero). */
export interface DecimalForm {
  neg: boolean;
  inf: boolean;
  mant: string;
  exp: number;
}

const ZERO_FORM = 0;
const FINITE = 1;
const INF = 2;
type Form = typeof ZERO_FORM | typeof FINITE | typeof INF;

/** big.Float's exponent range: a finite value is 0.m × 2^e with MIN_EXP <= e <= MAX_EXP. */
const MAX_EXP = 2147483647;
const MIN_EXP = -2147483648;

/** The precision that literals and tonumber() use. */
const PARSE_PREC = 512;

const TWO32 = 4294967296;
const SMALL_LIMIT = 0x20000000000000n; // 2^53

/** Number of bits of m (m >= 0); bitLen(0) is 0. */
function bitLen(m: bigint): number {
  if (m < SMALL_LIMIT) {
    const x = Number(m);
    if (x < TWO32) return 32 - Math.clz32(x);
    return 64 - Math.clz32(Math.floor(x / TWO32));
  }
  const s = m.toString(16);
  const top = parseInt(s[0], 16);
  return (s.length - 1) * 4 + (32 - Math.clz32(top));
}

/** Number of trailing zero bits of m (m > 0). */
function trailingZeros(m: bigint): number {
  if ((m & 1n) === 1n) return 0;
  return bitLen(m & -m) - 1;
}

/** A finite or zero magnitude in the middle of a computation: m × 2^e, m >= 0, not normalised. */
interface Raw {
  m: bigint;
  e: number;
}

export class Num {
  private cachedString?: string;
  private cachedBits?: number;

  private constructor(
    private readonly form: Form,
    private readonly negative: boolean,
    /** Odd positive mantissa for finite values; 0n otherwise. */
    private readonly mant: bigint,
    /** Binary exponent of the least significant mantissa bit (finite values only). */
    private readonly exp: number,
    /** Precision in bits, as big.Float's Prec. */
    private readonly prec: number,
  ) {}

  // ---- construction ----------------------------------------------------------------------------------

  /** From a JS number (a float64 result: precision 53, prints shortest float64 form) or a bigint (exact, precision max(64, bits)). */
  static from(n: number | bigint): Num {
    return typeof n === 'bigint' ? Num.fromInt(n) : Num.fromFloat64(n);
  }

  /** big.Float.SetFloat64: precision 53, exact. NaN throws NaNError. */
  static fromFloat64(x: number): Num {
    if (Number.isNaN(x)) throw new NaNError('NaN is not a number');
    if (x === 0) return new Num(ZERO_FORM, Object.is(x, -0), 0n, 0, 53);
    if (!Number.isFinite(x)) return new Num(INF, x < 0, 0n, 0, 53);
    const neg = x < 0;
    const a = Math.abs(x);
    F64[0] = a;
    const bits = U64[0];
    const be = Number(bits >> 52n);
    const frac = bits & 0xfffffffffffffn;
    if (be === 0) return exactNum(neg, frac, -1074, 53);
    return exactNum(neg, frac | 0x10000000000000n, be - 1075, 53);
  }

  /**
   * An integer as Go code produces it (cty.NumberIntVal / big.Float.SetInt): exact, precision
   * max(64, bit length). A JS number argument must be an integer.
   */
  static fromInt(n: number | bigint): Num {
    const b = typeof n === 'bigint' ? n : BigInt(n);
    const neg = b < 0n;
    const m = neg ? -b : b;
    if (m === 0n) return new Num(ZERO_FORM, false, 0n, 0, 64);
    return exactNum(neg, m, 0, Math.max(64, bitLen(m)));
  }

  /**
   * Parses a decimal number as cty.ParseNumberVal does (big.ParseFloat base 10, precision 512, nearest
   * even): optional sign, digits with an optional fraction ("1.", ".5" and "007" are fine), optional
   * decimal exponent ("e5") or binary exponent ("p5", times 2^5); also "Inf"/"inf" with an optional sign. Returns undefined for anything else (including
   * surrounding spaces, "0x1F", "1_000", exponent overflow).
   */
  static parse(s: string): Num | undefined {
    return parseDecimal(s, PARSE_PREC);
  }

  /**
   * Parses an integer in the given base (2..62) as Go's big.Int SetString does: optional sign, no prefix,
   * no underscores; for bases up to 36 letters are case-insensitive, above that 'a'-'z' are 10..35 and
   * 'A'-'Z' 36..61. The result has precision max(64, bit length). Undefined when invalid.
   */
  static parseInt(s: string, base: number): Num | undefined {
    if (!Number.isInteger(base) || base < 2 || base > 62) return undefined;
    let i = 0;
    let neg = false;
    if (s[0] === '+' || s[0] === '-') {
      neg = s[0] === '-';
      i = 1;
    }
    if (i >= s.length) return undefined;
    const bigBase = BigInt(base);
    // Accumulate chunks of digits in a JS number while base^k stays below 2^53.
    let chunkLen = 1;
    while (Math.pow(base, chunkLen + 1) < 2 ** 53) chunkLen++;
    let acc = 0n;
    while (i < s.length) {
      const end = Math.min(s.length, i + chunkLen);
      let chunk = 0;
      for (let j = i; j < end; j++) {
        const d = digitValue(s.charCodeAt(j), base);
        if (d < 0 || d >= base) return undefined;
        chunk = chunk * base + d;
      }
      acc = acc * (end - i === chunkLen ? bigBase ** BigInt(chunkLen) : bigBase ** BigInt(end - i)) + BigInt(chunk);
      i = end;
    }
    return Num.fromInt(neg ? -acc : acc);
  }

  /** cty.Zero (precision 64). */
  static readonly ZERO = new Num(ZERO_FORM, false, 0n, 0, 64);
  /** cty.NumberIntVal(1) (precision 64). */
  static readonly ONE = new Num(FINITE, false, 1n, 0, 64);
  /** cty.PositiveInfinity (precision 53). */
  static readonly POS_INF = new Num(INF, false, 0n, 0, 53);
  /** cty.NegativeInfinity (precision 53). */
  static readonly NEG_INF = new Num(INF, true, 0n, 0, 53);

  // ---- accessors ------------------------------------------------------------------------------------

  /** The precision in bits (big.Float.Prec). */
  get precision(): number {
    return this.prec;
  }
  /** Bit length of the odd mantissa (0 for zero and infinities): big.Float.MinPrec. */
  private get bits(): number {
    if (this.cachedBits === undefined) this.cachedBits = this.form === FINITE ? bitLen(this.mant) : 0;
    return this.cachedBits;
  }
  /** big.Float.MinPrec: the number of bits needed to represent the value exactly. */
  minPrec(): number {
    return this.bits;
  }

  // ---- arithmetic -----------------------------------------------------------------------------------

  /** Sum, rounded to the larger precision. Opposing infinities throw NaNError. */
  add(o: Num): Num {
    return addPrec(this, o, false, Math.max(this.prec, o.prec), "can't compute sum of opposing infinities");
  }
  /** Difference, rounded to the larger precision. ∞-∞ throws NaNError. */
  sub(o: Num): Num {
    return addPrec(this, o, true, Math.max(this.prec, o.prec), "can't subtract infinity from itself");
  }
  /**
   * Product as cty's Multiply computes it: rounded to 512 bits, then kept at the larger of the operands'
   * precisions and the bits the rounded product needs. 0×∞ throws NaNError.
   */
  mul(o: Num): Num {
    const p = mulPrec(this, o, 512, "can't multiply zero by infinity");
    const prec = Math.max(this.prec, o.prec, p.bits);
    return p.withPrec(prec);
  }
  /** Quotient, rounded to the larger precision. x/±0 is ±Inf; 0/0 and ∞/∞ throw NaNError. */
  div(o: Num): Num {
    return quoPrec(this, o, Math.max(this.prec, o.prec), "can't divide zero by zero or infinity by infinity");
  }
  /**
   * Terraform's % (cty's Modulo): x % ±0 is x; otherwise x - o × trunc(x/o), each step rounded to x's
   * precision, so the result has the sign of the dividend. x % ±∞ (finite x) and ∞ % ∞ throw NaNError;
   * ±∞ % finite throws GoPanicError (Terraform crashes there).
   */
  mod(o: Num): Num {
    const msg = "can't use modulo with zero and infinity";
    if (o.form === ZERO_FORM) return this;
    const rat = quoPrec(this, o, Math.max(this.prec, o.prec), msg);
    if (rat.form === INF) throw new GoPanicError('runtime error: invalid memory address or nil pointer dereference');
    const t = rat.truncInt();
    const work = t === 0n ? new Num(ZERO_FORM, false, 0n, 0, this.prec) : roundedNum(t < 0n, t < 0n ? -t : t, 0, this.prec);
    const prod = mulPrec(o, work, this.prec, msg);
    return addPrec(this, prod, true, this.prec, msg);
  }
  /** Negation, keeping the precision (0 becomes -0). */
  neg(): Num {
    return new Num(this.form, !this.negative, this.mant, this.exp, this.prec);
  }
  /** Absolute value, keeping the precision (-0 becomes +0). */
  abs(): Num {
    return this.negative ? this.neg() : this;
  }
  /** stdlib floor: infinities unchanged; otherwise the integer at the same precision (floor(-0) is +0). */
  floor(): Num {
    if (this.form === INF) return this;
    let t = this.truncInt();
    if (!this.isInteger() && this.negative) t -= 1n;
    return this.intAtPrec(t);
  }
  /** stdlib ceil: infinities unchanged; otherwise the integer at the same precision (ceil(-0.5) is +0). */
  ceil(): Num {
    if (this.form === INF) return this;
    let t = this.truncInt();
    if (!this.isInteger() && !this.negative) t += 1n;
    return this.intAtPrec(t);
  }
  /** The same value with another precision (big.Float.SetPrec: rounds when the precision shrinks). */
  withPrec(prec: number): Num {
    if (prec === this.prec) return this;
    if (this.form !== FINITE || this.bits <= prec) return new Num(this.form, this.negative, this.mant, this.exp, prec);
    return roundedNum(this.negative, this.mant, this.exp, prec);
  }

  private intAtPrec(t: bigint): Num {
    if (t === 0n) return new Num(ZERO_FORM, false, 0n, 0, this.prec);
    return roundedNum(t < 0n, t < 0n ? -t : t, 0, this.prec);
  }
  /** The value truncated toward zero, as a signed bigint (finite values only). */
  private truncInt(): bigint {
    if (this.form !== FINITE) return 0n;
    const m = this.exp >= 0 ? this.mant << BigInt(this.exp) : this.mant >> BigInt(-this.exp);
    return this.negative ? -m : m;
  }

  // ---- comparison -----------------------------------------------------------------------------------

  /** Exact comparison (big.Float.Cmp): -1, 0 or 1; -0 equals +0. */
  cmp(o: Num): number {
    const sa = this.sign();
    const sb = o.sign();
    if (sa !== sb) return sa < sb ? -1 : 1;
    if (sa === 0) return 0;
    const c = cmpAbs(this, o);
    return sa < 0 ? -c : c;
  }
  /**
   * cty's number equality (rawNumberEqual): same sign, and either both integers with the same value, or
   * both non-integers that print the same (so 0.1 at 512 bits equals 0.1 as a float64).
   */
  equals(o: Num): boolean {
    if (this.sign() !== o.sign()) return false;
    const ai = this.isInteger();
    if (ai !== o.isInteger()) return false;
    if (ai) return this.cmp(o) === 0;
    if (this.prec === o.prec) return this.cmp(o) === 0;
    return this.toString() === o.toString();
  }
  /** -1, 0 or 1 (0 for both zeros). */
  sign(): number {
    if (this.form === ZERO_FORM) return 0;
    return this.negative ? -1 : 1;
  }
  /** True for finite values without a fractional part (zeros included). */
  isInteger(): boolean {
    return this.form === ZERO_FORM || (this.form === FINITE && this.exp >= 0);
  }
  isInf(): boolean {
    return this.form === INF;
  }
  isZero(): boolean {
    return this.form === ZERO_FORM;
  }
  /** True for negative values, -0 and -Inf. */
  isNegative(): boolean {
    return this.negative;
  }

  // ---- conversion -----------------------------------------------------------------------------------

  /** The nearest float64 (big.Float.Float64, nearest even, with subnormals, overflow to ±Infinity). */
  toNumber(): number {
    if (this.form === ZERO_FORM) return this.negative ? -0 : 0;
    if (this.form === INF) return this.negative ? -Infinity : Infinity;
    let r: number;
    if (this.bits <= 53 && this.exp >= -1074 && this.exp + this.bits <= 1024) {
      r = Number(this.mant) * pow2(this.exp);
    } else {
      const top = this.exp + this.bits; // value in [2^(top-1), 2^top)
      if (top > 1024) r = Infinity;
      else {
        const q = Math.max(top - 53, -1074); // exponent of the float64 ulp at this magnitude
        const rr = roundToExp(this.mant, this.exp, q);
        r = rr === 0n ? 0 : Number(rr) * pow2(q);
      }
    }
    return this.negative ? -r : r;
  }
  /** The exact integer value, or undefined when not an integer (or infinite). */
  toBigInt(): bigint | undefined {
    if (!this.isInteger()) return undefined;
    return this.truncInt();
  }
  /** An integer in the given base (2..62, digits as Go's big.Int Text); undefined for non-integers. */
  toStringBase(base: number): string | undefined {
    const b = this.toBigInt();
    if (b === undefined || base < 2 || base > 62) return undefined;
    if (base <= 36) return b.toString(base);
    let m = b < 0n ? -b : b;
    if (m === 0n) return '0';
    const bb = BigInt(base);
    let s = '';
    while (m > 0n) {
      s = DIGITS62[Number(m % bb)] + s;
      m /= bb;
    }
    return (b < 0n ? '-' : '') + s;
  }
  /** The exact decimal expansion (Go's math/big decimal of the value), for formatting with a fixed precision. */
  exactDecimal(): DecimalForm {
    if (this.form === INF) return { neg: this.negative, inf: true, mant: '', exp: 0 };
    if (this.form === ZERO_FORM) return { neg: this.negative, inf: false, mant: '', exp: 0 };
    const d = decimalOf(this.mant, this.exp);
    return { neg: this.negative, inf: false, mant: d.mant, exp: d.exp };
  }
  /** The shortest decimal that identifies the value at its precision (before formatting as in toString). */
  shortestDecimal(): DecimalForm {
    const d = this.exactDecimal();
    if (d.inf || d.mant === '') return d;
    const s = roundShortest({ mant: d.mant, exp: d.exp }, this.mant, this.exp, this.prec);
    return { neg: d.neg, inf: false, mant: s.mant, exp: s.exp };
  }
  /** As Terraform prints a number (big.Float Text('f', -1)): plain decimal, shortest form that round-trips at the value's precision; "+Inf", "-Inf", "-0". */
  toString(): string {
    if (this.cachedString === undefined) this.cachedString = this.format();
    return this.cachedString;
  }

  private format(): string {
    if (this.form === INF) return this.negative ? '-Inf' : '+Inf';
    if (this.form === ZERO_FORM) return this.negative ? '-0' : '0';
    const sign = this.negative ? '-' : '';
    // Integers whose ulp is at most 1 print all their digits: no shorter decimal lies within half an ulp.
    if (this.exp >= 0 && this.exp + this.bits <= this.prec) {
      return sign + (this.mant << BigInt(this.exp)).toString();
    }
    const d = this.shortestDecimal();
    return sign + fmtF(d.mant, d.exp);
  }
}

// ---- helpers ------------------------------------------------------------------------------------------

const F64 = new Float64Array(1);
const U64 = new BigUint64Array(F64.buffer);
const DIGITS62 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** 2^e as a float64, exact for -1074 <= e <= 1023. */
function pow2(e: number): number {
  U64[0] = e >= -1022 ? BigInt(e + 1023) << 52n : 1n << BigInt(e + 1074);
  return F64[0];
}

/** Value of one digit for big.Int SetString in `base`, or -1. */
function digitValue(c: number, base: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 122) return c - 97 + 10;
  if (c >= 65 && c <= 90) return base <= 36 ? c - 65 + 10 : c - 65 + 36;
  return -1;
}

/** Rounds m × 2^e (m > 0, with an optional sticky infinitesimal) to `prec` bits, nearest even. */
function roundRaw(m: bigint, e: number, prec: number, sticky: boolean): Raw {
  const n = bitLen(m);
  if (n <= prec) return { m, e };
  const sh = n - prec;
  const sb = BigInt(sh);
  let q = m >> sb;
  const r = m - (q << sb);
  const half = 1n << (sb - 1n);
  if (r > half || (r === half && (sticky || (q & 1n) === 1n))) q += 1n;
  return { m: q, e: e + sh };
}

/** m × 2^e rounded (nearest even) to an integer multiple of 2^q, returned as that integer. */
function roundToExp(m: bigint, e: number, q: number): bigint {
  if (e >= q) return m << BigInt(e - q);
  const sb = BigInt(q - e);
  const t = m >> sb;
  const r = m - (t << sb);
  const half = 1n << (sb - 1n);
  return r > half || (r === half && (t & 1n) === 1n) ? t + 1n : t;
}

/** Compares magnitudes of two finite nonzero values. */
function cmpAbs(a: Num, b: Num): number {
  const A = a as unknown as { mant: bigint; exp: number; form: Form; bits: number };
  const B = b as unknown as { mant: bigint; exp: number; form: Form; bits: number };
  if (A.form === INF || B.form === INF) return A.form === B.form ? 0 : A.form === INF ? 1 : -1;
  const ta = A.exp + A.bits;
  const tb = B.exp + B.bits;
  if (ta !== tb) return ta < tb ? -1 : 1;
  const e = Math.min(A.exp, B.exp);
  const ma = A.mant << BigInt(A.exp - e);
  const mb = B.mant << BigInt(B.exp - e);
  return ma < mb ? -1 : ma > mb ? 1 : 0;
}

interface Parts {
  form: Form;
  negative: boolean;
  mant: bigint;
  exp: number;
  prec: number;
  bits: number;
}
function parts(x: Num): Parts {
  return x as unknown as Parts;
}
type NumCtor = new (form: Form, neg: boolean, mant: bigint, exp: number, prec: number) => Num;

/** A zero or infinity of precision `prec`. */
function make(form: Form, neg: boolean, prec: number): Num {
  return new (Num as unknown as NumCtor)(form, neg, 0n, 0, prec);
}

/** Builds a value from an exact magnitude m × 2^e (m >= 0) that already fits `prec` bits; normalises it. */
function exactNum(neg: boolean, m: bigint, e: number, prec: number): Num {
  if (m === 0n) return make(ZERO_FORM, neg, prec);
  const tz = trailingZeros(m);
  if (tz > 0) {
    m >>= BigInt(tz);
    e += tz;
  }
  const top = e + bitLen(m);
  if (top > MAX_EXP) return make(INF, neg, prec);
  if (top < MIN_EXP) return make(ZERO_FORM, neg, prec);
  return new (Num as unknown as NumCtor)(FINITE, neg, m, e, prec);
}

/**
 * Rounds the magnitude m × 2^e (plus an infinitesimal when `sticky`, which callers only set when m has at
 * least prec+2 bits) to `prec` bits, nearest even, and builds the value.
 */
function roundedNum(neg: boolean, m: bigint, e: number, prec: number, sticky = false): Num {
  const r = roundRaw(m, e, prec, sticky);
  return exactNum(neg, r.m, r.e, prec);
}

/** big.Float Add/Sub into a result of precision `prec` (`negB` subtracts). */
function addPrec(a: Num, b: Num, negB: boolean, prec: number, nanMsg: string): Num {
  const A = parts(a);
  const B = parts(b);
  const bneg = negB ? !B.negative : B.negative;
  if (A.form === FINITE && B.form === FINITE) {
    let am = A.mant;
    let ae = A.exp;
    let bm = B.mant;
    let be = B.exp;
    // Make A the operand of larger magnitude's top bit for the sticky shortcut below.
    const ta = ae + A.bits;
    const tb = be + B.bits;
    if (ta >= tb) {
      const limit = Math.min(ae, ta - prec - 2) - 2;
      if (tb < limit) {
        bm = 1n;
        be = limit - 1;
      }
    } else {
      const limit = Math.min(be, tb - prec - 2) - 2;
      if (ta < limit) {
        am = 1n;
        ae = limit - 1;
      }
    }
    const e = Math.min(ae, be);
    const x = ae > e ? am << BigInt(ae - e) : am;
    const y = be > e ? bm << BigInt(be - e) : bm;
    if (A.negative === bneg) return roundedNum(A.negative, x + y, e, prec);
    if (x === y) return make(ZERO_FORM, false, prec);
    if (x > y) return roundedNum(A.negative, x - y, e, prec);
    return roundedNum(bneg, y - x, e, prec);
  }
  if (A.form === INF && B.form === INF && A.negative !== bneg) throw new NaNError(nanMsg);
  if (A.form === ZERO_FORM && B.form === ZERO_FORM) return make(ZERO_FORM, negB ? A.negative && !B.negative : A.negative && B.negative, prec);
  if (A.form === INF || B.form === ZERO_FORM) return setPrec(A.form, A.negative, A.mant, A.exp, prec);
  return setPrec(B.form, bneg, B.mant, B.exp, prec);
}

/** big.Float.Set into a value of precision `prec`. */
function setPrec(form: Form, neg: boolean, mant: bigint, exp: number, prec: number): Num {
  if (form !== FINITE) return make(form, neg, prec);
  return roundedNum(neg, mant, exp, prec);
}

/** big.Float Mul into a result of precision `prec`. */
function mulPrec(a: Num, b: Num, prec: number, nanMsg: string): Num {
  const A = parts(a);
  const B = parts(b);
  const neg = A.negative !== B.negative;
  if (A.form === FINITE && B.form === FINITE) return roundedNum(neg, A.mant * B.mant, A.exp + B.exp, prec);
  if ((A.form === ZERO_FORM && B.form === INF) || (A.form === INF && B.form === ZERO_FORM)) throw new NaNError(nanMsg);
  if (A.form === INF || B.form === INF) return make(INF, neg, prec);
  return make(ZERO_FORM, neg, prec);
}

/** big.Float Quo into a result of precision `prec` (correctly rounded). */
function quoPrec(a: Num, b: Num, prec: number, nanMsg: string): Num {
  const A = parts(a);
  const B = parts(b);
  const neg = A.negative !== B.negative;
  if (A.form === FINITE && B.form === FINITE) {
    const q = quoRaw(A.mant, A.exp, A.bits, B.mant, B.exp, B.bits, prec);
    return roundedNum(neg, q.m, q.e, prec, q.sticky);
  }
  if ((A.form === ZERO_FORM && B.form === ZERO_FORM) || (A.form === INF && B.form === INF)) throw new NaNError(nanMsg);
  if (A.form === ZERO_FORM || B.form === INF) return make(ZERO_FORM, neg, prec);
  return make(INF, neg, prec);
}

/** Truncated quotient of (am×2^ae)/(bm×2^be) with at least prec+2 bits, plus whether a remainder was left. */
function quoRaw(am: bigint, ae: number, abits: number, bm: bigint, be: number, bbits: number, prec: number): Raw & { sticky: boolean } {
  const k = Math.max(0, prec + 2 + bbits - abits + 1);
  const x = am << BigInt(k);
  const q = x / bm;
  const r = x - q * bm;
  return { m: q, e: ae - be - k, sticky: r !== 0n };
}

// ---- parsing ------------------------------------------------------------------------------------------

const DECIMAL_RE = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:([eEpP])([+-]?[0-9]+))?$/;
const INT64_MAX = 9223372036854775807n;

/** big.ParseFloat(s, 10, prec, ToNearestEven), reproducing its rounding steps exactly. */
function parseDecimal(s: string, prec: number): Num | undefined {
  if (s === 'Inf' || s === 'inf' || s === '+Inf' || s === '+inf') return make(INF, false, prec);
  if (s === '-Inf' || s === '-inf') return make(INF, true, prec);
  const mm = DECIMAL_RE.exec(s);
  if (!mm) return undefined;
  const neg = mm[1] === '-';
  const intDigits = mm[2];
  const fracDigits = mm[3] ?? '';
  if (intDigits.length + fracDigits.length === 0) return undefined;
  let exp10 = 0;
  let expBin = 0;
  const mant = BigInt(intDigits + fracDigits);
  if (mm[5] !== undefined) {
    const eb = BigInt(mm[5]);
    // strconv.ParseInt(…, 10, 64) must accept the exponent.
    if (eb > INT64_MAX || eb < -INT64_MAX - 1n) return undefined;
    // A nonzero mantissa with an exponent this large overflows big.Float's exponent range.
    if (mant !== 0n && (eb > 1000000000000000n || eb < -1000000000000000n)) return undefined;
    if (mm[4] === 'e' || mm[4] === 'E') exp10 = Number(eb);
    else expBin = Number(eb);
  }
  if (mant === 0n) return make(ZERO_FORM, neg, prec);
  const fcount = -fracDigits.length;
  const nbits = bitLen(mant);
  // The value is mant × 10^fcount × 10^exp10 × 2^expBin = mant × 2^e2 × 5^exp5.
  const e2 = fcount + exp10 + expBin;
  if (nbits + e2 < MIN_EXP || nbits + e2 > MAX_EXP) return undefined;
  const exp5 = fcount + exp10;
  if (exp5 === 0) return roundedNum(neg, mant, e2, prec);
  // The mantissa digits are used exactly; 5^|exp5| is computed at prec+64 bits as big.Float.pow5 does.
  const p = pow5(Math.abs(exp5), prec + 64);
  if (exp5 > 0) return roundedNum(neg, mant * p.m, e2 + p.e, prec);
  const pb = bitLen(p.m);
  const q = quoRaw(mant, e2, nbits, p.m, p.e, pb, prec);
  return roundedNum(neg, q.m, q.e, prec, q.sticky);
}

const POW5_27 = 5n ** 27n;

/** big.Float.pow5 on a receiver of precision `prec`: exact up to 5^27, then binary powering with rounding. */
function pow5(n: number, prec: number): Raw {
  if (n <= 27) return { m: 5n ** BigInt(n), e: 0 };
  let z: Raw = { m: POW5_27, e: 0 };
  let f: Raw = { m: 5n, e: 0 };
  const fprec = prec + 64;
  n -= 27;
  while (n > 0) {
    if (n % 2 === 1) z = roundRaw(z.m * f.m, z.e + f.e, prec, false);
    f = roundRaw(f.m * f.m, 2 * f.e, fprec, false);
    n = Math.floor(n / 2);
  }
  return z;
}

// ---- printing -----------------------------------------------------------------------------------------

const POW5_CACHE = new Map<number, bigint>();

/** 5^k exactly; small powers are cached because printing needs them for every non-integer. */
function pow5Exact(k: number): bigint {
  if (k > 4096) return 5n ** BigInt(k);
  let p = POW5_CACHE.get(k);
  if (p === undefined) {
    p = 5n ** BigInt(k);
    POW5_CACHE.set(k, p);
  }
  return p;
}

interface Dec {
  mant: string;
  exp: number;
}

/** Exact decimal of m × 2^e (m > 0): 0.mant × 10^exp with no trailing zeros. */
function decimalOf(m: bigint, e: number): Dec {
  let s: string;
  let exp: number;
  if (e >= 0) {
    s = (m << BigInt(e)).toString();
    exp = s.length;
  } else {
    const tz = trailingZeros(m);
    const k = Math.min(tz, -e);
    if (k > 0) {
      m >>= BigInt(k);
      e += k;
    }
    if (e === 0) {
      s = m.toString();
      exp = s.length;
    } else {
      s = (m * pow5Exact(-e)).toString();
      exp = s.length + e;
    }
  }
  let n = s.length;
  while (n > 0 && s.charCodeAt(n - 1) === 48) n--;
  return { mant: s.slice(0, n), exp };
}

function decAt(d: Dec, i: number): number {
  return i >= 0 && i < d.mant.length ? d.mant.charCodeAt(i) : 48;
}

function decRoundUp(d: Dec, n: number): Dec {
  if (n < 0 || n >= d.mant.length) return d;
  while (n > 0 && d.mant.charCodeAt(n - 1) >= 57) n--;
  if (n === 0) return { mant: '1', exp: d.exp + 1 };
  return { mant: d.mant.slice(0, n - 1) + String.fromCharCode(d.mant.charCodeAt(n - 1) + 1), exp: d.exp };
}

function decRoundDown(d: Dec, n: number): Dec {
  if (n < 0 || n >= d.mant.length) return d;
  let i = n;
  while (i > 0 && d.mant.charCodeAt(i - 1) === 48) i--;
  return { mant: d.mant.slice(0, i), exp: i === 0 ? 0 : d.exp };
}

function decRound(d: Dec, n: number): Dec {
  if (n < 0 || n >= d.mant.length) return d;
  let up: boolean;
  if (d.mant.charCodeAt(n) === 53 && n + 1 === d.mant.length) up = n > 0 && (d.mant.charCodeAt(n - 1) - 48) % 2 === 1;
  else up = d.mant.charCodeAt(n) >= 53;
  return up ? decRoundUp(d, n) : decRoundDown(d, n);
}

/**
 * math/big's roundShortest: the shortest prefix-rounding of d that stays within half an ulp (at `prec` bits)
 * of the value m × 2^e. Like Go, it compares digits of d, lower and upper bound by index.
 */
function roundShortest(d: Dec, m: bigint, e: number, prec: number): Dec {
  if (d.mant.length === 0) return d;
  // Mantissa with prec+1 bits, so that its lsb is half an ulp.
  const s = bitLen(m) - (prec + 1);
  let mant = m;
  if (s < 0) mant = m << BigInt(-s);
  else if (s > 0) mant = m >> BigInt(s);
  const ex = e + s;
  const lower = decimalOf(mant - 1n, ex);
  const upper = decimalOf(mant + 1n, ex);
  const inclusive = (mant & 2n) === 0n;
  for (let i = 0; i < d.mant.length; i++) {
    const c = d.mant.charCodeAt(i);
    const l = decAt(lower, i);
    const u = decAt(upper, i);
    const okdown = l !== c || (inclusive && i + 1 === lower.mant.length);
    const okup = c !== u && (inclusive || c + 1 < u || i + 1 < upper.mant.length);
    if (okdown && okup) return decRound(d, i + 1);
    if (okdown) return decRoundDown(d, i + 1);
    if (okup) return decRoundUp(d, i + 1);
  }
  return d;
}

/** Go's fmtF for shortest mode: integer digits (zero-padded), then as many fraction digits as mant has. */
function fmtF(mant: string, exp: number): string {
  let out: string;
  if (exp > 0) {
    out = mant.length >= exp ? mant.slice(0, exp) : mant + '0'.repeat(exp - mant.length);
  } else out = '0';
  const prec = Math.max(mant.length - exp, 0);
  if (prec > 0) {
    let frac = '';
    if (exp < 0) frac = '0'.repeat(Math.min(-exp, prec));
    frac += mant.slice(Math.max(exp, 0));
    out += '.' + frac;
  }
  return out;
}
