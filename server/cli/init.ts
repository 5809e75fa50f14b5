// `foresight init [options]`: Terraform 1.11's init command, for what Foresight can do offline.
//
// Steps and output, in Terraform's order (human, -no-color, -json views; colour codes as Terraform's
// colorize prints them; TF_IN_AUTOMATION=1 drops the closing "You may now begin working" paragraph):
//   1. flags (-input, -upgrade, -reconfigure, -migrate-state, -force-copy, -backend, -get, -lock,
//      -lock-timeout, -lockfile, -no-color, -json, -var/-var-file, -test-directory accepted); a positional
//      argument is "Too many command line arguments. Did you mean to use -chdir?";
//   2. a directory without configuration files: "Terraform initialized in an empty directory!";
//   3. "Initializing the backend..." and the backend step (see initBackend below: local, pg, http through
//      server/backends/registry.ts; -backend-config, -reconfigure, -migrate-state, -force-copy);
//   4. when the root module calls modules: "Initializing modules..." ("Upgrading modules..." with
//      -upgrade) and "- KEY in DIR" per local module recorded in .terraform/modules/modules.json
//      (server/depsfile/modules.ts);
//   5. the Terraform Core version check (server/versions/required.ts), then configuration errors with
//      Terraform's "Terraform encountered problems during initialisation" preamble (root-module decode
//      errors appear twice, as Terraform reports them from its early and its full load);
//   6. "Initializing provider plugins..." and, per required provider (sorted by address):
//        built-in terraform:  "- terraform.io/builtin/terraform is built in to Terraform"
//        Foresight's own built-in providers (hashicorp/random, hashicorp/null):
//          "- Reusing previous version of X from the dependency lock file" (when locked) or
//          "- Finding X versions matching "C"..." / "- Finding latest version of X...", then
//          "- Using X vV built in to Foresight"  (never "Installing"/"Installed": nothing is downloaded);
//      a provider Foresight does not have is an error diagnostic (server/providers/resolve.ts);
//   7. .terraform.lock.hcl updated when the selections changed (server/depsfile/locks.ts documents what is
//      written for built-in providers: version and constraints, no hashes), with Terraform's lock-file
//      paragraph; then a blank line and "Terraform has been successfully initialized!".
// Exit status 0 on success, 1 on any error.

import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { error, hasErrors, warning } from '../diags/diagnostic';
import { renderDiagnosticsView, sortDiagnostics } from '../diags/render';
import { loadModuleTree } from '../config/load';
import type { LoadResult } from '../config/load';
import { checkCoreVersionRequirements } from '../versions/required';
import type { ModuleRecord } from '../depsfile/modules';
import { checkModulesInstalled, dataDir, installLocalModules, isLocalSource, readModuleManifest, writeModuleManifest } from '../depsfile/modules';
import type { Module } from '../config/model';
import type { ProviderLock } from '../depsfile/locks';
import { lockFileError, locksEqual, readLockFile, writeLockFile } from '../depsfile/locks';
import type { AvailableProvider } from '../providers/resolve';
import { stateProviders } from '../providers/resolve';
import { checkRequiredProviderSources, foresightProviders, providerVersionsFromWarnings, redundantEmptyProviderWarnings, selectProviders, treeRequirements } from '../providers/resolve';
import { compareProviders, isBuiltIn, parseFullyQualified, providerForDisplay, providerString } from '../addrs/provider';
import { providerConstraintsString } from '../versions/provider';
import { goJson, jsonDiagnostic } from './validate';
import { TERRAFORM_VERSION as STATE_VERSION, writeStateFile, type StateFile } from '../states/statefile';
import { backendHash, backendStatePath, BACKEND_SCHEMAS, configureBackend, convertTo, decodeBackendBlock, fullConfig, OTHER_TERRAFORM_BACKENDS, readBackendState, writeBackendState, type BackendState, type StateManager } from '../backends/registry';
import { LocalBackend } from '../backends/local/backend';
import { newLockInfo } from '../backends/local/filesystem';
import { acquireLock, releaseLock, type Workspaces } from '../states/statemgr';
import { evalConstant, readVarsFile } from '../config/variables';
import { marshal } from '../engine/ctyjson';
import { TERRAFORM_VERSION } from './version';
import { incompleteLockWarning, installPackage, loadCliConfig, queryNetworkMirrors, selectExternal } from '../plugin/discovery';

export interface InitIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Standard input (answers to state migration prompts, one per line). */
  stdin?: () => Promise<string>;
  /** Standard input is a terminal: stdin() gives one line per call. */
  interactive?: boolean;
}

const RESET = '\x1b[0m';
const CODES: Record<string, string> = { reset: '\x1b[0m', bold: '\x1b[1m', green: '\x1b[32m', red: '\x1b[31m', yellow: '\x1b[33m' };

/** mitchellh/colorstring as Terraform uses it: [name] codes, a reset appended when any code was used. */
export function colorize(s: string, color: boolean): string {
  let used = false;
  const out = s.replace(/\[(reset|bold|green|red|yellow)\]/g, (_, n: string) => {
    used = true;
    return color ? CODES[n] : '';
  });
  return used && color ? out + RESET : out;
}

const INIT_CONFIG_ERROR =
  'Terraform encountered problems during initialisation, including problems\nwith the configuration, described below.\n\nThe Terraform configuration must be valid before initialization so that\nTerraform can determine which modules and providers need to be installed.';

