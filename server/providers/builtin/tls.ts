// The `tls` provider (registry.terraform.io/hashicorp/tls), compatible with hashicorp/tls 4.0.6 for the types
// listed here (data `tls_certificate` and the provider's proxy configuration are not offered):
//
// - `tls_private_key` (schema v1, upgrade from v0): RSA (`rsa_bits`, default 2048), ECDSA (`ecdsa_curve`
//   P224/P256/P384/P521, default P224) or ED25519; PEM (PKCS#1 / SEC 1 / PKCS#8 as Go writes them), PKCS#8,
//   OpenSSH private key and authorized-keys public key with MD5/SHA256 fingerprints (empty strings for P224,
//   which OpenSSH lacks); `id` is the hex SHA-1 of the public key's DER. Every argument replaces.
// - data `tls_public_key`: the public forms of `private_key_pem` or `private_key_openssh` (exactly one).
// - `tls_self_signed_cert`, `tls_locally_signed_cert`: X.509 v3 certificates laid out as Go's
//   x509.CreateCertificate does (random 128-bit serial = `id`, key usage / extended key usage from
//   `allowed_uses`, critical basic constraints, subject and authority key ids, SANs), `validity_*` times,
//   `ready_for_renewal` with the provider's plan modifier, plan-time renewal (replacement) and refresh-time
//   detection once `early_renewal_hours` before the end is reached; `early_renewal_hours` updates in place.
// - `tls_cert_request`: PKCS#10 requests with subject and SANs; `id` the hex SHA-1 of the request's DER.
//
// Keys, signatures and hashes are node:crypto's; the DER layout is written by tls/der.ts and the OpenSSH
// encodings by this file (no third-party X.509 library: Node's WebCrypto, which they build on, lacks P-224
// and their outputs differ from Go's layout anyway). Parse error texts keep the provider's wrapping, while
// the innermost library messages are Node's, not Go's. Written with the SDK (../sdk). Siblings: index.ts.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { isIP as netIsIP } from 'node:net';
import * as T from '../../lang/types';
import { Value, rawEquals } from '../../lang/value';
import type { Path } from '../path';
import { attrStep, indexStep, pathEquals } from '../path';
import type { Provider, ProviderDiagnostic } from '../provider';
import type { NestedBlock } from '../schema';
import type { AttributeSpec, PlanHookRequest, ResourceType, StateResult, Validator } from '../sdk';
import {
  atLeast,
  attr,
  attrError,
  B,
  defineProvider,
  get,
  lengthAtLeast,
  oneOf,
  plainError,
  planModifier,
  requiresReplace,
  requiresReplaceIf,
  S,
  str,
  strings,
  useStateForUnknown,
  validator,
  withAttrs,
} from '../sdk';
import { exactlyOneOf } from './local';
import * as D from './tls/der';

export const TLS_PROVIDER_ADDRESS = 'registry.terraform.io/hashicorp/tls';

// ---- PEM and keys --------------------------------------------------------------------------------------------------

