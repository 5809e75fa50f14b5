// Preview plans and runs, off the LSP main thread, so that it never waits on the engine. Preview plans are made in
// the analysis worker (answerPreviewCall, through Engine.preview and analysisWorker.ts), where the directory's
// analysis already holds the module's model: they load the configuration through its per-file cache. Runs (plans,
// applies and refreshes), the state and the workspace list are served by the run worker: a worker thread of the
// server bundle with workerData.role PREVIEW_WORKER_ROLE (servePreview, see main.ts), which also makes previews for
// an engine without Engine.preview.
//
// Preview plans: the configuration as plan loads it (server/cli/plan.ts loadConfig) with the editor's unsaved
// texts as overlays, the variables as the CLI collects them (terraform.tfvars, *.auto.tfvars, -var/-var-file
// from the client's settings, TF_VAR_), the selected workspace's state read without the lock (the journal is
// replayed in memory only), and the engine's plan with refresh off: the prior state is whatever the last run
// or explicit refresh left. Providers are wrapped so PlanResourceChange answers are cached by request
// (type, prior state, proposed state, configuration, private data, provider configuration): a re-plan after
// an edit calls the provider only for instances whose inputs changed. ApplyResourceChange is never called.
// A newer preview of a directory aborts the older one, and so does an analysis request (interruptPreviews).
//
// Runs go through the CLI's own operation (runOperation, -no-color -input=false), so they print, lock,
// journal and persist exactly as `foresight plan|apply` does; hooks around the view's report per-resource
// progress with the line the view printed for it.
//
// Contract: every request gets one answer ({id, result} or {id, error}); user errors come back as
// diagnostics in results, never as thrown exceptions.

import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { collectVariableValues, parseVariableValues, type VarFlag } from '../../config/variables';
import type { Module } from '../../config/model';
import type { FileCache } from '../../config/load';
import type { ValidateResult } from '../../config/validate';
import { finalizeRootVariables, ModuleEvaluator } from '../../config/evaluate';
import { error, hasErrors, type Diagnostic } from '../../diags/diagnostic';
import { BackendOpenError, CliBackend } from '../../backends/registry';
import { FilesystemStateManager } from '../../backends/local/filesystem';
import { journalPath } from '../../backends/local/journal';
import { plan as enginePlan } from '../../engine';
import type { Hooks } from '../../engine/hooks';
import type { Value } from '../../lang/value';
import type { Plan } from '../../plans/plan';
import type { Provider } from '../../providers/provider';
import { toWire, wireKey } from '../../providers/wire';
import { renderResourceChange } from '../../command/format/plan';
import { outputValue } from '../../command/jsonstate';
import { NO_DEPOSED, State, instanceAddrString, instanceKeyString, type InstanceAddr, type ObjectSrc, type ResourceInstance } from '../../states/state';
import type { LockProber } from '../../states/statemgr';
import { loadConfig, providerFactory, runOperation } from '../../cli/plan';
import { localBackend } from '../../cli/state/meta';
import type { CliIO } from '../../cli/io';
import { initParser } from '../../syntax/treesitter';
import { toLspDiagnostic } from '../convert';
import { changesDelta, type ChangesDelta, type PlanSummary, type PlannedDiffRequest, type ResourceChangeInfo, type RunDiagnostic, type RunOptions, type RunProgressParams, type StateRequest, type WorkspacesRequest } from '../protocol';
import { blockHover, driftOf, plannedAction, present, referenceHovers, Sources, type DriftInfo, type FilePresentation, type PresentOptions } from './model';
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import { installWorkerProviders } from '../providers';
import { impure, PreviewMemo } from './memo';
import { editedResources, primedResources, type PreviewSession } from './patch';

export const PREVIEW_WORKER_ROLE = 'foresight-preview';

export interface PreviewSettings {
  vars?: Record<string, string>;
  varFiles?: string[];
}

export interface PreviewData {
  directory: string;
  /** This preview's number in the worker: lazy hovers (HoverInfo.block) are rendered from its plan (`hover` request). */
  previewId: number;
  complete: boolean;
  workspace: string;
  /** PreviewResult.stateStamp. */
  stateStamp?: string;
  summary: { add: number; change: number; destroy: number; import: number; replace: number };
  /** The changes; empty when `changesDelta` gives them as edits of an earlier preview's (PreviewCall `base`). */
  changes: ResourceChangeInfo[];
  changesDelta?: ChangesDelta;
  diagnostics: RunDiagnostic[];
  /** LSP diagnostics by absolute file path (for DiagnosticsScheduler.setPreviewDiagnostics). */
  lspDiagnostics: [string, LspDiagnostic[]][];
  /** The presentations of the files asked for (PreviewCall `present`; all when it is absent). */
  files: [string, FilePresentation][];
  /**
   * Every file of the configuration the plan was made from (absolute paths): the presentation of one not in
   * `files` is made on request (PreviewCall `files`) from the same plan.
   */
  paths: string[];
  /** Directories of the local child modules the configuration loaded (their files are shown from this preview). */
  moduleDirs: string[];
  /**
   * Figures of this preview: wall time, PlanResourceChange calls answered from the cache / made, resource nodes
   * replayed from the previous preview / planned (memo.ts), whether the state was read from disk.
   */
  stats: { durationMs: number; planCalls: number; cacheHits: number; replayed: number; planned: number; stateRead: boolean; phases: Record<string, number>; /** Resource nodes planned again by a patch of the last plan (patch.ts), when the preview was one. */ patched?: number };
}

export interface RunResult {
  exitCode: number;
  cancelled: boolean;
  output: string;
  diagnostics: RunDiagnostic[];
  changes?: ResourceChangeInfo[];
  summary?: PreviewData['summary'];
  /** What the run's refresh found changed outside of Terraform (plan and refresh runs). */
  drift?: DriftInfo[];
  durationMs: number;
}

export type WorkerRequest =
  | { id: number; kind: 'preview'; dir: string; overlays: [string, string][]; settings: PreviewSettings; drift?: DriftInfo[]; present?: string[]; base?: number }
  | { id: number; kind: 'files'; previewId: number; paths: string[] }
  | { id: number; kind: 'run'; runId: string; verb: 'plan' | 'apply' | 'refresh'; options: RunOptions; settings: PreviewSettings; planFile?: string }
  | { id: number; kind: 'cancel'; runId: string }
  | { id: number; kind: 'state'; dir: string }
  | { id: number; kind: 'workspaces'; dir: string; select?: string }
  | { id: number; kind: 'diff'; dir: string; address: string; runId?: string }
  | { id: number; kind: 'hover'; previewId: number; block: string[] };