const MESSAGES = {
  initializing_backend_message: ['[reset][bold]Initializing the backend...', 'Initializing the backend...'],
  initializing_modules_message: ['[reset][bold]Initializing modules...', 'Initializing modules...'],
  initializing_terraform_cloud_message: ['[reset][bold]Initializing HCP Terraform...', 'Initializing HCP Terraform...'],
  upgrading_modules_message: ['[reset][bold]Upgrading modules...', 'Upgrading modules...'],
  initializing_provider_plugin_message: ['[reset][bold]Initializing provider plugins...', 'Initializing provider plugins...'],
  output_init_success_message: ['[reset][bold][green]Terraform has been successfully initialized![reset][green]', 'Terraform has been successfully initialized!'],
  output_init_empty_message: [
    '[reset][bold]Terraform initialized in an empty directory![reset]\n\nThe directory has no Terraform configuration files. You may begin working\nwith Terraform immediately by creating Terraform configuration files.',
    'Terraform initialized in an empty directory!\n\nThe directory has no Terraform configuration files. You may begin working\nwith Terraform immediately by creating Terraform configuration files.',
  ],
  lock_info: [
    'Terraform has created a lock file [bold].terraform.lock.hcl[reset] to record the provider\nselections it made above. Include this file in your version control repository\nso that Terraform can guarantee to make the same selections by default when\nyou run "terraform init" in the future.',
    'Terraform has created a lock file .terraform.lock.hcl to record the provider\nselections it made above. Include this file in your version control repository\nso that Terraform can guarantee to make the same selections by default when\nyou run "terraform init" in the future.',
  ],
  dependencies_lock_changes_info: [
    'Terraform has made some changes to the provider dependency selections recorded\nin the .terraform.lock.hcl file. Review those changes and commit them to your\nversion control system if they represent changes you intended to make.',
    'Terraform has made some changes to the provider dependency selections recorded\nin the .terraform.lock.hcl file. Review those changes and commit them to your\nversion control system if they represent changes you intended to make.',
  ],
  output_init_success_cli_message: [
    '[reset][green]\nYou may now begin working with Terraform. Try running "terraform plan" to see\nany changes that are required for your infrastructure. All Terraform commands\nshould now work.\n\nIf you ever set or change modules or backend configuration for Terraform,\nrerun this command to reinitialize your working directory. If you forget, other\ncommands will detect it and remind you to do so if necessary.',
    'You may now begin working with Terraform. Try running "terraform plan" to see\nany changes that are required for your infrastructure. All Terraform commands\nshould now work.\n\nIf you ever set or change modules or backend configuration for Terraform,\nrerun this command to reinitialize your working directory. If you forget, other\ncommands will detect it and remind you to do so if necessary.',
  ],
} as const;
type MessageCode = keyof typeof MESSAGES;

function goJsonLine(o: object): string {
  return JSON.stringify(o).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) + '\n';
}

function nowNano(): string {
  const d = new Date();
  return d.toISOString().replace(/\.(\d{3})Z$/, (_, ms: string) => `.${ms}000Z`);
}

function nowSeconds(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Terraform's init view: human (coloured or not) or the -json stream. */
export class InitView {
  constructor(
    private readonly io: InitIO,
    readonly json: boolean,
    readonly color: boolean,
    private diagSources: { sources: ReadonlyMap<string, string>; contextOf: (r: Range) => string | undefined } = {
      sources: new Map(),
      contextOf: () => undefined,
    },
  ) {
    if (json)
      io.stdout(
        goJsonLine({ '@level': 'info', '@message': `Terraform ${TERRAFORM_VERSION}`, '@module': 'terraform.ui', '@timestamp': nowNano(), terraform: TERRAFORM_VERSION, type: 'version', ui: '1.2' }),
      );
  }

  setSources(sources: ReadonlyMap<string, string>, contextOf: (r: Range) => string | undefined): void {
    this.diagSources = { sources, contextOf };
  }

  output(code: MessageCode): void {
    const [human, json] = MESSAGES[code];
    if (this.json) {
      this.io.stdout(goJsonLine({ '@level': 'info', '@message': json, '@module': 'terraform.ui', '@timestamp': nowSeconds(), message_code: code, type: 'init_output' }));
    } else this.io.stdout(colorize(human, this.color) + '\n');
  }

  /** The sourceless "problems during initialisation" error (its human text carries colour codes). */
  configError(): Diagnostic {
    return error(this.json ? INIT_CONFIG_ERROR : colorize('[reset]' + INIT_CONFIG_ERROR, this.color));
  }

  /** An empty line in the human view; nothing in JSON. */
  blank(): void {
    if (!this.json) this.io.stdout('\n');
  }

  /** A log line: human text as given, JSON text as a "log" message. */
  log(human: string, json: string = human): void {
    if (this.json) this.io.stdout(goJsonLine({ '@level': 'info', '@message': json, '@module': 'terraform.ui', '@timestamp': nowNano(), type: 'log' }));
    else this.io.stdout(colorize(human, this.color) + '\n');
  }

  /** Diagnostics sorted as tfdiags.Sort does; warnings to stdout, errors to stderr (human). */
  diagnostics(diags: readonly Diagnostic[]): void {
    if (this.json) {
      // The JSON view writes diagnostics in the order they were collected.
      for (const d of diags)
        this.io.stdout(
          goJsonLine({
            '@level': d.severity === 'error' ? 'error' : 'warn',
            '@message': `${d.severity === 'error' ? 'Error' : 'Warning'}: ${d.summary}`,
            '@module': 'terraform.ui',
            '@timestamp': nowNano(),
            diagnostic: jsonDiagnostic(d, this.diagSources.sources, this.diagSources.contextOf),
            type: 'diagnostic',
          }),
        );
      return;
    }
    const opts = { color: this.color, sources: this.diagSources.sources, contextOf: this.diagSources.contextOf };
    for (const d of consolidateWarnings(sortDiagnostics(diags))) {
      const text = renderDiagnosticsView([d], opts);
      if (d.severity === 'error') this.io.stderr(text);
      else this.io.stdout(text);
    }
  }
}

/**
 * tfdiags.ConsolidateWarnings(1) as the human view applies it: later warnings with a subject and the same
 * summary as an earlier one are dropped, and the first gets "(and N more similar warning(s) elsewhere)".
 */
export function consolidateWarnings(diags: readonly Diagnostic[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const groups = new Map<string, { index: number; count: number }>();
  for (const d of diags) {
    if (d.severity !== 'warning' || !d.subject) {
      out.push(d);
      continue;
    }
    const g = groups.get(d.summary);
    if (g) {
      g.count++;
      continue;
    }
    groups.set(d.summary, { index: out.length, count: 0 });
    out.push(d);
  }
  for (const g of groups.values()) {
    if (g.count === 0) continue;
    const d = out[g.index];
    const more = g.count === 1 ? '(and one more similar warning elsewhere)' : `(and ${g.count} more similar warnings elsewhere)`;
    out[g.index] = { ...d, detail: d.detail ? `${d.detail}\n\n${more}` : more };
  }
  return out;
}

interface InitArgs {
  reconfigure: boolean;
  uiColor: boolean;
  json: boolean;
  color: boolean;
  upgrade: boolean;
  getModules: boolean;
  backend: boolean;
  lockfileReadonly: boolean;
  /** -backend-config values in order; -migrate-state, -force-copy, -input, -lock, -lock-timeout. */
  backendConfig: string[];
  migrateState: boolean;
  forceCopy: boolean;
  input: boolean;
  lock: boolean;
  lockTimeoutMs: number;
  positional: string[];
  flagError?: string;
}

const BOOL_FLAGS = new Set(['input', 'upgrade', 'reconfigure', 'migrate-state', 'force-copy', 'backend', 'get', 'lock', 'cloud', 'ignore-remote-version', 'no-color', 'json', 'verify-plugins', 'compact-warnings']);
const VALUE_FLAGS = new Set(['lock-timeout', 'lockfile', 'plugin-dir', 'backend-config', 'from-module', 'test-directory', 'var', 'var-file', 'state', 'state-out', 'backup', 'get-plugins']);

function parseBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** Go flag-package parsing of init's options (either one or two leading dashes, `-x=v` or `-x v`). */
function parseArgs(args: string[]): InitArgs {
  const r: InitArgs = { reconfigure: false, uiColor: true, json: false, color: true, upgrade: false, getModules: true, backend: true, lockfileReadonly: false, backendConfig: [], migrateState: false, forceCopy: false, input: true, lock: true, lockTimeoutMs: 0, positional: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      r.positional.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      r.positional.push(...args.slice(i));
      break;
    }
    const body = a.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const value = eq < 0 ? undefined : body.slice(eq + 1);
    if (BOOL_FLAGS.has(name)) {
      const b = value === undefined ? true : parseBool(value);
      if (b === undefined) {
        r.flagError = `invalid boolean value ${JSON.stringify(value)} for -${name}: parse error`;
        return r;
      }
      if (name === 'no-color') r.color = !b ? r.color : false;
      else if (name === 'json') r.json = b;
      else if (name === 'upgrade') r.upgrade = b;
      else if (name === 'get') r.getModules = b;
      else if (name === 'backend') r.backend = b;
      else if (name === 'reconfigure') r.reconfigure = b;
      else if (name === 'migrate-state') r.migrateState = b;
      else if (name === 'force-copy') r.forceCopy = b;
      else if (name === 'input') r.input = b;
      else if (name === 'lock') r.lock = b;
      continue;
    }
    if (VALUE_FLAGS.has(name)) {
      let v = value;
      if (v === undefined) {
        if (i + 1 >= args.length) {
          r.flagError = `flag needs an argument: -${name}`;
          return r;
        }
        v = args[++i];
      }
      if (name === 'lockfile') r.lockfileReadonly = v === 'readonly';
      else if (name === 'backend-config') r.backendConfig.push(v);
      else if (name === 'lock-timeout') r.lockTimeoutMs = parseDurationMs(v) ?? 0;
      continue;
    }
    r.flagError = `flag provided but not defined: -${name}`;
    return r;
  }
  // The old UI (backend messages) still colours in the JSON view unless -no-color was given.
  r.uiColor = r.color;
  if (r.json) r.color = false;
  return r;
}

/** configs.IsEmptyDir: no .tf / .tf.json files (override files count) in the directory. */
function isEmptyDir(dir: string): boolean {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return true;
  }
  return !names.some((n) => (n.endsWith('.tf') || n.endsWith('.tf.json')) && !n.startsWith('.') && !n.startsWith('#') && !n.endsWith('~'));
}

