// A parsed configuration file: its source text and tree-sitter tree, re-parsed incrementally from text
// edits (tree.edit + parser.parse(newText, oldTree)). The tree lives on the WebAssembly heap: dispose()
// deletes it, and each update deletes the previous tree. Siblings: treesitter.ts (parser), errors.ts
// (syntax diagnostics of a document). Requires initParser() to have completed before construction.

import type { Diagnostic } from '../diags/diagnostic';
import { syntaxDiagnostics } from './errors';
import type { Parser, Point, Tree } from './treesitter';
import { newParser } from './treesitter';
import { Edit } from 'web-tree-sitter';

/** A text change in LSP terms: replace [start, end) (0-based line, UTF-16 character) with `text`. */
export interface TextChange {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  text: string;
}

export class ParsedDocument {
  private parser: Parser | undefined;
  private treeValue: Tree | undefined;
  private textValue: string;

  constructor(
    readonly filename: string,
    text: string,
  ) {
    this.parser = newParser();
    this.textValue = text;
    this.treeValue = this.parser.parse(text) ?? undefined;
  }

  get text(): string {
    return this.textValue;
  }

  /** The current tree. Throws after dispose() (a bug in the caller). */
  get tree(): Tree {
    if (!this.treeValue) throw new Error('ParsedDocument used after dispose()');
    return this.treeValue;
  }

  /** Applies edits in order (each relative to the text after the previous one) and re-parses incrementally. */
  applyChanges(changes: readonly TextChange[]): void {
    if (!this.parser || !this.treeValue) throw new Error('ParsedDocument used after dispose()');
    for (const ch of changes) {
      const startIndex = offsetAt(this.textValue, ch.range.start);
      const oldEndIndex = offsetAt(this.textValue, ch.range.end);
      const newText = this.textValue.slice(0, startIndex) + ch.text + this.textValue.slice(oldEndIndex);
      const newEndIndex = startIndex + ch.text.length;
      this.treeValue.edit(new Edit({
        startIndex,
        oldEndIndex,
        newEndIndex,
        startPosition: pointAt(this.textValue, startIndex),
        oldEndPosition: pointAt(this.textValue, oldEndIndex),
        newEndPosition: pointAt(newText, newEndIndex),
      }));
      this.textValue = newText;
    }
    this.reparse(this.textValue, true);
  }

  /** Replaces the whole text (full-document sync). */
  setText(text: string): void {
    this.textValue = text;
    this.reparse(text, false);
  }

  private reparse(text: string, incremental: boolean): void {
    const old = this.treeValue;
    const next = this.parser!.parse(text, incremental ? old : null) ?? undefined;
    this.treeValue = next;
    if (old && old !== next) old.delete();
  }

  /** HCL syntax diagnostics for the current text. */
  diagnostics(): Diagnostic[] {
    return syntaxDiagnostics(this.textValue, this.filename, this.treeValue);
  }

  /** Frees the tree and the parser; the document is unusable afterwards. Safe to call twice. */
  dispose(): void {
    this.treeValue?.delete();
    this.treeValue = undefined;
    this.parser?.delete();
    this.parser = undefined;
  }
}

/** `text` with LSP-style changes applied in order (what ParsedDocument.applyChanges does to its text). */
export function applyTextChanges(text: string, changes: readonly TextChange[]): string {
  for (const ch of changes) {
    const start = offsetAt(text, ch.range.start);
    const end = offsetAt(text, ch.range.end);
    text = text.slice(0, start) + ch.text + text.slice(end);
  }
  return text;
}

function offsetAt(text: string, p: { line: number; character: number }): number {
  let off = 0;
  for (let l = 0; l < p.line; l++) {
    const n = text.indexOf('\n', off);
    if (n < 0) return text.length;
    off = n + 1;
  }
  return Math.min(off + p.character, text.length);
}

/** Tree-sitter point of an offset (web-tree-sitter counts columns in UTF-16 code units, like indices). */
function pointAt(text: string, index: number): Point {
  let row = 0;
  let lineStart = 0;
  for (let i = 0; i < index; i++) {
    if (text.charCodeAt(i) === 10) {
      row++;
      lineStart = i + 1;
    }
  }
  return { row, column: index - lineStart };
}
