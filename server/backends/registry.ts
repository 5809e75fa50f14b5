// The backend registry: backend type -> schema and factory (local, pg, http), the working directory's backend
// state file (`<data dir>/terraform.tfstate`, version 3, as Terraform's workdir.BackendStateFile), the hash of a
// backend block (configs.Backend.Hash: crc32 of cty's hash string of [type, config]), and the one function every
// command and the language server use to open the backend of a directory (Terraform's Meta.Backend for commands
// other than init).
//
// Siblings: local/ (LocalBackend), pg/ (configurePgBackend), http/ (configureHttpBackend, owned by the http
// backend's author; loaded lazily so this file builds without it). server/cli/init.ts records backends; the
// CLI's state/meta.ts and the language server open them with openBackend / CliBackend below.
// Contracts:
// - Factories take plain JS attribute values (the merged block and -backend-config values) and the environment;
//   they never connect. Backends with a `prepare()` (pg) are prepared before use; its errors are diagnostics.
// - openBackend never throws for user input: it returns Terraform's "Backend initialization required" errors
//   when the configuration's backend block no longer matches what init recorded.
// - Nothing here imports vscode or the language server.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { error, type Diagnostic } from '../diags/diagnostic';
import { readLockFileError } from '../depsfile/locks';
import type { Expression } from '../config/hclbody';
import type { Module } from '../config/model';
import { TERRAFORM_VERSION } from '../states/statefile';
import { goQuote } from '../lang/goquote';
import type { Full, Workspaces } from '../states/statemgr';
import type { ChangeListener, State } from '../states/state';
import { LocalBackend } from './local/backend';
import type { FilesystemStateManager } from './local/filesystem';
import { configurePgBackend, PG_SCHEMA } from './pg/index';

export type AttrType = 'string' | 'bool' | 'number';

/** Every backend's configuration schema (all attributes optional), as Terraform 1.11.4 declares it. */
export const BACKEND_SCHEMAS: Readonly<Record<string, Readonly<Record<string, AttrType>>>> = {
  local: { path: 'string', workspace_dir: 'string' },
  pg: PG_SCHEMA,
  http: {
    address: 'string',
    update_method: 'string',
    lock_address: 'string',
    unlock_address: 'string',
    lock_method: 'string',
    unlock_method: 'string',
    username: 'string',
    password: 'string',
    skip_cert_verification: 'bool',
    retry_max: 'number',
    retry_wait_min: 'number',
    retry_wait_max: 'number',
    client_ca_certificate_pem: 'string',
    client_certificate_pem: 'string',
    client_private_key_pem: 'string',
  },
};

/** Backend types Terraform 1.11.4 has but Foresight does not implement. */
export const OTHER_TERRAFORM_BACKENDS = ['azurerm', 'consul', 'cos', 'gcs', 'kubernetes', 'oss', 's3', 'remote', 'inmem'];

/** A state manager as commands use it; backends with an apply journal expose journalListener. */
export type StateManager = Full & { journalListener?(start: State): ChangeListener; locked?: boolean };

/** What `init` recorded: `<data dir>/terraform.tfstate`'s backend. */
export interface BackendState {
  type: string;
  config: Record<string, unknown>;
  hash: number;
}

export function dataDirOf(env: Readonly<Record<string, string | undefined>> | undefined): string {
  return env?.TF_DATA_DIR || '.terraform';
}

export function backendStatePath(dir: string, env: Readonly<Record<string, string | undefined>> | undefined): string {
  const d = dataDirOf(env);
  return join(isAbsolute(d) ? d : join(dir, d), 'terraform.tfstate');
}

