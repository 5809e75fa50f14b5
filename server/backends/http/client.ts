// HttpClient: the http backend's wire protocol (Terraform 1.11.4's remote-state/http httpClient over
// hashicorp/go-retryablehttp v0.7.7). The state manager (state.ts) is the only user.
//
// Protocol, as Terraform speaks it:
// - GET <address>: 200 with a body = the state (empty body = no state; a Content-MD5 header must be base64),
//   204 or 404 = no state, 401 "HTTP remote state endpoint requires auth", 403 "... invalid auth", other codes
//   "Unexpected HTTP response code N".
// - <update_method> (POST) <address>[?ID=<lock id> while we hold a lock]: body = the state file, 200/201/204 ok,
//   else "HTTP error: N".
// - DELETE <address>: 200 ok, else "HTTP error: N" (Terraform never calls it: the backend has no workspaces).
// - <lock_method> (LOCK) <lock_address>: body = our lock info JSON; 200 = locked; 409/423 = held by someone else
//   (body = the holder's lock info JSON) -> LockError "HTTP remote state already locked: ID=<holder's ID>" carrying
//   OUR lock info (Terraform prints that, not the holder's); 401/403 as above; else "Unexpected HTTP response code N".
//   No lock_address: locking is a no-op.
// - <unlock_method> (UNLOCK) <unlock_address>: body = the lock info JSON this client locked with (empty when it did not
//   lock, e.g. force-unlock); 200 ok, else "Unexpected HTTP response code N". No unlock_address: no-op.
// - Every request with a body has Content-Type: application/json and Content-MD5: base64(md5(body)); basic auth when
//   a username is set (else the address's user:password, as Go's client does).
// Retries (retryablehttp): a connection error (not a certificate or scheme error), 429, or a 5xx other than 501 is
// retried up to retry_max times, waiting min*2^i seconds capped at max (or Retry-After for 429/503); when retries
// run out the error is "<METHOD> <url> giving up after N attempt(s)[: transport error]", wrapped as "Failed to <what>: ...".
// Like Go's http.Client underneath: redirects followed (once()), Go's header set and order with gzip decoding
// (exchange()), and the environment's proxy (proxy.ts): absolute-URI requests for http, CONNECT tunnels for https.