export type WorkerMessage =
  | { id: number; result: unknown }
  | { id: number; error: string }
  | { event: 'progress'; params: RunProgressParams };

/** A user-facing refusal (lock held, stale plan, unknown workspace): answered as RequestFailed. */
export class Refusal extends Error {}

/** How a failed request is answered by a worker: a refusal as "refusal:<message>" (shown as RequestFailed), a bug with its stack. */
export function failureText(e: unknown): string {
  return e instanceof Refusal ? `refusal:${e.message}` : e instanceof Error ? (e.stack ?? e.message) : String(e);
}

// ---- the PlanResourceChange cache --------------------------------------------------------------------------

/**
 * PlanResourceChange answers of one directory's previews, by a hash of the whole request and the provider's
 * configuration. An entry not used by the last two previews of its directory is dropped, so the cache holds about
 * one answer per instance of the workspace.
 */
interface PlanCache {
  gen: number;
  entries: Map<string, { res: Awaited<ReturnType<Provider['planResourceChange']>>; gen: number }>;
}
const planCaches = new Map<string, PlanCache>();

function planCacheOf(dir: string): PlanCache {
  let c = planCaches.get(dir);
  if (!c) {
    planCaches.set(dir, (c = { gen: 0, entries: new Map() }));
    if (planCaches.size > 8) planCaches.delete(planCaches.keys().next().value as string);
  }
  return c;
}

function sweep(c: PlanCache): void {
  for (const [k, e] of c.entries) if (e.gen < c.gen - 1) c.entries.delete(k);
}

/** PlanResourceChange calls of a preview: made, and answered from the cache. */
interface PlanCounters {
  planCalls: number;
  cacheHits: number;
}

/** `counters.current`: the preview the calls count for (a kept plan's providers serve the patches after it). */
function cachingProvider(fqn: string, p: Provider, cache: PlanCache, counters: { current: PlanCounters }): Provider {
  let configKey = '';
  return new Proxy(p, {
    get(t, k) {
      if (k === 'configureProvider')
        return async (req: Parameters<Provider['configureProvider']>[0]) => {
          try {
            configKey = JSON.stringify(toWire(req.config));
          } catch {
            configKey = `unkeyed:${randomUUID()}`;
          }
          return t.configureProvider(req);
        };
      if (k === 'planResourceChange')
        return async (req: Parameters<Provider['planResourceChange']>[0]) => {
          let key: string | undefined;
          try {
            key = createHash('sha256')
              .update(fqn + '\u0000' + configKey + '\u0000' + wireKey(req))
              .digest('base64');
          } catch {
            key = undefined; // marked values cannot be keyed: not cached
          }
          await yieldToMessages();
          const hit = key === undefined ? undefined : cache.entries.get(key);
          if (hit) {
            counters.current.cacheHits++;
            hit.gen = cache.gen;
            return hit.res;
          }
          counters.current.planCalls++;
          const res = await t.planResourceChange(req);
          if (key !== undefined && !res.diagnostics.length) cache.entries.set(key, { res, gen: cache.gen });
          return res;
        };
      if (k === 'applyResourceChange') return () => Promise.reject(new Error('the preview never applies'));
      const x = Reflect.get(t, k, t) as unknown;
      return typeof x === 'function' ? (x as (...a: unknown[]) => unknown).bind(t) : x;
    },
  });
}

/**
 * Lets the thread's message port in (setImmediate) when the preview has run for 8 ms since it last did: the walk
 * itself only awaits promises, and a preview sharing the analysis worker must notice a waiting analysis request
 * (interruptPreviews) while it plans, not after.
 */
let lastYield = 0;
async function yieldToMessages(): Promise<void> {
  const now = performance.now();
  if (now - lastYield < 8) return;
  await new Promise<void>((r) => setImmediate(r));
  lastYield = performance.now();
}

// ---- shared helpers ------------------------------------------------------------------------------------------

function workerIO(dir: string, out: string[] = []): CliIO {
  return { stdin: async () => '', stdout: (s) => void out.push(s), stderr: (s) => void out.push(s), cwd: dir, env: process.env };
}

function varFlags(settings: PreviewSettings, opts?: { vars?: Record<string, string>; varFiles?: string[] }): VarFlag[] {
  const flags: VarFlag[] = [];
  for (const f of [...(settings.varFiles ?? []), ...(opts?.varFiles ?? [])]) flags.push({ flag: '-var-file', value: f });
  for (const [k, v] of Object.entries({ ...(settings.vars ?? {}), ...(opts?.vars ?? {}) })) flags.push({ flag: '-var', value: `${k}=${v}` });
  return flags;
}

function runDiagnostic(d: Diagnostic, dir: string, src?: Sources): RunDiagnostic {
  const out: RunDiagnostic = { severity: d.severity, summary: d.summary };
  if (d.detail) out.detail = d.detail;
  const where = d.subject ?? d.context;
  if (where?.filename) {
    out.file = isAbsolute(where.filename) ? where.filename : join(dir, where.filename);
    if (src) out.range = src.range(where);
  }
  return out;
}

function lspDiagnostics(diags: readonly Diagnostic[], src: Sources): [string, LspDiagnostic[]][] {
  const by = new Map<string, LspDiagnostic[]>();
  for (const d of diags) {
    const where = d.subject ?? d.context;
    if (!where?.filename) continue;
    const p = src.abs(where.filename);
    let l = by.get(p);
    if (!l) by.set(p, (l = []));
    l.push(toLspDiagnostic(d, src.index(where.filename)));
  }
  return [...by];
}

// ---- previews ----------------------------------------------------------------------------------------------

/** The last preview plan per directory (for PlannedDiffRequest without a run). */
const lastPreview = new Map<string, { plan: Plan; config: Module }>();
/**
 * The latest previews by previewId, the last 4 of each directory (the main thread may still show one a newer
 * preview superseded, or the last complete one while the configuration does not load): their plans, and what
 * presents a file of them on request (`files`).
 */
const previewPlans = new Map<
  number,
  { dir: string; plan: Plan; changes: ResourceChangeInfo[]; summary: PlanSummary; driftKey?: string; files(only: (abs: string) => boolean): Map<string, FilePresentation> }
>();
let nextPreviewId = 1;

/** The markdown of a lazy hover of preview `previewId`; null when that preview is no longer kept. */
function previewHover(previewId: number, block: string[]): string | null {
  const plan = previewPlans.get(previewId);
  return plan ? blockHover(plan.plan, block) : null;
}

