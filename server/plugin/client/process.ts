// A provider plugin process, started and stopped as Terraform 1.11's go-plugin client (v1.6.0) does.
//
//   start(opts)  spawns the executable with the parent's environment plus TF_PLUGIN_MAGIC_COOKIE,
//                PLUGIN_PROTOCOL_VERSIONS=5,6, PLUGIN_MIN_PORT/PLUGIN_MAX_PORT and, with AutoMTLS (unless
//                TF_DISABLE_PLUGIN_TLS is set), PLUGIN_CLIENT_CERT; reads the handshake line from stdout
//                (server/plugin/handshake.ts; start timeout 1 minute); connects a gRPC channel to the unix socket or
//                tcp address, pinning the plugin's certificate; checks health (service "plugin"); opens go-plugin's
//                GRPCStdio stream and drains it, and drains the process's own stdout and stderr (providers write
//                megabytes of logs: an undrained pipe would block them).
//   kill()       calls GRPCController.Shutdown, waits up to 2 s for the process to exit, then SIGKILL (go-plugin's
//                Client.Kill). Every started process is killed when this Node process exits.
// Failures carry go-plugin's texts (LaunchError), so callers can word diagnostics as Terraform does.
// Provider output is logged as Terraform logs it (TF_LOG / TF_LOG_PROVIDER, to TF_LOG_PATH or stderr), or handed
// to `opts.log` (the language server's log).

import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import { grpcModule } from '../grpc';
import { parseHandshake, pluginEnv, type Handshake } from '../handshake';
import { CLIENT_TLS_OPTIONS, clientCredentials, generateCertificate } from '../tls';
import { GRPC_OPTIONS, loadProtos } from '../proto/load';

export type Env = Readonly<Record<string, string | undefined>>;

export interface LaunchOptions {
  executable: string;
  /** How the executable is named in messages (Terraform prints the path it ran, relative to the working directory). */
  displayPath?: string;
  /** Protocol versions offered (PLUGIN_PROTOCOL_VERSIONS); Terraform offers 5 and 6. */
  versions?: number[];
  env?: Env;
  cwd?: string;
  /** Milliseconds to wait for the handshake line (go-plugin: 1 minute). */
  startTimeoutMs?: number;
  /** Receives each line the provider writes (stderr, stdout after the handshake, GRPCStdio). */
  log?: (line: string) => void;
}

/** A failure to start a plugin, with go-plugin's message text. */
export class LaunchError extends Error {}

/**
 * What a provider client needs of a running plugin: its Provider service client, the negotiated protocol, whether it
 * is alive, and a way to let go of it. A PluginProcess is one (it owns the process); so is a shared connection to a
 * process another thread owns (./shared.ts), whose kill() only releases this thread's use.
 */
export interface PluginConnection {
  readonly provider: grpc.Client;
  readonly protocol: number;
  readonly alive: boolean;
  readonly exited: Promise<number | null>;
  readonly pid: number | undefined;
  /** Ends this use of the process (for an owned process: the process itself). */
  kill(): Promise<void>;
  /** Ends the process whoever else uses it (a hung process, one that must be configured afresh). */
  terminate(): Promise<void>;
  /**
   * Present where several clients share the process: runs `configure` only if nobody configured it yet, answers
   * the first answer to the same configuration `key`, and 'differs' when it was configured otherwise.
   */
  configureOnce?<R>(key: string, configure: () => Promise<R>, ok: (r: R) => boolean): Promise<R | 'differs'>;
}

/** What another client needs to open its own channel to a running plugin (same address, same AutoMTLS pair). */
export interface ShareInfo {
  target: string;
  protocol: number;
  pid: number | undefined;
  /** The client certificate the plugin trusts (PEM) and its key, and the plugin's certificate (DER); none without TLS. */
  tls?: { certPem: string; keyPem: string; serverCertDer: Uint8Array };
}

/** The credentials and channel options for a plugin's address: AutoMTLS when `info.tls`, plaintext otherwise. */
function channelArgs(info: ShareInfo): { creds: grpc.ChannelCredentials; options: grpc.ChannelOptions } {
  return {
    creds: info.tls ? clientCredentials(info.tls, info.tls.serverCertDer) : grpcModule().credentials.createInsecure(),
    options: { ...GRPC_OPTIONS, ...(info.tls ? CLIENT_TLS_OPTIONS : {}) },
  };
}

