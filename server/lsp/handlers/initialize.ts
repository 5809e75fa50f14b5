// initialize: loads the engine and announces the server's capabilities. Diagnostics are pulled when the
// client supports textDocument/diagnostic and pushed otherwise, never both (a client doing both would
// show every problem twice).

import { TextDocumentSyncKind, type InitializeParams, type InitializeResult } from 'vscode-languageserver';
import { editingCapabilities } from '../features';
import { previewCapabilities } from '../preview';
import type { InitializationOptions } from '../protocol';
import type { Session } from '../session';

export async function initialize(session: Session, params: InitializeParams): Promise<InitializeResult> {
  await session.engine.init();
  const options = (params.initializationOptions ?? {}) as InitializationOptions;
  if (typeof options.debounceMs === 'number' && options.debounceMs >= 0) session.diagnostics.debounceMs = options.debounceMs;
  session.engine.configure?.({ analysisTimeoutMs: options.analysisTimeoutMs });
  const pull = params.capabilities.textDocument?.diagnostic !== undefined;
  session.diagnostics.pullMode = pull;
  const result: InitializeResult = {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      documentFormattingProvider: true,
      documentSymbolProvider: { label: 'Foresight' },
      ...previewCapabilities(params),
      ...editingCapabilities(params),
    },
    serverInfo: { name: 'foresight', version: '0.1.0' },
  };
  if (pull) result.capabilities.diagnosticProvider = { interFileDependencies: true, workspaceDiagnostics: false };
  return result;
}
