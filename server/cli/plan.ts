// `foresight plan` and the operation machinery shared with apply, destroy and refresh (Terraform's
// command/plan.go, apply.go, refresh.go over backend/local's opPlan/opApply/opRefresh).
//
// Flow of an operation: parse flags (Go flag rules, -var/-var-file/-target/-replace repeatable) -> load and
// validate the configuration (errors here print without "Planning failed.") -> lock and read the state of
// the selected workspace -> plan through the engine with progress hooks -> render (views in
// server/command/views) -> for apply: approval prompt, apply walk, state persisted, summary and outputs.
//
// Contracts: exit status 0 success, 1 error, 2 for `plan -detailed-exitcode` with changes; every byte written
// matches terraform 1.11.4 for the supported paths. The state is never written by plan; the lock is always
// released before returning.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { validateDirectory, type ValidateResult } from '../config/validate';
import type { FileCache } from '../config/load';
import { checkModulesInstalled, readModuleManifest } from '../depsfile/modules';
import { collectVariableValues, compactValueStr, parseVariableValues, splitVarFlags } from '../config/variables';
import type { Module } from '../config/model';
import { rawEquals } from '../lang/value';
import { error, hasErrors, warning, type Diagnostic } from '../diags/diagnostic';
import { renderDiagnosticsView, type RenderOptions } from '../diags/render';
import { apply as engineApply, plan as enginePlan, resourceSchemaDiagnostics } from '../engine';
import type { Plan, PlanMode } from '../plans/plan';
import type { Hooks } from '../engine/hooks';
import { referenceErrorSkip } from '../engine/validate';
import { hasChanges } from '../plans/plan';
import { startBuiltinProvider } from '../providers/builtin';
import { externalProvider, preferDevOverride } from '../plugin/client/factory';
import { devOverrideWarnings } from '../plugin/discovery';
import type { Provider } from '../providers/provider';
import { State } from '../states/state';
import { TERRAFORM_VERSION as STATE_TF_VERSION, writeStateFile } from '../states/statefile';
import type { FilesystemStateManager } from '../backends/local/filesystem';
import { backendErrorDiagnostics } from '../backends/registry';
import { helpText } from './help/index';
import { parseInstance as parseInstanceAddr, parseTarget as parseTargetAddr } from './state/addr';
import { goQuote } from '../lang/goquote';
import type { CliIO } from './io';
import { colorize, localBackend, makeUi, parseFlags, unlockState, type FlagKind } from './state/meta';
import { newLockInfo } from '../backends/local/filesystem';
import { acquireLock } from '../states/statemgr';
import { HumanView, JsonView, type OperationView } from '../command/views/operation';
import { readPlanFile, writePlanFile, isPlanFile } from '../plans/planfile';
import { setPlanShower } from './show';
import { showPlanFile } from '../command/views/show';

export type Verb = 'plan' | 'apply' | 'destroy' | 'refresh';

/**
 * Errors Terraform reports before Core's plan walk (variable collection, static validation of moved/removed
 * blocks): with only these, no "Planning failed." banner is printed.
 */
const VALIDATE_TIME_ERRORS = new Set([
  'No value for required variable',
  'Value for undeclared variable',
  'Failed to read variables file',
  'Invalid -var option',
  'Redundant move statement',
  'Removed resource still exists',
  'Moved object still exists',
  'Ambiguous move statements',
  'Cross-package move statement',
  'Output refers to sensitive values',
  'Unsupported block type',
  'Unsupported argument',
  'Missing required argument',
]);

export interface OperationArgs {
  verb: Verb;
  color: boolean;
  json: boolean;
  input: boolean;
  autoApprove: boolean;
  lock: boolean;
  lockTimeoutMs: number;
  parallelism: number;
  refresh: boolean;
  mode: PlanMode;
  detailedExitcode: boolean;
  out?: string;
  statePath: string;
  stateOutPath: string;
  backupPath: string;
  targets: string[];
  replace: string[];
  vars: { flag: '-var' | '-var-file'; value: string }[];
  planFile?: string;
  /** Cancellation of the plan and apply walks (the language server's runs; the CLI's interrupts, cli/apply.ts). */
  signal?: AbortSignal;
  /** As `terraform apply`: a stop does not reach the plan walk of plan-and-apply; the operation ends after it. */
  applyStopOnly?: boolean;
}

/**
 * What an in-process caller (the language server's runs, server/lsp/preview) adds to an operation: extra
 * progress hooks around the view's, a cancellation signal, and the plan and diagnostics as the view gets them.
 */