/** A Provider service client on a plugin's address (the first channel of PluginProcess.start, or another one). */
export function connectProvider(info: ShareInfo): grpc.Client {
  const { creds, options } = channelArgs(info);
  const protos = loadProtos();
  const Svc = info.protocol === 5 ? protos.tfplugin5.Provider : protos.tfplugin6.Provider;
  return new Svc(info.target, creds, options);
}

const live = new Set<PluginProcess>();
let exitHook = false;
function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const p of live) p.child.kill('SIGKILL');
  });
}

function modeString(mode: number): string {
  const t = (mode & 0o170000) === 0o040000 ? 'd' : (mode & 0o170000) === 0o120000 ? 'L' : '-';
  const rwx = 'rwxrwxrwx';
  let s = '';
  for (let i = 0; i < 9; i++) s += mode & (1 << (8 - i)) ? rwx[i] : '-';
  return t + s;
}

function nameOf(file: string, id: number): string {
  try {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const f = line.split(':');
      if (f.length > 2 && Number(f[2]) === id) return f[0];
    }
  } catch {
    // no passwd/group file
  }
  return String(id);
}

/** go-plugin's "Additional notes about plugin" (Unix form). */
function pluginNotes(path: string, display: string): string {
  try {
    const st = statSync(path);
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    return (
      `\n\nAdditional notes about plugin:\n  Path: ${display}\n  Mode: ${modeString(st.mode)}\n` +
      `  Owner: ${st.uid} [${nameOf('/etc/passwd', st.uid)}] (current: ${uid} [${nameOf('/etc/passwd', uid)}])\n` +
      `  Group: ${st.gid} [${nameOf('/etc/group', st.gid)}] (current: ${gid} [${nameOf('/etc/group', gid)}])\n`
    );
  } catch {
    return `\n\nAdditional notes about plugin:\n  Path: ${display}\n`;
  }
}

const NO_LINES =
  "Failed to read any lines from plugin's stdout\nThis usually means\n  the plugin was not compiled for this architecture,\n  the plugin is missing dynamic-link libraries necessary to run,\n  the plugin is not executable by this process due to file permissions, or\n  the plugin failed to negotiate the initial go-plugin protocol handshake";

// ---- plugin panics (Terraform's internal/logging/panic.go) ---------------------------------------------------
// go-plugin logs each unstructured stderr line of a plugin; Terraform's wrapper records, per plugin (the binary's base
// name), every line from the first starting "panic: " or "fatal error: " (at most 101), and a command that exits
// non-zero prints each recording (main.go).

const panics = new Map<string, string[]>();

function registerPlugin(name: string): (line: string) => void {
  panics.delete(name);
  let inPanic = false;
  let count = 0;
  return (line) => {
    inPanic ||= line.startsWith('panic: ') || line.startsWith('fatal error: ');
    if (!inPanic || count > 100) return;
    count++;
    const lines = panics.get(name) ?? [];
    lines.push(line);
    panics.set(name, lines);
  };
}

/** The recorded plugin panics, formatted as Terraform prints them when a command fails. */
export function pluginPanics(): string[] {
  const out: string[] = [];
  for (const [name, lines] of panics) {
    if (lines.length === 0) continue;
    out.push(
      `\nStack trace from the ${name} plugin:\n\n${lines.join('\n')}\n\nError: The ${name} plugin crashed!\n\nThis is always indicative of a bug within the plugin. It would be immensely\nhelpful if you could report the crash with the plugin's maintainers so that it\ncan be fixed. The output above should help diagnose the issue.\n`,
    );
  }
  return out;
}

