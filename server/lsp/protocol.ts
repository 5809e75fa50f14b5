// Custom messages between the Foresight client (client/) and this language server, declared once here and
// imported by both sides. Each declaration states its direction and meaning. This module imports nothing:
// the client (vscode-languageclient) and the server (vscode-languageserver) depend on different versions of
// vscode-jsonrpc, whose NotificationType classes are not interchangeable, so each message is declared as its
// method name plus its parameter type, and each side sends/listens with the method name.

/** Options the client passes in `initializationOptions`; every field is optional. */
export interface InitializationOptions {
  /** Quiet period after the last edit before a directory is re-analysed, in milliseconds (default 150). */
  debounceMs?: number;
  /** Time an analysis of one directory may take before it is abandoned, in milliseconds (default 30000). */
  analysisTimeoutMs?: number;
  /** Whether the workspace is trusted (default true). Untrusted: no provider code runs and no run starts. */
  trusted?: boolean;
  /** Whether the preview plan runs after edits (default true). */
  preview?: boolean;
  /** Quiet period before the preview plan re-runs after an edit, in milliseconds (default 400). */
  previewDebounceMs?: number;
  /** Extra -var values and -var-file paths used by the preview and runs. */
  vars?: Record<string, string>;
  varFiles?: string[];
  /** Parallelism of runs (default 10). */
  parallelism?: number;
  /** How long runs wait for a state lock held by another process (-lock-timeout, e.g. "30s"); default "0s": fail at once. */
  lockTimeout?: string;
  /** Which inlay hints to show (default all). */
  inlayHints?: { plannedValues?: boolean; knownAfterApply?: boolean; forcesReplacement?: boolean };
}

export interface AnalysisStatusParams {
  /** The module directory (absolute path) that was analysed. */
  directory: string;
  /** Wall-clock time of the analysis in milliseconds. */
  durationMs: number;
  /** Number of diagnostics found in the directory, all files together. */
  diagnostics: number;
  /** Set when the analysis failed unexpectedly (a bug); the previous diagnostics were kept. */
  failure?: string;
}

/**
 * Server → client, after each analysis of a module directory finishes. Informational: the client logs it;
 * tests may use it to know an analysis happened. Diagnostics themselves travel by the standard messages.
 */
export namespace AnalysisStatusNotification {
  export const method = 'foresight/analysisStatus';
  export type Params = AnalysisStatusParams;
}

/** Command identifiers contributed by the extension (package.json "contributes.commands"). */
export const Commands = {
  restartLanguageServer: 'foresight.restartLanguageServer',
  plan: 'foresight.plan',
  planDestroy: 'foresight.planDestroy',
  refreshState: 'foresight.refreshState',
  apply: 'foresight.apply',
  applySavedPlan: 'foresight.applySavedPlan',
  planResource: 'foresight.planResource',
  applyResource: 'foresight.applyResource',
  replaceResource: 'foresight.replaceResource',
  showPlannedDiff: 'foresight.showPlannedDiff',
  selectWorkspace: 'foresight.selectWorkspace',
  cancelRun: 'foresight.cancelRun',
  showOutput: 'foresight.showOutput',
  /** Resources tree: the instance's object in the state, as JSON. */
  showInState: 'foresight.showInState',
  /** Resources tree: refresh only this resource (-refresh-only -target). */
  refreshResource: 'foresight.refreshResource',
  /**
   * Copies the example workspace that ships with the extension into the extension's storage (once) and opens it;
   * with `{ open: false }` (tests) it only copies and returns the folder's path.
   */
  openExample: 'foresight.openExample',
} as const;

/** The argument run commands accept from code lenses, tree menus and tests. */
export interface RunCommandArgs {
  targets?: string[];
  replace?: string[];
  /** Only honoured when the command is executed from code (tests, code lens), never from the palette. */
  autoApprove?: boolean;
  directory?: string;
}

