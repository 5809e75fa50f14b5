// The `http` provider (registry.terraform.io/hashicorp/http), compatible with hashicorp/http 3.5.0: the data
// source `http`.
//
// The data source sends `method` (GET, HEAD or POST; default GET) to `url` with `request_headers` and
// `request_body`, as Go's net/http client wrapped by go-retryablehttp does: redirects followed (at most 10;
// POST becomes GET on 301/302/303), a Go User-Agent and transparent gzip unless the configuration sets those
// headers, `request_timeout_ms` covering the whole exchange, and retries (`retry` block: `attempts`,
// `min_delay_ms`, `max_delay_ms`, exponential back-off) on connection errors, 429 and 5xx except 501. When the
// attempts run out the read fails with retryablehttp's "giving up after N attempt(s)" even without a retry
// block, as the real provider does. Response headers are canonicalised as Go does (`Content-Type`) with
// repeated headers joined by ", "; a body that is not UTF-8 gives the provider's warning. TLS: `ca_cert_pem`
// (conflicts with `insecure`), `client_cert_pem` + `client_key_pem`, `insecure`. Proxies from the environment
// are not used. StopProvider aborts a request in flight. Written with the SDK (../sdk). Siblings: index.ts.

import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import { gunzipSync } from 'node:zlib';
import * as T from '../../lang/types';
import { Value } from '../../lang/value';
import type { Path } from '../path';
import { attrStep } from '../path';
import type { Provider, ProviderDiagnostic } from '../provider';
import type { Context, StateResult, Validator } from '../sdk';
import { atLeast, attr, attrError, defineProvider, frameworkPath, get, N, oneOf, plainError, S, str, stringMap, validator } from '../sdk';

export const HTTP_PROVIDER_ADDRESS = 'registry.terraform.io/hashicorp/http';

/** stringvalidator.ConflictsWith(other): both configured (any non-null value). */
function conflictsWith(other: string): Validator {
  return validator(`Ensure that if an attribute is set, these are not set: "[${other}]"`, ({ path, value, config }) => {
    if (value.isNull) return [];
    const o = get(config, other);
    if (o.isNull || !o.isKnown) return [];
    return [attrError(path, 'Invalid Attribute Combination', `Attribute "${other}" cannot be specified when "${frameworkPath(path)}" is specified`)];
  });
}

/** stringvalidator.AlsoRequires(other): this one configured, the other null. */
function alsoRequires(other: string): Validator {
  return validator(`Ensure that if an attribute is set, also these are set: "[${other}]"`, ({ path, value, config }) => {
    if (value.isNull) return [];
    const o = get(config, other);
    if (!o.isNull || !o.isKnown) return [];
    return [attrError(path, 'Invalid Attribute Combination', `Attribute "${other}" must be specified when "${frameworkPath(path)}" is specified`)];
  });
}

const RETRY_BLOCK = {
  nesting: 'single' as const,
  block: {
    attributes: {
      attempts: { type: T.Number, optional: true, description: 'The number of times the request is to be retried. For example, if 2 is specified, the request will be tried a maximum of 3 times.' },
      min_delay_ms: { type: T.Number, optional: true, description: 'The minimum delay between retry requests in milliseconds.' },
      max_delay_ms: { type: T.Number, optional: true, description: 'The maximum delay between retry requests in milliseconds.' },
    },
    blockTypes: {},
    description: 'Retry request configuration. By default there are no retries.',
  },
};

/** The retry block's validators (the SDK validates top-level attributes only). */
function validateRetry(config: Value): ProviderDiagnostic[] {
  const r = get(config, 'retry');
  if (!r.isKnown || r.isNull) return [];
  const out: ProviderDiagnostic[] = [];
  const at = (name: string): Path => [attrStep('retry'), attrStep(name)];
  for (const name of ['attempts', 'min_delay_ms', 'max_delay_ms']) out.push(...atLeast(0).validate({ path: at(name), value: get(r, name), config }));
  const max = get(r, 'max_delay_ms');
  const min = get(r, 'min_delay_ms');
  if (max.isKnown && !max.isNull && min.isKnown && max.num.toNumber() < (min.isNull ? 0 : min.num.toNumber())) {
    out.push(attrError(at('max_delay_ms'), 'Invalid Attribute Value', `Attribute retry.max_delay_ms value must be at least sum of <.min_delay_ms, got: ${max.num.toString()}`));
  }
  return out;
}

