// Provider processes shared between the threads of one Node process (the language server, issue 10 §1): the
// analysis worker validates and the preview worker plans with the same workspace's providers, and each provider
// binary must start once, not once per thread (the aws provider takes seconds and hundreds of MB per process).
//
//   serveProcessHost()   in the main thread: starts provider processes on the workers' behalf (PluginProcess.start,
//                        so the main thread owns and reaps them), one per key (working directory and executable),
//                        counts each thread's uses, ends a process when no thread uses it any more or its threads
//                        are gone (a terminated worker runs no clean-up code), and tells every thread when a process
//                        exits. Configure-once (pool.ts) holds across threads: the host remembers each process's
//                        configuration and first answer; a thread that needs another configuration asks for a fresh
//                        process (the old one goes on serving its other users, and later starts get the new one).
//   hostLauncher()       in a worker: a launch function for ProviderPool that asks the host and opens this thread's
//                        own gRPC channel to the process (the same address and AutoMTLS pair: go-plugin's server
//                        accepts any number of connections from a client holding the certificate it trusts).
//                        Calls go straight from the worker to the provider; only start, release, terminate and
//                        configure bookkeeping pass through the main thread.
// The messages travel on one BroadcastChannel (PROCESS_HOST_CHANNEL); answers name the thread they are for.

import { existsSync, readlinkSync } from 'node:fs';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import type * as grpc from '@grpc/grpc-js';
import { PROCESS_HOST_ENV } from './hostEnv';
import { connectProvider, LaunchError, PluginProcess, type LaunchOptions, type PluginConnection, type ShareInfo } from './process';

export const PROCESS_HOST_CHANNEL = 'foresight-provider-host';
export { PROCESS_HOST_ENV };

type Launch = Omit<LaunchOptions, 'log'>;
type ClaimAnswer = { go: true } | { done: unknown } | { differs: true };

type ToHost =
  | { op: 'attach'; rid: number; from: number; tid: string; key: string; launch: Launch; fresh?: boolean }
  | { op: 'release'; id: number; tid: string }
  | { op: 'terminate'; id: number }
  | { op: 'claim'; rid: number; from: number; tid: string; id: number; key: string }
  | { op: 'configured'; id: number; key: string; response?: unknown };

type FromHost =
  | { op: 'attached'; rid: number; to: number; id: number; info: ShareInfo; alive: boolean }
  | { op: 'failed'; rid: number; to: number; message: string }
  | { op: 'claimed'; rid: number; to: number; answer: ClaimAnswer }
  | { op: 'exited'; id: number; code: number | null };

/** The OS thread id of this thread ("" where /proc is not available), to notice threads that are gone. */
export function osThreadId(): string {
  try {
    return readlinkSync('/proc/thread-self').split('/').pop() ?? '';
  } catch {
    return '';
  }
}

function threadGone(tid: string): boolean {
  return tid !== '' && !existsSync(`/proc/self/task/${tid}`);
}

// ---- main thread ------------------------------------------------------------------------------------------------

interface HostEntry {
  id: number;
  key: string;
  proc: Promise<PluginProcess | LaunchError>;
  /** Uses per OS thread id. */
  refs: Map<string, number>;
  gone: boolean;
  configured?: { key: string; response: unknown };
  configuring?: { key: string; tid: string; waiters: Array<() => void> };
}

export interface ProcessHost {
  /** Process ids of the running processes (tests). */
  pids(): Promise<number[]>;
  /** Ends every process and stops listening. */
  stop(): Promise<void>;
}

