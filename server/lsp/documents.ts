// The documents the client has open, as the client last sent them.
//
// Contract: the client owns the text of an open document; this store applies the client's changes in order
// and never reads an open document from disk. A document's syntax tree is built on first use (parsing is
// the costly part and analysis happens elsewhere: opening a huge document must not stall the server) and
// from then on is re-parsed incrementally (syntax/document.ts) with the changes made since, when next used.
// The tree lives on the WebAssembly heap, so a document must be disposed when it closes (OpenDocuments.close
// does it).

import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver';
import { ParsedDocument, type TextChange } from '../syntax/document';
import type { Tree } from '../syntax/treesitter';
import type { Diagnostic } from '../diags/diagnostic';
import { LineIndex } from './convert';

/** Changes kept for a tree before it is dropped instead (OpenDocument.update). */
const MAX_PENDING = 64;

export class OpenDocument {
  private doc: TextDocument;
  private parsed: ParsedDocument | undefined;
  /**
   * Ranged changes made to the text since the tree was last brought up to date, in order: the tree follows them
   * when it is next used (upToDate), not in didChange, so that an edit's analysis request leaves before the re-parse.
   */
  private pending: TextChange[] = [];
  /** A whole-text change came since: the tree is then parsed again from the current text (pending is empty). */
  private reset = false;
  private index: LineIndex | undefined;

  /** Absolute file-system path, or undefined for a non-file URI (such documents get no directory analysis). */
  readonly path: string | undefined;
  /** The directory of `path` (a Terraform module), or undefined for a non-file URI. */
  readonly dir: string | undefined;
  /**
   * Whether the client changed the text since it opened the document. An opened document that was never
   * edited shows its file as it is on disk (or as the client restored it) and needs no syntax fast path.
   */
  edited = false;

  constructor(readonly uri: string, languageId: string, version: number, text: string) {
    this.path = uriToPath(uri);
    this.dir = this.path === undefined ? undefined : dirname(this.path);
    this.doc = TextDocument.create(uri, languageId, version, text);
  }

  get text(): string {
    return this.doc.getText();
  }
  get version(): number {
    return this.doc.version;
  }

  /** Whether the syntax tree exists already (built by a feature that needed it, kept up to date since). */
  get hasTree(): boolean {
    return this.parsed !== undefined;
  }

  /** The line index of the current text (built on first use after each change). */
  get lines(): LineIndex {
    return (this.index ??= new LineIndex(this.text));
  }

  /** The syntax tree of the current text, parsed on first use; owned by this document, valid until the next change. */
  get tree(): Tree {
    return this.upToDate().tree;
  }

  /** HCL syntax diagnostics of the current text (from the incrementally maintained tree). */
  syntaxDiagnostics(): Diagnostic[] {
    return this.upToDate().diagnostics();
  }

  /** The parsed document of the current text: built, or re-parsed incrementally with the pending changes. */
  private upToDate(): ParsedDocument {
    const parsed = (this.parsed ??= new ParsedDocument(this.path ?? this.uri, this.text));
    const changes = this.pending;
    const reset = this.reset;
    this.pending = [];
    this.reset = false;
    try {
      if (reset) parsed.setText(this.text);
      else if (changes.length) parsed.applyChanges(changes);
      // Out-of-range positions are clamped differently by the two; the text store is the reference.
      if (parsed.text !== this.text) parsed.setText(this.text);
    } catch (e) {
      // A tree left half-way is not kept: the next use parses the text afresh.
      this.dispose();
      throw e;
    }
    return parsed;
  }

  /** Applies the client's changes (full or incremental, in order) and moves to `version`. */
  update(changes: TextDocumentContentChangeEvent[], version: number): void {
    this.doc = TextDocument.update(this.doc, changes, version);
    this.index = undefined;
    this.edited = true;
    // A document without a tree gets one from its text when first needed.
    if (!this.parsed) return;
    for (const ch of changes) {
      if (!('range' in ch)) {
        // A whole text: what came before it no longer matters, nor (for the tree) what comes after it until the
        // tree is used: it is parsed from the text then. No text is kept here.
        this.reset = true;
        this.pending = [];
      } else if (!this.reset) this.pending.push({ range: ch.range, text: ch.text });
    }
    // A tree nothing has asked for in many edits (pull diagnostics, no feature using it) is dropped rather than
    // left to keep every change: it is parsed again from the text when next used.
    if (this.pending.length > MAX_PENDING) this.dispose();
  }

  dispose(): void {
    this.parsed?.dispose();
    this.parsed = undefined;
    this.pending = [];
    this.reset = false;
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

/**
 * The open documents, by URI, by file path and by directory. Every lookup is O(1) or O(documents of the
 * directory), never a scan of all documents: the editing features look files up once per file of a module,
 * and with hundreds of open documents a scan per lookup made each completion quadratic.
 */
export class OpenDocuments {
  private readonly docs = new Map<string, OpenDocument>();
  private readonly paths = new Map<string, OpenDocument>();
  /** Per directory, its open documents in opening order; the array is replaced (never mutated) on a change. */
  private readonly dirs = new Map<string, OpenDocument[]>();
  private readonly openListeners: ((doc: OpenDocument) => void)[] = [];

  /** Calls `listener` after each document is opened (the editing features index the module afterwards). */
  onOpen(listener: (doc: OpenDocument) => void): void {
    this.openListeners.push(listener);
  }

  open(uri: string, languageId: string, version: number, text: string): OpenDocument {
    this.close(uri);
    const d = new OpenDocument(uri, languageId, version, text);
    this.docs.set(uri, d);
    if (d.path !== undefined) this.paths.set(d.path, d);
    if (d.dir !== undefined) this.dirs.set(d.dir, [...(this.dirs.get(d.dir) ?? []), d]);
    for (const l of this.openListeners) l(d);
    return d;
  }

  get(uri: string): OpenDocument | undefined {
    return this.docs.get(uri);
  }

  /** The open document of the file at `path` (absolute), if any. */
  byPath(path: string): OpenDocument | undefined {
    return this.paths.get(path);
  }

  close(uri: string): OpenDocument | undefined {
    const d = this.docs.get(uri);
    if (!d) return undefined;
    d.dispose();
    this.docs.delete(uri);
    if (d.path !== undefined && this.paths.get(d.path) === d) this.paths.delete(d.path);
    if (d.dir !== undefined) {
      const rest = (this.dirs.get(d.dir) ?? []).filter((x) => x !== d);
      if (rest.length) this.dirs.set(d.dir, rest);
      else this.dirs.delete(d.dir);
    }
    return d;
  }

  /**
   * The open documents whose file lies directly in `dir` (a Terraform module is one directory). The array
   * is shared and must not be modified; it stays as it is when documents open or close later.
   */
  inDirectory(dir: string): readonly OpenDocument[] {
    return this.dirs.get(dir) ?? [];
  }

  /** The directories with open documents. */
  directories(): string[] {
    return [...this.dirs.keys()];
  }

  all(): OpenDocument[] {
    return [...this.docs.values()];
  }

  disposeAll(): void {
    for (const d of this.docs.values()) d.dispose();
    this.docs.clear();
    this.paths.clear();
    this.dirs.clear();
  }
}
