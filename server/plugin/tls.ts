// AutoMTLS certificates: the one-time self-signed certificate each end of a go-plugin connection makes for itself.
//
// API (stable; used by serve.ts and the client in server/plugin/client/):
//   generateCertificate(): Certificate  — a fresh ECDSA P-256 key and a self-signed X.509 v3 certificate shaped
//       like go-plugin's generateCert (CN and SAN DNS "localhost", O "HashiCorp", CA, key usage digital signature
//       + key encipherment + key agreement + cert sign, extended key usage server + client auth, valid from 30 s
//       ago for 30 years), signed ecdsa-with-SHA256. Go (Terraform, Go providers) and OpenSSL accept it. ≈3 ms.
//   derToPem(der) / pemToDer(pem)       — "CERTIFICATE" PEM blocks.
//   serverCredentials(cert, clientPem)  — grpc-js server credentials requiring exactly that client certificate.
//   clientCredentials(cert, serverDer)  — grpc-js channel credentials pinning the server's certificate; use with
//       CLIENT_TLS_OPTIONS (the target name is "localhost", as go-plugin's client sets ServerName).
// node:crypto makes keys and signatures but not certificates; the DER below is the small subset X.509 needs.

import * as crypto from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import { grpcModule } from './grpc';

export interface Certificate {
  certDer: Buffer;
  certPem: string;
  keyPem: string;
}

// ---- DER --------------------------------------------------------------------------------------------------

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let x = n; x > 0; x >>= 8) bytes.unshift(x & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
}
const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);
function oid(dotted: string): Buffer {
  const p = dotted.split('.').map(Number);
  const out = [40 * p[0] + p[1]];
  for (const v of p.slice(2)) {
    const b: number[] = [v & 0x7f];
    for (let x = v >>> 7; x > 0; x >>>= 7) b.unshift(0x80 | (x & 0x7f));
    out.push(...b);
  }
  return tlv(0x06, Buffer.from(out));
}
function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0 && !(b[i + 1] & 0x80)) i++;
  let v = b.subarray(i);
  if (v[0] & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
  return tlv(0x02, v);
}
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const bool = (b: boolean) => tlv(0x01, Buffer.from([b ? 0xff : 0]));
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer, unused = 0) => tlv(0x03, Buffer.from([unused]), b);
function time(d: Date): Buffer {
  const iso = d.toISOString(); // 2026-11-23T05:00:00.000Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '') + 'Z'; // YYYYMMDDHHMMSSZ
  // RFC 5280: UTCTime through 2049, GeneralizedTime from 2050.
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2))) : tlv(0x18, Buffer.from(digits));
}

const ECDSA_WITH_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

function name(): Buffer {
  return seq(set(seq(oid('2.5.4.10'), utf8('HashiCorp'))), set(seq(oid('2.5.4.3'), utf8('localhost'))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? seq(oid(id), bool(true), octets(value)) : seq(oid(id), octets(value));
}

// ---- the certificate --------------------------------------------------------------------------------------

export function generateCertificate(now = new Date()): Certificate {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const serial = crypto.randomBytes(16);
  serial[0] &= 0x7f;
  const notBefore = new Date(now.getTime() - 30_000);
  const notAfter = new Date(now.getTime() + 262980 * 3600_000);
  // KeyUsage bits: digitalSignature(0) keyEncipherment(2) keyAgreement(4) keyCertSign(5) → 1010 1100, 2 unused.
  const keyUsage = bits(Buffer.from([0b10101100]), 2);
  const extKeyUsage = seq(oid('1.3.6.1.5.5.7.3.2'), oid('1.3.6.1.5.5.7.3.1'));
  const basic = seq(bool(true));
  const san = seq(tlv(0x82, Buffer.from('localhost')));
  const skid = octets(crypto.createHash('sha1').update(spki.subarray(spki.length - 65)).digest());
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    ECDSA_WITH_SHA256,
    name(),
    seq(time(notBefore), time(notAfter)),
    name(),
    spki,
    tlv(
      0xa3,
      seq(
        extension('2.5.29.15', true, keyUsage),
        extension('2.5.29.37', false, extKeyUsage),
        extension('2.5.29.19', true, basic),
        extension('2.5.29.14', false, skid),
        extension('2.5.29.17', false, san),
      ),
    ),
  );
  const sig = crypto.sign('sha256', tbs, privateKey);
  const certDer = seq(tbs, ECDSA_WITH_SHA256, bits(sig));
  return { certDer, certPem: derToPem(certDer), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}

export function derToPem(der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

export function pemToDer(pem: string): Buffer {
  const m = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem);
  if (!m) throw new Error('no CERTIFICATE block in PEM');
  return Buffer.from(m[1].replace(/\s+/g, ''), 'base64');
}

/** Server side of AutoMTLS: serve with `cert`, require a client certificate and trust only `clientPem`. */
export function serverCredentials(cert: Certificate, clientPem: string): grpc.ServerCredentials {
  return grpcModule().ServerCredentials.createSsl(Buffer.from(clientPem), [{ private_key: Buffer.from(cert.keyPem), cert_chain: Buffer.from(cert.certPem) }], true);
}

/** Client side of AutoMTLS: present `cert`, trust only the server's certificate. */
export function clientCredentials(cert: Pick<Certificate, 'certPem' | 'keyPem'>, serverCertDer: Uint8Array): grpc.ChannelCredentials {
  return grpcModule().credentials.createSsl(Buffer.from(derToPem(serverCertDer)), Buffer.from(cert.keyPem), Buffer.from(cert.certPem), { checkServerIdentity: () => undefined });
}

/** Channel options to use with clientCredentials. */
export const CLIENT_TLS_OPTIONS: grpc.ChannelOptions = { 'grpc.ssl_target_name_override': 'localhost', 'grpc.default_authority': 'localhost' };
