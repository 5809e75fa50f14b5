// Keeps the diagnostics of open documents up to date.
//
// A Terraform module is a directory, so analysis is per directory: an edit to any open document schedules
// (debounced) an analysis of its directory with every open document of that directory as an overlay. When
// an analysis finishes and no newer edit arrived meanwhile, the open documents of the directory get their
// diagnostics: pushed with textDocument/publishDiagnostics (only the documents whose diagnostics changed), or,
// when the client pulls (textDocument/diagnostic), answered to pulls, with workspace/diagnostic/refresh sent
// when a document other than the pulled one changed. Results of an analysis overtaken by an edit are dropped.
// At most one analysis per directory runs at a time.
//
// Fast path (push mode): a directory analysis can take seconds in a large module, so when the debounce of
// an edit expires, each edited document is first checked for syntax errors alone, from its incrementally
// re-parsed tree (milliseconds). If it has any, they are published at once; they are what the directory
// analysis will report too (Terraform skips the other checks of a module that fails to load), and the
// analysis's complete result replaces them when it arrives. Likewise, a document that showed only syntax
// errors and has none left is cleared at once.
//
// Preview diagnostics: the preview plan (server/lsp/preview) hands in its own diagnostics per directory with
// setPreviewDiagnostics; they are merged after the analysis's into the pushed and pulled results of their
// files, with LSP source PREVIEW_SOURCE so the user can tell them apart. A new set replaces the previous set
// of that directory, and only documents whose merged result changed are republished.

import { readFileSync } from 'node:fs';
import { sep } from 'node:path';
import type { CancellationToken, Diagnostic } from 'vscode-languageserver';
import type { Diagnostic as EngineDiagnostic } from '../diags/diagnostic';
import { LineIndex, PREVIEW_DIAGNOSTIC_SOURCE, toLspDiagnostic } from './convert';
import type { OpenDocument, OpenDocuments } from './documents';
import type { DirectoryAnalysis, Engine } from './engine';
import { describeError, trace, tracing, type Logger } from './log';
import type { AnalysisStatusParams } from './protocol';

export interface DiagnosticsSink {
  /** Push mode: send diagnostics for one document. */
  publish(uri: string, diagnostics: Diagnostic[], version: number | undefined): void;
  /** Pull mode: ask the client to pull again (workspace/diagnostic/refresh), if it supports that. */
  refresh(): void;
  /** Informational status after each analysis. */
  status(params: AnalysisStatusParams): void;
}

interface DirState {
  /** Incremented by every edit in the directory; an analysis is current when it ran at the latest gen. */
  gen: number;
  doneGen: number;
  timer?: NodeJS.Timeout;
  running: boolean;
  results?: DirectoryAnalysis;
  /** The texts the current results refer to (positions are converted against these). */
  texts: Map<string, string>;
  /** Documents edited since the last debounce expired (for the fast syntax path). */
  edited: Set<string>;
  /** How many documents got the single-file first pass (before the directory's first results). */
  firstPass?: number;
  waiters: (() => void)[];
}

export class DiagnosticsScheduler {
  private readonly dirs = new Map<string, DirState>();
  /** What each open document was last given (pushed or pulled), as JSON, to send only changes. */
  private readonly sent = new Map<string, string>();
  /** Documents with a pull waiting for an analysis; they need no refresh, the pull answers them. */
  private readonly pulling = new Map<string, number>();
  private disposed = false;
  /** Preview-plan diagnostics: directory of the plan → absolute file path → diagnostics (source already set). */
  private readonly preview = new Map<string, Map<string, Diagnostic[]>>();

  /** pullMode is read on every analysis, so it may be decided after construction (at initialize). */
  pullMode = false;
  debounceMs = 150;

  constructor(
    private readonly engine: Engine,
    private readonly documents: OpenDocuments,
    private readonly sink: DiagnosticsSink,
    private readonly log: Logger,
  ) {}

  /**
   * Called after a document was opened or changed. An edited document gets the fast syntax path; an opened
   * one does not (a client restoring hundreds of tabs would have them all parsed on the main thread before
   * anything else), only the first pass when its directory has no results yet.
   */
  changed(doc: OpenDocument, opened = false): void {
    if (doc.dir === undefined) return;
    const st = this.state(doc.dir);
    // `doc.edited` too: a wrapper of this method (the preview follows it) may not pass `opened` on.
    if (!opened && doc.edited) st.edited.add(doc.uri);
    this.firstPass(st, doc);
    this.schedule(doc.dir, this.debounceMs);
  }

  /** Called after a document was closed (already removed from the store). */
  closed(uri: string, dir: string | undefined): void {
    if (!this.pullMode && this.sent.has(uri) && this.sent.get(uri) !== '[]') this.sink.publish(uri, [], undefined);
    this.sent.delete(uri);
    // The closed document's overlay is gone: its siblings now see the file as saved on disk.
    if (dir !== undefined && this.documents.inDirectory(dir).length > 0) this.schedule(dir, this.debounceMs);
    else if (dir !== undefined) this.forget(dir);
  }

