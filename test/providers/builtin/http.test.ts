// Tests for the built-in http provider (server/providers/builtin/http.ts) through the loopback, against HTTP and
// HTTPS servers this file starts on 127.0.0.1 (no other network): GET/HEAD/POST, canonical and joined response
// headers, transparent gzip, redirects, non-UTF-8 bodies, retries with back-off, "giving up" errors,
// connection errors, timeouts, StopProvider cancelling a request, TLS with a CA / insecure, and validation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Value } from '../../../server/lang/value';
import { HTTP_PROVIDER_ADDRESS } from '../../../server/providers/builtin/http';
import { TLS_PROVIDER_ADDRESS } from '../../../server/providers/builtin/tls';
import { stringList, stringMap } from '../../../server/providers/sdk';
import { Harness, at } from './_harness';

const s = (x: string) => Value.string(x);
const n = (x: number) => Value.number(x);
const b = (x: boolean) => Value.bool(x);
const retry = (attempts: number, min: number, max: number) => Value.object({ attempts: n(attempts), min_delay_ms: n(min), max_delay_ms: n(max) });

let server: http.Server;
let base = '';
let flaky = 0;
const hits: Record<string, number> = {};

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = req.url ?? '/';
  hits[url] = (hits[url] ?? 0) + 1;
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (url === '/hello') {
      res.setHeader('content-type', 'text/plain');
      res.setHeader('x-multi', ['a', 'b']);
      res.end('hello world');
    } else if (url === '/gzip') {
      res.setHeader('Content-Encoding', 'gzip');
      res.end(gzipSync('unzipped'));
    } else if (url === '/redirect') {
      res.statusCode = 302;
      res.setHeader('Location', '/hello');
      res.end();
    } else if (url === '/echo') {
      res.end(`${req.method} ${body} ${req.headers['x-test'] ?? ''} ${req.headers['user-agent']}`);
    } else if (url === '/binary') {
      res.end(Buffer.from([0xff, 0xfe, 0x00]));
    } else if (url === '/flaky') {
      flaky++;
      res.statusCode = flaky % 3 === 0 ? 200 : 503;
      res.end(res.statusCode === 200 ? 'finally' : 'busy');
    } else if (url === '/error') {
      res.statusCode = 500;
      res.end('boom');
    } else if (url === '/notimpl') {
      res.statusCode = 501;
      res.end('no');
    } else if (url === '/missing') {
      res.statusCode = 404;
      res.end('not here');
    } else if (url === '/slow') {
      setTimeout(() => res.end('late'), 3000).unref();
    } else {
      res.statusCode = 400;
      res.end();
    }
  });
}

before(async () => {
  server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

interface Case {
  scenario: string;
  run: (h: Harness) => Promise<unknown>;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, async () => {
    assert.deepEqual(await c.run(new Harness(HTTP_PROVIDER_ADDRESS)), c.want);
  });
}

check({
  scenario: 'A GET returns status, body (also as the deprecated body and as base64), canonical response headers with repeats joined, and the URL as id.',
  run: async (h) => {
    const r = await h.readData('http', { url: s(`${base}/hello`) });
    const hd = at(r.state, 'response_headers');
    return [r.diagnostics, at(r.state, 'status_code').num.toNumber(), at(r.state, 'response_body').str, at(r.state, 'body').str, at(r.state, 'response_body_base64').str, hd.entries.get('Content-Type')!.str, hd.entries.get('X-Multi')!.str, at(r.state, 'id').str === `${base}/hello`];
  },
  want: [[], 200, 'hello world', 'hello world', 'aGVsbG8gd29ybGQ=', 'text/plain', 'a, b', true],
});

check({
  scenario: 'Gzip bodies are decompressed transparently (Content-Encoding dropped), redirects are followed, HEAD has no body, a 404 is a result rather than an error.',
  run: async (h) => {
    const gz = await h.readData('http', { url: s(`${base}/gzip`) });
    const red = await h.readData('http', { url: s(`${base}/redirect`) });
    const head = await h.readData('http', { url: s(`${base}/hello`), method: s('HEAD') });
    const miss = await h.readData('http', { url: s(`${base}/missing`) });
    return [at(gz.state, 'response_body').str, at(gz.state, 'response_headers').entries.has('Content-Encoding'), at(red.state, 'response_body').str, at(head.state, 'response_body').str, at(head.state, 'status_code').num.toNumber(), at(miss.state, 'status_code').num.toNumber(), miss.diagnostics];
  },
  want: ['unzipped', false, 'hello world', '', 200, 404, []],
});

check({
  scenario: 'A POST sends request_body and request_headers with Go\'s user agent; a non-UTF-8 body gives the provider\'s warning.',
  run: async (h) => {
    const r = await h.readData('http', { url: s(`${base}/echo`), method: s('POST'), request_body: s('payload'), request_headers: stringMap({ 'x-test': 'yes' }) });
    const bin = await h.readData('http', { url: s(`${base}/binary`) });
    return [at(r.state, 'response_body').str, bin.diagnostics, at(bin.state, 'response_body_base64').str];
  },
  want: ['POST payload yes Go-http-client/1.1', ['warning: Response body is not recognized as UTF-8: Terraform may not properly handle the response_body if the contents are binary.'], '//4A'],
});

check({
  scenario: 'A retry block retries 503s with back-off until success; without retries a 500 fails with retryablehttp\'s "giving up" while a 501 is returned.',
  run: async (h) => {
    flaky = 0;
    const ok = await h.readData('http', { url: s(`${base}/flaky`), retry: retry(3, 10, 20) });
    const fail = await h.readData('http', { url: s(`${base}/error`) });
    hits['/error'] = 0;
    const fail2 = await h.readData('http', { url: s(`${base}/error`), retry: retry(2, 1, 1) });
    const ni = await h.readData('http', { url: s(`${base}/notimpl`) });
    const norm = (ds: string[]) => ds.map((d) => d.split(base).join('BASE'));
    return [at(ok.state, 'response_body').str, flaky, norm(fail.diagnostics), norm(fail2.diagnostics), hits['/error'], at(ni.state, 'status_code').num.toNumber()];
  },
  want: [
    'finally',
    3,
    ['error: Error making request: Error making request: GET BASE/error giving up after 1 attempt(s)'],
    ['error: Error making request: Error making request: GET BASE/error giving up after 3 attempt(s)'],
    3,
    501,
  ],
});

check({
  scenario: 'Connection errors, timeouts and unsupported schemes fail with Go\'s wording; StopProvider cancels a request in flight.',
  run: async (h) => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const refused = await h.readData('http', { url: s(`http://127.0.0.1:${port}/`) });
    const slow = await h.readData('http', { url: s(`${base}/slow`), request_timeout_ms: n(50) });
    const ftp = await h.readData('http', { url: s('ftp://example.com/x') });
    const t0 = Date.now();
    const pending = h.readData('http', { url: s(`${base}/slow`) });
    setTimeout(() => void h.p.stopProvider(), 50);
    const stopped = await pending;
    const norm = (ds: string[]) => ds.map((d) => d.split(`:${port}`).join(':PORT').split(base).join('BASE'));
    return [norm(refused.diagnostics), norm(slow.diagnostics), ftp.diagnostics, norm(stopped.diagnostics), Date.now() - t0 < 2500];
  },
  want: [
    [`error: Error making request: Error making request: GET http://127.0.0.1:PORT/ giving up after 1 attempt(s): Get "http://127.0.0.1:PORT/": dial tcp 127.0.0.1:PORT: connect: connection refused`],
    [`error: Error making request: request exceeded the specified timeout: 50ms, err: GET ${'BASE'}/slow giving up after 1 attempt(s): Get "${'BASE'}/slow": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`],
    ['error: Error making request: Error making request: Get "ftp://example.com/x": unsupported protocol scheme "ftp"'],
    [`error: Error making request: Error making request: Get "${'BASE'}/slow": context canceled`],
    true,
  ],
});