export interface OperationExtensions {
  wrapHooks?(viewHooks: Hooks): Hooks;
  signal?: AbortSignal;
  /** See OperationArgs.applyStopOnly (the CLI's apply and destroy). */
  applyStopOnly?: boolean;
  onPlan?(plan: Plan): void;
  onDiagnostics?(diags: readonly Diagnostic[]): void;
}

function extendView(view: OperationView, ext: OperationExtensions): OperationView {
  const extra: Partial<OperationView> = {
    hooks: () => (ext.wrapHooks ? ext.wrapHooks(view.hooks()) : view.hooks()),
    plan: (plan, mode) => {
      ext.onPlan?.(plan);
      view.plan(plan, mode);
    },
    diagnostics: (diags, render) => {
      ext.onDiagnostics?.(diags);
      view.diagnostics(diags, render);
    },
  };
  // Every other method runs on the view itself (its `this`), untouched.
  return new Proxy(view, {
    get: (t, k) => {
      if (typeof k === 'string' && k in extra) return extra[k as keyof OperationView];
      const x = Reflect.get(t, k, t) as unknown;
      return typeof x === 'function' ? (x as (...a: unknown[]) => unknown).bind(t) : x;
    },
  });
}

const FLAGS: Record<Verb, Record<string, FlagKind>> = {
  plan: {
    destroy: 'bool', 'refresh-only': 'bool', refresh: 'bool', input: 'bool', lock: 'bool', 'lock-timeout': 'duration', parallelism: 'int',
    'compact-warnings': 'bool', 'detailed-exitcode': 'bool', json: 'bool', out: 'string', state: 'string', 'generate-config-out': 'string',
  },
  apply: {
    destroy: 'bool', 'refresh-only': 'bool', refresh: 'bool', input: 'bool', lock: 'bool', 'lock-timeout': 'duration', parallelism: 'int',
    'compact-warnings': 'bool', json: 'bool', state: 'string', 'state-out': 'string', backup: 'string', 'auto-approve': 'bool',
  },
  destroy: {
    refresh: 'bool', input: 'bool', lock: 'bool', 'lock-timeout': 'duration', parallelism: 'int', 'compact-warnings': 'bool', json: 'bool',
    state: 'string', 'state-out': 'string', backup: 'string', 'auto-approve': 'bool',
  },
  refresh: { input: 'bool', lock: 'bool', 'lock-timeout': 'duration', parallelism: 'int', 'compact-warnings': 'bool', json: 'bool', state: 'string', 'state-out': 'string', backup: 'string' },
};

/** Pulls repeatable `-name=v` / `-name v` flags out of the argument list. */
function takeMulti(args: string[], name: string): { values: string[]; rest: string[] } {
  const values: string[] = [];
  const rest: string[] = [];
  const re = new RegExp(`^--?${name}(?:=(.*))?$`, 's');
  for (let i = 0; i < args.length; i++) {
    const m = re.exec(args[i]);
    if (!m) {
      rest.push(args[i]);
      continue;
    }
    if (m[1] !== undefined) values.push(m[1]);
    else if (i + 1 < args.length) values.push(args[++i]);
    else rest.push(args[i]);
  }
  return { values, rest };
}

export function parseOperationArgs(verb: Verb, raw: string[]): { args?: OperationArgs; diags: Diagnostic[] } {
  const noColor = raw.filter((a) => a !== '-no-color');
  const color = noColor.length === raw.length;
  const v = splitVarFlags(noColor);
  const t = takeMulti(v.rest, 'target');
  const r = verb === 'refresh' || verb === 'destroy' ? { values: [], rest: t.rest } : takeMulti(t.rest, 'replace');
  const f = parseFlags(r.rest, FLAGS[verb]);
  if (f.error) return { diags: [error('Failed to parse command-line flags', f.error)] };
  const g = <T>(k: string, d: T): T => (f.values.has(k) ? (f.values.get(k) as unknown as T) : d);
  let mode: PlanMode = verb === 'destroy' ? 'destroy' : 'normal';
  if (g('destroy', false)) mode = 'destroy';
  if (g('refresh-only', false)) mode = 'refresh-only';
  if (verb === 'refresh') mode = 'refresh-only';
  const diags: Diagnostic[] = [];
  if (g('destroy', false) && g('refresh-only', false)) diags.push(error('Incompatible plan mode options', 'The -destroy and -refresh-only options are mutually-exclusive.'));
  // terraform.NewContext: 0 means the default, a negative value is an error reported when the operation starts.
  const par = g<number>('parallelism', 10);
  const args: OperationArgs = {
    verb,
    color: color && !g('json', false),
    json: g('json', false),
    input: g('input', true),
    autoApprove: g('auto-approve', false),
    lock: g('lock', true),
    lockTimeoutMs: g('lock-timeout', 0),
    parallelism: par === 0 ? 10 : par,
    refresh: g('refresh', true),
    mode,
    detailedExitcode: g('detailed-exitcode', false),
    // An empty -out is no -out, as Terraform's OutPath "".
    out: f.values.has('out') && f.values.get('out') !== '' ? String(f.values.get('out')) : undefined,
    statePath: g('state', ''),
    stateOutPath: g('state-out', ''),
    backupPath: g('backup', ''),
    targets: t.values,
    replace: r.values,
    vars: v.vars,
  };
  if (verb === 'apply' && f.args.length > 0) {
    if (f.args.length > 1) diags.push(error('Too many command line arguments', 'Expected at most one positional argument.'));
    args.planFile = f.args[0];
  } else if (f.args.length > 0) {
    diags.push(error('Too many command line arguments', 'To specify a working directory for the plan, use the global -chdir flag.'));
  }
  if (args.statePath !== '')
    diags.unshift(
      warning('Deprecated flag: -state', 'Use `path` attribute within the `local` backend instead: https://developer.hashicorp.com/terraform/language/v1.10.x/settings/backends/local#path'),
    );
  diags.push(...targetArgDiagnostics(t.values, r.values));
  return { args, diags };
}