/** The presentations of `paths` made from preview `previewId`; null when that preview is no longer kept. */
export function previewFiles(previewId: number, paths: string[]): [string, FilePresentation][] | null {
  const kept = previewPlans.get(previewId);
  if (!kept) return null;
  const want = new Set(paths);
  const files = kept.files((p) => want.has(p));
  // A file of the configuration without anything to show still has its (empty) presentation.
  return paths.map((p) => [p, files.get(p) ?? { lenses: [], hints: [], hovers: [] }]);
}
/** The arguments of each directory's last preview (for primePreview). */
const lastCalls = new Map<string, { overlays: Map<string, string>; settings: PreviewSettings; drift: DriftInfo[]; presentOnly?: string[]; previewId: number }>();

/** The most resources a round of primePreview plans again. */
const PRIME_RESOURCES = 32;

/**
 * Idle-time work after a directory's first preview (the analysis worker runs it, as it primes the analysis): the
 * patch path of an edit run `rounds` times on the unchanged configuration, so that the first edits find its code
 * optimised. Each round plans the first presented file's managed resources again (at most PRIME_RESOURCES; their
 * requests are answered from the PlanResourceChange cache, and what depends on them reads nothing different) and
 * presents the patched plan, which replaces the last preview under its id: a preview of the same configuration, state
 * and variables, so the main thread's copy of its changes stays true. Nothing is sent. `stop` is asked before each
 * round (true: stop). Does nothing when the last preview cannot be patched (a full plan is never made here).
 * Answers how many rounds it made.
 */
export async function primePreview(dir: string, rounds: number, stop: () => boolean, shared?: SharedAnalysis): Promise<number> {
  let made = 0;
  for (; made < rounds && !stop(); made++) {
    const last = lastCalls.get(dir);
    if (!last?.presentOnly?.length || !previewPlans.has(last.previewId)) break;
    try {
      await makePreview(dir, last.overlays, last.settings, last.drift, shared, last.presentOnly, last.previewId, last.previewId);
    } catch (e) {
      if (e instanceof Refusal && e.message === NOT_PRIMED) break;
      throw e;
    }
  }
  return made;
}

/** A round of priming that found nothing to patch. */
const NOT_PRIMED = 'nothing to prime';

const previewAborts = new Map<string, AbortController>();
/** The abort reason of a preview stopped by interruptPreviews (answered as the refusal "interrupted"). */
const INTERRUPTED = Symbol('interrupted');

/**
 * Stops the previews being made (at their walk's next step): the analysis worker calls it when an analysis request
 * comes, since analyses come first. Their requests are answered with the refusal "interrupted" (PREVIEW_INTERRUPTED);
 * the main thread makes them again later.
 */
export function interruptPreviews(): void {
  for (const a of previewAborts.values()) a.abort(INTERRUPTED);
}
export const PREVIEW_INTERRUPTED = 'interrupted';
/** Per-file parse results of the directories previewed most recently (config/load.ts FileCache). */
const fileCaches = new Map<string, FileCache>();

/** The last complete plan per directory, kept for patching (patch.ts), the directories previewed most recently. */
const sessions = new Map<string, PreviewSession>();
/** A patch being made per directory: a newer preview waits for it (and then patches its result). */
const sessionBusy = new Map<string, Promise<void>>();

function keepSession(dir: string, ps: PreviewSession): void {
  const old = sessions.get(dir);
  sessions.delete(dir);
  if (old) void old.close();
  sessions.set(dir, ps);
  if (sessions.size > 4) {
    const [first, s] = sessions.entries().next().value as [string, PreviewSession];
    sessions.delete(first);
    void s.close();
  }
}

function dropSessions(dir?: string): void {
  for (const [d, s] of [...sessions]) {
    if (dir !== undefined && d !== dir) continue;
    sessions.delete(d);
    void s.close();
  }
}

/** The incremental plan's records per directory (memo.ts), the directories previewed most recently. */
const memos = new Map<string, PreviewMemo>();

function memoOf(dir: string): PreviewMemo {
  let m = memos.get(dir);
  if (!m) {
    memos.set(dir, (m = new PreviewMemo()));
    if (memos.size > 4) memos.delete(memos.keys().next().value as string);
  }
  return m;
}

/**
 * The state last read per directory with the local backend, kept while the state file and its journal are
 * unchanged on disk (size, mtime, inode): an edit's preview does not read and decode the whole state again. The
 * engine never mutates the state it is given. `token` names the loaded object in the memo's key.
 */
const stateCache = new Map<string, { key: string; state: State; token: number }>();
let nextStateToken = 1;

function fileStamp(p: string): string {
  try {
    const st = statSync(p, { bigint: true });
    return `${st.size}:${st.mtimeNs}:${st.ino}`;
  } catch {
    return '-';
  }
}

/**
 * A copy of a state whose strings do not share the state file's text: the reader's attribute JSON and dependency
 * strings are slices of the whole file (tens of MB at 5,000 resources) that a kept state would otherwise retain.
 */
function detached(state: State): State {
  const s = state.deepCopy();
  // (The attribute JSON without the file's indentation: its layout does not matter, numbers keep their text.)
  const copy = (o: ObjectSrc): ObjectSrc => {
    const c = JSON.parse(JSON.stringify(o)) as { attrsJSON?: string };
    if (c.attrsJSON !== undefined) c.attrsJSON = c.attrsJSON.replace(/("(?:[^"\\]|\\.)*")|\s+/g, (_m, str: string | undefined) => str ?? '');
    return c as ObjectSrc;
  };
  const flat = <T>(x: T): T => (x === undefined ? x : (JSON.parse(JSON.stringify(x)) as T));
  for (const m of s.modules.values()) {
    for (const [rk, r] of m.resources) {
      const instances = new Map<string, ResourceInstance>();
      for (const [ik, is] of r.instances) {
        // (Most instances have no deposed objects: they share the state's one empty map, as a loaded state's do.)
        let deposed = NO_DEPOSED;
        if (is.deposed.size) {
          const m = new Map<string, ObjectSrc>();
          for (const [k, o] of is.deposed) m.set(flat(k), copy(o));
          deposed = m;
        }
        instances.set(flat(ik), { key: flat(is.key), current: is.current && copy(is.current), deposed });
      }
      m.resources.set(flat(rk), { mode: r.mode, type: flat(r.type), name: flat(r.name), provider: flat(r.provider), instances });
    }
  }
  for (const [k, o] of s.outputs) s.outputs.set(k, flat(o));
  return s;
}

