// textDocument/didClose: forgets the document and clears its diagnostics.

import type { DidCloseTextDocumentParams } from 'vscode-languageserver';
import type { Session } from '../session';

export function didClose(session: Session, params: DidCloseTextDocumentParams): void {
  const doc = session.documents.close(params.textDocument.uri);
  session.diagnostics.closed(params.textDocument.uri, doc?.dir);
}