/**
 * arguments.Operation.Parse: each -target must be a target address and each -replace a managed resource instance,
 * else a usage error naming the flag's text (the engine's own parse then never sees a bad one).
 */
function targetArgDiagnostics(targets: readonly string[], replace: readonly string[]): Diagnostic[] {
  const diags: Diagnostic[] = [];
  for (const t of targets) {
    const r = parseTargetAddr(t);
    if (!r.target) diags.push(error(`Invalid target ${goQuote(t)}`, r.diags[0]?.detail ?? ''));
  }
  for (const t of replace) {
    const r = parseInstanceAddr(t);
    if (!r.addr) diags.push(error(`Invalid force-replace address ${goQuote(t)}`, r.diags[0]?.detail ?? ''));
    else if (r.addr.mode !== 'managed') diags.push(error(`Invalid force-replace address ${goQuote(t)}`, 'Only managed resources can be used with the -replace=... option.'));
  }
  return diags;
}

/**
 * The providers this build has: the built-in ones, started fresh per request; with `io`, any other address is a
 * provider binary of the working directory (server/plugin/client/factory.ts: lock file, .terraform/providers,
 * dev_overrides), run out of process.
 */
export function providerFactory(io?: { cwd: string; env?: Readonly<Record<string, string | undefined>> }): (fqn: string) => Provider | undefined {
  const cache = new Map<string, Provider | undefined>();
  return (fqn) => {
    if (!cache.has(fqn)) {
      const builtin = startBuiltinProvider(fqn, io ? { workingDir: io.cwd } : {});
      const external = io && !fqn.startsWith('terraform.io/builtin/') ? () => externalProvider({ workDir: io.cwd, env: io.env, fqn }) : undefined;
      // A dev_overrides entry for a built-in provider's address wins, as Terraform runs the overriding binary.
      cache.set(fqn, builtin && external ? preferDevOverride(builtin, external, io!.cwd, fqn, io!.env) : builtin ?? external?.());
    }
    return cache.get(fqn);
  };
}

/**
 * The factory's providers get StopProvider when `signal` aborts, as Terraform's Context.Stop (watchStop) tells
 * every provider of the walk to stop its in-flight operations on the first interrupt.
 */
function stoppable(f: (fqn: string) => Provider | undefined, signal: AbortSignal | undefined): (fqn: string) => Provider | undefined {
  if (!signal) return f;
  const started = new Set<Provider>();
  signal.addEventListener('abort', () => {
    for (const p of started) void p.stopProvider().catch(() => undefined);
  }, { once: true });
  return (fqn) => {
    const p = f(fqn);
    if (p && !started.has(p)) {
      started.add(p);
      if (signal.aborted) void p.stopProvider().catch(() => undefined);
    }
    return p;
  };
}

export interface LoadedConfig {
  module: Module;
  render: RenderOptions;
  diags: Diagnostic[];
}

/**
 * Loads the configuration as plan/apply do; `overlays` (absolute path → text) replace files on disk (the editor's
 * unsaved texts) and `cache` keeps per-file parse results between loads (the language server's preview, which shares
 * its analysis's cache and so passes that analysis's per-file parse budget `budgetMs`: entries are kept per budget).
 */
