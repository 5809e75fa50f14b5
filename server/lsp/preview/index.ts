// The preview plan and runs on request (issue 7 §2, §4): code lens, inlay hints, hover, and the custom
// foresight/* requests of protocol.ts. server.ts calls registerPreview once; initialize.ts merges
// previewCapabilities into the server's capabilities.
//
// Folder server/lsp/preview:
//   index.ts  (this file) the main-thread side: debounced previews per module directory after edits, the LSP
//             handlers (codeLens, inlayHint, hover) answered from the last preview, the run requests, run
//             history and notifications.
//   worker.ts preview plans (refresh off, PlanResourceChange cache; made in the analysis worker through
//             Engine.preview), and the run worker thread: runs through the CLI's operation (same lock, journal
//             and output), state, workspaces, planned diffs of runs.
//   model.ts  plan → lenses, hints, hovers and ResourceChangeInfo (pure, runs in the worker).
//
// Contracts: nothing here blocks on the engine (all of it runs in the workers); a newer edit supersedes an
// older preview (its result is dropped and the worker aborts its walk); in an untrusted workspace no preview
// is made and every run request answers RequestFailed saying why; a failed request answers with an error,
// never a crash. Preview diagnostics go through DiagnosticsScheduler.setPreviewDiagnostics.

import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  LSPErrorCodes,
  ResponseError,
  type CodeLens,
  type Connection,
  type Hover,
  type InitializeParams,
  type InlayHint,
  type ServerCapabilities,
} from 'vscode-languageserver';
import type { OpenDocument } from '../documents';
import { uriToPath } from '../documents';
import { describeError, guard, trace, tracing } from '../log';
import {
  applyChangesDelta,
  changesDelta,
  ApplyRunRequest,
  CancelRunRequest,
  Commands,
  ListRunsRequest,
  PlannedDiffRequest,
  PlanRunRequest,
  PreviewChangedNotification,
  PreviewRequest,
  RefreshRunRequest,
  RunProgressNotification,
  RunStatusNotification,
  StateRequest,
  TrustNotification,
  WorkspacesRequest,
  type InitializationOptions,
  type PreviewResult,
  type ResourceChangeInfo,
  type RunCommandArgs,
  type RunInfo,
  type RunKind,
  type RunOptions,
  type RunProgressParams,
} from '../protocol';
import type { Session } from '../session';
import { intern } from '../../lang/intern';
import { HOVER_TEXTS_MAX, type DriftInfo, type FilePresentation } from './model';
import {
  PREVIEW_INTERRUPTED,
  PREVIEW_WORKER_ROLE,
  type PreviewCall,
  type PreviewData,
  type PreviewSettings,
  type RunResult,
  type WorkerMessage,
  type WorkerRequest,
} from './worker';

export { PREVIEW_WORKER_ROLE };

const UNTRUSTED =
  'This workspace is not trusted: Foresight runs no provider code and starts no plan, apply or refresh until you trust the workspace.';

type Distribute<T> = T extends unknown ? Omit<T, 'id'> : never;

/** The main side of the preview worker: request/response by id, progress events, restart after a crash. */
class PreviewWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(
    private readonly script: string,
    private readonly onProgress: (p: RunProgressParams) => void,
  ) {}

  request<R>(msg: Distribute<WorkerRequest>): Promise<R> {
    const w = this.ensure();
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      w.postMessage({ ...msg, id });
    });
  }

  dispose(): void {
    const w = this.worker;
    this.worker = undefined;
    this.failAll('the preview worker was stopped');
    void w?.terminate();
  }

  private failAll(why: string): void {
    for (const [id, p] of this.pending) {
      p.reject(new Error(why));
      this.pending.delete(id);
    }
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.script, { workerData: { role: PREVIEW_WORKER_ROLE } });
    w.unref();
    w.on('message', (m: WorkerMessage) => {
      if ('event' in m) return this.onProgress(m.params);
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if ('error' in m) p.reject(new Error(m.error));
      else p.resolve(m.result);
    });
    const fail = (why: string) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      this.failAll(why);
    };
    w.on('error', (e) => fail(`the preview worker failed: ${e.stack ?? e.message}`));
    w.on('exit', (code) => fail(`the preview worker exited with code ${code}`));
    this.worker = w;
    return w;
  }
}