/**
 * Loads the child modules the loader could not (non-local sources) from the directories the manifest
 * records for them (modules Terraform downloaded earlier), as Terraform's loader does, and attaches them to
 * their calls; their diagnostics, sources and block contexts join `res`. Module paths are rewritten to
 * their place in the tree.
 */
export async function attachInstalledModules(res: LoadResult, workDir: string, records: ReadonlyMap<string, ModuleRecord> | undefined): Promise<void> {
  if (!records) return;
  const setPath = (m: Module, path: string) => {
    m.path = path;
    for (const c of m.moduleCalls.values()) if (c.module) setPath(c.module, `${path}.module.${c.name}`);
  };
  const walk = async (m: Module, keyPrefix: string) => {
    for (const call of [...m.moduleCalls.values()]) {
      const key = keyPrefix ? `${keyPrefix}.${call.name}` : call.name;
      const rec = records.get(key);
      if (!call.module && rec && rec.Dir && call.source !== undefined && !isLocalSource(call.source)) {
        let ok = false;
        try {
          ok = statSync(join(workDir, rec.Dir)).isDirectory();
        } catch {
          ok = false;
        }
        if (ok) {
          const child = await loadModuleTree(join(workDir, rec.Dir), { baseDir: workDir });
          setPath(child.module, `${m.path ? m.path + '.' : ''}module.${call.name}`);
          call.module = child.module;
          call.dir = child.module.dir;
          res.diagnostics.push(...child.diagnostics);
          for (const [k, v] of child.sources) res.sources.set(k, v);
          res.contexts.push(...child.contexts);
        }
      }
      if (call.module) await walk(call.module, key);
    }
  };
  await walk(res.module, '');
}

/** HCL's context string of a range: the header of the top-level block just before it. */
export function contextOfLoad(res: LoadResult): (r: Range) => string | undefined {
  return (r: Range) => {
    const off = r.start.byte - 1;
    if (off < 0) return undefined;
    for (const c of res.contexts) if (c.range.filename === r.filename && c.range.start.byte <= off && off < c.range.end.byte) return c.text;
    return undefined;
  };
}

/** The providers Foresight can install: re-exported for tests. */
export function availableProviders(): AvailableProvider[] {
  return foresightProviders();
}

