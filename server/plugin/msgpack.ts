// cty's msgpack encoding of values (go-cty v1.16 cty/msgpack), the form of tfplugin5/6 `DynamicValue.msgpack`,
// plus the DynamicValue envelope with its JSON alternative.
//
// API (stable; used by convert.ts, serve.ts and the client in server/plugin/client/):
//   marshal(value, type): Buffer         — encodes `value` as a value of `type` (the schema's implied type):
//       objects are maps with exactly the type's attributes, keys sorted bytewise; null is nil (c0); an unknown
//       is ext 0 (`d4 00 00`), or ext 12 whose payload is a map of refinements (1: nullness=false for "not
//       null", 2: string prefix, 3/4: number lower/upper bound as [number, inclusive], 5/6: collection length
//       bounds); at a `dynamic` position a value of a concrete type is the pair [bin(type JSON), value];
//       numbers are int (compact) when an exact int64, float64 when an exact non-integer float64, else the
//       decimal string (big.Float Text('f', -1)); ±Inf are float64. Marked values throw (engine bug).
//   unmarshal(bytes, type): Value         — the inverse, as cty.msgpack.Unmarshal: ints become numbers of
//       precision 64, floats precision 53, strings parse at 512 bits; ext with a 0/1-byte body of any code is
//       an unknown; ext 12 carries refinements (nullness=true decodes to null). Malformed input throws a
//       MsgpackError whose message is cty's (with the path prefixed as cty's PathError prints it).
//   encodeDynamicValue(value, type) / decodeDynamicValue({msgpack, json}, type)
//       — the DynamicValue message: we always send msgpack; we accept msgpack, else JSON (ctyjson), else
//       (both empty) a null of the type, as Terraform's plugin shims do.
// Values here never carry marks. Types are server/lang/types.ts; values server/lang/value.ts.

import { Num } from '../lang/number';
import * as T from '../lang/types';
import type { Type } from '../lang/types';
import { Value } from '../lang/value';
import type { FullRefinements } from '../providers/gostring';
import { formatPath, indexStep, attrStep, type Path } from '../providers/path';
import { marshalState, unmarshalState } from '../providers/sdk/json';
import { typeFromJSON, typeToJSON } from '../providers/wire';

/** A decoding (or encoding) failure at a path inside the value. */
export class MsgpackError extends Error {
  constructor(
    readonly path: Path,
    readonly detail: string,
  ) {
    super(path.length ? `${formatPath(path)}: ${detail}` : detail);
  }
}

// ---- writer ---------------------------------------------------------------------------------------------

