// Provider binaries in the language server (issue 10 §1/§3): each worker thread (analysis, preview) has one
// ProviderPool (server/plugin/pool.ts), installed as the default pool of externalProvider (plugin/client/factory.ts),
// so the analysis' validation and the preview's plans reach a workspace's real providers (aws, ...). The processes
// themselves belong to the main thread's process host (plugin/client/shared.ts, started by main.ts): both pools get
// the same process per workspace and provider address, each over its own gRPC channel, so a provider starts once
// per workspace. Schemas come from the disk schema cache (plugin/schemacache.ts, keyed by the package hash), so a
// new process is not asked GetProviderSchema when a previous one already answered it.
//
//   Main thread (main.ts):
//     serveProcessHost()           (plugin/client/shared.ts) starts, shares, counts and ends the provider processes.
//     observeTrust(connection)     follows workspace trust (InitializationOptions.trusted, TrustNotification) and
//                                  tells every worker (BroadcastChannel TRUST_CHANNEL; new workers read the
//                                  FORESIGHT_LSP_TRUSTED environment variable they are created with, and ask again;
//                                  the analysis worker, started before initialize, also gets the trust with each
//                                  request: setWorkerTrust).
//     trackProviderProcesses()     a safety net: records the pid of every process a worker spawns itself; when the worker thread
//                                  is gone (terminated after a timeout, or disposed on shutdown) its processes get
//                                  SIGTERM, then SIGKILL after 2 s; all get SIGKILL when the server process exits.
//   Worker threads (analysisWorker.ts, preview/worker.ts):
//     installWorkerProviders()     creates the worker's pool (untrusted → it starts nothing and answers "Provider not
//                                  started in an untrusted workspace"), idle processes stop after
//                                  FORESIGHT_PROVIDER_IDLE_MS (default 5 minutes), all stop when the worker exits.
//     analysisProviders(dir, b, o) the provider factory of one analysis: built-in providers first, then the pooled
//                                  binaries; diagnostics() returns what the editor must show that validation alone
//                                  would swallow (the untrusted notice, a provider that failed to start).
//
// Worker threads cannot clean up when terminated (no code runs), and a child process outlives the thread that
// spawned it, hence the pid tracking on the main thread (every child a worker spawns, reported at spawn time).

import type { ChildProcess } from 'node:child_process';
import { existsSync, readlinkSync } from 'node:fs';
import { BroadcastChannel, isMainThread } from 'node:worker_threads';
import type { Diagnostic } from '../diags/diagnostic';
import type { Provider } from '../providers/provider';
import { externalProvider, setDefaultPool } from '../plugin/client/factory';
import { ProviderPool } from '../plugin/pool';
import { hostAvailable, hostLauncher } from '../plugin/client/shared';
import { TrustNotification } from './protocol';

export const TRUST_CHANNEL = 'foresight-lsp-trust';
export const PROCESS_CHANNEL = 'foresight-lsp-provider-processes';
const TRUST_ENV = 'FORESIGHT_LSP_TRUSTED';

/** A change of trust (broadcast), the answer to a new worker's ask, or the ask. */
type TrustMessage = { trusted: boolean; answer?: true } | { ask: true };
type ProcessMessage = { tid: string; pid: number; event: 'started' | 'exited' };

// ---- main thread -----------------------------------------------------------------------------------------------

interface TrustSource {
  onInitialize(handler: (params: any, ...rest: any[]) => any): unknown;
  onNotification(...args: any[]): unknown;
}

/**
 * Follows workspace trust on `connection` without taking over its handlers: the initialize handler and the
 * TrustNotification handler registered later (by the server and the preview) are wrapped so that trust is read
 * before they run. Call before startServer. Trust is false until initialize says otherwise (InitializationOptions
 * .trusted, default true), so a worker created earlier starts nothing by mistake.
 */
