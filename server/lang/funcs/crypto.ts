// Built-in hashing and crypto functions of Terraform 1.11: md5, sha1, sha256, sha512, base64sha256,
// base64sha512, bcrypt, uuid, uuidv5 and rsadecrypt. Error texts follow Terraform's funcs/crypto.go.
//
// Messages are thrown WITHOUT a trailing period: the call wrapper always appends one
// ("Call to function "x" failed: <msg>." / "Invalid value for "p" parameter: <msg>."); the corpus shows
// this with templatefile's "…nesting inside the given expression.." whose inner message already ends in '.'.

import { createHash, createPrivateKey, randomUUID } from 'node:crypto';
import bcryptjs from 'bcryptjs';
import * as T from '../types';
import { Value } from '../value';
import { FuncArgError, FuncError, type FuncSpec } from './function';

function hashFn(algo: string, enc: 'hex' | 'base64'): FuncSpec {
  return {
    params: [{ name: 'str', type: T.String }],
    returns: T.String,
    impl: (args) => Value.string(createHash(algo).update(Buffer.from(args[0].str, 'utf8')).digest(enc)),
  };
}

// One implementation of Go's quoting for the whole engine (lang/goquote.ts); re-exported for this module's users.
import { goQuote } from '../goquote';
export { goQuote };

const NAMESPACES: Record<string, string> = {
  dns: '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
  url: '6ba7b811-9dad-11d1-80b4-00c04fd430c8',
  oid: '6ba7b812-9dad-11d1-80b4-00c04fd430c8',
  x500: '6ba7b814-9dad-11d1-80b4-00c04fd430c8',
};

/** google/uuid's Parse: the 16 bytes, or throws Error with its message. */
export function parseUUID(s: string): Buffer {
  let t = s;
  switch (s.length) {
    case 36:
      break;
    case 36 + 9:
      if (s.slice(0, 9).toLowerCase() !== 'urn:uuid:') throw new Error(`invalid urn prefix: ${goQuote(s.slice(0, 9))}`);
      t = s.slice(9);
      break;
    case 36 + 2:
      if (s[0] !== '{' || s[37] !== '}') throw new Error('invalid prefix/suffix: ' + goQuote(s[0] + s[37]));
      t = s.slice(1, 37);
      break;
    case 32: {
      if (!/^[0-9a-fA-F]{32}$/.test(s)) throw new Error('invalid UUID format');
      return Buffer.from(s, 'hex');
    }
    default:
      throw new Error(`invalid UUID length: ${Buffer.byteLength(s, 'utf8')}`);
  }
  if (t[8] !== '-' || t[13] !== '-' || t[18] !== '-' || t[23] !== '-') throw new Error('invalid UUID format');
  const hex = t.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error('invalid UUID format');
  return Buffer.from(hex, 'hex');
}

function formatUUID(b: Buffer): string {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function uuidV5(namespace: Buffer, name: Buffer): string {
  const sum = createHash('sha1').update(namespace).update(name).digest().subarray(0, 16);
  sum[6] = (sum[6] & 0x0f) | 0x50;
  sum[8] = (sum[8] & 0x3f) | 0x80;
  return formatUUID(Buffer.from(sum));
}

/** Go's base64.StdEncoding.DecodeString acceptance (padding required, newlines ignored). */
export function strictBase64(s: string): Buffer | undefined {
  const t = s.replace(/[\r\n]/g, '');
  if (t.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(t)) return undefined;
  const b = Buffer.from(t, 'base64');
  // Reject non-canonical trailing bits as Go does in strict mode? Go's StdEncoding is not strict: accept.
  return b;
}

function bigFromBuf(b: Buffer): bigint {
  return b.length === 0 ? 0n : BigInt('0x' + b.toString('hex'));
}
function bigFromB64url(s: string): bigint {
  return bigFromBuf(Buffer.from(s, 'base64url'));
}
function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return r;
}