class Writer {
  buf = Buffer.allocUnsafe(256);
  n = 0;
  ensure(k: number): void {
    if (this.n + k <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.n + k) size *= 2;
    const b = Buffer.allocUnsafe(size);
    this.buf.copy(b, 0, 0, this.n);
    this.buf = b;
  }
  u8(x: number): void {
    this.ensure(1);
    this.buf[this.n++] = x;
  }
  u16(x: number): void {
    this.ensure(2);
    this.buf.writeUInt16BE(x, this.n);
    this.n += 2;
  }
  u32(x: number): void {
    this.ensure(4);
    this.buf.writeUInt32BE(x, this.n);
    this.n += 4;
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.n);
    this.n += b.length;
  }
  nil(): void {
    this.u8(0xc0);
  }
  bool(b: boolean): void {
    this.u8(b ? 0xc3 : 0xc2);
  }
  /** vmihailenco/msgpack EncodeInt: the shortest form; non-negative values use the unsigned codes. */
  int(v: bigint): void {
    if (v >= 0n) {
      if (v <= 0x7fn) this.u8(Number(v));
      else if (v <= 0xffn) (this.u8(0xcc), this.u8(Number(v)));
      else if (v <= 0xffffn) (this.u8(0xcd), this.u16(Number(v)));
      else if (v <= 0xffffffffn) (this.u8(0xce), this.u32(Number(v)));
      else {
        this.u8(0xcf);
        this.ensure(8);
        this.buf.writeBigUInt64BE(v, this.n);
        this.n += 8;
      }
      return;
    }
    if (v >= -32n) this.u8(Number(v) & 0xff);
    else if (v >= -128n) (this.u8(0xd0), this.u8(Number(v) & 0xff));
    else if (v >= -32768n) {
      this.u8(0xd1);
      this.ensure(2);
      this.buf.writeInt16BE(Number(v), this.n);
      this.n += 2;
    } else if (v >= -2147483648n) {
      this.u8(0xd2);
      this.ensure(4);
      this.buf.writeInt32BE(Number(v), this.n);
      this.n += 4;
    } else {
      this.u8(0xd3);
      this.ensure(8);
      this.buf.writeBigInt64BE(v, this.n);
      this.n += 8;
    }
  }
  float64(x: number): void {
    this.u8(0xcb);
    this.ensure(8);
    this.buf.writeDoubleBE(x, this.n);
    this.n += 8;
  }
  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    const l = b.length;
    if (l < 32) this.u8(0xa0 | l);
    else if (l <= 0xff) (this.u8(0xd9), this.u8(l));
    else if (l <= 0xffff) (this.u8(0xda), this.u16(l));
    else (this.u8(0xdb), this.u32(l));
    this.bytes(b);
  }
  bin(b: Uint8Array): void {
    const l = b.length;
    if (l <= 0xff) (this.u8(0xc4), this.u8(l));
    else if (l <= 0xffff) (this.u8(0xc5), this.u16(l));
    else (this.u8(0xc6), this.u32(l));
    this.bytes(b);
  }
  arrayLen(l: number): void {
    if (l < 16) this.u8(0x90 | l);
    else if (l <= 0xffff) (this.u8(0xdc), this.u16(l));
    else (this.u8(0xdd), this.u32(l));
  }
  mapLen(l: number): void {
    if (l < 16) this.u8(0x80 | l);
    else if (l <= 0xffff) (this.u8(0xde), this.u16(l));
    else (this.u8(0xdf), this.u32(l));
  }
  extHeader(code: number, l: number): void {
    if (l === 1) this.u8(0xd4);
    else if (l === 2) this.u8(0xd5);
    else if (l === 4) this.u8(0xd6);
    else if (l === 8) this.u8(0xd7);
    else if (l === 16) this.u8(0xd8);
    else if (l <= 0xff) (this.u8(0xc7), this.u8(l));
    else if (l <= 0xffff) (this.u8(0xc8), this.u16(l));
    else (this.u8(0xc9), this.u32(l));
    this.u8(code);
  }
  result(): Buffer {
    return this.buf.subarray(0, this.n);
  }
}

// ---- marshal ----------------------------------------------------------------------------------------------

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Encodes `v` as a value of type `t` (cty msgpack.Marshal; the value must already conform to `t`). */
export function marshal(v: Value, t: Type): Buffer {
  const w = new Writer();
  marshalInto(w, v, t, []);
  return Buffer.from(w.result());
}

function writeNumber(w: Writer, n: Num): void {
  if (n.isInf()) return w.float64(n.isNegative() ? -Infinity : Infinity);
  if (n.isInteger()) {
    const b = n.toBigInt();
    if (b !== undefined && b >= INT64_MIN && b <= INT64_MAX) return w.int(b);
  } else {
    const f = n.toNumber();
    if (Number.isFinite(f) && Num.fromFloat64(f).cmp(n) === 0) return w.float64(f);
  }
  w.str(n.toString());
}

function marshalInto(w: Writer, v: Value, t: Type, path: Path): void {
  if (v.marks.size) throw new MsgpackError(path, 'value has marks, so it cannot be serialized');
  if (t.kind === 'dynamic' && v.type.kind !== 'dynamic') {
    w.arrayLen(2);
    w.bin(Buffer.from(JSON.stringify(typeToJSON(v.type)), 'utf8'));
    marshalInto(w, v, v.type, path);
    return;
  }
  if (!v.isKnown) return marshalUnknown(w, v, t);
  if (v.isNull) return w.nil();
  switch (t.kind) {
    case 'string':
      return w.str(v.str);
    case 'number':
      return writeNumber(w, v.num);
    case 'bool':
      return w.bool(v.bool);
    case 'list':
    case 'set': {
      const es = v.elems;
      w.arrayLen(es.length);
      es.forEach((e, i) => marshalInto(w, e, t.elem, [...path, indexStep(t.kind === 'set' ? e : i)]));
      return;
    }
    case 'map': {
      const keys = [...v.entries.keys()].sort(T.compareBytes);
      w.mapLen(keys.length);
      for (const k of keys) {
        w.str(k);
        marshalInto(w, v.entries.get(k)!, t.elem, [...path, indexStep(k)]);
      }
      return;
    }
    case 'tuple': {
      const es = v.elems;
      w.arrayLen(t.elems.length);
      t.elems.forEach((et, i) => marshalInto(w, es[i], et, [...path, indexStep(i)]));
      return;
    }
    case 'object': {
      const names = [...t.attrs.keys()].sort(T.compareBytes);
      w.mapLen(names.length);
      for (const k of names) {
        w.str(k);
        marshalInto(w, v.entries.get(k) ?? Value.null(t.attrs.get(k)!), t.attrs.get(k)!, [...path, attrStep(k)]);
      }
      return;
    }
    default:
      throw new MsgpackError(path, `cannot msgpack-serialize ${T.friendlyName(t)}`);
  }
}