/** pem.EncodeToMemory: 64-column base64 body, trailing newline. */
export function pemEncode(type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join('\n')}${lines.length ? '\n' : ''}-----END ${type}-----\n`;
}

/** pem.Decode: the first PEM block in the text (headers ignored), or undefined. */
export function pemDecode(text: string): { type: string; der: Buffer } | undefined {
  const m = /-----BEGIN ([^\n-]+)-----\r?\n((?:[^\n]*:[^\n]*\r?\n)*\r?\n?)?([A-Za-z0-9+/=\s]*?)-----END \1-----/.exec(text);
  if (!m) return undefined;
  return { type: m[1], der: Buffer.from(m[3].replace(/\s+/g, ''), 'base64') };
}

export type Algorithm = 'RSA' | 'ECDSA' | 'ED25519';
const CURVES: Record<string, string> = { P224: 'secp224r1', P256: 'prime256v1', P384: 'secp384r1', P521: 'secp521r1' };
const SSH_CURVES: Record<string, { ssh: string; hash: string }> = { 'P-256': { ssh: 'nistp256', hash: 'sha256' }, 'P-384': { ssh: 'nistp384', hash: 'sha384' }, 'P-521': { ssh: 'nistp521', hash: 'sha512' } };

function algorithmOf(k: KeyObject): Algorithm | undefined {
  switch (k.asymmetricKeyType) {
    case 'rsa':
      return 'RSA';
    case 'ec':
      return 'ECDSA';
    case 'ed25519':
      return 'ED25519';
    default:
      return undefined;
  }
}

const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** parsePrivateKeyPEM: the key of the first PEM block, with the provider's error texts. */
export function parsePrivateKeyPEM(text: string): { key: KeyObject; algorithm: Algorithm } | { error: string } {
  const block = pemDecode(text);
  const total = Buffer.byteLength(text, 'utf8');
  if (!block) return { error: `failed to decode PEM block: decoded bytes 0, undecoded ${total}` };
  const kinds: Record<string, 'pkcs1' | 'sec1' | 'pkcs8'> = { 'RSA PRIVATE KEY': 'pkcs1', 'EC PRIVATE KEY': 'sec1', 'PRIVATE KEY': 'pkcs8' };
  const kind = kinds[block.type];
  if (!kind) {
    if (['PUBLIC KEY', 'CERTIFICATE', 'CERTIFICATE REQUEST'].includes(block.type)) return { error: `unable to determine parser for PEM preamble: ${block.type}` };
    return { error: `unsupported PEM preamble/type: ${block.type}` };
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: block.der, format: 'der', type: kind });
  } catch (e) {
    return { error: `failed to parse private key given PEM preamble '${block.type}': ${errText(e)}` };
  }
  const algorithm = algorithmOf(key);
  if (!algorithm) return { error: `failed to determine key algorithm for private key of type ${key.asymmetricKeyType}: unsupported private key type` };
  return { key, algorithm };
}

// ---- OpenSSH encodings ----------------------------------------------------------------------------------------------

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const sshString = (b: Uint8Array | string) => {
  const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : Buffer.from(b);
  return Buffer.concat([u32(buf.length), buf]);
};
/** An SSH mpint from unsigned big-endian bytes. */
const mpint = (b: Uint8Array) => {
  let v = Buffer.from(b);
  let i = 0;
  while (i < v.length && v[i] === 0) i++;
  v = v.subarray(i);
  if (v.length && v[0] & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
  return sshString(v);
};
const b64u = (s: string | undefined) => Buffer.from(s ?? '', 'base64url');

/** The SSH wire blob of a public key and its type name, or undefined when OpenSSH cannot represent it (P-224). */
function sshPublic(k: KeyObject): { type: string; blob: Buffer } | undefined {
  const pub = k.type === 'private' ? createPublicKey(k) : k;
  if (pub.asymmetricKeyType === 'ec' && !SSH_CURVES[curveOf(pub)]) return undefined;
  const jwk = pub.export({ format: 'jwk' });
  switch (pub.asymmetricKeyType) {
    case 'rsa':
      return { type: 'ssh-rsa', blob: Buffer.concat([sshString('ssh-rsa'), mpint(b64u(jwk.e)), mpint(b64u(jwk.n))]) };
    case 'ed25519':
      return { type: 'ssh-ed25519', blob: Buffer.concat([sshString('ssh-ed25519'), sshString(b64u(jwk.x))]) };
    case 'ec': {
      const c = SSH_CURVES[jwk.crv ?? ''];
      if (!c) return undefined;
      const type = `ecdsa-sha2-${c.ssh}`;
      return { type, blob: Buffer.concat([sshString(type), sshString(c.ssh), sshString(ecPoint(jwk))]) };
    }
    default:
      return undefined;
  }
}

function ecPoint(jwk: { x?: string; y?: string }): Buffer {
  return Buffer.concat([Buffer.from([4]), b64u(jwk.x), b64u(jwk.y)]);
}

/** The uncompressed point of an EC public key, read from its SubjectPublicKeyInfo (works for P-224, which JWK lacks). */
function ecPointOf(pub: KeyObject): Buffer {
  const spki = pub.export({ type: 'spki', format: 'der' });
  const bitString = D.children(D.read(spki).content)[1];
  return Buffer.from(bitString.content.subarray(1));
}

/** The NIST name of an EC key's curve ("P-256"), from its details rather than JWK (which lacks P-224). */
function curveOf(k: KeyObject): string {
  const named = k.asymmetricKeyDetails?.namedCurve ?? '';
  return ({ secp224r1: 'P-224', prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' } as Record<string, string>)[named] ?? named;
}

/** ssh.MarshalPrivateKey(key, "") wrapped in PEM ("OPENSSH PRIVATE KEY"), or undefined when unsupported. */
function opensshPrivate(k: KeyObject): string | undefined {
  const pub = sshPublic(k);
  if (!pub) return undefined;
  const jwk = k.export({ format: 'jwk' });
  let body: Buffer;
  switch (k.asymmetricKeyType) {
    case 'rsa':
      body = Buffer.concat([sshString('ssh-rsa'), mpint(b64u(jwk.n)), mpint(b64u(jwk.e)), mpint(b64u(jwk.d)), mpint(b64u(jwk.qi)), mpint(b64u(jwk.p)), mpint(b64u(jwk.q))]);
      break;
    case 'ed25519':
      body = Buffer.concat([sshString('ssh-ed25519'), sshString(b64u(jwk.x)), sshString(Buffer.concat([b64u(jwk.d), b64u(jwk.x)]))]);
      break;
    default: {
      const c = SSH_CURVES[jwk.crv ?? '']!;
      body = Buffer.concat([sshString(pub.type), sshString(c.ssh), sshString(ecPoint(jwk)), mpint(b64u(jwk.d))]);
    }
  }
  const check = randomBytes(4);
  let priv = Buffer.concat([check, check, body, sshString('')]);
  const pad: number[] = [];
  for (let i = 1; (priv.length + pad.length) % 8 !== 0; i++) pad.push(i);
  priv = Buffer.concat([priv, Buffer.from(pad)]);
  const der = Buffer.concat([Buffer.from('openssh-key-v1\0', 'latin1'), sshString('none'), sshString('none'), sshString(''), u32(1), sshString(pub.blob), sshString(priv)]);
  return pemEncode('OPENSSH PRIVATE KEY', der);
}

/** Reads an unencrypted openssh-key-v1 private key (ssh.ParseRawPrivateKey); PEM keys of other types are parsed as PEM. */
export function parsePrivateKeyOpenSSH(text: string): { key: KeyObject; algorithm: Algorithm } | { error: string } {
  const block = pemDecode(text);
  if (!block) return { error: 'failed to parse openssh private key: ssh: no key found' };
  if (block.type !== 'OPENSSH PRIVATE KEY') {
    const r = parsePrivateKeyPEM(text);
    return 'error' in r ? { error: `failed to parse openssh private key: ${r.error}` } : r;
  }
  try {
    const b = block.der;
    const magic = 'openssh-key-v1\0';
    if (b.subarray(0, magic.length).toString('latin1') !== magic) throw new Error('ssh: invalid openssh private key format');
    let off = magic.length;
    const next = () => {
      const n = b.readUInt32BE(off);
      const v = b.subarray(off + 4, off + 4 + n);
      off += 4 + n;
      return v;
    };
    const cipher = next().toString('latin1');
    next();
    next();
    off += 4;
    next();
    if (cipher !== 'none') throw new Error('ssh: this private key is passphrase protected');
    const priv = next();
    let p = 8;
    const field = () => {
      const n = priv.readUInt32BE(p);
      const v = priv.subarray(p + 4, p + 4 + n);
      p += 4 + n;
      return v;
    };
    const type = field().toString('latin1');
    const u = (x: Buffer) => {
      let i = 0;
      while (i < x.length - 1 && x[i] === 0) i++;
      return x.subarray(i).toString('base64url');
    };
    let key: KeyObject;
    if (type === 'ssh-rsa') {
      const [n, e, d, qi, pp, q] = [field(), field(), field(), field(), field(), field()];
      const big = (x: Buffer) => BigInt('0x' + (x.toString('hex') || '0'));
      const hexB = (v: bigint) => {
        let h = v.toString(16);
        if (h.length % 2) h = '0' + h;
        return Buffer.from(h, 'hex').toString('base64url');
      };
      const dp = big(d) % (big(pp) - 1n);
      const dq = big(d) % (big(q) - 1n);
      key = createPrivateKey({ key: { kty: 'RSA', n: u(n), e: u(e), d: u(d), p: u(pp), q: u(q), dp: hexB(dp), dq: hexB(dq), qi: u(qi) }, format: 'jwk' });
    } else if (type === 'ssh-ed25519') {
      const pub = field();
      const sk = field();
      key = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pub.toString('base64url'), d: sk.subarray(0, 32).toString('base64url') }, format: 'jwk' });
    } else if (type.startsWith('ecdsa-sha2-')) {
      const curve = field().toString('latin1');
      const q = field();
      const d = field();
      const crv = Object.entries(SSH_CURVES).find(([, c]) => c.ssh === curve)?.[0];
      if (!crv) throw new Error(`ssh: unsupported curve ${curve}`);
      const size = (q.length - 1) / 2;
      const dd = Buffer.concat([Buffer.alloc(Math.max(0, size - d.length + (d[0] === 0 ? 1 : 0))), d[0] === 0 ? d.subarray(1) : d]);
      key = createPrivateKey({ key: { kty: 'EC', crv, x: q.subarray(1, 1 + size).toString('base64url'), y: q.subarray(1 + size).toString('base64url'), d: dd.toString('base64url') }, format: 'jwk' });
    } else throw new Error(`ssh: unhandled key type ${JSON.stringify(type)}`);
    return { key, algorithm: algorithmOf(key)! };
  } catch (e) {
    return { error: `failed to parse openssh private key: ${errText(e)}` };
  }
}

/** hashForState: hex SHA-1 of the text with surrounding white space removed ("" for ""). */
function hashForState(b: Buffer): string {
  if (b.length === 0) return '';
  let s = 0;
  let e = b.length;
  const ws = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
  while (s < e && ws(b[s])) s++;
  while (e > s && ws(b[e - 1])) e--;
  return createHash('sha1').update(b.subarray(s, e)).digest('hex');
}

/** setPublicKeyAttributes: id, public_key_pem, public_key_openssh and the fingerprints ("" when OpenSSH lacks the key type). */
function publicKeyAttributes(k: KeyObject): Record<string, Value> {
  const pub = k.type === 'private' ? createPublicKey(k) : k;
  const spki = pub.export({ type: 'spki', format: 'der' });
  const ssh = sshPublic(pub);
  let openssh = '';
  let md5 = '';
  let sha256 = '';
  if (ssh) {
    openssh = `${ssh.type} ${ssh.blob.toString('base64')}\n`;
    md5 = (createHash('md5').update(ssh.blob).digest('hex').match(/../g) ?? []).join(':');
    sha256 = `SHA256:${createHash('sha256').update(ssh.blob).digest('base64').replace(/=+$/, '')}`;
  }
  return { id: S(hashForState(spki)), public_key_pem: S(pemEncode('PUBLIC KEY', spki)), public_key_openssh: S(openssh), public_key_fingerprint_md5: S(md5), public_key_fingerprint_sha256: S(sha256) };
}

/** The PEM Go's provider stores as private_key_pem: PKCS#1 for RSA, SEC 1 for ECDSA, PKCS#8 for ED25519. */
function privatePem(k: KeyObject): string {
  switch (k.asymmetricKeyType) {
    case 'rsa':
      return k.export({ type: 'pkcs1', format: 'pem' }) as string;
    case 'ec':
      return k.export({ type: 'sec1', format: 'pem' }) as string;
    default:
      return k.export({ type: 'pkcs8', format: 'pem' }) as string;
  }
}

/** Every computed attribute of tls_private_key for a key. */
function privateKeyAttributes(k: KeyObject): Record<string, Value> {
  return {
    private_key_pem: S(privatePem(k)),
    private_key_pem_pkcs8: S(k.export({ type: 'pkcs8', format: 'pem' }) as string),
    private_key_openssh: S(opensshPrivate(k) ?? ''),
    ...publicKeyAttributes(k),
  };
}

// ---- tls_private_key / data tls_public_key ---------------------------------------------------------------------------

function privateKeyAttrs(): Record<string, AttributeSpec> {
  const computed = (description: string, sensitive = false) => attr.string({ computed: true, sensitive, description });
  return {
    algorithm: attr.string({
      required: true,
      description: 'Name of the algorithm to use when generating the private key. Currently-supported values are: `RSA`, `ECDSA`, `ED25519`. ',
      planModifiers: [requiresReplace()],
      validators: [oneOf('RSA', 'ECDSA', 'ED25519')],
    }),
    rsa_bits: attr.int64({ optional: true, computed: true, default: 2048, description: 'When `algorithm` is `RSA`, the size of the generated RSA key, in bits (default: `2048`).', planModifiers: [requiresReplace()] }),
    ecdsa_curve: attr.string({
      optional: true,
      computed: true,
      default: 'P224',
      description: 'When `algorithm` is `ECDSA`, the name of the elliptic curve to use. Currently-supported values are: `P224`, `P256`, `P384`, `P521`. (default: `P224`).',
      planModifiers: [requiresReplace()],
      validators: [oneOf('P224', 'P256', 'P384', 'P521')],
    }),
    private_key_pem: computed('Private key data in PEM (RFC 1421) format.', true),
    private_key_openssh: computed('Private key data in OpenSSH PEM (RFC 4716) format.', true),
    private_key_pem_pkcs8: computed('Private key data in PKCS#8 PEM (RFC 5208) format.', true),
    public_key_pem: computed('Public key data in PEM (RFC 1421) format.'),
    public_key_openssh: computed('The public key data in "Authorized Keys" format; empty for `ECDSA` with curve `P224`.'),
    public_key_fingerprint_md5: computed('The fingerprint of the public key data in OpenSSH MD5 hash format, e.g. `aa:bb:cc:...`.'),
    public_key_fingerprint_sha256: computed('The fingerprint of the public key data in OpenSSH SHA256 hash format, e.g. `SHA256:...`.'),
    id: computed('Unique identifier for this resource: hexadecimal representation of the SHA1 checksum of the resource.'),
  };
}

function generateKey(planned: Value): { key: KeyObject } | { diag: ProviderDiagnostic } {
  const algorithm = str(get(planned, 'algorithm')) ?? '';
  try {
    if (algorithm === 'RSA') {
      const bits = get(planned, 'rsa_bits');
      if (bits.isNull || !bits.isKnown) return { diag: plainError('Unable to generate Key from configuration', 'RSA bits curve not provided') };
      return { key: generateKeyPairSync('rsa', { modulusLength: bits.num.toNumber() }).privateKey };
    }
    if (algorithm === 'ECDSA') {
      const c = get(planned, 'ecdsa_curve');
      if (c.isNull || !c.isKnown) return { diag: plainError('Unable to generate Key from configuration', 'ECDSA curve not provided') };
      const named = CURVES[c.str];
      if (!named) return { diag: plainError('Unable to generate Key from configuration', 'invalid ECDSA curve; supported values are: [P224 P256 P384 P521]') };
      return { key: generateKeyPairSync('ec', { namedCurve: named }).privateKey };
    }
    if (algorithm === 'ED25519') return { key: generateKeyPairSync('ed25519').privateKey };
  } catch (e) {
    return { diag: plainError('Unable to generate Key from configuration', errText(e)) };
  }
  return { diag: plainError('Invalid Key Algorithm', `Key Algorithm ${JSON.stringify(algorithm)} is not supported`) };
}

function tlsPrivateKey(): ResourceType {
  const attributes = privateKeyAttrs();
  return {
    version: 1,
    description: 'Creates a PEM (and OpenSSH) formatted private key.',
    attributes,
    create({ planned }) {
      const g = generateKey(planned);
      if ('diag' in g) return { state: null, diagnostics: [g.diag] };
      return { state: withAttrs(planned, privateKeyAttributes(g.key)) };
    },
    upgraders: {
      0: {
        priorSchema: { attributes: Object.fromEntries(Object.entries(attributes).map(([k, a]) => [k, a.schema])), blockTypes: {} },
        upgrade(prior): StateResult {
          const r = parsePrivateKeyPEM(str(get(prior, 'private_key_pem')) ?? '');
          if ('error' in r) return { state: null, diagnostics: [plainError('Unable to parse key from PEM', r.error)] };
          const ossh = get(prior, 'private_key_openssh');
          const keep = !ossh.isNull && ossh.str !== '';
          return {
            state: withAttrs(prior, {
              private_key_openssh: keep ? ossh : S(opensshPrivate(r.key) ?? ''),
              private_key_pem_pkcs8: S(r.key.export({ type: 'pkcs8', format: 'pem' }) as string),
              ...publicKeyAttributes(r.key),
            }),
          };
        },
      },
    },
  };
}

const publicKeyData = {
  description: 'Get a public key from a PEM-encoded private key.',
  attributes: {
    private_key_pem: attr.string({ optional: true, sensitive: true, description: 'The private key (in PEM (RFC 1421) format) to extract the public key from.', validators: [exactlyOneOf('private_key_pem', 'private_key_pem', 'private_key_openssh')] }),
    private_key_openssh: attr.string({ optional: true, sensitive: true, description: 'The private key (in OpenSSH PEM (RFC 4716) format) to extract the public key from.', validators: [exactlyOneOf('private_key_openssh', 'private_key_pem', 'private_key_openssh')] }),
    algorithm: attr.string({ computed: true, description: 'The name of the algorithm used by the given private key. Possible values are: `RSA`, `ECDSA`, `ED25519`. ' }),
    public_key_pem: attr.string({ computed: true, description: 'The public key, in PEM (RFC 1421) format.' }),
    public_key_openssh: attr.string({ computed: true, description: 'The public key, in "Authorized Keys" format; empty for `ECDSA` with curve `P224`.' }),
    public_key_fingerprint_md5: attr.string({ computed: true, description: 'The fingerprint of the public key data in OpenSSH MD5 hash format.' }),
    public_key_fingerprint_sha256: attr.string({ computed: true, description: 'The fingerprint of the public key data in OpenSSH SHA256 hash format.' }),
    id: attr.string({ computed: true, description: 'Unique identifier for this data source: hexadecimal representation of the SHA1 checksum of the data source.' }),
  },
  read({ config }: { config: Value }): StateResult {
    const pem = get(config, 'private_key_pem');
    const r = !pem.isNull ? parsePrivateKeyPEM(pem.str) : parsePrivateKeyOpenSSH(str(get(config, 'private_key_openssh')) ?? '');
    if ('error' in r) return { state: null, diagnostics: [plainError('Unable to parse private key', r.error)] };
    return { state: { private_key_pem: pem, private_key_openssh: get(config, 'private_key_openssh'), algorithm: S(r.algorithm), ...publicKeyAttributes(r.key) } };
  },
};

// ---- names, extensions, signing ----------------------------------------------------------------------------------------

const OID = {
  C: '2.5.4.6',
  ST: '2.5.4.8',
  L: '2.5.4.7',
  STREET: '2.5.4.9',
  POSTAL: '2.5.4.17',
  O: '2.5.4.10',
  OU: '2.5.4.11',
  CN: '2.5.4.3',
  SERIAL: '2.5.4.5',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  basicConstraints: '2.5.29.19',
  ski: '2.5.29.14',
  aki: '2.5.29.35',
  san: '2.5.29.17',
  extensionRequest: '1.2.840.113549.1.9.14',
};

const KEY_USAGES: Record<string, number> = {
  digital_signature: 0,
  content_commitment: 1,
  key_encipherment: 2,
  data_encipherment: 3,
  key_agreement: 4,
  cert_signing: 5,
  crl_signing: 6,
  encipher_only: 7,
  decipher_only: 8,
};
const EXT_KEY_USAGES: Record<string, string> = {
  any_extended: '2.5.29.37.0',
  server_auth: '1.3.6.1.5.5.7.3.1',
  client_auth: '1.3.6.1.5.5.7.3.2',
  code_signing: '1.3.6.1.5.5.7.3.3',
  email_protection: '1.3.6.1.5.5.7.3.4',
  ipsec_end_system: '1.3.6.1.5.5.7.3.5',
  ipsec_tunnel: '1.3.6.1.5.5.7.3.6',
  ipsec_user: '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  ocsp_signing: '1.3.6.1.5.5.7.3.9',
  microsoft_server_gated_crypto: '1.3.6.1.4.1.311.10.3.3',
  netscape_server_gated_crypto: '2.16.840.1.113730.4.1',
  microsoft_commercial_code_signing: '1.3.6.1.4.1.311.2.1.22',
  microsoft_kernel_code_signing: '1.3.6.1.4.1.311.61.1.1',
};
const ALLOWED_USES = [...Object.keys(KEY_USAGES), ...Object.keys(EXT_KEY_USAGES)].sort();

/** pkix.Name.ToRDNSequence order: C, ST, L, street, postal code, O, OU, CN, serial number. Empty when nothing is set. */
function subjectName(subject: Value | undefined): Buffer {
  if (!subject) return D.seq();
  const rdns: Buffer[] = [];
  const one = (o: string, v: Value) => {
    if (!v.isNull && v.isKnown) rdns.push(D.set(D.seq(D.oid(o), D.dirString(v.str))));
  };
  one(OID.C, get(subject, 'country'));
  one(OID.ST, get(subject, 'province'));
  one(OID.L, get(subject, 'locality'));
  const street = strings(get(subject, 'street_address'));
  if (street.length) rdns.push(D.set(...street.map((s) => D.seq(D.oid(OID.STREET), D.dirString(s)))));
  one(OID.POSTAL, get(subject, 'postal_code'));
  one(OID.O, get(subject, 'organization'));
  one(OID.OU, get(subject, 'organizational_unit'));
  one(OID.CN, get(subject, 'common_name'));
  one(OID.SERIAL, get(subject, 'serial_number'));
  return D.seq(...rdns);
}

const ext = (id: string, critical: boolean, value: Buffer) => D.seq(D.oid(id), ...(critical ? [D.bool(true)] : []), D.octets(value));

/** Go's IP parsing (net.ParseIP) to the 4- or 16-byte form x509 stores. */
function ipBytes(s: string): Buffer | undefined {
  const kind = netIsIP(s);
  if (kind === 4) return Buffer.from(s.split('.').map(Number));
  if (kind !== 6) return undefined;
  const [head, tail] = s.includes('::') ? s.split('::') : [s, undefined];
  const conv = (part: string): number[] => {
    if (!part) return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (g.includes('.')) out.push(...[...Buffer.from(g.split('.').map(Number))].reduce<number[]>((a, b, i, arr) => (i % 2 ? a : [...a, (b << 8) | arr[i + 1]]), []));
      else out.push(parseInt(g, 16));
    }
    return out;
  };
  const h = conv(head);
  const t = tail === undefined ? [] : conv(tail);
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
  const b = Buffer.alloc(16);
  groups.forEach((g, i) => b.writeUInt16BE(g, i * 2));
  // x509 marshals an IPv4-mapped address in its 4-byte form (ip.To4()).
  if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return b.subarray(12);
  return b;
}

interface Sans {
  dns: string[];
  ips: Buffer[];
  uris: string[];
}
const hasSans = (s: Sans) => s.dns.length + s.ips.length + s.uris.length > 0;
const sanValue = (s: Sans) =>
  D.seq(...s.dns.map((d) => D.implicitPrim(2, Buffer.from(d, 'latin1'))), ...s.ips.map((ip) => D.implicitPrim(7, ip)), ...s.uris.map((u) => D.implicitPrim(6, Buffer.from(u, 'utf8'))));

/** The SANs configured on a certificate or request; diagnostics for addresses Go cannot parse. */
function sansOf(planned: Value): { sans: Sans } | { diag: ProviderDiagnostic } {
  const ips: Buffer[] = [];
  for (const ip of strings(get(planned, 'ip_addresses'))) {
    const b = ipBytes(ip);
    if (!b) return { diag: plainError('Invalid IP address', `Failed to parse ${JSON.stringify(ip)}`) };
    ips.push(b);
  }
  return { sans: { dns: strings(get(planned, 'dns_names')), ips, uris: strings(get(planned, 'uris')) } };
}

/** Go's signature algorithm for a key: SHA-256 with RSA; ECDSA with SHA-256/384/512 by curve size; Ed25519. */
function signatureAlgorithm(k: KeyObject): { algId: Buffer; hash: string | null } {
  if (k.asymmetricKeyType === 'rsa') return { algId: D.seq(D.oid('1.2.840.113549.1.1.11'), D.nullV()), hash: 'sha256' };
  if (k.asymmetricKeyType === 'ed25519') return { algId: D.seq(D.oid('1.3.101.112')), hash: null };
  const crv = curveOf(k);
  if (crv === 'P-384') return { algId: D.seq(D.oid('1.2.840.10045.4.3.3')), hash: 'sha384' };
  if (crv === 'P-521') return { algId: D.seq(D.oid('1.2.840.10045.4.3.4')), hash: 'sha512' };
  return { algId: D.seq(D.oid('1.2.840.10045.4.3.2')), hash: 'sha256' };
}

function signed(tbs: Buffer, key: KeyObject): Buffer {
  const alg = signatureAlgorithm(key);
  const sig = sign(alg.hash, tbs, key);
  return D.seq(tbs, alg.algId, D.bits(sig));
}

/** generateSubjectKeyID: SHA-1 of PKCS#1 (RSA), the uncompressed point (ECDSA) or the DER OCTET STRING (Ed25519). */
function subjectKeyId(pub: KeyObject): Buffer {
  let bytes: Buffer;
  if (pub.asymmetricKeyType === 'rsa') bytes = pub.export({ type: 'pkcs1', format: 'der' });
  else if (pub.asymmetricKeyType === 'ec') bytes = ecPointOf(pub);
  else bytes = D.octets(b64u(pub.export({ format: 'jwk' }).x));
  return createHash('sha1').update(bytes).digest();
}

/** time.Time.MarshalText of a UTC time: RFC 3339 with trailing-zero-free fractional seconds. */
function marshalText(d: Date): string {
  return d.toISOString().replace(/\.?0+Z$/, 'Z').replace(/\.Z$/, 'Z');
}

interface CertParams {
  subject: Buffer;
  issuer: Buffer;
  spki: Buffer;
  pub: KeyObject;
  sans: Sans;
  signer: KeyObject;
  parentSki?: Buffer;
  selfSigned: boolean;
}

/** createCertificate: the certificate and the computed attributes (id, cert_pem, validity times), or diagnostics. */
function createCertificate(planned: Value, p: CertParams): { attrs: Record<string, Value> } | { diag: ProviderDiagnostic } {
  const hours = get(planned, 'validity_period_hours').num.toNumber();
  const notBefore = new Date();
  const notAfter = new Date(notBefore.getTime() + hours * 3600000);
  const serial = BigInt('0x' + randomBytes(16).toString('hex'));
  let ku = 0;
  const eku: string[] = [];
  for (const u of strings(get(planned, 'allowed_uses'))) {
    if (u in KEY_USAGES) ku |= 1 << KEY_USAGES[u];
    if (u in EXT_KEY_USAGES) eku.push(EXT_KEY_USAGES[u]);
  }
  const isCA = get(planned, 'is_ca_certificate');
  const ca = !isCA.isNull && isCA.isKnown && isCA.bool;
  let ski: Buffer | undefined;
  if (ca) {
    if (p.subject.length <= 2) return { diag: plainError('Invalid Certificate Subject', 'Must contain at least one Distinguished Name when creating Certificate Authority (CA)') };
    ski = subjectKeyId(p.pub);
  }
  const setSki = get(planned, 'set_subject_key_id');
  if (!setSki.isNull && setSki.isKnown && setSki.bool) ski = subjectKeyId(p.pub);
  let aki: Buffer | undefined;
  const setAki = get(planned, 'set_authority_key_id');
  if (setAki.type.kind === 'bool' && !setAki.isNull && setAki.isKnown && setAki.bool) {
    if (!p.parentSki || p.parentSki.length === 0) return { diag: plainError('Invalid Certificate Authority', 'Could not determine Authority Key Identifier') };
    aki = p.parentSki;
  }
  // x509.CreateCertificate takes the parent's subject key id as authority key id when issuer and subject differ.
  if (!p.subject.equals(p.issuer) && p.parentSki && p.parentSki.length) aki = p.parentSki;
  const exts: Buffer[] = [];
  if (ku) {
    const bytes = [reverseBits(ku & 0xff), reverseBits((ku >> 8) & 0xff)];
    const used = bytes[1] === 0 ? [bytes[0]] : bytes;
    const last = used[used.length - 1];
    let unused = 0;
    while (unused < 8 && !(last & (1 << unused))) unused++;
    exts.push(ext(OID.keyUsage, true, D.bits(Buffer.from(used), unused)));
  }
  if (eku.length) exts.push(ext(OID.extKeyUsage, false, D.seq(...eku.map((o) => D.oid(o)))));
  exts.push(ext(OID.basicConstraints, true, ca ? D.seq(D.bool(true)) : D.seq()));
  if (ski) exts.push(ext(OID.ski, false, D.octets(ski)));
  if (aki) exts.push(ext(OID.aki, false, D.seq(D.implicitPrim(0, aki))));
  if (hasSans(p.sans)) exts.push(ext(OID.san, p.subject.length <= 2, sanValue(p.sans)));
  const alg = signatureAlgorithm(p.signer);
  const tbs = D.seq(D.explicit(0, D.int(2)), D.int(serial), alg.algId, p.issuer, D.seq(D.x509Time(notBefore), D.x509Time(notAfter)), p.subject, p.spki, D.explicit(3, D.seq(...exts)));
  let der: Buffer;
  try {
    der = signed(tbs, p.signer);
  } catch (e) {
    return { diag: plainError('Failed to create certificate', errText(e)) };
  }
  return {
    attrs: {
      id: S(serial.toString()),
      cert_pem: S(pemEncode('CERTIFICATE', der)),
      validity_start_time: S(marshalText(notBefore)),
      validity_end_time: S(marshalText(notAfter)),
    },
  };
}

function reverseBits(b: number): number {
  let r = 0;
  for (let i = 0; i < 8; i++) if (b & (1 << i)) r |= 1 << (7 - i);
  return r;
}

// ---- certificate schemas -------------------------------------------------------------------------------------------

const SUBJECT_BLOCK: NestedBlock = {
  nesting: 'list',
  block: {
    attributes: {
      organization: { type: T.String, optional: true, description: 'Distinguished name: `O`' },
      common_name: { type: T.String, optional: true, description: 'Distinguished name: `CN`' },
      organizational_unit: { type: T.String, optional: true, description: 'Distinguished name: `OU`' },
      street_address: { type: T.List(T.String), optional: true, description: 'Distinguished name: `STREET`' },
      locality: { type: T.String, optional: true, description: 'Distinguished name: `L`' },
      province: { type: T.String, optional: true, description: 'Distinguished name: `ST`' },
      country: { type: T.String, optional: true, description: 'Distinguished name: `C`' },
      postal_code: { type: T.String, optional: true, description: 'Distinguished name: `PC`' },
      serial_number: { type: T.String, optional: true, description: 'Distinguished name: `SERIALNUMBER`' },
    },
    blockTypes: {},
    description: 'The subject for which a certificate is being requested.',
  },
};

/** listvalidator.ValueStringsAre(inner): each element validated at `name[i]`. */
function eachString(inner: Validator): Validator {
  return validator(`element values in list must satisfy all validations: ${inner.description}`, ({ path, value, config }) => {
    if (!value.isKnown || value.isNull) return [];
    const out: ProviderDiagnostic[] = [];
    value.elems.forEach((e, i) => out.push(...inner.validate({ path: [...path, indexStep(i)], value: e, config })));
    return out;
  });
}

const PEM_RE = /^-----BEGIN [A-Za-z ]+-----\n(.|\s)+\n-----END [A-Za-z ]+-----\n?$/;
/** requireReplaceIfStateContainsPEMString: replace on change only when the stored value is a PEM (not an old hash). */
const replaceIfStatePem = requiresReplaceIf(({ state }) => !state.isNull && PEM_RE.test(state.str), 'Attribute requires replacement if it contains a PEM string');

/** The ReadyForRenewal plan modifier, with the attribute's default false. */
const readyForRenewal = planModifier('Sets the ready_for_renewal default and forces it when the validity period leaves no time before renewal.', ({ plan, resourcePlan }) => {
  const validity = get(resourcePlan, 'validity_period_hours');
  const early = get(resourcePlan, 'early_renewal_hours');
  if (validity.isKnown && !validity.isNull && validity.num.toNumber() === 0) return { plan: B(true) };
  if (validity.isKnown && !validity.isNull && early.isKnown && !early.isNull && early.num.toNumber() >= validity.num.toNumber()) return { plan: B(true) };
  return plan.isKnown && !plan.isNull ? {} : { plan: B(false) };
});

function certAttrs(kind: 'self' | 'local'): Record<string, AttributeSpec> {
  const keptString = (description: string) => attr.string({ computed: true, description, planModifiers: [useStateForUnknown()] });
  const out: Record<string, AttributeSpec> = {};
  if (kind === 'self') {
    out.private_key_pem = attr.string({ required: true, sensitive: true, description: 'Private key in PEM (RFC 1421) format, that the certificate will belong to.', planModifiers: [replaceIfStatePem] });
  } else {
    out.cert_request_pem = attr.string({ required: true, description: 'Certificate request data in PEM (RFC 1421) format.', planModifiers: [replaceIfStatePem] });
    out.ca_private_key_pem = attr.string({ required: true, sensitive: true, description: 'Private key of the Certificate Authority (CA) used to sign the certificate, in PEM (RFC 1421) format.', planModifiers: [replaceIfStatePem] });
    out.ca_cert_pem = attr.string({ required: true, description: 'Certificate data of the Certificate Authority (CA) in PEM (RFC 1421) format.', planModifiers: [replaceIfStatePem] });
  }
  out.validity_period_hours = attr.int64({ required: true, description: 'Number of hours, after initial issuing, that the certificate will remain valid for.', planModifiers: [requiresReplace()], validators: [atLeast(0)] });
  out.allowed_uses = attr.list(T.String, {
    required: true,
    description: `List of key usages allowed for the issued certificate. Accepted values: \`${ALLOWED_USES.join('`, `')}\`.`,
    planModifiers: [requiresReplace()],
    validators: [eachString(oneOf(...ALLOWED_USES))],
  });
  if (kind === 'self') {
    out.dns_names = attr.list(T.String, { optional: true, description: 'List of DNS names for which a certificate is being requested (i.e. certificate subjects).', planModifiers: [requiresReplace()] });
    out.ip_addresses = attr.list(T.String, { optional: true, description: 'List of IP addresses for which a certificate is being requested (i.e. certificate subjects).', planModifiers: [requiresReplace()], validators: [eachString(lengthAtLeast(1))] });
    out.uris = attr.list(T.String, { optional: true, description: 'List of URIs for which a certificate is being requested (i.e. certificate subjects).', planModifiers: [requiresReplace()], validators: [eachString(lengthAtLeast(1))] });
  }
  out.early_renewal_hours = attr.int64({ optional: true, computed: true, default: 0, description: 'The resource will consider the certificate to have expired the given number of hours before its actual expiry time.', validators: [atLeast(0)] });
  out.is_ca_certificate = attr.bool({ optional: true, computed: true, default: false, description: 'Is the generated certificate representing a Certificate Authority (CA) (default: `false`).', planModifiers: [requiresReplace()] });
  out.set_subject_key_id = attr.bool({ optional: true, computed: true, default: false, description: 'Should the generated certificate include a subject key identifier (default: `false`).', planModifiers: [requiresReplace()] });
  if (kind === 'self') {
    out.set_authority_key_id = attr.bool({ optional: true, computed: true, default: false, description: 'Should the generated certificate include an authority key identifier (default: `false`).', planModifiers: [requiresReplace()] });
  }
  out.cert_pem = keptString('Certificate data in PEM (RFC 1421) format.');
  out.ready_for_renewal = attr.bool({ computed: true, description: 'Is the certificate either expired or ready for an early renewal.', planModifiers: [readyForRenewal] });
  out.validity_start_time = keptString('The time after which the certificate is valid, expressed as an RFC3339 timestamp.');
  out.validity_end_time = keptString('The time until which the certificate is invalid, expressed as an RFC3339 timestamp.');
  out[kind === 'self' ? 'key_algorithm' : 'ca_key_algorithm'] = keptString('Name of the algorithm used when generating the private key.');
  out.id = keptString('Unique identifier for this resource: the certificate serial number.');
  return out;
}