/** Forgets every cache of the previews (file parses, PlanResourceChange answers, state, incremental records, last plans): the next preview is a full one. */
export function resetPreviewCaches(): void {
  fileCaches.clear();
  planCaches.clear();
  lastPreview.clear();
  previewPlans.clear();
  lastCalls.clear();
  memos.clear();
  stateCache.clear();
  dropSessions();
}

/** Forgets the plans kept for patching (tests: the next preview of each directory is a full plan with the memo). */
export function forgetPreviewSessions(): void {
  dropSessions();
}

/** Forgets the state and incremental records of `dir` (something on disk changed that the preview reads). */
export function invalidatePreview(dir: string): void {
  memos.get(dir)?.reset();
  stateCache.delete(dir);
  dropSessions(dir);
}

/**
 * What a preview made beside the directory's analysis (the analysis worker) takes from it: its per-file parse results
 * and parse budget, and its last result when that was made with the preview's overlays (ModuleAnalysis.resultFor).
 */
export interface SharedAnalysis {
  cache: FileCache;
  budgetMs?: number;
  result?: (overlays: ReadonlyMap<string, string>) => ValidateResult | undefined;
}

/**
 * A preview plan of `dir`. `shared`: the per-file parse results of the directory's analysis and its parse budget,
 * when the preview runs beside it (the analysis worker), so that the module's model is held once; otherwise the
 * previews keep their own (fileCaches).
 */
