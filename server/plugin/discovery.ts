// Finding provider binaries as Terraform 1.11 does (the client side of issue 10; no network ever).
//
// What is read:
//   - the CLI configuration (command/cliconfig): TF_CLI_CONFIG_FILE, else ~/.terraformrc; its
//     `plugin_cache_dir` (TF_PLUGIN_CACHE_DIR wins) and `provider_installation` block with
//     `filesystem_mirror { path include exclude }`, `direct { include exclude }` (the registries: never
//     contacted, said so), `network_mirror { url include exclude }` (netmirror.ts, HTTPS) and
//     `dev_overrides { "host/ns/type" = "DIR" }`. Without a provider_installation block the
//     implied local mirrors are used (terraform.d/plugins in the working directory, ~/.terraform.d/plugins,
//     $XDG_DATA_HOME/terraform/plugins and /usr/local/share/terraform/plugins, /usr/share/terraform/plugins);
//   - mirror and cache layouts: unpacked `<root>/<host>/<ns>/<type>/<version>/<os_arch>/terraform-provider-<type>*`
//     and packed `<root>/<host>/<ns>/<type>/terraform-provider-<type>_<version>_<os>_<arch>.zip` (zip.ts unpacks
//     them into the data directory or the plugin cache as Terraform's installer does);
//   - the working directory's installed packages `<TF_DATA_DIR>/providers/<host>/<ns>/<type>/<version>/<os_arch>/`
//     (terraform init writes a symlink to the mirror / cache directory, or a copy);
//   - the hashes of `.terraform.lock.hcl`: `h1:` (golang.org/x/mod dirhash Hash1 of the package directory: sha256 of
//     the lines "<sha256 hex>  <relative path>\n" of every regular file, sorted by path) and `zh:` (sha256 hex of a
//     packed .zip archive). A package matching none of the recorded hashes gets Terraform's error text.
//
// Contract: pure lookups with diagnostics for problems, never exceptions for bad input; the only costly part is
// hashing (a 700 MB aws binary takes about two seconds), remembered in memory and on disk (hashPackageDir) by
// each file's path, size, mtime, ctime, inode and device.
// Siblings: client/ (starts what this finds), pool.ts (reuses processes), server/cli/init.ts (installs).

import { createHash } from 'node:crypto';
import { createReadStream, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Diagnostic } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type { Block, Expression } from '../config/hclbody';
import { readHclBody } from '../config/parsebody';
import type { ProviderAddr } from '../addrs/provider';
import { isAddrError, parseProviderSource, providerString, UNKNOWN_NAMESPACE } from '../addrs/provider';
import type { ProviderConstraint } from '../versions/provider';
import { newestMeeting, parseSemVer, providerConstraintsString } from '../versions/provider';
import { extractZip, hashZipH1 } from './zip';
import { authenticateArchive, NetworkMirror } from './netmirror';
import { defaultSchemaCacheDir } from './schemacache';

export type Env = Readonly<Record<string, string | undefined>>;

/** One installation method of a provider_installation block, in declaration order. */
export interface InstallationMethod {
  kind: 'filesystem_mirror' | 'direct' | 'network_mirror';
  /** filesystem_mirror path (absolute), network_mirror url. */
  location?: string;
  include: string[];
  exclude: string[];
}

export interface CliConfig {
  /** The file read, if any. */
  file?: string;
  pluginCacheDir?: string;
  /** Explicit provider_installation methods, or the implied ones (local mirrors + direct). */
  methods: InstallationMethod[];
  explicitInstallation: boolean;
  /** dev_overrides: fully qualified provider address → directory holding the executable. */
  devOverrides: Map<string, string>;
  diagnostics: Diagnostic[];
}

/** Terraform's platform string for this machine (os_arch). */
export function currentPlatform(): string {
  const arch: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  return `${os}_${arch[process.arch] ?? process.arch}`;
}

function home(env: Env): string {
  return env.HOME || homedir();
}

function expandHome(p: string, env: Env): string {
  return p === '~' ? home(env) : p.startsWith('~/') ? join(home(env), p.slice(2)) : p;
}

function str(e: Expression | undefined): string | undefined {
  return e && (e.shape === 'string' || e.shape === 'literal') && typeof e.literal === 'string' ? e.literal : undefined;
}

function strList(e: Expression | undefined, diags: Diagnostic[], what: string): string[] {
  if (!e) return [];
  if (e.shape !== 'tuple') {
    diags.push(error('Invalid CLI configuration', `The ${what} argument must be a list of strings.`, e.range));
    return [];
  }
  const out: string[] = [];
  for (const x of e.elems ?? []) {
    const s = str(x);
    if (s === undefined) diags.push(error('Invalid CLI configuration', `The ${what} argument must be a list of strings.`, x.range));
    else out.push(s);
  }
  return out;
}

/** The implied local mirror directories (cliconfig.implicitProviderInstallation's search paths). */
export function impliedMirrorDirs(workDir: string, env: Env): string[] {
  const dirs = [join(workDir, 'terraform.d', 'plugins'), join(home(env), '.terraform.d', 'plugins')];
  const xdg = env.XDG_DATA_HOME || join(home(env), '.local', 'share');
  dirs.push(join(xdg, 'terraform', 'plugins'));
  const dataDirs = (env.XDG_DATA_DIRS || '/usr/local/share:/usr/share').split(':').filter(Boolean);
  for (const d of dataDirs) dirs.push(join(d, 'terraform', 'plugins'));
  return dirs;
}

