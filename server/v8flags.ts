// V8 flags every Foresight process sets for itself: the loader (server/loader.ts) sets them before it compiles the
// bundle, in the main thread and in each worker thread (V8's flags are process-wide; setting them again is harmless),
// so that the code cache is made and checked under the same flags. The benchmark sets them too (test/bench/bench.ts),
// so that it measures the engine as the command line and the language server run it.

import { setFlagsFromString } from 'node:v8';

/**
 * `--no-lazy-feedback-allocation`: V8 gives a function its feedback vector at its first call instead of after several,
 * so that the optimising compiler has type feedback sooner. An analysis is one pass over thousands of blocks whose
 * functions run a few times each at first; on the analysis bench's cold run (5,000 resources, a fresh process) it
 * took 1,181-1,328 ms against 1,440-1,718 ms without the flag (interleaved runs).
 */
export const V8_FLAGS: readonly string[] = ['--no-lazy-feedback-allocation'];

export function applyV8Flags(): void {
  for (const f of V8_FLAGS) setFlagsFromString(f);
}