/**
 * `f` with its equal hover texts as one string each: a message from a worker brings every string as its own copy
 * (the worker's shared strings too), and thousands of references have the same few hover texts.
 */
function sharedTexts(f: FilePresentation, texts: Map<string, string>): FilePresentation {
  for (const h of f.hovers) h.markdown = intern(texts, h.markdown, HOVER_TEXTS_MAX);
  return f;
}

/** A refusal from the worker ("refusal:" prefix) becomes RequestFailed with its message; bugs are logged. */
function requestFailed(e: unknown): ResponseError<void> {
  const m = e instanceof Error ? e.message : String(e);
  return new ResponseError(LSPErrorCodes.RequestFailed, m.startsWith('refusal:') ? m.slice('refusal:'.length) : m.split('\n')[0]);
}

interface DirPreview {
  timer?: NodeJS.Timeout;
  /** Sequence number of the latest preview requested; older answers are dropped. */
  seq: number;
  version: number;
  data?: PreviewData;
  /** Presentations of `data`'s plan: the open files' came with it, others are made when asked for (fileOf). */
  files: Map<string, FilePresentation>;
  /** Every file of `data`'s configuration. */
  paths: Set<string>;
  /** Equal hover texts of `files` as one string (sharedTexts). */
  texts: Map<string, string>;
  /** Presentations being asked for, by previewId and path. */
  fetching: Map<string, Promise<FilePresentation | undefined>>;
  /** The changes of the worker's preview `previewId` as this side holds them (a worker's answer may be edits of them). */
  held?: { previewId: number; changes: ResourceChangeInfo[] };
  /** The changes of the last notification sent for the directory (the next one may be edits of them). */
  notified?: { version: number; changes: ResourceChangeInfo[] };
  inflight?: Promise<void>;
  /** Previews retried after the worker died, since the last preview that succeeded. */
  retries: number;
}

interface RunRecord {
  info: RunInfo;
  changes?: ResourceChangeInfo[];
  progress: Map<string, RunProgressParams>;
  settle?: (r: RunInfo) => void;
  finished: boolean;
  /** The options the run was started with (an apply of a plan run uses its parallelism). */
  options?: RunOptions;
}

class PreviewController {
  private options: InitializationOptions = {};
  private trusted = true;
  private codeLensRefresh = false;
  private inlayRefresh = false;
  private readonly dirs = new Map<string, DirPreview>();
  private readonly runs: RunRecord[] = [];
  /** What the last plan or refresh run of a directory found changed outside of Terraform (shown by its previews until an apply). */
  private readonly drift = new Map<string, DriftInfo[]>();
  private nextRun = 1;
  private readonly worker: PreviewWorker;
  private readonly planDir = join(tmpdir(), `foresight-runs-${process.pid}`);
  private disposed = false;

  constructor(
    private readonly connection: Connection,
    private readonly session: Session,
  ) {
    this.worker = new PreviewWorker(__filename, (p) => this.progress(p));
    this.hookDocuments();
    this.register();
  }

  configure(params: InitializeParams): void {
    this.options = (params.initializationOptions ?? {}) as InitializationOptions;
    this.trusted = this.options.trusted !== false;
    this.codeLensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
    this.inlayRefresh = params.capabilities.workspace?.inlayHint?.refreshSupport === true;
  }

  private get previewEnabled(): boolean {
    return this.trusted && this.options.preview !== false && !this.disposed;
  }

  private get settings(): PreviewSettings {
    return { vars: this.options.vars, varFiles: this.options.varFiles };
  }

  // ---- documents → previews --------------------------------------------------------------------------------