  /**
   * Called when files changed on disk (created, saved by another program, deleted). Re-analyses every
   * directory with open documents that contains one of them, directly or in a subdirectory (local child
   * modules are loaded with their parent).
   */
  filesChanged(paths: readonly string[]): void {
    const dirs = new Set(this.documents.all().flatMap((d) => (d.dir === undefined ? [] : [d.dir])));
    for (const dir of dirs) {
      const prefix = dir.endsWith(sep) ? dir : dir + sep;
      if (paths.some((p) => p.startsWith(prefix))) this.schedule(dir, this.debounceMs);
    }
  }

  /**
   * Resolves when no analysis of `dir` is running or scheduled (at once when none is; also when the directory
   * is forgotten or the scheduler disposed). The preview plan waits for it: diagnostics come first, and the
   * two would otherwise share the machine's cores while the user waits for both.
   */
  settled(dir: string): Promise<void> {
    const st = this.dirs.get(dir);
    if (!st || this.disposed || (!st.running && !st.timer)) return Promise.resolve();
    return new Promise<void>((resolve) => st.waiters.push(resolve));
  }

  /** Pull mode: the current diagnostics of `uri`, waiting for a pending or running analysis to finish. */
  async pull(uri: string, token?: CancellationToken): Promise<Diagnostic[]> {
    const doc = this.documents.get(uri);
    if (!doc || doc.dir === undefined) return [];
    const st = this.state(doc.dir);
    this.pulling.set(uri, (this.pulling.get(uri) ?? 0) + 1);
    try {
      // Bounded: under a constant stream of edits, answer with the newest finished analysis. A cancelled
      // pull stops waiting at once (the handler answers RequestCancelled).
      for (let i = 0; i < 5 && st.doneGen !== st.gen && !this.disposed && !token?.isCancellationRequested; i++) {
        if (!st.timer && !st.running) this.start(doc.dir);
        await new Promise<void>((resolve) => {
          st.waiters.push(resolve);
          token?.onCancellationRequested(() => resolve());
        });
      }
    } finally {
      const n = (this.pulling.get(uri) ?? 1) - 1;
      if (n > 0) this.pulling.set(uri, n);
      else this.pulling.delete(uri);
    }
    const current = this.documents.get(uri);
    if (!current) return [];
    const diags = this.convert(current, st);
    this.sent.set(uri, JSON.stringify(diags));
    return diags;
  }

  /**
   * Replaces the preview-plan diagnostics of the plan of `directory` (absolute file path → diagnostics, in
   * the positions of the documents' current texts). They are merged into the results of those files, marked
   * with source PREVIEW_DIAGNOSTIC_SOURCE; documents whose merged result changed are republished (push) or
   * refreshed (pull). An empty map clears them.
   */
  setPreviewDiagnostics(directory: string, byFile: Map<string, Diagnostic[]>): void {
    if (this.disposed) return;
    const affected = new Set(this.preview.get(directory)?.keys() ?? []);
    const next = new Map<string, Diagnostic[]>();
    for (const [path, diags] of byFile) {
      affected.add(path);
      if (diags.length) next.set(path, diags.map((d) => ({ ...d, source: PREVIEW_DIAGNOSTIC_SOURCE })));
    }
    if (next.size) this.preview.set(directory, next);
    else this.preview.delete(directory);
    let stale = false;
    for (const doc of this.documents.all()) {
      if (doc.path === undefined || !affected.has(doc.path)) continue;
      const st = doc.dir === undefined ? undefined : this.dirs.get(doc.dir);
      // A document edited since its analysis gets the new set with its next analysis result: merged now, the older
      // analysis's diagnostics would go out under the document's newer version.
      if (st?.results && st.texts.get(doc.path) !== doc.text) continue;
      const diags = this.convert(doc, st);
      const key = JSON.stringify(diags);
      if (this.sent.get(doc.uri) === key) continue;
      if (this.pullMode) {
        if (this.sent.has(doc.uri) && !this.pulling.has(doc.uri)) stale = true;
      } else {
        this.sent.set(doc.uri, key);
        this.sink.publish(doc.uri, diags, doc.version);
      }
    }
    if (stale) this.sink.refresh();
  }

  dispose(): void {
    this.disposed = true;
    this.preview.clear();
    for (const st of this.dirs.values()) {
      clearTimeout(st.timer);
      for (const w of st.waiters.splice(0)) w();
    }
    this.dirs.clear();
  }