export async function loadConfig(
  io: CliIO,
  color: boolean,
  overlays?: Map<string, string>,
  cache?: FileCache,
  budgetMs?: number,
  /** validateDirectory's result for these overlays, cache and budget when the caller has it (the editor's analysis). */
  validated?: ValidateResult,
): Promise<LoadedConfig | { diags: Diagnostic[]; render: RenderOptions }> {
  const res = validated ?? (await validateDirectory(io.cwd, overlays || cache ? { overlays, cache, budgetMs } : undefined));
  const render: RenderOptions = { color, sources: res.sources, contextOf: (r) => res.contextOf(r) };
  if (res.module && !hasErrors(res.diagnostics)) {
    // Like every command but init/get: local module calls must be recorded by `init`.
    const missing = checkModulesInstalled(res.module, readModuleManifest(io.cwd, io.env));
    if (hasErrors(missing)) return { diags: missing, render };
  }
  if (res.module && res.walkErrorsOnly) {
    // Terraform's validate walk also decodes resource bodies with the provider schemas; its diagnostics are
    // shown sorted (tfdiags' Sort: warnings first, then by file and position).
    // EvaluateBlock stops at reference errors in a body, before decoding it: those resources are left out.
    const all = [...res.diagnostics, ...(await resourceSchemaDiagnostics(res.module, providerFactory(io), referenceErrorSkip(res.diagnostics)))];
    const rank = (d: Diagnostic) => (d.severity === 'error' ? 1 : 0);
    all.sort((x, y) => {
      if (rank(x) !== rank(y)) return rank(x) - rank(y);
      if (!x.subject || !y.subject) return (x.subject ? 1 : 0) - (y.subject ? 1 : 0);
      if (x.subject.filename !== y.subject.filename) return x.subject.filename < y.subject.filename ? -1 : 1;
      return x.subject.start.byte - y.subject.start.byte;
    });
    return { diags: all, render };
  }
  if (hasErrors(res.diagnostics) || !res.module) return { diags: res.diagnostics, render };
  return { module: res.module, render, diags: res.diagnostics };
}

function printUsageError(verb: Verb, diags: Diagnostic[], color: boolean, io: CliIO): number {
  // As the human view: warnings on stdout, errors on stderr.
  const warnings = diags.filter((d) => d.severity === 'warning');
  if (warnings.length) io.stdout(renderDiagnosticsView(warnings, { color }));
  io.stderr(renderDiagnosticsView(diags.filter((d) => d.severity !== 'warning'), { color }));
  io.stderr(`\nFor more help on using this command, run:\n  terraform ${verb} -help\n`);
  return 1;
}

/** Reads the approval answer (one line of stdin); undefined at EOF. */
async function readAnswer(io: CliIO): Promise<string | undefined> {
  const all = await io.stdin();
  if (all === '') return undefined;
  const nl = all.indexOf('\n');
  if (nl < 0) return undefined;
  return all.slice(0, nl).replace(/\r$/, '');
}

/** clistate locking with the failure shown through the operation's view (not the old Ui). */
async function lockForView(mgr: FilesystemStateManager, op: string, a: OperationArgs, io: CliIO, view: OperationView): Promise<string | undefined> {
  const r = await acquireLock(mgr, newLockInfo(op), a.lockTimeoutMs, () => {
    if (!a.json) io.stdout(colorize('[reset][bold]Acquiring state lock. This may take a few moments...', a.color) + '\n');
  });
  if (r.id === undefined) {
    view.diagnostics(r.diags, { color: a.color });
    return undefined;
  }
  return r.id;
}

function hasConfigFiles(dir: string): boolean {
  try {
    return readdirSync(dir).some((f) => (f.endsWith('.tf') || f.endsWith('.tf.json')) && !f.startsWith('.'));
  } catch {
    return false;
  }
}

/** The "No configuration files" error of plan/apply (not for destroy mode). */
function noConfigDiag(verb: Verb): Diagnostic {
  if (verb === 'plan')
    return error(
      'No configuration files',
      'Plan requires configuration to be present. Planning without a configuration would mark everything for destruction, which is normally not what is desired. If you would like to destroy everything, run plan with the -destroy option. Otherwise, create a Terraform configuration file (.tf file) and try again.',
    );
  return error(
    'No configuration files',
    "Apply requires configuration to be present. Applying without a configuration would mark everything for destruction, which is normally not what is desired. If you would like to destroy everything, run 'terraform destroy' instead.",
  );
}