export async function makePreview(
  dir: string,
  overlays: Map<string, string>,
  settings: PreviewSettings,
  drift: DriftInfo[] = [],
  shared?: SharedAnalysis,
  /** The files (absolute paths) presented with the answer; all when absent (the others on request, `files`). */
  presentOnly?: string[],
  /** A preview whose changes the caller holds: the answer's changes come as edits of its list where it is kept. */
  basePreview?: number,
  /**
   * primePreview's rounds: the kept preview of this id is made again by re-planning the first presented file's
   * resources as if they had been edited (see primePreview), and kept under the same id; refused (NOT_PRIMED) when
   * the last plan cannot be patched. Never aborted by a newer preview or an analysis (a round is short; they wait).
   */
  primeOf?: number,
): Promise<PreviewData> {
  const t0 = performance.now();
  const abort = new AbortController();
  if (primeOf === undefined) {
    previewAborts.get(dir)?.abort();
    previewAborts.set(dir, abort);
  }
  /** PlanResourceChange calls of this preview: made, and answered from the cache. */
  const counters: PlanCounters = { planCalls: 0, cacheHits: 0 };
  const counting = { current: counters };
  const io = workerIO(dir);
  /** The texts the configuration was loaded from (the file cache's entries of this load), by absolute path. */
  const loaded = new Map<string, string>();
  const src = new Sources(dir, overlays, (p) => loaded.get(p));
  const b = localBackend(io);
  const workspace = b.currentWorkspace();
  const previewId = primeOf ?? nextPreviewId++;
  const empty = (diags: readonly Diagnostic[]): PreviewData => ({
    directory: dir,
    previewId,
    complete: false,
    workspace,
    summary: { add: 0, change: 0, destroy: 0, import: 0, replace: 0 },
    changes: [],
    diagnostics: diags.map((d) => runDiagnostic(d, dir, src)),
    lspDiagnostics: [],
    files: [],
    paths: [],
    moduleDirs: [],
    stats: { durationMs: performance.now() - t0, ...counters, replayed: 0, planned: 0, stateRead, phases },
  });
  let stateRead = false;
  const phases: Record<string, number> = {};
  let mark = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    phases[name] = Math.round(now - mark);
    mark = now;
  };
  // With the analysis's cache, a cache of the preview's own would hold the model a second time.
  if (shared) fileCaches.delete(dir);
  let cache = shared?.cache ?? fileCaches.get(dir);
  if (!cache) {
    fileCaches.set(dir, (cache = new Map()));
    if (fileCaches.size > 8) fileCaches.delete(fileCaches.keys().next().value as string);
  }
  // The analysis of the same texts has just loaded the configuration: its result is taken as it is.
  const cfg = await loadConfig(io, false, overlays, cache, shared?.budgetMs, shared?.result?.(overlays));
  phase('load');
  // Configuration errors are the analysis's diagnostics already; the preview only says it could not plan.
  if (!('module' in cfg)) return empty(cfg.diags);
  const paths = configFiles(cfg.module, src);
  for (const p of paths) {
    const text = cache.get(p)?.text;
    if (text !== undefined) loaded.set(p, text);
  }
  // The backend the configuration names (as `localBackend` opens it, but from the module just loaded).
  const backendBlock = cfg.module.terraform.find((t) => t.backend)?.backend;
  const configured = new CliBackend({ cwd: dir, env: io.env }, async () => backendBlock);
  let mgr: Awaited<ReturnType<CliBackend['stateMgr']>>;
  try {
    mgr = await configured.stateMgr(configured.currentWorkspace());
  } catch (e) {
    return empty(e instanceof BackendOpenError ? e.diagnostics : [error('Failed to open the backend', e instanceof Error ? e.message : String(e))]);
  }
  // The local backend's state is read again only when its file or journal changed on disk.
  const local = mgr instanceof FilesystemStateManager ? (isAbsolute(mgr.path) ? mgr.path : join(dir, mgr.path)) : undefined;
  const stamp = local && `${configured.currentWorkspace()}|${local}|${fileStamp(local)}|${fileStamp(journalPath(local))}`;
  let cached = stamp ? stateCache.get(dir) : undefined;
  if (!cached || cached.key !== stamp) {
    stateRead = true;
    const rd = await mgr.refresh();
    if (hasErrors(rd)) return empty(rd);
    const read = mgr.read() ?? new State();
    cached = { key: stamp || '', state: stamp && !rd.length ? detached(read) : read, token: nextStateToken++ };
    if (stamp && !rd.length) stateCache.set(dir, cached);
    else stateCache.delete(dir);
  }
  const state = cached.state;
  // What a client's copy of the state (StateRequest) depends on: the state, its journal and the lock's holder.
  const lockInfo = stamp && mgr instanceof FilesystemStateManager ? (isAbsolute(mgr.lockInfoPath()) ? mgr.lockInfoPath() : join(dir, mgr.lockInfoPath())) : undefined;
  const stateStamp = stamp && lockInfo ? `${stamp}|${fileStamp(lockInfo)}` : undefined;
  const collected = await collectVariableValues(dir, varFlags(settings), io.env);
  const parsed = parseVariableValues(collected.raw, cfg.module);
  const varDiags = [...collected.diagnostics, ...parsed.diagnostics];
  if (hasErrors(varDiags)) {
    const e = empty(varDiags);
    e.lspDiagnostics = lspDiagnostics(varDiags, src);
    return e;
  }
  // The CLI's providers: built-in ones with relative paths resolved in `dir`, and the workspace's provider
  // binaries (the workspace is trusted, or no preview would be asked for); all closed after the plan.
  const base = providerFactory(io);
  const wrapped = new Map<string, Provider | undefined>();
  const prc = planCacheOf(dir);
  const providers = (fqn: string) => {
    if (!wrapped.has(fqn)) {
      const p = base(fqn);
      wrapped.set(fqn, p && cachingProvider(fqn, p, prc, counting));
    }
    return wrapped.get(fqn);
  };
  phase('state');
  const memo = memoOf(dir);
  const mkey = memoKey(dir, cached.token, workspace, cfg.module);
  // What the variables' values were made of: the texts of the variable files, the strings of the others (a file
  // value's expression is its file's text; parsed values and expressions are not serializable, numbers are BigInts).
  const varsKey = JSON.stringify([[...collected.sources], [...collected.raw.values()].map((r) => [r.name, r.source, r.str ?? null])]);
  // The fast path: the last plan patched, when the edit changed only some managed resources' bodies (patch.ts).
  let res: { plan: Plan; diagnostics: readonly Diagnostic[] } | undefined;
  let replayed = 0;
  let planned = 0;
  /** The plan a patch patched, and the configuration files it found changed. */
  let patchedFrom: Plan | undefined;
  const changedPaths: string[] = [];
  const busy = sessionBusy.get(dir);
  if (busy) await busy;
  const ps = sessions.get(dir);
  if (ps) {
    sessions.delete(dir);
    let changed = ps.memoKey === mkey && ps.varsKey === varsKey && prc.entries.size <= ps.cacheBound ? editedResources(ps, dir, cfg.module, paths, cache, changedPaths) : undefined;
    if (primeOf !== undefined) {
      // A round of priming patches an unchanged configuration; the first presented file's resources count as edited.
      const first = presentOnly?.[0];
      const entry = first === undefined ? undefined : cache.get(first);
      changed = changed?.size === 0 && entry && previewPlans.get(primeOf)?.plan === ps.session.plan ? primedResources(ps, cfg.module, entry.display, PRIME_RESOURCES) : undefined;
      if (!changed?.size) {
        sessions.set(dir, ps);
        throw new Refusal(NOT_PRIMED);
      }
      changedPaths.push(first!);
    }
    const order = changed && ![...changed.values()].some(impure) ? ps.session.affected(changed.keys()) : undefined;
    let patched: Plan | undefined;
    const before = ps.session.plan;
    if (order) {
      ps.counting.current = counters;
      // Not interrupted half-way (a few resources): a newer preview waits for it and patches this one's result.
      const run = ps.session.replan(order, changed!, (k, n, effects) => memo.patched(k, n, ps.session.ctx, effects));
      sessionBusy.set(
        dir,
        run.then(
          () => undefined,
          () => undefined,
        ),
      );
      try {
        patched = await run;
      } catch {
        // (A patch that fails is spent: the full plan below reports what went wrong, if it goes wrong again.)
        patched = undefined;
      } finally {
        sessionBusy.delete(dir);
      }
    }
    if (patched) {
      for (const p of paths) ps.entries.set(p, cache.get(p)!);
      sessions.set(dir, ps);
      res = { plan: patched, diagnostics: patched.diagnostics ?? [] };
      planned = ps.session.replannedCount;
      patchedFrom = before;
    } else await ps.close();
  }
  if (!res && primeOf !== undefined) throw new Refusal(NOT_PRIMED);
  if (!res) {
    prc.gen++;
    memo.begin(mkey);
    const full = await enginePlan({
      config: cfg.module,
      state,
      providers,
      inputs: parsed.values,
      refresh: false,
      cwd: dir,
      workspace,
      signal: abort.signal,
      reuse: memo,
      keepSession: true,
    });
    const close = () => Promise.all([...wrapped.values()].map((pr) => pr?.close().catch(() => undefined))).then(() => undefined);
    ({ replayed, planned } = memo.stats);
    memo.end(!abort.signal.aborted);
    if (!abort.signal.aborted) sweep(prc);
    // Kept for patching when no resource calls an impure function (a patch would not plan them again).
    const g = full.session?.built.graph;
    let pure = !!g;
    if (g) for (const [, n] of g.entries()) if (n.kind === 'resource' && impure(n.res)) pure = false;
    if (full.session && pure && !abort.signal.aborted) {
      keepSession(dir, {
        session: full.session,
        paths,
        entries: new Map(paths.map((p) => [p, cache.get(p)!] as const)),
        memoKey: mkey,
        varsKey,
        cacheBound: Math.ceil(prc.entries.size * 1.25) + 500,
        counting,
        close,
      });
    } else await close();
    res = full;
  }
  phase('plan');
  if (previewAborts.get(dir) === abort) previewAborts.delete(dir);
  if (abort.signal.aborted) throw new Refusal(abort.signal.reason === INTERRUPTED ? PREVIEW_INTERRUPTED : 'superseded by a newer preview');
  lastPreview.set(dir, { plan: res.plan, config: cfg.module });
  const diags = [...res.diagnostics];
  // Locals as `foresight console` evaluates them (resources unknown): shown only where wholly known.
  const fin = finalizeRootVariables(cfg.module, parsed.values);
  const ev = new ModuleEvaluator(cfg.module, fin.inputs, { cwd: dir, workspace, console: true }, []);
  const rootLocal = (name: string) => {
    const v = ev.local(name);
    return v && v.isWhollyKnown ? v : undefined;
  };
  const want = presentOnly && new Set(presentOnly);
  const only = want && ((abs: string) => want.has(abs));
  let previous: ResourceChangeInfo[] | undefined;
  const driftKey = JSON.stringify(drift);
  let patchOf: PresentOptions['patchOf'];
  for (const e of previewPlans.values()) {
    if (e.dir !== dir) continue;
    previous = e.changes;
    // A patched plan is presented as a patch of the presentation of the plan it patched (same drift).
    patchOf = patchedFrom && e.plan === patchedFrom && e.driftKey === driftKey ? { plan: e.plan, changes: e.changes, summary: e.summary, files: new Set(changedPaths) } : undefined;
  }
  const p = present(res.plan, cfg.module, src, drift, { lazyHovers: true, only, previous, patchOf });
  referenceHovers(res.plan, cfg.module, src, p.files, rootLocal, only);
  const plan = res.plan;
  const module = cfg.module;
  const kept = basePreview === undefined ? undefined : previewPlans.get(basePreview);
  const delta = kept && kept.dir === dir ? changesDelta(kept.changes, basePreview!, p.changes, patchOf && kept.changes === patchOf.changes ? p.fresh : undefined) : undefined;
  // (A round of priming keeps its preview under the id it made again, as the newest of the directory.)
  if (primeOf !== undefined) previewPlans.delete(previewId);
  else lastCalls.set(dir, { overlays, settings, drift, presentOnly, previewId });
  previewPlans.set(previewId, {
    dir,
    plan,
    changes: p.changes,
    summary: p.summary,
    driftKey,
    files(o) {
      const files = present(plan, module, src, drift, { lazyHovers: true, only: o, filesOnly: true }).files;
      referenceHovers(plan, module, src, files, rootLocal, o);
      return files;
    },
  });
  const ofDir = [...previewPlans].filter(([, e]) => e.dir === dir);
  for (const [id] of ofDir.slice(0, -4)) previewPlans.delete(id);
  if (previewPlans.size > 64) previewPlans.delete(previewPlans.keys().next().value as number);
  phase('present');
  return {
    directory: dir,
    previewId,
    complete: !hasErrors(diags) && !res.plan.errored,
    workspace,
    ...(stateStamp ? { stateStamp } : {}),
    summary: p.summary,
    changes: delta ? [] : p.changes,
    ...(delta ? { changesDelta: delta } : {}),
    diagnostics: diags.map((d) => runDiagnostic(d, dir, src)),
    lspDiagnostics: lspDiagnostics(
      diags.filter((d) => d.severity === 'error' || !cfg.diags.some((c) => c.summary === d.summary)),
      src,
    ),
    files: [...p.files],
    paths,
    moduleDirs: childDirs(cfg.module),
    stats: { durationMs: performance.now() - t0, ...counters, replayed, planned, stateRead, phases, ...(patchedFrom ? { patched: planned } : {}) },
  };
}