export function observeTrust(connection: TrustSource): { trusted(): boolean } {
  let trusted = false;
  const channel = new BroadcastChannel(TRUST_CHANNEL);
  channel.unref();
  const set = (t: boolean) => {
    trusted = t;
    process.env[TRUST_ENV] = t ? '1' : '0';
    channel.postMessage({ trusted: t } satisfies TrustMessage);
  };
  process.env[TRUST_ENV] = '0';
  channel.onmessage = (ev) => {
    const m = (ev as { data?: TrustMessage }).data;
    if (m && 'ask' in m) channel.postMessage({ trusted, answer: true } satisfies TrustMessage);
  };
  const onInitialize = connection.onInitialize.bind(connection);
  connection.onInitialize = (handler) =>
    onInitialize((params: { initializationOptions?: { trusted?: unknown } }, ...rest: unknown[]) => {
      set(params?.initializationOptions?.trusted !== false);
      return handler(params, ...rest);
    });
  const onNotification = connection.onNotification.bind(connection);
  connection.onNotification = (...args: any[]) => {
    const [type, handler] = args;
    const method = typeof type === 'string' ? type : (type as { method?: string } | undefined)?.method;
    if (method === TrustNotification.method && typeof handler === 'function')
      return onNotification(type, (p: { trusted?: unknown }, ...rest: unknown[]) => {
        set(p?.trusted !== false);
        return handler(p, ...rest);
      });
    return onNotification(...args);
  };
  return { trusted: () => trusted };
}

/** Main thread: kills the provider processes of worker threads that are gone, and all of them at exit. */
export function trackProviderProcesses(): { live(): number[]; stop(): void } {
  const byThread = new Map<string, Set<number>>();
  const channel = new BroadcastChannel(PROCESS_CHANNEL);
  channel.unref();
  const kill = (pid: number, signal: NodeJS.Signals) => {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  };
  const sweep = () => {
    for (const [tid, pids] of byThread) {
      if (existsSync(`/proc/self/task/${tid}`)) continue;
      byThread.delete(tid);
      for (const pid of pids) {
        kill(pid, 'SIGTERM');
        setTimeout(() => kill(pid, 'SIGKILL'), 2000).unref();
      }
    }
  };
  const timer = setInterval(sweep, 1000);
  timer.unref();
  channel.onmessage = (ev) => {
    const m = (ev as { data?: ProcessMessage }).data;
    if (!m || typeof m.pid !== 'number') return;
    let pids = byThread.get(m.tid);
    if (!pids) byThread.set(m.tid, (pids = new Set()));
    if (m.event === 'started') pids.add(m.pid);
    else pids.delete(m.pid);
  };
  const atExit = () => {
    for (const pids of byThread.values()) for (const pid of pids) kill(pid, 'SIGKILL');
  };
  process.on('exit', atExit);
  return {
    live: () => [...byThread.values()].flatMap((s) => [...s]),
    stop() {
      clearInterval(timer);
      channel.close();
      process.off('exit', atExit);
    },
  };
}

// ---- worker threads ------------------------------------------------------------------------------------------

let installed: { pool: ProviderPool; trusted(): boolean; setTrusted(t: boolean): void } | undefined;

/** On the main thread: whether the workspace is trusted now (observeTrust), for the requests it sends a worker. */
export function mainThreadTrusted(): boolean {
  return process.env[TRUST_ENV] === '1';
}

/**
 * In a worker: the trust the main thread had when it sent the request being handled (analysisWorker.ts). The analysis
 * worker starts before the client's initialize says whether the workspace is trusted: its environment says nothing,
 * and its ask on the trust channel can be answered before initialize, and that answer arrive after a request. So the
 * trust that comes with a request is applied before the request is handled, and from then on answers to the ask are
 * ignored (changes of trust still apply).
 */
export function setWorkerTrust(t: boolean): void {
  installed?.setTrusted(t);
}

/** The OS thread id of this thread ("" where /proc is not available). */
function threadId(): string {
  try {
    return readlinkSync('/proc/thread-self').split('/').pop() ?? '';
  } catch {
    return '';
  }
}

/**
 * Creates this worker's provider pool and makes it the default pool of externalProvider (once per thread). Returns
 * the pool, for tests and measurements.
 */
/**
 * The analysis worker bounds provider calls to half the time limit of each analysis, so a hung provider gives a
 * diagnostic (the pool's "Provider did not answer") before the analysis itself would be abandoned.
 */