/** The recorded backend; `error` when the file exists but cannot be read. */
export function readBackendState(dir: string, env: Readonly<Record<string, string | undefined>> | undefined): { state?: BackendState; error?: string } {
  let text: string;
  try {
    text = readFileSync(backendStatePath(dir, env), 'utf8');
  } catch {
    return {};
  }
  try {
    const doc = JSON.parse(text) as { backend?: { type?: unknown; config?: unknown; hash?: unknown } };
    const b = doc.backend;
    if (!b || typeof b.type !== 'string' || b.type === '') return {};
    return { state: { type: b.type, config: (b.config as Record<string, unknown>) ?? {}, hash: typeof b.hash === 'number' ? b.hash : 0 } };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Go's encoding/json of the backend state file (HTML-safe escapes, two-space indent, no trailing newline). */
export function backendStateJSON(st: BackendState): string {
  const cfg: Record<string, unknown> = {};
  for (const k of Object.keys(st.config).sort()) cfg[k] = st.config[k];
  const doc = { version: 3, terraform_version: TERRAFORM_VERSION, backend: { type: st.type, config: cfg, hash: st.hash } };
  return JSON.stringify(doc, null, 2).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

export function writeBackendState(dir: string, env: Readonly<Record<string, string | undefined>> | undefined, st: BackendState): void {
  const p = backendStatePath(dir, env);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, backendStateJSON(st));
}

/** The full config object of a type: every schema attribute, null when unset (what the state file records). */
export function fullConfig(type: string, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(BACKEND_SCHEMAS[type] ?? {}).sort()) out[k] = values[k] ?? null;
  return out;
}

/** cty's number formatting in hash strings (big.Float 'f', -1). */
function hashNumber(n: number): string {
  return Number.isInteger(n) ? BigInt(n).toString() : String(n);
}

/** crc32 (IEEE) as cty's Value.Hash uses it. */
function crc32(buf: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of buf) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** configs.Backend.Hash: the block's own values (not -backend-config), attributes in name order, null as `~`. */
export function backendHash(type: string, values: Record<string, unknown>): number {
  let s = `<${goQuote(type)};<`;
  for (const k of Object.keys(BACKEND_SCHEMAS[type] ?? {}).sort()) {
    const v = values[k];
    if (v === null || v === undefined) s += '~;';
    else if (typeof v === 'boolean') s += (v ? 'T' : 'F') + ';';
    else if (typeof v === 'number') s += hashNumber(v) + ';';
    else s += goQuote(String(v)) + ';';
  }
  s += '>;>';
  return crc32(Buffer.from(s, 'utf8'));
}

/**
 * Decodes a backend block's attributes against the type's schema (literal values only, as a backend block allows
 * no references): Terraform's "Unsupported argument" for unknown names, type errors for wrong literals.
 */
export function decodeBackendBlock(type: string, attributes: ReadonlyMap<string, Expression>): { values: Record<string, unknown>; diagnostics: Diagnostic[] } {
  const schema = BACKEND_SCHEMAS[type] ?? {};
  const values: Record<string, unknown> = {};
  const diags: Diagnostic[] = [];
  for (const [name, e] of attributes) {
    const t = schema[name];
    if (!t) {
      diags.push(error('Unsupported argument', `An argument named ${JSON.stringify(name)} is not expected here.`, e.range));
      continue;
    }
    const v = literalValue(e);
    if (v === undefined) {
      diags.push(error('Variables not allowed', 'Variables may not be used here.', e.range));
      continue;
    }
    const c = convertTo(v, t);
    if (c === undefined) diags.push(error('Incorrect attribute value type', `Inappropriate value for attribute ${JSON.stringify(name)}: ${t === 'bool' ? 'bool' : t} required.`, e.range));
    else values[name] = c;
  }
  return { values, diagnostics: diags };
}

/**
 * The value of a quoted HCL string without interpolation, escapes decoded (\\n \\r \\t \\" \\\\ \\uNNNN
 * \\UNNNNNNNN, $${ and %%{); undefined for anything else.
 */
export function quotedLiteral(text: string): string | undefined {
  if (text.length < 2 || text[0] !== '"' || text[text.length - 1] !== '"') return undefined;
  const body = text.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') {
      const n = body[i + 1];
      const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };
      if (n in simple) {
        out += simple[n];
        i++;
        continue;
      }
      const len = n === 'u' ? 4 : n === 'U' ? 8 : 0;
      const hex = body.slice(i + 2, i + 2 + len);
      if (!len || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== len) return undefined;
      out += String.fromCodePoint(parseInt(hex, 16));
      i += 1 + len;
      continue;
    }
    if ((c === '$' || c === '%') && body[i + 1] === c && body[i + 2] === '{') {
      out += c + '{';
      i += 2;
      continue;
    }
    if ((c === '$' || c === '%') && body[i + 1] === '{') return undefined;
    out += c;
  }
  return out;
}

function literalValue(e: Expression): string | number | boolean | null | undefined {
  if (e.shape === 'literal') return e.literal === undefined ? undefined : e.literal;
  if (e.shape === 'string') return quotedLiteral(e.text);
  return undefined;
}

