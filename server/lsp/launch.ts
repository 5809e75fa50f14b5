// How the language server's process is started: the Node options and environment the VS Code client passes
// (client/extension.ts) and the test client uses (test/lsp/client.ts), so that tests and benches measure the server
// as it runs. An editor that starts dist/server.js itself should pass the same.

/**
 * `--max-semi-space-size=2`: the main thread's young generation (two semi-spaces of at most 2 MB). Under Node's
 * default V8 grew the main thread's new space to about 32 MB and kept it committed; the main thread allocates little
 * that lives long (documents, the editing features' index, the preview's presentation), and measured on the
 * language server bench its latencies do not change. V8 applies the flag to every thread of the process, the
 * analysis worker's too (it takes precedence over the worker's own resource limit, analysisSpawn.ts
 * YOUNG_GENERATION_MB).
 *
 * `--concurrent-marking-max-worker-num=1`: a full collection marks the heap on at most one of V8's background
 * threads, besides the thread whose heap it is. Node has four such threads at normal priority, and the analysis
 * worker runs at a lower one (analysisWorker.ts ANALYSIS_WORKER_NICE): while its heap of 250-350 MB (5,000 resources
 * with their preview plans) was marked on every core, the worker got a small share of a core, and three to five
 * edits in a row took 100-300 ms where they take 20-30. With one marking thread a core is left to the worker (and
 * the main thread). Measured on the preview bench (200 edits at 5,000 resources, 7 interleaved pairs): the edits'
 * time over 50 ms, summed, went from 484-1,228 to 158-455 ms (lower in every pair), and p95 from a median of 51 to 47 ms
 * (lower in five pairs, equal in one, higher in one).
 */
export const SERVER_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=2', '--concurrent-marking-max-worker-num=1'];

/**
 * Environment added to the server's (the parent's environment is kept). `MALLOC_MMAP_THRESHOLD_` pins glibc's mmap
 * threshold at its default, 128 KiB, which turns off its dynamic growth: after the first large block is freed,
 * glibc raises the threshold to that block's size, and from then on the large blocks (the buffers of worker messages
 * and of big LSP messages, several MB each) come from the thread's malloc arena, which keeps the memory after they
 * are freed. Measured on the language server bench: malloc arenas about 45 MB without it, about 12 MB with it, and
 * the same latencies. Other C libraries ignore the variable.
 */
export const SERVER_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };
