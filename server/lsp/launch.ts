// How the language server's process is started: the Node options the VS Code client passes (client/extension.ts)
// and the test client uses (test/lsp/client.ts), so that tests and benches measure the server as it runs.

/**
 * `--max-semi-space-size=2`: the main thread's young generation (two semi-spaces of at most 2 MB). Under Node's
 * default V8 grew the main thread's new space to about 32 MB and kept it committed; the main thread allocates little
 * that lives long (documents, the editing features' index, the preview's presentation), and measured on the
 * language server bench its latencies do not change. A worker's young generation is set where it is created
 * (analysisWorker.ts).
 */
export const SERVER_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=2'];