// ---- The preview and runs (issue 7 §2 and §4; consumed by the client's views and commands, issue 8) ---------
//
// Addresses are Terraform's absolute resource instance addresses (`module.a.aws_x.b["k"]`). Paths are
// absolute file-system paths; ranges are LSP ranges (0-based line and character). Every request answers
// with an LSP ResponseError (code -32803 RequestFailed) and a message for the user when it cannot be done
// (no workspace, workspace untrusted, lock held, stale plan); user errors in the configuration come back
// as `diagnostics` in the result instead.

/** Terraform's plan actions as the views show them. */
export type PlannedAction = 'create' | 'update' | 'replace' | 'delete' | 'read' | 'no-op' | 'forget';

/** A Terraform diagnostic carried to the client: the plain-text form `foresight plan -no-color` would print. */
export interface RunDiagnostic {
  severity: 'error' | 'warning';
  summary: string;
  detail?: string;
  /** Source location when the diagnostic has one. */
  file?: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
}

export interface PlanSummary {
  add: number;
  change: number;
  destroy: number;
  import: number;
  /** Instances that are replaced (counted in both add and destroy, as Terraform counts them). */
  replace: number;
}

/** One resource instance in a plan or preview. */
export interface ResourceChangeInfo {
  address: string;
  /** Module address (`module.a`, '' for root). */
  module: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  /** Instance key rendered as in the address (`0`, `"k"`), absent for no key. */
  key?: string;
  action: PlannedAction;
  /** Terraform's action_reason as in the JSON plan (`replace_because_cannot_update`, ...), absent for none. */
  actionReason?: string;
  /** Set for a deposed object. */
  deposed?: string;
  /** Attribute paths (Terraform's `replace_paths`, as dotted strings like `ami` or `tags["a"]`) forcing replacement. */
  replacePaths?: string[];
  /** Number of changed top-level attributes (for "~ 2 attributes"). */
  changedAttributes?: number;
  /** Where the instance is declared (the block, or for removed instances the moved/import/removed block or nearest source). */
  file?: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
  /** Whether the instance exists in the prior state. */
  inState: boolean;
  /** Set when refresh found the object changed outside of Terraform. */
  drifted?: boolean;
  /** The instance is moved from this address. */
  movedFrom?: string;
  /** The instance is being imported. */
  importing?: boolean;
}

/** The preview of one module directory (root module of a workspace). */
export interface PreviewResult {
  directory: string;
  /** Increments with every new preview of the directory. */
  version: number;
  /** False when the preview could not be made (errors in `diagnostics`). */
  complete: boolean;
  summary: PlanSummary;
  changes: ResourceChangeInfo[];
  diagnostics: RunDiagnostic[];
  /** Terraform workspace the preview was made in. */
  workspace: string;
  /**
   * Identifies the state the preview was made from, where the backend allows (the local backend: its state file,
   * journal and lock info as they are on disk): a client that holds the state (StateRequest) read under the same
   * stamp need not ask for it again. Absent: ask.
   */
  stateStamp?: string;
}

/** Client → server: the last preview of a directory (made now if none is available yet). */
export namespace PreviewRequest {
  export const method = 'foresight/preview';
  export interface Params {
    directory: string;
  }
  export type Result = PreviewResult;
}

/**
 * Server → client: a new preview of a directory is available. Its changes come whole (`changes`) or, after the
 * first notification of the directory, usually as edits of the previous notification's list (`changesDelta`, which
 * `resolveChanges` applies): an edit changes a few of thousands of entries. A client that does not have the base
 * asks for the preview (PreviewRequest).
 */
export namespace PreviewChangedNotification {
  export const method = 'foresight/previewChanged';
  export type Params = Omit<PreviewResult, 'changes'> & { changes?: ResourceChangeInfo[]; changesDelta?: ChangesDelta };
}

/** A list of changes as edits of an earlier list of the same directory (identified by `base`). */
export interface ChangesDelta {
  /** The earlier list's version (PreviewResult.version; in the worker's answers, its previewId). */
  base: number;
  /** The new list in order: `[start, count]` runs of the earlier list's entries, and new entries. */
  ops: ([number, number] | ResourceChangeInfo)[];
}

