// textDocument/diagnostic (pull diagnostics): the document's diagnostics once its directory's analysis is
// current. Always a full report; the scheduler already sends refreshes only when something changed. A pull
// the client cancels ($/cancelRequest) stops waiting for the analysis and answers RequestCancelled.

import {
  DocumentDiagnosticReportKind,
  LSPErrorCodes,
  ResponseError,
  type CancellationToken,
  type DocumentDiagnosticParams,
  type DocumentDiagnosticReport,
} from 'vscode-languageserver';
import type { Session } from '../session';

export async function diagnostic(session: Session, params: DocumentDiagnosticParams, token?: CancellationToken): Promise<DocumentDiagnosticReport> {
  const items = await session.diagnostics.pull(params.textDocument.uri, token);
  if (token?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'the diagnostic request was cancelled');
  return { kind: DocumentDiagnosticReportKind.Full, items };
}
