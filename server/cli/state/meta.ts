// Shared machinery of the commands that work on state alone (state *, output, show, workspace *, force-unlock):
// Terraform's old `cli.Ui` output conventions, colorstring markup, Go `flag` package parsing, the local backend
// of the working directory and the lock/unlock dance with Terraform's messages.
//
// Contracts:
// - `Ui` writes exactly as Terraform's ColorizeUi over cli.BasicUi: every message gets a trailing newline;
//   `error` goes to stderr wrapped in [red]…[reset] (colorstring adds one more reset when anything was coloured),
//   `warn` to stderr in [yellow]; with color off the markup is stripped.
// - `parseFlags` follows Go's flag package: flags stop at the first non-flag argument or "--"; `-x`, `--x`,
//   `-x=v`, `-x v` (non-boolean); error texts are Go's.
// - Nothing here prints on its own except through the Ui it is given.

import { LocalBackend } from '../../backends/local/backend';
import { newLockInfo } from '../../backends/local/filesystem';
import { backendOpenErrors, CliBackend, type StateManager } from '../../backends/registry';
import type { FilesystemStateManager } from '../../backends/local/filesystem';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { loadModuleTree, type LoadResult } from '../../config/load';
import type { Module } from '../../config/model';
import { hasErrors, plainRange, type Diagnostic, type Range } from '../../diags/diagnostic';
import { checkCoreVersionRequirements } from '../../versions/required';
import { checkModulesInstalled, readModuleManifest } from '../../depsfile/modules';
import { renderDiagnostic } from '../../diags/render';
import { acquireLock, releaseLock } from '../../states/statemgr';
import type { CliIO } from '../io';

// ---- configuration ------------------------------------------------------------------------------------------------

/** Source texts and block contexts for rendering configuration diagnostics. */
export interface ConfigSources {
  sources: ReadonlyMap<string, string>;
  contextOf: (r: Range) => string | undefined;
}

/**
 * Loads the configuration of the working directory as Terraform's config loader does for commands that need it
 * (LoadConfig): load errors only (no validation). With `absolute`, file names in diagnostics are absolute, as
 * Meta.checkRequiredVersion reports them (it loads the working directory by its absolute path).
 */
export async function loadConfig(io: CliIO, absolute: boolean): Promise<{ res: LoadResult; diags: Diagnostic[]; src: ConfigSources }> {
  const res = await loadModuleTree(io.cwd);
  // The loader reads child modules from the module manifest, as Terraform's does (not from their directories).
  const loadDiags = res.diagnostics.filter((d) => d.summary !== 'Unreadable module directory' && d.summary !== 'Module not installed');
  const all = [...loadDiags, ...checkModulesInstalled(res.module, readModuleManifest(io.cwd, io.env))];
  const fix = (f: string) => (absolute && !isAbsolute(f) ? join(io.cwd, f) : f);
  const fixRange = (r: Range | undefined): Range | undefined => (r ? { ...plainRange(r), filename: fix(r.filename) } : r);
  const diags = all.map((d) => ({ ...d, subject: fixRange(d.subject), context: fixRange(d.context) }));
  const sources = new Map([...res.sources].map(([k, v]) => [fix(k), v]));
  const contexts = res.contexts.map((c) => ({ ...c, range: { ...plainRange(c.range), filename: fix(c.range.filename) } }));
  const contextOf = (r: Range) => {
    const off = r.start.byte - 1;
    if (off < 0) return undefined;
    for (const c of contexts) if (c.range.filename === r.filename && c.range.start.byte <= off && off < c.range.end.byte) return c.text;
    return undefined;
  };
  return { res, diags, src: { sources, contextOf } };
}

/**
 * The errors Terraform's Backend(nil) reports while reading the backend configuration: those of the root module's
 * own files (relative names), before any child module is looked at. `undefined` when there are none.
 */
export async function backendConfigErrors(io: CliIO): Promise<{ diags: Diagnostic[]; src: ConfigSources } | undefined> {
  const { res, diags, src } = await loadConfig(io, false);
  const rootFiles = new Set(res.module.files);
  const errs = diags.filter((d) => d.severity === 'error' && d.summary !== 'Module not installed' && d.summary !== 'Module source has changed' && (!d.subject || rootFiles.has(d.subject.filename)));
  if (errs.length) return { diags: errs, src };
  // Then Backend(nil) opens the backend: "Backend initialization required", a lock file with errors, a database
  // that cannot be reached. The command shows these through its own Ui or view, as Terraform does.
  const opened = await backendOpenErrors(io.cwd, io.env, res.module);
  return opened.length ? { diags: opened, src } : undefined;
}

