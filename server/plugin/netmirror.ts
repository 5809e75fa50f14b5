// The provider network mirror protocol (Terraform's getproviders.HTTPMirrorSource), for `network_mirror` blocks of
// the CLI configuration and `providers lock -net-mirror=URL`:
//
//   GET <base>/<hostname>/<namespace>/<type>/index.json     → {"versions": {"<version>": {}, ...}}
//   GET <base>/<hostname>/<namespace>/<type>/<version>.json → {"archives": {"<os_arch>": {"url": "...", "hashes": [...]}}}
//   GET <archive url, relative to the version document's final URL>
//
// Only https: base URLs; the X-Terraform-Version header is sent; JSON answers must say Content-Type
// application/json; at most 5 redirects. Certificates are checked against SSL_CERT_FILE (and the files of
// SSL_CERT_DIR) when set, as Go's crypto/x509 does on Linux (so a test or a private mirror can name its CA), else
// Node's default roots. The archive's hashes are checked as packageHashAuthentication does (h1:/zh: only;
// "verified checksum"). Error texts are Terraform's (ErrQueryFailed, ErrPlatformNotSupported, ...).
//
// Contract: every failure is a rejected promise with Terraform's message, never a crash; downloads go to a
// temporary file the caller removes.

import { createWriteStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { TERRAFORM_VERSION } from '../cli/version';
import { parseSemVer } from '../versions/provider';

export type Env = Readonly<Record<string, string | undefined>>;

/** A package the mirror offers for one platform. */
export interface MirrorPackage {
  url: string;
  hashes: string[];
}

/** The CA certificates to trust: SSL_CERT_FILE / SSL_CERT_DIR when set, else undefined (Node's defaults). */
export function trustedCAs(env: Env): string[] | undefined {
  const out: string[] = [];
  if (env.SSL_CERT_FILE) {
    try {
      out.push(readFileSync(env.SSL_CERT_FILE, 'utf8'));
    } catch {
      // Go ignores an unreadable file and falls back to the directories
    }
  }
  for (const d of (env.SSL_CERT_DIR ?? '').split(':').filter(Boolean)) {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      try {
        if (statSync(join(d, n)).isFile()) out.push(readFileSync(join(d, n), 'utf8'));
      } catch {
        // skip
      }
    }
  }
  return env.SSL_CERT_FILE || env.SSL_CERT_DIR ? out : undefined;
}

interface Got {
  status: number;
  res: IncomingMessage;
  url: URL;
}

function get(url: URL, env: Env, redirects = 0): Promise<Got> {
  return new Promise((resolve, reject) => {
    const ca = trustedCAs(env);
    const req = request(url, { method: 'GET', headers: { 'X-Terraform-Version': TERRAFORM_VERSION, 'User-Agent': `Terraform/${TERRAFORM_VERSION}` }, ...(ca ? { ca } : {}), timeout: 10_000 }, (res) => {
      const status = res.statusCode ?? 0;
      if ([301, 302, 303, 307, 308].includes(status) && res.headers.location) {
        res.resume();
        if (redirects >= 5) return reject(new Error(`Get "${url}": too many redirects`));
        let next: URL;
        try {
          next = new URL(res.headers.location, url);
        } catch (e) {
          return reject(e);
        }
        get(next, env, redirects + 1).then(resolve, reject);
        return;
      }
      resolve({ status, res, url });
    });
    req.on('timeout', () => req.destroy(new Error(`Get "${url}": context deadline exceeded`)));
    req.on('error', (e) => reject(new Error(`Get "${url}": ${e.message}`)));
    req.end();
  });
}