export async function runOperation(verb: Verb, raw: string[], io: CliIO, ext?: OperationExtensions): Promise<number> {
  if (raw.some((a) => a === '-help' || a === '-h' || a === '--help')) {
    io.stdout(helpText(verb));
    return 0;
  }
  const p = parseOperationArgs(verb, raw);
  const color = raw.every((a) => a !== '-no-color');
  if (p.args?.json && hasErrors(p.diags)) {
    // The JSON view: its version message, then the diagnostics (its help prompt prints nothing).
    const jv = new JsonView(io, verb);
    jv.start();
    jv.diagnostics(p.diags, { color: false });
    return 1;
  }
  if (!p.args || hasErrors(p.diags)) return printUsageError(verb, p.diags, color && !raw.includes('-json'), io);
  const a = p.args;
  a.signal = ext?.signal;
  a.applyStopOnly = ext?.applyStopOnly;
  const baseView: OperationView = a.json ? new JsonView(io, verb) : new HumanView(io, a.color, verb);
  const view = ext ? extendView(baseView, ext) : baseView;
  view.start();

  // A saved plan (apply PLANFILE).
  if (a.planFile !== undefined) return applySavedPlan(a, view, io);

  if ((verb === 'plan' || verb === 'apply') && a.mode === 'normal' && !hasConfigFiles(io.cwd)) {
    view.diagnostics([noConfigDiag(verb)], { color: a.color });
    return 1;
  }
  const cfg = await loadConfig(io, a.color);
  // The argument parser's warnings (-state is deprecated) come first, then the dev_overrides warnings: Terraform
  // shows them together before the operation, or with the error that stops it.
  const argWarnings = p.diags.filter((d) => d.severity === 'warning');
  const dev = [...argWarnings, ...(verb === 'refresh' ? [] : await devOverrideWarnings(io.cwd, io.env))];
  if (!('module' in cfg)) {
    view.diagnostics([...dev, ...cfg.diags], cfg.render);
    return 1;
  }
  const b = localBackend(io, { statePath: a.statePath || undefined, backupPath: a.backupPath || undefined }, cfg.module);
  if (a.stateOutPath) (b as unknown as { opts: { stateOutPath: string } }).opts.stateOutPath = a.stateOutPath;
  const ws = b.currentWorkspace();
  let mgr: FilesystemStateManager;
  try {
    mgr = await b.stateMgr(ws);
  } catch (e) {
    view.diagnostics([...dev, ...backendErrorDiagnostics(e)], { color: a.color });
    return 1;
  }
  // plan.go / apply.go: the warnings gathered before the operation (dev_overrides in effect) are shown before it.
  if (dev.length) view.diagnostics(dev, { color: a.color });
  if (a.parallelism < 0) {
    view.diagnostics([error('Invalid parallelism value', `The parallelism must be a positive value. Not ${a.parallelism}.`)], { color: a.color });
    return 1;
  }
  const ui = makeUi(io, a.color);
  const opName = verb === 'plan' ? 'OperationTypePlan' : verb === 'refresh' ? 'OperationTypeRefresh' : 'OperationTypeApply';
  let lockId: string | undefined;
  if (a.lock) {
    lockId = await lockForView(mgr, opName, a, io, view);
    if (lockId === undefined) return 1;
  }
  try {
    return await operate(a, cfg, mgr, ws, view, io);
  } finally {
    if (lockId !== undefined) await unlockState(mgr, lockId, ui);
  }
}