/**
 * `next` as edits of `base` (entries compared by identity: an unchanged entry is the same object), or undefined
 * when the edits would not be much smaller than the list.
 */
export function changesDelta(
  base: readonly ResourceChangeInfo[],
  baseId: number,
  next: readonly ResourceChangeInfo[],
  /** Entries of `next` known not to be in `base` (sent as they are without looking for them). */
  fresh?: ReadonlySet<ResourceChangeInfo>,
): ChangesDelta | undefined {
  // Entries are looked for where they were (a list edited in place keeps the others at their indices), else by a
  // map of the base made only then.
  let at: Map<ResourceChangeInfo, number> | undefined;
  let expect = 0;
  const ops: ChangesDelta['ops'] = [];
  let run: [number, number] | undefined;
  for (const c of next) {
    let i: number | undefined;
    if (base[expect] === c) i = expect;
    else if (fresh?.has(c)) i = undefined;
    else {
      if (!at) {
        at = new Map();
        for (let k = 0; k < base.length; k++) at.set(base[k], k);
      }
      i = at.get(c);
    }
    expect = (i ?? expect) + 1;
    if (i !== undefined && run && run[0] + run[1] === i) run[1]++;
    else if (i !== undefined) ops.push((run = [i, 1]));
    else {
      run = undefined;
      ops.push(c);
    }
  }
  return ops.length * 2 <= next.length ? { base: baseId, ops } : undefined;
}

/** The list `d` describes, made from `base` (the list of version d.base); undefined when a run is outside it. */
export function applyChangesDelta(base: readonly ResourceChangeInfo[], d: ChangesDelta): ResourceChangeInfo[] | undefined {
  const out: ResourceChangeInfo[] = [];
  for (const op of d.ops) {
    if (!Array.isArray(op)) out.push(op);
    else {
      const [start, count] = op;
      if (!Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 0 || start + count > base.length) return undefined;
      for (let i = start; i < start + count; i++) out.push(base[i]);
    }
  }
  return out;
}

/**
 * The changes of a preview notification: its own list, or its delta applied to `last` (the client's last list of
 * that directory, with its version); undefined when the client must ask for the preview (it lacks the base).
 */
export function resolveChanges(p: PreviewChangedNotification.Params, last: { version: number; changes: readonly ResourceChangeInfo[] } | undefined): ResourceChangeInfo[] | undefined {
  if (p.changes) return p.changes;
  if (!p.changesDelta || !last || last.version !== p.changesDelta.base) return undefined;
  return applyChangesDelta(last.changes, p.changesDelta);
}

export type RunKind = 'plan' | 'apply' | 'refresh';
export type RunStatus = 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface RunOptions {
  /** Workspace root module directory. */
  directory: string;
  /** Plan mode (default normal). */
  mode?: 'normal' | 'destroy' | 'refresh-only';
  /** -target addresses. */
  targets?: string[];
  /** -replace addresses. */
  replace?: string[];
  /** -refresh=false when false. */
  refresh?: boolean;
  /** Extra -var values (name → raw string as on the command line). */
  vars?: Record<string, string>;
  /** Extra -var-file paths. */
  varFiles?: string[];
  parallelism?: number;
  /** -lock-timeout for this run (e.g. "30s"); absent: the server's InitializationOptions.lockTimeout. */
  lockTimeout?: string;
}

export interface RunInfo {
  runId: string;
  kind: RunKind;
  directory: string;
  status: RunStatus;
  startedAt: string;
  durationMs?: number;
  summary?: PlanSummary;
  /** For a plan run: the saved plan file an apply may use. */
  planFile?: string;
  /** For an apply run: the plan run it applied. */
  planRunId?: string;
  /** Human output as `foresight plan|apply -no-color` prints it. */
  output?: string;
  diagnostics: RunDiagnostic[];
  /** Per-resource progress so far (latest event per address). */
  resources: RunProgressParams[];
}

/** Client → server: make a plan (saved to a plan file for apply). Answers when the plan is complete. */
export namespace PlanRunRequest {
  export const method = 'foresight/plan';
  export type Params = RunOptions;
  export interface Result extends RunInfo {
    changes: ResourceChangeInfo[];
  }
}

