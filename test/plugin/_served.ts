// Helpers for the served-provider tests: a minimal go-plugin client (spawn, handshake, mTLS, health, calls,
// Shutdown) used to test serve.ts at the protocol level, and a Terraform workspace harness that points real
// `terraform` at our served providers through dev_overrides. Only test files import this module.

import * as grpc from '@grpc/grpc-js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pluginEnv, parseHandshake, type Handshake } from '../../server/plugin/handshake';
import { GRPC_OPTIONS, loadProtos } from '../../server/plugin/proto/load';
import { CLIENT_TLS_OPTIONS, clientCredentials, generateCertificate, type Certificate } from '../../server/plugin/tls';
import { writeWrapper } from '../../server/cli/provider';
import type { Misbehaviour } from '../../server/plugin/misbehaving';

export const REPO = process.cwd();
export const CLI = snapshotCli();

/**
 * A private copy of dist/cli.js (checked to start): other work in the same tree rebuilds dist/ at any time, and a
 * plugin process started while the bundle is being rewritten would load half a file.
 */
function snapshotCli(): string {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-cli-'));
  const to = join(dir, 'cli.js');
  for (let i = 0; i < 5; i++) {
    copyFileSync(resolve(REPO, 'dist/cli.js'), to);
    // The parser's wasm files are looked up beside the bundle.
    for (const w of ['web-tree-sitter.wasm', 'tree-sitter-terraform.wasm']) copyFileSync(resolve(REPO, 'dist', w), join(dir, w));
    if (spawnSync(process.execPath, [to, 'version'], { encoding: 'utf8' }).status === 0) break;
    spawnSync('sleep', ['2']);
  }
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return to;
}
export const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;

export interface Plugin {
  child: ChildProcess;
  handshake: Handshake;
  cert?: Certificate;
  provider: grpc.Client & Record<string, any>;
  health: grpc.Client & Record<string, any>;
  controller: grpc.Client & Record<string, any>;
  stdio: grpc.Client & Record<string, any>;
  exited: Promise<number | null>;
  stderr: () => string;
}

/** Starts `foresight provider serve NAME` as Terraform would (cookie, versions, optional client certificate). */
export async function launch(name: string, opts: { versions?: number[]; tls?: boolean; args?: string[]; env?: Record<string, string> } = {}): Promise<Plugin> {
  const versions = opts.versions ?? [5, 6];
  const cert = opts.tls === false ? undefined : generateCertificate();
  const child = spawn(process.execPath, [CLI, 'provider', 'serve', ...(opts.args ?? []), name], {
    env: { ...process.env, ...pluginEnv({ versions, clientCertPem: cert?.certPem }), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  const line = await new Promise<string>((res, rej) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const i = out.indexOf('\n');
      if (i >= 0) res(out.slice(0, i + 1));
    });
    child.on('exit', () => rej(new Error(`plugin exited before the handshake: ${err}`)));
  });
  const handshake = parseHandshake(line, { versions });
  const protos = loadProtos();
  const creds = cert && handshake.serverCertDer ? clientCredentials(cert, handshake.serverCertDer) : grpc.credentials.createInsecure();
  const target = `unix:${handshake.address}`;
  const o = { ...GRPC_OPTIONS, ...(cert ? CLIENT_TLS_OPTIONS : {}) };
  const Prov = (handshake.appVersion === 5 ? protos.tfplugin5 : protos.tfplugin6).Provider;
  return {
    child,
    handshake,
    cert,
    provider: new Prov(target, creds, o) as any,
    health: new protos.health(target, creds, o) as any,
    controller: new protos.controller(target, creds, o) as any,
    stdio: new protos.stdio(target, creds, o) as any,
    exited,
    stderr: () => err,
  };
}

/** One unary call as a promise. */
export function call<T = any>(client: any, method: string, req: unknown = {}): Promise<T> {
  return new Promise((res, rej) => client[method](req, { deadline: Date.now() + 20_000 }, (e: Error | null, r: T) => (e ? rej(e) : res(r))));
}

// ---- Terraform workspaces ----------------------------------------------------------------------------------

export const SERVED = ['random', 'null', 'local', 'time', 'tls'] as const;

export interface Harness {
  root: string;
  /** The recording file the served providers append to (when asked for). */
  record?: string;
  bin: string;
  rc: string;
  env: NodeJS.ProcessEnv;
  dispose(): void;
}

/**
 * A temp directory with wrappers for the served providers (optionally recording to `record` or misbehaving) and
 * a CLI configuration whose dev_overrides point Terraform at them.
 */
export function harness(opts: { record?: boolean; misbehave?: Misbehaviour; providers?: readonly string[] } = {}): Harness {
  const root = mkdtempSync(join(tmpdir(), 'foresight-serve-'));
  const record = opts.record ? join(root, 'calls.jsonl') : undefined;
  const bin = join(root, 'bin');
  const providers = opts.providers ?? SERVED;
  for (const p of providers) writeWrapper(p, bin, p, { cliPath: CLI, record, misbehave: opts.misbehave });
  const rc = join(root, 'terraform.rc');
  writeFileSync(rc, `provider_installation {\n  dev_overrides {\n${providers.map((p) => `    "hashicorp/${p}" = ${JSON.stringify(bin)}\n`).join('')}  }\n  direct {}\n}\n`);
  const env: NodeJS.ProcessEnv = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '', TF_LOG: '' };
  delete env.TF_DATA_DIR;
  return { root, record, bin, rc, env, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function terraform(h: Harness, dir: string, args: string[], timeoutMs = 120_000): Run {
  const r = spawnSync('terraform', args, { cwd: dir, env: h.env, encoding: 'utf8', timeout: timeoutMs });
  return { status: r.status, stdout: stripOverrideWarning(r.stdout), stderr: r.stderr };
}

export function foresight(dir: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 120_000): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env, encoding: 'utf8', timeout: timeoutMs });
  // Stripped as from terraform's (foresight prints it too where dev_overrides are in effect; discovery.test.ts
  // compares that warning with terraform's for every verb).
  return { status: r.status, stdout: stripOverrideWarning(r.stdout), stderr: r.stderr };
}

/** Terraform's dev_overrides warning (printed first by every command that loads providers). */
export function stripOverrideWarning(s: string): string {
  return s.replace(/\n?Warning: Provider development overrides are in effect\n[\s\S]*?published\nreleases\.\n/, '');
}

export function workspace(h: Harness, name: string, files: Record<string, string>): string {
  const dir = join(h.root, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, c] of Object.entries(files)) writeFileSync(join(dir, f), c);
  return dir;
}

/** A copy of a workspace (configuration and state) beside it. */
export function copyWorkspace(dir: string, to: string): string {
  rmSync(to, { recursive: true, force: true });
  cpSync(dir, to, { recursive: true });
  return to;
}
