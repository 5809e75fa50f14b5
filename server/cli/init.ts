// `foresight init [options]`: Terraform 1.11's init command, for what Foresight can do offline.
//
// Steps and output, in Terraform's order (human, -no-color, -json views; colour codes as Terraform's
// colorize prints them; TF_IN_AUTOMATION=1 drops the closing "You may now begin working" paragraph):
//   1. flags (-input, -upgrade, -reconfigure, -migrate-state, -force-copy, -backend, -get, -lock,
//      -lock-timeout, -lockfile, -no-color, -json, -var/-var-file, -test-directory accepted); a positional
//      argument is "Too many command line arguments. Did you mean to use -chdir?";
//   2. a directory without configuration files: "Terraform initialized in an empty directory!";
//   3. "Initializing the backend..." (only the local backend; nothing is written for it);
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
import { join } from 'node:path';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { error, hasErrors, warning } from '../diags/diagnostic';
import { renderDiagnosticsView } from '../diags/render';
import { loadModuleTree } from '../config/load';
import type { LoadResult } from '../config/load';
import { checkCoreVersionRequirements } from '../versions/required';
import type { ModuleRecord } from '../depsfile/modules';
import { checkModulesInstalled, dataDir, installLocalModules, isLocalSource, readModuleManifest, writeModuleManifest } from '../depsfile/modules';
import type { Module } from '../config/model';
import type { ProviderLock } from '../depsfile/locks';
import { locksEqual, readLockFile, writeLockFile } from '../depsfile/locks';
import type { AvailableProvider } from '../providers/resolve';
import { stateProviders } from '../providers/resolve';
import { checkRequiredProviderSources, foresightProviders, providerVersionsFromWarnings, redundantEmptyProviderWarnings, selectProviders, treeRequirements } from '../providers/resolve';
import { compareProviders, isBuiltIn, parseFullyQualified, providerForDisplay, providerString } from '../addrs/provider';
import { providerConstraintsString } from '../versions/provider';
import { goJson, jsonDiagnostic } from './validate';
import { goQuote } from '../states/statefile';
import { TERRAFORM_VERSION } from './version';
import { incompleteLockWarning, installPackage, loadCliConfig, selectExternal } from '../plugin/discovery';

export interface InitIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
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

