// textDocument/didChange: applies the incremental changes and schedules the analysis of the directory.

import type { DidChangeTextDocumentParams } from 'vscode-languageserver';
import type { Session } from '../session';

export function didChange(session: Session, params: DidChangeTextDocumentParams): void {
  const doc = session.documents.get(params.textDocument.uri);
  if (!doc) {
    session.log.error(`didChange for a document that is not open: ${params.textDocument.uri}`);
    return;
  }
  doc.update(params.contentChanges, params.textDocument.version);
  session.diagnostics.changed(doc);
}