export async function runInit(args: string[], io: InitIO): Promise<number> {
  const a = parseArgs(args);
  const view = new InitView(io, a.json, a.color);
  if (a.flagError) {
    view.diagnostics([error('Failed to parse command-line flags', a.flagError)]);
    return 1;
  }
  if (a.positional.length > 0) {
    view.diagnostics([error('Too many command line arguments. Did you mean to use -chdir?')]);
    return 1;
  }
  const dir = io.cwd;
  if (isEmptyDir(dir)) {
    view.output('output_init_empty_message');
    return 0;
  }
  const automation = !!io.env?.TF_IN_AUTOMATION;
  const res = await loadModuleTree(dir);
  view.setSources(res.sources, contextOfLoad(res));
  const rootFiles = new Set(res.module.files);
  const isRoot = (d: Diagnostic) => !d.subject || rootFiles.has(d.subject.filename);
  // Terraform loads the root module early (backend and module installation) and again with the whole tree;
  // decode diagnostics of root files come from both loads, syntax ones only once (the parser caches files).
  // The loader's view of child modules ("Module not installed", missing directories) is replaced by the
  // installation below.
  const loadDiags = res.diagnostics.filter((d) => d.summary !== 'Unreadable module directory' && d.summary !== 'Module not installed');
  // required_providers source and version strings are checked while decoding, as Terraform does.
  loadDiags.push(...checkRequiredProviderSources(res.module, res.sources));
  const earlyDiags = loadDiags.filter(isRoot);
  const childDiags = loadDiags.filter((d) => !isRoot(d));
  let header = false;
  let backendDiags: Diagnostic[] = [];
  if (a.backend) {
    const hasCloud = res.module.terraform.some((t) => t.other.some((b) => b.type === 'cloud'));
    view.output(hasCloud ? 'initializing_terraform_cloud_message' : 'initializing_backend_message');
    header = true;
    const b = await initBackend(dir, res, a, io);
    if (b.message !== undefined) io.stdout(colorize(b.message, a.uiColor) + '\n');
    backendDiags = b.diagnostics;
  }
  const diags: Diagnostic[] = [];
  if (a.getModules && res.module.moduleCalls.size > 0) {
    view.output(a.upgrade ? 'upgrading_modules_message' : 'initializing_modules_message');
    header = true;
    const inst = installLocalModules(dir, res.module, readModuleManifest(dir, io.env), a.upgrade);
    for (const line of inst.installed) view.log(`- ${line}`);
    const before = res.diagnostics.length;
    await attachInstalledModules(res, dir, inst.records);
    childDiags.push(...res.diagnostics.slice(before));
    try {
      writeModuleManifest(dir, inst.records.values(), io.env);
    } catch (e) {
      inst.diagnostics.push(error('Failed to update module manifest', `Unable to write the module manifest file: ${(e as Error).message}`));
    }
    // Errors in child modules surface while installing them, without the configuration-error preamble.
    if (!hasErrors(earlyDiags) && hasErrors(childDiags)) {
      view.diagnostics(childDiags);
      return 1;
    }
    if (hasErrors(inst.diagnostics)) {
      view.diagnostics(inst.diagnostics);
      return 1;
    }
  }
  const allVersionDiags = checkCoreVersionRequirements(res.module, { sources: res.sources });
  // An unparsable required_version is a configuration decode error (shown with the others below).
  const versionSyntax = allVersionDiags.filter((d) => d.summary === 'Invalid version constraint');
  const versionDiags = allVersionDiags.filter((d) => d.summary !== 'Invalid version constraint');
  earlyDiags.push(...versionSyntax.filter(isRoot));
  childDiags.push(...versionSyntax.filter((d) => !isRoot(d)));
  if (hasErrors(versionDiags)) {
    view.diagnostics(versionDiags);
    return 1;
  }
  if (hasErrors(earlyDiags)) {
    const dup = earlyDiags.filter((d) => d.source !== 'syntax' && d.subject);
    view.diagnostics([...earlyDiags, ...dup, view.configError()]);
    return 1;
  }
  if (hasErrors(backendDiags)) {
    view.diagnostics([...earlyDiags.filter((d) => d.severity === 'warning'), ...backendDiags]);
    return 1;
  }
  diags.push(...backendDiags);
  // Root warnings come from both loads; the human view consolidates them.
  const rootWarnings = earlyDiags.filter((d) => d.severity === 'warning');
  diags.push(...rootWarnings, ...rootWarnings.filter((d) => d.subject));
  // Provider configuration checks run when the tree is built, by the installer and again by the full load.
  const blockVersions = providerVersionsFromWarnings(res.diagnostics, res.sources);
  const providerWarnings = redundantEmptyProviderWarnings(res.module, blockVersions);
  diags.push(...providerWarnings, ...(a.getModules && res.module.moduleCalls.size > 0 ? providerWarnings : []));
  // Without module installation, child modules must already be recorded in the manifest.
  const installDiags = a.getModules ? [] : checkModulesInstalled(res.module, readModuleManifest(dir, io.env));
  const fullDiags = [...childDiags, ...installDiags];
  if (hasErrors(fullDiags)) {
    view.diagnostics([...diags, ...fullDiags, view.configError()]);
    return 1;
  }
  diags.push(...fullDiags);

  // Providers.
  const reqs = treeRequirements(res.module, providerVersionsFromWarnings(res.diagnostics, res.sources));
  // The state's providers are required too (resources whose configuration was removed still need theirs).
  for (const fqn of stateProviders(dir, io.env)) {
    const addr = parseFullyQualified(fqn);
    if (addr && !reqs.has(fqn)) reqs.set(fqn, { addr, constraints: [] });
  }
  const locks = await readLockFile(dir);
  const lockError = lockFileError(locks.diagnostics);
  if (lockError) {
    view.diagnostics([...diags, lockError]);
    return 1;
  }
  diags.push(...locks.diagnostics);
  if (a.upgrade && a.lockfileReadonly) {
    // Terraform shows this error twice: once where it is found and once more with the command's result.
    const conflict = error('The -upgrade flag conflicts with -lockfile=readonly.');
    view.diagnostics([...diags, conflict, conflict]);
    return 1;
  }
  view.output('initializing_provider_plugin_message');
  header = true;
  // The installer reports built-in providers first, then the others (by address here; Terraform's order
  // among them is map order).
  const ordered = new Map(
    [...reqs].sort((x, y) => Number(isBuiltIn(y[1].addr)) - Number(isBuiltIn(x[1].addr)) || compareProviders(x[1].addr, y[1].addr)),
  );
  // Providers Foresight does not carry come from the filesystem mirrors / plugin cache of the CLI configuration
  // (server/plugin/discovery.ts), as Terraform's installer installs them; dev_overrides are never installed.
  const env = io.env ?? process.env;
  const cliCfg = await loadCliConfig(dir, env);
  const carried = new Set(availableProviders().map((p) => providerString(p.addr)));
  const external = new Map([...ordered].filter(([k, r]) => !isBuiltIn(r.addr) && !carried.has(k) && !cliCfg.devOverrides.has(k)));
  const sel = selectProviders(new Map([...ordered].filter(([k]) => !external.has(k) && !cliCfg.devOverrides.has(k))), availableProviders(), locks.providers, a.upgrade);
  const chosen = new Map(sel.selections.map((s) => [providerString(s.addr), s]));
  for (const [k, r] of ordered) {
    const disp = providerForDisplay(r.addr);
    if (isBuiltIn(r.addr)) {
      if (chosen.has(k) && !r.constraints.length) view.log(`- ${disp} is built in to Terraform`, `${disp} is built in to Terraform`);
      continue;
    }
    if (cliCfg.devOverrides.has(k)) continue;
    const s = chosen.get(k);
    const lockedV = locks.providers.get(k)?.version;
    if (!a.upgrade && lockedV !== undefined) view.log(`- Reusing previous version of ${disp} from the dependency lock file`, `${disp}: Reusing previous version from the dependency lock file`);
    else if (r.constraints.length) {
      const c = providerConstraintsString(r.constraints);
      view.log(`- Finding ${disp} versions matching ${JSON.stringify(c)}...`, `Finding matching versions for provider: ${disp}, version_constraint: ${JSON.stringify(c)}`);
    } else view.log(`- Finding latest version of ${disp}...`, `${disp}: Finding latest version...`);
    if (s?.version) view.log(`- Using ${disp} v${s.version} built in to Foresight`, `${disp} v${s.version}: Using the version built in to Foresight`);
  }
  // Then, as Terraform's installer, each external provider is installed (or found already installed).
  const installed = new Map<string, ProviderLock>();
  const incomplete: string[] = [];
  for (const [k, r] of external) {
    const disp = providerForDisplay(r.addr);
    const prior = locks.providers.get(k);
    const pick = selectExternal(cliCfg, k, disp, r.constraints, a.upgrade ? undefined : prior?.version, a.upgrade, await queryNetworkMirrors(cliCfg, k, env));
    if ('error' in pick) {
      sel.diagnostics.push(pick.error);
      continue;
    }
    const v = pick.candidate.version;
    const inst = await installPackage(dir, env, cliCfg, pick.candidate, prior, disp);
    if ('error' in inst) {
      if (!inst.beforeFetch) view.log(`- Installing ${disp} v${v}...`, `Installing provider version: ${disp} v${v}...`);
      sel.diagnostics.push(inst.error);
      continue;
    }
    if (inst.action === 'reused') view.log(`- Using previously-installed ${disp} v${v}`, `${disp} v${v}: Using previously-installed provider version`);
    else {
      view.log(`- Installing ${disp} v${v}...`, `Installing provider version: ${disp} v${v}...`);
      const auth = inst.auth ?? 'unauthenticated';
      view.log(`- Installed ${disp} v${v} (${auth})`, `Installed provider version: ${disp} v${v} (${auth})`);
    }
    if (inst.newLocalHashes) incomplete.push(disp);
    installed.set(k, { addr: r.addr, version: v, constraints: r.constraints, hashes: inst.hashes });
  }
  if (hasErrors(sel.diagnostics)) {
    view.diagnostics([...diags, ...sel.diagnostics]);
    return 1;
  }
  const newLocks = new Map<string, ProviderLock>();
  for (const s of sel.selections) {
    if (isBuiltIn(s.addr) || !s.version) continue;
    const k = providerString(s.addr);
    const prev = locks.providers.get(k);
    newLocks.set(k, { addr: s.addr, version: s.version, constraints: s.constraints, hashes: prev && prev.version === s.version ? prev.hashes : [] });
  }
  for (const [k, l] of installed) newLocks.set(k, l);
  if (!locksEqual(newLocks, locks.providers)) {
    if (a.lockfileReadonly) {
      const sameAddrs = newLocks.size === locks.providers.size && [...newLocks.keys()].every((k) => locks.providers.has(k));
      if (!sameAddrs) {
        view.diagnostics([
          ...diags,
          error(
            'Provider dependency changes detected',
            'Changes to the required provider dependencies were detected, but the lock file is read-only. To use and record these requirements, run "terraform init" without the "-lockfile=readonly" flag.',
          ),
        ]);
        return 1;
      }
      diags.push(
        warning(
          'Provider lock file not updated',
          'Changes to the provider selections were detected, but not saved in the .terraform.lock.hcl file. To record these selections, run "terraform init" without the "-lockfile=readonly" flag.',
        ),
      );
    } else {
      // Terraform warns about locally computed checksums only when the lock file changes.
      if (incomplete.length) diags.push(incompleteLockWarning(incomplete));
      view.output(locks.providers.size === 0 ? 'lock_info' : 'dependencies_lock_changes_info');
      try {
        writeLockFile(dir, newLocks.values());
      } catch (e) {
        diags.push(error('Failed to update dependency lock file', `Error while writing new dependency lock information to ${join(dir, '.terraform.lock.hcl')}: ${(e as Error).message}.`));
        view.diagnostics(diags);
        return 1;
      }
    }
  }
  if (header) view.blank();
  view.diagnostics(diags);
  view.output('output_init_success_message');
  if (!automation) view.output('output_init_success_cli_message');
  return 0;
}

