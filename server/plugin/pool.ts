// Provider processes pooled per workspace, for the language server (issue 10 §1): a provider binary is started once
// and reused by every later validation and preview of the same working directory, so start-up (0.3 s for a Node
// provider, 0.5–5 s for the 700 MB aws binary) and GetProviderSchema (1.5–2 s for aws; answered from the on-disk
// schema cache after the first time) are paid once.
//
//   new ProviderPool(opts)
//   pool.provider(workDir, fqn)  the pooled Provider for that workspace and address, or Terraform's diagnostic when
//                                there is none (not installed, hash mismatch, missing lock entry), or — in an
//                                untrusted workspace (opts.trusted false) — a diagnostic saying no binary was started.
//                                The binary is located again on each call (cheap: hashes are cached by file identity),
//                                so a re-initialised workspace gets the new binary.
//   The handle's close() only releases it; processes end when idle for opts.idleMs (default 5 minutes), when
//   they crashed (the next call starts a fresh one: "restarted after a crash"), or on pool.stopAll() (shutdown).
//   Calls have a deadline (opts.callTimeoutMs, default 120 s) so a hung provider cannot stall the server forever;
//   ApplyResourceChange has none (a real create may take many minutes; runs are cancelled with StopProvider).
// Values: every call goes to the current process; a restarted process is unconfigured, as a fresh one in Terraform is
// (the engine configures providers at the start of every run).

import type { Diagnostic } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type * as P from '../providers/provider';
import type { Env } from './discovery';
import { binaryProvider, locate, missingProvider } from './client/factory';
import type { GrpcProvider } from './client/provider';
import type { LaunchOptions, PluginConnection } from './client/process';

export interface PoolOptions {
  /** Whether binaries may be started (false in an untrusted workspace). A function is asked on every use. */
  trusted: boolean | (() => boolean);
  idleMs?: number;
  callTimeoutMs?: number;
  env?: Env;
  /** Starts a process (default: PluginProcess.start; the language server's workers share processes, client/shared.ts). */
  launch?: (opts: LaunchOptions, how?: { fresh?: boolean }) => Promise<PluginConnection>;
}

interface Entry {
  key: string;
  executable: string;
  current?: GrpcProvider;
  idle?: NodeJS.Timeout;
  starts: number;
  /** Calls in progress: the idle timer runs only while there are none. */
  inflight: number;
  /** The next process must be a new one (shared launch): the current one is configured otherwise. */
  fresh?: boolean;
  /** The configuration the current process was configured with, and its answer. */
  configured?: { proc: GrpcProvider; key: string; response: P.ConfigureProviderResponse };
}

export class ProviderPool {
  private readonly entries = new Map<string, Entry>();
  private stopped = false;

  constructor(private readonly opts: PoolOptions) {}

  /** Changes the call deadline, for the processes running and those to come (the analysis worker's limit). */
  setCallTimeout(ms: number): void {
    this.opts.callTimeoutMs = ms;
  }
  private callTimeout(): number {
    return this.opts.callTimeoutMs ?? 120_000;
  }

  private get trusted(): boolean {
    return typeof this.opts.trusted === 'function' ? this.opts.trusted() : this.opts.trusted;
  }

  /** Number of processes started per "workDir\0fqn" key (for tests and measurements). */
  starts(workDir: string, fqn: string): number {
    return this.entries.get(`${workDir}\0${fqn}`)?.starts ?? 0;
  }