/**
 * What every node of a preview plan reads besides its own inputs (PreviewMemo.begin): the state object, the
 * workspace, the providers installed (lock file, module manifest, backend record, CLI configuration), and the
 * moved, import and removed blocks of every module.
 */
function memoKey(dir: string, stateToken: number, workspace: string, root: Module): string {
  const parts = [String(stateToken), workspace];
  for (const f of ['.terraform.lock.hcl', '.terraform/modules/modules.json', '.terraform/terraform.tfstate', '.terraform/environment']) parts.push(fileStamp(join(dir, f)));
  const cli = process.env.TF_CLI_CONFIG_FILE;
  if (cli) parts.push(cli, fileStamp(cli));
  const visit = (m: Module) => {
    parts.push(`module ${m.path}`);
    for (const b of m.moved) parts.push(`moved ${b.from?.text ?? ''} ${b.to?.text ?? ''}`);
    for (const b of m.imports) parts.push(`import ${b.to?.text ?? ''} ${b.id?.text ?? ''} ${b.forEach?.text ?? ''} ${b.provider?.text ?? ''}`);
    for (const b of m.removed) parts.push(`removed ${b.from?.text ?? ''} ${b.lifecycle ? JSON.stringify(b.lifecycle.attributes.map((a) => [a.name, a.expr.text])) : ''}`);
    for (const c of m.moduleCalls.values()) if (c.module) visit(c.module);
  };
  visit(root);
  return parts.join('\n');
}

/** The absolute paths of the files of `m` and the modules below it. */
function configFiles(m: Module, src: Sources, out: string[] = []): string[] {
  for (const f of m.files) out.push(src.abs(f));
  for (const c of m.moduleCalls.values()) if (c.module) configFiles(c.module, src, out);
  return out;
}

function childDirs(m: Module, out: string[] = []): string[] {
  for (const c of m.moduleCalls.values()) {
    if (c.dir && !out.includes(c.dir)) out.push(c.dir);
    if (c.module) childDirs(c.module, out);
  }
  return out;
}

// ---- runs --------------------------------------------------------------------------------------------------

const runAborts = new Map<string, AbortController>();
const runPlans = new Map<string, { plan: Plan; dir: string }>();

/** The default folder of saved plans of this process's runs. */
export function planDirectory(): string {
  const d = join(tmpdir(), `foresight-runs-${process.pid}`);
  mkdirSync(d, { recursive: true });
  return d;
}

function operationOf(action: string): string {
  switch (action) {
    case 'Create':
      return 'create';
    case 'Update':
      return 'update';
    case 'Delete':
      return 'delete';
    case 'Read':
      return 'read';
    case 'NoOp':
      return 'no-op';
    default:
      return 'replace';
  }
}

/** The noun of a failed apply's progress message, by action (terraform's JSON view). */
const ERRORED: Partial<Record<string, string>> = { Create: 'Creation', Update: 'Modifications', Delete: 'Destruction', Read: 'Read' };

/** Hooks that run the view's hook, then report progress with the line the view printed. */
function progressHooks(view: Hooks, runId: string, out: string[], emit: (p: RunProgressParams) => void): Hooks {
  const started = new Map<string, number>();
  const addrOf = (a: InstanceAddr, dk: string | undefined) => instanceAddrString(a) + (dk ? ` (deposed object ${dk})` : '');
  const call = (f: (() => void) | undefined): string => {
    const n = out.length;
    f?.();
    const text = out.slice(n).join('');
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    return lines.length ? lines[lines.length - 1] : '';
  };
  const report = (address: string, operation: string, state: RunProgressParams['state'], message: string) => {
    const k = `${address}\u0000${operation}`;
    let elapsedMs = 0;
    if (state === 'started') started.set(k, performance.now());
    else {
      const s = started.get(k);
      if (s !== undefined) elapsedMs = Math.round(performance.now() - s);
      started.delete(k);
    }
    emit({ runId, address, operation, state, elapsedMs, message });
  };
  return {
    ...view,
    preRefresh: (a, dk, prior) => report(addrOf(a, dk), 'refresh', 'started', call(() => view.preRefresh?.(a, dk, prior))),
    postRefresh: (a, dk, prior, next) => report(addrOf(a, dk), 'refresh', 'done', call(() => view.postRefresh?.(a, dk, prior, next))),
    preDiff: (a, dk, prior, proposed) => report(addrOf(a, dk), 'plan', 'started', call(() => view.preDiff?.(a, dk, prior, proposed))),
    postDiff: (a, dk, action, prior, planned) => report(addrOf(a, dk), 'plan', 'done', call(() => view.postDiff?.(a, dk, action, prior, planned))),
    preApply: (a, dk, action, prior, planned) => report(addrOf(a, dk), operationOf(action), 'started', call(() => view.preApply?.(a, dk, action, prior, planned))),
    postApply: (a, dk, action, next, failed) => {
      const printed = call(() => view.postApply?.(a, dk, action, next, failed));
      // The CLI prints nothing for a failed apply (as terraform's UI hook); the run progress still says it, in the
      // words of terraform's JSON view ("apply_errored").
      const s = started.get(`${addrOf(a, dk)}\u0000${operationOf(action)}`);
      const secs = s === undefined ? 0 : Math.floor((performance.now() - s) / 1000);
      report(addrOf(a, dk), operationOf(action), failed ? 'failed' : 'done', failed ? `${addrOf(a, dk)}: ${ERRORED[action] ?? 'Apply'} errored after ${secs}s` : printed);
    },
    preReadData: (a) => report(addrOf(a, undefined), 'read', 'started', call(() => view.preReadData?.(a))),
    postReadData: (a, failed, next) => report(addrOf(a, undefined), 'read', failed ? 'failed' : 'done', call(() => view.postReadData?.(a, failed, next))),
  };
}