// ---- the backend ---------------------------------------------------------------------------------------------

/**
 * The backend step of init, as Terraform's Meta.backendFromConfig does it with opts.Init (meta_backend.go,
 * meta_backend_migrate.go), for the backends of server/backends/registry.ts (local, pg, http):
 *   - the block is decoded against the type's schema ("Unsupported argument", type errors), -backend-config files
 *     and key=value pairs are merged over it ("Invalid backend configuration argument" for unknown names);
 *   - `<data dir>/terraform.tfstate` records type, the merged configuration (every attribute, null when unset)
 *     and the hash of the block alone (registry.ts backendHash); unchanged (same hash, no overrides, or same
 *     values) prints nothing;
 *   - first configuration (or -reconfigure): existing non-empty local workspaces are migrated into the new backend
 *     (prompting "Do you want to copy existing state to the new backend?" unless -force-copy; -input=false refuses)
 *     and erased locally (backup kept); "Successfully configured the backend ..." is printed;
 *   - changed or removed block: "Backend configuration changed" unless -migrate-state (or -force-copy), which
 *     copies every workspace from the recorded backend to the new one (serial and lineage kept as Terraform keeps
 *     them) and records the new one ("Successfully unset the backend" when the block was removed).
 * Messages go through `say` in Terraform's colours; errors come back as diagnostics.
 */