/** listvalidator.SizeBetween(0, 1) on the subject block. */
function subjectSize(config: Value): ProviderDiagnostic[] {
  const s = get(config, 'subject');
  if (!s.isKnown || s.isNull || s.elems.length <= 1) return [];
  return [attrError([attrStep('subject')], 'Invalid Attribute Value', `Attribute subject list must contain at least 0 elements and at most 1 elements, got: ${s.elems.length}`)];
}

/** The subject block's RequiresReplace (block and nested attributes), which the SDK leaves to modifyPlan. */
function subjectReplace(prior: Value, planned: Value): Path[] {
  if (prior.isNull || planned.isNull) return [];
  const a = get(prior, 'subject');
  const b = get(planned, 'subject');
  if (sameValue(a, b)) return [];
  const out: Path[] = [[attrStep('subject')]];
  const ae = a.isKnown && !a.isNull ? a.elems : [];
  const be = b.isKnown && !b.isNull ? b.elems : [];
  be.forEach((e, i) => {
    const old = ae[i];
    if (!old) return;
    for (const name of Object.keys(SUBJECT_BLOCK.block.attributes).sort()) {
      if (!sameValue(get(old, name), get(e, name))) out.push([attrStep('subject'), indexStep(i), attrStep(name)]);
    }
  });
  return out;
}