/** Parses CLI configuration text (HCL). `filename` names it in diagnostics. */
export async function parseCliConfig(text: string, filename: string, env: Env = process.env): Promise<Omit<CliConfig, 'methods' | 'explicitInstallation'> & { methods?: InstallationMethod[] }> {
  const diags: Diagnostic[] = [];
  const out: Omit<CliConfig, 'methods' | 'explicitInstallation'> & { methods?: InstallationMethod[] } = { file: filename, devOverrides: new Map(), diagnostics: diags };
  // The CLI configuration is HCL 1, which allows quoted argument names (dev_overrides keys): they are swapped
  // for identifiers of the same length before parsing with the HCL 2 grammar, and mapped back after.
  const quoted: string[] = [];
  const hcl2 = text.replace(/^(\s*)"([^"\n]*)"(\s*=)/gm, (_m, sp: string, key: string, eq: string) => {
    const id = `q${quoted.length}_`;
    quoted.push(key);
    return sp + id.padEnd(key.length + 2, '_') + eq;
  });
  const file = await readHclBody(hcl2, filename);
  diags.push(...file.syntax, ...file.conversion);
  const body = file.body;
  if (!body) return out;
  if (diags.some((d) => d.severity === 'error')) return out;
  for (const a of body.attributes) {
    if (a.name === 'plugin_cache_dir') {
      const s = str(a.expr);
      if (s !== undefined) out.pluginCacheDir = expandHome(s, env);
    }
  }
  const pis = body.blocks.filter((b) => b.type === 'provider_installation');
  if (pis.length > 1) diags.push(error('Multiple provider_installation blocks', 'The CLI configuration may contain only one provider_installation block.', pis[1].typeRange));
  const unquote = (name: string) => {
    const m = /^q(\d+)_+$/.exec(name);
    return m ? quoted[Number(m[1])] : name;
  };
  if (pis.length) out.methods = installationMethods(pis[0], out.devOverrides, diags, env, unquote);
  return out;
}

function installationMethods(pi: Block, devOverrides: Map<string, string>, diags: Diagnostic[], env: Env, unquote: (n: string) => string): InstallationMethod[] {
  const methods: InstallationMethod[] = [];
  for (const b of pi.body.blocks) {
    const attr = (n: string) => b.body.attributes.find((a) => a.name === n)?.expr;
    if (b.type === 'dev_overrides') {
      for (const a of b.body.attributes) devOverride(unquote(a.name), a.expr, devOverrides, diags, env);
      continue;
    }
    if (b.type !== 'filesystem_mirror' && b.type !== 'direct' && b.type !== 'network_mirror') {
      diags.push(error('Invalid provider_installation method block', `Unknown provider installation method "${b.type}".`, b.typeRange));
      continue;
    }
    const m: InstallationMethod = { kind: b.type, include: strList(attr('include'), diags, 'include'), exclude: strList(attr('exclude'), diags, 'exclude') };
    if (b.type === 'filesystem_mirror') {
      const p = str(attr('path'));
      if (p === undefined) {
        diags.push(error('Invalid filesystem_mirror block', 'A filesystem_mirror block must have an argument named "path".', b.typeRange));
        continue;
      }
      m.location = expandHome(p, env);
    }
    if (b.type === 'network_mirror') m.location = str(attr('url'));
    methods.push(m);
  }
  return methods;
}

function devOverride(key: string, e: Expression, out: Map<string, string>, diags: Diagnostic[], env: Env): void {
  const k = key;
  const addr = normalizeAddr(k);
  const dir = str(e);
  if (!addr || dir === undefined) {
    diags.push(error('Invalid provider_installation dev_overrides', `Cannot use ${JSON.stringify(k)} as a provider source address with a directory.`, e.range));
    return;
  }
  out.set(providerString(addr), expandHome(dir, env));
}

function normalizeAddr(s: string): ProviderAddr | undefined {
  const p = parseProviderSource(s);
  if (isAddrError(p)) return undefined;
  return p.namespace === UNKNOWN_NAMESPACE ? { ...p, namespace: 'hashicorp' } : p;
}

const cliConfigCache = new Map<string, { text: string | undefined; cfg: Promise<CliConfig> }>();