/** tfdiags' order: warnings first, sourceless first, then by file depth, name, start, end (stable). */
export function sortDiagnostics(diags: readonly Diagnostic[]): Diagnostic[] {
  const depth = (f: string) => f.split('/').length;
  return diags
    .map((d, i) => ({ d, i }))
    .sort((x, y) => {
      const a = x.d;
      const b = y.d;
      if (a.severity !== b.severity) return a.severity === 'warning' ? -1 : 1;
      if (!a.subject !== !b.subject) return a.subject ? 1 : -1;
      if (a.subject && b.subject) {
        const s = a.subject;
        const t = b.subject;
        if (s.filename !== t.filename) {
          if (depth(s.filename) !== depth(t.filename)) return depth(s.filename) - depth(t.filename);
          return s.filename < t.filename ? -1 : 1;
        }
        if (s.start.byte !== t.start.byte) return s.start.byte - t.start.byte;
        if (s.end.byte !== t.end.byte) return s.end.byte - t.end.byte;
      }
      return x.i - y.i;
    })
    .map((x) => x.d);
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
  const r: InitArgs = { reconfigure: false, uiColor: true, json: false, color: true, upgrade: false, getModules: true, backend: true, lockfileReadonly: false, positional: [] };
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
    const b = initBackend(dir, res, a, io.env);
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
  if (hasErrors(locks.diagnostics)) {
    // Terraform flattens the lock file's diagnostics into one sourceless error (tfdiags' Err() text).
    const ld = locks.diagnostics;
    const one = (d: Diagnostic) => (d.detail ? `${d.summary}: ${d.detail}` : d.summary);
    const text = ld.length === 1 ? one(ld[0]) : `${ld.length} problems:\n` + ld.map((d) => `\n- ${one(d)}`).join('');
    view.diagnostics([...diags, error(`failed to read dependency lock file: ${text}`)]);
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
    const pick = selectExternal(cliCfg, k, disp, r.constraints, a.upgrade ? undefined : prior?.version, a.upgrade);
    if ('error' in pick) {
      sel.diagnostics.push(pick.error);
      continue;
    }
    const v = pick.candidate.version;
    const inst = await installPackage(dir, env, cliCfg, pick.candidate, prior, disp);
    if ('error' in inst) {
      view.log(`- Installing ${disp} v${v}...`, `Installing provider version: ${disp} v${v}...`);
      sel.diagnostics.push(inst.error);
      continue;
    }
    if (inst.action === 'reused') view.log(`- Using previously-installed ${disp} v${v}`, `${disp} v${v}: Using previously-installed provider version`);
    else {
      view.log(`- Installing ${disp} v${v}...`, `Installing provider version: ${disp} v${v}...`);
      view.log(`- Installed ${disp} v${v} (unauthenticated)`, `Installed provider version: ${disp} v${v} (unauthenticated)`);
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
  if (incomplete.length) diags.push(incompleteLockWarning(incomplete));
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

const REMOTE_BACKENDS = ['azurerm', 'consul', 'cos', 'gcs', 'http', 'kubernetes', 'oss', 'pg', 's3', 'remote', 'cloud'];

/** crc32 (IEEE), as cty's Value.Hash uses it. */
function crc32(buf: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of buf) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * The backend step of init for the local backend, as Terraform's Meta.backendFromConfig does it:
 *   - a `backend "local"` block not yet recorded (or -reconfigure): .terraform/terraform.tfstate records the
 *     type, the configuration (path, workspace_dir) and its hash (cty's Value.Hash of [type, config]), and
 *     "Successfully configured the backend "local"!..." is printed (in colour even in the JSON view);
 *   - unchanged (same hash): nothing;
 *   - changed, or removed while recorded: "Backend configuration changed" (-reconfigure records anew);
 *   - other backend types and `cloud` blocks: an error (Foresight has only the local backend), as is moving existing local
 *     state into a newly configured path (Foresight does not migrate state).
 */
function initBackend(dir: string, res: LoadResult, a: InitArgs, env?: Readonly<Record<string, string | undefined>>): { message?: string; diagnostics: Diagnostic[] } {
  const BACKEND_STATE = join(dataDir(env), 'terraform.tfstate');
  const diags: Diagnostic[] = [];
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
  let saved: { backend?: { type?: string; hash?: number; config?: Record<string, unknown> } } | undefined;
  try {
    saved = JSON.parse(readFileSync(join(dir, BACKEND_STATE), 'utf8'));
  } catch {
    saved = undefined;
  }
  const savedBackend = a.reconfigure ? undefined : saved?.backend?.type ? saved.backend : undefined;
  const changed = error(
    'Backend configuration changed',
    'A change in the backend configuration has been detected, which may require migrating existing state.\n\nIf you wish to attempt automatic migration of the state, use "terraform init -migrate-state".\nIf you wish to store the current configuration with no changes to the state, use "terraform init -reconfigure".',
  );
  if (!block) {
    if (savedBackend) diags.push(changed);
    return { diagnostics: diags };
  }
  if (savedBackend && savedBackend.type !== block.type) {
    diags.push(changed);
    return { diagnostics: diags };
  }
  if (block.type !== 'local') {
    diags.push(
      REMOTE_BACKENDS.includes(block.type)
        ? error('Unsupported backend', `Foresight supports only the "local" backend; it cannot use the ${JSON.stringify(block.type)} backend.`, block.typeRange)
        : error('Invalid backend type', `There is no backend type named ${JSON.stringify(block.type)}.`),
    );
    return { diagnostics: diags };
  }
  const config: Record<string, string | null> = { path: null, workspace_dir: null };
  for (const [name, e] of block.attributes) {
    if (!(name in config)) {
      diags.push(error('Unsupported argument', `An argument named "${name}" is not expected here.`, e.range));
      continue;
    }
    const lit = e.shape === 'string' ? quotedLiteral(e.text) : undefined;
    if (lit !== undefined) config[name] = lit;
    else if (!(e.shape === 'literal' && e.literal === null)) diags.push(error('Incorrect attribute value type', `Inappropriate value for attribute "${name}": string required.`, e.range));
  }
  if (hasErrors(diags)) return { diagnostics: diags };
  const hashText = `<"local";<${config.path === null ? '~' : goQuote(config.path)};${config.workspace_dir === null ? '~' : goQuote(config.workspace_dir)};>;>`;
  const hash = crc32(Buffer.from(hashText, 'utf8'));
  if (savedBackend) {
    if (savedBackend.hash === hash) return { diagnostics: diags };
    if (savedBackend.type !== 'local' || JSON.stringify(savedBackend.config ?? {}) !== JSON.stringify(config)) {
      diags.push(changed);
      return { diagnostics: diags };
    }
  } else if ((config.path ?? 'terraform.tfstate') !== 'terraform.tfstate' || config.workspace_dir !== null) {
    // Moving existing state into the new location is a migration Foresight does not do.
    let hasState = false;
    try {
      const st = JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')) as { resources?: unknown[]; outputs?: object };
      hasState = (st.resources?.length ?? 0) > 0 || Object.keys(st.outputs ?? {}).length > 0;
    } catch {
      hasState = false;
    }
    if (hasState) {
      diags.push(
        error(
          'State migration not supported',
          `The working directory has state in terraform.tfstate, and the "local" backend is now configured to keep state elsewhere. Foresight does not migrate state between backend configurations; move the state file yourself or run "terraform init -migrate-state".`,
          block.typeRange,
        ),
      );
      return { diagnostics: diags };
    }
  }
  const doc = { version: 3, terraform_version: TERRAFORM_VERSION, backend: { type: 'local', config, hash } };
  mkdirSync(join(dir, dataDir(env)), { recursive: true });
  writeFileSync(join(dir, BACKEND_STATE), goJson(doc));
  if (savedBackend) return { diagnostics: diags };
  return {
    message: '[reset][green]\nSuccessfully configured the backend "local"! Terraform will automatically\nuse this backend unless the backend configuration changes.',
    diagnostics: diags,
  };
}