const sameValue = (a: Value, b: Value) => rawEquals(a, b);

/** modifyPlanIfCertificateReadyForRenewal: replace once `early_renewal_hours` before the end is reached. */
function renewalPlan(req: PlanHookRequest): { planned: Value; requiresReplace: Path[]; diagnostics: ProviderDiagnostic[] } {
  const requiresReplace = subjectReplace(req.prior, req.planned);
  let planned = req.planned;
  const diagnostics: ProviderDiagnostic[] = [];
  const end = get(planned, 'validity_end_time');
  if (end.isKnown && !end.isNull) {
    const t = Date.parse(end.str);
    if (Number.isNaN(t)) diagnostics.push(plainError(`Failed to parse data from string: ${end.str}`, `parsing time ${JSON.stringify(end.str)} as "2006-01-02T15:04:05Z07:00": cannot parse`));
    else {
      const early = get(planned, 'early_renewal_hours');
      const hours = early.isKnown && !early.isNull ? early.num.toNumber() : 0;
      if (t - hours * 3600000 - Date.now() <= 0) {
        planned = withAttrs(planned, { ready_for_renewal: Value.unknown(T.Bool) });
        const p: Path = [attrStep('ready_for_renewal')];
        if (!requiresReplace.some((q) => pathEquals(q, p))) requiresReplace.push(p);
      }
    }
  }
  return { planned, requiresReplace, diagnostics };
}