/** cty's SafeKnownPrefix after cutting a long prefix: drop a trailing partial or possibly-combining character. */
function cutPrefix(p: string): string {
  const b = Buffer.from(p, 'utf8');
  if (b.length <= 256) return p;
  let s = b.subarray(0, 255).toString('utf8');
  if (s.endsWith('\uFFFD')) s = s.slice(0, -1);
  const cps = [...s];
  cps.pop();
  return cps.join('');
}

function marshalUnknown(w: Writer, v: Value, t: Type): void {
  const r = (v.refinements ?? {}) as FullRefinements;
  const ty = v.type.kind === 'dynamic' ? t : v.type;
  if (ty.kind === 'dynamic' || v.type.kind === 'dynamic') return w.extHeader(0, 1), w.u8(0);
  const body = new Writer();
  let count = 0;
  if (r.notNull) {
    count++;
    body.int(1n);
    body.bool(false);
  }
  if (ty.kind === 'number') {
    for (const [key, b] of [
      [3n, r.numberLower],
      [4n, r.numberUpper],
    ] as const) {
      if (b && !b.value.isInf()) {
        count++;
        body.int(key);
        body.arrayLen(2);
        writeNumber(body, b.value);
        body.bool(b.inclusive);
      }
    }
  } else if (ty.kind === 'string') {
    if (r.stringPrefix) {
      count++;
      body.int(2n);
      body.str(cutPrefix(r.stringPrefix));
    }
  } else if (ty.kind === 'list' || ty.kind === 'set' || ty.kind === 'map') {
    if (r.lengthLower) {
      count++;
      body.int(5n);
      body.int(BigInt(r.lengthLower));
    }
    if (r.lengthUpper !== undefined) {
      count++;
      body.int(6n);
      body.int(BigInt(r.lengthUpper));
    }
  }
  if (count === 0) return w.extHeader(0, 1), w.u8(0);
  const head = new Writer();
  head.mapLen(count);
  w.extHeader(12, head.n + body.n);
  w.bytes(head.result());
  w.bytes(body.result());
}

// ---- reader -----------------------------------------------------------------------------------------------