async function readBody(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class NetworkMirror {
  readonly base: URL;

  constructor(
    base: string,
    private readonly env: Env,
  ) {
    this.base = new URL(base);
  }

  get display(): string {
    return this.base.toString();
  }

  private queryFailed(fqn: string, why: string): Error {
    return new Error(`failed to query provider mirror ${this.display} for ${fqn}: ${why}`);
  }

  /** GET of a JSON document under the base URL: status, parsed body (200 only) and final URL. */
  private async json(fqn: string, path: string): Promise<{ status: number; body?: unknown; url: URL }> {
    let g: Got;
    try {
      g = await get(new URL(path, this.base), this.env);
    } catch (e) {
      throw this.queryFailed(fqn, (e as Error).message);
    }
    if (g.status !== 200) {
      g.res.resume();
      return { status: g.status, url: g.url };
    }
    const ct = String(g.res.headers['content-type'] ?? '');
    const mt = ct.split(';')[0].trim().toLowerCase();
    if (!mt) {
      g.res.resume();
      throw this.queryFailed(fqn, 'response has invalid Content-Type: mime: no media type');
    }
    if (mt !== 'application/json') {
      g.res.resume();
      throw this.queryFailed(fqn, 'response has invalid Content-Type: must be application/json');
    }
    const text = await readBody(g.res);
    try {
      return { status: 200, body: JSON.parse(text), url: g.url };
    } catch (e) {
      throw this.queryFailed(fqn, `invalid response content from mirror server: ${(e as Error).message}`);
    }
  }

  private unauthorized(url: URL): Error {
    return new Error(`host ${url.host} rejected the given authentication credentials`);
  }

  /** The versions the mirror lists (AvailableVersions); a 404 is Terraform's "not found" error. */
  async availableVersions(fqn: string): Promise<string[]> {
    const r = await this.json(fqn, `${fqn}/index.json`);
    if (r.status === 404) throw new Error(`provider ${fqn} was not found in any of the search locations`);
    if (r.status === 401 || r.status === 403) throw this.unauthorized(r.url);
    if (r.status !== 200) throw this.queryFailed(fqn, `server returned unsuccessful status ${r.status}`);
    const versions = (r.body as { versions?: unknown } | null)?.versions;
    if (!versions || typeof versions !== 'object') return [];
    return Object.keys(versions).filter((v) => parseSemVer(v));
  }

  /** The archive for one version and platform (PackageMeta), with its absolute URL and hashes. */
  async packageMeta(fqn: string, version: string, platform: string): Promise<MirrorPackage> {
    const r = await this.json(fqn, `${fqn}/${version}.json`);
    if (r.status === 404) throw this.queryFailed(fqn, `provider mirror does not have archive index for previously-reported ${fqn} version ${version}`);
    if (r.status === 401 || r.status === 403) throw this.unauthorized(r.url);
    if (r.status !== 200) throw this.queryFailed(fqn, `server returned unsuccessful status ${r.status}`);
    const archives = (r.body as { archives?: Record<string, { url?: unknown; hashes?: unknown }> } | null)?.archives ?? {};
    const a = Object.prototype.hasOwnProperty.call(archives, platform) ? archives[platform] : undefined;
    if (!a) throw new Error(`provider mirror ${this.display} does not have a package of ${fqn} ${version} for ${platform}`);
    let url: URL;
    try {
      url = new URL(String(a.url ?? ''), r.url);
    } catch (e) {
      throw this.queryFailed(fqn, `provider mirror returned invalid URL ${JSON.stringify(a.url)}: ${(e as Error).message}`);
    }
    const hashes = Array.isArray(a.hashes) ? a.hashes.map(String) : [];
    for (const h of hashes)
      if (!/^[a-z0-9]+:./.test(h)) throw this.queryFailed(fqn, `provider mirror returned invalid provider hash ${JSON.stringify(h)}: hash string must start with a scheme keyword followed by a colon`);
    return { url: url.toString(), hashes };
  }

  /** Downloads an archive to `file` (installFromHTTPURL's GetFile); errors are "<host>: <why>". */
  async download(pkg: MirrorPackage, file: string): Promise<void> {
    const url = new URL(pkg.url);
    let g: Got;
    try {
      g = await get(url, this.env);
    } catch (e) {
      throw new Error(`${url.host}: ${(e as Error).message}`);
    }
    if (g.status !== 200) {
      g.res.resume();
      throw new Error(`${url.host}: bad response code: ${g.status}`);
    }
    await pipeline(g.res, createWriteStream(file));
  }
}

/**
 * packageHashAuthentication.AuthenticatePackage: the archive must match one of the h1:/zh: hashes the mirror gave.
 * Returns Terraform's result text ("verified checksum") or throws its error.
 */
export async function authenticateArchive(hashes: readonly string[], matches: (hashes: readonly string[]) => Promise<boolean>): Promise<string> {
  const required = hashes.filter((h) => h.startsWith('h1:') || h.startsWith('zh:'));
  if (!required.length) throw new Error('this version of Terraform does not support any of the checksum formats given for this provider');
  let ok: boolean;
  try {
    ok = await matches(required);
  } catch (e) {
    throw new Error(`failed to verify provider package checksums: ${(e as Error).message}`);
  }
  if (ok) return 'verified checksum';
  if (required.length === 1) throw new Error(`provider package doesn't match the expected checksum ${JSON.stringify(required[0])}`);
  throw new Error("provider package doesn't match the any of the expected checksums");
}