/** modifyStateIfCertificateReadyForRenewal: refresh sets ready_for_renewal once renewal time is reached. */
function renewalRead(state: Value): StateResult {
  const end = get(state, 'validity_end_time');
  if (end.isNull || !end.isKnown) return { state };
  const t = Date.parse(end.str);
  if (Number.isNaN(t)) return { state, diagnostics: [plainError(`Failed to parse data from string: ${end.str}`, 'invalid RFC 3339 time')] };
  const early = get(state, 'early_renewal_hours');
  const hours = early.isNull ? 0 : early.num.toNumber();
  if (t - hours * 3600000 - Date.now() <= 0) return { state: withAttrs(state, { ready_for_renewal: B(true) }) };
  return { state };
}

function subjectOf(planned: Value): Value | undefined {
  const s = get(planned, 'subject');
  return s.isKnown && !s.isNull && s.elems.length > 0 ? s.elems[0] : undefined;
}

function tlsSelfSignedCert(): ResourceType {
  return {
    description: 'Creates a self-signed TLS certificate in PEM (RFC 1421) format.',
    attributes: certAttrs('self'),
    blocks: { subject: SUBJECT_BLOCK },
    validateConfig: subjectSize,
    modifyPlan: renewalPlan,
    read: ({ state }) => renewalRead(state),
    create({ planned }) {
      const k = parsePrivateKeyPEM(str(get(planned, 'private_key_pem')) ?? '');
      if ('error' in k) return { state: null, diagnostics: [plainError('Failed to parse private key PEM', k.error)] };
      const s = sansOf(planned);
      if ('diag' in s) return { state: null, diagnostics: [s.diag] };
      const subject = subjectName(subjectOf(planned));
      const pub = createPublicKey(k.key);
      // A self-signed certificate's own subject key id is its "parent's" (for set_authority_key_id).
      const setSki = get(planned, 'set_subject_key_id');
      const isCa = get(planned, 'is_ca_certificate');
      const parentSki = (setSki.isKnown && !setSki.isNull && setSki.bool) || (isCa.isKnown && !isCa.isNull && isCa.bool) ? subjectKeyId(pub) : undefined;
      const c = createCertificate(planned, { subject, issuer: subject, spki: pub.export({ type: 'spki', format: 'der' }), pub, sans: s.sans, signer: k.key, parentSki, selfSigned: true });
      if ('diag' in c) return { state: null, diagnostics: [c.diag] };
      return { state: withAttrs(planned, { ...c.attrs, key_algorithm: S(k.algorithm) }) };
    },
  };
}