async function operate(a: OperationArgs, cfg: LoadedConfig, mgr: FilesystemStateManager, ws: string, view: OperationView, io: CliIO): Promise<number> {
  const rd = await mgr.refresh();
  if (hasErrors(rd)) {
    view.diagnostics(rd, cfg.render);
    return 1;
  }
  const state = mgr.read() ?? new State();
  const collected = await collectVariableValues(io.cwd, a.vars, io.env);
  const varDiags = [...collected.diagnostics];
  const render: RenderOptions = { ...cfg.render, sources: new Map([...(cfg.render.sources ?? []), ...collected.sources]) };
  if (hasErrors(collected.diagnostics)) {
    // Meta.collectVariableValues: a variables file that cannot be read or parsed ends the command before any plan.
    view.diagnostics(collected.diagnostics, render);
    return 1;
  }
  const parsed = parseVariableValues(collected.raw, cfg.module);
  varDiags.push(...parsed.diagnostics);

  if (a.verb === 'refresh' && state.empty()) {
    // Terraform warns and stops when there is nothing to refresh.
  }

  const providers = stoppable(providerFactory(io), a.applyStopOnly && a.verb !== 'plan' ? undefined : a.signal);
  // Warnings of the state read (a journal replayed by the backend: "State recovered from journal") are shown with
  // the plan's, for plan, apply and destroy alike (terraform has no journal, so no analogue).
  const warnings = [...cfg.diags.filter((d) => d.severity !== 'error'), ...rd];
  let planResult: { plan: Plan; diagnostics: Diagnostic[] } | undefined;
  if (!hasErrors(varDiags)) {
    planResult = await enginePlan({
      config: cfg.module,
      state,
      providers,
      inputs: parsed.values,
      mode: a.mode,
      refresh: a.refresh,
      targets: a.targets,
      forceReplace: a.replace,
      parallelism: a.parallelism,
      cwd: io.cwd,
      workspace: ws,
      hooks: view.hooks(),
      signal: a.applyStopOnly && a.verb !== 'plan' ? undefined : a.signal,
    });
  }
  const diags = [...warnings, ...varDiags, ...(planResult?.diagnostics ?? [])];
  if (!planResult || hasErrors(diags)) {
    // backend_apply.go renders an errored plan only when it holds changes (NoOp included); backend_plan.go always.
    const shown = a.verb === 'plan' || a.verb === 'refresh' || (planResult?.plan !== undefined && (planResult.plan.changes.length > 0 || planResult.plan.outputs.length > 0));
    // A graph-build error ("missing provider ...") leaves Terraform's Core.Plan without a plan to report either.
    if (shown && hasErrors(diags.filter((d) => !VALIDATE_TIME_ERRORS.has(d.summary) && !d.summary.startsWith('missing provider ')))) view.planFailed(planResult?.plan, a.mode);
    view.diagnostics(diags, render);
    return 1;
  }
  const plan = planResult.plan;

  if (a.verb === 'refresh') {
    if (!state.hasManagedResourceInstanceObjects()) {
      diags.push(warning('Empty or non-existent state', 'There are currently no remote objects tracked in the state, so there is nothing to refresh.'));
    }
    mgr.write(plan.priorState);
    const pd = await mgr.persist();
    if (hasErrors(pd)) {
      view.diagnostics(pd, render);
      return 1;
    }
    view.diagnostics(diags, render);
    view.outputs(plan.priorState);
    return 0;
  }

  view.plan(plan, a.mode);
  if (a.verb === 'plan') {
    view.diagnostics(diags, render);
    if (a.out !== undefined) {
      const err = writePlanFile(isAbsolute(a.out) ? a.out : join(io.cwd, a.out), plan, { config: cfg.module, cwd: io.cwd, stateMeta: mgr.meta(), prevMeta: mgr.meta() });
      if (err) {
        view.diagnostics([error('Failed to write plan file', err)], render);
        return 1;
      }
      // As backend_plan.go: the next-step note (or "Saved the plan to") only for an applyable plan.
      if (plan.applyable) view.savedPlan(a.out);
    } else if (plan.applyable) view.planNextStep();
    if (a.detailedExitcode && hasChanges(plan)) return 2;
    return 0;
  }

  // apply / destroy. Plan warnings are shown before the prompt; check-block results are reported by the
  // apply walk instead (Terraform re-evaluates checks during apply and reports them once).
  let planWarnings = diags.filter((d) => !/^Check block assertion/.test(d.summary));
  if (a.applyStopOnly && a.signal?.aborted) {
    // backend_apply.go: stopped while planning; the plan was shown, the operation ends before the prompt.
    view.diagnostics([...diags, { ...error('execution halted'), sourceless: true }], render);
    return 1;
  }
  const trivial = !hasChanges(plan);
  if (!a.autoApprove && !trivial) {
    // Warnings are shown before the prompt only when asking (backend_apply.go); otherwise after the apply.
    view.diagnostics(planWarnings, render);
    planWarnings = [];
    view.prompt(a.mode, ws);
    const ans = await readAnswer(io);
    if (ans === undefined) {
      view.diagnostics([error('error asking for approval: EOF')], render);
      return 1;
    }
    view.answered();
    if (ans !== 'yes') {
      view.cancelled(a.mode);
      return 1;
    }
  }
  return doApply(plan, cfg.module, mgr, ws, view, io, a, planWarnings, render);
}