function operationArgs(verb: 'plan' | 'apply' | 'refresh', o: RunOptions, settings: PreviewSettings, planFile: string | undefined): string[] {
  const args = ['-no-color', '-input=false'];
  if (o.lockTimeout) args.push(`-lock-timeout=${o.lockTimeout}`);
  if (verb === 'apply') return [...args, ...(o.parallelism ? [`-parallelism=${o.parallelism}`] : []), planFile!];
  if (verb === 'plan') args.push(`-out=${planFile}`);
  if (verb === 'refresh') args.push('-refresh-only', '-auto-approve');
  else if (o.mode === 'destroy') args.push('-destroy');
  else if (o.mode === 'refresh-only') args.push('-refresh-only');
  if (o.refresh === false) args.push('-refresh=false');
  if (o.parallelism) args.push(`-parallelism=${o.parallelism}`);
  for (const t of o.targets ?? []) args.push(`-target=${t}`);
  for (const r of o.replace ?? []) args.push(`-replace=${r}`);
  for (const f of varFlags(settings, o)) args.push(f.flag === '-var' ? `-var=${f.value}` : `-var-file=${f.value}`);
  return args;
}

const REFUSALS = ['Error acquiring the state lock', 'Saved plan is stale', 'Saved plan does not match the given state'];

export async function run(
  runId: string,
  verb: 'plan' | 'apply' | 'refresh',
  o: RunOptions,
  settings: PreviewSettings,
  planFile: string | undefined,
  emit: (p: RunProgressParams) => void,
): Promise<RunResult> {
  const t0 = performance.now();
  const out: string[] = [];
  const abort = new AbortController();
  runAborts.set(runId, abort);
  const diags: Diagnostic[] = [];
  let planMade: Plan | undefined;
  const io = workerIO(o.directory, out);
  let code: number;
  try {
    code = await runOperation(verb === 'refresh' ? 'apply' : verb, operationArgs(verb, o, settings, planFile), io, {
      signal: abort.signal,
      wrapHooks: (h) => progressHooks(h, runId, out, emit),
      onPlan: (p) => (planMade = p),
      onDiagnostics: (d) => diags.push(...d),
    });
  } finally {
    runAborts.delete(runId);
  }
  const refusal = code !== 0 ? diags.find((d) => d.severity === 'error' && REFUSALS.includes(d.summary)) : undefined;
  if (refusal) throw new Refusal(refusal.detail ? `${refusal.summary}: ${refusal.detail}` : refusal.summary);
  const result: RunResult = {
    exitCode: code,
    cancelled: abort.signal.aborted,
    output: out.join(''),
    diagnostics: diags.map((d) => runDiagnostic(d, o.directory, new Sources(o.directory, new Map()))),
    durationMs: Math.round(performance.now() - t0),
  };
  if (planMade) {
    result.drift = driftOf(planMade);
    const cfg = await loadConfig(workerIO(o.directory), false);
    if ('module' in cfg) {
      const p = present(planMade, cfg.module, new Sources(o.directory, new Map()));
      result.changes = p.changes;
      result.summary = p.summary;
    }
    if (verb === 'plan') {
      runPlans.set(runId, { plan: planMade, dir: o.directory });
      // The main side keeps the latest 100 runs; their plans are all a diff may ask for.
      if (runPlans.size > 100) runPlans.delete(runPlans.keys().next().value as string);
    }
  }
  return result;
}

export function cancel(runId: string): boolean {
  const a = runAborts.get(runId);
  a?.abort();
  return a !== undefined;
}

// ---- state, workspaces, diffs ------------------------------------------------------------------------------

function redactSensitive(attrs: unknown, paths: readonly (readonly { type: string; name?: string; key?: string }[])[]): unknown {
  let root = attrs;
  for (const p of paths) {
    if (p.length === 0) return '(sensitive value)';
    const set = (obj: unknown, i: number): unknown => {
      if (obj === null || typeof obj !== 'object') return obj;
      const st = p[i];
      let k: string | number | undefined;
      if (st.type === 'get_attr') k = st.name;
      else {
        try {
          k = (JSON.parse(st.key ?? '') as { value: string | number }).value;
        } catch {
          return obj;
        }
      }
      if (k === undefined) return obj;
      const copy: Record<string, unknown> | unknown[] = Array.isArray(obj) ? [...obj] : { ...(obj as Record<string, unknown>) };
      const cur = (copy as Record<string | number, unknown>)[k];
      if (cur === undefined) return obj;
      (copy as Record<string | number, unknown>)[k] = i === p.length - 1 ? '(sensitive value)' : set(cur, i + 1);
      return copy;
    };
    root = set(root, 0);
  }
  return root;
}

