// textDocument/rangeFormatting: the lines of the selection become exactly the lines `foresight fmt` (the same
// formatter as document formatting, byte-identical to `terraform fmt`) gives them in the whole document; lines
// outside are left alone. The selection is widened to the top-level blocks it touches, so that aligned groups
// of arguments are formatted whole. The formatter works on physical lines and keeps their number; when it
// would not (or cannot format the text: syntax errors) there is no edit.

import type { DocumentRangeFormattingParams, TextEdit } from 'vscode-languageserver';
import type { Session } from '../session';
import { before } from './fileIndex';
import type { Workspace } from './workspace';

export function rangeFormatting(session: Session, ws: Workspace, p: DocumentRangeFormattingParams): TextEdit[] {
  const doc = session.documents.get(p.textDocument.uri);
  if (!doc) return [];
  const result = session.engine.format(doc.text, doc.path ?? doc.uri);
  if (!result || result.output === undefined || result.output === doc.text) return [];
  const lines = doc.text.split('\n');
  const formatted = result.output.split('\n');
  if (lines.length !== formatted.length) return [];
  let first = p.range.start.line;
  let last = p.range.end.line;
  // A selection ending at the start of a line does not include that line.
  if (last > first && p.range.end.character === 0) last--;
  const file = doc.path ? ws.file(doc.path) : undefined;
  for (const b of file?.index.blocks ?? []) {
    const overlaps = before(b.range.start, { line: last, character: Number.MAX_SAFE_INTEGER }) && before({ line: first, character: 0 }, b.range.end);
    if (!overlaps) continue;
    first = Math.min(first, b.range.start.line);
    last = Math.max(last, b.range.end.line);
  }
  const edits: TextEdit[] = [];
  for (let i = Math.max(0, first); i <= Math.min(last, lines.length - 1); i++) {
    if (lines[i] === formatted[i]) continue;
    edits.push({ range: { start: { line: i, character: 0 }, end: { line: i, character: lines[i].length } }, newText: formatted[i] });
  }
  return edits;
}