/** cty conversion of a primitive literal to the schema type; undefined when impossible. */
export function convertTo(v: unknown, t: AttrType): unknown {
  if (v === null) return null;
  if (t === 'string') return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
  if (t === 'bool') {
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === 'false') return v === 'true';
    return undefined;
  }
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  return undefined;
}

export interface BackendOpenOptions {
  /** Working directory (relative paths, the data dir, journals). */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Local backend only: -state, -state-out, -backup. */
  statePath?: string;
  stateOutPath?: string;
  backupPath?: string;
}

/** Creates (and prepares) a backend of `type` from plain attribute values. */
export async function configureBackend(type: string, attrs: Record<string, unknown>, o: BackendOpenOptions): Promise<{ backend?: Workspaces; diagnostics: Diagnostic[] }> {
  if (type === 'local') {
    const str = (k: string) => (typeof attrs[k] === 'string' && attrs[k] !== '' ? (attrs[k] as string) : undefined);
    return {
      backend: new LocalBackend({ cwd: o.cwd, env: o.env, configPath: str('path'), workspaceDir: str('workspace_dir'), statePath: o.statePath || undefined, stateOutPath: o.stateOutPath || undefined, backupPath: o.backupPath }),
      diagnostics: [],
    };
  }
  let r: { backend?: Workspaces; diagnostics: Diagnostic[] };
  if (type === 'pg') {
    const d = dataDirOf(o.env);
    r = configurePgBackend(attrs, o.env, { journalDir: isAbsolute(d) ? d : join(o.cwd, d) });
  } else if (type === 'http') {
    const mod = await loadHttp();
    if (!mod) return { diagnostics: [error('Unsupported backend', 'The http backend is not available in this build of Foresight.')] };
    r = mod.configureHttpBackend(attrs, o.env, { cwd: o.cwd });
  } else return { diagnostics: [error('Invalid backend type', `There is no backend type named ${JSON.stringify(type)}.`)] };
  if (!r.backend) return r;
  const prep = (r.backend as { prepare?: () => Promise<Diagnostic[]> }).prepare;
  if (prep) {
    const d = await prep.call(r.backend);
    if (d.length) return { diagnostics: [...r.diagnostics, ...d] };
  }
  return r;
}

type HttpModule = { configureHttpBackend(attrs: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>, opts?: { cwd?: string }): { backend?: Workspaces; diagnostics: Diagnostic[] } };
async function loadHttp(): Promise<HttpModule | undefined> {
  try {
    // A literal specifier, so esbuild bundles the http backend (an import of a variable stays a runtime lookup).
    return (await import('./http/index')) as HttpModule;
  } catch {
    return undefined;
  }
}

const ERR_BACKEND_INIT = (reason: string) =>
  `Reason: ${reason}\n\nThe "backend" is the interface that Terraform uses to store state,\nperform operations, etc. If this message is showing up, it means that the\nTerraform configuration you're using is using a custom configuration for\nthe Terraform backend.\n\nChanges to backend configurations require reinitialization. This allows\nTerraform to set up the new configuration, copy existing state, etc. Please run\n"terraform init" with either the "-reconfigure" or "-migrate-state" flags to\nuse the current configuration.\n\nIf the change reason above is incorrect, please verify your configuration\nhasn't changed and try again. At this point, no changes to your existing\nconfiguration or state have been made.`;

/** The configuration's backend block as Meta.Backend sees it. */
export interface ConfiguredBlock {
  type: string;
  attributes: ReadonlyMap<string, Expression>;
}

/**
 * Which backend a command uses (Meta.backendFromConfig with opts.Init false): the recorded one when the block is
 * unchanged (same hash, or same decoded values), local state when neither exists, else Terraform's
 * "Backend initialization required" error.
 */