  private state(dir: string): DirState {
    let st = this.dirs.get(dir);
    if (!st) this.dirs.set(dir, (st = { gen: 1, doneGen: 0, running: false, texts: new Map(), edited: new Set(), waiters: [] }));
    return st;
  }

  private forget(dir: string): void {
    const st = this.dirs.get(dir);
    if (!st) return;
    clearTimeout(st.timer);
    for (const w of st.waiters.splice(0)) w();
    this.dirs.delete(dir);
  }

  private schedule(dir: string, delay: number): void {
    if (this.disposed) return;
    const st = this.state(dir);
    st.gen++;
    clearTimeout(st.timer);
    st.timer = setTimeout(() => {
      st.timer = undefined;
      // The analysis request first: the worker starts on it while this thread re-parses the edited documents for
      // the syntax fast path (their trees follow the edits lazily, documents.ts).
      this.start(dir);
      this.fastSyntax(st);
    }, delay);
  }

  /** Documents larger than this skip the fast path: their first parse alone may take long. */
  static readonly FAST_SYNTAX_LIMIT = 512 * 1024;

  /** Whether the diagnostics last sent for `uri` are all syntax errors (and there is at least one). */
  private onlySyntax(uri: string): boolean {
    const sent = this.sent.get(uri);
    if (sent === undefined || sent === '[]') return false;
    return (JSON.parse(sent) as Diagnostic[]).every((d) => d.code === 'syntax');
  }

  private fastSyntax(st: DirState): void {
    const uris = [...st.edited];
    st.edited.clear();
    if (this.pullMode) return;
    for (const uri of uris) {
      const doc = this.documents.get(uri);
      if (!doc || doc.text.length > DiagnosticsScheduler.FAST_SYNTAX_LIMIT) continue;
      let syntax: EngineDiagnostic[];
      try {
        syntax = doc.syntaxDiagnostics();
      } catch (e) {
        this.log.error(`syntax check of ${uri} failed: ${describeError(e)}`);
        continue;
      }
      // No syntax errors: if what the document shows is only syntax errors, they are gone now; anything
      // else waits for the analysis.
      if (syntax.length === 0 && !this.onlySyntax(uri)) continue;
      const diags = syntax.map((d) => toLspDiagnostic(d, doc.lines));
      const key = JSON.stringify(diags);
      if (this.sent.get(uri) === key) continue;
      this.sent.set(uri, key);
      this.sink.publish(uri, diags, doc.version);
    }
  }

  /** How many documents of a directory get the single-file first pass (the first opened: the active one). */
  static readonly FIRST_PASS_DOCUMENTS = 2;

  /**
   * Cold open (push mode): before a directory has any results, the first documents opened in it are checked
   * on their own at once, without waiting for the debounce or for the other documents being opened
   * (Engine.analyzeFile: syntax and the provider diagnostics that depend on nothing outside the file), and
   * those are published; the directory's analysis replaces them when it arrives.
   */
  private firstPass(st: DirState, doc: OpenDocument): void {
    if (this.pullMode || st.results || !this.engine.analyzeFile) return;
    if ((st.firstPass ?? 0) >= DiagnosticsScheduler.FIRST_PASS_DOCUMENTS) return;
    if (doc.path === undefined || !doc.path.endsWith('.tf') || doc.text.length > DiagnosticsScheduler.FAST_SYNTAX_LIMIT) return;
    st.firstPass = (st.firstPass ?? 0) + 1;
    const { uri, version, text, path } = doc;
    const t0 = tracing ? performance.now() : 0;
    void this.engine.analyzeFile(path, text).then(
      (found) => {
        if (tracing) trace(this.log, `first pass of ${uri}: ${found.length} diagnostics, ${(performance.now() - t0).toFixed(1)} ms`);
        const now = this.documents.get(uri);
        if (this.disposed || st.results || !now || now.version !== version || this.dirs.get(doc.dir!) !== st) return;
        const diags = found.map((d) => toLspDiagnostic(d, now.lines));
        const key = JSON.stringify(diags);
        if (this.sent.get(uri) === key) return;
        this.sent.set(uri, key);
        this.sink.publish(uri, diags, version);
      },
      (e) => this.log.error(`first pass of ${uri} failed: ${describeError(e)}`),
    );
  }

  private start(dir: string): void {
    const st = this.dirs.get(dir);
    if (!st || this.disposed) return;
    // A start while running is picked up when the run ends: its gen is then stale.
    if (st.running) return;
    st.running = true;
    void this.run(dir, st).finally(() => {
      st.running = false;
      if (this.dirs.get(dir) === st && st.doneGen !== st.gen && !st.timer) this.start(dir);
    });
  }

