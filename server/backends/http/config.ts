// The http backend's configuration (Terraform 1.11.4's internal/backend/remote-state/http, Backend.Configure):
// turns the backend block's attributes plus the TF_HTTP_* environment variables into an HttpConfig, or into the
// single error Terraform reports. Pure (no I/O); the client (client.ts) and state manager (state.ts) use the result.
//
// Behaviour kept from Terraform:
// - Every attribute is optional in the schema; a null/absent attribute falls back to its environment variable when
//   that is non-empty, then to the default: address (TF_HTTP_ADDRESS, required), update_method (TF_HTTP_UPDATE_METHOD,
//   POST), lock_address / unlock_address (TF_HTTP_LOCK_ADDRESS / TF_HTTP_UNLOCK_ADDRESS, none: locking disabled),
//   lock_method / unlock_method (TF_HTTP_LOCK_METHOD / TF_HTTP_UNLOCK_METHOD, LOCK / UNLOCK), username / password
//   (TF_HTTP_USERNAME / TF_HTTP_PASSWORD), retry_max (TF_HTTP_RETRY_MAX, 2), retry_wait_min (TF_HTTP_RETRY_WAIT_MIN,
//   1 s), retry_wait_max (TF_HTTP_RETRY_WAIT_MAX, 30 s), client_ca_certificate_pem, client_certificate_pem,
//   client_private_key_pem (TF_HTTP_CLIENT_*_PEM). skip_cert_verification has no environment variable.
// - Checks run in Terraform's order and the first failure is the only error, with Terraform's text:
//   "address argument is required", "address must be HTTP or HTTPS", "failed to parse address URL: ...",
//   the same for lock_address/unlock_address, "invalid retry_max: ...", then the TLS checks
//   ("client_certificate_pem is set but client_private_key_pem is not", the reverse, "failed to append certs",
//   "cannot load client certificate: tls: ...").
// - Numbers must be whole ("must not be a whole number" is Terraform's own wording for a fraction).

import { createPrivateKey, X509Certificate } from 'node:crypto';
import { goQuote } from '../../lang/goquote';

export interface HttpConfig {
  /** The state address as the user wrote it (what messages show) and parsed. */
  address: string;
  url: URL;
  updateMethod: string;
  lockAddress?: string;
  lockURL?: URL;
  lockMethod: string;
  unlockAddress?: string;
  unlockURL?: URL;
  unlockMethod: string;
  username: string;
  password: string;
  retryMax: number;
  /** Seconds. */
  retryWaitMin: number;
  retryWaitMax: number;
  /** Present only when Terraform would configure TLS (any TLS option set). */
  tls?: {
    skipVerify: boolean;
    /** PEM text of the CA certificates (replaces the system roots, like Go's RootCAs). */
    ca?: string;
    cert?: string;
    key?: string;
  };
}

type Env = Readonly<Record<string, string | undefined>>;

/** The attributes of the http backend's schema. */
export const HTTP_BACKEND_ATTRIBUTES: readonly string[] = [
  'address',
  'update_method',
  'lock_address',
  'unlock_address',
  'lock_method',
  'unlock_method',
  'username',
  'password',
  'skip_cert_verification',
  'retry_max',
  'retry_wait_min',
  'retry_wait_max',
  'client_ca_certificate_pem',
  'client_certificate_pem',
  'client_private_key_pem',
];

class ConfigError extends Error {}

/** GetAttrEnvDefault: the attribute, else the environment variable when non-empty, else undefined. */
function attrEnv(attrs: Record<string, unknown>, name: string, envName: string | undefined, env: Env): unknown {
  const v = attrs[name];
  if (v !== null && v !== undefined) return v;
  if (envName) {
    const e = env[envName];
    if (e !== undefined && e !== '') return e;
  }
  return undefined;
}

/** cty conversion to string of a primitive. */
function asString(v: unknown, name: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  throw new ConfigError(`Incorrect attribute value type: ${name} must be a string`);
}

function str(attrs: Record<string, unknown>, name: string, envName: string | undefined, env: Env, fallback: string): string {
  const v = attrEnv(attrs, name, envName, env);
  return v === undefined ? fallback : asString(v, name);
}

/** backendbase.IntValue: convert to number, then require a whole number. */
function intValue(attrs: Record<string, unknown>, name: string, envName: string, env: Env, fallback: number): number {
  const v = attrEnv(attrs, name, envName, env);
  if (v === undefined) return fallback;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(v)) n = Number(v);
  else throw new ConfigError(`invalid ${name}: a number is required`);
  if (!Number.isInteger(n)) throw new ConfigError(`invalid ${name}: must not be a whole number`);
  return n;
}

/** url.Parse plus Terraform's scheme check; returns the parsed URL or throws Terraform's message. */
function parseURL(raw: string, name: string): URL {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new ConfigError(`failed to parse ${name} URL: parse ${goQuote(raw)}: net/url: invalid control character in URL`);
  if (raw.startsWith(':')) throw new ConfigError(`failed to parse ${name} URL: parse ${goQuote(raw)}: missing protocol scheme`);
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw);
  const scheme = m ? m[1].toLowerCase() : '';
  if (scheme !== 'http' && scheme !== 'https') throw new ConfigError(`${name} must be HTTP or HTTPS`);
  try {
    return new URL(raw);
  } catch {
    throw new ConfigError(`failed to parse ${name} URL: parse ${goQuote(raw)}: invalid URL`);
  }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

