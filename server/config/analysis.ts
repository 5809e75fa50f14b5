// Incremental analysis of one module directory: `ModuleAnalysis` keeps what loading extracted from each file
// (load.ts FileCache: syntax diagnostics, block contexts, generic bodies with parsed expression ASTs), the
// texts of files on disk by their stat (load.ts DiskTexts), and, for files with syntax errors edited through
// `update` with text changes, a ParsedDocument re-parsed incrementally by tree-sitter (a file without them
// is read by the fast lane, which needs no tree). After an edit only the changed file is parsed and converted
// again; the model is re-assembled from the cached declarations and the static checks run on it (checks.ts
// and evaluate.ts checkRepetition cache their results while the declarations they read are unchanged).
// Results equal validateDirectory's on the same texts (test/config/incremental.test.ts). Siblings:
// validate.ts (the one-shot entry point), load.ts.

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { applyTextChanges, ParsedDocument, type TextChange } from '../syntax/document';
import { initParser, type Tree } from '../syntax/treesitter';
import type { DiskTexts, FileCache } from './load';
import { validateDirectory, type ValidateResult } from './validate';

export class ModuleAnalysis {
  readonly dir: string;
  private readonly cache: FileCache = new Map();
  private readonly disk: DiskTexts = new Map();
  private readonly docs = new Map<string, ParsedDocument>();
  private overlays = new Map<string, string>();

  /** `budgetMs` as validateDirectory's (the language server's per-file parse budget). */
  constructor(
    dir: string,
    private readonly opts: { budgetMs?: number } = {},
  ) {
    this.dir = dir;
  }

  /**
   * The per-file parse results this analysis keeps (budget: `opts.budgetMs`). The language server's preview plans
   * load the configuration through it too (shared, not copied), so the module's model is held once.
   */
  get fileCache(): FileCache {
    return this.cache;
  }

  /** The last analysis's result and the overlays it was made with (a copy). */
  private last: { result: ValidateResult; overlays: Map<string, string> } | undefined;

  /** Analyses the directory with the current texts (files on disk, replaced by the overlays). */
  async analyze(overlays?: Map<string, string>): Promise<ValidateResult> {
    if (overlays) {
      this.overlays = new Map(overlays);
      for (const [p, d] of this.docs) if (this.overlays.get(p) !== d.text) this.closeDoc(p);
    }
    const trees = new Map<string, { text: string; tree: Tree }>();
    // A document's tree was parsed without a budget: used only when analysis has none either.
    if (this.opts.budgetMs === undefined) for (const [p, d] of this.docs) trees.set(p, { text: d.text, tree: d.tree });
    this.last = undefined;
    const result = await validateDirectory(this.dir, { overlays: this.overlays, budgetMs: this.opts.budgetMs, cache: this.cache, trees, disk: this.disk });
    this.last = { result, overlays: new Map(this.overlays) };
    return result;
  }

  /**
   * The last analysis's result when it was made with exactly these overlays (the same files and texts), as
   * validateDirectory would give it now with `fileCache` and the analysis's parse budget, files on disk unchanged
   * since: the language server's preview, which follows the analysis of the same texts, loads nothing again.
   */
  resultFor(overlays: ReadonlyMap<string, string>): ValidateResult | undefined {
    const last = this.last;
    if (!last || last.overlays.size !== overlays.size || this.opts.budgetMs === undefined) return undefined;
    for (const [p, text] of overlays) if (last.overlays.get(p) !== text) return undefined;
    return last.result;
  }

  /**
   * Replaces the text of `path` (absolute) with `change` (the whole new text), or applies LSP-style text
   * changes to its current text (re-parsed incrementally), and returns the new analysis.
   */
  async update(path: string, change: string | readonly TextChange[]): Promise<ValidateResult> {
    const abs = resolve(path);
    if (typeof change === 'string') {
      this.closeDoc(abs);
      this.overlays.set(abs, change);
    } else {
      const doc = this.docs.get(abs);
      if (doc) {
        await initParser();
        doc.applyChanges(change);
        this.overlays.set(abs, doc.text);
      } else this.overlays.set(abs, applyTextChanges(this.currentText(abs), change));
    }
    const res = await this.analyze();
    // A file the fast lane could not read (syntax errors) was parsed by tree-sitter: a tree is kept for it, so that
    // the next edits re-parse it incrementally (trees are used only without a parse budget, see analyze). It stays
    // until the file is replaced whole or reverted: an incremental re-parse costs little.
    const entry = this.cache.get(abs);
    if (typeof change !== 'string' && this.opts.budgetMs === undefined && !this.docs.has(abs) && entry?.fromTree && entry.text === this.overlays.get(abs)) {
      await initParser();
      this.docs.set(abs, new ParsedDocument(abs, this.overlays.get(abs)!));
    }
    return res;
  }

  /**
   * Runs the path of an edit `rounds` times without changing anything: one file of the directory gets a line
   * break appended, is analysed, and is put back and analysed again. Meant for idle time after the first
   * analysis: the first edits otherwise run before V8 has optimised the incremental path's code (measured on the
   * bench workspace: the first six edits took 20-60 ms against 8-15 ms afterwards). The file is one the fast lane
   * read without problems, and not one with an incrementally parsed document; afterwards the overlays, the
   * documents and the results are as before. `stop` is asked before each round (true: stop priming).
   */
  async prime(rounds = 3, stop: () => boolean = () => false): Promise<void> {
    const dir = resolve(this.dir);
    let abs: string | undefined;
    let text = '';
    for (const [p, e] of this.cache) {
      if (!e.fromTree && !e.diagnostics.length && p.endsWith('.tf') && !this.docs.has(p) && dirname(p) === dir && e.text === this.currentText(p)) {
        abs = p;
        text = e.text;
        break;
      }
    }
    if (abs === undefined) return;
    const had = this.overlays.get(abs);
    for (let k = 0; k < rounds && !stop(); k++) {
      this.overlays.set(abs, text + '\n');
      try {
        await this.analyze();
      } finally {
        if (had === undefined) this.overlays.delete(abs);
        else this.overlays.set(abs, had);
      }
      await this.analyze();
    }
  }

  /** Forgets an overlay (the file reverts to its text on disk). */
  async revert(path: string): Promise<ValidateResult> {
    const abs = resolve(path);
    this.closeDoc(abs);
    this.overlays.delete(abs);
    return this.analyze();
  }

  /** The text analysis uses for `path`: its overlay, else the file on disk ("" when unreadable). */
  currentText(path: string): string {
    const abs = resolve(path);
    const o = this.overlays.get(abs);
    if (o !== undefined) return o;
    try {
      return readFileSync(abs, 'utf8');
    } catch {
      return '';
    }
  }

  private closeDoc(abs: string): void {
    this.docs.get(abs)?.dispose();
    this.docs.delete(abs);
  }

  /** Frees the trees of edited documents; the analysis is unusable afterwards. */
  dispose(): void {
    for (const d of this.docs.values()) d.dispose();
    this.docs.clear();
    this.cache.clear();
    this.disk.clear();
    this.last = undefined;
  }
}
