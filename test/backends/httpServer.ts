// A small state server speaking the protocol of Terraform's http backend, for the http backend tests: GET/POST/PUT/
// DELETE of one state at /state, LOCK/UNLOCK (any method) at /lock, optional basic auth, injected failures, and a
// record of every request (method, URL, headers, body). Listens on 127.0.0.1 on a random port (http or https).

import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Header names and values as sent, in order. */
  rawHeaders: string[];
  body: string;
}

export interface StateServerOptions {
  /** Require basic auth with these credentials (401 when missing, 403 when wrong). */
  auth?: { username: string; password: string };
  /** Status for a held lock: 423 (default) or 409. */
  conflictStatus?: number;
  /** https with this key pair; `requestCert`/`ca` for mutual TLS. */
  tls?: { key: string; cert: string; ca?: string; requestCert?: boolean };
}

export class StateServer {
  state: Buffer | undefined;
  lock: string | undefined;
  readonly requests: Recorded[] = [];
  /** Responses forced for the next requests, in order: a status, optionally with headers and body. */
  readonly inject: { status: number; headers?: Record<string, string>; body?: string | Buffer }[] = [];
  /** Answer LOCK conflicts with this body instead of the holder's info. */
  conflictBody: string | undefined;
  /** Redirects by path: status and Location. */
  readonly redirects = new Map<string, { status: number; location: string }>();
  /** Content-MD5 to send with GET 200 responses (none when undefined). */
  getMD5: string | undefined;
  private server: Server | undefined;
  port = 0;

  constructor(readonly opts: StateServerOptions = {}) {}

  get base(): string {
    return `${this.opts.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => this.handle(req, Buffer.concat(chunks), res));
    };
    const t = this.opts.tls;
    this.server = t ? createHttps({ key: t.key, cert: t.cert, ca: t.ca, requestCert: !!t.requestCert, rejectUnauthorized: !!t.requestCert }, handler) : createHttp(handler);
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    const a = this.server.address();
    this.port = typeof a === 'object' && a ? a.port : 0;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections?.();
    await new Promise<void>((r) => this.server!.close(() => r()));
    this.server = undefined;
  }

  private handle(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers }, rawHeaders: [...req.rawHeaders], body: body.toString('utf8') });
    const send = (status: number, text: string | Buffer = '', headers: Record<string, string> = {}) => {
      res.writeHead(status, headers);
      res.end(text);
    };
    const inj = this.inject.shift();
    if (inj) return send(inj.status, inj.body ?? '', inj.headers);
    const redirect = this.redirects.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (redirect) return send(redirect.status, '', { Location: redirect.location });
    const a = this.opts.auth;
    if (a) {
      const h = req.headers.authorization;
      if (!h) return send(401);
      if (h !== 'Basic ' + Buffer.from(`${a.username}:${a.password}`).toString('base64')) return send(403);
    }
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/lock') {
      if (req.method === 'LOCK' || req.method === 'PUT' || req.method === 'POST' && url.searchParams.get('op') === 'lock') {
        if (this.lock !== undefined) return send(this.opts.conflictStatus ?? 423, this.conflictBody ?? this.lock, { 'Content-Type': 'application/json' });
        this.lock = body.toString('utf8');
        return send(200);
      }
      if (req.method === 'UNLOCK' || req.method === 'DELETE' || req.method === 'POST') {
        if (this.lock === undefined) return send(200);
        const held = JSON.parse(this.lock) as { ID: string };
        if (body.length > 0) {
          const got = JSON.parse(body.toString('utf8')) as { ID: string };
          if (got.ID !== held.ID) return send(409, this.lock);
        }
        this.lock = undefined;
        return send(200);
      }
      return send(405);
    }
    if (url.pathname !== '/state') return send(404);
    switch (req.method) {
      case 'GET':
        if (this.state === undefined) return send(404);
        return send(200, this.state.toString('utf8'), { 'Content-Type': 'application/json', ...(this.getMD5 ? { 'Content-MD5': this.getMD5 } : {}) });
      case 'POST':
      case 'PUT': {
        if (this.lock !== undefined) {
          const held = JSON.parse(this.lock) as { ID: string };
          if (url.searchParams.get('ID') !== held.ID) return send(409, this.lock);
        }
        const md5 = req.headers['content-md5'];
        if (md5 !== createHash('md5').update(body).digest('base64')) return send(400, 'bad Content-MD5');
        this.state = body;
        return send(200);
      }
      case 'DELETE':
        this.state = undefined;
        return send(200);
      default:
        return send(405);
    }
  }
}

export const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

/** A CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl in `dir`. */
export function makeCerts(dir: string): Record<'ca' | 'serverKey' | 'serverCert' | 'clientKey' | 'clientCert', string> {
  const run = (args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
  };
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=test-ca']);
  for (const n of ['server', 'client']) {
    run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${n}.key`, '-out', `${n}.csr`, '-subj', `/CN=${n}`]);
    const ext = join(dir, `${n}.ext`);
    writeFileSync(ext, n === 'server' ? 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' : 'extendedKeyUsage=clientAuth\n');
    run(['x509', '-req', '-in', `${n}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${n}.crt`, '-days', '2', '-extfile', ext]);
  }
  const r = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { ca: r('ca.crt'), serverKey: r('server.key'), serverCert: r('server.crt'), clientKey: r('client.key'), clientCert: r('client.crt') };
}

/**
 * A forward proxy for the proxy tests: plain requests with an absolute URL are forwarded to `target` (whatever host
 * they name), CONNECT opens a tunnel to `target`'s port; every request is recorded. `refuseConnect` answers CONNECT
 * with 403.
 */
export class ForwardProxy {
  readonly requests: Recorded[] = [];
  refuseConnect = false;
  private server: Server | undefined;
  private readonly tunnels = new Set<import('node:net').Socket>();
  port = 0;

  constructor(readonly target: StateServer) {}

  async start(): Promise<this> {
    const { request } = await import('node:http');
    const net = await import('node:net');
    this.server = createHttp((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers }, rawHeaders: [...req.rawHeaders], body: body.toString('utf8') });
        const u = new URL(req.url ?? '/');
        const fwd = request(
          { hostname: '127.0.0.1', port: this.target.port, method: req.method, path: u.pathname + u.search, headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'proxy-authorization')) as Record<string, string> },
          (r) => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
          },
        );
        fwd.on('error', () => {
          res.writeHead(502);
          res.end();
        });
        fwd.end(body);
      });
    });
    this.server.on('connect', (req: IncomingMessage, sock: import('node:net').Socket) => {
      this.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers }, rawHeaders: [...req.rawHeaders], body: '' });
      if (this.refuseConnect) {
        sock.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      this.tunnels.add(sock);
      sock.on('close', () => this.tunnels.delete(sock));
      const up = net.connect(this.target.port, '127.0.0.1', () => {
        sock.write('HTTP/1.1 200 Connection established\r\n\r\n');
        up.pipe(sock);
        sock.pipe(up);
      });
      up.on('error', () => sock.destroy());
      sock.on('error', () => up.destroy());
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    const a = this.server.address();
    this.port = typeof a === 'object' && a ? a.port : 0;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    for (const t of this.tunnels) t.destroy();
    this.server.closeAllConnections?.();
    await new Promise<void>((r) => this.server!.close(() => r()));
    this.server = undefined;
  }
}