function pemBlocks(text: string): { type: string; text: string }[] {
  return [...text.matchAll(PEM_BLOCK)].map((m) => ({ type: m[1], text: m[0] }));
}

/** The TLS part of Configure (configureTLS), with Go's crypto/tls error texts for unusable key pairs. */
function tlsConfig(attrs: Record<string, unknown>, env: Env): HttpConfig['tls'] {
  const skipRaw = attrs.skip_cert_verification;
  let skip = false;
  if (skipRaw !== null && skipRaw !== undefined) {
    if (typeof skipRaw === 'boolean') skip = skipRaw;
    else if (skipRaw === 'true' || skipRaw === '1') skip = true;
    else if (skipRaw === 'false' || skipRaw === '0') skip = false;
    else throw new ConfigError('Incorrect attribute value type: skip_cert_verification must be a bool');
  }
  const ca = str(attrs, 'client_ca_certificate_pem', 'TF_HTTP_CLIENT_CA_CERTIFICATE_PEM', env, '');
  const cert = str(attrs, 'client_certificate_pem', 'TF_HTTP_CLIENT_CERTIFICATE_PEM', env, '');
  const key = str(attrs, 'client_private_key_pem', 'TF_HTTP_CLIENT_PRIVATE_KEY_PEM', env, '');
  if (!skip && ca === '' && cert === '' && key === '') return undefined;
  if (cert !== '' && key === '') throw new ConfigError('client_certificate_pem is set but client_private_key_pem is not');
  if (key !== '' && cert === '') throw new ConfigError('client_private_key_pem is set but client_certificate_pem is not');
  const out: NonNullable<HttpConfig['tls']> = { skipVerify: skip };
  if (ca !== '') {
    // AppendCertsFromPEM: true when at least one CERTIFICATE block parses.
    const certs = pemBlocks(ca).filter((b) => b.type === 'CERTIFICATE' && parsesAsCert(b.text));
    if (certs.length === 0) throw new ConfigError('failed to append certs');
    out.ca = certs.map((c) => c.text).join('\n') + '\n';
  }
  if (cert !== '' && key !== '') {
    const certBlocks = pemBlocks(cert).filter((b) => b.type === 'CERTIFICATE');
    if (certBlocks.length === 0) throw new ConfigError('cannot load client certificate: tls: failed to find any PEM data in certificate input');
    const keyBlock = pemBlocks(key).find((b) => b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY'));
    if (!keyBlock) throw new ConfigError('cannot load client certificate: tls: failed to find any PEM data in key input');
    let x509: X509Certificate;
    try {
      x509 = new X509Certificate(certBlocks[0].text);
    } catch {
      throw new ConfigError('cannot load client certificate: x509: malformed certificate');
    }
    let pk;
    try {
      pk = createPrivateKey(keyBlock.text);
    } catch {
      throw new ConfigError('cannot load client certificate: tls: failed to parse private key');
    }
    if (!x509.checkPrivateKey(pk)) throw new ConfigError('cannot load client certificate: tls: private key does not match public key');
    out.cert = cert;
    out.key = key;
  }
  return out;
}

function parsesAsCert(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}

/** Backend.Configure: the configuration, or Terraform's error text. */
export function parseHttpConfig(attrs: Record<string, unknown>, env: Env): { config?: HttpConfig; error?: string } {
  try {
    const address = str(attrs, 'address', 'TF_HTTP_ADDRESS', env, '');
    if (address === '') throw new ConfigError('address argument is required');
    const url = parseURL(address, 'address');
    const updateMethod = str(attrs, 'update_method', 'TF_HTTP_UPDATE_METHOD', env, 'POST');
    const lockRaw = attrEnv(attrs, 'lock_address', 'TF_HTTP_LOCK_ADDRESS', env);
    const lockAddress = lockRaw === undefined ? undefined : asString(lockRaw, 'lock_address');
    const lockURL = lockAddress === undefined ? undefined : parseURL(lockAddress, 'lock_address');
    const lockMethod = str(attrs, 'lock_method', 'TF_HTTP_LOCK_METHOD', env, 'LOCK');
    const unlockRaw = attrEnv(attrs, 'unlock_address', 'TF_HTTP_UNLOCK_ADDRESS', env);
    const unlockAddress = unlockRaw === undefined ? undefined : asString(unlockRaw, 'unlock_address');
    const unlockURL = unlockAddress === undefined ? undefined : parseURL(unlockAddress, 'unlock_address');
    const unlockMethod = str(attrs, 'unlock_method', 'TF_HTTP_UNLOCK_METHOD', env, 'UNLOCK');
    const retryMax = intValue(attrs, 'retry_max', 'TF_HTTP_RETRY_MAX', env, 2);
    const retryWaitMin = intValue(attrs, 'retry_wait_min', 'TF_HTTP_RETRY_WAIT_MIN', env, 1);
    const retryWaitMax = intValue(attrs, 'retry_wait_max', 'TF_HTTP_RETRY_WAIT_MAX', env, 30);
    const tls = tlsConfig(attrs, env);
    const username = str(attrs, 'username', 'TF_HTTP_USERNAME', env, '');
    const password = str(attrs, 'password', 'TF_HTTP_PASSWORD', env, '');
    return {
      config: { address, url, updateMethod, lockAddress, lockURL, lockMethod, unlockAddress, unlockURL, unlockMethod, username, password, retryMax, retryWaitMin, retryWaitMax, tls },
    };
  } catch (e) {
    if (e instanceof ConfigError) return { error: e.message };
    throw e;
  }
}