  /** Follows the diagnostics scheduler's notifications (the document handlers call it) without owning them. */
  private hookDocuments(): void {
    const d = this.session.diagnostics;
    const changed = d.changed.bind(d);
    d.changed = (doc: OpenDocument) => {
      changed(doc);
      if (doc.dir !== undefined) this.schedule(doc.dir);
    };
    const closed = d.closed.bind(d);
    d.closed = (uri: string, dir: string | undefined) => {
      closed(uri, dir);
      if (dir !== undefined && this.session.documents.inDirectory(dir).length > 0) this.schedule(dir);
      else if (dir !== undefined) this.forget(dir);
    };
    const filesChanged = d.filesChanged.bind(d);
    d.filesChanged = (paths: readonly string[]) => {
      filesChanged(paths);
      // Configuration, variable files, the state (a terminal run) or the selected workspace changed on disk.
      for (const dir of this.dirs.keys()) if (paths.some((p) => p.startsWith(dir + sep))) this.schedule(dir);
    };
    const dispose = d.dispose.bind(d);
    d.dispose = () => {
      dispose();
      this.dispose();
    };
  }

  private state(dir: string): DirPreview {
    let st = this.dirs.get(dir);
    if (!st) this.dirs.set(dir, (st = { seq: 0, version: 0, files: new Map(), paths: new Set(), texts: new Map(), fetching: new Map(), retries: 0 }));
    return st;
  }

  /** The previewed root modules that load `dir` as a local child module. */
  private rootsOf(dir: string): string[] {
    const roots: string[] = [];
    for (const [root, st] of this.dirs) if (root !== dir && st.data?.moduleDirs.includes(dir)) roots.push(root);
    return roots;
  }

  private schedule(dir: string, delay = this.options.previewDebounceMs ?? 400): void {
    if (!this.previewEnabled) return;
    // A child module is previewed through the roots that call it (its variables come from them).
    const roots = this.rootsOf(dir);
    if (roots.length) {
      if (this.dirs.get(dir)?.data) this.forget(dir);
      for (const r of roots) this.schedule(r, delay);
      return;
    }
    const st = this.state(dir);
    if (st.timer) clearTimeout(st.timer);
    st.timer = setTimeout(() => {
      st.timer = undefined;
      // After the directory's analysis (DiagnosticsScheduler.settled); a newer schedule or a forget meanwhile
      // takes over.
      const seq = st.seq;
      void this.session.diagnostics.settled(dir).then(() => {
        if (this.dirs.get(dir) === st && st.seq === seq && !st.timer) void this.preview(dir);
      });
    }, Math.max(0, delay));
  }

  private forget(dir: string): void {
    const st = this.dirs.get(dir);
    if (!st) return;
    if (st.timer) clearTimeout(st.timer);
    st.seq++;
    this.dirs.delete(dir);
    this.session.diagnostics.setPreviewDiagnostics(dir, new Map());
  }

