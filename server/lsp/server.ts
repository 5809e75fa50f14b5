// The one place where LSP methods are bound to their handlers (handlers/, one file per method).
//
// Architecture invariant: only server/lsp/ knows LSP types; handlers are thin (look up the document, call
// the engine, convert). Every handler is wrapped by guard(), so an unexpected exception is logged and the
// client gets the handler's fallback answer; the server never crashes on bad input.
//
// How to add a method: write handlers/<method>.ts exporting `function <method>(session, params)`, announce
// the capability in handlers/initialize.ts, and register it below.

import type { Connection } from 'vscode-languageserver';
import { DiagnosticsScheduler } from './diagnostics';
import { OpenDocuments } from './documents';
import { defaultEngine, type Engine } from './engine';
import { diagnostic } from './handlers/diagnostic';
import { didChange } from './handlers/didChange';
import { didChangeWatchedFiles } from './handlers/didChangeWatchedFiles';
import { didClose } from './handlers/didClose';
import { didOpen } from './handlers/didOpen';
import { documentSymbol } from './handlers/documentSymbol';
import { registerEditing } from './features';
import { formatting } from './handlers/formatting';
import { initialize } from './handlers/initialize';
import { guard, type Logger } from './log';
import { registerPreview } from './preview';
import { AnalysisStatusNotification } from './protocol';
import type { Session } from './session';

export function startServer(connection: Connection, engine: Engine = defaultEngine): Session {
  const log: Logger = {
    info: (m) => connection.console.info(m),
    error: (m) => connection.console.error(m),
  };
  const documents = new OpenDocuments();
  let refreshSupported = false;
  const diagnostics = new DiagnosticsScheduler(
    engine,
    documents,
    {
      publish: (uri, diags, version) => void connection.sendDiagnostics({ uri, diagnostics: diags, version }),
      refresh: () => {
        if (refreshSupported) void connection.languages.diagnostics.refresh().catch(() => undefined);
      },
      status: (p: AnalysisStatusNotification.Params) => void connection.sendNotification(AnalysisStatusNotification.method, p),
    },
    log,
  );
  const session: Session = { engine, documents, diagnostics, log };
  engine.configure?.({ log });

  connection.onInitialize(
    guard(log, 'initialize', () => ({ capabilities: {} }), async (params) => {
      refreshSupported = params.capabilities.workspace?.diagnostics?.refreshSupport === true;
      return initialize(session, params);
    }),
  );
  connection.onDidOpenTextDocument(guard(log, 'didOpen', () => undefined, (p) => didOpen(session, p)));
  connection.onDidChangeTextDocument(guard(log, 'didChange', () => undefined, (p) => didChange(session, p)));
  connection.onDidCloseTextDocument(guard(log, 'didClose', () => undefined, (p) => didClose(session, p)));
  connection.onDidChangeWatchedFiles(guard(log, 'didChangeWatchedFiles', () => undefined, (p) => didChangeWatchedFiles(session, p)));
  connection.languages.diagnostics.on(
    guard(log, 'diagnostic', () => ({ kind: 'full' as const, items: [] }), (p, token) => diagnostic(session, p, token)),
  );
  connection.onDocumentFormatting(guard(log, 'formatting', () => [], (p) => formatting(session, p)));
  connection.onDocumentSymbol(guard(log, 'documentSymbol', () => [], (p) => documentSymbol(session, p)));
  registerPreview(connection, session);
  registerEditing(connection, session);
  connection.onShutdown(() => {
    diagnostics.dispose();
    documents.disposeAll();
    engine.dispose?.();
  });

  connection.listen();
  return session;
}