/** Go's CanonicalMIMEHeaderKey. */
function canonicalHeader(k: string): string {
  return k
    .split('-')
    .map((p) => (p ? p[0].toUpperCase() + p.slice(1).toLowerCase() : p))
    .join('-');
}

/** time.Duration.String for whole milliseconds. */
function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  let s = ms / 1000;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const sec = `${Number(s.toFixed(3))}s`;
  return h ? `${h}h${m}m${sec}` : m ? `${m}m${sec}` : sec;
}

const ERRNO: Record<string, string> = { ECONNREFUSED: 'connect: connection refused', ECONNRESET: 'read: connection reset by peer', ENOTFOUND: 'no such host', EHOSTUNREACH: 'connect: no route to host' };

interface Exchange {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}
type Outcome = { ok: Exchange } | { error: string; timeout?: boolean; final?: boolean };

/** One request with redirects, as Go's http.Client.Do; errors in url.Error's words (`Get "url": …`). */
async function exchange(method: string, url: string, headers: Record<string, string>, body: string | undefined, tlsOpts: https.RequestOptions, deadline: number | undefined, signal: AbortSignal): Promise<Outcome> {
  let current = url;
  let m = method;
  let payload = body;
  const verb = method[0] + method.slice(1).toLowerCase();
  for (let redirects = 0; ; redirects++) {
    let u: URL;
    try {
      u = new URL(current);
    } catch {
      return { error: `${verb} ${JSON.stringify(current)}: unsupported protocol scheme ""`, final: true };
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: `${verb} ${JSON.stringify(current)}: unsupported protocol scheme ${JSON.stringify(u.protocol.replace(/:$/, ''))}`, final: true };
    const r = await once(m, u, headers, payload, tlsOpts, deadline, signal);
    if ('error' in r) return { ...r, error: `${verb} ${JSON.stringify(current)}: ${r.error}` };
    const loc = r.ok.headers.Location;
    if ([301, 302, 303, 307, 308].includes(r.ok.status) && loc) {
      if (redirects >= 9) return { error: `${verb} ${JSON.stringify(loc)}: stopped after 10 redirects`, final: true };
      current = new URL(loc, u).toString();
      if (r.ok.status <= 303 && m === 'POST') {
        m = 'GET';
        payload = undefined;
      }
      continue;
    }
    return r;
  }
}