export function chooseBackend(block: ConfiguredBlock | undefined, saved: BackendState | undefined): { type: string; config: Record<string, unknown>; diagnostics: Diagnostic[] } {
  const req = (summary: string, reason: string) => ({ type: 'local', config: {}, diagnostics: [error(summary, ERR_BACKEND_INIT(reason))] });
  if (!block) {
    if (!saved) return { type: 'local', config: {}, diagnostics: [] };
    return req('Backend initialization required, please run "terraform init"', `Unsetting the previously set backend ${JSON.stringify(saved.type)}`);
  }
  if (!saved) {
    // A local block that was never initialised keeps working on local state (Foresight leniency kept from before).
    if (block.type === 'local') {
      const d = decodeBackendBlock('local', block.attributes);
      return { type: 'local', config: d.values, diagnostics: [] };
    }
    return req('Backend initialization required, please run "terraform init"', `Initial configuration of the requested backend ${JSON.stringify(block.type)}`);
  }
  if (!(block.type in BACKEND_SCHEMAS)) return { type: 'local', config: {}, diagnostics: [error('Invalid backend type', `There is no backend type named ${JSON.stringify(block.type)}.`)] };
  const dec = decodeBackendBlock(block.type, block.attributes);
  if (saved.type === block.type && backendHash(block.type, dec.values) === saved.hash) return { type: saved.type, config: saved.config, diagnostics: [] };
  if (saved.type === block.type && !dec.diagnostics.length) {
    const given = fullConfig(block.type, dec.values);
    const cached = fullConfig(saved.type, saved.config);
    if (JSON.stringify(given) === JSON.stringify(cached)) return { type: saved.type, config: saved.config, diagnostics: [] };
  }
  const reason = saved.type !== block.type ? `Backend type changed from ${JSON.stringify(saved.type)} to ${JSON.stringify(block.type)}` : 'Backend configuration block has changed';
  return req('Backend initialization required: please run "terraform init"', reason);
}

/** TF_WORKSPACE, else `<data dir>/environment`, else "default" (Meta.Workspace). */
export function selectedWorkspace(dir: string, env: Readonly<Record<string, string | undefined>>): string {
  if (env.TF_WORKSPACE) return env.TF_WORKSPACE;
  const d = dataDirOf(env);
  try {
    const name = readFileSync(join(isAbsolute(d) ? d : join(dir, d), 'environment'), 'utf8').trim();
    if (name) return name;
  } catch {
    // none recorded
  }
  return 'default';
}

export class BackendOpenError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => (d.detail ? `${d.summary}\n\n${d.detail}` : d.summary)).join('\n\n'));
  }
}

/**
 * Opens the backend of a working directory as commands do: `block` is the root module's backend block (pass
 * undefined when there is none). The language server uses this to plan against the shared state.
 */
export async function openBackend(block: ConfiguredBlock | undefined, o: BackendOpenOptions): Promise<{ type: string; backend?: Workspaces; diagnostics: Diagnostic[] }> {
  const rs = readBackendState(o.cwd, o.env);
  if (rs.error) return { type: 'local', diagnostics: [error(`Failed to load state: ${rs.error}`)] };
  const c = chooseBackend(block, rs.state);
  if (c.diagnostics.length) return { type: c.type, diagnostics: c.diagnostics };
  // Terraform builds the provider factories when it wraps the backend for local operations (backendCLIOpts), so
  // every command that opens the backend fails on a lock file with errors, even one that needs no provider.
  const lockError = await readLockFileError(o.cwd);
  if (lockError) return { type: c.type, diagnostics: [lockError] };
  const r = await configureBackend(c.type, c.config, o);
  return { type: c.type, ...r };
}

/**
 * The CLI's view of the working directory's backend, with LocalBackend's synchronous shape (currentWorkspace,
 * selectWorkspace, statePaths) so commands written for the local backend work on every backend. The backend is
 * opened on first use; a failure to open is thrown as BackendOpenError from the async methods.
 */
export class CliBackend {
  private opened: Promise<{ type: string; backend?: Workspaces; diagnostics: Diagnostic[] }> | undefined;
  /** The local backend's options (plan sets stateOutPath here). */
  readonly opts: { stateOutPath?: string };
  private readonly recorded: BackendState | undefined;

  constructor(
    private readonly o: BackendOpenOptions,
    private readonly block: () => Promise<ConfiguredBlock | undefined>,
  ) {
    this.opts = o;
    this.recorded = readBackendState(o.cwd, o.env).state;
  }

  /** The backend type commands will use, as far as the recorded state tells (before opening). */
  get recordedType(): string {
    return this.recorded?.type ?? 'local';
  }

  private async open(): Promise<Workspaces> {
    if (!this.opened) this.opened = this.block().then((b) => openBackend(b, { ...this.o, stateOutPath: this.opts.stateOutPath }));
    const r = await this.opened;
    if (!r.backend) throw new BackendOpenError(r.diagnostics);
    return r.backend;
  }

