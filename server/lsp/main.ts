// Entry point of the language server bundle (dist/server.js). The transport is chosen from the command line
// as vscode-languageserver does: `--stdio`, `--node-ipc` (the VS Code client's default) or `--socket=N`.
// The same bundle also runs as the server's analysis worker thread (see analysisWorker.ts) and as the preview
// worker thread (preview/worker.ts).

import { isMainThread, workerData } from 'node:worker_threads';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { ANALYSIS_WORKER_ROLE, serveAnalysis, WorkerEngine } from './analysisWorker';
import { defaultEngine } from './engine';
import { describeError } from './log';
import { startServer } from './server';
import { PREVIEW_WORKER_ROLE, servePreview } from './preview/worker';
import { observeTrust, trackProviderProcesses } from './providers';
import { serveProcessHost } from '../plugin/client/shared';

if (!isMainThread && (workerData as { role?: string } | undefined)?.role === ANALYSIS_WORKER_ROLE) {
  serveAnalysis(defaultEngine);
} else if (!isMainThread && (workerData as { role?: string } | undefined)?.role === PREVIEW_WORKER_ROLE) {
  servePreview();
} else {
  const connection = createConnection(ProposedFeatures.all);
  // A bug outside any handler (a timer, a stray promise) is logged, not allowed to kill the server.
  process.on('uncaughtException', (e) => connection.console.error(`uncaught: ${describeError(e)}`));
  process.on('unhandledRejection', (e) => connection.console.error(`unhandled rejection: ${describeError(e)}`));
  // Workers run provider binaries only in a trusted workspace. The main thread starts and owns the processes, one per
  // workspace and provider for both workers (plugin/client/shared.ts); any process a worker spawns itself ends
  // with it (providers.ts).
  observeTrust(connection);
  serveProcessHost();
  trackProviderProcesses();
  startServer(connection, new WorkerEngine(__filename, defaultEngine));
}
