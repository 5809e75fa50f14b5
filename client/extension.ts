// The VS Code extension: starts the Foresight language server (dist/server.js) over node IPC and gives VS Code
// the views (Resources, Runs), the commands (plan, apply, refresh, targeted runs, planned diffs, workspaces),
// progress notifications, the runs output channel and the status bar. Every plan, apply and refresh runs in
// the language server (server/lsp/protocol.ts); this client only asks for them and shows the results.
//
// Contract:
// - activate() registers every contributed command at once and never rejects: when the language server cannot
//   start, the error goes to the output channel and a message, and the restart command tries again.
// - Apply always plans first, shows what the plan does in a modal confirmation (destroys and replacements
//   called out) and then applies exactly that saved plan (ApplyRunRequest with the plan run's id). The
//   confirmation is skipped only for `autoApprove` passed from code, or the `foresight.apply.confirm` setting
//   off for a plan that destroys and replaces nothing.
// - In an untrusted workspace no run starts: the commands say why; the server is told `trusted: false`.
// - activate() returns ForesightApi, the hook tests use (answering the confirmation, reading the views).

import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import {
  AnalysisStatusNotification,
  ApplyRunRequest,
  CancelRunRequest,
  Commands,
  ListRunsRequest,
  PlannedDiffRequest,
  PlanRunRequest,
  PreviewChangedNotification,
  PreviewRequest,
  RefreshRunRequest,
  resolveChanges,
  RunProgressNotification,
  RunStatusNotification,
  StateRequest,
  TrustNotification,
  WorkspacesRequest,
  type InitializationOptions,
  type PlanSummary,
  type PreviewResult,
  type ResourceChangeInfo,
  type RunCommandArgs,
  type RunInfo,
  type RunKind,
  type RunOptions,
  type RunProgressParams,
} from '../server/lsp/protocol';
import { SCHEME, VirtualDocuments } from './documents';
import { confirmation, isEmptySummary, lockHolderLine, mergeProgress, runArgs, shortSummary, summaryLine, type Confirmation, type InstanceNode, type TreeNode } from './model';
import { ResourcesTree, RunsTree, type RunNode } from './views';
import { SERVER_ENV, SERVER_EXEC_ARGV } from '../server/lsp/launch';

/** What activate() returns: the test hook and read access to what the views show. */
export interface ForesightApi {
  /** Replaces the modal apply confirmation (tests): return true to apply, false to decline. */
  setConfirmHandler(handler: ((c: Confirmation) => Promise<boolean>) | undefined): void;
  /** The last confirmation shown (or given to the handler). */
  lastConfirmation(): Confirmation | undefined;
  /** Resolves when the language client is running. */
  ready(): Promise<void>;
  resources: ResourcesTree;
  runsView: RunsTree;
  /** Runs of this session, newest first, as the Runs view shows them. */
  runs(): RunInfo[];
  statusBarText(): string;
  /** The status bar item's tooltip (markdown source). */
  statusBarTooltip(): string;
  /** Text of a `foresight:` virtual document (planned diffs, state objects). */
  documentText(uri: vscode.Uri): string | undefined;
  /** The last request error message shown to the user. */
  lastError(): string | undefined;
}

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<ForesightApi> {
  const output = vscode.window.createOutputChannel('Foresight', { log: true });
  const runOutput = vscode.window.createOutputChannel('Foresight Runs');
  context.subscriptions.push(output, runOutput);
  const ext = new Extension(context, output, runOutput);
  ext.registerCommands();
  await ext.start();
  return ext.api();
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.stop();
}

class RequestFailed extends Error {}