  private async run(dir: string, st: DirState): Promise<void> {
    const gen = st.gen;
    const texts = new Map<string, string>();
    for (const d of this.documents.inDirectory(dir)) if (d.path !== undefined) texts.set(d.path, d.text);
    const t0 = performance.now();
    let results: DirectoryAnalysis | undefined;
    let failure: string | undefined;
    try {
      results = await this.engine.analyzeDirectory(dir, texts);
    } catch (e) {
      failure = describeError(e);
      this.log.error(`analysis of ${dir} failed: ${failure}`);
    }
    const durationMs = Math.round((performance.now() - t0) * 10) / 10;
    if (this.disposed || this.dirs.get(dir) !== st) return;
    let count = 0;
    if (results) for (const l of results.diagnostics.values()) count += l.length;
    this.sink.status({ directory: dir, durationMs, diagnostics: count + (results?.general.length ?? 0), failure });
    if (st.gen !== gen) {
      // Overtaken by edits: the results are dropped and the scheduled analysis runs, unless the texts are
      // what was analysed (documents opened with their saved text, an edit undone): then they are current.
      if (!results || !this.sameInputs(dir, texts)) return;
      clearTimeout(st.timer);
      st.timer = undefined;
      st.edited.clear();
    }
    if (results) {
      st.results = results;
      st.texts = texts;
    }
    st.doneGen = st.gen;
    const t1 = tracing ? performance.now() : 0;
    const published = this.deliver(dir, st);
    if (tracing) trace(this.log, `delivered ${dir}: ${published} documents republished in ${(performance.now() - t1).toFixed(1)} ms (analysis ${durationMs} ms)`);
    for (const w of st.waiters.splice(0)) w();
  }

  /**
   * Whether the analysis inputs of `dir` are still `texts` (the overlays an analysis ran with): every open
   * document's text is its overlay there, or, when it had none, the file's text on disk; and every overlay of
   * a document closed since equals the file on disk.
   */
  private sameInputs(dir: string, texts: ReadonlyMap<string, string>): boolean {
    const disk = (p: string) => {
      try {
        return readFileSync(p, 'utf8');
      } catch {
        return undefined;
      }
    };
    const open = new Set<string>();
    for (const d of this.documents.inDirectory(dir)) {
      if (d.path === undefined) continue;
      open.add(d.path);
      const t = texts.get(d.path);
      if (t !== undefined ? t !== d.text : disk(d.path) !== d.text) return false;
    }
    for (const [p, t] of texts) if (!open.has(p) && disk(p) !== t) return false;
    return true;
  }

  /** Sends the documents of `dir` whose diagnostics changed; returns how many were sent (push) or stale (pull). */
  private deliver(dir: string, st: DirState): number {
    let stale = false;
    let n = 0;
    for (const doc of this.documents.inDirectory(dir)) {
      const diags = this.convert(doc, st);
      const key = JSON.stringify(diags);
      if (this.sent.get(doc.uri) === key) continue;
      if (this.pullMode) {
        // Only documents the client already pulled are known to be stale; the rest will be pulled anyway.
        if (this.sent.has(doc.uri) && !this.pulling.has(doc.uri)) stale = true;
      } else {
        this.sent.set(doc.uri, key);
        this.sink.publish(doc.uri, diags, doc.version);
      }
      n++;
    }
    if (stale) this.sink.refresh();
    return n;
  }

  /**
   * The analysis's diagnostics of `doc` followed by the preview plans' ones. A plan validates the configuration
   * again, so its errors repeat the analysis's provider diagnostics: one that the analysis shows at the same range
   * with the same message is left out.
   */
  private convert(doc: OpenDocument, st: DirState | undefined): Diagnostic[] {
    const own = st ? this.convertAnalysis(doc, st) : [];
    if (doc.path === undefined || this.preview.size === 0) return own;
    let out = own;
    let shown: Set<string> | undefined;
    for (const byFile of this.preview.values()) {
      const p = byFile.get(doc.path);
      if (!p) continue;
      shown ??= new Set(own.map(sameKey));
      const fresh = p.filter((d) => !shown!.has(sameKey(d)));
      if (fresh.length) out = [...out, ...fresh];
    }
    return out;
  }

  private convertAnalysis(doc: OpenDocument, st: DirState): Diagnostic[] {
    if (!st.results || doc.path === undefined) return [];
    const own: EngineDiagnostic[] = st.results.diagnostics.get(doc.path) ?? [];
    const all = st.results.general.length ? [...own, ...st.results.general] : own;
    if (all.length === 0) return [];
    const text = st.texts.get(doc.path);
    const index = text === undefined || text === doc.text ? doc.lines : new LineIndex(text);
    return all.map((d) => toLspDiagnostic(d, index));
  }
}

/** What makes two diagnostics the same to the user: range, severity and message. */
function sameKey(d: Diagnostic): string {
  const r = d.range;
  return `${r.start.line}:${r.start.character}:${r.end.line}:${r.end.character}:${d.severity ?? ''}:${d.message}`;
}