/** The fields of a CA certificate the signer needs: subject (raw DER), subject key id, whether it is a CA, its key. */
function parseCaCert(text: string): { subject: Buffer; ski?: Buffer; isCA: boolean; pub: KeyObject } | { error: string } {
  const block = pemDecode(text);
  if (!block) return { error: 'failed to decode PEM of expected type "CERTIFICATE" from bytes' };
  if (block.type !== 'CERTIFICATE') return { error: `invalid PEM type - expected "CERTIFICATE", got ${JSON.stringify(block.type)}` };
  try {
    const x = new X509Certificate(block.der);
    const tbs = D.children(D.read(block.der).content)[0];
    const f = D.children(tbs.content);
    const i = f[0].tag === 0xa0 ? 1 : 0;
    const subject = f[i + 4].raw;
    let ski: Buffer | undefined;
    const extsEl = f.find((e) => e.tag === 0xa3);
    if (extsEl) {
      for (const e of D.children(D.children(extsEl.content)[0].content)) {
        const parts = D.children(e.content);
        if (D.oidText(parts[0].content) === OID.ski) ski = D.read(parts[parts.length - 1].content).content;
      }
    }
    return { subject: Buffer.from(subject), ski, isCA: x.ca, pub: x.publicKey };
  } catch (e) {
    return { error: `failed to parse certificate: ${errText(e)}` };
  }
}