import { createHash } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { gunzipSync } from 'node:zlib';
import { isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { proxyFor } from './proxy';
import { LockError, lockInfoJSON, type LockInfo } from '../../states/statemgr';
import type { HttpConfig } from './config';

export interface HttpResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A transport failure, with Go's text and whether retryablehttp would retry it. */
class TransportError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

/** Go's url.QueryEscape. */
function queryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function queryUnescape(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** `raw` (an address as written) with ?ID=<id> set as Go's Query().Set + Encode does (keys sorted). */
export function withLockID(raw: string, id: string): string {
  const hashAt = raw.indexOf('#');
  const noFrag = hashAt >= 0 ? raw.slice(0, hashAt) : raw;
  const q = noFrag.indexOf('?');
  const base = q >= 0 ? noFrag.slice(0, q) : noFrag;
  const params = new Map<string, string[]>();
  if (q >= 0) {
    for (const part of noFrag.slice(q + 1).split('&')) {
      if (part === '' || part.includes(';')) continue;
      const eq = part.indexOf('=');
      const k = queryUnescape(eq >= 0 ? part.slice(0, eq) : part);
      const v = eq >= 0 ? queryUnescape(part.slice(eq + 1)) : '';
      params.set(k, [...(params.get(k) ?? []), v]);
    }
  }
  params.set('ID', [id]);
  const keys = [...params.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const enc = keys.flatMap((k) => params.get(k)!.map((v) => `${queryEscape(k)}=${queryEscape(v)}`)).join('&');
  return `${base}?${enc}`;
}

/** redactURL: the password of the URL's user info replaced by xxxxx. */
function redact(raw: string): string {
  return raw.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/@?#:]*):([^/@?#]*)@/, '$1$2:xxxxx@');
}

/** strip the password entirely, as net/http's url.Error does (user:***@ is Go's form). */
function stripPassword(raw: string): string {
  return raw.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/@?#:]*):([^/@?#]*)@/, '$1$2:***@');
}

/** Go's isDomainOrSubdomain (hostnames, no ports). */
function isDomainOrSubdomain(sub: string, parent: string): boolean {
  sub = sub.toLowerCase();
  parent = parent.toLowerCase();
  if (sub === parent) return true;
  if (/^[\d.]+$|:/.test(sub)) return false;
  return sub.endsWith('.' + parent);
}

function goOp(method: string): string {
  return method.slice(0, 1) + method.slice(1).toLowerCase();
}

const CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** crypto/tls alert texts for OpenSSL's alert names. */
const GO_ALERTS: Record<string, string> = {
  CERTIFICATE_REQUIRED: 'certificate required',
  BAD_CERTIFICATE: 'bad certificate',
  HANDSHAKE_FAILURE: 'handshake failure',
  UNKNOWN_CA: 'unknown certificate authority',
  CERTIFICATE_EXPIRED: 'expired certificate',
  CERTIFICATE_REVOKED: 'revoked certificate',
  CERTIFICATE_UNKNOWN: 'unknown certificate',
  UNSUPPORTED_CERTIFICATE: 'unsupported certificate',
  ACCESS_DENIED: 'access denied',
  DECRYPT_ERROR: 'error decrypting message',
  PROTOCOL_VERSION: 'protocol version not supported',
  INTERNAL_ERROR: 'internal error',
};

/** Go's text for a Node transport error, and whether retryablehttp's policy retries it. */
function transportError(method: string, rawURL: string, url: URL, e: NodeJS.ErrnoException, proxy?: URL): TransportError {
  const dialTo = proxy ?? url;
  const port = dialTo.port || (dialTo.protocol === 'https:' ? '443' : '80');
  const host = dialTo.hostname.replace(/^\[|\]$/g, '');
  const pre = proxy && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT'].includes(e.code ?? '') ? 'proxyconnect tcp: ' : '';
  const hostPort = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  let inner: string;
  let retry = true;
  const code = e.code ?? '';
  if (code === 'ECONNREFUSED') inner = `dial tcp ${hostPort}: connect: connection refused`;
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') inner = `dial tcp: lookup ${host}: no such host`;
  else if (code === 'ECONNRESET' || code === 'EPIPE') inner = 'EOF';
  else if (code === 'ETIMEDOUT') inner = `dial tcp ${hostPort}: i/o timeout`;
  else if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    inner = 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    retry = false;
  } else if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    inner = `tls: failed to verify certificate: x509: certificate is not valid for ${host}`;
    retry = false;
  } else if (/^ERR_SSL_(TLSV13|TLSV1|SSLV3)_ALERT_/.test(code)) {
    // The server refused the handshake with an alert: Go's "remote error: tls: <alert>" (retried by the policy).
    const alert = code.replace(/^ERR_SSL_(TLSV13|TLSV1|SSLV3)_ALERT_/, '');
    inner = `remote error: tls: ${GO_ALERTS[alert] ?? alert.toLowerCase().replace(/_/g, ' ')}`;
  } else if (CERT_CODES.has(code)) {
    inner = 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    retry = false;
  } else inner = e.message;
  return new TransportError(`${goOp(method)} ${JSON.stringify(stripPassword(rawURL))}: ${pre}${inner}`, retry);
}

/**
 * The lock conflict. Its message is Terraform's (the holder's ID, then OUR lock info); `holder` is the lock info the
 * server returned, for callers that show who holds the lock (the editor's status bar).
 */
export class HttpLockError extends LockError {
  constructor(
    errors: string[],
    info: LockInfo,
    readonly holder: LockInfo,
  ) {
    super(errors, info);
  }
}

export interface HttpClientOptions {
  /** Replaces the waits between retries (tests). */
  sleep?: (ms: number) => Promise<void>;
  /** The environment the proxy variables are read from (proxy.ts); none: direct connections. */
  env?: Readonly<Record<string, string | undefined>>;
}

export class HttpClient {
  private lockID = '';
  private jsonLockInfo: Buffer = Buffer.alloc(0);
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly env: Readonly<Record<string, string | undefined>>;

  constructor(
    readonly config: HttpConfig,
    opts: HttpClientOptions = {},
  ) {
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.env = opts.env ?? {};
  }

  /** The lock ID in use for writes (?ID=), '' when not locked. */
  get currentLockID(): string {
    return this.lockID;
  }

  /**
   * One attempt, following redirects as Go's http.Client does (at most 10 requests); 301/302/303 turn any method but GET/HEAD
   * into a GET without body, 307/308 repeat the method and body; the original headers are copied (Authorization
   * only to the same host or a subdomain of it) and Referer is set (not from https to http). Rejects with a
   * TransportError naming the original method and the current URL, as Go's url.Error does.
   */
  private async once(method: string, rawURL: string, body: Buffer | undefined): Promise<HttpResponse> {
    const first = new URL(rawURL);
    const headers: Record<string, string> = {};
    const c = this.config;
    if (c.username !== '') headers.Authorization = 'Basic ' + Buffer.from(`${c.username}:${c.password}`, 'utf8').toString('base64');
    else if (first.username !== '') {
      headers.Authorization = 'Basic ' + Buffer.from(`${decodeURIComponent(first.username)}:${decodeURIComponent(first.password)}`, 'utf8').toString('base64');
    }
    if (body) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Md5'] = createHash('md5').update(body).digest('base64');
    }
    let curMethod = method;
    let curURL = first;
    let curRaw = rawURL;
    let curBody = body;
    let curHeaders = headers;
    for (let redirects = 0; ; redirects++) {
      const resp = await this.send(method, curMethod, curRaw, curURL, curHeaders, curBody);
      const loc = resp.headers.location;
      if (![301, 302, 303, 307, 308].includes(resp.status) || !loc) return resp;
      // Go's default policy: stop after 10 consecutive requests; the error names the Location as sent.
      if (redirects + 1 >= 10) throw new TransportError(`${goOp(method)} ${JSON.stringify(loc)}: stopped after 10 redirects`, false);
      let next: URL;
      try {
        next = new URL(loc, curURL);
      } catch {
        throw new TransportError(`${goOp(method)} ${JSON.stringify(stripPassword(curRaw))}: failed to parse Location header ${JSON.stringify(loc)}`, true);
      }
      if (resp.status <= 303) {
        if (curMethod !== 'GET' && curMethod !== 'HEAD') curMethod = 'GET';
        curBody = undefined;
      }
      const h: Record<string, string> = {};
      for (const [k, v] of Object.entries(headers)) {
        if (k === 'Authorization' && !isDomainOrSubdomain(next.hostname, first.hostname)) continue;
        h[k] = v;
      }
      if (!(curURL.protocol === 'https:' && next.protocol === 'http:')) {
        const ref = new URL(curURL.href);
        ref.username = '';
        ref.password = '';
        ref.hash = '';
        h.Referer = ref.href;
      }
      curHeaders = h;
      curURL = next;
      curRaw = next.href;
    }
  }

  /** One HTTP exchange, directly or through the environment's proxy. `op` is the original method (Go's error text). */
  private async send(op: string, method: string, rawURL: string, url: URL, headers: Record<string, string>, body: Buffer | undefined): Promise<HttpResponse> {
    let proxy: URL | undefined;
    try {
      proxy = proxyFor(url, this.env);
    } catch (e) {
      throw new TransportError(`${goOp(op)} ${JSON.stringify(stripPassword(rawURL))}: ${(e as Error).message}`, true);
    }
    if (proxy && proxy.protocol !== 'http:') {
      throw new TransportError(`${goOp(op)} ${JSON.stringify(stripPassword(rawURL))}: proxy scheme ${JSON.stringify(proxy.protocol.slice(0, -1))} is not supported by Foresight (use an http:// proxy)`, false);
    }
    const proxyAuth = proxy && proxy.username !== '' ? 'Basic ' + Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`, 'utf8').toString('base64') : undefined;
    let socket: Socket | undefined;
    if (proxy && url.protocol === 'https:') socket = await this.tunnel(op, rawURL, url, proxy, proxyAuth);
    return this.exchange(op, method, rawURL, url, headers, body, proxy, proxyAuth, socket);
  }

  /** CONNECT host:port through an http proxy; resolves with the tunnel's socket. */
  private tunnel(op: string, rawURL: string, url: URL, proxy: URL, proxyAuth: string | undefined): Promise<Socket> {
    const target = `${url.hostname}:${url.port || '443'}`;
    return new Promise((resolve, reject) => {
      const r = httpRequest({
        method: 'CONNECT',
        hostname: proxy.hostname.replace(/^\[|\]$/g, ''),
        port: proxy.port || 80,
        path: target,
        headers: { Host: target, 'User-Agent': 'Go-http-client/1.1', ...(proxyAuth ? { 'Proxy-Authorization': proxyAuth } : {}) },
        agent: false,
      });
      r.on('connect', (res, sock) => {
        if (res.statusCode === 200) return resolve(sock);
        sock.destroy();
        // Go: the status text alone ("Forbidden").
        const text = (res.statusMessage ?? '').trim();
        reject(new TransportError(`${goOp(op)} ${JSON.stringify(stripPassword(rawURL))}: ${text || 'unknown status code'}`, true));
      });
      r.on('error', (e) => reject(transportError(op, rawURL, url, e as NodeJS.ErrnoException, proxy)));
      r.end();
    });
  }

  private exchange(
    op: string,
    method: string,
    rawURL: string,
    url: URL,
    headers: Record<string, string>,
    body: Buffer | undefined,
    proxy: URL | undefined,
    proxyAuth: string | undefined,
    tunnel: Socket | undefined,
  ): Promise<HttpResponse> {
    const c = this.config;
    const https = url.protocol === 'https:';
    const req = https ? httpsRequest : httpRequest;
    // A plain-http request through a proxy goes to the proxy with the absolute URL as its target.
    const viaProxy = proxy && !https;
    const absolute = new URL(url.href);
    absolute.username = '';
    absolute.password = '';
    absolute.hash = '';
    // Go's wire order and spelling: Host, User-Agent, Content-Length, then the set headers sorted, Accept-Encoding
    // (Go asks for gzip and decompresses transparently).
    const allHeaders: Record<string, string> = { Host: url.host, 'User-Agent': 'Go-http-client/1.1' };
    if (body) allHeaders['Content-Length'] = String(body.length);
    for (const k of Object.keys(headers).sort()) allHeaders[k] = headers[k];
    allHeaders['Accept-Encoding'] = 'gzip';
    if (viaProxy && proxyAuth) allHeaders['Proxy-Authorization'] = proxyAuth;
    const tlsOpts = {
      rejectUnauthorized: !(c.tls?.skipVerify ?? false),
      ...(c.tls?.ca ? { ca: c.tls.ca } : {}),
      ...(c.tls?.cert ? { cert: c.tls.cert, key: c.tls.key } : {}),
    };
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve, reject) => {
      const r = req(
        {
          method,
          protocol: url.protocol,
          hostname: viaProxy ? proxy!.hostname.replace(/^\[|\]$/g, '') : hostname,
          port: viaProxy ? proxy!.port || 80 : url.port || undefined,
          path: viaProxy ? absolute.href : url.pathname + url.search,
          headers: allHeaders,
          // (Node ignores createConnection when given an agent, so the tunnel goes without one.)
          agent: tunnel ? undefined : false,
          ...(https ? tlsOpts : {}),
          ...(tunnel ? { createConnection: () => tlsConnect({ socket: tunnel, servername: isIP(hostname) ? undefined : hostname, ...tlsOpts }) } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => {
            let data = Buffer.concat(chunks);
            const h = { ...res.headers };
            if (String(h['content-encoding'] ?? '').toLowerCase() === 'gzip' && data.length > 0) {
              try {
                data = gunzipSync(data);
              } catch (e) {
                reject(new TransportError(`gzip: ${(e as Error).message}`, false));
                return;
              }
              delete h['content-encoding'];
              delete h['content-length'];
            }
            // One request per connection: a tunnel is closed once its response is read.
            if (tunnel) r.destroy();
            resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: h, body: data });
          });
          res.on('error', (e) => reject(transportError(op, rawURL, url, e as NodeJS.ErrnoException, viaProxy ? proxy : undefined)));
        },
      );
      r.on('error', (e) => reject(transportError(op, rawURL, url, e as NodeJS.ErrnoException, viaProxy ? proxy : undefined)));
      if (body) r.end(body);
      else r.end();
    });
  }

  /** retryablehttp's Client.Do with the default policy and backoff. Throws Error with Go's text. */
  async do(method: string, rawURL: string, body: Buffer | undefined): Promise<HttpResponse> {
    const c = this.config;
    let attempt = 0;
    for (let i = 0; ; i++) {
      attempt++;
      let resp: HttpResponse | undefined;
      let err: TransportError | undefined;
      try {
        resp = await this.once(method, rawURL, body);
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        err = e;
      }
      // DefaultRetryPolicy decides from the transport error or status but does not pass its reason on, so when
      // retries run out only a transport error is named.
      let retry: boolean;
      if (err) retry = err.retry;
      else retry = resp!.status === 429 || resp!.status === 0 || (resp!.status >= 500 && resp!.status !== 501);
      if (!retry || c.retryMax - i <= 0) {
        if (!retry && !err) return resp!;
        const base = `${method} ${redact(rawURL)} giving up after ${attempt} attempt(s)`;
        throw new Error(err ? `${base}: ${err.message}` : base);
      }
      await this.sleep(backoff(c.retryWaitMin * 1000, c.retryWaitMax * 1000, i, resp));
    }
  }

  private async request(method: string, rawURL: string, body: Buffer | undefined, what: string): Promise<HttpResponse> {
    try {
      return await this.do(method, rawURL, body);
    } catch (e) {
      throw new Error(`Failed to ${what}: ${(e as Error).message}`);
    }
  }

  /** The state file text, or undefined when there is none. */
  async get(): Promise<string | undefined> {
    const resp = await this.request('GET', this.config.address, undefined, 'get state');
    switch (resp.status) {
      case 200:
        break;
      case 204:
      case 404:
        return undefined;
      case 401:
        throw new Error('HTTP remote state endpoint requires auth');
      case 403:
        throw new Error('HTTP remote state endpoint invalid auth');
      case 500:
        throw new Error('HTTP remote state internal server error');
      default:
        throw new Error(`Unexpected HTTP response code ${resp.status}`);
    }
    if (resp.body.length === 0) return undefined;
    const raw = resp.headers['content-md5'];
    if (typeof raw === 'string' && raw !== '') {
      if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(raw)) {
        throw new Error(`Failed to decode Content-MD5 '${raw}': illegal base64 data at input byte ${firstBadBase64(raw)}`);
      }
    }
    return resp.body.toString('utf8');
  }

  async put(data: string): Promise<void> {
    const target = this.lockID !== '' ? withLockID(this.config.address, this.lockID) : this.config.address;
    const method = this.config.updateMethod !== '' ? this.config.updateMethod : 'POST';
    const resp = await this.request(method, target, Buffer.from(data, 'utf8'), 'upload state');
    if (resp.status === 200 || resp.status === 201 || resp.status === 204) return;
    throw new Error(`HTTP error: ${resp.status}`);
  }

  async delete(): Promise<void> {
    const resp = await this.request('DELETE', this.config.address, undefined, 'delete state');
    if (resp.status !== 200) throw new Error(`HTTP error: ${resp.status}`);
  }

  /** Returns the lock ID ('' when the backend has no lock_address). */
  async lock(info: LockInfo): Promise<string> {
    const c = this.config;
    if (!c.lockAddress) return '';
    this.lockID = '';
    const json = Buffer.from(lockInfoJSON(info), 'utf8');
    const resp = await this.request(c.lockMethod, c.lockAddress, json, 'lock');
    switch (resp.status) {
      case 200:
        this.lockID = info.ID;
        this.jsonLockInfo = json;
        return info.ID;
      case 401:
        throw new Error('HTTP remote state endpoint requires auth');
      case 403:
        throw new Error('HTTP remote state endpoint invalid auth');
      case 409:
      case 423: {
        const holder = goUnmarshalLockInfo(resp.body.toString('utf8'));
        if (holder === undefined) throw new LockError(['HTTP remote state already locked, failed to unmarshal body'], info);
        throw new HttpLockError([`HTTP remote state already locked: ID=${holder.ID}`], info, holder);
      }
      default:
        throw new Error(`Unexpected HTTP response code ${resp.status}`);
    }
  }

  async unlock(_id: string): Promise<void> {
    const c = this.config;
    if (!c.unlockAddress) return;
    const resp = await this.request(c.unlockMethod, c.unlockAddress, this.jsonLockInfo, 'unlock');
    if (resp.status !== 200) throw new Error(`Unexpected HTTP response code ${resp.status}`);
    // Terraform keeps its lockID after unlocking (a later write would still carry ?ID=); we clear it, which only
    // matters to a manager reused after unlock.
    this.lockID = '';
  }
}

/** DefaultBackoff (ms). */
export function backoff(minMs: number, maxMs: number, attemptNum: number, resp: HttpResponse | undefined): number {
  if (resp && (resp.status === 429 || resp.status === 503)) {
    const h = resp.headers['retry-after'];
    const v = Array.isArray(h) ? h[0] : h;
    if (v) {
      if (/^[-+]?\d+$/.test(v)) {
        const n = parseInt(v, 10);
        if (n >= 0) return n * 1000;
      } else {
        const t = Date.parse(v);
        if (!Number.isNaN(t) && /GMT$|UTC$|[A-Z]{3}$/.test(v)) return Math.max(0, t - Date.now());
      }
    }
  }
  const mult = Math.pow(2, attemptNum) * minMs;
  return mult > maxMs || !Number.isFinite(mult) ? maxMs : mult;
}

function firstBadBase64(s: string): number {
  for (let i = 0; i < s.length; i++) if (!/[A-Za-z0-9+/=]/.test(s[i])) return i;
  return s.length;
}

/**
 * json.Unmarshal into statemgr.LockInfo: undefined when Go would fail (not JSON, a non-object other than null,
 * a field of the wrong type, an unparsable Created). Missing fields stay empty.
 */
export function goUnmarshalLockInfo(text: string): LockInfo | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const out: LockInfo = { ID: '', Operation: '', Info: '', Who: '', Version: '', Created: '', Path: '' };
  if (v === null) return out;
  if (typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  // Go matches JSON keys to fields case-insensitively.
  for (const [k, val] of Object.entries(o)) {
    const field = (Object.keys(out) as (keyof LockInfo)[]).find((f) => f.toLowerCase() === k.toLowerCase());
    if (!field || val === null) continue;
    if (typeof val !== 'string') return undefined;
    if (field === 'Created' && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(val)) return undefined;
    out[field] = val;
  }
  return out;
}