async function initBackend(dir: string, res: LoadResult, a: InitArgs, io: InitIO): Promise<{ message?: string; diagnostics: Diagnostic[] }> {
  const env = io.env ?? {};
  const diags: Diagnostic[] = [];
  const say = (m: string) => io.stdout(colorize(m, a.uiColor) + '\n');
  const cloud = res.module.terraform.flatMap((t) => t.other).find((b) => b.type === 'cloud');
  if (cloud) {
    diags.push(
      error(
        'HCP Terraform is not supported',
        'Foresight works offline with the local backend only; it cannot initialize the "cloud" block (HCP Terraform or Terraform Enterprise). Remove the block to use local state.',
        cloud.typeRange,
      ),
    );
    return { diagnostics: diags };
  }
  const block = res.module.terraform.find((t) => t.backend)?.backend;
  const rs = readBackendState(dir, env);
  if (rs.error) return { diagnostics: [error(`Failed to load state: ${rs.error}`)] };
  const saved = a.reconfigure ? undefined : rs.state;
  const openOpts = { cwd: dir, env };
  const answers = new Answers(io);

  const migrateOrReconfigure = () => error(
    'Backend configuration changed',
    'A change in the backend configuration has been detected, which may require migrating existing state.\n\nIf you wish to attempt automatic migration of the state, use "terraform init -migrate-state".\nIf you wish to store the current configuration with no changes to the state, use "terraform init -reconfigure".',
  );
  let type = '';
  let values: Record<string, unknown> = {};
  let merged: Record<string, unknown> = {};
  if (block) {
    type = block.type;
    if (!(type in BACKEND_SCHEMAS)) {
      // Terraform knows these types, so a recorded backend makes this a configuration change first.
      if (saved && OTHER_TERRAFORM_BACKENDS.includes(type) && !(a.migrateState || a.forceCopy)) return { diagnostics: [migrateOrReconfigure()] };
      return {
        diagnostics: [
          OTHER_TERRAFORM_BACKENDS.includes(type)
            ? error('Unsupported backend', `Foresight supports the "local", "pg" and "http" backends; it cannot use the ${JSON.stringify(type)} backend.`, block.typeRange)
            : error('Invalid backend type', `There is no backend type named ${JSON.stringify(type)}.`, block.typeRange),
        ],
      };
    }
    const dec = decodeBackendBlock(type, block.attributes);
    if (dec.diagnostics.length) return { diagnostics: dec.diagnostics };
    values = dec.values;
    const ov = await backendConfigOverrides(dir, type, a.backendConfig);
    if (hasErrors(ov.diagnostics)) return { diagnostics: ov.diagnostics };
    merged = { ...values, ...ov.values };
  }
  const hash = block ? backendHash(type, values) : 0;
  const newState = (): BackendState => ({ type, config: fullConfig(type, merged), hash });
  const migrating = a.migrateState || a.forceCopy;

  // No backend block and none recorded: local state, nothing to record.
  if (!block && !saved) return { diagnostics: diags };

  // Unsetting a recorded backend.
  if (!block && saved) {
    if (!migrating) return { diagnostics: [migrateOrReconfigure()] };
    say(`[reset]Terraform has detected you're unconfiguring your previously set ${JSON.stringify(saved.type)} backend.`);
    const src = await configureBackend(saved.type, saved.config, openOpts);
    if (!src.backend) return { diagnostics: src.diagnostics };
    const dst = await configureBackend('local', {}, openOpts);
    const md = await migrateBackendState({ type: saved.type, backend: src.backend }, { type: 'local', backend: dst.backend! }, a, io, answers);
    if (md.length) return { diagnostics: md };
    // Terraform keeps the file, without its backend.
    writeFileSync(backendStatePath(dir, env), `{\n  "version": 3,\n  "terraform_version": "${STATE_VERSION}"\n}`);
    say(`[reset][green]\n\nSuccessfully unset the backend ${JSON.stringify(saved.type)}. Terraform will now operate locally.`);
    return { diagnostics: diags };
  }

  if (block && saved) {
    const noOverrides = a.backendConfig.length === 0;
    if (saved.hash === hash && noOverrides && saved.type === type) return { diagnostics: diags };
    if (saved.type === type && JSON.stringify(fullConfig(type, saved.config)) === JSON.stringify(fullConfig(type, merged))) {
      // Same configuration (perhaps moved between the block and -backend-config): only the hash is updated.
      const cfg = await configureBackend(type, saved.config, openOpts);
      if (!cfg.backend) return { diagnostics: cfg.diagnostics };
      if (saved.hash !== hash) writeBackendState(dir, env, { ...saved, hash });
      return { diagnostics: diags };
    }
    if (!migrating) return { diagnostics: [migrateOrReconfigure()] };
    if (saved.type !== type) say(`[reset]Terraform detected that the backend type changed from ${JSON.stringify(saved.type)} to ${JSON.stringify(type)}.\n`);
    else say('[reset][reset][bold]Backend configuration changed![reset]\n\nTerraform has detected that the configuration specified for the backend\nhas changed. Terraform will now check for existing state in the backends.\n');
    const dst = await configureBackend(type, merged, openOpts);
    if (!dst.backend) return { diagnostics: dst.diagnostics };
    const src = await configureBackend(saved.type, saved.config, openOpts);
    if (!src.backend) return { diagnostics: src.diagnostics };
    const md = await migrateBackendState({ type: saved.type, backend: src.backend }, { type, backend: dst.backend }, a, io, answers);
    if (md.length) return { diagnostics: md };
    writeBackendState(dir, env, newState());
    return {
      message: `[reset][green]\nSuccessfully configured the backend ${JSON.stringify(type)}! Terraform will automatically\nuse this backend unless the backend configuration changes.`,
      diagnostics: diags,
    };
  }

  // First configuration (or -reconfigure): local workspaces with state are copied into the new backend.
  const localB = new LocalBackend({ cwd: dir, env });
  const nonEmpty: string[] = [];
  for (const ws of await localB.workspaces()) {
    const m = await localB.stateMgr(ws);
    const rd = await m.refresh();
    if (hasErrors(rd)) return { diagnostics: [error(`Error reading local state: ${diagText(rd)}\n\nTerraform is trying to read your local state to determine if there is\nstate to migrate to your newly configured backend. Terraform can't continue\nwithout this check because that would risk losing state. Please resolve the\nerror above and try again.`)] };
    const st = m.read();
    if (st && !st.empty()) nonEmpty.push(ws);
  }
  const dst = await configureBackend(type, merged, openOpts);
  if (!dst.backend) return { diagnostics: dst.diagnostics };
  if (nonEmpty.length > 0) {
    const sameFiles = dst.backend instanceof LocalBackend && nonEmpty.every((ws) => resolvePath(dir, (dst.backend as LocalBackend).statePaths(ws).stateOut) === resolvePath(dir, localB.statePaths(ws).stateOut));
    if (!sameFiles) {
      const md = await migrateBackendState({ type: 'local', backend: localB }, { type, backend: dst.backend }, a, io, answers);
      if (md.length) return { diagnostics: md };
      // The local copies are emptied (Terraform writes a nil state: an empty file, the old one kept as backup).
      for (const ws of nonEmpty) {
        const p = localB.statePaths(ws);
        const abs = resolvePath(dir, p.stateOut);
        try {
          const old = readFileSync(abs);
          if (p.backup !== '') writeFileSync(resolvePath(dir, p.backup), old);
          writeFileSync(abs, '');
        } catch {
          // nothing there
        }
      }
    }
  }
  writeBackendState(dir, env, newState());
  return {
    message: `[reset][green]\nSuccessfully configured the backend ${JSON.stringify(type)}! Terraform will automatically\nuse this backend unless the backend configuration changes.`,
    diagnostics: diags,
  };
}

/** Go's time.ParseDuration for -lock-timeout, in ms. */
function parseDurationMs(s: string): number | undefined {
  if (s === '0') return 0;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };
  const re = /(\d+(?:\.\d*)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(s))) {
    total += parseFloat(m[1]) * unit[m[2]];
    end = re.lastIndex;
  }
  return end === s.length && end > 0 ? total : undefined;
}

