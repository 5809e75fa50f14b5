// textDocument/diagnostic (pull diagnostics): the document's diagnostics once its directory's analysis is
// current. Always a full report; the scheduler already sends refreshes only when something changed.

import { DocumentDiagnosticReportKind, type DocumentDiagnosticParams, type DocumentDiagnosticReport } from 'vscode-languageserver';
import type { Session } from '../session';

export async function diagnostic(session: Session, params: DocumentDiagnosticParams): Promise<DocumentDiagnosticReport> {
  const items = await session.diagnostics.pull(params.textDocument.uri);
  return { kind: DocumentDiagnosticReportKind.Full, items };
}
