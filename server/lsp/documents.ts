// The documents the client has open, as the client last sent them.
//
// Contract: the client owns the text of an open document; this store applies the client's changes in order
// and never reads an open document from disk. A document's syntax tree is built on first use (parsing is
// the costly part and analysis happens elsewhere: opening a huge document must not stall the server) and
// from then on is re-parsed incrementally with each change (syntax/document.ts). The tree lives on the
// WebAssembly heap, so a document must be disposed when it closes (OpenDocuments.close does it).

import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver';
import { ParsedDocument, type TextChange } from '../syntax/document';
import type { Tree } from '../syntax/treesitter';
import type { Diagnostic } from '../diags/diagnostic';
import { LineIndex } from './convert';

export class OpenDocument {
  private doc: TextDocument;
  private parsed: ParsedDocument | undefined;
  private index: LineIndex | undefined;

  /** Absolute file-system path, or undefined for a non-file URI (such documents get no directory analysis). */
  readonly path: string | undefined;

  constructor(readonly uri: string, languageId: string, version: number, text: string) {
    this.path = uriToPath(uri);
    this.doc = TextDocument.create(uri, languageId, version, text);
  }

  get text(): string {
    return this.doc.getText();
  }
  get version(): number {
    return this.doc.version;
  }
  get dir(): string | undefined {
    return this.path === undefined ? undefined : dirname(this.path);
  }

  /** The line index of the current text (built on first use after each change). */
  get lines(): LineIndex {
    return (this.index ??= new LineIndex(this.text));
  }

  /** The syntax tree of the current text, parsed on first use; owned by this document, valid until the next change. */
  get tree(): Tree {
    this.parsed ??= new ParsedDocument(this.path ?? this.uri, this.text);
    return this.parsed.tree;
  }

  /** HCL syntax diagnostics of the current text (from the incrementally maintained tree). */
  syntaxDiagnostics(): Diagnostic[] {
    this.parsed ??= new ParsedDocument(this.path ?? this.uri, this.text);
    return this.parsed.diagnostics();
  }

  /** Applies the client's changes (full or incremental, in order) and moves to `version`. */
  update(changes: TextDocumentContentChangeEvent[], version: number): void {
    this.doc = TextDocument.update(this.doc, changes, version);
    this.index = undefined;
    const parsed = this.parsed;
    if (!parsed) return;
    let ranged: TextChange[] = [];
    const flush = () => {
      if (ranged.length) parsed.applyChanges(ranged);
      ranged = [];
    };
    for (const ch of changes) {
      if ('range' in ch) ranged.push({ range: ch.range, text: ch.text });
      else {
        flush();
        parsed.setText(ch.text);
      }
    }
    flush();
    // Out-of-range positions are clamped differently by the two; the text store is the reference.
    if (parsed.text !== this.text) parsed.setText(this.text);
  }

  dispose(): void {
    this.parsed?.dispose();
    this.parsed = undefined;
  }
}

export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

export class OpenDocuments {
  private readonly docs = new Map<string, OpenDocument>();

  open(uri: string, languageId: string, version: number, text: string): OpenDocument {
    this.docs.get(uri)?.dispose();
    const d = new OpenDocument(uri, languageId, version, text);
    this.docs.set(uri, d);
    return d;
  }

  get(uri: string): OpenDocument | undefined {
    return this.docs.get(uri);
  }

  close(uri: string): OpenDocument | undefined {
    const d = this.docs.get(uri);
    d?.dispose();
    this.docs.delete(uri);
    return d;
  }

  /** The open documents whose file lies directly in `dir` (a Terraform module is one directory). */
  inDirectory(dir: string): OpenDocument[] {
    return [...this.docs.values()].filter((d) => d.dir === dir);
  }

  all(): OpenDocument[] {
    return [...this.docs.values()];
  }

  disposeAll(): void {
    for (const d of this.docs.values()) d.dispose();
    this.docs.clear();
  }
}
