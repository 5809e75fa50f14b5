// Directory analysis off the main thread.
//
// The language server's main thread must stay responsive (formatting, symbols, cancellation) while a large
// module is analysed, and must survive an analysis that never ends. So analyses run in a worker thread
// running this same bundle (main.ts dispatches on workerData.role). WorkerEngine is the Engine the server
// uses: it forwards analyzeDirectory to the worker and formats on the main thread (fast, synchronous). An
// analysis that exceeds the time limit is abandoned: the worker is terminated, the call rejects (the
// scheduler logs it and keeps the previous diagnostics) and the next call starts a fresh worker, giving that
// directory twice the time (up to 16 times the limit). Provider calls made by an analysis get half its limit
// (the worker's pool, ./providers.ts): a hung provider gives "Provider did not answer" at the resource and its
// process is stopped, so the analysis ends with that diagnostic instead of being abandoned.
//
// Order: the worker runs one analysis at a time; the requests waiting for it are served newest first, since
// the newest comes from the directory the user touched last (many-module workspaces: the module of the file
// being edited is analysed before the others). A waiting request for a directory that gets a newer request
// is answered by the newer one's result (the scheduler would drop the older result anyway). The time limit
// counts from the moment the worker takes the request.
//
// Preview plans (Engine.preview, preview/worker.ts) are made in this worker too, after the analyses queued before
// them, sharing the analysis's per-file cache (one copy of the module's model in the server). Analyses come first:
// an analysis request stops the preview being made, which is answered "interrupted" and asked again by the main side.