function once(method: string, u: URL, headers: Record<string, string>, body: string | undefined, tlsOpts: https.RequestOptions, deadline: number | undefined, signal: AbortSignal): Promise<Outcome> {
  return new Promise((resolve) => {
    const hdrs: Record<string, string> = { ...headers };
    const lower = new Set(Object.keys(hdrs).map((k) => k.toLowerCase()));
    if (!lower.has('user-agent')) hdrs['User-Agent'] = 'Go-http-client/1.1';
    const addedGzip = !lower.has('accept-encoding') && method !== 'HEAD';
    if (addedGzip) hdrs['Accept-Encoding'] = 'gzip';
    if (body !== undefined) hdrs['Content-Length'] = String(Buffer.byteLength(body, 'utf8'));
    const mod = u.protocol === 'https:' ? https : http;
    let done = false;
    const finish = (o: Outcome) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(o);
    };
    const req = mod.request(u, { method, headers: hdrs, ...(u.protocol === 'https:' ? tlsOpts : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => finish({ error: e.message }));
      res.on('end', () => {
        const out: Record<string, string> = {};
        const raw = res.rawHeaders;
        for (let i = 0; i < raw.length; i += 2) {
          const k = canonicalHeader(raw[i]);
          out[k] = k in out ? `${out[k]}, ${raw[i + 1]}` : raw[i + 1];
        }
        let data = Buffer.concat(chunks);
        if (addedGzip && (out['Content-Encoding'] ?? '').toLowerCase() === 'gzip') {
          try {
            data = gunzipSync(data);
          } catch (e) {
            finish({ error: `gzip: ${(e as Error).message}` });
            return;
          }
          delete out['Content-Encoding'];
          delete out['Content-Length'];
        }
        finish({ ok: { status: res.statusCode ?? 0, headers: out, body: data } });
      });
    });
    const onAbort = () => {
      req.destroy();
      finish({ error: 'context canceled', final: true });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = deadline !== undefined ? setTimeout(() => {
      req.destroy();
      finish({ error: 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)', timeout: true });
    }, Math.max(0, deadline - Date.now())) : undefined;
    req.on('error', (e: NodeJS.ErrnoException) => {
      const text = (e.code && ERRNO[e.code] && `dial tcp ${u.host}: ${ERRNO[e.code]}`) || (e.code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || e.code === 'SELF_SIGNED_CERT_IN_CHAIN' || e.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' ? 'tls: failed to verify certificate: x509: certificate signed by unknown authority' : e.message);
      finish({ error: text, final: /certificate signed by unknown authority/.test(text) });
    });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** go-retryablehttp's DefaultRetryPolicy on a response. */
const retryStatus = (s: number) => s === 429 || s === 0 || (s >= 500 && s !== 501);

async function readHttp(config: Value, ctx: Context): Promise<StateResult> {
  const url = str(get(config, 'url')) ?? '';
  const method = str(get(config, 'method')) || 'GET';
  const fail = (summary: string, detail: string): StateResult => ({ state: null, diagnostics: [plainError(summary, detail)] });
  const tlsOpts: https.RequestOptions = {};
  const insecure = get(config, 'insecure');
  if (!insecure.isNull) tlsOpts.rejectUnauthorized = !insecure.bool;
  const ca = get(config, 'ca_cert_pem');
  if (!ca.isNull) {
    const pems = ca.str.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    const good = pems.filter((p) => {
      try {
        new X509Certificate(p);
        return true;
      } catch {
        return false;
      }
    });
    if (!good.length) return fail('Error configuring TLS client', "Error tls: Can't add the CA certificate to certificate pool. Only PEM encoded certificates are supported.");
    tlsOpts.ca = good;
  }
  const cert = get(config, 'client_cert_pem');
  const key = get(config, 'client_key_pem');
  if (!cert.isNull && !key.isNull) {
    try {
      const x = new X509Certificate(cert.str);
      const k = createPrivateKey(key.str);
      if (!x.publicKey.export({ type: 'spki', format: 'der' }).equals(createPublicKey(k).export({ type: 'spki', format: 'der' }))) throw new Error('tls: private key does not match public key');
    } catch (e) {
      const msg = e instanceof Error && e.message.startsWith('tls:') ? e.message : 'tls: failed to find any PEM data in certificate input';
      return fail('error creating x509 key pair', `error creating x509 key pair from provided pem blocks\n\nError: ${msg}`);
    }
    tlsOpts.cert = cert.str;
    tlsOpts.key = key.str;
  }
  const retry = get(config, 'retry');
  const int = (v: Value) => (v.isNull || !v.isKnown ? undefined : v.num.toNumber());
  const attempts = retry.isNull ? 0 : int(get(retry, 'attempts')) ?? 0;
  const minDelay = retry.isNull ? 1000 : int(get(retry, 'min_delay_ms')) ?? 1000;
  const maxDelay = retry.isNull ? 30000 : int(get(retry, 'max_delay_ms')) ?? 30000;
  const headers: Record<string, string> = {};
  const rh = get(config, 'request_headers');
  if (!rh.isNull) for (const [k, v] of rh.entries) if (!v.isNull) headers[canonicalHeader(k)] = v.str;
  const rb = get(config, 'request_body');
  const timeoutMs = int(get(config, 'request_timeout_ms')) ?? 0;
  let last: Outcome | undefined;
  let attempt = 0;
  for (; attempt <= attempts; attempt++) {
    if (attempt > 0) {
      let wait = Math.min(maxDelay, minDelay * 2 ** (attempt - 1));
      const ra = last && 'ok' in last ? last.ok.headers['Retry-After'] : undefined;
      if (ra && /^[0-9]+$/.test(ra) && last && 'ok' in last && [429, 503].includes(last.ok.status)) wait = Number(ra) * 1000;
      const stopped = await new Promise<boolean>((resolve) => {
        const t = setTimeout(() => resolve(false), wait);
        ctx.signal.addEventListener('abort', () => (clearTimeout(t), resolve(true)), { once: true });
      });
      if (stopped) return fail('Error making request', `Error making request: ${method} ${url} giving up after ${attempt} attempt(s): context canceled`);
    }
    last = await exchange(method, url, headers, rb.isNull ? undefined : rb.str, tlsOpts, timeoutMs > 0 ? Date.now() + timeoutMs : undefined, ctx.signal);
    if ('error' in last && last.final) return fail('Error making request', `Error making request: ${last.error}`);
    if ('ok' in last && !retryStatus(last.ok.status)) break;
  }
  if (!last) return fail('Error making request', 'Error making request: no attempt made');
  if ('error' in last) {
    const err = `${method} ${url} giving up after ${attempt} attempt(s): ${last.error}`;
    if (last.timeout) return fail('Error making request', timeoutMs > 0 ? `request exceeded the specified timeout: ${goDuration(timeoutMs)}, err: ${err}` : `timeout error: ${err}`);
    return fail('Error making request', `Error making request: ${err}`);
  }
  if (retryStatus(last.ok.status)) return fail('Error making request', `Error making request: ${method} ${url} giving up after ${attempt} attempt(s)`);
  const diagnostics: ProviderDiagnostic[] = [];
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(last.ok.body);
  } catch {
    diagnostics.push({ severity: 'warning', summary: 'Response body is not recognized as UTF-8', detail: 'Terraform may not properly handle the response_body if the contents are binary.' });
    text = last.ok.body.toString('utf8');
  }
  return {
    state: {
      ...Object.fromEntries(config.entries),
      id: S(url),
      response_headers: stringMap(last.ok.headers),
      response_body: S(text),
      body: S(text),
      response_body_base64: S(last.ok.body.toString('base64')),
      status_code: N(last.ok.status),
    },
    diagnostics,
  };
}

/** The `http` provider. */
export function httpProvider(): Provider {
  return defineProvider({
    name: 'http',
    resources: {},
    dataSources: {
      http: {
        description: 'The `http` data source makes an HTTP GET request to the given URL and exports information about the response.',
        attributes: {
          id: attr.string({ computed: true, description: 'The URL used for the request.' }),
          url: attr.string({ required: true, description: 'The URL for the request. Supported schemes are `http` and `https`.' }),
          method: attr.string({ optional: true, description: 'The HTTP Method for the request. Allowed methods are `GET`, `HEAD`, and `POST`.', validators: [oneOf('GET', 'POST', 'HEAD')] }),
          request_headers: attr.map(T.String, { optional: true, description: 'A map of request header field names and values.' }),
          request_body: attr.string({ optional: true, description: 'The request body as a string.' }),
          request_timeout_ms: attr.int64({ optional: true, description: 'The request timeout in milliseconds.', validators: [atLeast(1)] }),
          response_body: attr.string({ computed: true, description: 'The response body returned as a string.' }),
          body: attr.string({ computed: true, description: 'The response body returned as a string. **NOTE**: This is deprecated, use `response_body` instead.', deprecationMessage: 'Use response_body instead' }),
          response_body_base64: attr.string({ computed: true, description: 'The response body encoded as base64 (standard) as defined in RFC 4648.' }),
          ca_cert_pem: attr.string({ optional: true, description: 'Certificate Authority (CA) in PEM (RFC 1421) format.', validators: [conflictsWith('insecure')] }),
          client_cert_pem: attr.string({ optional: true, description: 'Client certificate in PEM (RFC 1421) format.', validators: [alsoRequires('client_key_pem')] }),
          client_key_pem: attr.string({ optional: true, description: 'Client key in PEM (RFC 1421) format.', validators: [alsoRequires('client_cert_pem')] }),
          insecure: attr.bool({ optional: true, description: "Disables verification of the server's certificate chain and hostname. Defaults to `false`" }),
          response_headers: attr.map(T.String, { computed: true, description: 'A map of response header field names and values. Duplicate headers are concatenated.' }),
          status_code: attr.int64({ computed: true, description: 'The HTTP response status code.' }),
        },
        blocks: { retry: RETRY_BLOCK },
        validateConfig: validateRetry,
        read: ({ config }, ctx) => readHttp(config, ctx),
      },
    },
  });
}
