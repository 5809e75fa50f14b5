// The environment variable that tells a thread a provider process host serves it (shared.ts serveProcessHost), in a
// module of its own so that the loader's early start of the analysis worker (lsp/analysisSpawn.ts) can set it
// without the plugin client.

/**
 * Set in the environment of threads created after serveProcessHost(), and of the language server's analysis worker
 * started before it (its main thread always serves one, main.ts): they launch provider processes through it.
 */
export const PROCESS_HOST_ENV = 'FORESIGHT_PROVIDER_HOST';