  /** Makes a preview of `dir` now; resolves when it (or a newer one) is stored. */
  private preview(dir: string): Promise<void> {
    const st = this.state(dir);
    const seq = ++st.seq;
    const overlays: [string, string][] = [];
    for (const doc of this.session.documents.all()) if (doc.path !== undefined) overlays.push([doc.path, doc.text]);
    // The open files' presentations come with the preview; any other file's is made when the editor asks for it.
    const present = overlays.map(([path]) => path);
    if (tracing) trace(this.session.log, `preview #${seq} of ${dir} requested`);
    const p = this.previewCall<PreviewData>({ kind: 'preview', dir, overlays, settings: this.settings, drift: this.drift.get(dir), present, base: st.held?.previewId })
      .then((data) => {
        if (tracing) trace(this.session.log, `preview #${seq} back: ${Math.round(data.stats.durationMs)} ms in the worker, ${data.files.length} files, ${data.changes.length} changes ${JSON.stringify(data.stats)}`);
        if (seq !== st.seq || !this.previewEnabled || this.dirs.get(dir) !== st) return; // superseded
        if (data.changesDelta) {
          const d = data.changesDelta;
          const changes = st.held?.previewId === d.base ? applyChangesDelta(st.held.changes, d) : undefined;
          if (!changes) {
            // Not the list this side holds (nothing should lead here): made again with the whole list.
            this.session.log.error(`preview of ${dir}: its changes are edits of preview ${d.base}, which is not held; making it again`);
            st.held = undefined;
            this.schedule(dir, 0);
            return;
          }
          data.changes = changes;
          delete data.changesDelta;
        }
        st.held = { previewId: data.previewId, changes: data.changes };
        st.version++;
        st.retries = 0;
        // A configuration that does not load (a syntax error mid-edit) keeps the last lenses and hints in place.
        const keep = !data.complete && data.paths.length === 0 && st.data !== undefined;
        // (previewId and paths too: the kept files' lazy hovers and presentations come from the plan they were made from.)
        st.data = keep ? { ...data, moduleDirs: st.data!.moduleDirs, previewId: st.data!.previewId, paths: st.data!.paths } : data;
        if (!keep) {
          const texts = new Map<string, string>();
          st.texts = texts;
          st.files = new Map(data.files.map(([path, f]) => [path, sharedTexts(f, texts)]));
          st.paths = new Set(data.paths);
        }
        this.session.log.info(
          `preview of ${dir}: ${Math.round(data.stats.durationMs)} ms, ${data.stats.planCalls} PlanResourceChange calls, ${data.stats.cacheHits} from cache`,
        );
        this.session.log.info(`preview phases (ms): ${JSON.stringify(data.stats.phases)}`);
        this.session.diagnostics.setPreviewDiagnostics(dir, new Map(data.lspDiagnostics));
        void this.connection.sendNotification(PreviewChangedNotification.method, this.notification(dir, st));
        if (tracing) trace(this.session.log, `preview #${seq} notified`);
        if (this.codeLensRefresh) void this.connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
        if (this.inlayRefresh) void this.connection.sendRequest('workspace/inlayHint/refresh').catch(() => undefined);
      })
      .catch((e: unknown) => {
        const m = e instanceof Error ? e.message : String(e);
        // An analysis came first (the preview is made beside it): made again after it, unless a newer one is due.
        if (m === `refusal:${PREVIEW_INTERRUPTED}`) {
          if (seq === st.seq && this.dirs.get(dir) === st && !st.timer) this.schedule(dir);
          return;
        }
        if (m.startsWith('refusal:')) return;
        this.session.log.error(`preview of ${dir} failed: ${describeError(e)}`);
        // The worker died (a crash, or its script could not load): a fresh worker tries again, a few times.
        if (/^the (preview|analysis) worker (failed|exited|was restarted|ran out of memory)/.test(m) && seq === st.seq && st.retries < 3) {
          st.retries++;
          this.schedule(dir, 250 * st.retries);
        }
      });
    st.inflight = p;
    return p;
  }

  /**
   * Preview plans, their lazy hovers and planned diffs: made by the engine beside its analysis when it can
   * (Engine.preview: the analysis worker, which holds the module's model already), else by the preview worker.
   */
  private previewCall<R>(call: PreviewCall): Promise<R> {
    const engine = this.session.engine;
    if (engine.preview) return engine.preview(call) as Promise<R>;
    return this.worker.request<R>(call);
  }

  /** The notification of the preview shown: its changes as edits of the last notification's where that is smaller. */
  private notification(dir: string, st: DirPreview): PreviewChangedNotification.Params {
    const r = this.result(dir, st);
    const last = st.notified;
    st.notified = { version: r.version, changes: r.changes };
    const delta = last && changesDelta(last.changes, last.version, r.changes);
    if (!delta) return r;
    const out: PreviewChangedNotification.Params = { ...r, changesDelta: delta };
    delete out.changes;
    return out;
  }

  private result(dir: string, st: DirPreview): PreviewResult {
    const d = st.data!;
    const r: PreviewResult = { directory: dir, version: st.version, complete: d.complete, summary: d.summary, changes: d.changes, diagnostics: d.diagnostics, workspace: d.workspace };
    if (d.stateStamp) r.stateStamp = d.stateStamp;
    return r;
  }

