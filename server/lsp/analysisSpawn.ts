// Starting the language server's analysis worker (analysisWorker.ts WorkerEngine) with its V8 limits, and putting
// back the one V8 flag set for its start. The code-cache loader (server/loader.ts) uses the latter, which is why this
// is a module of its own: the loader's bundle takes in what it imports, and nothing else of the server.
//
// Invariant: the initial old generation flag is set for a worker's start only (see INITIAL_OLD_GENERATION_MB), and
// no code cache is compiled against or made under it (resetInitialOldSpace).

import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { PROCESS_HOST_ENV } from '../plugin/client/hostEnv';

export const ANALYSIS_WORKER_ROLE = 'foresight-analysis';

/**
 * The worker's first V8 old-generation limit. V8 lets a heap grow to a multiple of its live size, and caps that
 * multiple by the limit (4x under Node's default of several GB, about 2x under 1 GB, about 1.5x under 512 MB):
 * the analysis of 5,000 resources keeps about 100 MB live, and with the default limit its worker's heap swung
 * between 250 and 500 MB. Under 512 MB the language server bench's RSS during its 10,000 edits was about 10 MB
 * lower than under 1 GB, at the same latencies, and a module of 20,000 resources (1,000 open files) still
 * analysed and previewed without running out. A worker that runs out of memory is replaced by one with twice the
 * limit (up to MAX_MEMORY_LIMIT_MB), and the analysis is retried.
 */
export const INITIAL_MEMORY_LIMIT_MB = 512;
export const MAX_MEMORY_LIMIT_MB = 4096;

/**
 * The worker's young generation. Under the default (48 MB here) V8 kept about 30 MB of new space committed
 * after a cold open; with 8 MB, measured on the language server bench, the server's RSS after the cold open
 * is about 30 MB lower, with no measurable change in cold-open or edit latency (interleaved runs; see
 * ARCHITECTURE.md, latency and memory). V8 takes a process's --max-semi-space-size over a worker's resource
 * limit, so under the options the server is started with (launch.ts SERVER_EXEC_ARGV) the worker's semi-spaces
 * are 2 MB like the main thread's; this limit binds when the server is started without them.
 * Measured on the preview bench (edits of one attribute at 5,000 applied resources): with 16 MB semi-spaces for
 * the worker alone (its start's flags, as INITIAL_OLD_GENERATION_MB), an edit's median fell from about 38 to
 * 31 ms, but the old generation still grew by 0.7 MB per edit (what edits keep for longer than one edit still
 * outlived two scavenges), full collections came as often, and the language server bench's RSS rose by about
 * 30 MB, over its 300 MB goal: not taken.
 */
export const YOUNG_GENERATION_MB = 8;

/**
 * The old generation size at which the worker's first full garbage collection is due (V8's initial old
 * generation limit; 0 leaves V8's default). By default V8 starts with a small limit and, under a 512 MB heap limit,
 * raises it by about 1.5x after each full collection: the cold analysis of 5,000 resources, which builds a model
 * of about 80 MB that all survives, ran four to seven full collections (200-300 ms of its 1.3-1.6 s); from 128 MB,
 * none or one.
 * After the first full collection V8 sets the limit from the live size as usual, and an idle worker's heap is
 * still collected by V8's memory reducer.
 */
export const INITIAL_OLD_GENERATION_MB = 128;

/** The process's own initial old generation size (its command line's flag, else 0: V8's default). */
function processInitialOldSpace(): number {
  let mb = 0;
  for (const a of process.execArgv) {
    const m = /^--initial[-_]old[-_]space[-_]size=(\d+)$/.exec(a);
    if (m) mb = Number(m[1]);
  }
  return mb;
}

/**
 * Puts V8's initial old generation flag back to the process's own value. V8's flags are the process's, and a code
 * cache records them: a cache made while the flag is set for a worker's start does not match a fresh process. So
 * every server thread puts it back before it makes its cache, and the analysis worker before it even compiles its
 * bundle, so that nothing it compiles sees the flag (loader.ts); the main thread does too when the worker is online,
 * for the threads started later.
 */
export function resetInitialOldSpace(): void {
  setFlagsFromString(`--initial-old-space-size=${processInitialOldSpace()}`);
}

/**
 * Starts an analysis worker running `script` (the server bundle) under `memoryLimitMb`. Node's resourceLimits have no
 * initial old generation size, and V8 reads its flag only when an isolate's heap is set up: the flag is set for the
 * worker's start and put back to the process's own value once the worker's isolate exists, so that threads started
 * later (the runs worker) start as before. The worker does not keep the process alive.
 */
export function spawnAnalysisWorker(script: string, memoryLimitMb: number, env: NodeJS.ProcessEnv = process.env): Worker {
  if (INITIAL_OLD_GENERATION_MB) setFlagsFromString(`--initial-old-space-size=${INITIAL_OLD_GENERATION_MB}`);
  const w = new Worker(script, {
    env,
    workerData: { role: ANALYSIS_WORKER_ROLE },
    resourceLimits: { maxOldGenerationSizeMb: memoryLimitMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  if (INITIAL_OLD_GENERATION_MB) {
    // Once, at whichever comes first: a later one could fall in the start of a worker that replaces this one.
    const reset = () => {
      w.off('online', reset).off('error', reset).off('exit', reset);
      resetInitialOldSpace();
    };
    w.on('online', reset).on('error', reset).on('exit', reset);
  }
  w.unref();
  return w;
}

/** Where the loader leaves a worker it started before the server's code ran (see spawnEarlyAnalysisWorker). */
const EARLY = Symbol.for('foresight.earlyAnalysisWorker');
type Early = { worker: Worker; script: string; ended: boolean; onEnd: () => void };

/**
 * Starts the analysis worker as the process starts (the loader calls it once the main thread's code is compiled,
 * before that code runs), for the WorkerEngine to take (takeEarlyAnalysisWorker). A worker thread spends about
 * 250 ms before it can answer (Node's own start-up in the thread, then the bundle): started when the client's
 * initialize arrived, it was still starting when the first analysis of a cold open was sent.
 */
export function spawnEarlyAnalysisWorker(script: string): void {
  // A worker's environment is a copy of the process's at its creation: this one starts before the main thread serves
  // the provider process host, which it always does (main.ts) before a worker asks it for anything.
  const env = { ...process.env, [PROCESS_HOST_ENV]: '1' };
  const early: Early = {
    worker: spawnAnalysisWorker(script, INITIAL_MEMORY_LIMIT_MB, env),
    script,
    ended: false,
    onEnd: () => {
      early.ended = true;
    },
  };
  early.worker.once('error', early.onEnd).once('exit', early.onEnd);
  (globalThis as { [EARLY]?: Early })[EARLY] = early;
}

/** The worker spawnEarlyAnalysisWorker started, if it runs `script` under `memoryLimitMb` and is still alive (once). */
export function takeEarlyAnalysisWorker(script: string, memoryLimitMb: number): Worker | undefined {
  const g = globalThis as { [EARLY]?: Early };
  const early = g[EARLY];
  if (!early) return undefined;
  delete g[EARLY];
  // The listener is the loader's code: left on the worker, it would keep the loader's script, the whole bundle file's
  // text, alive for as long as the worker runs (loader.ts: nothing of it outlives the load but the cache write).
  early.worker.off('error', early.onEnd).off('exit', early.onEnd);
  if (early.ended || early.script !== script || memoryLimitMb !== INITIAL_MEMORY_LIMIT_MB) {
    void early.worker.terminate();
    return undefined;
  }
  return early.worker;
}