async function doApply(
  plan: Plan,
  config: Module,
  mgr: FilesystemStateManager,
  ws: string,
  view: OperationView,
  io: CliIO,
  a: OperationArgs,
  planDiags: Diagnostic[],
  render: RenderOptions,
): Promise<number> {
  const listener = mgr.journalListener(plan.priorState);
  const res = await engineApply(plan, { config, providers: stoppable(providerFactory(io), a.signal), cwd: io.cwd, workspace: ws, parallelism: a.parallelism, hooks: view.hooks(), listener, signal: a.signal });
  mgr.write(res.state);
  const pd = await mgr.persist();
  const diags = [...planDiags, ...res.diagnostics, ...pd];
  if (hasErrors(pd)) {
    // backend_apply.go: the final save failed; keep the applied state in errored.tfstate (the manager's lineage and
    // serial, res.state) and stop, whatever the backend.
    diags.push(...backupStateForError(res.state, mgr.meta(), io));
    view.diagnostics(diags, render);
    return 1;
  }
  if (plan.targets.length > 0) {
    diags.push(
      warning(
        'Applied changes may be incomplete',
        'The plan was created with the -target option in effect, so some changes requested in the configuration may have been ignored and the output values may not be fully updated. Run the following command to verify that no other changes are pending:\n    terraform plan\n\nNote that the -target option is not suitable for routine use, and is provided only for exceptional situations such as recovering from errors or mistakes, or when Terraform specifically suggests to use it as part of an error message.',
      ),
    );
  }
  if (hasErrors(diags)) {
    view.diagnostics(diags, render);
    return 1;
  }
  view.diagnostics(diags, render);
  // The summary follows the verb (a saved destroy plan applied with `apply` says "Apply complete!").
  view.applySummary(a.verb === 'destroy' ? 'destroy' : 'normal', a.stateOutPath);
  if (a.verb !== 'destroy') view.outputs(res.state);
  return 0;
}

/** Local.backupStateForError after "Failed to save state": errored.tfstate in the working directory, else the state dumped on stderr. */
function backupStateForError(state: State, meta: { serial: number; lineage: string }, io: CliIO): Diagnostic[] {
  const text = writeStateFile({ terraformVersion: STATE_TF_VERSION, serial: meta.serial, lineage: meta.lineage, state });
  try {
    writeFileSync(join(io.cwd, 'errored.tfstate'), text, { mode: 0o666 });
  } catch (e) {
    io.stderr(text);
    return [
      error('Failed to create local state file', `Error creating local state file for recovery: ${(e as Error).message}`),
      error('Failed to persist state to backend', STATE_WRITE_CONSOLE_FALLBACK),
    ];
  }
  return [error('Failed to persist state to backend', STATE_WRITE_BACKED_UP)];
}

const STATE_WRITE_BACKED_UP = `The error shown above has prevented Terraform from writing the updated state to the configured backend. To allow for recovery, the state has been written to the file "errored.tfstate" in the current working directory.

Running "terraform apply" again at this point will create a forked state, making it harder to recover.

To retry writing this state, use the following command:
    terraform state push errored.tfstate
`;
const STATE_WRITE_CONSOLE_FALLBACK = `The errors shown above prevented Terraform from writing the updated state to
the configured backend and from creating a local backup file. As a fallback,
the raw state data is printed above as a JSON object.

To retry writing this state, copy the state data (from the first { to the last } inclusive) and save it into a local file called errored.tfstate, then run the following command:
    terraform state push errored.tfstate
`;

const SOURCE_LABEL: Record<string, string> = {
  'auto-file': 'set by an automatically loaded .tfvars file',
  'named-file': 'set by a .tfvars file passed through -var-file argument',
  cli: 'set by a CLI argument',
  env: 'set by an environment variable',
};

/**
 * backend_apply.go with a saved plan: the variables given now (-var, -var-file, tfvars files, TF_VAR_) against the
 * ones the plan recorded as set. A different value is an error from -var/-var-file, a warning from the environment,
 * and ignored from an automatically loaded file; a variable the plan did not record is judged as an undeclared one.
 */