/** The fields of a PKCS#10 request the signer copies: subject (raw DER), public key, SANs. */
function parseCsr(text: string): { subject: Buffer; spki: Buffer; pub: KeyObject; sans: Sans } | { error: string } {
  const block = pemDecode(text);
  if (!block) return { error: 'failed to decode PEM of expected type "CERTIFICATE REQUEST" from bytes' };
  if (block.type !== 'CERTIFICATE REQUEST') return { error: `invalid PEM type - expected "CERTIFICATE REQUEST", got ${JSON.stringify(block.type)}` };
  try {
    const info = D.children(D.read(block.der).content)[0];
    const f = D.children(info.content);
    const subject = Buffer.from(f[1].raw);
    const spki = Buffer.from(f[2].raw);
    const pub = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    const sans: Sans = { dns: [], ips: [], uris: [] };
    if (f[3] && f[3].tag === 0xa0) {
      for (const a of D.children(f[3].content)) {
        const [id, values] = D.children(a.content);
        if (D.oidText(id.content) !== OID.extensionRequest) continue;
        for (const exts of D.children(values.content)) {
          for (const e of D.children(exts.content)) {
            const parts = D.children(e.content);
            if (D.oidText(parts[0].content) !== OID.san) continue;
            for (const gn of D.children(D.read(parts[parts.length - 1].content).content)) {
              if (gn.tag === 0x82) sans.dns.push(gn.content.toString('latin1'));
              else if (gn.tag === 0x87) sans.ips.push(Buffer.from(gn.content));
              else if (gn.tag === 0x86) sans.uris.push(gn.content.toString('utf8'));
            }
          }
        }
      }
    }
    return { subject, spki, pub, sans };
  } catch (e) {
    return { error: `failed to parse certificate request: ${errText(e)}` };
  }
}