export function setWorkerProviderCallTimeout(ms: number): void {
  if (ms > 0) installed?.pool.setCallTimeout(ms);
}

export function installWorkerProviders(): ProviderPool {
  if (installed) return installed.pool;
  if (isMainThread) throw new Error('installWorkerProviders runs in a worker thread');
  let trusted = process.env[TRUST_ENV] === '1';
  let fromRequest = false;
  const trust = new BroadcastChannel(TRUST_CHANNEL);
  trust.unref();
  trust.onmessage = (ev) => {
    const m = (ev as { data?: TrustMessage }).data;
    if (m && 'trusted' in m && !(m.answer && fromRequest)) trusted = m.trusted === true;
  };
  trust.postMessage({ ask: true } satisfies TrustMessage);

  // Every process this thread spawns is reported to the main thread from the moment it exists (see the header):
  // child_process.spawn of this thread's module instance is wrapped (plugin/client/process.ts calls it through the
  // module object, so a process in its handshake is known too).
  const tid = threadId();
  const procs = new BroadcastChannel(PROCESS_CHANNEL);
  procs.unref();
  const cp = require('node:child_process') as { spawn: (...args: unknown[]) => ChildProcess };
  const spawn = cp.spawn;
  cp.spawn = (...args: unknown[]) => {
    const child = spawn(...args);
    const pid = child.pid;
    if (tid && pid !== undefined) {
      procs.postMessage({ tid, pid, event: 'started' } satisfies ProcessMessage);
      child.once('exit', () => procs.postMessage({ tid, pid, event: 'exited' } satisfies ProcessMessage));
    }
    return child;
  };

  const idle = Number(process.env.FORESIGHT_PROVIDER_IDLE_MS);
  // With the main thread's process host (main.ts), both workers' pools use the same process per workspace and
  // address; without one (a worker made elsewhere, as in tests), this thread starts its own.
  const pool = new ProviderPool({ trusted: () => trusted, idleMs: idle > 0 ? idle : undefined, launch: hostAvailable() ? hostLauncher() : undefined });
  setDefaultPool(pool);
  installed = {
    pool,
    trusted: () => trusted,
    setTrusted: (t) => {
      trusted = t;
      fromRequest = true;
    },
  };
  return pool;
}

/** Summaries of schema failures validation would swallow but the editor shows (see analysisProviders). */
const QUIET = new Set(['Missing required provider', 'Required plugins are not installed']);

/**
 * The providers one analysis of `dir` validates with: `builtin` first (Foresight's own, allowed untrusted), then,
 * in a worker with a pool, the workspace's provider binaries. An uninitialised workspace keeps its editor quiet
 * (no "Missing required provider" error; withProviderDiagnostics warns at the requirement instead, from missing()); an untrusted one, or a
 * provider that fails to start, gets its diagnostic through diagnostics(), once per provider.
 */
export function analysisProviders(
  dir: string,
  builtin: (fqn: string) => Provider | undefined,
  builtinOnly = false,
): { providers(fqn: string): Provider | undefined; diagnostics(): Diagnostic[]; missing(): ReadonlySet<string> } {
  const made = new Map<string, Provider | undefined>();
  const notes: Diagnostic[] = [];
  const missing = new Set<string>();
  return {
    providers(fqn) {
      if (made.has(fqn)) return made.get(fqn);
      let p = builtin(fqn);
      if (!p && installed && !builtinOnly) {
        const ext = externalProvider({ workDir: dir, fqn });
        p = Object.create(ext) as Provider;
        p.getProviderSchema = async () => {
          const s = await ext.getProviderSchema();
          for (const d of s.diagnostics) {
            if (d.severity !== 'error') continue;
            if (QUIET.has(d.summary)) missing.add(fqn);
            else notes.push(d);
          }
          return s;
        };
      }
      made.set(fqn, p);
      return p;
    },
    diagnostics: () => notes,
    /** Providers neither built in nor installed (their schema request said so): missingProviderWarnings. */
    missing: () => missing,
  };
}
