// Tests for the built-in tls provider (server/providers/builtin/tls.ts) through the loopback: tls_private_key for
// every algorithm and encoding (cross-checked with OpenSSL and ssh-keygen when they are installed), the
// tls_public_key data source, tls_self_signed_cert, tls_cert_request and tls_locally_signed_cert (certificates
// checked with node:crypto's X509Certificate and `openssl x509 -text`), renewal planning and refresh, in-place
// updates, replacement, validation messages and provider errors. The harness checks plans and applies against
// objchange.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import { goString } from '../../../server/providers/gostring';
import { TLS_PROVIDER_ADDRESS, parsePrivateKeyOpenSSH } from '../../../server/providers/builtin/tls';
import { stringList, withAttrs } from '../../../server/providers/sdk';
import { Harness, at } from './_harness';

const s = (x: string) => Value.string(x);
const n = (x: number) => Value.number(x);
const b = (x: boolean) => Value.bool(x);
const PK = 'tls_private_key';
const SSC = 'tls_self_signed_cert';
const CR = 'tls_cert_request';
const LSC = 'tls_locally_signed_cert';

interface Case {
  scenario: string;
  run: (h: Harness) => Promise<unknown>;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, async () => {
    assert.deepEqual(await c.run(new Harness(TLS_PROVIDER_ADDRESS)), c.want);
  });
}
const have = (cmd: string) => spawnSync(cmd, ['-h']).error === undefined;
/** Runs a tool on text written to a temporary file; undefined (with a notice) when the tool is not installed. */
function tool(cmd: string, args: (file: string) => string[], text: string): string | undefined {
  if (!have(cmd)) {
    console.log(`# ${cmd} not installed; cross-check skipped`);
    return undefined;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'foresight-tls-'));
  try {
    const f = path.join(dir, 'in');
    fs.writeFileSync(f, text, { mode: 0o600 });
    const r = spawnSync(cmd, args(f), { encoding: 'utf8' });
    return r.status === 0 ? r.stdout : `exit ${r.status}: ${r.stderr}`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
const subject = (attrs: Record<string, Value>) => {
  const elem = Value.object({
    organization: Value.null(T.String),
    common_name: Value.null(T.String),
    organizational_unit: Value.null(T.String),
    street_address: Value.null(T.List(T.String)),
    locality: Value.null(T.String),
    province: Value.null(T.String),
    country: Value.null(T.String),
    postal_code: Value.null(T.String),
    serial_number: Value.null(T.String),
    ...attrs,
  });
  return Value.list([elem], elem.type);
};

async function key(h: Harness, attrs: Record<string, Value>): Promise<Value> {
  return (await h.converge(PK, null, attrs)).state;
}

check({
  scenario: 'An RSA tls_private_key plans rsa_bits 2048 and ecdsa_curve P224 by default and stores PKCS#1, PKCS#8 and OpenSSH private keys, the public key, fingerprints and the SHA-1 id of the public key DER.',
  run: async (h) => {
    const p = await h.plan(PK, null, { algorithm: s('RSA') });
    const a = await h.apply(PK, null, p.planned, { algorithm: s('RSA') });
    const st = a.state;
    const pem = at(st, 'private_key_pem').str;
    const pub = createPublicKey(createPrivateKey(pem));
    const spki = pub.export({ type: 'spki', format: 'der' });
    const ossh = at(st, 'private_key_openssh').str;
    const back = parsePrivateKeyOpenSSH(ossh);
    const keygen = tool('ssh-keygen', (f) => ['-y', '-f', f], ossh);
    return [
      goString(at(p.planned, 'rsa_bits')),
      goString(at(p.planned, 'ecdsa_curve')),
      goString(at(p.planned, 'private_key_pem')),
      pem.startsWith('-----BEGIN RSA PRIVATE KEY-----\n'),
      at(st, 'private_key_pem_pkcs8').str.startsWith('-----BEGIN PRIVATE KEY-----\n'),
      ossh.startsWith('-----BEGIN OPENSSH PRIVATE KEY-----\n'),
      (pub.asymmetricKeyDetails?.modulusLength),
      at(st, 'id').str === createHash('sha1').update(spki).digest('hex'),
      at(st, 'public_key_pem').str === pub.export({ type: 'spki', format: 'pem' }),
      /^ssh-rsa [A-Za-z0-9+/=]+\n$/.test(at(st, 'public_key_openssh').str),
      /^([0-9a-f]{2}:){15}[0-9a-f]{2}$/.test(at(st, 'public_key_fingerprint_md5').str),
      /^SHA256:[A-Za-z0-9+/]{43}$/.test(at(st, 'public_key_fingerprint_sha256').str),
      'key' in back && back.key.export({ type: 'pkcs8', format: 'pem' }) === at(st, 'private_key_pem_pkcs8').str,
      keygen === undefined || keygen.trim() === at(st, 'public_key_openssh').str.trim(),
    ];
  },
  want: ['cty.NumberIntVal(2048)', 'cty.StringVal("P224")', 'cty.UnknownVal(cty.String)', true, true, true, 2048, true, true, true, true, true, true, true],
});

check({
  scenario: 'ECDSA keys use SEC 1 PEM; P224 has no OpenSSH forms (empty strings) while P384 does; ED25519 uses PKCS#8 and ssh-ed25519, and ssh-keygen reads the OpenSSH private keys.',
  run: async (h) => {
    const p224 = await key(h, { algorithm: s('ECDSA') });
    const p384 = await key(h, { algorithm: s('ECDSA'), ecdsa_curve: s('P384') });
    const ed = await key(h, { algorithm: s('ED25519') });
    const k384 = tool('ssh-keygen', (f) => ['-y', '-f', f], at(p384, 'private_key_openssh').str);
    const ked = tool('ssh-keygen', (f) => ['-y', '-f', f], at(ed, 'private_key_openssh').str);
    return [
      at(p224, 'private_key_pem').str.startsWith('-----BEGIN EC PRIVATE KEY-----\n'),
      ['private_key_openssh', 'public_key_openssh', 'public_key_fingerprint_md5', 'public_key_fingerprint_sha256'].map((k) => at(p224, k).str),
      at(p384, 'public_key_openssh').str.startsWith('ecdsa-sha2-nistp384 '),
      k384 === undefined || k384.trim() === at(p384, 'public_key_openssh').str.trim(),
      at(ed, 'private_key_pem').str.startsWith('-----BEGIN PRIVATE KEY-----\n'),
      at(ed, 'public_key_openssh').str.startsWith('ssh-ed25519 '),
      ked === undefined || ked.trim() === at(ed, 'public_key_openssh').str.trim(),
    ];
  },
  want: [true, ['', '', '', ''], true, true, true, true, true],
});

check({
  scenario: 'tls_private_key: an unchanged configuration plans no change, changing the algorithm or curve replaces it, invalid values fail validation, import is not implemented.',
  run: async (h) => {
    const st = await key(h, { algorithm: s('ECDSA'), ecdsa_curve: s('P256') });
    const same = await h.plan(PK, st, { algorithm: s('ECDSA'), ecdsa_curve: s('P256') });
    const curve = await h.plan(PK, st, { algorithm: s('ECDSA'), ecdsa_curve: s('P521') });
    const alg = await h.plan(PK, st, { algorithm: s('ED25519'), ecdsa_curve: s('P256') });
    return [
      goString(same.planned) === goString(st),
      curve.requiresReplace,
      alg.requiresReplace,
      await h.validate(PK, { algorithm: s('DSA'), ecdsa_curve: s('P999') }),
      (await h.import(PK, 'x')).diagnostics,
    ];
  },
  want: [
    true,
    ['.ecdsa_curve'],
    ['.algorithm'],
    [
      'error: Invalid Attribute Value Match: Attribute algorithm value must be one of: ["RSA" "ECDSA" "ED25519"], got: "DSA" [at .algorithm]',
      'error: Invalid Attribute Value Match: Attribute ecdsa_curve value must be one of: ["P224" "P256" "P384" "P521"], got: "P999" [at .ecdsa_curve]',
    ],
    ['error: Resource Import Not Implemented: This resource does not support import. Please contact the provider developer for additional information.'],
  ],
});

check({
  scenario: 'Stored tls_private_key state of schema version 0 is upgraded: PKCS#8 and the public key attributes are recomputed from the PEM.',
  run: async (h) => {
    const st = await key(h, { algorithm: s('ED25519') });
    const v0 = JSON.stringify({ algorithm: 'ED25519', rsa_bits: 2048, ecdsa_curve: 'P224', private_key_pem: at(st, 'private_key_pem').str, private_key_openssh: '', public_key_pem: '', public_key_openssh: '', public_key_fingerprint_md5: '', public_key_fingerprint_sha256: '', id: 'x' });
    const u = await h.upgrade(PK, 0, v0);
    return [u.diagnostics, ['id', 'public_key_pem', 'public_key_openssh', 'private_key_pem_pkcs8'].map((k) => at(u.state, k).str === at(st, k).str), at(u.state, 'private_key_openssh').str.startsWith('-----BEGIN OPENSSH')];
  },
  want: [[], [true, true, true, true], true],
});

check({
  scenario: 'The tls_public_key data source gives the same public forms from private_key_pem or private_key_openssh; garbage and a missing key are reported.',
  run: async (h) => {
    const st = await key(h, { algorithm: s('RSA'), rsa_bits: n(1024) });
    const fromPem = await h.readData('tls_public_key', { private_key_pem: at(st, 'private_key_pem') });
    const fromSsh = await h.readData('tls_public_key', { private_key_openssh: at(st, 'private_key_openssh') });
    const same = (r: { state: Value }) => ['id', 'public_key_pem', 'public_key_openssh', 'public_key_fingerprint_sha256'].every((k) => at(r.state, k).str === at(st, k).str);
    return [
      same(fromPem),
      same(fromSsh),
      at(fromSsh.state, 'algorithm').str,
      (await h.readData('tls_public_key', { private_key_pem: s('nothing here') })).diagnostics,
      await h.validateData('tls_public_key', {}),
    ];
  },
  want: [
    true,
    true,
    'RSA',
    ['error: Unable to parse private key: failed to decode PEM block: decoded bytes 0, undecoded 12'],
    [
      'error: Invalid Attribute Combination: No attribute specified when one (and only one) of [private_key_pem,private_key_openssh] is required [at .private_key_pem]',
      'error: Invalid Attribute Combination: No attribute specified when one (and only one) of [private_key_pem,private_key_openssh] is required [at .private_key_openssh]',
    ],
  ],
});

async function selfSigned(h: Harness, k: Value, extra: Record<string, Value> = {}) {
  const attrs = {
    private_key_pem: at(k, 'private_key_pem'),
    validity_period_hours: n(24),
    allowed_uses: stringList(['cert_signing', 'digital_signature', 'server_auth']),
    subject: subject({ common_name: s('example.com'), organization: s('ACME Examples, Inc') }),
    ...extra,
  };
  return { attrs, ...(await h.converge(SSC, null, attrs)) };
}

check({
  scenario: 'tls_self_signed_cert creates a CA certificate signed by its own key, with subject, SANs, key usages, validity times and the serial number as id; OpenSSL reads it the same way.',
  run: async (h) => {
    const k = await key(h, { algorithm: s('ECDSA'), ecdsa_curve: s('P256') });
    const { state, plan } = await selfSigned(h, k, { is_ca_certificate: b(true), dns_names: stringList(['example.com']), ip_addresses: stringList(['127.0.0.1', '::1']) });
    const x = new X509Certificate(at(state, 'cert_pem').str);
    const start = Date.parse(at(state, 'validity_start_time').str);
    const end = Date.parse(at(state, 'validity_end_time').str);
    const text = tool('openssl', (f) => ['x509', '-noout', '-text', '-in', f], at(state, 'cert_pem').str);
    return [
      goString(at(plan.planned, 'ready_for_renewal')),
      goString(at(plan.planned, 'cert_pem')),
      x.subject,
      x.issuer,
      x.ca,
      x.verify(createPublicKey(at(k, 'private_key_pem').str)),
      x.subjectAltName,
      BigInt('0x' + x.serialNumber).toString() === at(state, 'id').str,
      end - start,
      at(state, 'key_algorithm').str,
      at(state, 'ready_for_renewal').bool,
      text === undefined || (/Certificate Sign/.test(text) && /Digital Signature/.test(text) && /TLS Web Server Authentication/.test(text) && /CA:TRUE/.test(text) && /Subject Key Identifier/.test(text)),
    ];
  },
  want: ['cty.False', 'cty.UnknownVal(cty.String)', 'O=ACME Examples\\, Inc\nCN=example.com', 'O=ACME Examples\\, Inc\nCN=example.com', true, true, 'DNS:example.com, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1', true, 24 * 3600000, 'ECDSA', false, true],
});

check({
  scenario: 'A self-signed certificate updates early_renewal_hours in place, is replaced when its subject or key changes, and plans ready_for_renewal true when early renewal covers the whole validity.',
  run: async (h) => {
    const k = await key(h, { algorithm: s('ED25519') });
    const { state, attrs } = await selfSigned(h, k);
    const early = await h.plan(SSC, state, { ...attrs, early_renewal_hours: n(2) });
    const applied = await h.apply(SSC, state, early.planned, { ...attrs, early_renewal_hours: n(2) });
    const subj = await h.plan(SSC, state, { ...attrs, subject: subject({ common_name: s('other') }) });
    const k2 = await key(h, { algorithm: s('ED25519') });
    const rekey = await h.plan(SSC, state, { ...attrs, private_key_pem: at(k2, 'private_key_pem') });
    const whole = await h.plan(SSC, null, { ...attrs, early_renewal_hours: n(24) });
    return [
      early.requiresReplace,
      at(applied.state, 'cert_pem').str === at(state, 'cert_pem').str,
      at(applied.state, 'early_renewal_hours').num.toNumber(),
      subj.requiresReplace,
      rekey.requiresReplace,
      goString(at(whole.planned, 'ready_for_renewal')),
    ];
  },
  want: [[], true, 2, ['.subject', '.subject[0].common_name', '.subject[0].organization'], ['.private_key_pem'], 'cty.True'],
});

check({
  scenario: 'A certificate past its early renewal time is marked ready_for_renewal on refresh and replaced by the next plan.',
  run: async (h) => {
    const k = await key(h, { algorithm: s('ECDSA'), ecdsa_curve: s('P256') });
    const { state, attrs } = await selfSigned(h, k);
    const expired = withAttrs(state, { validity_end_time: s('2000-01-01T00:00:00Z') });
    const r = await h.read(SSC, expired);
    const p = await h.plan(SSC, r.state, attrs);
    return [at(r.state, 'ready_for_renewal').bool, p.requiresReplace, p.replaced];
  },
  want: [true, ['.ready_for_renewal'], true],
});

check({
  scenario: 'Self-signed certificate errors: a CA without subject, an invalid IP address, an unknown allowed use, two subject blocks, and a key that is not PEM.',
  run: async (h) => {
    const k = await key(h, { algorithm: s('ED25519') });
    const base = { private_key_pem: at(k, 'private_key_pem'), validity_period_hours: n(1), allowed_uses: stringList(['server_auth']) };
    const ca = await h.plan(SSC, null, { ...base, is_ca_certificate: b(true) });
    const caApply = await h.apply(SSC, null, ca.planned, { ...base, is_ca_certificate: b(true) });
    const ip = await h.plan(SSC, null, { ...base, ip_addresses: stringList(['300.1.1.1']) });
    const ipApply = await h.apply(SSC, null, ip.planned, { ...base, ip_addresses: stringList(['300.1.1.1']) });
    const bad = await h.plan(SSC, null, { ...base, private_key_pem: s('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n') });
    const badApply = await h.apply(SSC, null, bad.planned, { ...base, private_key_pem: s('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n') });
    const one = subject({ common_name: s('a') });
    const two = Value.list([one.elems[0], one.elems[0]], one.elems[0].type);
    return [
      caApply.diagnostics,
      ipApply.diagnostics,
      badApply.diagnostics,
      await h.validate(SSC, { ...base, allowed_uses: stringList(['server_auth', 'flying']), ip_addresses: stringList(['']) }),
      await h.validate(SSC, { ...base, subject: two }),
    ];
  },
  want: [
    ['error: Invalid Certificate Subject: Must contain at least one Distinguished Name when creating Certificate Authority (CA)'],
    ['error: Invalid IP address: Failed to parse "300.1.1.1"'],
    ['error: Failed to parse private key PEM: unable to determine parser for PEM preamble: CERTIFICATE'],
    [
      'error: Invalid Attribute Value Match: Attribute allowed_uses[1] value must be one of: ["any_extended" "cert_signing" "client_auth" "code_signing" "content_commitment" "crl_signing" "data_encipherment" "decipher_only" "digital_signature" "email_protection" "encipher_only" "ipsec_end_system" "ipsec_tunnel" "ipsec_user" "key_agreement" "key_encipherment" "microsoft_commercial_code_signing" "microsoft_kernel_code_signing" "microsoft_server_gated_crypto" "netscape_server_gated_crypto" "ocsp_signing" "server_auth" "timestamping"], got: "flying" [at .allowed_uses[1]]',
      'error: Invalid Attribute Value Length: Attribute ip_addresses[0] string length must be at least 1, got: 0 [at .ip_addresses[0]]',
    ],
    ['error: Invalid Attribute Value: Attribute subject list must contain at least 0 elements and at most 1 elements, got: 2 [at .subject]'],
  ],
});

check({
  scenario: 'A tls_cert_request carries subject and SANs; tls_locally_signed_cert signs it with a CA into a certificate the CA issued, with the CA\'s key id as authority key id.',
  run: async (h) => {
    const caKey = await key(h, { algorithm: s('RSA'), rsa_bits: n(2048) });
    const { state: ca } = await selfSigned(h, caKey, { is_ca_certificate: b(true), subject: subject({ common_name: s('Example CA') }) });
    const leafKey = await key(h, { algorithm: s('ECDSA'), ecdsa_curve: s('P384') });
    const { state: csr } = await h.converge(CR, null, { private_key_pem: at(leafKey, 'private_key_pem'), dns_names: stringList(['leaf.example.com']), uris: stringList(['spiffe://example/leaf']), subject: subject({ common_name: s('leaf') }) });
    const csrText = tool('openssl', (f) => ['req', '-noout', '-verify', '-in', f], at(csr, 'cert_request_pem').str);
    const attrs = { cert_request_pem: at(csr, 'cert_request_pem'), ca_private_key_pem: at(caKey, 'private_key_pem'), ca_cert_pem: at(ca, 'cert_pem'), validity_period_hours: n(12), allowed_uses: stringList(['client_auth']), set_subject_key_id: b(true) };
    const { state: leaf } = await h.converge(LSC, null, attrs);
    const x = new X509Certificate(at(leaf, 'cert_pem').str);
    const cax = new X509Certificate(at(ca, 'cert_pem').str);
    const text = tool('openssl', (f) => ['x509', '-noout', '-text', '-in', f], at(leaf, 'cert_pem').str) ?? '';
    const caText = tool('openssl', (f) => ['x509', '-noout', '-text', '-in', f], at(ca, 'cert_pem').str) ?? '';
    const ski = /Subject Key Identifier:\s*\n\s*([0-9A-F:]+)/.exec(caText)?.[1];
    const aki = /Authority Key Identifier:\s*\n\s*(?:keyid:)?([0-9A-F:]+)/.exec(text)?.[1];
    return [
      at(csr, 'id').str.length,
      at(csr, 'key_algorithm').str,
      // openssl exits 0 (and reports on stderr) when the request's self-signature verifies.
      csrText === undefined || !csrText.startsWith('exit '),
      x.subject,
      x.issuer,
      x.checkIssued(cax),
      x.verify(cax.publicKey),
      x.subjectAltName,
      at(leaf, 'ca_key_algorithm').str,
      text === '' || (ski !== undefined && ski === aki),
    ];
  },
  want: [40, 'ECDSA', true, 'CN=leaf', 'CN=Example CA', true, true, 'DNS:leaf.example.com, URI:spiffe://example/leaf', 'RSA', true],
});

check({
  scenario: 'tls_locally_signed_cert warns when the CA certificate is not a CA and fails when the CA key does not match it or the request is not PEM.',
  run: async (h) => {
    const caKey = await key(h, { algorithm: s('ED25519') });
    const { state: notCa } = await selfSigned(h, caKey);
    const { state: csr } = await h.converge(CR, null, { private_key_pem: at(caKey, 'private_key_pem') });
    const base = { cert_request_pem: at(csr, 'cert_request_pem'), ca_private_key_pem: at(caKey, 'private_key_pem'), ca_cert_pem: at(notCa, 'cert_pem'), validity_period_hours: n(1), allowed_uses: stringList([]) };
    const warn = await h.converge(LSC, null, base).catch((e: Error) => e.message);
    const p = await h.plan(LSC, null, base);
    const a = await h.apply(LSC, null, p.planned, base);
    const other = await key(h, { algorithm: s('ED25519') });
    const mism = { ...base, ca_private_key_pem: at(other, 'private_key_pem') };
    const pm = await h.plan(LSC, null, mism);
    const am = await h.apply(LSC, null, pm.planned, mism);
    const notPem = { ...base, cert_request_pem: s('hello') };
    const pn = await h.plan(LSC, null, notPem);
    const an = await h.apply(LSC, null, pn.planned, notPem);
    return [typeof warn === 'string', a.diagnostics, am.diagnostics, an.diagnostics];
  },
  want: [
    true,
    ['warning: Potentially Invalid Certificate Authority: Certificate provided as Authority does not appear to be a valid Certificate Authority. The resulting certificate might fail certificate validation.'],
    [
      'warning: Potentially Invalid Certificate Authority: Certificate provided as Authority does not appear to be a valid Certificate Authority. The resulting certificate might fail certificate validation.',
      "error: Failed to create certificate: x509: provided PrivateKey doesn't match parent's PublicKey",
    ],
    ['error: Failed to parse certificate request PEM: failed to decode PEM of expected type "CERTIFICATE REQUEST" from bytes'],
  ],
});
