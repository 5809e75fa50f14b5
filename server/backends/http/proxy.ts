// Proxy selection for the http backend, as Go's http.ProxyFromEnvironment (golang.org/x/net/http/httpproxy), which
// Terraform's http client uses: HTTP_PROXY/http_proxy for http URLs, HTTPS_PROXY/https_proxy for https URLs (the
// upper-case name wins when non-empty), NO_PROXY/no_proxy exceptions ("*", IPs, CIDRs, domains matching themselves
// and their subdomains, ".domain" and "*.domain" for subdomains only, each with an optional :port), never for
// "localhost" or loopback IPs, and HTTP_PROXY refused under CGI (REQUEST_METHOD set). A proxy value without a usable
// scheme is read as http://<value>. Pure; client.ts does the proxied requests (absolute-URI requests for http,
// CONNECT tunnels for https).

import { BlockList, isIP } from 'node:net';

type Env = Readonly<Record<string, string | undefined>>;

function envAny(env: Env, ...names: string[]): string {
  for (const n of names) {
    const v = env[n];
    if (v) return v;
  }
  return '';
}

/** parseProxy: the proxy URL, or undefined when none is configured. Throws Go's "invalid proxy address" text. */
function parseProxy(v: string): URL | undefined {
  if (v === '') return undefined;
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(v);
  const scheme = m?.[1].toLowerCase();
  if (scheme === 'http' || scheme === 'https' || scheme === 'socks5') {
    try {
      return new URL(v);
    } catch {
      // fall through to the http:// retry
    }
  }
  try {
    return new URL('http://' + v);
  } catch {
    throw new Error(`invalid proxy address ${JSON.stringify(v)}`);
  }
}

function isLoopback(ip: string): boolean {
  if (isIP(ip) === 4) return ip.startsWith('127.');
  const l = ip.toLowerCase();
  return l === '::1' || l === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(l);
}

/** Whether NO_PROXY exempts host:port (useProxy's matchers). */
function exempt(noProxy: string, host: string, port: string): boolean {
  const ipv = isIP(host);
  for (let p of noProxy.split(',')) {
    p = p.trim().toLowerCase();
    if (p === '') continue;
    if (p === '*') return true;
    const cidr = /^(.+)\/(\d+)$/.exec(p);
    if (cidr && isIP(cidr[1])) {
      if (ipv) {
        const bl = new BlockList();
        const fam = isIP(cidr[1]) === 4 ? 'ipv4' : 'ipv6';
        try {
          bl.addSubnet(cidr[1], Number(cidr[2]), fam);
          if (bl.check(host, ipv === 4 ? 'ipv4' : 'ipv6')) return true;
        } catch {
          // malformed: ignored, as Go ignores what does not parse
        }
      }
      continue;
    }
    let phost = p;
    let pport = '';
    const hp = /^(\[[^\]]*\]|[^:]*):(\d*)$/.exec(p);
    if (hp) {
      phost = hp[1];
      pport = hp[2];
      if (phost === '') continue;
      if (phost.startsWith('[') && phost.endsWith(']')) phost = phost.slice(1, -1);
    }
    if (isIP(phost)) {
      if (ipv && phost === host && (pport === '' || pport === port)) return true;
      continue;
    }
    if (phost === '') continue;
    if (phost.startsWith('*.')) phost = phost.slice(1);
    let matchHost = false;
    if (!phost.startsWith('.')) {
      matchHost = true;
      phost = '.' + phost;
    }
    if (host.endsWith(phost) || (matchHost && host === phost.slice(1))) {
      if (pport === '' || pport === port) return true;
    }
  }
  return false;
}

/** The proxy to use for `url`, or undefined for a direct connection. Throws Go's error text. */
export function proxyFor(url: URL, env: Env): URL | undefined {
  const https = url.protocol === 'https:';
  let proxy: URL | undefined;
  if (https) proxy = parseProxy(envAny(env, 'HTTPS_PROXY', 'https_proxy'));
  else {
    proxy = parseProxy(envAny(env, 'HTTP_PROXY', 'http_proxy'));
    if (proxy && env.REQUEST_METHOD) throw new Error('refusing to use HTTP_PROXY value in CGI environment; see golang.org/s/cgihttpproxy');
  }
  if (!proxy) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (https ? '443' : '80');
  if (host === 'localhost') return undefined;
  if (isIP(host) && isLoopback(host)) return undefined;
  if (exempt(envAny(env, 'NO_PROXY', 'no_proxy'), host, port)) return undefined;
  return proxy;
}
