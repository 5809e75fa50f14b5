// Source positions for configuration files: maps tree-sitter offsets (UTF-16 code units, as web-tree-sitter
// reports them for JS strings) to HCL positions (1-based line, 1-based column counting code points,
// 0-based UTF-8 byte offset). Siblings: hclbody.ts builds generic bodies with these ranges, load.ts the model.

import type { Pos, Range } from '../diags/diagnostic';

export class SourceText {
  /** UTF-16 offset of the start of each line. */
  private readonly lineStarts: number[] = [0];
  /** UTF-8 byte offset of the start of each line. */
  private readonly lineBytes: number[] = [0];

  constructor(
    readonly filename: string,
    readonly text: string,
  ) {
    let b = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        b += 4;
        i++;
        continue;
      }
      b += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
      if (c === 10) {
        this.lineStarts.push(i + 1);
        this.lineBytes.push(b);
      }
    }
  }

  /** The HCL position of a UTF-16 offset (clamped to the text). */
  pos(index: number): Pos {
    index = Math.max(0, Math.min(index, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    let col = 1;
    let byte = this.lineBytes[lo];
    for (let i = this.lineStarts[lo]; i < index; i++) {
      const c = this.text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < index) {
        byte += 4;
        i++;
      } else byte += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
      col++;
    }
    return { line: lo + 1, column: col, byte };
  }

  range(start: number, end: number): Range {
    return { filename: this.filename, start: this.pos(start), end: this.pos(end) };
  }

  /** The UTF-16 offset of a UTF-8 byte offset (inverse of pos().byte). */
  indexOfByte(byte: number): number {
    let b = 0;
    let i = 0;
    while (i < this.text.length && b < byte) {
      const c = this.text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) {
        b += 4;
        i += 2;
      } else {
        b += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        i++;
      }
    }
    return i;
  }
}

/** "main.tf:3,1-12" as HCL's Range.String() writes it (same line) or "main.tf:3,1-4,2". */
export function rangeString(r: Range): string {
  if (r.start.line === r.end.line) return `${r.filename}:${r.start.line},${r.start.column}-${r.end.column}`;
  return `${r.filename}:${r.start.line},${r.start.column}-${r.end.line},${r.end.column}`;
}

/** The smallest range covering both (same file). */
export function rangeBetween(a: Range, b: Range): Range {
  return { filename: a.filename, start: a.start.byte <= b.start.byte ? a.start : b.start, end: a.end.byte >= b.end.byte ? a.end : b.end };
}