/** RSA PKCS#1 v1.5 decryption done with bigint (Node 20 refuses PKCS#1 v1.5 padding in privateDecrypt). */
function rsaDecryptPKCS1(pem: string, cipher: Buffer): Buffer {
  if (!/-----BEGIN [A-Z0-9 ]*-----/.test(pem)) throw new FuncArgError(1, 'invalid private key: ssh: no key found');
  let jwk: { kty?: string; n?: string; d?: string };
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    jwk = key.export({ format: 'jwk' }) as typeof jwk;
  } catch (e) {
    throw new FuncArgError(1, `invalid private key: ${(e as Error).message}`);
  }
  if (jwk.kty !== 'RSA' || !jwk.n || !jwk.d) throw new FuncArgError(1, `invalid private key type %!t(*${jwk.kty === 'EC' ? 'ecdsa' : 'ed25519'}.PrivateKey)`);
  const n = bigFromB64url(jwk.n);
  const d = bigFromB64url(jwk.d);
  const k = Buffer.from(jwk.n, 'base64url').length;
  const fail = () => new FuncError('failed to decrypt: crypto/rsa: decryption error');
  if (cipher.length > k || k < 11) throw fail();
  const c = bigFromBuf(cipher);
  if (c >= n) throw fail();
  const m = modPow(c, d, n);
  const em = Buffer.from(m.toString(16).padStart(k * 2, '0'), 'hex');
  if (em[0] !== 0 || em[1] !== 2) throw fail();
  let i = 2;
  while (i < em.length && em[i] !== 0) i++;
  if (i >= em.length || i < 10) throw fail();
  return em.subarray(i + 1);
}

export const functions: Record<string, FuncSpec> = {
  md5: hashFn('md5', 'hex'),
  sha1: hashFn('sha1', 'hex'),
  sha256: hashFn('sha256', 'hex'),
  sha512: hashFn('sha512', 'hex'),
  base64sha256: hashFn('sha256', 'base64'),
  base64sha512: hashFn('sha512', 'base64'),

  bcrypt: {
    params: [{ name: 'str', type: T.String }],
    varParam: { name: 'cost', type: T.Number },
    returns: T.String,
    impl: (args) => {
      let cost = 10;
      if (args.length > 1) {
        const n = args[1].num;
        const bi = n.toBigInt();
        if (bi === undefined || bi > 9223372036854775807n || bi < -9223372036854775808n)
          throw new FuncError('value must be a whole number, between -9223372036854775808 and 9223372036854775807'); // gocty into int
        cost = globalThis.Number(bi);
      }
      if (args.length > 2) throw new FuncError('bcrypt() takes no more than two arguments');
      // golang.org/x/crypto/bcrypt: costs below 4 use the default cost 10; above 31 fail.
      if (cost < 4) cost = 10;
      if (cost > 31) throw new FuncError(`error occured generating password crypto/bcrypt: cost ${cost} is outside allowed range (4,31)`);
      const pw = Buffer.from(args[0].str, 'utf8');
      if (pw.length > 72) throw new FuncError('error occured generating password bcrypt: password length exceeds 72 bytes');
      const salt = bcryptjs.genSaltSync(cost).replace(/^\$2b\$/, '$2a$');
      return Value.string(bcryptjs.hashSync(args[0].str, salt).replace(/^\$2b\$/, '$2a$'));
    },
  },

  uuid: {
    params: [],
    returns: T.String,
    impl: () => Value.string(randomUUID()),
  },

  uuidv5: {
    params: [
      { name: 'namespace', type: T.String },
      { name: 'name', type: T.String },
    ],
    returns: T.String,
    impl: (args) => {
      const ns = args[0].str;
      let nsBytes: Buffer;
      if (NAMESPACES[ns]) nsBytes = parseUUID(NAMESPACES[ns]);
      else {
        try {
          nsBytes = parseUUID(ns);
        } catch (e) {
          throw new FuncError(`uuidv5() doesn't support namespace ${ns} (${(e as Error).message})`);
        }
      }
      return Value.string(uuidV5(nsBytes, Buffer.from(args[1].str, 'utf8')));
    },
  },

  rsadecrypt: {
    params: [
      { name: 'ciphertext', type: T.String },
      { name: 'privatekey', type: T.String },
    ],
    returns: T.String,
    impl: (args) => {
      const s = args[0].str;
      const b = strictBase64(s);
      if (b === undefined) throw new FuncArgError(0, `failed to decode input ${goQuote(s)}: cipher text must be base64-encoded`);
      const out = rsaDecryptPKCS1(args[1].str, b);
      // Go's string(out) keeps invalid bytes; cty normalises. Decode leniently.
      return Value.string(out.toString('utf8'));
    },
  },
};