/**
 * Meta.checkRequiredVersion: configuration load errors, else unmet required_version constraints, printed through
 * the Ui. Returns false when the command must stop (exit 1).
 */
export async function checkRequiredVersion(io: CliIO, ui: Ui): Promise<boolean> {
  const { res, diags, src } = await loadConfig(io, true);
  if (hasErrors(diags)) {
    ui.diagnostics(diags.filter((d) => d.severity === 'error'), src);
    return false;
  }
  const sourcesAbs = src.sources;
  const relRes = res;
  const vd = checkCoreVersionRequirements(relRes.module, { sources: relRes.sources }).map((d) => ({
    ...d,
    subject: d.subject && !isAbsolute(d.subject.filename) ? { ...plainRange(d.subject), filename: join(io.cwd, d.subject.filename) } : d.subject,
    context: d.context && !isAbsolute(d.context.filename) ? { ...plainRange(d.context), filename: join(io.cwd, d.context.filename) } : d.context,
  }));
  if (hasErrors(vd)) {
    ui.diagnostics(vd, { sources: sourcesAbs, contextOf: src.contextOf });
    return false;
  }
  return true;
}

// ---- colorstring ------------------------------------------------------------------------------------------------

const COLORS: Record<string, string> = {
  default: '39',
  _default_: '49',
  black: '30',
  red: '31',
  green: '32',
  yellow: '33',
  blue: '34',
  magenta: '35',
  cyan: '36',
  light_gray: '37',
  dark_gray: '90',
  light_red: '91',
  light_green: '92',
  light_yellow: '93',
  light_blue: '94',
  light_magenta: '95',
  light_cyan: '96',
  white: '97',
  _black_: '40',
  _red_: '41',
  _green_: '42',
  _yellow_: '43',
  _blue_: '44',
  _magenta_: '45',
  _cyan_: '46',
  _light_gray_: '47',
  _dark_gray_: '100',
  _light_red_: '101',
  _light_green_: '102',
  _light_yellow_: '103',
  _light_blue_: '104',
  _light_magenta_: '105',
  _light_cyan_: '106',
  _white_: '107',
  bold: '1',
  dim: '2',
  underline: '4',
  blink_slow: '5',
  blink_fast: '6',
  invert: '7',
  hidden: '8',
  reset: '0',
  reset_bold: '21',
};

/**
 * mitchellh/colorstring's Colorize.Color with Reset on: `[name]` codes become escapes (or vanish when color is
 * off); unknown bracketed words are kept; a final reset is appended when any code was replaced and color is on.
 */
export function colorize(s: string, color: boolean): string {
  let colored = false;
  const out = s.replace(/\[[a-z0-9_-]+\]/gi, (m) => {
    const code = COLORS[m.slice(1, -1)];
    if (code === undefined) return m;
    colored = true;
    return color ? `\x1b[${code}m` : '';
  });
  return colored && color ? out + '\x1b[0m' : out;
}

// ---- Ui ---------------------------------------------------------------------------------------------------------

export interface Ui {
  readonly color: boolean;
  output(msg: string): void;
  error(msg: string): void;
  warn(msg: string): void;
  /** Diagnostics as Meta.showDiagnostics prints them through the Ui (errors and warnings to stderr). */
  diagnostics(diags: readonly Diagnostic[], sources?: ConfigSources): void;
}

export function makeUi(io: CliIO, color: boolean): Ui {
  const ui: Ui = {
    color,
    output: (m) => io.stdout(m + '\n'),
    error: (m) => io.stderr(colorize(`[red]${m}[reset]`, color) + '\n'),
    // Terraform's main.go routes Ui.Warn to the output writer (stdout).
    warn: (m) => io.stdout(colorize(`[yellow]${m}[reset]`, color) + '\n'),
    diagnostics: (diags, src) => {
      for (const d of diags) {
        const opts = { sources: src?.sources, contextOf: src?.contextOf };
        const text = color ? renderDiagnostic(d, { color: true, ...opts }) : '\n' + renderDiagnostic(d, { color: false, ...opts });
        if (d.severity === 'error') ui.error(text);
        else ui.warn(text);
      }
    },
  };
  return ui;
}