/** Terraform's provider logger: TF_LOG_PROVIDER, else TF_LOG; to TF_LOG_PATH or stderr. Undefined when off. */
export function terraformLogSink(env: Env, name: string): ((line: string) => void) | undefined {
  const level = (env.TF_LOG_PROVIDER || env.TF_LOG || '').toUpperCase();
  if (!level || level === 'OFF') return undefined;
  if (!['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'JSON'].includes(level) && level !== '1') {
    // Terraform treats any other non-empty value as TRACE.
  }
  if (level === 'INFO' || level === 'WARN' || level === 'ERROR') return undefined; // plugin output is logged at DEBUG
  const path = env.TF_LOG_PATH;
  return (line: string) => {
    const text = `${new Date().toISOString().replace(/(\.\d{3})\d*Z$/, '$1Z')} [DEBUG] provider.${name}: ${line}\n`;
    try {
      if (path) appendFileSync(path, text);
      else process.stderr.write(text);
    } catch {
      // logging never fails a run
    }
  };
}

function lineSplitter(onLine: (l: string) => void): (chunk: Buffer) => void {
  let buf = '';
  return (chunk) => {
    buf += chunk.toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      onLine(buf.slice(0, i).replace(/\r$/, ''));
      buf = buf.slice(i + 1);
    }
  };
}

export class PluginProcess implements PluginConnection {
  readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;
  private channelClients: grpc.Client[] = [];
  private killing?: Promise<void>;

  private constructor(
    readonly child: ChildProcess,
    readonly handshake: Handshake,
    /** The Provider service client (tfplugin5.Provider or tfplugin6.Provider). */
    readonly provider: grpc.Client,
    private readonly controller: grpc.Client,
    exited: Promise<number | null>,
    readonly startMs: number,
    /** What another channel needs to reach this plugin (see ShareInfo). */
    readonly share: ShareInfo,
  ) {
    this.exited = exited;
    exited.then((c) => (this.exitCode = c));
  }