export function serveProcessHost(opts: { sweepMs?: number } = {}): ProcessHost {
  const channel = new BroadcastChannel(PROCESS_HOST_CHANNEL);
  channel.unref();
  process.env[PROCESS_HOST_ENV] = '1';
  const byKey = new Map<string, HostEntry>();
  const byId = new Map<number, HostEntry>();
  let next = 1;
  const post = (m: FromHost) => channel.postMessage(m);

  const forget = (e: HostEntry) => {
    e.gone = true;
    byId.delete(e.id);
    if (byKey.get(e.key) === e) byKey.delete(e.key);
    const w = e.configuring?.waiters ?? [];
    e.configuring = undefined;
    for (const f of w) f();
  };
  const end = async (e: HostEntry) => {
    forget(e);
    const p = await e.proc;
    if (!(p instanceof LaunchError)) await p.kill();
  };
  const unref = (e: HostEntry, tid: string, all: boolean) => {
    const n = e.refs.get(tid) ?? 0;
    if (all || n <= 1) e.refs.delete(tid);
    else e.refs.set(tid, n - 1);
    if (e.refs.size === 0) void end(e);
  };

  const attach = async (m: Extract<ToHost, { op: 'attach' }>): Promise<void> => {
    let e = byKey.get(m.key);
    // fresh: a new process even when one is running (that one goes on serving its other users, and ends with them).
    if (!e || e.gone || m.fresh) {
      const id = next++;
      const proc = PluginProcess.start(m.launch).catch((err: unknown) => (err instanceof LaunchError ? err : new LaunchError(err instanceof Error ? err.message : String(err))));
      const entry: HostEntry = { id, key: m.key, proc, refs: new Map(), gone: false };
      e = entry;
      byKey.set(m.key, entry);
      byId.set(id, entry);
      void proc.then((p) => {
        if (p instanceof LaunchError) return forget(entry);
        void p.exited.then((code) => {
          forget(entry);
          post({ op: 'exited', id, code });
        });
      });
    }
    const entry = e;
    entry.refs.set(m.tid, (entry.refs.get(m.tid) ?? 0) + 1);
    const p = await entry.proc;
    if (p instanceof LaunchError) {
      entry.refs.delete(m.tid);
      post({ op: 'failed', rid: m.rid, to: m.from, message: p.message });
      return;
    }
    if (!p.alive && !m.fresh) {
      // It exited just now (before its exit was noticed): start another rather than hand out a dead one.
      unref(entry, m.tid, false);
      forget(entry);
      return attach(m);
    }
    post({ op: 'attached', rid: m.rid, to: m.from, id: entry.id, info: p.share, alive: p.alive });
  };

  const claim = (m: Extract<ToHost, { op: 'claim' }>) => {
    const e = byId.get(m.id);
    const answer = (a: ClaimAnswer) => post({ op: 'claimed', rid: m.rid, to: m.from, answer: a });
    if (!e) return answer({ go: true }); // the process is gone: the call itself will say so
    if (e.configured) return answer(e.configured.key === m.key ? { done: e.configured.response } : { differs: true });
    if (e.configuring) return void e.configuring.waiters.push(() => claim(m));
    e.configuring = { key: m.key, tid: m.tid, waiters: [] };
    answer({ go: true });
  };

  channel.onmessage = (ev) => {
    const m = (ev as { data?: ToHost }).data;
    if (!m || typeof m !== 'object') return;
    switch (m.op) {
      case 'attach':
        void attach(m);
        return;
      case 'release': {
        const e = byId.get(m.id);
        if (e) unref(e, m.tid, false);
        return;
      }
      case 'terminate': {
        const e = byId.get(m.id);
        if (e) void end(e);
        return;
      }
      case 'claim':
        claim(m);
        return;
      case 'configured': {
        const e = byId.get(m.id);
        if (!e) return;
        const w = e.configuring?.waiters ?? [];
        e.configuring = undefined;
        if (m.response !== undefined) e.configured = { key: m.key, response: m.response };
        for (const f of w) f();
        return;
      }
    }
  };

  // Threads that are gone (terminated workers) release what they used; a configuration they left half done is
  // given up, so the next claim goes ahead.
  const sweep = setInterval(() => {
    for (const e of [...byId.values()]) {
      for (const tid of [...e.refs.keys()]) if (threadGone(tid)) unref(e, tid, true);
      if (e.configuring && threadGone(e.configuring.tid)) {
        const w = e.configuring.waiters;
        e.configuring = undefined;
        for (const f of w) f();
      }
    }
  }, opts.sweepMs ?? 1000);
  sweep.unref();

  return {
    async pids() {
      const out: number[] = [];
      for (const e of byId.values()) {
        const p = await e.proc;
        if (!(p instanceof LaunchError) && p.alive && p.pid !== undefined) out.push(p.pid);
      }
      return out;
    },
    async stop() {
      clearInterval(sweep);
      channel.close();
      delete process.env[PROCESS_HOST_ENV];
      await Promise.all([...byId.values()].map(end));
    },
  };
}

// ---- worker threads -----------------------------------------------------------------------------------------

let workerSide:
  | {
      channel: BroadcastChannel;
      tid: string;
      pending: Map<number, (m: FromHost) => void>;
      conns: Map<number, Set<SharedConnection>>;
      rid: number;
      /** Waits in progress (questions, exits): the channel keeps the thread alive only while there are some. */
      waits: number;
    }
  | undefined;