/** Reads the CLI configuration Terraform would read for this environment (TF_CLI_CONFIG_FILE, ~/.terraformrc). */
export async function loadCliConfig(workDir: string, env: Env = process.env): Promise<CliConfig> {
  const file = env.TF_CLI_CONFIG_FILE || env.TERRAFORM_CONFIG || join(home(env), '.terraformrc');
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = undefined;
  }
  const key = `${file}\0${workDir}\0${env.TF_PLUGIN_CACHE_DIR ?? ''}\0${home(env)}`;
  const hit = cliConfigCache.get(key);
  if (hit && hit.text === text) return hit.cfg;
  const cfg = (async (): Promise<CliConfig> => {
    const parsed = text === undefined ? { devOverrides: new Map<string, string>(), diagnostics: [] as Diagnostic[] } : await parseCliConfig(text, file, env);
    const pluginCacheDir = env.TF_PLUGIN_CACHE_DIR || ('pluginCacheDir' in parsed ? parsed.pluginCacheDir : undefined);
    const explicit = 'methods' in parsed && parsed.methods !== undefined;
    const methods: InstallationMethod[] = explicit
      ? parsed.methods!
      : [
          ...impliedMirrorDirs(workDir, env)
            .filter((d) => existsSync(d))
            .map((d) => ({ kind: 'filesystem_mirror' as const, location: d, include: [], exclude: [] })),
          { kind: 'direct', include: [], exclude: [] },
        ];
    return { file: text === undefined ? undefined : file, pluginCacheDir, methods, explicitInstallation: explicit, devOverrides: parsed.devOverrides, diagnostics: parsed.diagnostics };
  })();
  cliConfigCache.set(key, { text, cfg });
  return cfg;
}

/** Whether a provider address matches an include/exclude pattern ("host/ns/type" with `*` wildcards). */
export function matchesPattern(fqn: string, pattern: string): boolean {
  const addr = fqn.split('/');
  let parts = pattern.split('/');
  if (parts.length === 2) parts = ['registry.terraform.io', ...parts];
  if (parts.length === 1) parts = ['registry.terraform.io', 'hashicorp', ...parts];
  if (parts.length !== 3) return false;
  return parts.every((p, i) => p === '*' || p.toLowerCase() === addr[i]?.toLowerCase());
}

export function methodApplies(m: InstallationMethod, fqn: string): boolean {
  if (m.include.length && !m.include.some((p) => matchesPattern(fqn, p))) return false;
  return !m.exclude.some((p) => matchesPattern(fqn, p));
}

// ---- package layouts ---------------------------------------------------------------------------------------

/** A provider package found somewhere on disk. */
export interface PackageDir {
  fqn: string;
  version: string;
  platform: string;
  /** The package directory (unpacked) or the .zip archive (packed). */
  location: string;
  packed: boolean;
}