/** Meta.process: removes every "-no-color" and reports whether color stays on. */
export function stripNoColor(args: readonly string[]): { args: string[]; color: boolean } {
  const rest = args.filter((a) => a !== '-no-color');
  return { args: rest, color: rest.length === args.length };
}

/** True when the arguments ask for help the way hashicorp/cli detects it (anywhere before "--"). */
export function wantsHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '-h' || a === '-help' || a === '--help') return true;
  }
  return false;
}

// ---- Go flag parsing --------------------------------------------------------------------------------------------

export type FlagKind = 'bool' | 'string' | 'duration' | 'int';
export interface FlagResult {
  values: Map<string, string | boolean | number>;
  args: string[];
  error?: string;
}

/** Go's time.ParseDuration, in milliseconds; undefined when invalid. */
export function parseGoDuration(s: string): number | undefined {
  if (s === '0') return 0;
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(s);
  if (!m || s === '' || s === '-' || s === '+') return undefined;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };
  let total = 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;
  let r: RegExpExecArray | null;
  while ((r = re.exec(s.slice(m[1].length)))) total += parseFloat(r[1]) * unit[r[2]];
  return m[1] === '-' ? -total : total;
}

function parseBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** Parses flags as Go's flag.FlagSet.Parse does with the given definitions. */
/**
 * Go's flag.Int value (strconv.ParseInt(s, 0, 64)): optional sign, then decimal, or 0x/0o/0b/0 prefixed digits with
 * single underscores between them. A number, or the error Go's flag package prints after the value.
 */
function parseGoInt(s: string): number | string {
  const m = /^([+-]?)(0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?[0-7])+|[1-9](?:_?[0-9])*|0)$/.exec(s);
  if (!m) return 'parse error';
  const body = m[2].replace(/_/g, '');
  const digits = /^0[0-7]+$/.test(body) ? '0o' + body.slice(1) : body;
  let v = BigInt(digits);
  if (m[1] === '-') v = -v;
  if (v > 9223372036854775807n || v < -9223372036854775808n) return 'value out of range';
  return Number(v);
}

export function parseFlags(args: readonly string[], spec: Readonly<Record<string, FlagKind>>): FlagResult {
  const values = new Map<string, string | boolean | number>();
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a.length < 2 || a[0] !== '-') break;
    let name = a.slice(1);
    if (name[0] === '-') {
      name = name.slice(1);
      if (name === '') {
        i++;
        break;
      }
    }
    if (name === '' || name[0] === '-' || name[0] === '=') return { values, args: [], error: `bad flag syntax: ${a}` };
    let value: string | undefined;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    const kind = spec[name];
    if (!kind) {
      if (name === 'help' || name === 'h') return { values, args: [], error: 'flag: help requested' };
      return { values, args: [], error: `flag provided but not defined: -${name}` };
    }
    if (kind === 'bool') {
      if (value === undefined) values.set(name, true);
      else {
        const b = parseBool(value);
        if (b === undefined) return { values, args: [], error: `invalid boolean value ${JSON.stringify(value)} for -${name}: parse error` };
        values.set(name, b);
      }
      continue;
    }
    if (value === undefined) {
      if (i + 1 >= args.length) return { values, args: [], error: `flag needs an argument: -${name}` };
      value = args[++i];
    }
    if (kind === 'duration') {
      const d = parseGoDuration(value);
      if (d === undefined) return { values, args: [], error: `invalid value ${JSON.stringify(value)} for flag -${name}: parse error` };
      values.set(name, d);
    } else if (kind === 'int') {
      const n = parseGoInt(value);
      if (typeof n === 'string') return { values, args: [], error: `invalid value ${JSON.stringify(value)} for flag -${name}: ${n}` };
      values.set(name, n);
    } else values.set(name, value);
  }
  return { values, args: args.slice(i) };
}

// ---- backend and state managers -----------------------------------------------------------------------------------

export interface BackendOptions {
  /** -state given on the command line ('' or undefined: the workspace's state). */
  statePath?: string;
  backupPath?: string;
}

/**
 * The `backend "local"` configuration `init` recorded in `<data dir>/terraform.tfstate` (path, workspace_dir),
 * or nothing when no backend is recorded.
 */