async function savedPlanVariableDiagnostics(plan: Plan, module: Module, vars: OperationArgs['vars'], io: CliIO): Promise<{ diags: Diagnostic[]; sources: ReadonlyMap<string, string> }> {
  if (!plan.setVariables) return { diags: [], sources: new Map() }; // a plan file of an earlier build: nothing to compare with
  const collected = await collectVariableValues(io.cwd, vars, io.env ?? process.env);
  const parsed = parseVariableValues(collected.raw, module);
  const out: Diagnostic[] = [];
  const undeclared = new Map([...collected.raw].filter(([k]) => !module.variables.has(k)));
  for (const [name, iv] of parsed.values) {
    if (iv.value === undefined || !module.variables.has(name)) continue;
    const planned = plan.setVariables.get(name);
    if (!planned) {
      undeclared.set(name, collected.raw.get(name)!);
      continue;
    }
    const [given] = iv.value.unmarkDeep();
    const [was] = planned.unmarkDeep();
    if (rawEquals(given, was)) continue;
    const detail = (what: string) =>
      `The variable ${name} ${what}, because a saved plan includes the variable values that were set when it was created. The saved plan specifies ${compactValueStr(was)} as the value whereas during apply the value ${compactValueStr(given)} was ${SOURCE_LABEL[iv.source] ?? 'unknown'}. To declare an ephemeral variable which is not saved in the plan file, use ephemeral = true.`;
    if (iv.source === 'env') out.push(warning('Ignoring variable when applying a saved plan', detail('cannot be overriden when applying a saved plan file'), iv.range));
    else if (iv.source === 'cli' || iv.source === 'named-file')
      out.push(error("Can't change variable when applying a saved plan", detail('cannot be set using the -var and -var-file options when applying a saved plan file'), iv.range));
  }
  if (undeclared.size) {
    // ParseUndeclaredVariableValues against no declarations at all.
    const none: Module = { ...module, variables: new Map() };
    out.push(...parseVariableValues(undeclared, none).diagnostics);
  }
  return { diags: out, sources: collected.sources };
}

async function applySavedPlan(a: OperationArgs, view: OperationView, io: CliIO): Promise<number> {
  const path = a.planFile!;
  const abs = isAbsolute(path) ? path : join(io.cwd, path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(abs);
  } catch {
    view.diagnostics([error('Failed to load "' + path + '" as a plan file', `Error: stat ${path}: no such file or directory`)], { color: a.color });
    return 1;
  }
  if (!isPlanFile(bytes)) {
    view.diagnostics([error('Failed to load "' + path + '" as a plan file', `Error: zip: not a valid zip file`)], { color: a.color });
    return 1;
  }
  const pf = await readPlanFile(bytes, io.cwd, providerFactory(io));
  if ('error' in pf) {
    view.diagnostics([error('Failed to read plan from plan file', pf.error)], { color: a.color });
    return 1;
  }
  const cfg = await loadConfig(io, a.color);
  const render = cfg.render;
  const module = pf.config;
  const b = localBackend(io, { statePath: a.statePath || undefined, backupPath: a.backupPath || undefined }, 'module' in cfg ? cfg.module : undefined);
  const ws = b.currentWorkspace();
  let mgr: FilesystemStateManager;
  try {
    mgr = await b.stateMgr(ws);
  } catch (e) {
    view.diagnostics(backendErrorDiagnostics(e), { color: a.color });
    return 1;
  }
  const dev = await devOverrideWarnings(io.cwd, io.env);
  if (dev.length) view.diagnostics(dev, { color: a.color });
  const ui = makeUi(io, a.color);
  let lockId: string | undefined;
  if (a.lock) {
    lockId = await lockForView(mgr, 'OperationTypeApply', a, io, view);
    if (lockId === undefined) return 1;
  }
  try {
    const rd = await mgr.refresh();
    if (hasErrors(rd)) {
      view.diagnostics(rd, render);
      return 1;
    }
    const meta = mgr.meta();
    if (pf.stateMeta.lineage !== '' && meta.lineage !== '' && pf.stateMeta.lineage !== meta.lineage) {
      view.diagnostics([error('Saved plan does not match the given state', 'The given plan file can not be applied because it was created from a different state lineage.')], render);
      return 1;
    }
    if (pf.stateMeta.serial !== meta.serial || (pf.stateMeta.lineage === '' && meta.lineage !== '' && mgr.read() && !mgr.read()!.empty())) {
      view.diagnostics([error('Saved plan is stale', 'The given plan file can no longer be applied because the state was changed by another operation after the plan was created.')], render);
      return 1;
    }
    const vd = await savedPlanVariableDiagnostics(pf.plan, module, a.vars, io);
    const vrender: RenderOptions = { ...render, sources: new Map([...(render.sources ?? []), ...vd.sources]) };
    if (hasErrors(vd.diags)) {
      view.diagnostics(vd.diags, vrender);
      return 1;
    }
    // Warnings (a TF_VAR_ override ignored) are reported with the apply's result, as Terraform does.
    return await doApply(pf.plan, module, mgr, ws, view, io, { ...a, mode: pf.plan.uiMode }, vd.diags, vrender);
  } finally {
    if (lockId !== undefined) await unlockState(mgr, lockId, ui);
  }
}

export async function runPlan(args: string[], io: CliIO): Promise<number> {
  return runOperation('plan', args, io);
}

setPlanShower(async (path, bytes, opts, io) => {
  if (!isPlanFile(bytes)) return undefined;
  return showPlanFile(path, bytes, opts, io);
});

