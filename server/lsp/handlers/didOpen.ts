// textDocument/didOpen: stores the document and schedules the analysis of its directory.

import type { DidOpenTextDocumentParams } from 'vscode-languageserver';
import type { Session } from '../session';

export function didOpen(session: Session, params: DidOpenTextDocumentParams): void {
  const { uri, languageId, version, text } = params.textDocument;
  session.diagnostics.changed(session.documents.open(uri, languageId, version, text), true);
}
