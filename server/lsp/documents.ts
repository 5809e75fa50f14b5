// The documents the client has open, as the client last sent them.
//
// Contract: the client owns the text of an open document; this store applies the client's incremental
// changes in order and never reads an open document from disk. Each document lazily keeps a syntax tree
// of its current text; the tree lives on the WebAssembly heap, so it is deleted when the text changes or
// the document closes (dispose()), never left to the garbage collector.

import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver';
import { newParser, type Parser, type Tree } from '../syntax/treesitter';
import { LineIndex } from './convert';

export class OpenDocument {
  private doc: TextDocument;
  private index: LineIndex | undefined;
  private tree: Tree | undefined;

  /** Absolute file-system path, or undefined for a non-file URI (such documents get no directory analysis). */
  readonly path: string | undefined;

  constructor(readonly uri: string, languageId: string, version: number, text: string) {
    this.doc = TextDocument.create(uri, languageId, version, text);
    this.path = uriToPath(uri);
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

  /** Applies the client's changes (full or incremental, in order) and moves to `version`. */
  update(changes: TextDocumentContentChangeEvent[], version: number): void {
    this.doc = TextDocument.update(this.doc, changes, version);
    this.index = undefined;
    this.dropTree();
  }

  /** The syntax tree of the current text, parsed on first use with `parser`. Owned by this document. */
  syntaxTree(parser: Parser): Tree | undefined {
    return (this.tree ??= parser.parse(this.text) ?? undefined);
  }

  dispose(): void {
    this.dropTree();
  }

  private dropTree(): void {
    this.tree?.delete();
    this.tree = undefined;
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

let sharedParser: Parser | undefined;
/** One parser for the server's lazily parsed trees (requires initParser() to have completed). */
export function documentParser(): Parser {
  return (sharedParser ??= newParser());
}