function listDir(d: string): string[] {
  try {
    return readdirSync(d);
  } catch {
    return [];
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The packages of one provider under a mirror or cache root (both layouts), for the current platform. */
export function packagesIn(root: string, fqn: string, platform = currentPlatform()): PackageDir[] {
  const [host, ns, type] = fqn.split('/');
  const base = join(root, host, ns, type);
  const out: PackageDir[] = [];
  for (const name of listDir(base)) {
    const full = join(base, name);
    if (parseSemVer(name) && isDir(join(full, platform))) out.push({ fqn, version: name, platform, location: join(full, platform), packed: false });
    const packed = parsePackedName(name, type);
    if (packed && packed.platform === platform && !isDir(full)) out.push({ fqn, version: packed.version, platform, location: full, packed: true });
  }
  return out;
}

/** Every version of a provider a mirror holds for any platform (FilesystemMirrorSource.AvailableVersions). */
export function versionsIn(root: string, fqn: string): string[] {
  const [host, ns, type] = fqn.split('/');
  const base = join(root, host, ns, type);
  const out = new Set<string>();
  for (const name of listDir(base)) {
    const full = join(base, name);
    if (parseSemVer(name) && isDir(full) && listDir(full).some((p) => /^[a-z0-9]+_[a-z0-9]+$/.test(p) && isDir(join(full, p)))) out.add(name);
    const packed = parsePackedName(name, type);
    if (packed && !isDir(full)) out.add(packed.version);
  }
  return [...out];
}

/**
 * The version and platform a packed archive's file name announces (SearchLocalDirectory: compared in lower case,
 * `terraform-provider-<type>_` prefix, `.zip` suffix, then `<version>_<os>_<arch>`), or undefined.
 */
export function parsePackedName(name: string, type: string): { version: string; platform: string } | undefined {
  const norm = name.toLowerCase();
  const prefix = `terraform-provider-${type.toLowerCase()}_`;
  if (!norm.startsWith(prefix) || !norm.endsWith('.zip')) return undefined;
  const parts = norm.slice(prefix.length, -4).split('_');
  if (parts.length < 3 || !parseSemVer(parts[0]) || !parts[1] || !parts[2]) return undefined;
  return { version: parts[0], platform: `${parts[1]}_${parts[2]}` };
}

/** The packed file name of a package (PackedFilePathForPackage's base name). */
export function packedFileName(type: string, version: string, platform: string): string {
  return `terraform-provider-${type}_${version}_${platform}.zip`;
}

/** The provider's executable inside a package directory (terraform-provider-<type>*), or undefined. */
export function findExecutable(pkgDir: string, type: string): string | undefined {
  const prefix = `terraform-provider-${type}`;
  for (const name of listDir(pkgDir).sort()) {
    if (!name.startsWith(prefix)) continue;
    const full = join(pkgDir, name);
    try {
      const st = statSync(full);
      if (st.isFile() && (process.platform === 'win32' || (st.mode & 0o111) !== 0)) return full;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** The protocol versions a binary's name announces: `_x5` suffixes are protocol 5 only (SDKv2/mux builds). */
export function protocolHint(executable: string): number[] {
  const m = /_x(\d+)(?:\.exe)?$/.exec(executable);
  return m ? [Number(m[1])] : [5, 6];
}

// ---- hashes ------------------------------------------------------------------------------------------------

const hashCache = new Map<string, { key: string; hash: Promise<string> }>();

function sha256File(file: string): Promise<Buffer> {
  return new Promise((res, rej) => {
    const h = createHash('sha256');
    const s = createReadStream(file, { highWaterMark: 1 << 20 });
    s.on('data', (c) => h.update(c));
    s.on('error', rej);
    s.on('end', () => res(h.digest()));
  });
}

function walkFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of listDir(join(root, rel))) {
    const r = rel ? `${rel}/${name}` : name;
    let st;
    try {
      st = statSync(join(root, r));
    } catch {
      continue;
    }
    if (st.isDirectory()) out.push(...walkFiles(root, r));
    else if (st.isFile()) out.push(r);
  }
  return out;
}

/**
 * Where computed h1: hashes of package directories are remembered between processes: FORESIGHT_HASH_CACHE_DIR,
 * else `package-hashes` beside the schema cache; "off" disables it. One JSON file per package directory (named by
 * the sha256 of its real path) holding the hash and the key it was computed for: every file's relative path,
 * size, mtime, ctime, inode and device. Any write to a file changes its ctime, which no program can set back, so a
 * changed binary never matches a remembered hash; the 700 MB aws binary is then hashed once, not at every start.
 */
function hashCacheFile(real: string): string | undefined {
  const d = process.env.FORESIGHT_HASH_CACHE_DIR || join(dirname(defaultSchemaCacheDir(process.env)), 'package-hashes');
  if (process.env.FORESIGHT_HASH_CACHE_DIR === 'off') return undefined;
  return join(d, createHash('sha256').update(real).digest('hex') + '.json');
}

function readHashCache(real: string, key: string): string | undefined {
  const f = hashCacheFile(real);
  if (!f) return undefined;
  try {
    const j = JSON.parse(readFileSync(f, 'utf8')) as { key?: unknown; hash?: unknown };
    return j.key === key && typeof j.hash === 'string' && j.hash.startsWith('h1:') ? j.hash : undefined;
  } catch {
    return undefined;
  }
}

function writeHashCache(real: string, key: string, hash: string): void {
  const f = hashCacheFile(real);
  if (!f) return;
  try {
    mkdirSync(dirname(f), { recursive: true });
    const tmp = `${f}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ dir: real, key, hash }));
    renameSync(tmp, f);
  } catch {
    // an unwritable cache only costs the hashing next time
  }
}

/** Forgets the hashes remembered in this process (the disk entries stay), as a new process would start. */
export function dropHashMemory(): void {
  hashCache.clear();
}

/** dirhash Hash1 of a package directory ("h1:" + base64 sha256 of the sorted "sha256  path" lines). */
export async function hashPackageDir(dir: string): Promise<string> {
  const real = realpathSync(dir);
  const files = walkFiles(real).sort();
  const stats = files.map((f) => statSync(join(real, f)));
  const key = files.map((f, i) => `${f}:${stats[i].size}:${stats[i].mtimeMs}:${stats[i].ctimeMs}:${stats[i].ino}:${stats[i].dev}`).join('|');
  const hit = hashCache.get(real);
  if (hit && hit.key === key) return hit.hash;
  const remembered = readHashCache(real, key);
  if (remembered) {
    const p = Promise.resolve(remembered);
    hashCache.set(real, { key, hash: p });
    return p;
  }
  const hash = (async () => {
    let lines = '';
    for (const f of files) {
      if (f.includes('\n')) throw new Error(`dirhash: filenames with newlines are not supported`);
      lines += `${(await sha256File(join(real, f))).toString('hex')}  ${f}\n`;
    }
    const h = 'h1:' + createHash('sha256').update(lines).digest('base64');
    writeHashCache(real, key, h);
    return h;
  })();
  hashCache.set(real, { key, hash });
  hash.catch(() => hashCache.delete(real));
  return hash;
}

/** The zh: hash of a packed archive (sha256 of the .zip file). */
export async function hashArchive(zip: string): Promise<string> {
  return 'zh:' + (await sha256File(zip)).toString('hex');
}

/** The h1: hash of a package, unpacked (dirhash.HashDir) or packed (dirhash.HashZip over the archive's entries). */
export async function hashPackage(pkg: { location: string; packed: boolean }): Promise<string> {
  if (!pkg.packed) return hashPackageDir(pkg.location);
  const real = realpathSync(pkg.location);
  const st = statSync(real);
  const key = `zip:${st.size}:${st.mtimeMs}:${st.ino}`;
  const hit = hashCache.get(real);
  if (hit && hit.key === key) return hit.hash;
  const hash = hashZipH1(real);
  hashCache.set(real, { key, hash });
  hash.catch(() => hashCache.delete(real));
  return hash;
}

/**
 * Whether a package matches any recorded hash (PackageMatchesAnyHash): h1: against the package's dirhash (of the
 * directory, or of the archive's entries), zh: only for archives (sha256 of the file); other schemes never match.
 */
export async function packageMatchesAnyHash(pkg: { location: string; packed: boolean }, hashes: readonly string[]): Promise<boolean> {
  let h1: string | undefined;
  let zh: string | undefined;
  for (const want of hashes) {
    if (want.startsWith('h1:')) {
      h1 ??= await hashPackage(pkg);
      if (h1 === want) return true;
    } else if (want.startsWith('zh:') && pkg.packed) {
      zh ??= await hashArchive(pkg.location);
      if (zh === want) return true;
    }
  }
  return false;
}

// ---- the working directory's installed providers ---------------------------------------------------------

export function providersDir(workDir: string, env: Env): string {
  return resolve(workDir, env.TF_DATA_DIR || '.terraform', 'providers');
}

/** What the command line (not init) needs to start a provider: its executable or Terraform's error. */
export type Located =
  | { kind: 'binary'; fqn: string; version?: string; executable: string; packageDir: string; devOverride: boolean }
  | { kind: 'missing' }
  | { kind: 'error'; diagnostic: Diagnostic };

/** The relative form Terraform prints for the providers directory (".terraform/providers"). */
function displayProvidersDir(workDir: string, env: Env): string {
  const d = providersDir(workDir, env);
  const rel = relative(workDir, d);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : d;
}

/**
 * Finds the binary of a (non built-in) provider for commands other than init, as Terraform's providerFactories:
 * dev_overrides first (no lock needed), else the lock file's selected version must be installed in the data
 * directory's providers folder and match one of the lock file's hashes. No lock entry: 'missing' (Terraform's
 * "Missing required provider"). Hashing is asynchronous (large binaries).
 */
export async function locateProvider(workDir: string, fqn: string, lock: { version: string; hashes: readonly string[] } | undefined, env: Env = process.env): Promise<Located> {
  const cfg = await loadCliConfig(workDir, env);
  const type = fqn.split('/')[2];
  const dev = cfg.devOverrides.get(fqn);
  if (dev !== undefined) {
    const exe = findExecutable(dev, type);
    if (!exe)
      return {
        kind: 'error',
        diagnostic: error(
          'Failed to load plugin schemas',
          `Could not find executable file starting with terraform-provider-${type} in the development override directory ${dev} for ${fqn}.`,
        ),
      };
    return { kind: 'binary', fqn, executable: exe, packageDir: dev, devOverride: true };
  }
  if (!lock) return { kind: 'missing' };
  const shown = displayProvidersDir(workDir, env);
  const pkgDir = join(providersDir(workDir, env), fqn, lock.version, currentPlatform());
  const exe = isDir(pkgDir) ? findExecutable(pkgDir, type) : undefined;
  if (!exe) return { kind: 'error', diagnostic: notInstalled(`${fqn}: there is no package for ${fqn} ${lock.version} cached in ${shown}`) };
  if (lock.hashes.length && !(await packageMatchesAnyHash({ location: pkgDir, packed: false }, lock.hashes)))
    return {
      kind: 'error',
      diagnostic: notInstalled(`${fqn}: the cached package for ${fqn} ${lock.version} (in ${shown}) does not match any of the checksums recorded in the dependency lock file`),
    };
  return { kind: 'binary', fqn, version: lock.version, executable: exe, packageDir: pkgDir, devOverride: false };
}

/** Terraform's "Required plugins are not installed" (command.Meta.providerFactories) for one problem. */
export function notInstalled(problem: string): Diagnostic {
  return error(
    'Required plugins are not installed',
    `The installed provider plugins are not consistent with the packages selected in the dependency lock file:\n  - ${problem}\n\nTerraform uses external plugins to integrate with a variety of different infrastructure services. To download the plugins required for this configuration, run:\n  terraform init`,
  );
}

/** Terraform's warning when dev_overrides are in effect (command.Meta.providerDevOverrideRuntimeWarnings). */
export function devOverridesWarning(overrides: ReadonlyMap<string, string>): Diagnostic | undefined {
  if (!overrides.size) return undefined;
  const lines = [...overrides]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([a, d]) => `\n - ${a.replace(/^registry\.terraform\.io\//, '')} in ${d}`)
    .join('');
  return {
    severity: 'warning',
    summary: 'Provider development overrides are in effect',
    detail: `The following provider development overrides are set in the CLI configuration:${lines}\n\nThe behavior may therefore not match any released version of the provider and applying changes may cause the state to become incompatible with published releases.`,
  };
}

/** Meta.providerDevOverrideRuntimeWarnings: the warning of the CLI configuration seen from `workDir`, if any. */
export async function devOverrideWarnings(workDir: string, env: Env = process.env): Promise<Diagnostic[]> {
  const d = devOverridesWarning((await loadCliConfig(workDir, env)).devOverrides);
  return d ? [d] : [];
}

// ---- installation sources for init -------------------------------------------------------------------------

/** A version of a provider that init can install, and where from. */
export interface Candidate extends PackageDir {
  source: 'filesystem_mirror' | 'cache' | 'network_mirror';
}

/** What the network mirrors applicable to a provider list: each version with the first mirror listing it. */
export type NetworkVersions = { versions: Map<string, string> } | { error: string };

/**
 * Asks the CLI configuration's network_mirror methods that apply to `fqn` for its versions (index.json), in method
 * order, as MultiSource.AvailableVersions does: a mirror that does not know the provider (404) is skipped, any other
 * failure is the answer. Undefined when no network mirror applies.
 */
export async function queryNetworkMirrors(cfg: CliConfig, fqn: string, env: Env): Promise<NetworkVersions | undefined> {
  const mirrors = cfg.methods.filter((m) => m.kind === 'network_mirror' && m.location && methodApplies(m, fqn));
  if (!mirrors.length) return undefined;
  const versions = new Map<string, string>();
  for (const m of mirrors) {
    let vs: string[];
    try {
      vs = await new NetworkMirror(m.location!, env).availableVersions(fqn);
    } catch (e) {
      const msg = (e as Error).message;
      if (/was not found in any of the search locations$/.test(msg)) continue;
      return { error: msg };
    }
    for (const v of vs) if (!versions.has(v)) versions.set(v, m.location!);
  }
  return { versions };
}

/**
 * The versions init could install for a provider from the configured filesystem mirrors (in method order; the
 * first method listing a version wins) and the plugin cache. `direct`/`network_mirror` methods would need the
 * network: they are reported through `needsNetwork`.
 */
export function installCandidates(cfg: CliConfig, fqn: string, net?: NetworkVersions): { candidates: Candidate[]; needsNetwork: boolean; otherPlatforms: string[] } {
  const out = new Map<string, Candidate>();
  let needsNetwork = false;
  const any = new Set<string>();
  for (const m of cfg.methods) {
    if (!methodApplies(m, fqn)) continue;
    if (m.kind === 'network_mirror' && net && 'versions' in net) {
      for (const [v, url] of net.versions)
        if (url === m.location && !out.has(v)) out.set(v, { fqn, version: v, platform: currentPlatform(), location: url, packed: true, source: 'network_mirror' });
      continue;
    }
    if (m.kind !== 'filesystem_mirror') {
      needsNetwork = true;
      continue;
    }
    for (const p of packagesIn(m.location!, fqn)) if (!out.has(p.version)) out.set(p.version, { ...p, source: 'filesystem_mirror' });
    for (const v of versionsIn(m.location!, fqn)) any.add(v);
  }
  const otherPlatforms = [...any].filter((v) => !out.has(v));
  // The global cache holds what earlier installs downloaded; Terraform uses it instead of downloading again.
  if (cfg.pluginCacheDir) for (const p of packagesIn(cfg.pluginCacheDir, fqn)) if (!out.has(p.version)) out.set(p.version, { ...p, source: 'cache' });
  return { candidates: [...out.values()], needsNetwork, otherPlatforms };
}

/** Terraform's error for a selected version that a mirror holds only for other platforms (ErrPlatformNotSupported). */
export function incompatiblePlatform(fqn: string, version: string): Diagnostic {
  return error(
    'Incompatible provider version',
    `Provider ${fqn} v${version} does not have a package available for your current platform, ${currentPlatform()}.\n\nProvider releases are separate from Terraform CLI releases, so not all providers are available for all platforms. Other versions of this provider may have different platforms supported.`,
  );
}

// ---- installing (init) -----------------------------------------------------------------------------------

export interface InstallResult {
  /** 'installed': linked now; 'reused': already in the data directory and matching the lock. */
  action: 'installed' | 'reused';
  /** The lock's hashes after installation (sorted, unique). */
  hashes: string[];
  /** How the package was authenticated, as the "Installed ... (...)" line says. */
  auth?: string;
  /** Terraform's incomplete-lock warning applies (no prior hashes, or only the one just computed). */
  newLocalHashes: boolean;
}

function linkDir(target: string, link: string): void {
  mkdirSync(dirname(link), { recursive: true });
  try {
    const st = lstatSync(link);
    if (st.isSymbolicLink() || st.isFile()) unlinkSync(link);
    else rmSync(link, { recursive: true, force: true });
  } catch {
    // nothing there
  }
  symlinkSync(target, link, 'dir');
}

/**
 * Installs one selected provider version into the working directory as Terraform's installer does for an unpacked
 * filesystem mirror: the package directory is linked (a symlink, as Terraform makes) into
 * `<TF_DATA_DIR>/providers/<fqn>/<version>/<os_arch>`, through the plugin cache when one is configured. The package
 * must match a hash of the prior lock entry for the same version (else Terraform's "Failed to install provider" text);
 * the new lock hashes are the prior ones plus the package's h1: hash.
 */
export async function installPackage(
  workDir: string,
  env: Env,
  cfg: CliConfig,
  cand: Candidate,
  prior: { version: string; hashes: readonly string[] } | undefined,
  display: string,
): Promise<InstallResult | { error: Diagnostic; beforeFetch?: boolean }> {
  const priorHashes = prior && prior.version === cand.version ? prior.hashes : [];
  const target = join(providersDir(workDir, env), cand.fqn, cand.version, cand.platform);
  const type = cand.fqn.split('/')[2];
  // Already installed and consistent with the lock: nothing to do.
  if (priorHashes.length && isDir(target) && findExecutable(target, type) && (await packageMatchesAnyHash({ location: target, packed: false }, priorHashes)))
    return { action: 'reused', hashes: [...priorHashes], newLocalHashes: false };
  if (cand.source === 'network_mirror') return installFromNetwork(env, cfg, cand, priorHashes, display, target);
  if (cand.packed) return installArchive(cfg, cand, priorHashes, display, target);
  if (!findExecutable(cand.location, type))
    return { error: error('Failed to install provider', `Error while installing ${display} v${cand.version}: provider binary not found: could not find executable file starting with terraform-provider-${type}`) };
  let h1: string;
  try {
    h1 = await hashPackageDir(cand.location);
  } catch (e) {
    return { error: error('Failed to install provider', `Error while installing ${display} v${cand.version}: ${(e as Error).message}`) };
  }
  // installFromLocalDir checks only when a hash of another scheme than zh: (archives only) was recorded.
  if (priorHashes.some((h) => !h.startsWith('zh:')) && !priorHashes.includes(h1))
    return {
      error: error(
        'Failed to install provider',
        `Error while installing ${display} v${cand.version}: the local package for ${cand.fqn} ${cand.version} doesn't match any of the checksums previously recorded in the dependency lock file (this might be because the available checksums are for packages targeting different platforms); for more information: https://developer.hashicorp.com/terraform/language/files/dependency-lock#checksum-verification`,
      ),
    };
  try {
    let from = cand.location;
    if (cfg.pluginCacheDir && cand.source === 'filesystem_mirror') {
      const cached = join(cfg.pluginCacheDir, cand.fqn, cand.version, cand.platform);
      if (!isDir(cached)) linkDir(cand.location, cached);
      from = cached;
    }
    linkDir(resolve(from), target);
  } catch (e) {
    return { error: error('Failed to install provider', `Error while installing ${display} v${cand.version}: ${(e as Error).message}`) };
  }
  const hashes = [...new Set([...priorHashes, h1])].sort();
  return { action: 'installed', hashes, newLocalHashes: incompleteAfter(priorHashes, h1) };
}

/**
 * init's ProvidersLockUpdated rule for the incomplete-lock warning, with no signed hashes (mirrors never sign): the
 * lock is incomplete when nothing was recorded before or exactly the hash just computed was.
 */
function incompleteAfter(priorHashes: readonly string[], h1: string): boolean {
  return priorHashes.length === 0 || (priorHashes.length === 1 && priorHashes[0] === h1);
}

/**
 * installFromHTTPURL for a network mirror: the version document names the archive and its hashes (a platform it
 * lacks is Terraform's "Incompatible provider version", reported before "Installing"), the download
 * must match one of them ("verified checksum"), then it is installed as a local archive.
 */
async function installFromNetwork(
  env: Env,
  cfg: CliConfig,
  cand: Candidate,
  priorHashes: readonly string[],
  display: string,
  target: string,
): Promise<InstallResult | { error: Diagnostic; beforeFetch?: boolean }> {
  const net = new NetworkMirror(cand.location, env);
  let pkg;
  try {
    pkg = await net.packageMeta(cand.fqn, cand.version, cand.platform);
  } catch (e) {
    const msg = (e as Error).message;
    // MultiSource.PackageMeta answers a platform no source has with the mirror-less ErrPlatformNotSupported.
    if (/ does not have a package of /.test(msg)) return { beforeFetch: true, error: incompatiblePlatform(cand.fqn, cand.version) };
    return { beforeFetch: true, error: error('Failed to install provider', `Error while installing ${display} v${cand.version}: ${msg}`) };
  }
  const tmp = mkdtempSync(join(tmpdir(), 'terraform-provider'));
  try {
    const file = join(tmp, 'package.zip');
    let auth: string;
    try {
      await net.download(pkg, file);
      auth = await authenticateArchive(pkg.hashes, (hs) => packageMatchesAnyHash({ location: file, packed: true }, hs));
    } catch (e) {
      return { error: error('Failed to install provider', `Error while installing ${display} v${cand.version}: ${(e as Error).message}`) };
    }
    const r = await installArchive(cfg, { ...cand, location: file, packed: true }, priorHashes, display, target);
    return 'error' in r ? r : { ...r, auth };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** installFromLocalArchive: checks the prior hashes, unpacks (into the plugin cache when there is one) and links. */
async function installArchive(
  cfg: CliConfig,
  cand: Candidate,
  priorHashes: readonly string[],
  display: string,
  target: string,
): Promise<InstallResult | { error: Diagnostic }> {
  const fail = (msg: string) => ({ error: error('Failed to install provider', `Error while installing ${display} v${cand.version}: ${msg}`) });
  const type = cand.fqn.split('/')[2];
  try {
    if (priorHashes.length && !(await packageMatchesAnyHash(cand, priorHashes)))
      return fail(
        `the current package for ${cand.fqn} ${cand.version} doesn't match any of the checksums previously recorded in the dependency lock file; for more information: https://developer.hashicorp.com/terraform/language/files/dependency-lock#checksum-verification`,
      );
  } catch (e) {
    return fail(`failed to calculate checksum for ${cand.fqn} ${cand.version} package at ${cand.location}: ${(e as Error).message}`);
  }
  const installTo = cfg.pluginCacheDir ? join(cfg.pluginCacheDir, cand.fqn, cand.version, cand.platform) : target;
  try {
    // A symlink left by an earlier install from an unpacked mirror is replaced, never written through.
    try {
      if (lstatSync(installTo).isSymbolicLink()) unlinkSync(installTo);
    } catch {
      // nothing there
    }
    await extractZip(cand.location, installTo);
    if (!findExecutable(installTo, type)) return fail(`provider binary not found: could not find executable file starting with terraform-provider-${type}`);
    if (installTo !== target) linkDir(resolve(installTo), target);
  } catch (e) {
    return fail((e as Error).message);
  }
  let h1: string;
  try {
    h1 = await hashPackageDir(target);
  } catch (e) {
    return fail(`after installing ${cand.fqn}, failed to compute a checksum for it: ${(e as Error).message}`);
  }
  const hashes = [...new Set([...priorHashes, h1])].sort();
  return { action: 'installed', hashes, newLocalHashes: incompleteAfter(priorHashes, h1) };
}

/** Terraform's warning after locally computed hashes were recorded (command.InitCommand, incompleteProviders). */
export function incompleteLockWarning(providers: readonly string[]): Diagnostic {
  const p = currentPlatform();
  return {
    severity: 'warning',
    summary: 'Incomplete lock file information for providers',
    detail: `Due to your customized provider installation methods, Terraform was forced to calculate lock file checksums locally for the following providers:\n${providers.map((x) => `  - ${x}`).join('\n')}\n\nThe current .terraform.lock.hcl file only includes checksums for ${p}, so Terraform running on another platform will fail to install these providers.\n\nTo calculate additional checksums for another platform, run:\n  terraform providers lock -platform=${p}\n(where ${p} is the platform to generate)`,
  };
}

const QUERY_SUFFIX = '\n\nTo see which modules are currently depending on %s and what versions are specified, run the following command:\n    terraform providers';

function queryFailed(display: string, why: string, suffix = true): Diagnostic {
  return error('Failed to query available provider packages', `Could not retrieve the list of available versions for provider ${display}: ${why}${suffix ? QUERY_SUFFIX.replace('%s', display) : ''}`);
}

/**
 * Chooses the version init installs for a provider Foresight does not carry, from what the mirrors and the cache
 * hold (installCandidates), as Terraform's installer chooses: the locked version unless -upgrade (it must still meet
 * the constraints and be available), else the newest meeting the constraints. Errors carry Terraform's texts; where
 * Terraform would ask the registry (a `direct` or `network_mirror` method) Foresight says that it has no network.
 */
export function selectExternal(
  cfg: CliConfig,
  fqn: string,
  display: string,
  constraints: readonly ProviderConstraint[],
  locked: string | undefined,
  upgrade: boolean,
  net?: NetworkVersions,
): { candidate: Candidate } | { error: Diagnostic } {
  if (net && 'error' in net) return { error: queryFailed(display, net.error) };
  const { candidates, needsNetwork, otherPlatforms } = installCandidates(cfg, fqn, net);
  const cstr = providerConstraintsString([...constraints]);
  if (!upgrade && locked !== undefined) {
    if (newestMeeting([locked], [...constraints]) === undefined)
      return { error: queryFailed(display, `locked provider ${fqn} ${locked} does not match configured version constraint ${cstr}; must use terraform init -upgrade to allow selection of new versions`) };
    const c = candidates.find((x) => x.version === locked);
    if (c) return { candidate: c };
    if (otherPlatforms.includes(locked)) return { error: incompatiblePlatform(fqn, locked) };
    if (needsNetwork) return { error: noNetwork(cfg, fqn, display) };
    return { error: queryFailed(display, `the previously-selected version ${locked} is no longer available`) };
  }
  const v = newestMeeting([...candidates.map((c) => c.version), ...otherPlatforms], [...constraints]);
  if (v !== undefined && otherPlatforms.includes(v)) return { error: incompatiblePlatform(fqn, v) };
  if (v !== undefined) return { candidate: candidates.find((c) => c.version === v)! };
  if (needsNetwork) return { error: noNetwork(cfg, fqn, display) };
  if (candidates.length) return { error: queryFailed(display, `no available releases match the given constraints ${cstr}`) };
  const dirs = cfg.methods
    .filter((m) => (m.kind === 'filesystem_mirror' || m.kind === 'network_mirror') && methodApplies(m, fqn))
    .map((m) => (m.kind === 'network_mirror' ? `  - provider mirror at ${m.location}` : `  - ${m.location}`));
  return { error: queryFailed(display, `provider ${fqn} was not found in any of the search locations\n\n${dirs.join('\n')}`, false) };
}

/** Where Terraform would download: Foresight never uses the network, and says how to give it a mirror instead. */
function noNetwork(cfg: CliConfig, fqn: string, display: string): Diagnostic {
  const inCache = cfg.pluginCacheDir ? packagesIn(cfg.pluginCacheDir, fqn).map((p) => p.version) : [];
  return queryFailed(
    display,
    `Foresight does not download providers: it has no network access to registry.terraform.io or other provider registries. Install ${fqn} from a local directory instead, with a provider_installation block in the CLI configuration (TF_CLI_CONFIG_FILE or ~/.terraformrc):\n  provider_installation {\n    filesystem_mirror {\n      path = "/path/to/mirror"\n    }\n  }\nwhere the mirror holds ${fqn}/<version>/${currentPlatform()}/terraform-provider-${fqn.split('/')[2]}_v<version>.` +
      (inCache.length ? ` The plugin cache ${cfg.pluginCacheDir} holds version(s) ${inCache.join(', ')}, but Terraform also installs from the cache only versions the registry lists.` : ''),
    false,
  );
}