  /** The presentation of a file: from a complete preview when there is one, the file's own directory first. */
  private async presentation(path: string): Promise<{ dir: string; f: FilePresentation } | undefined> {
    if (!this.previewEnabled) return undefined;
    let best: { dir: string; st: DirPreview; score: number } | undefined;
    for (const [dir, st] of this.dirs) {
      if (!st.data || !(st.files.has(path) || st.paths.has(path))) continue;
      // A child module's file is shown from the root that calls it rather than from a preview of its own.
      const own = path.startsWith(dir + '/') && !path.slice(dir.length + 1).includes('/');
      const score = (st.data.complete ? 2 : 0) + (own ? 0 : 1);
      if (!best || score > best.score) best = { dir, st, score };
    }
    if (!best) return undefined;
    const f = best.st.files.get(path) ?? (await this.fileOf(best.st, path));
    return f && { dir: best.dir, f };
  }

  /** The presentation of a file that did not come with its preview, made by the worker from that preview's plan. */
  private fileOf(st: DirPreview, path: string): Promise<FilePresentation | undefined> {
    const previewId = st.data!.previewId;
    const key = `${previewId}\u0000${path}`;
    let p = st.fetching.get(key);
    if (!p) {
      p = this.previewCall<[string, FilePresentation][] | null>({ kind: 'files', previewId, paths: [path] })
        .then((r) => {
          const f = r?.[0]?.[1];
          if (f && st.data?.previewId === previewId) st.files.set(path, sharedTexts(f, st.texts));
          return f;
        })
        .finally(() => st.fetching.delete(key));
      st.fetching.set(key, p);
    }
    return p;
  }

  // ---- LSP handlers ------------------------------------------------------------------------------------------

  private register(): void {
    const c = this.connection;
    const log = this.session.log;
    c.onCodeLens(guard(log, 'codeLens', () => [], (p) => this.codeLenses(p.textDocument.uri)));
    c.languages.inlayHint.on(guard(log, 'inlayHint', () => [], (p) => this.inlayHints(p.textDocument.uri, p.range)));
    c.onHover(guard(log, 'hover', () => null, (p) => this.hover(p.textDocument.uri, p.position)));
    c.onNotification(TrustNotification.method, (p: TrustNotification.Params) => this.setTrusted(p?.trusted !== false));
    const req = <P, R>(method: string, fn: (p: P) => Promise<R> | R) =>
      c.onRequest(method, async (p: P): Promise<unknown> => {
        try {
          return await fn(p);
        } catch (e) {
          if (e instanceof ResponseError) return e;
          log.error(`${method} failed: ${describeError(e)}`);
          return requestFailed(e);
        }
      });
    req(PreviewRequest.method, (p: PreviewRequest.Params) => this.previewRequest(p));
    req(PlanRunRequest.method, (p: PlanRunRequest.Params) => this.startRun('plan', p));
    req(RefreshRunRequest.method, (p: RefreshRunRequest.Params) => this.startRun('refresh', p));
    req(ApplyRunRequest.method, (p: ApplyRunRequest.Params) => this.applyRun(p));
    req(CancelRunRequest.method, (p: CancelRunRequest.Params) => this.cancelRun(p));
    req(ListRunsRequest.method, () => this.runs.map((r) => ({ ...r.info, resources: [...r.progress.values()] })));
    // Reading the state and the workspace list runs no provider code: allowed in an untrusted workspace too.
    req(StateRequest.method, (p: StateRequest.Params) => this.guarded(() => this.worker.request<StateRequest.Result>({ kind: 'state', dir: this.dirOf(p) }), true));
    req(WorkspacesRequest.method, (p: WorkspacesRequest.Params) =>
      this.guarded(async () => {
        const r = await this.worker.request<WorkspacesRequest.Result>({ kind: 'workspaces', dir: this.dirOf(p), select: p.select });
        if (p.select !== undefined) this.schedule(this.dirOf(p), 0);
        return r;
      }, true),
    );
    req(PlannedDiffRequest.method, (p: PlannedDiffRequest.Params) =>
      this.guarded(async () => {
        const dir = this.dirOf(p);
        if (p.runId === undefined && !this.dirs.get(dir)?.data) await this.previewRequest({ directory: dir });
        if (p.runId === undefined) return this.previewCall<PlannedDiffRequest.Result>({ kind: 'diff', dir, address: p.address });
        return this.worker.request<PlannedDiffRequest.Result>({ kind: 'diff', dir, address: p.address, runId: p.runId });
      }),
    );
  }