check({
  scenario: 'Validation: method must be GET, POST or HEAD; the timeout at least 1; ca_cert_pem conflicts with insecure; client certificate and key need each other; retry delays are checked.',
  run: async (h) => [
    await h.validateData('http', { url: s('http://x'), method: s('PUT'), request_timeout_ms: n(0) }),
    await h.validateData('http', { url: s('http://x'), ca_cert_pem: s('pem'), insecure: b(false), client_cert_pem: s('c') }),
    await h.validateData('http', { url: s('http://x'), retry: retry(-1, 10, 5) }),
  ],
  want: [
    ['error: Invalid Attribute Value Match: Attribute method value must be one of: ["GET" "POST" "HEAD"], got: "PUT" [at .method]', 'error: Invalid Attribute Value: Attribute request_timeout_ms value must be at least 1, got: 0 [at .request_timeout_ms]'],
    ['error: Invalid Attribute Combination: Attribute "insecure" cannot be specified when "ca_cert_pem" is specified [at .ca_cert_pem]', 'error: Invalid Attribute Combination: Attribute "client_key_pem" must be specified when "client_cert_pem" is specified [at .client_cert_pem]'],
    ['error: Invalid Attribute Value: Attribute retry.attempts value must be at least 0, got: -1 [at .retry.attempts]', 'error: Invalid Attribute Value: Attribute retry.max_delay_ms value must be at least sum of <.min_delay_ms, got: 5 [at .retry.max_delay_ms]'],
  ],
});

check({
  scenario: 'HTTPS against a server whose certificate the tls provider made: trusted with ca_cert_pem, refused without it, accepted with insecure; a CA that is not PEM is an error.',
  run: async (h) => {
    const t = new Harness(TLS_PROVIDER_ADDRESS);
    const { state: k } = await t.converge('tls_private_key', null, { algorithm: s('ECDSA'), ecdsa_curve: s('P256') });
    const { state: cert } = await t.converge('tls_self_signed_cert', null, {
      private_key_pem: at(k, 'private_key_pem'),
      validity_period_hours: n(1),
      allowed_uses: stringList(['server_auth', 'digital_signature']),
      ip_addresses: stringList(['127.0.0.1']),
    });
    const srv = https.createServer({ key: at(k, 'private_key_pem').str, cert: at(cert, 'cert_pem').str }, handler);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const url = `https://127.0.0.1:${(srv.address() as AddressInfo).port}/hello`;
    try {
      const trusted = await h.readData('http', { url: s(url), ca_cert_pem: at(cert, 'cert_pem') });
      const untrusted = await h.readData('http', { url: s(url) });
      const insecure = await h.readData('http', { url: s(url), insecure: b(true) });
      const badCa = await h.readData('http', { url: s(url), ca_cert_pem: s('not a pem') });
      return [at(trusted.state, 'response_body').str, untrusted.diagnostics.map((d) => d.replace(url, 'URL')), at(insecure.state, 'status_code').num.toNumber(), badCa.diagnostics];
    } finally {
      srv.closeAllConnections();
      await new Promise<void>((r) => srv.close(() => r()));
    }
  },
  want: [
    'hello world',
    ['error: Error making request: Error making request: Get "URL": tls: failed to verify certificate: x509: certificate signed by unknown authority'],
    200,
    ["error: Error configuring TLS client: Error tls: Can't add the CA certificate to certificate pool. Only PEM encoded certificates are supported."],
  ],
});