function side(): NonNullable<typeof workerSide> {
  if (workerSide) return workerSide;
  const channel = new BroadcastChannel(PROCESS_HOST_CHANNEL);
  channel.unref();
  const s = { channel, tid: osThreadId(), pending: new Map<number, (m: FromHost) => void>(), conns: new Map<number, Set<SharedConnection>>(), rid: 0, waits: 0 };
  channel.onmessage = (ev) => {
    const m = (ev as { data?: FromHost }).data;
    if (!m || typeof m !== 'object') return;
    if (m.op === 'exited') {
      for (const c of s.conns.get(m.id) ?? []) c.markExited(m.code);
      s.conns.delete(m.id);
      return;
    }
    if (!('to' in m) || m.to !== threadId) return;
    const f = s.pending.get(m.rid);
    s.pending.delete(m.rid);
    f?.(m);
  };
  workerSide = s;
  return s;
}

/** Keeps this thread alive (the channel referenced) until `p` settles: the channel is unref'd otherwise. */
async function held<T>(p: Promise<T>): Promise<T> {
  const s = side();
  if (s.waits++ === 0) s.channel.ref();
  try {
    return await p;
  } finally {
    if (--s.waits === 0) s.channel.unref();
  }
}

function ask(build: (rid: number) => ToHost): Promise<FromHost> {
  const s = side();
  const rid = ++s.rid;
  return held(
    new Promise((res) => {
      s.pending.set(rid, res);
      s.channel.postMessage(build(rid));
    }),
  );
}

/** Whether this thread was created after a process host started (its environment says so). */
export function hostAvailable(): boolean {
  return process.env[PROCESS_HOST_ENV] === '1';
}

/** A launch function (for ProviderPool) that starts processes through the main thread's host. */
export function hostLauncher(): (opts: LaunchOptions, how?: { fresh?: boolean }) => Promise<PluginConnection> {
  return async (opts, how) => {
    const s = side();
    const { log: _log, ...launch } = opts;
    const key = `${opts.cwd ?? ''}\0${opts.executable}`;
    const m = await ask((rid) => ({ op: 'attach', rid, from: threadId, tid: s.tid, key, fresh: how?.fresh, launch: { ...launch, env: launch.env ? { ...launch.env } : undefined } }));
    if (m.op === 'failed') throw new LaunchError(m.message);
    if (m.op !== 'attached') throw new LaunchError('unexpected answer from the provider host');
    const c = new SharedConnection(m.id, m.info);
    if (!m.alive) c.markExited(null);
    else {
      let set = s.conns.get(m.id);
      if (!set) s.conns.set(m.id, (set = new Set()));
      set.add(c);
    }
    return c;
  };
}

/** This thread's channel to a process the host owns. */
class SharedConnection implements PluginConnection {
  readonly provider: grpc.Client;
  readonly protocol: number;
  readonly pid: number | undefined;
  readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;
  private resolveExit!: (c: number | null) => void;
  private released = false;

  constructor(
    private readonly id: number,
    info: ShareInfo,
  ) {
    this.provider = connectProvider(info);
    this.protocol = info.protocol;
    this.pid = info.pid;
    this.exited = new Promise((r) => (this.resolveExit = r));
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  markExited(code: number | null): void {
    if (this.exitCode !== undefined) return;
    this.exitCode = code;
    this.resolveExit(code);
    this.provider.close();
  }

  private forget(): void {
    side().conns.get(this.id)?.delete(this);
  }

  async kill(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.forget();
    this.provider.close();
    const s = side();
    s.channel.postMessage({ op: 'release', id: this.id, tid: s.tid } satisfies ToHost);
  }

  async terminate(): Promise<void> {
    const wasReleased = this.released;
    this.released = true;
    side().channel.postMessage({ op: 'terminate', id: this.id } satisfies ToHost);
    if (!wasReleased && this.alive) await held(Promise.race([this.exited, new Promise((r) => setTimeout(r, 5000).unref())]));
    this.forget();
    this.provider.close();
  }

  async configureOnce<R>(key: string, configure: () => Promise<R>, ok: (r: R) => boolean): Promise<R | 'differs'> {
    const s = side();
    const m = await ask((rid) => ({ op: 'claim', rid, from: threadId, tid: s.tid, id: this.id, key }));
    if (m.op !== 'claimed') throw new Error('unexpected answer from the provider host');
    if ('done' in m.answer) return m.answer.done as R;
    if ('differs' in m.answer) return 'differs';
    let r: R | undefined;
    try {
      r = await configure();
      return r;
    } finally {
      s.channel.postMessage({ op: 'configured', id: this.id, key, response: r !== undefined && ok(r) ? r : undefined } satisfies ToHost);
    }
  }
}