export function recordedLocalBackend(io: CliIO): { path?: string; workspaceDir?: string } {
  try {
    const doc = JSON.parse(readFileSync(join(io.cwd, io.env.TF_DATA_DIR || '.terraform', 'terraform.tfstate'), 'utf8')) as {
      backend?: { type?: string; config?: { path?: unknown; workspace_dir?: unknown } };
    };
    if (doc.backend?.type !== 'local') return {};
    const c = doc.backend.config ?? {};
    return {
      path: typeof c.path === 'string' && c.path !== '' ? c.path : undefined,
      workspaceDir: typeof c.workspace_dir === 'string' && c.workspace_dir !== '' ? c.workspace_dir : undefined,
    };
  } catch {
    return {};
  }
}

/**
 * The backend of the working directory (Meta.Backend): the one `init` recorded (local, pg, http) when the
 * configuration's backend block still matches it, else the local backend; opened on first use through
 * server/backends/registry.ts. Its async methods throw BackendOpenError ("Backend initialization required", a
 * database that cannot be reached, ...) with Terraform's diagnostics.
 */
export function localBackend(io: CliIO, opts: BackendOptions = {}, loaded?: Pick<Module, 'terraform'>): CliBackend {
  return new CliBackend({ cwd: io.cwd, env: io.env, statePath: opts.statePath || undefined, backupPath: opts.backupPath }, async () => {
    // A command that has read the root module already passes it: reading every file again costs ~100 ms at 3,000
    // resources.
    const mod = loaded ?? (await loadModuleTree(io.cwd)).module;
    return mod.terraform.find((t) => t.backend)?.backend;
  });
}

/** Meta.Workspace(): TF_WORKSPACE, else `.terraform/environment`, else "default". */
export function currentWorkspace(io: CliIO): string {
  return localBackend(io).currentWorkspace();
}

/**
 * StateMeta.State(): the state manager the mutating state commands use; their backups are timestamped
 * (`<out>.<unix seconds>.backup`) unless -backup names one.
 */
export async function stateCommandManager(io: CliIO, statePath: string, backupFlag: string): Promise<FilesystemStateManager> {
  const b = localBackend(io, { statePath });
  const ws = b.currentWorkspace();
  // Terraform derives the backup name from a local backend forced without the recorded configuration, so a
  // backend `path`/`workspace_dir` does not move it.
  const out = new LocalBackend({ cwd: io.cwd, env: io.env, statePath: statePath || undefined }).statePaths(ws).stateOut;
  const backup = backupFlag === '-' || backupFlag === '' ? `${out}.${Math.floor(Date.now() / 1000)}.backup` : backupFlag;
  const lb = localBackend(io, { statePath, backupPath: backup });
  return lb.stateMgr(ws);
}

/** Locks like clistate.Locker.Lock; on failure prints the diagnostics through `ui` and returns undefined. */
export async function lockState(
  mgr: StateManager,
  operation: string,
  timeoutMs: number,
  io: CliIO,
  ui: Ui,
): Promise<string | undefined> {
  const r = await acquireLock(mgr, newLockInfo(operation), timeoutMs, () => {
    // views.StateLockerHuman.Locking: plain text, whatever the colour setting.
    io.stdout('Acquiring state lock. This may take a few moments...\n');
  });
  if (r.diags.length) {
    ui.diagnostics(r.diags);
    return undefined;
  }
  return r.id;
}

export async function unlockState(mgr: StateManager, id: string, ui: Ui): Promise<void> {
  const d = await releaseLock(mgr, id);
  if (d.length) ui.diagnostics(d);
}

export const ERR_STATE_LOADING = (err: string) =>
  `Error loading the state: ${err}\n\nPlease ensure that your Terraform state exists and that you've\nconfigured it properly. You can use the "-state" flag to point\nTerraform at another state file.`;

export const ERR_STATE_NOT_FOUND =
  'No state file was found!\n\nState management commands require a state file. Run this command\nin a directory where Terraform has been run or use the -state flag\nto point the command to a specific state location.';

export const ERR_STATE_PERSIST = (err: string) =>
  `Error saving the state: ${err}\n\nThe state was not saved. No items were removed from the persisted\nstate. No backup was created since no modification occurred. Please\nresolve the issue above and try again.`;

/** Text of the first error among diagnostics (what Go's diags.Err().Error() gives for a single error). */
export function diagsErrorText(diags: readonly Diagnostic[]): string {
  const e = diags.find((d) => d.severity === 'error');
  if (!e) return '';
  return e.detail ? `${e.summary}: ${e.detail}` : e.summary;
}
