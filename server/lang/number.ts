// PLACEHOLDER implementation on float64, to be replaced by the arbitrary-precision binary float
// (Go big.Float semantics, 512-bit) described in the API comments. The API is the contract.

export class Num {
  private constructor(private readonly x: number) {}

  /** From a JS number (a float64 result: precision 53, prints shortest float64 form) or a bigint (exact). */
  static from(n: number | bigint): Num {
    return new Num(Number(n));
  }
  /** Parses a decimal literal as HCL and tonumber() do ("12", "-1.5", "1e3", "007"); undefined when invalid. */
  static parse(s: string): Num | undefined {
    if (!/^-?(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?$/.test(s)) return undefined;
    return new Num(globalThis.Number(s));
  }
  static readonly ZERO = new Num(0);
  static readonly ONE = new Num(1);
  static readonly POS_INF = new Num(Infinity);
  static readonly NEG_INF = new Num(-Infinity);

  add(o: Num): Num {
    return new Num(this.x + o.x);
  }
  sub(o: Num): Num {
    return new Num(this.x - o.x);
  }
  mul(o: Num): Num {
    return new Num(this.x * o.x);
  }
  /** Caller handles division by zero (Terraform: x/0 is ±Inf, 0/0 an error). */
  div(o: Num): Num {
    return new Num(this.x / o.x);
  }
  /** Terraform's % (cty Modulo): sign of the dividend, integer semantics for integers. */
  mod(o: Num): Num {
    return new Num(this.x % o.x);
  }
  neg(): Num {
    return new Num(-this.x);
  }
  abs(): Num {
    return new Num(Math.abs(this.x));
  }
  floor(): Num {
    return new Num(Math.floor(this.x));
  }
  ceil(): Num {
    return new Num(Math.ceil(this.x));
  }
  cmp(o: Num): number {
    return this.x < o.x ? -1 : this.x > o.x ? 1 : 0;
  }
  equals(o: Num): boolean {
    return this.x === o.x;
  }
  sign(): number {
    return Math.sign(this.x);
  }
  isInteger(): boolean {
    return Number.isInteger(this.x);
  }
  isInf(): boolean {
    return !Number.isFinite(this.x);
  }
  /** The nearest float64. */
  toNumber(): number {
    return this.x;
  }
  /** The exact integer value, or undefined when not an integer (or infinite). */
  toBigInt(): bigint | undefined {
    return Number.isInteger(this.x) ? BigInt(this.x) : undefined;
  }
  /** As Terraform prints a number: plain decimal, shortest form that round-trips at the value's precision; "+Inf", "-Inf", "-0". */
  toString(): string {
    if (this.x === Infinity) return '+Inf';
    if (this.x === -Infinity) return '-Inf';
    if (Object.is(this.x, -0)) return '-0';
    return String(this.x);
  }
}