class Extension {
  private readonly docs = new VirtualDocuments();
  private readonly resources = new ResourcesTree();
  private readonly runsTree = new RunsTree();
  private readonly statusBar: vscode.StatusBarItem;
  private runs: RunInfo[] = [];
  private readonly planChanges = new Map<string, ResourceChangeInfo[]>();
  private readonly planModes = new Map<string, RunOptions['mode']>();
  private confirmHandler: ((c: Confirmation) => Promise<boolean>) | undefined;
  private lastConfirm: Confirmation | undefined;
  private lastErr: string | undefined;
  private readyPromise: Promise<void> = Promise.resolve();
  private rootDir: string | undefined;
  private preview: PreviewResult | undefined;
  private workspaceName = 'default';
  private locked = false;
  private summary: PlanSummary | undefined;
  /** Runs started by a command of ours whose id is not known yet: resolved by the first RunStatus 'running'. */
  private pendingStarts: { kind: RunKind; directory: string; resolve: (runId: string) => void }[] = [];
  private progressListeners = new Map<string, (p: RunProgressParams) => void>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.LogOutputChannel,
    private readonly runOutput: vscode.OutputChannel,
  ) {
    this.statusBar = vscode.window.createStatusBarItem('foresight.status', vscode.StatusBarAlignment.Left, 50);
    this.statusBar.name = 'Foresight';
    this.statusBar.command = Commands.plan;
    context.subscriptions.push(this.statusBar);
  }

  api(): ForesightApi {
    return {
      setConfirmHandler: (h) => (this.confirmHandler = h),
      lastConfirmation: () => this.lastConfirm,
      ready: () => this.readyPromise,
      resources: this.resources,
      runsView: this.runsTree,
      runs: () => this.runs,
      statusBarText: () => this.statusBar.text,
      statusBarTooltip: () => {
        const t = this.statusBar.tooltip;
        return typeof t === 'string' ? t : (t?.value ?? '');
      },
      documentText: (uri) => this.docs.get(uri),
      lastError: () => this.lastErr,
    };
  }

  registerCommands(): void {
    const reg = (id: string, fn: (...a: unknown[]) => unknown) =>
      this.context.subscriptions.push(
        vscode.commands.registerCommand(id, async (...a: unknown[]) => {
          try {
            return await fn(...a);
          } catch (e) {
            this.showError(e);
            return undefined;
          }
        }),
      );
    const handlers: Record<keyof typeof Commands, (a: unknown) => unknown> = {
      restartLanguageServer: () => this.restart(),
      plan: (a) => this.plan(a, 'normal'),
      planDestroy: (a) => this.plan(a, 'destroy'),
      refreshState: (a) => this.refresh(a),
      apply: (a) => this.apply(a, 'normal'),
      applySavedPlan: (a) => this.applySaved(a),
      planResource: (a) => this.targeted(a, 'plan'),
      applyResource: (a) => this.targeted(a, 'apply'),
      replaceResource: (a) => this.targeted(a, 'replace'),
      showPlannedDiff: (a) => this.showPlannedDiff(a),
      selectWorkspace: (a) => this.selectWorkspace(a),
      cancelRun: (a) => this.cancelRun(a),
      showOutput: (a) => this.showOutput(a),
      showInState: (a) => this.showInState(a),
      refreshResource: (a) => this.targeted(a, 'refresh'),
      openExample: (a) => this.openExample(a),
    };
    for (const [key, id] of Object.entries(Commands)) reg(id, handlers[key as keyof typeof Commands]);
  }

  async start(): Promise<void> {
    const ctx = this.context;
    ctx.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, this.docs),
      vscode.window.createTreeView('foresight.resources', { treeDataProvider: this.resources, showCollapseAll: true }),
      vscode.window.createTreeView('foresight.runs', { treeDataProvider: this.runsTree }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        void vscode.commands.executeCommand('setContext', 'foresight.trusted', true);
        void client?.sendNotification(TrustNotification.method, { trusted: true } satisfies TrustNotification.Params);
        void this.refreshViews();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        const restartKeys = ['foresight.preview', 'foresight.inlayHints', 'foresight.vars', 'foresight.varFiles', 'foresight.parallelism', 'foresight.lockTimeout'];
        if (client && restartKeys.some((k) => e.affectsConfiguration(k))) {
          this.output.info('Settings changed: restarting the language server');
          void this.restart();
        }
      }),
    );
    void vscode.commands.executeCommand('setContext', 'foresight.active', true);
    void vscode.commands.executeCommand('setContext', 'foresight.trusted', vscode.workspace.isTrusted);
    void Promise.resolve(vscode.workspace.findFiles('**/*.{tf,tf.json}', '**/.terraform/**', 1)).then(
      (f) => vscode.commands.executeCommand('setContext', 'foresight.hasTerraformFiles', f.length > 0),
      () => undefined,
    );
    this.renderStatus();
    this.readyPromise = this.startClient();
    await this.readyPromise;
  }

  // ---- language client ------------------------------------------------------------------------------------

  private initializationOptions(): InitializationOptions {
    const cfg = vscode.workspace.getConfiguration('foresight');
    return {
      trusted: vscode.workspace.isTrusted,
      preview: cfg.get<boolean>('preview.enabled', true),
      previewDebounceMs: cfg.get<number>('preview.debounceMs', 400),
      vars: cfg.get<Record<string, string>>('vars', {}),
      varFiles: cfg.get<string[]>('varFiles', []),
      parallelism: cfg.get<number>('parallelism', 10),
      lockTimeout: cfg.get<string>('lockTimeout', '0s'),
      inlayHints: {
        plannedValues: cfg.get<boolean>('inlayHints.plannedValues', true),
        knownAfterApply: cfg.get<boolean>('inlayHints.knownAfterApply', true),
        forcesReplacement: cfg.get<boolean>('inlayHints.forcesReplacement', true),
      },
    };
  }

  private async startClient(): Promise<void> {
    const module = this.context.asAbsolutePath('dist/server.js');
    const env = { ...process.env, ...SERVER_ENV };
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc, options: { execArgv: [...SERVER_EXEC_ARGV], env } },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: [...SERVER_EXEC_ARGV, '--nolazy', '--inspect=6009'], env } },
    };
    // Files changed on disk (not open, or saved by other programs) change the analysis of their module.
    const watcher = vscode.workspace.createFileSystemWatcher('**/*.{tf,tfvars,tf.json,tfvars.json}');
    this.context.subscriptions.push(watcher);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file', language: 'terraform' }],
      synchronize: { fileEvents: watcher },
      outputChannel: this.output,
      initializationOptions: this.initializationOptions(),
    };
    try {
      const c = new LanguageClient('foresight', 'Foresight', serverOptions, clientOptions);
      c.onNotification(AnalysisStatusNotification.method, (p: AnalysisStatusNotification.Params) => {
        if (p.failure) this.output.error(`Analysis of ${p.directory} failed: ${p.failure}`);
        else this.output.debug(`Analysed ${p.directory} in ${p.durationMs} ms: ${p.diagnostics} diagnostics`);
      });
      c.onNotification(PreviewChangedNotification.method, (p: PreviewChangedNotification.Params) => this.onPreviewNotification(p));
      c.onNotification(RunStatusNotification.method, (p: RunStatusNotification.Params) => this.onRunStatus(p));
      c.onNotification(RunProgressNotification.method, (p: RunProgressNotification.Params) => this.onRunProgress(p));
      client = c;
      await c.start();
      void this.refreshViews();
    } catch (e) {
      // Activation still succeeds: the restart command stays available to try again.
      this.output.error(`The language server did not start: ${e instanceof Error ? e.message : String(e)}`);
      void vscode.window.showErrorMessage('Foresight: the language server did not start; see the Foresight output.');
    }
  }

  /**
   * The welcome view's link: the example workspace (examples/ of the extension) copied once into the extension's
   * global storage, so the user's runs write their state there and never into the installed extension, then opened.
   */
  private async openExample(arg: unknown): Promise<string> {
    const src = vscode.Uri.joinPath(this.context.extensionUri, 'examples');
    const dest = vscode.Uri.joinPath(this.context.globalStorageUri, 'example-workspace');
    const exists = await vscode.workspace.fs.stat(dest).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await vscode.workspace.fs.createDirectory(this.context.globalStorageUri);
      await vscode.workspace.fs.copy(src, dest, { overwrite: false });
    }
    const open = !(arg && typeof arg === 'object' && (arg as { open?: unknown }).open === false);
    if (open) await vscode.commands.executeCommand('vscode.openFolder', dest);
    return dest.fsPath;
  }

  private async restart(): Promise<void> {
    if (!client) {
      this.readyPromise = this.startClient();
      return this.readyPromise;
    }
    this.output.info('Restarting the language server');
    const c = client;
    client = undefined;
    await c.stop().catch(() => undefined);
    this.retireRuns();
    this.readyPromise = this.startClient();
    return this.readyPromise;
  }

  /**
   * A new server numbers its runs afresh: the old server's runs stay in the history under ids that cannot clash
   * (`run-3 (earlier server)`), those still marked running are cancelled, and their saved plans are gone.
   */
  private retireRuns(): void {
    this.epoch++;
    const rename = (id: string) => `${id} (server ${this.epoch - 1})`;
    const changes = new Map(this.planChanges);
    this.planChanges.clear();
    for (const [id, v] of changes) this.planChanges.set(rename(id), v);
    this.runs = this.runs.map((r) => ({
      ...r,
      runId: rename(r.runId),
      status: r.status === 'running' ? 'cancelled' : r.status,
      planFile: undefined,
    }));
    this.runsTree.set(this.runs);
    void vscode.commands.executeCommand('setContext', 'foresight.runActive', false);
    void vscode.commands.executeCommand('setContext', 'foresight.hasSavedPlan', false);
  }

  private epoch = 1;

  private async request<R>(method: string, params: unknown): Promise<R> {
    await this.readyPromise;
    const c = client;
    if (!c) throw new RequestFailed('The Foresight language server is not running; see the Foresight output.');
    try {
      return (await c.sendRequest(method, params)) as R;
    } catch (e) {
      const err = e as { code?: number; message?: string };
      if (err.code === -32601) throw new RequestFailed(`The language server does not support ${method} yet.`);
      // Refused because another process holds the state lock: show the lock in the status bar.
      const dir = (params as { directory?: string } | undefined)?.directory;
      if (dir && /state lock/.test(err.message ?? '')) void this.loadState(dir).then(() => this.renderStatus());
      throw new RequestFailed(err.message ?? String(e));
    }
  }

  private showError(e: unknown): void {
    const msg = e instanceof Error ? e.message : String(e);
    this.lastErr = msg;
    if (!(e instanceof RequestFailed)) this.output.error(e instanceof Error ? (e.stack ?? msg) : msg);
    void vscode.window.showErrorMessage(`Foresight: ${msg}`);
  }

  // ---- notifications ---------------------------------------------------------------------------------------

  /**
   * The changes of each directory's last preview with its version: a notification usually brings its changes as
   * edits of the previous one's (PreviewChangedNotification).
   */
  private readonly lastChanges = new Map<string, { version: number; changes: ResourceChangeInfo[] }>();

  private onPreviewNotification(n: PreviewChangedNotification.Params): void {
    const changes = resolveChanges(n, this.lastChanges.get(n.directory));
    if (!changes) {
      // The base of its edits is not here (a notification was missed): the whole preview is asked for.
      this.lastChanges.delete(n.directory);
      void this.request<PreviewResult>(PreviewRequest.method, { directory: n.directory } satisfies PreviewRequest.Params).then(
        (p) => this.onPreview(p),
        (e: unknown) => this.output.debug(`preview of ${n.directory}: ${e instanceof Error ? e.message : String(e)}`),
      );
      return;
    }
    const p: PreviewResult & { changesDelta?: unknown } = { ...n, changes };
    delete p.changesDelta;
    this.onPreview(p);
  }

  private onPreview(p: PreviewResult): void {
    // (A stale list, an answer overtaken by a notification, only makes the next notification ask for the preview.)
    this.lastChanges.set(p.directory, { version: p.version, changes: p.changes });
    if (this.rootDir && p.directory !== this.rootDir) return;
    this.preview = p;
    this.workspaceName = p.workspace;
    if (p.complete) this.summary = p.summary;
    // The state is asked for again only when the preview read another one (its stamp): at 5,000 resources it is
    // about a second of the server's time and 14 MB, and an edit's preview reads the state it read before.
    const held = p.stateStamp !== undefined ? this.heldState.get(p.directory) : undefined;
    const state =
      held && held.stamp === p.stateStamp
        ? Promise.resolve(held.resources)
        : this.loadState(p.directory, (resources) => {
            if (p.stateStamp !== undefined) this.heldState.set(p.directory, { stamp: p.stateStamp, resources });
            else this.heldState.delete(p.directory);
          });
    void state.then((resources) => {
      this.resources.update(p.changes, resources, p.diagnostics, 'preview');
      this.renderStatus();
    });
  }

  /** The state last read for a preview, by directory, with the preview's stateStamp. */
  private readonly heldState = new Map<string, { stamp: string; resources: StateRequest.Result['resources'] }>();

  private upsertRun(r: RunInfo): RunInfo {
    const i = this.runs.findIndex((x) => x.runId === r.runId);
    if (i >= 0) {
      // Keep progress gathered from notifications when a status message carries less.
      const prev = this.runs[i];
      const merged = { ...r, resources: r.resources.length >= prev.resources.length ? r.resources : prev.resources };
      this.runs[i] = merged;
    } else {
      this.runs.unshift(r);
    }
    this.runsTree.set(this.runs);
    const active = this.runs.some((x) => x.status === 'running');
    void vscode.commands.executeCommand('setContext', 'foresight.runActive', active);
    const saved = this.runs.some((x) => x.kind === 'plan' && x.status === 'succeeded' && x.planFile);
    void vscode.commands.executeCommand('setContext', 'foresight.hasSavedPlan', saved);
    return this.runs.find((x) => x.runId === r.runId)!;
  }

  private onRunStatus(r: RunInfo): void {
    const known = this.runs.some((x) => x.runId === r.runId);
    this.upsertRun(r);
    if (!known && r.status === 'running') {
      const i = this.pendingStarts.findIndex((p) => p.kind === r.kind && p.directory === r.directory);
      if (i >= 0) this.pendingStarts.splice(i, 1)[0].resolve(r.runId);
    }
  }

  private onRunProgress(p: RunProgressParams): void {
    const run = this.runs.find((x) => x.runId === p.runId);
    if (run) {
      run.resources = mergeProgress(run.resources, p);
      this.runsTree.set(this.runs);
    }
    this.progressListeners.get(p.runId)?.(p);
  }

  // ---- views ------------------------------------------------------------------------------------------------

  private lockTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Who holds the state lock: the lock info file (local), the holding PostgreSQL session (pg), the holder a refused
   * run was told of (http); absent when the backend cannot tell.
   */
  private lockHolder: StateRequest.Result['lock'];

  /** The state's resources (none when it cannot be read); `read` is told when it was read. */
  private async loadState(directory: string, read?: (resources: StateRequest.Result['resources']) => void): Promise<StateRequest.Result['resources']> {
    try {
      const s = await this.request<StateRequest.Result>(StateRequest.method, { directory } satisfies StateRequest.Params);
      read?.(s.resources);
      this.workspaceName = s.workspace;
      this.locked = !!s.lock;
      this.lockHolder = s.lock;
      // While another process holds the lock, look again every few seconds so the lock icon goes away.
      if (this.locked && !this.lockTimer) {
        this.lockTimer = setTimeout(() => {
          this.lockTimer = undefined;
          void this.loadState(directory).then(() => this.renderStatus());
        }, 3000);
      }
      return s.resources;
    } catch (e) {
      this.output.debug(`state of ${directory}: ${e instanceof Error ? e.message : String(e)}`);
      return [];
    }
  }

  /** Re-reads the state and the preview and redraws the Resources view and the status bar. */
  private async refreshViews(): Promise<void> {
    const dir = await this.directory({}).catch(() => undefined);
    if (!dir || !client) return;
    try {
      const runs = await this.request<RunInfo[]>(ListRunsRequest.method, {});
      for (const r of [...runs].reverse()) if (!this.runs.some((x) => x.runId === r.runId)) this.upsertRun(r);
    } catch {
      /* the server may not list runs yet */
    }
    const state = await this.loadState(dir);
    if (vscode.workspace.isTrusted) {
      try {
        const p = await this.request<PreviewResult>(PreviewRequest.method, { directory: dir } satisfies PreviewRequest.Params);
        this.lastChanges.set(dir, { version: p.version, changes: p.changes });
        this.preview = p;
        this.workspaceName = p.workspace;
        if (p.complete) this.summary = p.summary;
        this.resources.update(p.changes, state, p.diagnostics, 'preview');
        this.renderStatus();
        return;
      } catch (e) {
        this.output.debug(`preview of ${dir}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.resources.update([], state, [], 'state');
    this.renderStatus();
  }

  private renderStatus(): void {
    const lock = this.locked ? ' $(lock)' : '';
    const sum = this.summary ? ` ${shortSummary(this.summary)}` : '';
    this.statusBar.text = `$(layers) ${this.workspaceName}${lock}${sum}`;
    const tip = new vscode.MarkdownString(
      `**Foresight** · workspace \`${this.workspaceName}\`${this.locked ? ' · state locked by another process' : ''}` +
        (this.lockHolder ? `\n\n${lockHolderLine(this.lockHolder)}` : '') +
        (this.summary ? `\n\nPreview: ${summaryLine(this.summary)}` : '') +
        (vscode.workspace.isTrusted ? '\n\nClick to plan.' : '\n\nWorkspace not trusted: runs are disabled.'),
    );
    this.statusBar.tooltip = tip;
    this.statusBar.show();
  }

  // ---- runs ---------------------------------------------------------------------------------------------------

  /** The root module directory runs apply to. */
  private async directory(args: RunCommandArgs): Promise<string> {
    if (args.directory) return args.directory;
    if (this.rootDir) return this.rootDir;
    const folders = vscode.workspace.workspaceFolders ?? [];
    for (const f of folders) {
      if (f.uri.scheme !== 'file') continue;
      const found = await vscode.workspace.findFiles(new vscode.RelativePattern(f, '*.{tf,tf.json}'), null, 1);
      if (found.length) return (this.rootDir = f.uri.fsPath);
    }
    const ed = vscode.window.activeTextEditor?.document;
    if (ed && ed.languageId === 'terraform' && ed.uri.scheme === 'file') return path.dirname(ed.uri.fsPath);
    const any = await vscode.workspace.findFiles('**/*.{tf,tf.json}', '**/{.terraform,modules}/**', 1);
    if (any.length) return (this.rootDir = path.dirname(any[0].fsPath));
    throw new RequestFailed('No Terraform configuration (.tf files) in this workspace.');
  }

  private runOptions(directory: string, args: RunCommandArgs, mode: RunOptions['mode']): RunOptions {
    const cfg = vscode.workspace.getConfiguration('foresight', vscode.Uri.file(directory));
    const opts: RunOptions = {
      directory,
      mode,
      parallelism: cfg.get<number>('parallelism', 10),
      vars: cfg.get<Record<string, string>>('vars', {}),
      varFiles: cfg.get<string[]>('varFiles', []),
      lockTimeout: cfg.get<string>('lockTimeout', '0s'),
    };
    if (cfg.get<string>('refresh', 'refresh') === 'skip') opts.refresh = false;
    if (args.targets?.length) opts.targets = args.targets;
    if (args.replace?.length) opts.replace = args.replace;
    return opts;
  }

  /** False (after telling the user why) in an untrusted workspace. */
  private trusted(): boolean {
    if (vscode.workspace.isTrusted) return true;
    const msg = 'Foresight runs are disabled because this workspace is not trusted: a plan or apply runs provider code from it. Trust the workspace to enable them.';
    this.lastErr = msg;
    void vscode.window.showWarningMessage(msg, 'Manage Workspace Trust').then((a) => {
      if (a) void vscode.commands.executeCommand('workbench.trust.manage');
    });
    return false;
  }

  /**
   * Sends a run request under a cancellable progress notification showing each resource's progress line.
   * Cancel sends CancelRunRequest (graceful first; a second Cancel is not possible on one notification, so the
   * Cancel Run command forces when asked twice).
   */
  private withRun<R extends RunInfo>(kind: RunKind, directory: string, title: string, send: () => Promise<R>): Promise<R> {
    return Promise.resolve(
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Foresight: ${title}`, cancellable: true }, async (progress, token) => {
        let runId: string | undefined;
        let cancelRequested = false;
        const started = new Promise<string>((resolve) => this.pendingStarts.push({ kind, directory, resolve }));
        void started.then((id) => {
          runId = id;
          this.progressListeners.set(id, (p) => progress.report({ message: p.message }));
          if (cancelRequested) void this.sendCancel(id, false);
        });
        token.onCancellationRequested(() => {
          cancelRequested = true;
          if (runId) void this.sendCancel(runId, false);
        });
        try {
          const r = await send();
          return r;
        } finally {
          const i = this.pendingStarts.findIndex((p) => p.kind === kind && p.directory === directory);
          if (i >= 0 && !runId) this.pendingStarts.splice(i, 1);
          if (runId) this.progressListeners.delete(runId);
        }
      }),
    );
  }

  private async sendCancel(runId: string, force: boolean): Promise<void> {
    try {
      await this.request<null>(CancelRunRequest.method, { runId, force } satisfies CancelRunRequest.Params);
    } catch (e) {
      this.showError(e);
    }
  }

  private writeRunOutput(r: RunInfo, title: string): void {
    this.runOutput.appendLine(`──── ${title} · ${r.directory} · ${new Date(r.startedAt || Date.now()).toLocaleString()} · ${r.status}`);
    if (r.output) this.runOutput.append(r.output.endsWith('\n') ? r.output : r.output + '\n');
    for (const d of r.diagnostics) {
      if (r.output && r.output.includes(d.summary)) continue;
      this.runOutput.appendLine(`${d.severity === 'error' ? 'Error' : 'Warning'}: ${d.summary}${d.detail ? `\n\n${d.detail}` : ''}`);
    }
    this.runOutput.appendLine('');
  }

  private reportFinished(r: RunInfo, what: string): void {
    if (r.status === 'succeeded') return;
    const first = r.diagnostics.find((d) => d.severity === 'error');
    const msg = r.status === 'cancelled' ? `${what} cancelled.` : `${what} failed${first ? `: ${first.summary}` : '.'}`;
    this.lastErr = msg;
    void vscode.window.showErrorMessage(`Foresight: ${msg}`, 'Show Output').then((a) => {
      if (a) this.runOutput.show(true);
    });
  }

  private async plan(arg: unknown, mode: 'normal' | 'destroy', overrides: RunCommandArgs = {}): Promise<PlanRunRequest.Result | undefined> {
    if (!this.trusted()) return undefined;
    const { args } = runArgs(arg);
    Object.assign(args, Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)));
    const dir = await this.directory(args);
    const opts = this.runOptions(dir, args, mode);
    const title = mode === 'destroy' ? 'Planning destroy' : args.targets?.length ? `Planning ${args.targets.join(', ')}` : 'Planning';
    const r = await this.withRun('plan', dir, title, () => this.request<PlanRunRequest.Result>(PlanRunRequest.method, opts));
    this.planChanges.set(r.runId, r.changes);
    this.planModes.set(r.runId, mode);
    this.upsertRun({ ...r });
    this.writeRunOutput(r, mode === 'destroy' ? 'plan -destroy' : 'plan');
    if (r.status === 'succeeded') {
      if (r.summary && !args.targets?.length) {
        this.summary = r.summary;
      }
      const state = await this.loadState(dir);
      this.resources.update(r.changes, state, r.diagnostics, r.runId);
      this.renderStatus();
      const text = r.summary ? (isEmptySummary(r.summary) ? 'No changes. Your infrastructure matches the configuration.' : `Plan: ${summaryLine(r.summary)}.`) : 'Plan complete.';
      this.statusMessage?.dispose();
      this.statusMessage = vscode.window.setStatusBarMessage(`Foresight: ${text}`, 10000);
    } else {
      this.resources.update(r.changes ?? [], await this.loadState(dir), r.diagnostics, r.runId);
      this.reportFinished(r, 'Plan');
    }
    return r;
  }

  /** Asks the user (or the test hook) to confirm a plan; true to apply. */
  private async confirm(plan: PlanRunRequest.Result, mode: RunOptions['mode'], args: RunCommandArgs, fromCode: boolean): Promise<boolean> {
    const c = confirmation(plan.summary ?? { add: 0, change: 0, destroy: 0, import: 0, replace: 0 }, plan.changes, {
      destroyMode: mode === 'destroy',
      workspace: this.workspaceName,
    });
    if (fromCode && args.autoApprove) return true;
    const setting = vscode.workspace.getConfiguration('foresight', vscode.Uri.file(plan.directory)).get<boolean>('apply.confirm', true);
    if (!setting && !c.destructive && mode !== 'destroy') return true;
    this.lastConfirm = c;
    if (this.confirmHandler) return this.confirmHandler(c);
    const answer = await vscode.window.showWarningMessage(c.title, { modal: true, detail: c.detail }, c.action);
    return answer === c.action;
  }

  private async apply(arg: unknown, mode: 'normal' | 'destroy', overrides: RunCommandArgs = {}): Promise<RunInfo | undefined> {
    if (!this.trusted()) return undefined;
    const { args, fromCode } = runArgs(arg);
    Object.assign(args, Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)));
    const plan = await this.plan(args.directory || args.targets || args.replace ? args : undefined, mode, args);
    if (!plan || plan.status !== 'succeeded') return undefined;
    if (plan.summary && isEmptySummary(plan.summary)) {
      void vscode.window.showInformationMessage('Foresight: No changes. Your infrastructure matches the configuration.');
      return undefined;
    }
    if (!(await this.confirm(plan, mode, args, fromCode))) {
      void vscode.window.setStatusBarMessage('Foresight: Apply cancelled.', 10000);
      return undefined;
    }
    return this.applyPlan(plan);
  }

  private statusMessage: vscode.Disposable | undefined;

  private async applyPlan(plan: RunInfo): Promise<RunInfo> {
    this.statusMessage?.dispose();
    const r = await this.withRun('apply', plan.directory, 'Applying', () =>
      this.request<RunInfo>(ApplyRunRequest.method, { planRunId: plan.runId } satisfies ApplyRunRequest.Params),
    );
    this.upsertRun(r);
    this.writeRunOutput(r, 'apply');
    if (r.status === 'succeeded') {
      const text = r.summary ? `Apply complete! Resources: ${summaryLine(r.summary, 'apply')}.` : 'Apply complete!';
      void vscode.window.showInformationMessage(`Foresight: ${text}`);
    } else {
      this.reportFinished(r, 'Apply');
    }
    await this.refreshViews();
    return r;
  }

  private async applySaved(arg: unknown): Promise<RunInfo | undefined> {
    if (!this.trusted()) return undefined;
    let plan: RunInfo | undefined;
    const node = arg as RunNode | undefined;
    if (node && typeof node === 'object' && 'kind' in node && node.kind === 'run') plan = node.run;
    else if (arg && typeof arg === 'object' && 'runId' in arg) plan = this.runs.find((r) => r.runId === (arg as { runId: string }).runId);
    else {
      const saved = this.runs.filter((r) => r.kind === 'plan' && r.status === 'succeeded' && r.planFile);
      if (!saved.length) throw new RequestFailed('No saved plan in this session: run Foresight: Plan first.');
      const pick = await vscode.window.showQuickPick(
        saved.map((r) => ({ label: `Plan ${new Date(r.startedAt).toLocaleTimeString()}`, description: r.summary ? summaryLine(r.summary) : '', run: r })),
        { placeHolder: 'Saved plan to apply' },
      );
      plan = pick?.run;
    }
    if (!plan) return undefined;
    const changes = this.planChanges.get(plan.runId) ?? [];
    const { args, fromCode } = runArgs(arg);
    const ok = await this.confirm({ ...plan, changes }, this.planModes.get(plan.runId), args, fromCode);
    if (!ok) return undefined;
    return this.applyPlan(plan);
  }

  private async refresh(arg: unknown, overrides: RunCommandArgs = {}): Promise<RunInfo | undefined> {
    if (!this.trusted()) return undefined;
    const { args } = runArgs(arg);
    Object.assign(args, Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)));
    const dir = await this.directory(args);
    const opts = this.runOptions(dir, args, 'refresh-only');
    const r = await this.withRun('refresh', dir, 'Refreshing state', () => this.request<RunInfo>(RefreshRunRequest.method, opts));
    this.upsertRun(r);
    this.writeRunOutput(r, 'refresh');
    this.reportFinished(r, 'Refresh');
    await this.refreshViews();
    return r;
  }

  /** The instance or resource address a tree node, a code argument or the palette (a pick) stands for. */
  private async addressOf(arg: unknown, placeHolder: string, onlyChanged = false): Promise<string | undefined> {
    const n = arg as TreeNode | undefined;
    if (n && typeof n === 'object' && 'kind' in n && (n.kind === 'instance' || n.kind === 'resource' || n.kind === 'module')) return n.address;
    const { args } = runArgs(arg);
    if (args.targets?.length) return args.targets[0];
    if (typeof arg === 'string') return arg;
    // The instance under the cursor, else a pick.
    const ed = vscode.window.activeTextEditor;
    const all = this.resources.instances();
    if (ed && ed.document.languageId === 'terraform') {
      const pos = ed.selection.active;
      const here = all.filter((i) => {
        const c = i.change;
        if (!c?.file || c.file !== ed.document.uri.fsPath || !c.range) return false;
        return c.range.start.line <= pos.line && pos.line <= c.range.end.line;
      });
      if (here.length === 1) return here[0].address;
    }
    const items = all.filter((i: InstanceNode) => !onlyChanged || (i.change && i.change.action !== 'no-op'));
    if (!items.length) throw new RequestFailed('No resources known yet: run Foresight: Plan first.');
    const pick = await vscode.window.showQuickPick(
      items.map((i) => ({ label: i.address, description: i.change?.action ?? '' })),
      { placeHolder },
    );
    return pick?.label;
  }

  private async targeted(arg: unknown, what: 'plan' | 'apply' | 'replace' | 'refresh'): Promise<unknown> {
    if (!this.trusted()) return undefined;
    const { args, fromCode } = runArgs(arg);
    const address = await this.addressOf(arg, what === 'replace' ? 'Resource instance to replace' : 'Resource to target');
    if (!address) return undefined;
    const base: RunCommandArgs = { directory: args.directory, autoApprove: fromCode ? args.autoApprove : undefined };
    switch (what) {
      case 'plan':
        return this.plan(undefined, 'normal', { ...base, targets: [address] });
      case 'apply':
        return this.apply(fromCode ? arg : undefined, 'normal', { ...base, targets: [address] });
      case 'replace':
        return this.apply(fromCode ? arg : undefined, 'normal', { ...base, replace: [address], targets: args.targets });
      case 'refresh':
        return this.refresh(undefined, { ...base, targets: [address] });
    }
  }

  private async showPlannedDiff(arg: unknown): Promise<{ prior: vscode.Uri; planned: vscode.Uri; result: PlannedDiffRequest.Result } | undefined> {
    const address = await this.addressOf(arg, 'Resource instance to compare', true);
    if (!address) return undefined;
    const { args } = runArgs(arg);
    const directory = await this.directory(args);
    const runId = this.resources.source && this.resources.source !== 'preview' && this.resources.source !== 'state' ? this.resources.source : undefined;
    const result = await this.request<PlannedDiffRequest.Result>(PlannedDiffRequest.method, { directory, address, runId } satisfies PlannedDiffRequest.Params);
    const file = address.replace(/[\\/]/g, '_');
    const prior = this.docs.put(`prior/${file}.json`, result.prior);
    const planned = this.docs.put(`planned/${file}.json`, result.planned);
    await vscode.commands.executeCommand('vscode.diff', prior, planned, `${address}: prior ↔ planned (${result.action})`, { preview: true });
    return { prior, planned, result };
  }

  private async showInState(arg: unknown): Promise<vscode.Uri | undefined> {
    const address = await this.addressOf(arg, 'Resource instance to show');
    if (!address) return undefined;
    const { args } = runArgs(arg);
    const directory = await this.directory(args);
    const s = await this.request<StateRequest.Result>(StateRequest.method, { directory } satisfies StateRequest.Params);
    const objects = s.resources.filter((r) => r.address === address);
    if (!objects.length) throw new RequestFailed(`${address} is not in the state of workspace "${s.workspace}".`);
    const text = JSON.stringify(objects.length === 1 ? objects[0] : objects, null, 2) + '\n';
    const uri = this.docs.put(`state/${address.replace(/[\\/]/g, '_')}.json`, text);
    const doc = await vscode.workspace.openTextDocument(uri);
    await Promise.resolve(vscode.languages.setTextDocumentLanguage(doc, 'json')).catch(() => doc);
    await vscode.window.showTextDocument(uri, { preview: true });
    return uri;
  }

  private async selectWorkspace(arg: unknown): Promise<string | undefined> {
    const { args } = runArgs(arg);
    const directory = await this.directory(args);
    const list = await this.request<WorkspacesRequest.Result>(WorkspacesRequest.method, { directory } satisfies WorkspacesRequest.Params);
    let name = typeof arg === 'string' ? arg : (arg as { workspace?: string } | undefined)?.workspace;
    if (!name) {
      const pick = await vscode.window.showQuickPick(
        list.workspaces.map((w) => ({ label: w, description: w === list.current ? 'current' : '' })),
        { placeHolder: `Terraform workspace (current: ${list.current})` },
      );
      name = pick?.label;
    }
    if (!name || name === list.current) return list.current;
    const r = await this.request<WorkspacesRequest.Result>(WorkspacesRequest.method, { directory, select: name } satisfies WorkspacesRequest.Params);
    this.workspaceName = r.current;
    this.summary = undefined;
    await this.refreshViews();
    return r.current;
  }

  private lastCancel: { runId: string; at: number } | undefined;

  private async cancelRun(arg: unknown): Promise<string | undefined> {
    const node = arg as RunNode | undefined;
    let runId: string | undefined;
    if (node && typeof node === 'object' && 'run' in node) runId = node.run.runId;
    else if (arg && typeof arg === 'object' && 'runId' in arg) runId = (arg as { runId: string }).runId;
    else runId = this.runs.find((r) => r.status === 'running')?.runId;
    if (!runId) {
      void vscode.window.showInformationMessage('Foresight: no run is in progress.');
      return undefined;
    }
    // Asked again for the same run within 10 s: stop at once, as a second Ctrl-C does.
    const force = this.lastCancel?.runId === runId && Date.now() - this.lastCancel.at < 10000;
    this.lastCancel = { runId, at: Date.now() };
    await this.request<null>(CancelRunRequest.method, { runId, force } satisfies CancelRunRequest.Params);
    return runId;
  }

  private showOutput(arg: unknown): void {
    const node = arg as RunNode | undefined;
    if (node && typeof node === 'object' && 'run' in node && node.kind === 'run') {
      const r = this.runs.find((x) => x.runId === node.run.runId) ?? node.run;
      // Re-open a plan: its changes go back into the Resources view.
      const changes = this.planChanges.get(r.runId);
      if (changes) void this.loadState(r.directory).then((s) => this.resources.update(changes, s, r.diagnostics, r.runId));
      this.writeRunOutput(r, r.kind);
    }
    this.runOutput.show(true);
  }
}