  async provider(workDir: string, fqn: string): Promise<P.Provider | Diagnostic> {
    const env = this.opts.env ?? process.env;
    const loc = await locate(workDir, fqn, env).catch((e: unknown) => ({ kind: 'error' as const, diagnostic: error('Failed to load plugin schemas', (e as Error).message) }));
    if (loc.kind === 'missing') return missingProvider(fqn);
    if (loc.kind === 'error') return loc.diagnostic;
    if (!this.trusted || this.stopped)
      return error(
        'Provider not started in an untrusted workspace',
        `Foresight does not run provider binaries in a workspace you have not trusted, so ${fqn} (${loc.executable}) was not started. Trust the workspace to validate and preview with this provider.`,
      );
    const key = `${workDir}\0${fqn}`;
    let e = this.entries.get(key);
    if (e && e.executable !== loc.executable) {
      await this.retire(e);
      e = undefined;
    }
    if (!e) {
      e = { key, executable: loc.executable, starts: 0, inflight: 0 };
      this.entries.set(key, e);
    }
    const entry = e;
    const current = async (): Promise<GrpcProvider> => {
      if (entry.current && (await entry.current.dead())) {
        void entry.current.close();
        entry.current = undefined;
      }
      if (!entry.current) {
        const launch = this.opts.launch;
        const fresh = entry.fresh === true;
        entry.fresh = undefined;
        entry.current = binaryProvider(workDir, loc, env, { callTimeoutMs: () => this.callTimeout(), launch: launch && ((o: LaunchOptions) => launch(o, { fresh })) });
        entry.starts++;
      }
      return entry.current;
    };
    const handle: Record<string, unknown> = {};
    for (const m of [
      'getProviderSchema',
      'validateProviderConfig',
      'validateResourceConfig',
      'validateDataResourceConfig',
      'configureProvider',
      'upgradeResourceState',
      'readResource',
      'planResourceChange',
      'applyResourceChange',
      'importResourceState',
      'moveResourceState',
      'readDataSource',
      'stopProvider',
    ]) {
      handle[m] = async (req?: unknown) => {
        entry.inflight++;
        if (entry.idle) clearTimeout(entry.idle);
        entry.idle = undefined;
        try {
          if (m === 'configureProvider') return await this.configure(entry, current, req as P.ConfigureProviderRequest);
          const p = await current();
          const res = (await (p as unknown as Record<string, (r?: unknown) => Promise<unknown>>)[m](req)) as { diagnostics?: Diagnostic[] };
          if (!res?.diagnostics?.some((d) => d.detail?.includes('code = DeadlineExceeded'))) return res;
          // Hung past the deadline: the process is stopped (the next call starts a fresh one) and the caller gets
          // a diagnostic that says so, instead of the raw deadline error.
          if (entry.current === p) {
            entry.current = undefined;
            void p.terminate();
          }
          const rpc = m[0].toUpperCase() + m.slice(1);
          const secs = (this.callTimeout() / 1000).toFixed(0);
          return {
            ...res,
            diagnostics: [
              error(
                'Provider did not answer',
                `${fqn} (${loc.executable}) did not answer ${rpc} within ${secs} s, so Foresight stopped the provider process; it starts again for the next request.`,
              ),
            ],
          };
        } finally {
          entry.inflight--;
          if (entry.inflight === 0) this.touch(entry);
        }
      };
    }
    handle.close = async () => undefined;
    return handle as unknown as P.Provider;
  }

  /**
   * ConfigureProvider through the pool. A provider process is configured once, as Terraform's are (the aws provider,
   * for one, fails a second ConfigureProvider): the same configuration again is answered with the first answer; a
   * different one gets a fresh process, configured with it.
   */
  private async configure(entry: Entry, current: () => Promise<GrpcProvider>, req: P.ConfigureProviderRequest): Promise<P.ConfigureProviderResponse> {
    const key = `${req.terraformVersion}\0${String(req.config)}`;
    let p = await current();
    const shared = await p.connection();
    if (shared?.configureOnce) {
      // A process other threads use too: the host remembers its configuration (client/shared.ts).
      const ok = (r: P.ConfigureProviderResponse) => !r.diagnostics.some((d) => d.severity === 'error');
      const r = await shared.configureOnce(key, () => p.configureProvider(req), ok);
      if (r !== 'differs') return r;
      // Configured otherwise (by another thread, or before the provider block changed): this thread lets go of
      // that process, which goes on serving the others, and gets a new one of its own.
      if (entry.current === p) {
        entry.current = undefined;
        entry.fresh = true;
      }
      void p.close();
      p = await current();
      const fresh = await p.connection();
      const again = fresh?.configureOnce ? await fresh.configureOnce(key, () => p.configureProvider(req), ok) : await p.configureProvider(req);
      return again === 'differs' ? p.configureProvider(req) : again;
    }
    const done = entry.configured;
    if (done && done.proc === p) {
      if (done.key === key) return done.response;
      entry.current = undefined;
      entry.configured = undefined;
      void p.terminate();
      p = await current();
    }
    const res = await p.configureProvider(req);
    if (!res.diagnostics.some((d) => d.severity === 'error') && entry.current === p) entry.configured = { proc: p, key, response: res };
    return res;
  }

  private touch(e: Entry): void {
    if (e.idle) clearTimeout(e.idle);
    e.idle = setTimeout(() => void this.retire(e, false), this.opts.idleMs ?? 5 * 60_000);
    e.idle.unref();
  }

  private async retire(e: Entry, forget = true): Promise<void> {
    if (e.idle) clearTimeout(e.idle);
    e.idle = undefined;
    const p = e.current;
    e.current = undefined;
    if (forget) this.entries.delete(e.key);
    if (p) await p.close();
  }

  /** Whether a process is running for this workspace and address. */
  async running(workDir: string, fqn: string): Promise<boolean> {
    const e = this.entries.get(`${workDir}\0${fqn}`);
    return !!e?.current && !(await e.current.dead()) && !!(await e.current.process());
  }

  /** Stops every process (language server shutdown); the pool starts nothing afterwards. */
  async stopAll(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.entries.values()].map((e) => this.retire(e)));
  }
}