export async function readState(dir: string): Promise<StateRequest.Result> {
  const io = workerIO(dir);
  const b = localBackend(io);
  const workspace = b.currentWorkspace();
  const mgr = await b.stateMgr(workspace);
  const rd = await mgr.refresh();
  if (hasErrors(rd)) throw new Refusal(rd.map((d) => d.summary + (d.detail ? `: ${d.detail}` : '')).join('\n'));
  const state = mgr.read() ?? new State();
  const meta = mgr.meta();
  const result: StateRequest.Result = { workspace, serial: meta.serial, lineage: meta.lineage, resources: [], outputs: {} };
  // Every backend's manager tells who holds its lock without taking it (local: the lock info file; pg: the holding
  // session; http: what a refused run was told).
  const holder = await (mgr as unknown as Partial<LockProber>).lockHolder?.().catch(() => undefined);
  if (holder) result.lock = holder;
  for (const m of state.modules.values()) {
    for (const r of m.resources.values()) {
      for (const inst of r.instances.values()) {
        const objs: [string | undefined, NonNullable<typeof inst.current>][] = [];
        if (inst.current) objs.push([undefined, inst.current]);
        for (const [dk, o] of inst.deposed) objs.push([dk, o]);
        for (const [dk, o] of objs) {
          let attrs: unknown = {};
          try {
            attrs = o.attrsJSON !== undefined ? JSON.parse(o.attrsJSON) : { ...(o.attrsFlat ?? {}) };
          } catch {
            attrs = {};
          }
          const addr = { module: m.addr, mode: r.mode, type: r.type, name: r.name, key: inst.key };
          const info: StateRequest.Result['resources'][number] = {
            address: instanceAddrString(addr),
            module: m.addr,
            mode: r.mode,
            type: r.type,
            name: r.name,
            provider: r.provider,
            attributes: redactSensitive(attrs, o.sensitivePaths) as Record<string, unknown>,
          };
          if (inst.key !== undefined) info.key = instanceKeyString(inst.key);
          if (o.status === 'tainted') info.tainted = true;
          if (dk) info.deposed = dk;
          result.resources.push(info);
        }
      }
    }
  }
  for (const [name, o] of state.outputs) {
    result.outputs[name] = { value: o.sensitive ? '(sensitive value)' : displayJSON(outputValue(o)), sensitive: o.sensitive };
  }
  return result;
}

export async function workspaces(dir: string, select?: string): Promise<WorkspacesRequest.Result> {
  const b = localBackend(workerIO(dir));
  const all = await b.workspaces();
  if (select !== undefined) {
    if (!all.includes(select)) throw new Refusal(`Workspace "${select}" doesn't exist.`);
    b.selectWorkspace(select);
  }
  return { current: b.currentWorkspace(), workspaces: all };
}

/** A value as JSON for the diff editor: unknown and sensitive values as Terraform words them. */
export function displayJSON(v: Value): unknown {
  if (v.marks.has('sensitive')) return '(sensitive value)';
  if (!v.isKnown) return '(known after apply)';
  if (v.isNull) return null;
  switch (v.type.kind) {
    case 'string':
      return v.str;
    case 'number': {
      const n = Number(v.num.toString());
      return Number.isSafeInteger(n) || String(n) === v.num.toString() ? n : v.num.toString();
    }
    case 'bool':
      return v.bool;
    case 'list':
    case 'set':
    case 'tuple':
      return v.elems.map(displayJSON);
    case 'map':
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const k of [...v.entries.keys()].sort()) o[k] = displayJSON(v.entries.get(k)!);
      return o;
    }
    default:
      return String(v);
  }
}

export function plannedDiff(dir: string, address: string, runId?: string): PlannedDiffRequest.Result {
  const source = runId !== undefined ? runPlans.get(runId) : lastPreview.get(dir);
  if (!source) throw new Refusal(runId !== undefined ? `No plan of run ${runId} is available.` : `No preview of ${dir} is available yet.`);
  const c = source.plan.changes.find((x) => !x.deposedKey && instanceAddrString(x.addr) === address) ?? source.plan.changes.find((x) => instanceAddrString(x.addr).startsWith(address));
  if (!c) throw new Refusal(`The plan has no change for ${address}.`);
  return {
    address: instanceAddrString(c.addr),
    action: plannedAction(c.action),
    prior: JSON.stringify(displayJSON(c.before), null, 2),
    planned: JSON.stringify(displayJSON(c.after), null, 2),
    rendered: renderResourceChange(source.plan, c, false),
  };
}

// ---- previews beside the analysis ----------------------------------------------------------------------------

/** What the analysis worker answers for the previews (Engine.preview): plans, their lazy hovers, planned diffs. */
export type PreviewCall =
  | { kind: 'preview'; dir: string; overlays: [string, string][]; settings: PreviewSettings; drift?: DriftInfo[]; present?: string[]; base?: number }
  | { kind: 'files'; previewId: number; paths: string[] }
  | { kind: 'hover'; previewId: number; block: string[] }
  | { kind: 'diff'; dir: string; address: string };

/**
 * Answers a PreviewCall; `shared(dir)` gives the directory's analysis cache and budget when there is one. A
 * refusal (Refusal) is thrown as in the preview worker.
 */
export async function answerPreviewCall(call: PreviewCall, shared: (dir: string) => SharedAnalysis | undefined): Promise<unknown> {
  await initParser();
  switch (call.kind) {
    case 'preview':
      return makePreview(call.dir, new Map(call.overlays), call.settings, call.drift, shared(call.dir), call.present, call.base);
    case 'files':
      return previewFiles(call.previewId, call.paths);
    case 'hover':
      return previewHover(call.previewId, call.block);
    case 'diff':
      return plannedDiff(call.dir, call.address);
  }
}

// ---- the worker loop -----------------------------------------------------------------------------------------

/** Worker side: answers WorkerRequests until the thread is terminated. */
export function servePreview(): void {
  const port = parentPort;
  if (!port) throw new Error('servePreview must run in a worker thread');
  installWorkerProviders(); // plans reach the workspace's provider binaries through one pool (../providers.ts)
  const ready = initParser();
  const post = (m: WorkerMessage) => port.postMessage(m);
  port.on('message', (req: WorkerRequest) => {
    void (async () => {
      try {
        await ready;
        let result: unknown;
        switch (req.kind) {
          case 'preview':
            result = await makePreview(req.dir, new Map(req.overlays), req.settings, req.drift, undefined, req.present, req.base);
            break;
          case 'files':
            result = previewFiles(req.previewId, req.paths);
            break;
          case 'run':
            result = await run(req.runId, req.verb, req.options, req.settings, req.planFile, (params) => post({ event: 'progress', params }));
            break;
          case 'cancel':
            result = cancel(req.runId);
            break;
          case 'state':
            result = await readState(req.dir);
            break;
          case 'workspaces':
            result = await workspaces(req.dir, req.select);
            break;
          case 'diff':
            result = plannedDiff(req.dir, req.address, req.runId);
            break;
          case 'hover':
            result = previewHover(req.previewId, req.block);
            break;
        }
        post({ id: req.id, result });
      } catch (e) {
        post({ id: req.id, error: failureText(e) });
      }
    })();
  });
}
