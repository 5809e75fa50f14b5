// textDocument/formatting: the document as `terraform fmt` would write it, as one whole-document edit.
// No edit when the text is already formatted, cannot be formatted (syntax errors), or no formatter exists.

import { TextEdit, type DocumentFormattingParams } from 'vscode-languageserver';
import type { Session } from '../session';

export function formatting(session: Session, params: DocumentFormattingParams): TextEdit[] {
  const doc = session.documents.get(params.textDocument.uri);
  if (!doc) return [];
  const result = session.engine.format(doc.text, doc.path ?? doc.uri);
  if (!result || result.output === undefined || result.output === doc.text) return [];
  return [TextEdit.replace(doc.lines.fullRange(), result.output)];
}