class Reader {
  i = 0;
  constructor(readonly b: Buffer) {}
  eof(path: Path): never {
    throw new MsgpackError(path, 'EOF');
  }
  need(k: number, path: Path): void {
    if (this.i + k > this.b.length) this.eof(path);
  }
  peek(path: Path): number {
    if (this.i >= this.b.length) this.eof(path);
    return this.b[this.i];
  }
  u8(path: Path): number {
    this.need(1, path);
    return this.b[this.i++];
  }
  u16(path: Path): number {
    this.need(2, path);
    const x = this.b.readUInt16BE(this.i);
    this.i += 2;
    return x;
  }
  u32(path: Path): number {
    this.need(4, path);
    const x = this.b.readUInt32BE(this.i);
    this.i += 4;
    return x;
  }
  take(k: number, path: Path): Buffer {
    this.need(k, path);
    const s = this.b.subarray(this.i, this.i + k);
    this.i += k;
    return s;
  }
  /** The array length, -1 for nil, undefined when the next item is not an array. */
  arrayLen(path: Path): number | undefined {
    const c = this.peek(path);
    if (c === 0xc0) return this.i++, -1;
    if ((c & 0xf0) === 0x90) return this.i++, c & 0x0f;
    if (c === 0xdc) return this.i++, this.u16(path);
    if (c === 0xdd) return this.i++, this.u32(path);
    return undefined;
  }
  mapLen(path: Path): number | undefined {
    const c = this.peek(path);
    if (c === 0xc0) return this.i++, -1;
    if ((c & 0xf0) === 0x80) return this.i++, c & 0x0f;
    if (c === 0xde) return this.i++, this.u16(path);
    if (c === 0xdf) return this.i++, this.u32(path);
    return undefined;
  }
  /** A str (or, as vmihailenco's DecodeString/DecodeBytes accept, bin) item; undefined for other codes. */
  strBytes(path: Path): Buffer | undefined {
    const c = this.peek(path);
    let l: number;
    if ((c & 0xe0) === 0xa0) (this.i++, (l = c & 0x1f));
    else if (c === 0xd9 || c === 0xc4) (this.i++, (l = this.u8(path)));
    else if (c === 0xda || c === 0xc5) (this.i++, (l = this.u16(path)));
    else if (c === 0xdb || c === 0xc6) (this.i++, (l = this.u32(path)));
    else return undefined;
    return this.take(l, path);
  }
  str(path: Path): string | undefined {
    return this.strBytes(path)?.toString('utf8');
  }
  bool(path: Path): boolean | undefined {
    const c = this.peek(path);
    if (c === 0xc2 || c === 0xc3) return this.i++, c === 0xc3;
    return undefined;
  }
  /** An integer item as bigint, or undefined for other codes. */
  int(path: Path): bigint | undefined {
    const c = this.peek(path);
    if (c <= 0x7f) return this.i++, BigInt(c);
    if (c >= 0xe0) return this.i++, BigInt(c - 256);
    switch (c) {
      case 0xcc:
        return this.i++, BigInt(this.u8(path));
      case 0xcd:
        return this.i++, BigInt(this.u16(path));
      case 0xce:
        return this.i++, BigInt(this.u32(path));
      case 0xcf:
        return this.i++, this.take(8, path).readBigUInt64BE(0);
      case 0xd0:
        return this.i++, BigInt(this.take(1, path).readInt8(0));
      case 0xd1:
        return this.i++, BigInt(this.take(2, path).readInt16BE(0));
      case 0xd2:
        return this.i++, BigInt(this.take(4, path).readInt32BE(0));
      case 0xd3:
        return this.i++, this.take(8, path).readBigInt64BE(0);
    }
    return undefined;
  }
  isExt(path: Path): boolean {
    const c = this.peek(path);
    return (c >= 0xd4 && c <= 0xd8) || (c >= 0xc7 && c <= 0xc9);
  }
  extHeader(path: Path): { code: number; len: number } {
    const c = this.u8(path);
    let len: number;
    if (c >= 0xd4 && c <= 0xd8) len = [1, 2, 4, 8, 16][c - 0xd4];
    else if (c === 0xc7) len = this.u8(path);
    else if (c === 0xc8) len = this.u16(path);
    else len = this.u32(path);
    const code = this.take(1, path).readInt8(0);
    return { code, len };
  }
}

// ---- unmarshal --------------------------------------------------------------------------------------------