import { getPriority, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { parentPort, type Worker } from 'node:worker_threads';
import { messageDiagnostic, type Diagnostic } from '../diags/diagnostic';
import type { DirectoryAnalysis, Engine } from './engine';
import { trace, tracing, type Logger } from './log';
import { installWorkerProviders, mainThreadTrusted, setWorkerProviderCallTimeout, setWorkerTrust } from './providers';
import { failureText, interruptPreviews, PREVIEW_INTERRUPTED, Refusal, type PreviewCall } from './preview/worker';
import { INITIAL_MEMORY_LIMIT_MB, MAX_MEMORY_LIMIT_MB, spawnAnalysisWorker, takeEarlyAnalysisWorker } from './analysisSpawn';

export { ANALYSIS_WORKER_ROLE } from './analysisSpawn';

/** The text the first pass is warmed up with (never written anywhere). */
const WARM_UP = 'variable "v" {\n  default = 1\n}\n\nresource "terraform_data" "w" {\n  input = { a = var.v }\n}\n';

/**
 * One analysis. The overlays travel as a change to those of the directory's previous request to the same
 * worker (`full` starts over): with hundreds of open documents, an edit sends one text, not all of them.
 */
interface Request {
  id: number;
  dir: string;
  full: boolean;
  set: [string, string][];
  removed: string[];
  /** The deadline of provider calls: half the time limit of this analysis. */
  callTimeoutMs: number;
  /** Whether the workspace was trusted when the request was sent (providers.ts setWorkerTrust). */
  trusted: boolean;
}

/** `ms`: the analysis's time in the worker; `heapMB`: the worker's V8 heap in use after it (for tracing). */
type Response =
  | { id: number; diagnostics: [string, Diagnostic[]][]; general: Diagnostic[]; ms: number; heapMB: number }
  | { id: number; failure: string };

/**
 * A preview call (Engine.preview) and its answer. A refusal's error starts with "refusal:", as the preview worker's
 * (preview/index.ts shows it as RequestFailed).
 */
interface PreviewMessage {
  id: number;
  call: PreviewCall;
  /** As Request's. */
  trusted: boolean;
}
type PreviewAnswer = { id: number; previewResult: unknown } | { id: number; previewError: string };

/** The process's memory for tracing: RSS, the main thread's V8 heap, and memory outside V8 heaps (WebAssembly, buffers). */
function memory(): string {
  const m = process.memoryUsage();
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MB`;
  return `rss ${mb(m.rss)}, main heap ${mb(m.heapUsed)} of ${mb(m.heapTotal)}, external ${mb(m.external)}`;
}

/** The nice value of the analysis worker thread (Linux): background work beside the thread that answers the editor. */
export const ANALYSIS_WORKER_NICE = 5;

/**
 * Lowers the calling worker thread's scheduling priority to ANALYSIS_WORKER_NICE, never raising it. On Linux the nice
 * value belongs to the thread, so the main thread (syntax errors as you type, hover, completion, the LSP messages)
 * keeps its own and preempts the analysis when the cores are busy; measured on the 2-core bench machine with the
 * worker analysing 5,000 resources: edit -> syntax diagnostics p50 18-21 -> 13-14 ms, p95 34-38 -> 30-32 ms. Elsewhere
 * the value is the whole process's, so nothing is changed.
 */
function lowerWorkerPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    if (getPriority(0) < ANALYSIS_WORKER_NICE) setPriority(0, ANALYSIS_WORKER_NICE);
  } catch {
    // Not permitted or not supported: the worker runs at the process's priority.
  }
}

/** Worker side: answers analysis requests with `engine` until the thread is terminated. */
export function serveAnalysis(engine: Engine): void {
  const port = parentPort;
  if (!port) throw new Error('serveAnalysis must run in a worker thread');
  installWorkerProviders(); // the workspace's provider binaries, pooled (trusted workspaces only)
  lowerWorkerPriority();
  const ready = engine.init();
  const overlaysByDir = new Map<string, Map<string, string>>();
  // One thing at a time: the requests (the main side sends one at a time) and, after a directory's first
  // analysis, its priming (Engine.prime), which stops before its next step once a request is waiting.
  let chain: Promise<void> = Promise.resolve();
  let waiting = 0;
  /** Preview calls queued on the chain (priming gives way to them too). */
  let previewsWaiting = 0;
  const primed = new Set<string>();
  const primedPreviews = new Set<string>();
  port.on('message', (msg: Request | PreviewMessage) => {
    setWorkerTrust(msg.trusted);
    if ('call' in msg) return onPreview(msg);
    const req = msg;
    waiting++;
    // Analyses come first: a preview being made stops at its walk's next step (the main thread makes it again).
    interruptPreviews();
    // A step that fails must not stop the ones after it (handle answers its own failures).
    chain = chain
      .then(() => {
        waiting--;
        return handle(req);
      })
      .catch(() => undefined);
  });
  // Preview calls: a plan waits for the analyses before it (the chain) and gives way to those that come while
  // it runs; a hover or a planned diff reads the kept plans at once.
  const onPreview = (msg: PreviewMessage): void => {
    const answer = async (make: () => Promise<unknown>): Promise<boolean> => {
      let a: PreviewAnswer;
      try {
        if (!engine.preview) throw new Error('this engine makes no previews');
        a = { id: msg.id, previewResult: await make() };
      } catch (e) {
        a = { id: msg.id, previewError: failureText(e) };
      }
      try {
        port.postMessage(a);
      } catch (e) {
        port.postMessage({ id: msg.id, previewError: `the preview could not be sent: ${e instanceof Error ? e.message : String(e)}` });
        return false;
      }
      return 'previewResult' in a;
    };
    const run = () => engine.preview!(msg.call);
    if (msg.call.kind !== 'preview') {
      void answer(async () => {
        await ready;
        return run();
      });
      return;
    }
    const call = msg.call;
    previewsWaiting++;
    chain = chain
      .then(() => {
        previewsWaiting--;
        return answer(async () => {
          await ready;
          if (waiting > 0) throw new Refusal(PREVIEW_INTERRUPTED);
          return run();
        });
      })
      .then((made) => {
        // After a directory's first preview, in idle time (Engine.primePreview), as after its first analysis.
        const prime = engine.primePreview;
        if (!made || !prime || primedPreviews.has(call.dir)) return;
        primedPreviews.add(call.dir);
        chain = chain.then(() => prime.call(engine, call.dir, () => waiting > 0 || previewsWaiting > 0)).catch(() => undefined);
      })
      .catch(() => undefined);
  };
  const handle = async (req: Request): Promise<void> => {
    let res: Response;
    try {
      let overlays = overlaysByDir.get(req.dir);
      if (req.full || !overlays) overlaysByDir.set(req.dir, (overlays = new Map()));
      for (const p of req.removed) overlays.delete(p);
      for (const [p, t] of req.set) overlays.set(p, t);
      await ready;
      setWorkerProviderCallTimeout(req.callTimeoutMs);
      const t0 = performance.now();
      const a = await engine.analyzeDirectory(req.dir, new Map(overlays));
      const ms = performance.now() - t0;
      // Ranges as plain objects: a message copies an OffsetRange's fields, not its positions.
      const plain = (ds: Diagnostic[]) => ds.map(messageDiagnostic);
      res = { id: req.id, diagnostics: [...a.diagnostics].map(([p, ds]) => [p, plain(ds)]), general: plain(a.general), ms, heapMB: getHeapStatistics().used_heap_size / 2 ** 20 };
    } catch (e) {
      res = { id: req.id, failure: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    }
    try {
      port.postMessage(res);
    } catch (e) {
      // A result that cannot be sent (not cloneable) is answered as a failure, so the caller does not wait for it.
      res = { id: req.id, failure: `the analysis result could not be sent: ${e instanceof Error ? e.message : String(e)}` };
      port.postMessage(res);
    }
    const prime = engine.prime;
    if (prime && !('failure' in res) && !primed.has(req.dir)) {
      primed.add(req.dir);
      chain = chain.then(() => prime.call(engine, req.dir, () => waiting > 0)).catch(() => undefined);
    }
  };
}

interface Pending {
  resolve(a: DirectoryAnalysis): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
  /** performance.now() when the request was posted. */
  sent: number;
}

interface Queued {
  dir: string;
  overlays: Map<string, string>;
  callers: { resolve(a: DirectoryAnalysis): void; reject(e: Error): void }[];
  /** Sent again after the worker ran out of memory (once). */
  retried?: boolean;
}

const OUT_OF_MEMORY = 'the analysis worker ran out of memory';

/** Main side: an Engine whose analyses run in a worker (see the module comment). */
export class WorkerEngine implements Engine {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Requests not yet given to the worker, oldest first (served from the end). */
  private readonly queue: Queued[] = [];
  private busy = false;

  /** Milliseconds an analysis may take before its worker is terminated. */
  timeoutMs = 30_000;

  /** The worker's V8 old-generation limit (analysisSpawn.ts INITIAL_MEMORY_LIMIT_MB), doubled when it runs out. */
  memoryLimitMb = INITIAL_MEMORY_LIMIT_MB;

  constructor(
    /** The script the worker runs (the server bundle itself). */
    private readonly script: string,
    /** The engine used on the main thread (init and format). */
    private readonly local: Engine,
  ) {}

  /**
   * Also starts the worker, so that it has loaded its code and parser by the time the first file opens, and
   * runs the single-file first pass once on a small text, so that its code is compiled and the built-in
   * providers' schemas are loaded before a user's file needs it (cold open).
   */
  init(): Promise<void> {
    this.ensureWorker();
    return this.local.init().then(() => {
      const warm = this.local.analyzeFile;
      if (warm) setImmediate(() => void warm(join(tmpdir(), 'foresight-warm-up.tf'), WARM_UP).catch(() => undefined));
    });
  }

  /** The single-file first pass runs on the main thread (one small file; the worker may be busy). */
  analyzeFile(path: string, text: string) {
    if (!this.local.analyzeFile) return Promise.resolve([]);
    return this.local.analyzeFile(path, text);
  }

  format(text: string, filename: string) {
    return this.local.format(text, filename);
  }

  /** The server's logger (set through configure), for phase tracing. */
  private log: Logger | undefined;

  configure(options: { analysisTimeoutMs?: number; log?: Logger }): void {
    if (typeof options.analysisTimeoutMs === 'number' && options.analysisTimeoutMs > 0) this.timeoutMs = options.analysisTimeoutMs;
    if (options.log) this.log = options.log;
  }

  analyzeDirectory(dir: string, overlays: Map<string, string>): Promise<DirectoryAnalysis> {
    return new Promise<DirectoryAnalysis>((resolve, reject) => {
      const i = this.queue.findIndex((q) => q.dir === dir);
      const callers = i >= 0 ? this.queue.splice(i, 1)[0].callers : [];
      callers.push({ resolve, reject });
      this.queue.push({ dir, overlays, callers });
      this.pump();
    });
  }

  /** Gives the newest queued request to the worker when it is idle. */
  private pump(): void {
    if (this.busy) return;
    const q = this.queue.pop();
    if (!q) return;
    this.busy = true;
    const done = () => {
      this.busy = false;
      this.pump();
    };
    this.send(q.dir, q.overlays).then(
      (a) => {
        for (const c of q.callers) c.resolve(a);
        done();
      },
      (e: Error) => {
        if (e.message === OUT_OF_MEMORY && !q.retried) {
          // Once more with the larger limit, unless a newer request for the directory has come meanwhile.
          q.retried = true;
          const newer = this.queue.find((x) => x.dir === q.dir);
          if (newer) newer.callers.push(...q.callers);
          else this.queue.push(q);
          done();
          return;
        }
        for (const c of q.callers) c.reject(e);
        done();
      },
    );
  }

  /**
   * Per directory, how many times the time limit its analyses get (doubled after each abandoned one, up to
   * 16): on a slow or busy machine a large module still gets analysed in the end, while a pathological one
   * is abandoned again and again without holding up the others for long.
   */
  private readonly slow = new Map<string, number>();

  /** The overlays each directory's last request gave the current worker (cleared with the worker). */
  private readonly sentOverlays = new Map<string, Map<string, string>>();

  private request(id: number, dir: string, overlays: Map<string, string>): Omit<Request, 'callTimeoutMs' | 'trusted'> {
    const before = this.sentOverlays.get(dir);
    this.sentOverlays.set(dir, new Map(overlays));
    if (!before) return { id, dir, full: true, set: [...overlays], removed: [] };
    const set: [string, string][] = [];
    for (const [p, t] of overlays) if (before.get(p) !== t) set.push([p, t]);
    const removed = [...before.keys()].filter((p) => !overlays.has(p));
    return { id, dir, full: false, set, removed };
  }

  private send(dir: string, overlays: Map<string, string>): Promise<DirectoryAnalysis> {
    const w = this.ensureWorker();
    const id = this.nextId++;
    const factor = this.slow.get(dir) ?? 1;
    const limit = this.timeoutMs * factor;
    return new Promise<DirectoryAnalysis>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.slow.set(dir, Math.min(16, factor * 2));
        reject(new Error(`analysis of ${dir} took longer than ${limit} ms and was abandoned`));
        this.restart();
      }, limit);
      this.pending.set(id, { resolve, reject, timer, sent: performance.now() });
      const req: Request = { ...this.request(id, dir, overlays), callTimeoutMs: Math.max(1000, Math.floor(limit / 2)), trusted: mainThreadTrusted() };
      if (tracing && this.log) trace(this.log, `analysis #${id} sent: ${dir}, ${req.full ? 'full' : 'delta'} ${req.set.length} set ${req.removed.length} removed`);
      w.postMessage(req);
    });
  }

  /** Preview calls given to the worker and not yet answered (no time limit: a preview gives way to analyses). */
  private readonly calls = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  /** Engine.preview: made in the worker, beside the analysis of the same directory (see serveAnalysis). */
  preview(call: PreviewCall): Promise<unknown> {
    const w = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      w.postMessage({ id, call, trusted: mainThreadTrusted() } satisfies PreviewMessage);
    });
  }

  private failCalls(why: string): void {
    for (const [id, c] of this.calls) {
      c.reject(new Error(why));
      this.calls.delete(id);
    }
  }

  dispose(): void {
    for (const q of this.queue.splice(0)) for (const c of q.callers) c.reject(new Error('the analysis engine was disposed'));
    this.restart();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const w = takeEarlyAnalysisWorker(this.script, this.memoryLimitMb) ?? spawnAnalysisWorker(this.script, this.memoryLimitMb);
    w.on('message', (res: Response | PreviewAnswer) => {
      if ('previewResult' in res || 'previewError' in res) {
        const c = this.calls.get(res.id);
        this.calls.delete(res.id);
        if ('previewError' in res) c?.reject(new Error(res.previewError));
        else c?.resolve(res.previewResult);
        return;
      }
      const p = this.pending.get(res.id);
      if (!p) return; // abandoned after a timeout
      this.pending.delete(res.id);
      clearTimeout(p.timer);
      if (tracing && this.log && !('failure' in res)) {
        const n = res.diagnostics.reduce((k, [, l]) => k + l.length, 0) + res.general.length;
        trace(this.log, `analysis #${res.id} back: ${(performance.now() - p.sent).toFixed(1)} ms round trip, ${res.ms.toFixed(1)} ms in the worker, ${n} diagnostics, worker heap ${res.heapMB.toFixed(0)} MB; process ${memory()}`);
      }
      if ('failure' in res) p.reject(new Error(res.failure));
      else p.resolve({ diagnostics: new Map(res.diagnostics), general: res.general });
    });
    const fail = (why: string) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      this.sentOverlays.clear();
      for (const [id, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(new Error(why));
        this.pending.delete(id);
      }
      this.failCalls(why);
    };
    w.on('error', (e) => {
      // Out of memory under the heap limit: the next worker gets twice the limit, and the analysis is retried.
      if ((e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY' && this.memoryLimitMb < MAX_MEMORY_LIMIT_MB) {
        this.memoryLimitMb = Math.min(MAX_MEMORY_LIMIT_MB, this.memoryLimitMb * 2);
        this.log?.info(`the analysis worker ran out of memory; its heap limit is now ${this.memoryLimitMb} MB`);
        fail(OUT_OF_MEMORY);
        return;
      }
      fail(`the analysis worker failed: ${e.stack ?? e.message}`);
    });
    w.on('exit', (code) => fail(`the analysis worker exited with code ${code}`));
    this.worker = w;
    return w;
  }

  /** Ends the current worker (if any) and fails whatever it still had; the next analysis starts a new one. */
  private restart(): void {
    const w = this.worker;
    this.worker = undefined;
    this.sentOverlays.clear();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error('the analysis worker was restarted'));
      this.pending.delete(id);
    }
    this.failCalls('the analysis worker was restarted');
    void w?.terminate();
  }
}
