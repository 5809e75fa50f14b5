// A small ASN.1 DER encoder and reader for the tls provider (../tls.ts): enough to build X.509 v3
// certificates and PKCS#10 certificate requests the way Go's crypto/x509 lays them out, and to read back the
// fields the provider needs from certificates and requests (subject, public key, extensions). This is
// encoding only; every cryptographic operation (key generation, signing, hashing) is node:crypto's.
//
// Contract: encoders return DER (definite lengths, minimal integers); `read` returns the element at an offset
// and throws `DerError` for truncated or malformed input, which callers turn into diagnostics.

export class DerError extends Error {}

/** Encodes a tag-length-value element. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  const n = content.length;
  let len: number[];
  if (n < 0x80) len = [n];
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    len = [0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from([tag, ...len]), content]);
}

export const seq = (...items: Uint8Array[]) => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]) => tlv(0x31, Buffer.concat(items));
export const nullV = () => Buffer.from([0x05, 0x00]);
export const bool = (b: boolean) => Buffer.from([0x01, 0x01, b ? 0xff : 0x00]);
export const octets = (b: Uint8Array) => tlv(0x04, b);
/** A BIT STRING with `unused` trailing bits in its last byte. */
export const bits = (b: Uint8Array, unused = 0) => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]));
/** [n] EXPLICIT (constructed context tag). */
export const explicit = (n: number, content: Uint8Array) => tlv(0xa0 | n, content);
/** [n] IMPLICIT primitive (context tag over raw content). */
export const implicitPrim = (n: number, content: Uint8Array) => tlv(0x80 | n, content);

/** A non-negative INTEGER (bigint or unsigned big-endian bytes), minimally encoded. */
export function int(v: bigint | number | Uint8Array): Buffer {
  let b: Buffer;
  if (typeof v === 'bigint' || typeof v === 'number') {
    let hex = BigInt(v).toString(16);
    if (hex.length % 2) hex = '0' + hex;
    b = Buffer.from(hex, 'hex');
  } else b = Buffer.from(v);
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  b = b.subarray(i);
  if (b.length === 0) b = Buffer.from([0]);
  if (b[0] & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map((p) => BigInt(p));
  const out: number[] = [Number(parts[0] * 40n + parts[1])];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [];
    let v = p;
    do {
      chunk.unshift(Number(v & 0x7fn));
      v >>= 7n;
    } while (v > 0n);
    for (let i = 0; i < chunk.length - 1; i++) chunk[i] |= 0x80;
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** A directory string as Go's encoding/asn1 marshals a Go string: PrintableString when possible, else UTF8String. */
export function dirString(s: string): Buffer {
  return tlv(PRINTABLE.test(s) ? 0x13 : 0x0c, Buffer.from(s, 'utf8'));
}

/** A time as X.509 wants it: UTCTime before 2050, GeneralizedTime from 2050 on (seconds precision, "Z"). */
export function x509Time(d: Date): Buffer {
  const p = (n: number, l = 2) => String(n).padStart(l, '0');
  const y = d.getUTCFullYear();
  const rest = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  if (y >= 1950 && y < 2050) return tlv(0x17, Buffer.from(`${p(y % 100)}${rest}`, 'latin1'));
  return tlv(0x18, Buffer.from(`${p(y, 4)}${rest}`, 'latin1'));
}

// ---- reading -------------------------------------------------------------------------------------------------

export interface Element {
  tag: number;
  /** The whole element (header and content). */
  raw: Buffer;
  content: Buffer;
}

/** The element starting at `off` in `b`. */
export function read(b: Buffer, off = 0): Element {
  if (off + 2 > b.length) throw new DerError('truncated element');
  const tag = b[off];
  let len = b[off + 1];
  let hdr = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || off + 2 + n > b.length) throw new DerError('bad length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[off + 2 + i];
    hdr += n;
  }
  if (off + hdr + len > b.length) throw new DerError('truncated element');
  return { tag, raw: b.subarray(off, off + hdr + len), content: b.subarray(off + hdr, off + hdr + len) };
}

/** The elements inside a constructed element's content. */
export function children(content: Buffer): Element[] {
  const out: Element[] = [];
  for (let off = 0; off < content.length; ) {
    const e = read(content, off);
    out.push(e);
    off += e.raw.length;
  }
  return out;
}

/** Dotted text of an OBJECT IDENTIFIER element's content. */
export function oidText(content: Buffer): string {
  const out: bigint[] = [];
  let v = 0n;
  for (const byte of content) {
    v = (v << 7n) | BigInt(byte & 0x7f);
    if (!(byte & 0x80)) {
      out.push(v);
      v = 0n;
    }
  }
  const first = out.shift() ?? 0n;
  const a = first < 80n ? first / 40n : 2n;
  return [a, first - a * 40n, ...out].join('.');
}