/** Decodes cty msgpack bytes as a value of type `t` (cty msgpack.Unmarshal). Throws MsgpackError. */
export function unmarshal(bytes: Uint8Array, t: Type): Value {
  const r = new Reader(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  return read(r, t, []);
}

function read(r: Reader, t: Type, path: Path): Value {
  if (r.isExt(path)) return readUnknown(r, t, path);
  if (t.kind === 'dynamic') return readDynamic(r, path);
  if (r.peek(path) === 0xc0) return r.i++, Value.null(t);
  switch (t.kind) {
    case 'bool': {
      const b = r.bool(path);
      if (b === undefined) throw new MsgpackError(path, 'bool is required');
      return Value.bool(b);
    }
    case 'number':
      return readNumber(r, path);
    case 'string': {
      const s = r.str(path);
      if (s === undefined) throw new MsgpackError(path, 'string is required');
      return Value.string(s);
    }
    case 'list':
    case 'set': {
      const n = r.arrayLen(path);
      if (n === undefined) throw new MsgpackError(path, `a ${t.kind} is required`);
      const vals: Value[] = [];
      for (let i = 0; i < n; i++) vals.push(read(r, t.elem, [...path, indexStep(i)]));
      const et = t.elem.kind === 'dynamic' && vals.length ? vals[0].type : t.elem;
      return t.kind === 'list' ? Value.list(vals, et) : Value.set(vals, et);
    }
    case 'map': {
      const n = r.mapLen(path);
      if (n === undefined) throw new MsgpackError(path, 'a map is required');
      const m = new Map<string, Value>();
      for (let i = 0; i < n; i++) {
        const k = r.str(path);
        if (k === undefined) throw new MsgpackError(path, 'non-string key in map');
        m.set(k, read(r, t.elem, [...path, indexStep(k)]));
      }
      const et = t.elem.kind === 'dynamic' && m.size ? m.values().next().value!.type : t.elem;
      return Value.map(new Map([...m].sort((a, b) => T.compareBytes(a[0], b[0]))), et);
    }
    case 'tuple': {
      const n = r.arrayLen(path);
      if (n === undefined) throw new MsgpackError(path, 'a tuple is required');
      if (n !== t.elems.length) throw new MsgpackError(path, `a tuple of length ${t.elems.length} is required`);
      return Value.tuple(t.elems.map((et, i) => read(r, et, [...path, indexStep(i)])));
    }
    case 'object': {
      const n = r.mapLen(path);
      if (n === undefined) throw new MsgpackError(path, 'an object is required');
      if (n !== t.attrs.size) throw new MsgpackError(path, `an object with ${t.attrs.size} attributes is required (${n} given)`);
      const m = new Map<string, Value>();
      for (let i = 0; i < n; i++) {
        const k = r.str(path);
        if (k === undefined) throw new MsgpackError(path, 'all keys must be strings');
        const at = t.attrs.get(k);
        if (!at) throw new MsgpackError([...path, indexStep(k)], 'unsupported attribute');
        m.set(k, read(r, at, [...path, indexStep(k)]));
      }
      const ordered = new Map<string, Value>();
      for (const k of T.attrNames(t)) ordered.set(k, m.get(k) ?? Value.null(t.attrs.get(k)!));
      return Value.object(ordered);
    }
    default:
      throw new MsgpackError(path, `unsupported type ${T.friendlyName(t)}`);
  }
}

function readNumber(r: Reader, path: Path): Value {
  const c = r.peek(path);
  const i = r.int(path);
  if (i !== undefined) {
    // Uint64 values above int64 keep their bits (cty.NumberUIntVal); everything integral has precision 64+.
    return Value.number(Num.fromInt(i));
  }
  if (c === 0xca) {
    r.i++;
    return Value.number(Num.fromFloat64(r.take(4, path).readFloatBE(0)));
  }
  if (c === 0xcb) {
    r.i++;
    return Value.number(Num.fromFloat64(r.take(8, path).readDoubleBE(0)));
  }
  const s = r.str(path);
  const n = s === undefined ? undefined : parseNumberVal(s);
  if (!n) throw new MsgpackError(path, 'number is required');
  return Value.number(n);
}

/** cty.ParseNumberVal: decimal text at 512 bits; Inf forms are accepted by big.ParseFloat. */
function parseNumberVal(s: string): Num | undefined {
  return Num.parse(s);
}

function readDynamic(r: Reader, path: Path): Value {
  const n = r.arrayLen(path);
  if (n === undefined) throw new MsgpackError(path, 'msgpack: invalid code for array length');
  if (n === -1) return Value.null(T.Dynamic);
  if (n !== 2) throw new MsgpackError(path, 'dynamic value array must have exactly two elements');
  const tj = r.strBytes(path);
  if (!tj) throw new MsgpackError(path, 'msgpack: invalid code for bytes');
  let ty: Type;
  try {
    ty = typeFromJSON(JSON.parse(tj.toString('utf8')));
  } catch (e) {
    throw new MsgpackError(path, `invalid type JSON: ${(e as Error).message}`);
  }
  return read(r, ty, path);
}

function readUnknown(r: Reader, t: Type, path: Path): Value {
  const { code, len } = r.extHeader(path);
  if (len <= 1) {
    r.take(len, path);
    return Value.unknown(t);
  }
  if (code !== 12) throw new MsgpackError(path, `unsupported extension type 0x${(code & 0xff).toString(16).padStart(2, '0')} with len ${len}`);
  if (len > 1024) throw new MsgpackError(path, 'oversize unknown value refinement');
  const body = new Reader(r.take(len, path));
  const count = body.mapLen(path);
  if (count === undefined || count < 0) throw new MsgpackError(path, 'failed to decode msgpack extension body: not a map');
  if (t.kind === 'dynamic') return Value.unknown(t);
  const ref: FullRefinements = {};
  for (let i = 0; i < count; i++) {
    const key = body.int(path);
    if (key === undefined) throw new MsgpackError(path, 'failed to decode msgpack extension body: non-integer key in map');
    switch (Number(key)) {
      case 1: {
        const isNull = body.bool(path);
        if (isNull === undefined) throw new MsgpackError(path, 'failed to decode msgpack extension body: null refinement is not boolean');
        if (isNull) return Value.null(t);
        ref.notNull = true;
        break;
      }
      case 2: {
        if (t.kind !== 'string') throw new MsgpackError(path, 'failed to decode msgpack extension body: string prefix refinement for non-string type');
        const b = body.strBytes(path);
        if (!b) throw new MsgpackError(path, 'failed to decode msgpack extension body: string prefix refinement is not string');
        const s = b.toString('utf8');
        if (!Buffer.from(s, 'utf8').equals(b)) throw new MsgpackError(path, 'failed to decode msgpack extension body: string prefix refinement is not valid UTF-8');
        if (s) ref.stringPrefix = s;
        break;
      }
      case 5:
      case 6: {
        if (t.kind !== 'list' && t.kind !== 'set' && t.kind !== 'map') throw new MsgpackError(path, 'failed to decode msgpack extension body: length lower bound refinement for non-collection type');
        const b = body.int(path);
        if (b === undefined) throw new MsgpackError(path, 'failed to decode msgpack extension body: length bound refinement must be integer or [integer, bool] array');
        if (key === 5n) ref.lengthLower = Number(b);
        else ref.lengthUpper = Number(b);
        break;
      }
      case 3:
      case 4: {
        if (t.kind !== 'number') throw new MsgpackError(path, 'failed to decode msgpack extension body: numeric bound refinement for non-number type');
        let bound: Value;
        try {
          bound = read(body, T.Tuple([T.Number, T.Bool]), path);
        } catch {
          throw new MsgpackError(path, 'failed to decode msgpack extension body: length bound refinement must be [number, bool] array');
        }
        const [bv, inc] = bound.isKnown && !bound.isNull ? bound.elems : [];
        if (!bv || !bv.isKnown || bv.isNull || !inc || !inc.isKnown || inc.isNull) throw new MsgpackError(path, 'failed to decode msgpack extension body: length bound refinement must be [number, bool] array');
        const b = { value: bv.num, inclusive: inc.bool };
        if (key === 3n) ref.numberLower = b;
        else ref.numberUpper = b;
        break;
      }
      default:
        // cty ignores refinements it does not know (a newer encoder's); skip the value.
        skip(body, path);
    }
  }
  return Value.unknown(t, Object.keys(ref).length ? ref : undefined);
}

/** Skips one msgpack item. */
function skip(r: Reader, path: Path): void {
  const c = r.peek(path);
  if (r.isExt(path)) {
    const { len } = r.extHeader(path);
    r.take(len, path);
    return;
  }
  if (r.int(path) !== undefined || r.bool(path) !== undefined || r.strBytes(path) !== undefined) return;
  if (c === 0xc0) return void r.i++;
  if (c === 0xca) return void r.take(5, path);
  if (c === 0xcb) return void r.take(9, path);
  const a = r.arrayLen(path);
  if (a !== undefined) {
    for (let i = 0; i < a; i++) skip(r, path);
    return;
  }
  const m = r.mapLen(path);
  if (m !== undefined) {
    for (let i = 0; i < 2 * m; i++) skip(r, path);
    return;
  }
  throw new MsgpackError(path, `msgpack: unknown code ${c.toString(16)}`);
}

// ---- DynamicValue -----------------------------------------------------------------------------------------

/** The DynamicValue message as proto-loader gives and takes it. */
export interface DynamicValue {
  msgpack?: Uint8Array | null;
  json?: Uint8Array | null;
}

/** A DynamicValue for `v` of type `t`: always msgpack, as Terraform and the SDKs send. */
export function encodeDynamicValue(v: Value, t: Type): { msgpack: Buffer; json: Buffer } {
  return { msgpack: marshal(v, t), json: Buffer.alloc(0) };
}

/** The value in a DynamicValue: msgpack when present, else JSON (ctyjson), else null of `t`. Throws MsgpackError. */
export function decodeDynamicValue(dv: DynamicValue | null | undefined, t: Type): Value {
  if (dv?.msgpack && dv.msgpack.length) return unmarshal(dv.msgpack, t);
  if (dv?.json && dv.json.length) return unmarshalJSON(Buffer.from(dv.json).toString('utf8'), t);
  return Value.null(t);
}

/** ctyjson.Unmarshal; throws MsgpackError (the message is cty's, path-prefixed). */
export function unmarshalJSON(text: string, t: Type): Value {
  const r = unmarshalState(text, t);
  if ('error' in r) throw new MsgpackError([], r.error);
  return r.value;
}

/** ctyjson.Marshal of a wholly known value as type `t`. */
export function marshalJSON(v: Value, t: Type = v.type): string {
  return marshalState(v, t);
}