  get protocol(): number {
    return this.handshake.appVersion;
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(opts: LaunchOptions): Promise<PluginProcess> {
    installExitHook();
    const t0 = performance.now();
    const env = opts.env ?? process.env;
    const versions = opts.versions ?? [5, 6];
    const display = opts.displayPath ?? opts.executable;
    const mtls = !env.TF_DISABLE_PLUGIN_TLS;
    const cert = mtls ? generateCertificate() : undefined;
    const childEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
    Object.assign(childEnv, pluginEnv({ versions, clientCertPem: cert?.certPem }));
    const name = basename(opts.executable);
    const log = opts.log ?? terraformLogSink(env, name) ?? (() => undefined);
    let child: ChildProcess;
    try {
      child = spawn(opts.executable, [], { cwd: opts.cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      throw new LaunchError(`fork/exec ${display}: ${(e as Error).message}`);
    }
    const exited = new Promise<number | null>((res) => {
      child.once('exit', (code, signal) => res(code ?? (signal ? -1 : null)));
      child.once('error', () => res(-1));
    });
    const recordPanic = registerPlugin(name);
    child.stderr!.on(
      'data',
      lineSplitter((l) => {
        // A JSON line is a structured log entry (hclog), not panic output.
        if (!l.startsWith('{')) recordPanic(l);
        log(l);
      }),
    );
    let spawnError: Error | undefined;
    child.once('error', (e) => (spawnError = e));
    // The first stdout line is the handshake; later lines are logged.
    const line = await new Promise<string | undefined>((resolveLine) => {
      let got = false;
      const timer = setTimeout(() => {
        if (!got) {
          got = true;
          resolveLine(undefined);
        }
      }, opts.startTimeoutMs ?? 60_000);
      child.stdout!.on(
        'data',
        lineSplitter((l) => {
          if (got) {
            log(l);
            return;
          }
          got = true;
          clearTimeout(timer);
          resolveLine(l);
        }),
      );
      void exited.then(() => {
        // Let stdout flush what it has before deciding that nothing came.
        setImmediate(() => {
          if (!got) {
            got = true;
            clearTimeout(timer);
            resolveLine('');
          }
        });
      });
    });
    const fail = (msg: string): never => {
      child.kill('SIGKILL');
      throw new LaunchError(msg);
    };
    if (spawnError) fail(`fork/exec ${display}: ${(spawnError as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : spawnError.message}`);
    if (line === undefined) fail('timeout while waiting for plugin to start');
    if (line === '') fail(`Unrecognized remote plugin message: \n${NO_LINES}${pluginNotes(opts.executable, display)}`);
    let hs: Handshake;
    try {
      hs = parseHandshake(line!, { versions });
    } catch (e) {
      const msg = (e as Error).message;
      return fail(msg.startsWith('Unrecognized remote plugin message') ? `${msg}\n${NO_LINES}${pluginNotes(opts.executable, display)}` : msg);
    }
    const target = hs.network === 'unix' ? `unix:${hs.address}` : hs.address;
    const share: ShareInfo = {
      target,
      protocol: hs.appVersion,
      pid: child.pid,
      tls: cert && hs.serverCertDer ? { certPem: cert.certPem, keyPem: cert.keyPem, serverCertDer: hs.serverCertDer } : undefined,
    };
    const { creds, options: chanOpts } = channelArgs(share);
    const protos = loadProtos();
    const provider = connectProvider(share);
    // Further clients share the provider client's channel.
    const shared = { channelOverride: provider.getChannel() };
    const controller = new protos.controller(target, creds, { ...chanOpts, ...shared } as grpc.ClientOptions);
    const proc = new PluginProcess(child, hs, provider, controller, exited, performance.now() - t0, share);
    live.add(proc);
    void exited.then(() => live.delete(proc));
    // Health (go-plugin's Ping), the stdio stream (drained into the log) and the broker stream, as go-plugin opens them.
    const health = new protos.health(target, creds, { ...chanOpts, ...shared } as grpc.ClientOptions);
    const stdio = new protos.stdio(target, creds, { ...chanOpts, ...shared } as grpc.ClientOptions);
    const broker = new protos.broker(target, creds, { ...chanOpts, ...shared } as grpc.ClientOptions);
    proc.channelClients.push(health, stdio, broker);
    const ok = await new Promise<string | undefined>((res) => {
      (health as any).Check({ service: 'plugin' }, { deadline: Date.now() + (opts.startTimeoutMs ?? 60_000) }, (err: grpc.ServiceError | null) => {
        if (!err || err.code === grpcModule().status.UNIMPLEMENTED) res(undefined);
        else res(err.details || err.message);
      });
      void exited.then(() => res('plugin exited before we could connect'));
    });
    if (ok !== undefined) {
      await proc.kill();
      throw new LaunchError(`error while connecting to the plugin: ${ok}`);
    }
    try {
      const s = (stdio as any).StreamStdio({});
      s.on('data', (d: { channel?: string; data?: Buffer }) => {
        if (d.data?.length) for (const l of d.data.toString('utf8').split('\n')) if (l) log(l);
      });
      s.on('error', () => undefined);
      const b = (broker as any).StartStream();
      b.on('data', () => undefined);
      b.on('error', () => undefined);
      void exited.then(() => {
        s.cancel?.();
        b.cancel?.();
      });
    } catch {
      // Streams are optional (go-plugin tolerates Unimplemented).
    }
    return proc;
  }

  terminate(): Promise<void> {
    return this.kill();
  }

  /** go-plugin's Kill: Shutdown over the controller, wait up to `graceMs` for the exit, then SIGKILL. */
  kill(graceMs = 2000): Promise<void> {
    if (this.killing) return this.killing;
    this.killing = (async () => {
      if (this.alive) {
        await new Promise<void>((res) => {
          const t = setTimeout(res, graceMs);
          (this.controller as any).Shutdown({}, { deadline: Date.now() + graceMs }, () => {
            clearTimeout(t);
            res();
          });
          void this.exited.then(() => {
            clearTimeout(t);
            res();
          });
        });
        if (this.alive) {
          // (The grace timer is cleared once the process exits: a pending timer would hold the command open.)
          let grace: NodeJS.Timeout | undefined;
          const exitedInTime = await Promise.race([this.exited.then(() => true), new Promise<boolean>((r) => (grace = setTimeout(() => r(false), graceMs)))]);
          clearTimeout(grace);
          if (!exitedInTime) this.child.kill('SIGKILL');
        }
        await this.exited;
      }
      for (const c of this.channelClients) c.close();
      this.controller.close();
      this.provider.close();
      live.delete(this);
    })();
    return this.killing;
  }
}