  private dirOf(p: { directory?: string } | undefined): string {
    if (!p || typeof p.directory !== 'string' || p.directory === '') throw new ResponseError(LSPErrorCodes.RequestFailed, 'No workspace directory was given.');
    return p.directory;
  }

  private async guarded<R>(fn: () => Promise<R>, untrustedOk = false): Promise<R> {
    if (!this.trusted && !untrustedOk) throw new ResponseError(LSPErrorCodes.RequestFailed, UNTRUSTED);
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ResponseError) throw e;
      throw requestFailed(e);
    }
  }

  private setTrusted(trusted: boolean): void {
    this.trusted = trusted;
    if (!trusted) {
      for (const dir of [...this.dirs.keys()]) this.forget(dir);
    } else {
      for (const doc of this.session.documents.all()) if (doc.dir !== undefined) this.schedule(doc.dir, 0);
    }
    if (this.codeLensRefresh) void this.connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
    if (this.inlayRefresh) void this.connection.sendRequest('workspace/inlayHint/refresh').catch(() => undefined);
  }

  private async previewRequest(p: PreviewRequest.Params): Promise<PreviewResult> {
    if (!this.trusted) throw new ResponseError(LSPErrorCodes.RequestFailed, UNTRUSTED);
    if (this.options.preview === false) throw new ResponseError(LSPErrorCodes.RequestFailed, 'The preview is turned off (initializationOptions.preview is false).');
    const dir = this.dirOf(p);
    const st = this.state(dir);
    // Wait for a pending or running preview, or make one.
    for (let i = 0; i < 3 && (!st.data || st.timer || st.inflight); i++) {
      if (st.timer) {
        clearTimeout(st.timer);
        st.timer = undefined;
        // After the directory's analysis, as a scheduled preview would (an analysis interrupts a preview).
        await this.session.diagnostics.settled(dir);
        await this.preview(dir);
      } else if (st.inflight) {
        const f = st.inflight;
        await f;
        if (st.inflight === f) st.inflight = undefined;
      } else await this.preview(dir);
    }
    if (!st.data) throw new ResponseError(LSPErrorCodes.RequestFailed, `The preview of ${dir} could not be made; see the server log.`);
    return this.result(dir, st);
  }

  private async codeLenses(uri: string): Promise<CodeLens[]> {
    const path = uriToPath(uri);
    const found = path === undefined ? undefined : await this.presentation(path);
    if (!found) return [];
    const out: CodeLens[] = [];
    for (const l of found.f.lenses) {
      out.push({ range: l.range, command: { title: l.title, command: '' } });
      if (!l.target) continue;
      const args: RunCommandArgs = { targets: [l.target], directory: found.dir };
      out.push({ range: l.range, command: { title: 'Plan this', command: Commands.planResource, arguments: [args] } });
      out.push({ range: l.range, command: { title: 'Apply this', command: Commands.applyResource, arguments: [args] } });
      out.push({ range: l.range, command: { title: 'Show diff', command: Commands.showPlannedDiff, arguments: [{ targets: [l.instance ?? l.target], directory: found.dir }] } });
    }
    return out;
  }

  private async inlayHints(uri: string, range: { start: { line: number }; end: { line: number } }): Promise<InlayHint[]> {
    const path = uriToPath(uri);
    const found = path === undefined ? undefined : await this.presentation(path);
    if (!found) return [];
    const o = this.options.inlayHints ?? {};
    const planned = o.plannedValues !== false;
    const unknownOn = o.knownAfterApply !== false;
    const forcesOn = o.forcesReplacement !== false;
    const out: InlayHint[] = [];
    for (const h of found.f.hints) {
      if (h.position.line < range.start.line || h.position.line > range.end.line) continue;
      const parts: string[] = [];
      if (h.unknown) {
        if (unknownOn) parts.push(h.prior !== undefined && planned ? `${h.prior} → (known after apply)` : '(known after apply)');
      } else if (planned && h.prior !== undefined) parts.push(`${h.prior} → ${h.planned}`);
      if (h.forces && forcesOn) parts.push('# forces replacement');
      if (!parts.length) continue;
      out.push({ position: h.position, label: (h.key !== undefined ? `[${h.key}] ` : '') + parts.join(' '), paddingLeft: true });
    }
    return out;
  }

  private async hover(uri: string, pos: { line: number; character: number }): Promise<Hover | null> {
    const path = uriToPath(uri);
    const found = path === undefined ? undefined : await this.presentation(path);
    if (!found) return null;
    const data = this.dirs.get(found.dir)?.data;
    const before = (a: { line: number; character: number }, b: { line: number; character: number }) => a.line < b.line || (a.line === b.line && a.character <= b.character);
    let best: (typeof found.f.hovers)[number] | undefined;
    let bestSize = Infinity;
    for (const h of found.f.hovers) {
      if (!before(h.range.start, pos) || !before(pos, h.range.end)) continue;
      const size = (h.range.end.line - h.range.start.line) * 100_000 + (h.range.end.character - h.range.start.character);
      if (size < bestSize) {
        best = h;
        bestSize = size;
      }
    }
    if (!best) return null;
    // A resource block's plan rendering is made by the worker on request, from the plan of the preview shown.
    const markdown = best.block && data ? await this.previewCall<string | null>({ kind: 'hover', previewId: data.previewId, block: best.block }) : best.markdown;
    return markdown === null ? null : { contents: { kind: 'markdown', value: markdown }, range: best.range };
  }

  // ---- runs ----------------------------------------------------------------------------------------------

  private newRun(kind: RunKind, directory: string): RunRecord {
    const info: RunInfo = { runId: `run-${this.nextRun++}`, kind, directory, status: 'running', startedAt: new Date().toISOString(), diagnostics: [], resources: [] };
    const rec: RunRecord = { info, progress: new Map(), finished: false };
    this.runs.unshift(rec);
    if (this.runs.length > 100) this.runs.pop();
    void this.connection.sendNotification(RunStatusNotification.method, { ...info });
    return rec;
  }

  private progress(p: RunProgressParams): void {
    const rec = this.runs.find((r) => r.info.runId === p.runId);
    if (!rec || rec.finished) return;
    rec.progress.set(p.address, p);
    void this.connection.sendNotification(RunProgressNotification.method, p);
  }

  private finish(rec: RunRecord, status: RunInfo['status'], r?: RunResult): RunInfo {
    if (rec.finished) return { ...rec.info, resources: [...rec.progress.values()] };
    rec.finished = true;
    rec.info.status = status;
    rec.info.durationMs = r?.durationMs ?? Date.now() - Date.parse(rec.info.startedAt);
    if (r) {
      rec.info.output = r.output;
      rec.info.diagnostics = r.diagnostics;
      if (r.summary) rec.info.summary = r.summary;
      rec.changes = r.changes;
    }
    rec.info.resources = [...rec.progress.values()];
    const info = { ...rec.info };
    void this.connection.sendNotification(RunStatusNotification.method, info);
    rec.settle?.(info);
    return info;
  }

  private async execute(rec: RunRecord, verb: 'plan' | 'apply' | 'refresh', options: RunOptions, planFile?: string): Promise<RunInfo> {
    const forced = new Promise<RunInfo>((resolve) => (rec.settle = resolve));
    const work = this.worker
      .request<RunResult>({ kind: 'run', runId: rec.info.runId, verb, options, settings: this.settings, planFile })
      .then((r) => {
        if (verb === 'plan' && r.exitCode === 0 && !r.cancelled) rec.info.planFile = planFile;
        if (r.drift && r.exitCode === 0 && options.refresh !== false && (verb === 'refresh' || options.mode !== 'refresh-only')) this.drift.set(options.directory, r.drift);
        if (verb === 'apply' && r.exitCode === 0) this.drift.delete(options.directory);
        return this.finish(rec, r.cancelled ? 'cancelled' : r.exitCode === 0 ? 'succeeded' : 'failed', r);
      })
      .catch((e: unknown) => {
        rec.settle = undefined; // the request answers with the error, not with the run
        this.finish(rec, 'failed');
        throw requestFailed(e);
      })
      .finally(() => {
        // The state may have changed: previews of the directory start from it.
        for (const dir of this.dirs.keys()) if (dir === options.directory) this.schedule(dir, 0);
      });
    return Promise.race([work, forced]);
  }

  private async startRun(kind: 'plan' | 'refresh', p: RunOptions): Promise<RunInfo | PlanRunRequest.Result> {
    if (!this.trusted) throw new ResponseError(LSPErrorCodes.RequestFailed, UNTRUSTED);
    const dir = this.dirOf(p);
    const options: RunOptions = { ...p, directory: dir, parallelism: p.parallelism ?? this.options.parallelism, lockTimeout: p.lockTimeout ?? this.options.lockTimeout };
    const rec = this.newRun(kind, dir);
    rec.options = options;
    let planFile: string | undefined;
    if (kind === 'plan') {
      mkdirSync(this.planDir, { recursive: true });
      planFile = join(this.planDir, `${rec.info.runId}.tfplan`);
    }
    const info = await this.execute(rec, kind, options, planFile);
    return kind === 'plan' ? { ...info, changes: rec.changes ?? [] } : info;
  }

  private async applyRun(p: ApplyRunRequest.Params): Promise<RunInfo> {
    if (!this.trusted) throw new ResponseError(LSPErrorCodes.RequestFailed, UNTRUSTED);
    const plan = this.runs.find((r) => r.info.runId === p?.planRunId);
    if (!plan || plan.info.kind !== 'plan') throw new ResponseError(LSPErrorCodes.RequestFailed, `There is no plan run ${p?.planRunId}.`);
    if (plan.info.status !== 'succeeded' || !plan.info.planFile) throw new ResponseError(LSPErrorCodes.RequestFailed, `Plan run ${plan.info.runId} has no saved plan to apply (it ${plan.info.status === 'running' ? 'is still running' : plan.info.status}).`);
    const rec = this.newRun('apply', plan.info.directory);
    rec.info.planRunId = plan.info.runId;
    rec.info.summary = plan.info.summary;
    return this.execute(rec, 'apply', { directory: plan.info.directory, parallelism: plan.options?.parallelism, lockTimeout: plan.options?.lockTimeout ?? this.options.lockTimeout }, plan.info.planFile);
  }

  private async cancelRun(p: CancelRunRequest.Params): Promise<null> {
    const rec = this.runs.find((r) => r.info.runId === p?.runId);
    if (!rec) throw new ResponseError(LSPErrorCodes.RequestFailed, `There is no run ${p?.runId}.`);
    if (rec.finished) return null;
    // Graceful (a first Ctrl-C): the walk starts nothing new and the providers get StopProvider for what is in
    // flight. Forceful: the run is reported cancelled at once; the worker still waits for the in-flight
    // provider calls, persists the state and releases the lock.
    await this.worker.request<boolean>({ kind: 'cancel', runId: rec.info.runId });
    if (p.force) this.finish(rec, 'cancelled');
    return null;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const st of this.dirs.values()) if (st.timer) clearTimeout(st.timer);
    this.worker.dispose();
    try {
      rmSync(this.planDir, { recursive: true, force: true });
    } catch {
      // nothing to clean
    }
  }
}

let current: PreviewController | undefined;

export function previewCapabilities(params: InitializeParams): Partial<ServerCapabilities> {
  current?.configure(params);
  return { codeLensProvider: { resolveProvider: false }, inlayHintProvider: { resolveProvider: false }, hoverProvider: true };
}

export function registerPreview(connection: Connection, session: Session): void {
  current = new PreviewController(connection, session);
}