  /** The opened backend's type and any errors, without throwing. */
  async check(): Promise<{ type: string; diagnostics: Diagnostic[] }> {
    try {
      await this.open();
    } catch (e) {
      if (e instanceof BackendOpenError) return { type: 'local', diagnostics: e.diagnostics };
      return { type: 'local', diagnostics: [error((e as Error).message)] };
    }
    return { type: (await this.opened!).type, diagnostics: [] };
  }

  /** Releases what opening took (a pg connection pool); for a backend opened only to be checked. */
  async close(): Promise<void> {
    const b = (await this.opened?.catch(() => undefined))?.backend as { close?: () => Promise<void> } | undefined;
    await b?.close?.().catch(() => undefined);
  }

  currentWorkspace(): string {
    return selectedWorkspace(this.o.cwd, this.o.env);
  }

  selectWorkspace(name: string): void {
    const d = dataDirOf(this.o.env);
    const dir = isAbsolute(d) ? d : join(this.o.cwd, d);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'environment'), name);
  }

  /** The local backend's paths (for a remote backend: the local default paths, which do not exist). */
  statePaths(ws: string): ReturnType<LocalBackend['statePaths']> {
    const cfg = this.recorded?.type === 'local' ? this.recorded.config : {};
    const str = (k: string) => (typeof cfg[k] === 'string' && cfg[k] !== '' ? (cfg[k] as string) : undefined);
    return new LocalBackend({ cwd: this.o.cwd, env: this.o.env, configPath: str('path'), workspaceDir: str('workspace_dir'), statePath: this.o.statePath || undefined, stateOutPath: this.opts.stateOutPath || undefined, backupPath: this.o.backupPath }).statePaths(ws);
  }

  async workspaces(): Promise<string[]> {
    return (await this.open()).workspaces();
  }

  /**
   * The workspace's state manager. Typed as the local backend's manager because the commands (and the language
   * server's preview) were written against it; every backend's manager implements what they call on it: the
   * statemgr.Full methods, journalListener and lockInfoPath (pg: a path that never exists, it stores no lock info).
   */
  async stateMgr(ws: string): Promise<FilesystemStateManager> {
    return (await (await this.open()).stateMgr(ws)) as unknown as FilesystemStateManager;
  }

  async deleteWorkspace(ws: string, force: boolean): Promise<Diagnostic[]> {
    return (await this.open()).deleteWorkspace(ws, force);
  }
}


/**
 * What Terraform's Backend() reports when it opens the working directory's backend for a command that then does not
 * use it (console, graph, providers, output, the state commands): "Backend initialization required", a lock file with
 * errors, a database that cannot be reached. `root` is the loaded root module (its backend block). Empty when the
 * backend opens; what opening took is released.
 */
export async function backendOpenErrors(cwd: string, env: Readonly<Record<string, string | undefined>>, root: Pick<Module, 'terraform'>): Promise<Diagnostic[]> {
  const b = new CliBackend({ cwd, env }, async () => root.terraform.find((t) => t.backend)?.backend);
  const r = await b.check();
  await b.close();
  return r.diagnostics;
}

/** The diagnostics of a failure to open the backend (BackendOpenError), or the error's text as one diagnostic. */
export function backendErrorDiagnostics(e: unknown): Diagnostic[] {
  if (e instanceof BackendOpenError) return e.diagnostics;
  return [error((e as Error)?.message ?? String(e))];
}

/**
 * The configured backend of a directory, for the language server and other callers outside the CLI: reads the
 * root module's backend block from disk and opens what `init` recorded (or the local backend), with the selected
 * workspace. Never throws for user input; errors are diagnostics (e.g. "Backend initialization required").
 */
export async function openDirectoryBackend(
  dir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<{ type: string; workspace: string; backend?: Workspaces; diagnostics: Diagnostic[] }> {
  const { loadModuleTree } = await import('../config/load');
  const res = await loadModuleTree(dir);
  const block = res.module.terraform.find((t) => t.backend)?.backend;
  try {
    const r = await openBackend(block, { cwd: dir, env });
    return { ...r, workspace: selectedWorkspace(dir, env) };
  } catch (e) {
    return { type: 'local', workspace: selectedWorkspace(dir, env), diagnostics: backendErrorDiagnostics(e) };
  }
}