function tlsLocallySignedCert(): ResourceType {
  return {
    description: 'Creates a TLS certificate in PEM (RFC 1421) format using a Certificate Signing Request (CSR) and signs it with a provided (local) Certificate Authority (CA).',
    attributes: certAttrs('local'),
    modifyPlan: renewalPlan,
    read: ({ state }) => renewalRead(state),
    create({ planned }) {
      const csr = parseCsr(str(get(planned, 'cert_request_pem')) ?? '');
      if ('error' in csr) return { state: null, diagnostics: [plainError('Failed to parse certificate request PEM', csr.error)] };
      const k = parsePrivateKeyPEM(str(get(planned, 'ca_private_key_pem')) ?? '');
      if ('error' in k) return { state: null, diagnostics: [plainError('Failed to parse CA private key PEM', k.error)] };
      const ca = parseCaCert(str(get(planned, 'ca_cert_pem')) ?? '');
      if ('error' in ca) return { state: null, diagnostics: [plainError('Failed to parse CA certificate PEM', ca.error)] };
      const diagnostics: ProviderDiagnostic[] = [];
      if (!ca.isCA) {
        diagnostics.push({
          severity: 'warning',
          summary: 'Potentially Invalid Certificate Authority',
          detail: 'Certificate provided as Authority does not appear to be a valid Certificate Authority. The resulting certificate might fail certificate validation.',
        });
      }
      const caPub = createPublicKey(k.key).export({ type: 'spki', format: 'der' });
      if (!caPub.equals(ca.pub.export({ type: 'spki', format: 'der' }))) {
        return { state: null, diagnostics: [...diagnostics, plainError('Failed to create certificate', "x509: provided PrivateKey doesn't match parent's PublicKey")] };
      }
      const c = createCertificate(planned, { subject: csr.subject, issuer: ca.subject, spki: csr.spki, pub: csr.pub, sans: csr.sans, signer: k.key, parentSki: ca.ski, selfSigned: false });
      if ('diag' in c) return { state: null, diagnostics: [...diagnostics, c.diag] };
      return { state: withAttrs(planned, { ...c.attrs, ca_key_algorithm: S(k.algorithm) }), diagnostics };
    },
  };
}

function tlsCertRequest(): ResourceType {
  const list = (description: string, extra: Validator[] = []) => attr.list(T.String, { optional: true, description, planModifiers: [requiresReplace()], validators: extra });
  return {
    description: 'Creates a Certificate Signing Request (CSR) in PEM (RFC 1421) format.',
    attributes: {
      private_key_pem: attr.string({ required: true, sensitive: true, description: 'Private key in PEM (RFC 1421) format, that the certificate will belong to.', planModifiers: [replaceIfStatePem] }),
      dns_names: list('List of DNS names for which a certificate is being requested (i.e. certificate subjects).'),
      ip_addresses: list('List of IP addresses for which a certificate is being requested (i.e. certificate subjects).', [eachString(lengthAtLeast(1))]),
      uris: list('List of URIs for which a certificate is being requested (i.e. certificate subjects).', [eachString(lengthAtLeast(1))]),
      key_algorithm: attr.string({ computed: true, description: 'Name of the algorithm used when generating the private key provided in `private_key_pem`. ', planModifiers: [useStateForUnknown()] }),
      cert_request_pem: attr.string({ computed: true, description: 'The certificate request data in PEM (RFC 1421) format.', planModifiers: [useStateForUnknown()] }),
      id: attr.string({ computed: true, description: 'Unique identifier for this resource: hexadecimal representation of the SHA1 checksum of the resource.', planModifiers: [useStateForUnknown()] }),
    },
    blocks: { subject: SUBJECT_BLOCK },
    validateConfig: subjectSize,
    modifyPlan: ({ prior, planned }) => ({ requiresReplace: subjectReplace(prior, planned) }),
    create({ planned }) {
      const k = parsePrivateKeyPEM(str(get(planned, 'private_key_pem')) ?? '');
      if ('error' in k) return { state: null, diagnostics: [plainError('Failed to parse private key PEM', k.error)] };
      const s = sansOf(planned);
      if ('diag' in s) return { state: null, diagnostics: [s.diag] };
      const subject = subjectName(subjectOf(planned));
      const spki = createPublicKey(k.key).export({ type: 'spki', format: 'der' });
      const attrs = hasSans(s.sans) ? D.seq(D.oid(OID.extensionRequest), D.set(D.seq(ext(OID.san, false, sanValue(s.sans))))) : Buffer.alloc(0);
      const info = D.seq(D.int(0), subject, spki, D.tlv(0xa0, attrs));
      let der: Buffer;
      try {
        der = signed(info, k.key);
      } catch (e) {
        return { state: null, diagnostics: [plainError('Error creating certificate request', errText(e))] };
      }
      return { state: withAttrs(planned, { key_algorithm: S(k.algorithm), cert_request_pem: S(pemEncode('CERTIFICATE REQUEST', der)), id: S(hashForState(der)) }) };
    },
  };
}

// ---- the provider --------------------------------------------------------------------------------------------------

/** The `tls` provider. */
export function tlsProvider(): Provider {
  return defineProvider({
    name: 'tls',
    resources: {
      tls_private_key: tlsPrivateKey(),
      tls_self_signed_cert: tlsSelfSignedCert(),
      tls_locally_signed_cert: tlsLocallySignedCert(),
      tls_cert_request: tlsCertRequest(),
    },
    dataSources: { tls_public_key: publicKeyData },
  });
}