/**
 * Client → server: apply exactly the saved plan of a finished plan run. Refused (RequestFailed, message
 * "Saved plan is stale" as Terraform says it) when the state changed since the plan was made.
 */
export namespace ApplyRunRequest {
  export const method = 'foresight/apply';
  export interface Params {
    planRunId: string;
  }
  export type Result = RunInfo;
}

/** Client → server: refresh the state (apply -refresh-only -auto-approve) and re-run the preview. */
export namespace RefreshRunRequest {
  export const method = 'foresight/refresh';
  export type Params = RunOptions;
  export type Result = RunInfo;
}

/** Server → client: a run started or changed status (each run sends 'running' first and one final status). */
export namespace RunStatusNotification {
  export const method = 'foresight/runStatus';
  export type Params = RunInfo;
}

export interface RunProgressParams {
  runId: string;
  address: string;
  /** What the engine is doing to the instance: 'refresh', 'plan', 'create', 'update', 'replace', 'delete', 'read'. */
  operation: string;
  state: 'started' | 'done' | 'failed';
  elapsedMs: number;
  /** The line Terraform prints for the event (`aws_x.b: Creating...`). */
  message: string;
}

/** Server → client: per-resource progress of a running run. */
export namespace RunProgressNotification {
  export const method = 'foresight/runProgress';
  export type Params = RunProgressParams;
}

/** Client → server: cancel a run; graceful first (as Ctrl-C), forceful with `force` (as a second Ctrl-C). */
export namespace CancelRunRequest {
  export const method = 'foresight/cancelRun';
  export interface Params {
    runId: string;
    force?: boolean;
  }
  export type Result = null;
}

/** Client → server: the runs of this session, newest first. */
export namespace ListRunsRequest {
  export const method = 'foresight/runs';
  export type Params = Record<string, never>;
  export type Result = RunInfo[];
}

export interface StateInstanceInfo {
  address: string;
  module: string;
  mode: 'managed' | 'data';
  type: string;
  name: string;
  key?: string;
  /** Provider configuration address as in the state file. */
  provider: string;
  /** Attributes as in the state file, sensitive values replaced by the string "(sensitive value)". */
  attributes: Record<string, unknown>;
  tainted?: boolean;
  deposed?: string;
}

/** Client → server: the current state of a workspace. */
export namespace StateRequest {
  export const method = 'foresight/state';
  export interface Params {
    directory: string;
  }
  export interface Result {
    workspace: string;
    serial: number;
    lineage: string;
    /** Lock holder when the state is locked by another process (Terraform's lock info), else absent. */
    lock?: { id: string; who: string; operation: string; created: string };
    resources: StateInstanceInfo[];
    outputs: Record<string, { value: unknown; sensitive: boolean }>;
  }
}

/**
 * Client → server: prior and planned value of one instance, for a diff editor, as pretty JSON text with
 * sensitive values as "(sensitive value)" and unknown values as "(known after apply)". From the plan run when
 * `runId` is given, else from the preview.
 */
export namespace PlannedDiffRequest {
  export const method = 'foresight/plannedDiff';
  export interface Params {
    directory: string;
    address: string;
    runId?: string;
  }
  export interface Result {
    address: string;
    action: PlannedAction;
    prior: string;
    planned: string;
    /** The instance's block as `foresight plan` renders it. */
    rendered: string;
  }
}

/** Client → server: list workspaces and select one (Terraform's `workspace list` / `workspace select`). */
export namespace WorkspacesRequest {
  export const method = 'foresight/workspaces';
  export interface Params {
    directory: string;
    /** Select this workspace (it must exist). */
    select?: string;
  }
  export interface Result {
    current: string;
    workspaces: string[];
  }
}

/** Client → server: workspace trust changed (also given at start in InitializationOptions.trusted). */
export namespace TrustNotification {
  export const method = 'foresight/trust';
  export interface Params {
    trusted: boolean;
  }
}