function resolvePath(dir: string, p: string): string {
  return isAbsolute(p) ? p : join(dir, p);
}

function diagText(d: readonly Diagnostic[]): string {
  const e = d.find((x) => x.severity === 'error');
  return e ? (e.detail ? `${e.summary}: ${e.detail}` : e.summary) : '';
}

/** The -backend-config values: `key=value` pairs (converted to the attribute's type) and HCL files. */
async function backendConfigOverrides(dir: string, type: string, items: readonly string[]): Promise<{ values: Record<string, unknown>; diagnostics: Diagnostic[] }> {
  const schema = BACKEND_SCHEMAS[type];
  const values: Record<string, unknown> = {};
  const diags: Diagnostic[] = [];
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq < 0) {
      const f = await readVarsFile(dir, item, 'named-file');
      if (hasErrors(f.diagnostics)) {
        diags.push(...f.diagnostics.map((d) => (d.summary === 'Failed to read variables file' ? error('Failed to read file', `The file ${JSON.stringify(item)} could not be read.`) : d)));
        continue;
      }
      for (const [name, rv] of f.values) {
        if (!schema[name]) {
          diags.push(error('Unsupported argument', `An argument named ${JSON.stringify(name)} is not expected here.`, rv.range));
          continue;
        }
        if (!rv.expr) continue;
        const ev = evalConstant(rv.expr);
        if (hasErrors(ev.diagnostics)) {
          diags.push(...ev.diagnostics);
          continue;
        }
        const v = convertTo(JSON.parse(marshal(ev.value)), schema[name]);
        if (v === undefined) diags.push(error('Incorrect attribute value type', `Inappropriate value for attribute ${JSON.stringify(name)}: ${schema[name]} required.`, rv.range));
        else values[name] = v;
      }
      continue;
    }
    const name = item.slice(0, eq);
    const raw = item.slice(eq + 1);
    const t = schema[name];
    if (!t) {
      diags.push(error('Invalid backend configuration argument', `The backend configuration argument ${JSON.stringify(name)} given on the command line is not expected for the selected backend type.`));
      continue;
    }
    const v = convertTo(raw, t);
    if (v === undefined) diags.push(error('Invalid backend configuration argument', `The given value for the backend configuration argument ${JSON.stringify(name)} is not valid: a ${t} is required.`));
    else values[name] = v;
  }
  return { values, diagnostics: diags };
}

/** Answers to prompts: the lines of standard input, one per question. */
class Answers {
  private lines: string[] | undefined;
  private eof = false;
  constructor(private readonly io: InitIO) {}
  async next(): Promise<string | undefined> {
    // A pipe gives every answer at once; a terminal one line per read (io.ts), so read again when out.
    if (!this.lines || (this.io.interactive && !this.lines.length && !this.eof)) {
      const all = this.io.stdin ? await this.io.stdin() : '';
      if (all === '') this.eof = true;
      this.lines = all === '' ? [] : all.split('\n');
      if (this.lines.length && this.lines[this.lines.length - 1] === '') this.lines.pop();
    }
    const l = this.lines.shift();
    return l === undefined ? undefined : l.replace(/\r$/, '');
  }
}

/** UIInput.Input + Meta.confirm: the query, the indented description, "Enter a value:"; yes/no (asked again otherwise). */
async function confirm(io: InitIO, a: InitArgs, answers: Answers, query: string, description: string): Promise<boolean | Diagnostic> {
  for (;;) {
    let text = `[reset][bold]${query}[reset]\n`;
    for (const l of description.split('\n')) text += `  ${l}\n`;
    text += '\n  [bold]Enter a value:[reset] ';
    io.stdout(colorize(text, a.uiColor));
    const ans = await answers.next();
    if (ans === undefined) {
      io.stdout('\n');
      return error('Error asking for state migration action: EOF');
    }
    io.stdout('\n');
    const v = ans.toLowerCase();
    if (v === 'yes') return true;
    if (v === 'no') return false;
  }
}

interface MigrationSide {
  type: string;
  backend: Workspaces;
}

/** backendMigrateState: one workspace (default) or all of them, with Terraform's prompts. */
async function migrateBackendState(src: MigrationSide, dst: MigrationSide, a: InitArgs, io: InitIO, answers: Answers): Promise<Diagnostic[]> {
  // retrieveWorkspaces: a backend without workspaces (http) is single-state.
  const single = (e: unknown) => (e as Error)?.constructor?.name === 'WorkspacesNotSupportedError';
  let names: string[];
  let dstSingle = false;
  try {
    names = await src.backend.workspaces();
  } catch (e) {
    if (single(e)) names = ['default'];
    else return [error(`Error inspecting states in the ${JSON.stringify(src.type)} backend:\n    ${(e as Error).message}\n\nPrior to changing backends, Terraform inspects the source and destination\nstates to determine what kind of migration steps need to be taken, if any.\nTerraform failed to load the states. The data in both the source and the\ndestination remain unmodified. Please resolve the above error and try again.`)];
  }
  try {
    await dst.backend.workspaces();
  } catch (e) {
    if (single(e)) dstSingle = true;
  }
  if (names.length === 1 && names[0] === 'default') return migrateWorkspace(src, dst, 'default', a.forceCopy, a, io, answers);
  if (dstSingle) {
    // backendMigrateState_S_s: only the current workspace is copied, into the destination's default.
    const current = io.env?.TF_WORKSPACE || readEnvironmentFile(io);
    if (!a.forceCopy) {
      if (!a.input) return [error("Can't ask approval for state migration when interactive input is disabled.\n\nPlease remove the \"-input=false\" option and try again.")];
      const c = await confirm(
        io,
        a,
        answers,
        `Destination state ${JSON.stringify(dst.type)} doesn't support workspaces.\nDo you want to copy only your current workspace?`,
        `The existing ${JSON.stringify(src.type)} backend supports workspaces and you currently are\nusing more than one. The newly configured ${JSON.stringify(dst.type)} backend doesn't support\nworkspaces. If you continue, Terraform will copy your current workspace ${JSON.stringify(current)}\nto the default workspace in the new backend. Your existing workspaces in the\nsource backend won't be modified. If you want to switch workspaces, back them\nup, or cancel altogether, answer "no" and Terraform will abort.`,
      );
      if (typeof c !== 'boolean') return [c];
      if (!c) return [error('Migration aborted by user.')];
    }
    const d = await migrateWorkspace(src, dst, current, true, a, io, answers, 'default');
    if (!hasErrors(d)) {
      const dd = dataDir(io.env);
      mkdirSync(join(io.cwd, dd), { recursive: true });
      writeFileSync(join(io.cwd, dd, 'environment'), 'default');
    }
    return d;
  }
  if (!a.forceCopy) {
    if (!a.input) return [error("Can't ask approval for state migration when interactive input is disabled.\n\nPlease remove the \"-input=false\" option and try again.")];
    const c = await confirm(
      io,
      a,
      answers,
      `Do you want to migrate all workspaces to ${JSON.stringify(dst.type)}?`,
      `Both the existing ${JSON.stringify(src.type)} backend and the newly configured ${JSON.stringify(dst.type)} backend\nsupport workspaces. When migrating between backends, Terraform will copy\nall workspaces (with the same names). THIS WILL OVERWRITE any conflicting\nstates in the destination.\n\nTerraform initialization doesn't currently migrate only select workspaces.\nIf you want to migrate a select number of workspaces, you must manually\npull and push those states.\n\nIf you answer "yes", Terraform will migrate all states. If you answer\n"no", Terraform will abort.`,
    );
    if (typeof c !== 'boolean') return [c];
    if (!c) return [error('Migration aborted by user.')];
  }
  for (const ws of [...names].sort()) {
    const d = await migrateWorkspace(src, dst, ws, true, a, io, answers);
    if (d.length)
      return [
        error(
          `Error migrating the workspace ${JSON.stringify(ws)} from the previous ${JSON.stringify(src.type)} backend\nto the newly configured ${JSON.stringify(dst.type)} backend:\n    ${diagText(d)}\n\nTerraform copies workspaces in alphabetical order. Any workspaces\nalphabetically earlier than this one have been copied. Any workspaces\nlater than this haven't been modified in the destination. No workspaces\nin the source state have been modified.\n\nPlease resolve the error above and run the initialization command again.\nThis will attempt to copy (with permission) all workspaces again.`,
        ),
      ];
  }
  return [];
}

