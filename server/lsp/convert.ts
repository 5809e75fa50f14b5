// Conversions between the engine's positions and diagnostics and LSP's.
//
// The engine's Pos is 1-based line, 1-based column counted in code points, plus a 0-based UTF-8 byte offset
// (server/diags/diagnostic.ts). LSP positions are 0-based lines and 0-based columns counted in UTF-16 code
// units. A LineIndex is built once per text snapshot; every conversion is exact for that text and clamps
// positions that fall beyond a line's end or the text's end instead of failing.

import type { Diagnostic as EngineDiagnostic, Pos, Range as EngineRange } from '../diags/diagnostic';
import { DiagnosticSeverity, type Diagnostic, type Position, type Range } from 'vscode-languageserver';

export class LineIndex {
  /** UTF-16 offset of the first character of each line; lines end at '\n'. */
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  get lineCount(): number {
    return this.starts.length;
  }

  /** UTF-16 offset of the end of line `line` (0-based), excluding its '\n'. */
  lineEnd(line: number): number {
    return line + 1 < this.starts.length ? this.starts[line + 1] - 1 : this.text.length;
  }

  /** Converts an engine Pos to an LSP Position; columns past the end of a line clamp to its end. */
  toPosition(pos: Pos): Position {
    if (pos.line < 1) return { line: 0, character: 0 };
    const line = pos.line - 1;
    if (line >= this.starts.length) return this.positionAt(this.text.length);
    const start = this.starts[line];
    const end = this.lineEnd(line);
    let i = start;
    for (let n = 1; n < pos.column && i < end; n++) {
      const c = this.text.charCodeAt(i);
      // A high surrogate followed by a low one is one code point but two UTF-16 units.
      i += c >= 0xd800 && c <= 0xdbff && i + 1 < end ? 2 : 1;
    }
    return { line, character: i - start };
  }

  /** The LSP Position of a UTF-16 offset into the text (clamped to the text). */
  positionAt(offset: number): Position {
    offset = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.starts[lo] };
  }

  toRange(r: EngineRange): Range {
    const start = this.toPosition(r.start);
    const end = this.toPosition(r.end);
    // An inverted range would be rejected by some clients; collapse it onto its start.
    if (end.line < start.line || (end.line === start.line && end.character < start.character)) return { start, end: start };
    return { start, end };
  }

  /** The range covering the whole text. */
  fullRange(): Range {
    return { start: { line: 0, character: 0 }, end: this.positionAt(this.text.length) };
  }
}

/** The LSP `source` of every diagnostic this server publishes. */
export const DIAGNOSTIC_SOURCE = 'foresight';
/** The LSP `source` of the preview plan's diagnostics (DiagnosticsScheduler.setPreviewDiagnostics). */
export const PREVIEW_DIAGNOSTIC_SOURCE = 'foresight preview';

/**
 * Converts one engine diagnostic about the text indexed by `index`. A diagnostic without a subject range is
 * placed at the start of the document (LSP requires a range); its context range is used when it has one.
 */
export function toLspDiagnostic(d: EngineDiagnostic, index: LineIndex): Diagnostic {
  const where = d.subject ?? d.context;
  const range = where ? index.toRange(where) : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  let message = d.summary;
  if (d.detail) message += `\n\n${d.detail}`;
  if (d.values?.length) message += '\n\n' + d.values.map((v) => `${v.traversal} ${v.statement}`).join('\n');
  const out: Diagnostic = {
    range,
    severity: d.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    message,
    source: DIAGNOSTIC_SOURCE,
  };
  if (d.source) out.code = d.source;
  return out;
}
