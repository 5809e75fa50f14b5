// Source positions for configuration files: maps tree-sitter offsets (UTF-16 code units, as web-tree-sitter
// reports them for JS strings) to HCL positions (1-based line, 1-based column counting code points,
// 0-based UTF-8 byte offset). Siblings: hclbody.ts builds generic bodies with these ranges, load.ts the model.

import type { Pos, Range } from '../diags/diagnostic';
import { OffsetRange, type PositionSource } from '../diags/diagnostic';

/** Entries of the position and range caches (a power of two). */
const POS_CACHE = 4096;

/**
 * The last positions and ranges asked for, direct-mapped by offset and stamped with the asking text's id: the ranges
 * of a body and of its expressions' ASTs share their Pos objects (an attribute's start is its name's, an expression's
 * is its first token's), and equal ranges are one object. Pos and Range objects are never mutated, so sharing is
 * invisible. One cache for all texts (texts are read one after another), large enough for a whole file of a few KB;
 * a cache per text kept about 7 KB for each file of every loaded module.
 */
const cacheAt = new Int32Array(POS_CACHE).fill(-1);
const cacheWho = new Int32Array(POS_CACHE);
const cachePos: Pos[] = new Array(POS_CACHE);
const cacheRangeAt = new Int32Array(2 * POS_CACHE).fill(-1);
const cacheRangeWho = new Int32Array(POS_CACHE);
const cacheRange: (Range | undefined)[] = new Array(POS_CACHE);
let lastId = 0;

/** See SourceText.uncloneable. */
const UNCLONEABLE = (): void => undefined;

export class SourceText implements PositionSource {
  /**
   * A function, which a structured clone refuses: an OffsetRange (which holds its SourceText) posted to another
   * thread by mistake fails there and then, instead of copying the whole text and arriving without positions.
   */
  private readonly uncloneable = UNCLONEABLE;
  /** This text's stamp in the caches. */
  private readonly id = (lastId = (lastId % 0x7ffffffe) + 1);
  /** UTF-16 offset of the start of each line. */
  private readonly lineStarts: number[] = [0];
  /** UTF-8 byte offset of the start of each line. */
  private readonly lineBytes: number[] = [0];

  /** Offsets of the code units >= 0x80, ascending (sparse: most configuration text is ASCII). */
  private readonly naPos: number[] = [];
  /** naBytes[k] / naCols[k]: UTF-8 bytes / code points minus code units over the first k of them. */
  private readonly naBytes: number[] = [0];
  private readonly naCols: number[] = [0];

  constructor(
    readonly filename: string,
    readonly text: string,
  ) {
    let b = 0;
    let adjB = 0;
    let adjC = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        b += 4;
        // The pair is one code point of 4 bytes, all counted on its high half.
        this.naPos.push(i, i + 1);
        adjB += 3;
        this.naBytes.push(adjB);
        this.naCols.push(adjC);
        adjB -= 1;
        adjC -= 1;
        this.naBytes.push(adjB);
        this.naCols.push(adjC);
        i++;
        continue;
      }
      b += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
      if (c >= 0x80) {
        adjB += c < 0x800 ? 1 : 2;
        this.naPos.push(i);
        this.naBytes.push(adjB);
        this.naCols.push(adjC);
      }
      if (c === 10) {
        this.lineStarts.push(i + 1);
        this.lineBytes.push(b);
      }
    }
  }

  /** How many non-ASCII code units lie before `index`. */
  private before(index: number): number {
    const a = this.naPos;
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid] < index) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The HCL position of a UTF-16 offset (clamped to the text), in O(log n). */
  pos(index: number): Pos {
    index = Math.max(0, Math.min(index, this.text.length));
    const slot = index & (POS_CACHE - 1);
    if (cacheAt[slot] === index && cacheWho[slot] === this.id) return cachePos[slot];
    const p = this.computePos(index);
    cacheAt[slot] = index;
    cacheWho[slot] = this.id;
    cachePos[slot] = p;
    return p;
  }

  /** The line of the last position computed: positions are mostly asked for in text order. */
  private lastLine = 0;

  /** Whether offset `index` lies on line `line` (0-based, an existing line). */
  private onLine(line: number, index: number): boolean {
    return this.lineStarts[line] <= index && (line + 1 === this.lineStarts.length || index < this.lineStarts[line + 1]);
  }

  private computePos(index: number): Pos {
    let lo = this.lastLine;
    // The same line as the last position, or the next one; else a binary search.
    if (!this.onLine(lo, index)) {
      if (lo + 1 < this.lineStarts.length && this.onLine(lo + 1, index)) lo++;
      else {
        lo = 0;
        let hi = this.lineStarts.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (this.lineStarts[mid] <= index) lo = mid;
          else hi = mid - 1;
        }
      }
      this.lastLine = lo;
    }
    const ls = this.lineStarts[lo];
    if (this.naPos.length === 0) return { line: lo + 1, column: 1 + index - ls, byte: this.lineBytes[lo] + index - ls };
    const a = this.before(ls);
    const z = this.before(index);
    return {
      line: lo + 1,
      column: 1 + index - ls + this.naCols[z] - this.naCols[a],
      byte: this.lineBytes[lo] + index - ls + this.naBytes[z] - this.naBytes[a],
    };
  }

  range(start: number, end: number): Range {
    // Shared as positions are (an expression's range is its AST root's, a reference's root range is its
    // traversal's); Range objects are never mutated either.
    const slot = (start * 31 + end) & (POS_CACHE - 1);
    const r = cacheRange[slot];
    if (r && cacheRangeAt[2 * slot] === start && cacheRangeAt[2 * slot + 1] === end && cacheRangeWho[slot] === this.id) return r;
    const fresh = new OffsetRange(this, start, end);
    cacheRange[slot] = fresh;
    cacheRangeAt[2 * slot] = start;
    cacheRangeAt[2 * slot + 1] = end;
    cacheRangeWho[slot] = this.id;
    return fresh;
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
  if (a instanceof OffsetRange && b instanceof OffsetRange && a.source === b.source) return a.source.range(Math.min(a.from, b.from), Math.max(a.to, b.to));
  return { filename: a.filename, start: a.start.byte <= b.start.byte ? a.start : b.start, end: a.end.byte >= b.end.byte ? a.end : b.end };
}