/** backendMigrateState_s_s for one workspace. */
function readEnvironmentFile(io: InitIO): string {
  try {
    return readFileSync(join(io.cwd, dataDir(io.env), 'environment'), 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}

async function migrateWorkspace(src: MigrationSide, dst: MigrationSide, ws: string, force: boolean, a: InitArgs, io: InitIO, answers: Answers, dstWs = ws): Promise<Diagnostic[]> {
  const loadErr = (type: string, msg: string) =>
    error(`Error loading state:\n    ${msg}\n\nTerraform failed to load the default state from the ${JSON.stringify(type)} backend.\nState migration cannot occur unless the state can be loaded. Backend\nmodification and state migration has been aborted. The state in both the\nsource and the destination remain unmodified. Please resolve the\nabove error and try again.`);
  let sm: StateManager, dm: StateManager;
  try {
    sm = (await src.backend.stateMgr(ws)) as StateManager;
  } catch (e) {
    return [loadErr(src.type, (e as Error).message)];
  }
  let rd = await sm.refresh();
  if (hasErrors(rd)) return [loadErr(src.type, diagText(rd))];
  if (!sm.read() || sm.read()!.empty()) return [];
  try {
    dm = (await dst.backend.stateMgr(dstWs)) as StateManager;
  } catch (e) {
    return [loadErr(dst.type, (e as Error).message)];
  }
  rd = await dm.refresh();
  if (hasErrors(rd)) return [loadErr(dst.type, diagText(rd))];
  const locks: [StateManager, string][] = [];
  try {
    if (a.lock) {
      for (const [m, op] of [
        [sm, 'migration source state'],
        [dm, 'migration destination state'],
      ] as const) {
        const r = await acquireLock(m, newLockInfo(op), a.lockTimeoutMs, () => io.stdout('Acquiring state lock. This may take a few moments...\n'));
        if (r.id === undefined) return r.diags;
        locks.push([m, r.id]);
      }
      rd = [...(await sm.refresh()), ...(await dm.refresh())];
      if (hasErrors(rd)) return [loadErr(src.type, diagText(rd))];
    }
    const source = sm.read();
    const dest = dm.read();
    if (!source || source.empty()) return [];
    if (!force) {
      if (!a.input) return [error("Can't ask approval for state migration when interactive input is disabled.\n\nPlease remove the \"-input=false\" option and try again.")];
      const c =
        !dest || dest.empty()
          ? await confirm(
              io,
              a,
              answers,
              'Do you want to copy existing state to the new backend?',
              `Pre-existing state was found while migrating the previous ${JSON.stringify(src.type)} backend to the\nnewly configured ${JSON.stringify(dst.type)} backend. No existing state was found in the newly\nconfigured ${JSON.stringify(dst.type)} backend. Do you want to copy this state to the new ${JSON.stringify(dst.type)}\nbackend? Enter "yes" to copy and "no" to start with an empty state.`,
            )
          : await confirm(
              io,
              a,
              answers,
              'Do you want to copy existing state to the new backend?',
              `Pre-existing state was found while migrating the previous ${JSON.stringify(src.type)} backend to the\nnewly configured ${JSON.stringify(dst.type)} backend. An existing non-empty state already exists in\nthe new backend. Do you want to overwrite the state in the new backend with the previous state?\nEnter "yes" to copy and "no" to start with the existing state in the newly\nconfigured ${JSON.stringify(dst.type)} backend.`,
            );
      if (typeof c !== 'boolean') return [c];
      if (!c) return [];
    }
    const meta = sm.meta();
    const file: StateFile = { terraformVersion: STATE_VERSION, serial: meta.serial, lineage: meta.lineage, state: source };
    const copyErr = (msg: string) =>
      error(`Error copying state from the previous ${JSON.stringify(src.type)} backend to the newly configured\n${JSON.stringify(dst.type)} backend:\n    ${msg}\n\nThe state in the previous backend remains intact and unmodified. Please resolve\nthe error above and try again.`);
    if (dst.backend instanceof LocalBackend) {
      // statemgr.Filesystem.WriteStateForMigration writes the source's lineage and serial as they are.
      const out = dst.backend.statePaths(dstWs).stateOut;
      const abs = isAbsolute(out) ? out : join(io.cwd, out);
      try {
        mkdirSync(dirname(abs), { recursive: true });
        writeFileSync(abs, writeStateFile(file));
      } catch (e) {
        return [copyErr((e as Error).message)];
      }
      return [];
    }
    const mig = dm as StateManager & { writeForMigration?: (f: StateFile) => void };
    if (mig.writeForMigration) mig.writeForMigration(file);
    else dm.write(source);
    const pd = await dm.persist();
    if (hasErrors(pd)) return [copyErr(diagText(pd))];
    return [];
  } finally {
    for (const [m, id] of locks.reverse()) await releaseLock(m, id);
  }
}
