// `foresight providers [DIR-less options]`: Terraform's providers command. Prints, to stdout,
// "\nProviders required by configuration:\n" and the module tree of requirements as treeprint draws it
// (per module its providers, sorted by address, with canonical version constraints, then `module.NAME`
// branches sorted by name), then a blank line; when the current workspace's local state has resources,
// "Providers required by state:\n\n" and "    provider[ADDR]\n\n" per provider (sorted). Configuration errors
// are diagnostics (exit 1), printed by the older UI path (renderDiagnostics) as Terraform's showDiagnostics
// does; child modules must be recorded in .terraform/modules/modules.json ("Module not installed").

import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { ProviderAddr } from '../addrs/provider';
import { compareProviders, isAddrError, isBuiltIn, parseProviderSource, providerForDisplay, providerString, UNKNOWN_NAMESPACE } from '../addrs/provider';
import type { ProviderConstraint } from '../versions/provider';
import { newestMeeting, providerConstraintsString } from '../versions/provider';
import { LOCK_FILE, readLockFile, writeLockFile } from '../depsfile/locks';
import type { CliConfig, Env } from '../plugin/discovery';
import { currentPlatform, findExecutable, hashPackageDir, loadCliConfig, methodApplies, packageMatchesAnyHash, packagesIn, packedFileName, parsePackedName, versionsIn } from '../plugin/discovery';
import { extractZip, hashZipH1, writeZip, type ZipInput } from '../plugin/zip';
import { authenticateArchive, NetworkMirror, type MirrorPackage } from '../plugin/netmirror';
import { colorize } from './state/meta';
import { backendOpenErrors } from '../backends/registry';
import type { Diagnostic } from '../diags/diagnostic';
import { error, hasErrors } from '../diags/diagnostic';
import type { RenderOptions } from '../diags/render';
import { renderDiagnostic, renderDiagnostics, sortDiagnostics } from '../diags/render';
import { attachInstalledModules, contextOfLoad } from './init';
import { loadModuleTree } from '../config/load';
import { stateProviders } from '../providers/resolve';
import { checkRequiredProviderSources, formatRequirementsTree, providerVersionsFromWarnings, redundantEmptyProviderWarnings, requirementsByModule, treeRequirements } from '../providers/resolve';
import { HELP } from './help/index';
import { checkModulesInstalled, readModuleManifest } from '../depsfile/modules';

export interface ProvidersIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Meta.showDiagnostics: coloured, the older UI's wrapped boxes (renderDiagnostics); plain, each diagnostic
 * preceded by a blank line and followed by one more line break (Ui.Error's newline).
 */
export function showDiagnostics(diags: readonly Diagnostic[], opts: RenderOptions): string {
  if (opts.color) return renderDiagnostics(diags, opts);
  return diags.map((d) => '\n' + renderDiagnostic(d, opts) + '\n').join('');
}

/** hashicorp/cli's ColoredUi.Error: red text and two resets in colour, the text alone without. */
export function uiError(msg: string, color: boolean): string {
  return color ? `\x1b[31m${msg}\x1b[0m\x1b[0m\n` : `${msg}\n`;
}

export async function runProviders(args: string[], io: ProvidersIO): Promise<number> {
  // Meta.process removes -no-color before the flags are parsed.
  const color = !args.some((a) => a === '-no-color' || a === '--no-color');
  const rest = args.filter((a) => a !== '-no-color' && a !== '--no-color');
  if (rest[0] === 'lock') return runProvidersLock(rest.slice(1), io, color);
  if (rest[0] === 'mirror') return runProvidersMirror(rest.slice(1), io, color);
  if (rest.length > 0 && rest[0] === 'schema') {
    io.stderr(uiError(`The "terraform providers ${rest[0]}" command is not available in Foresight.`, color));
    return 1;
  }
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '--') {
      positional.push(...rest.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      positional.push(...rest.slice(i));
      break;
    }
    const name = a.replace(/^--?/, '').split('=')[0];
    if (name === 'test-directory') {
      if (!a.includes('=')) i++;
      continue;
    }
    const help = HELP['providers'] ?? '';
    const cut = help.indexOf('\n\nSubcommands:');
    io.stderr(uiError(cut >= 0 ? help.slice(0, cut) : help, color));
    io.stderr(uiError(`Error parsing command-line flags: flag provided but not defined: -${name}\n`, color));
    return 1;
  }
  if (positional.length > 0) {
    io.stderr(uiError('Too many command line arguments. Did you mean to use -chdir?', color));
    return 1;
  }
  const dir = io.cwd;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    names = [];
  }
  if (!names.some((n) => n.endsWith('.tf') || n.endsWith('.tf.json'))) {
    io.stderr(showDiagnostics([error('No configuration files', `The directory ${dir} contains no Terraform configuration files.`)], { color }));
    return 1;
  }
  const res = await loadModuleTree(dir);
  const manifest = readModuleManifest(dir, io.env);
  await attachInstalledModules(res, dir, manifest);
  const loadDiags = res.diagnostics.filter((d) => d.summary !== 'Module not installed');
  const diags: Diagnostic[] = [
    ...loadDiags,
    ...checkModulesInstalled(res.module, manifest),
    ...checkRequiredProviderSources(res.module, res.sources),
    ...redundantEmptyProviderWarnings(res.module, providerVersionsFromWarnings(res.diagnostics, res.sources)),
  ];
  const opts = { color, sources: res.sources, contextOf: contextOfLoad(res) };
  if (hasErrors(diags)) {
    io.stderr(showDiagnostics(sortDiagnostics(diags.filter((d) => d.severity === 'error')), opts));
    return 1;
  }
  // Then Backend() opens the backend (to find the providers of the state): its errors stop the command.
  const be = await backendOpenErrors(dir, io.env ?? process.env, res.module);
  if (be.length) {
    io.stderr(showDiagnostics(be, opts));
    return 1;
  }
  let out = '\nProviders required by configuration:\n';
  out += formatRequirementsTree(requirementsByModule(res.module, providerVersionsFromWarnings(res.diagnostics, res.sources))) + '\n';
  const fromState = existsSync(dir) ? stateProviders(dir, io.env) : [];
  if (fromState.length) {
    out += 'Providers required by state:\n\n';
    for (const p of fromState) out += `    provider[${p}]\n\n`;
  }
  io.stdout(out);
  const warns = diags.filter((d) => d.severity === 'warning');
  if (warns.length) io.stdout(showDiagnostics(warns, opts));
  return 0;
}
export { foresightProviders } from '../providers/resolve';

// ---- providers lock / providers mirror ---------------------------------------------------------------------
//
// `providers lock` is Terraform's: it installs every required provider (or those named) for each -platform into a
// temporary directory from the source its options name (-fs-mirror=DIR, -net-mirror=URL; without either Terraform
// asks the origin registries, which Foresight cannot reach: it says so), takes the h1: hash of each installed
// package, merges the hashes with the existing lock entries and writes .terraform.lock.hcl, printing Terraform's
// progress lines ("- Fetching", "- Retrieved", "- Obtained ... checksums") and closing message.
//
// `providers mirror DIR` writes the packed layout (terraform-provider-<type>_<version>_<os>_<arch>.zip per
// provider directory) with the network mirror's index.json and <version>.json beside them, printing Terraform's
// lines. Terraform downloads from the origin registries; Foresight, which has no network, takes the packages from
// the CLI configuration's filesystem and network mirrors instead (an unpacked package is zipped; an archive is
// copied as it is).

/** Where a package of one version and platform is. */
interface PackageMeta {
  kind: 'dir' | 'archive' | 'http';
  location: string;
  net?: NetworkMirror;
  pkg?: MirrorPackage;
}

interface ProviderSource {
  versions(fqn: string): Promise<string[]>;
  /** Throws Terraform's error text (ErrPlatformNotSupported and friends). */
  meta(fqn: string, version: string, platform: string): Promise<PackageMeta>;
}

function fsSource(root: string): ProviderSource {
  return {
    versions: async (fqn) => versionsIn(root, fqn),
    meta: async (fqn, version, platform) => {
      const p = packagesIn(root, fqn, platform).find((x) => x.version === version);
      if (!p) throw new Error(`provider ${fqn} ${version} is not available for ${platform}`);
      return { kind: p.packed ? 'archive' : 'dir', location: p.location };
    },
  };
}

function netSource(base: string, env: Env): ProviderSource {
  const net = new NetworkMirror(base, env);
  return {
    versions: (fqn) => net.availableVersions(fqn),
    meta: async (fqn, version, platform) => {
      const pkg = await net.packageMeta(fqn, version, platform);
      return { kind: 'http', location: pkg.url, net, pkg };
    },
  };
}

const NO_REGISTRY = (fqn: string) =>
  `could not query provider registry for ${fqn}: Foresight has no network access to provider registries; use -fs-mirror=DIR or -net-mirror=URL to take the packages from a mirror`;

/** The CLI configuration's installation methods as one source (MultiSource), for `providers mirror`. */
function cliSource(cfg: CliConfig, env: Env): ProviderSource {
  const methods = cfg.methods.map((m) => ({ m, src: m.kind === 'filesystem_mirror' ? fsSource(m.location!) : m.kind === 'network_mirror' && m.location ? netSource(m.location, env) : undefined }));
  return {
    versions: async (fqn) => {
      const all = new Set<string>();
      let direct = false;
      for (const { m, src } of methods) {
        if (!methodApplies(m, fqn)) continue;
        if (!src) {
          direct = true;
          continue;
        }
        try {
          for (const v of await src.versions(fqn)) all.add(v);
        } catch (e) {
          if (!/was not found in any of the search locations$/.test((e as Error).message)) throw e;
        }
      }
      if (!all.size && direct) throw new Error(NO_REGISTRY(fqn));
      return [...all];
    },
    meta: async (fqn, version, platform) => {
      for (const { m, src } of methods) {
        if (!src || !methodApplies(m, fqn)) continue;
        try {
          return await src.meta(fqn, version, platform);
        } catch (e) {
          if (!/is not available for|does not have a package of|was not found in any/.test((e as Error).message)) throw e;
        }
      }
      throw new Error(`provider ${fqn} ${version} is not available for ${platform}`);
    },
  };
}

/** Installs a package into `dest` as the installer does (a symlink to a directory, an unpacked archive). */
async function fetchInto(meta: PackageMeta, dest: string, tmp: string): Promise<string> {
  mkdirSync(dirname(dest), { recursive: true });
  if (meta.kind === 'dir') {
    symlinkSync(resolve(meta.location), dest, 'dir');
    return 'unauthenticated';
  }
  if (meta.kind === 'archive') {
    await extractZip(meta.location, dest);
    return 'unauthenticated';
  }
  const file = join(tmp, `download-${Math.random().toString(36).slice(2)}.zip`);
  try {
    await meta.net!.download(meta.pkg!, file);
    const auth = await authenticateArchive(meta.pkg!.hashes, (hs) => packageMatchesAnyHash({ location: file, packed: true }, hs));
    await extractZip(file, dest);
    return auth;
  } finally {
    rmSync(file, { force: true });
  }
}

interface FlagSpec {
  strings: string[];
  lists: string[];
  bools: string[];
}

/** Go's flag package as Terraform's commands use it: `-name=value`, `-name value`, bools, stop at the first argument. */
function parseGoFlags(args: string[], spec: FlagSpec): { values: Map<string, string[]>; rest: string[] } | { error: string } {
  const values = new Map<string, string[]>();
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    const body = a.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    let value = eq >= 0 ? body.slice(eq + 1) : undefined;
    if (spec.bools.includes(name)) {
      if (value !== undefined && !['true', 'false', '1', '0', 't', 'f', 'TRUE', 'FALSE', 'True', 'False', 'T', 'F'].includes(value))
        return { error: `invalid boolean value ${JSON.stringify(value)} for -${name}: parse error` };
      values.set(name, [value === undefined ? 'true' : String(['true', '1', 't', 'TRUE', 'True', 'T'].includes(value))]);
      continue;
    }
    if (!spec.strings.includes(name) && !spec.lists.includes(name)) return { error: `flag provided but not defined: -${name}` };
    if (value === undefined) {
      if (i + 1 >= args.length) return { error: `flag needs an argument: -${name}` };
      value = args[++i];
    }
    if (spec.lists.includes(name)) values.set(name, [...(values.get(name) ?? []), value]);
    else values.set(name, [value]);
  }
  return { values, rest: args.slice(i) };
}

/** getproviders.ParsePlatform's checks. */
function platformError(s: string): string | undefined {
  const parts = s.split('_');
  if (parts.length !== 2) return 'must be two words separated by an underscore';
  if (/[ \t\n\r]/.test(parts[0])) return 'OS portion must not contain whitespace';
  if (/[ \t\n\r]/.test(parts[1])) return 'architecture portion must not contain whitespace';
  return undefined;
}

interface LoadedRequirements {
  reqs: Map<string, { addr: ProviderAddr; constraints: ProviderConstraint[] }>;
  diags: Diagnostic[];
  opts: RenderOptions;
}

async function loadRequirements(dir: string, io: ProvidersIO, color: boolean): Promise<LoadedRequirements> {
  const res = await loadModuleTree(dir);
  const manifest = readModuleManifest(dir, io.env);
  await attachInstalledModules(res, dir, manifest);
  const diags: Diagnostic[] = [...res.diagnostics.filter((d) => d.summary !== 'Module not installed'), ...checkModulesInstalled(res.module, manifest), ...checkRequiredProviderSources(res.module, res.sources)];
  const reqs = treeRequirements(res.module, providerVersionsFromWarnings(res.diagnostics, res.sources));
  return { reqs, diags, opts: { color, sources: res.sources, contextOf: contextOfLoad(res) } };
}

function sortedHashes(hs: Iterable<string>): string[] {
  return [...new Set(hs)].sort();
}

/** depsfile.ProviderLock.ContainsAll: the old (sorted) hashes hold all of the target's (sorted) hashes. */
function containsAll(old: readonly string[] | undefined, target: readonly string[]): boolean {
  if (!target.length) return true;
  if (!old) return false;
  let t = 0;
  for (const h of old) if (h === target[t] && ++t >= target.length) return true;
  return false;
}

export async function runProvidersLock(args: string[], io: ProvidersIO, color: boolean): Promise<number> {
  const env = io.env ?? process.env;
  const help = (HELP['providers lock'] ?? '').replace(/\n+$/, '\n');
  const parsed = parseGoFlags(args, { strings: ['fs-mirror', 'net-mirror'], lists: ['platform'], bools: ['enable-plugin-cache'] });
  if ('error' in parsed) {
    io.stderr(uiError(help, color));
    io.stderr(uiError(`Error parsing command-line flags: ${parsed.error}\n`, color));
    return 1;
  }
  const fsMirror = parsed.values.get('fs-mirror')?.[0] ?? '';
  const netMirror = parsed.values.get('net-mirror')?.[0] ?? '';
  const usePluginCache = parsed.values.get('enable-plugin-cache')?.[0] === 'true';
  const show = (diags: Diagnostic[], opts: RenderOptions = { color }) => {
    const errs = diags.filter((d) => d.severity === 'error');
    const warns = diags.filter((d) => d.severity !== 'error');
    if (warns.length) io.stdout(showDiagnostics(warns, opts));
    if (errs.length) io.stderr(showDiagnostics(errs, opts));
  };
  if (fsMirror && netMirror) {
    show([error('Invalid installation method options', 'The -fs-mirror and -net-mirror command line options are mutually-exclusive.')]);
    return 1;
  }
  const diags: Diagnostic[] = [];
  const platforms: string[] = [];
  for (const p of parsed.values.get('platform') ?? [currentPlatform()]) {
    const why = platformError(p);
    if (why) diags.push(error('Invalid target platform', `The string ${JSON.stringify(p)} given in the -platform option is not a valid target platform: ${why}.`));
    else platforms.push(p);
  }
  let source: ProviderSource;
  if (fsMirror) source = fsSource(resolve(io.cwd, fsMirror));
  else if (netMirror) {
    let ok = false;
    try {
      ok = new URL(netMirror).protocol === 'https:';
    } catch {
      ok = false;
    }
    if (!ok) {
      show([error('Invalid network mirror URL', 'The -net-mirror option requires a valid https: URL as the mirror base URL.')]);
      return 1;
    }
    source = netSource(netMirror, env);
  } else
    source = {
      versions: async (fqn) => {
        throw new Error(NO_REGISTRY(fqn));
      },
      meta: async (fqn) => {
        throw new Error(NO_REGISTRY(fqn));
      },
    };
  const loaded = await loadRequirements(io.cwd, io, color);
  diags.push(...loaded.diags);
  const reqs = loaded.reqs;
  const named = parsed.rest;
  if (named.length) {
    const want = new Set<string>();
    for (const raw of named) {
      const a = parseProviderSource(raw);
      if (isAddrError(a)) {
        diags.push(error('Invalid provider source address', `Failed to parse provider source address ${JSON.stringify(raw)}.`));
        continue;
      }
      const addr = a.namespace === UNKNOWN_NAMESPACE ? { ...a, namespace: 'hashicorp' } : a;
      const k = providerString(addr);
      want.add(k);
      if (!reqs.has(k)) diags.push(error('Invalid provider argument', `The provider ${k} is not required by the current configuration.`));
    }
    for (const k of [...reqs.keys()]) if (!want.has(k)) reqs.delete(k);
  }
  for (const [k, r] of [...reqs]) if (isBuiltIn(r.addr)) reqs.delete(k);
  const old = await readLockFile(io.cwd);
  diags.push(...old.diagnostics);
  if (hasErrors(diags)) {
    show(sortDiagnostics(diags), { ...loaded.opts, sources: new Map([...(loaded.opts.sources ?? []), ...old.sources]) });
    return 1;
  }
  const cfg = await loadCliConfig(io.cwd, env);
  const order = [...reqs.keys()].sort((a, b) => compareProviders(reqs.get(a)!.addr, reqs.get(b)!.addr));
  const tmpRoot = mkdtempSync(join(tmpdir(), 'terraform-providers-lock'));
  const updated = new Map<string, Map<string, { version: string; hashes: string[] }>>();
  try {
    for (const platform of platforms) {
      const errs = new Map<string, string>();
      const need = new Map<string, string>();
      for (const fqn of order) {
        const r = reqs.get(fqn)!;
        const lock = old.providers.get(fqn);
        if (lock && newestMeeting([lock.version], [...r.constraints]) === undefined) {
          errs.set(fqn, `locked provider ${fqn} ${lock.version} does not match configured version constraint ${providerConstraintsString(r.constraints)}; must use terraform init -upgrade to allow selection of new versions`);
          continue;
        }
        let avail: string[];
        try {
          avail = await source.versions(fqn);
        } catch (e) {
          errs.set(fqn, (e as Error).message);
          continue;
        }
        const v = lock ? (avail.includes(lock.version) ? lock.version : undefined) : newestMeeting(avail, [...r.constraints]);
        if (v === undefined) {
          errs.set(fqn, lock ? `the previously-selected version ${lock.version} is no longer available` : `no available releases match the given constraints ${providerConstraintsString(r.constraints)}`);
          continue;
        }
        need.set(fqn, v);
      }
      const platLocks = new Map<string, { version: string; hashes: string[] }>();
      for (const [fqn, version] of need) {
        const disp = providerForDisplay(reqs.get(fqn)!.addr);
        const lock = old.providers.get(fqn);
        const prior = lock && lock.version === version ? lock.hashes.filter((h) => h.startsWith('h1:') || h.startsWith('zh:')) : [];
        const dest = join(tmpRoot, platform, fqn, version, platform);
        const type = fqn.split('/')[2];
        // The global cache (with -enable-plugin-cache) is used when its copy matches the lock.
        const cached = usePluginCache && cfg.pluginCacheDir ? join(cfg.pluginCacheDir, fqn, version, platform) : undefined;
        if (cached && prior.length && findExecutable(cached, type) && (await packageMatchesAnyHash({ location: cached, packed: false }, prior).catch(() => false))) {
          platLocks.set(fqn, { version, hashes: sortedHashes([...prior, await hashPackageDir(cached)]) });
          continue;
        }
        let meta: PackageMeta;
        try {
          meta = await source.meta(fqn, version, platform);
        } catch (e) {
          errs.set(fqn, (e as Error).message);
          continue;
        }
        io.stdout(`- Fetching ${disp} ${version} for ${platform}...\n`);
        let auth: string;
        try {
          auth = await fetchInto(meta, dest, tmpRoot);
        } catch (e) {
          errs.set(fqn, (e as Error).message);
          continue;
        }
        if (!findExecutable(dest, type)) {
          errs.set(fqn, `provider binary not found: could not find executable file starting with terraform-provider-${type}`);
          continue;
        }
        let h1: string;
        try {
          h1 = await hashPackageDir(dest);
        } catch (e) {
          errs.set(fqn, `after installing ${fqn}, failed to compute a checksum for it: ${(e as Error).message}`);
          continue;
        }
        platLocks.set(fqn, { version, hashes: sortedHashes([h1, ...prior]) });
        io.stdout(`- Retrieved ${disp} ${version} for ${platform} (${auth})\n`);
      }
      if (errs.size) {
        const lines = [...errs].sort(([a], [b]) => compareProviders(reqs.get(a)!.addr, reqs.get(b)!.addr)).map(([k, e]) => `- ${k}: ${e}`);
        show([
          error(
            'Could not retrieve providers for locking',
            `Terraform failed to fetch the requested providers for ${platform} in order to calculate their checksums: ${`some providers could not be installed:\n${lines.join('\n')}`.trim()}.`,
          ),
        ]);
        return 1;
      }
      updated.set(platform, platLocks);
    }
  } finally {
    rmSync(tmpRoot, { recursive: true, force: true });
  }
  let changed = false;
  const next = new Map(old.providers);
  for (const fqn of order) {
    const r = reqs.get(fqn)!;
    const o = old.providers.get(fqn);
    let version = o?.version ?? '';
    let constraints = o?.constraints ?? [];
    const hashes = [...(o?.hashes ?? [])];
    for (const platform of platforms) {
      const pl = updated.get(platform)?.get(fqn);
      if (!pl) continue;
      version = pl.version;
      constraints = r.constraints;
      hashes.push(...pl.hashes);
      const disp = providerForDisplay(r.addr);
      if (!o) {
        changed = true;
        io.stdout(`- Obtained ${disp} checksums for ${platform}; This was a new provider and the checksums for this platform are now tracked in the lock file\n`);
      } else if (containsAll(o.hashes, pl.hashes)) io.stdout(`- Obtained ${disp} checksums for ${platform}; All checksums for this platform were already tracked in the lock file\n`);
      else {
        changed = true;
        io.stdout(`- Obtained ${disp} checksums for ${platform}; Additional checksums for this platform are now tracked in the lock file\n`);
      }
    }
    next.set(fqn, { addr: r.addr, version, constraints, hashes: sortedHashes(hashes) });
  }
  try {
    writeLockFile(io.cwd, next.values());
  } catch (e) {
    show([error('Failed to update dependency lock file', `Error while writing new dependency lock information to ${LOCK_FILE}: ${(e as Error).message}.`)]);
    return 1;
  }
  if (changed) {
    io.stdout(colorize('\n[bold][green]Success![reset] [bold]Terraform has updated the lock file.[reset]', color) + '\n');
    io.stdout('\nReview the changes in .terraform.lock.hcl and then commit to your\nversion control system to retain the new checksums.\n\n');
  } else io.stdout(colorize('\n[bold][green]Success![reset] [bold]Terraform has validated the lock file and found no need for changes.[reset]', color) + '\n');
  return 0;
}

export async function runProvidersMirror(args: string[], io: ProvidersIO, color: boolean): Promise<number> {
  const env = io.env ?? process.env;
  const help = (HELP['providers mirror'] ?? '').replace(/\n+$/, '\n');
  const parsed = parseGoFlags(args, { strings: [], lists: ['platform'], bools: ['lock-file'] });
  if ('error' in parsed) {
    io.stderr(uiError(help, color));
    io.stderr(uiError(`Error parsing command-line flags: ${parsed.error}\n`, color));
    return 1;
  }
  const useLock = parsed.values.get('lock-file')?.[0] !== 'false';
  const show = (diags: Diagnostic[], opts: RenderOptions = { color }) => {
    const errs = diags.filter((d) => d.severity === 'error');
    const warns = diags.filter((d) => d.severity !== 'error');
    if (warns.length) io.stdout(showDiagnostics(warns, opts));
    if (errs.length) io.stderr(showDiagnostics(errs, opts));
  };
  const diags: Diagnostic[] = [];
  if (parsed.rest.length !== 1) {
    show([error('No output directory specified', 'The providers mirror command requires an output directory as a command-line argument.')]);
    return 1;
  }
  const outDir = resolve(io.cwd, parsed.rest[0]);
  const platforms: string[] = [];
  for (const p of parsed.values.get('platform') ?? [currentPlatform()]) {
    const why = platformError(p);
    if (why) diags.push(error('Invalid target platform', `The string ${JSON.stringify(p)} given in the -platform option is not a valid target platform: ${why}.`));
    else platforms.push(p);
  }
  const loaded = await loadRequirements(io.cwd, io, color);
  diags.push(...loaded.diags);
  const locks = await readLockFile(io.cwd);
  diags.push(...locks.diagnostics);
  if (locks.providers.size && useLock) {
    const problems: string[] = [];
    for (const [k, r] of loaded.reqs) {
      if (isBuiltIn(r.addr)) continue;
      const l = locks.providers.get(k);
      if (!l) problems.push(`provider ${k}: required by this configuration but no version is selected`);
      else if (newestMeeting([l.version], [...r.constraints]) === undefined)
        problems.push(`provider ${k}: locked version selection ${l.version} doesn't match the updated version constraints "${providerConstraintsString(r.constraints)}"`);
    }
    if (problems.length) diags.push(error('Inconsistent dependency lock file', `To update the locked dependency selections to match a changed configuration, run:\n  terraform init -upgrade\n got:[${problems.join(' ')}]`));
  }
  if (hasErrors(diags)) {
    show(sortDiagnostics(diags), loaded.opts);
    return 1;
  }
  const cfg = await loadCliConfig(io.cwd, env);
  const source = cliSource(cfg, env);
  const order = [...loaded.reqs.keys()].sort((a, b) => compareProviders(loaded.reqs.get(a)!.addr, loaded.reqs.get(b)!.addr));
  const tmp = mkdtempSync(join(tmpdir(), 'foresight-providers-mirror'));
  try {
    for (const fqn of order) {
      const r = loaded.reqs.get(fqn)!;
      const disp = providerForDisplay(r.addr);
      if (isBuiltIn(r.addr)) {
        io.stdout(`- Skipping ${disp} because it is built in to Terraform CLI\n`);
        continue;
      }
      const cstr = providerConstraintsString(r.constraints);
      io.stdout(`- Mirroring ${disp}...\n`);
      let selected: string | undefined;
      try {
        selected = newestMeeting(await source.versions(fqn), [...r.constraints]);
        if (selected === undefined) throw new Error(`no releases match the given constraints ${cstr}`);
      } catch (e) {
        diags.push(error('Provider not available', `Failed to download ${fqn} from its origin registry: ${(e as Error).message}.`));
        continue;
      }
      const lock = locks.providers.get(fqn);
      if (locks.providers.size && useLock && lock) {
        selected = lock.version;
        io.stdout(`  - Selected v${selected} to match dependency lock file\n`);
      } else if (cstr) io.stdout(`  - Selected v${selected} to meet constraints ${cstr}\n`);
      else io.stdout(`  - Selected v${selected} with no constraints\n`);
      for (const platform of platforms) {
        io.stdout(`  - Downloading package for ${platform}...\n`);
        let meta: PackageMeta;
        try {
          meta = await source.meta(fqn, selected, platform);
        } catch (e) {
          diags.push(error('Provider release not available', `Failed to download ${fqn} v${selected} for ${platform}: ${(e as Error).message}.`));
          continue;
        }
        const target = join(outDir, fqn, packedFileName(fqn.split('/')[2], selected, platform));
        const staging = join(dirname(target), '.' + target.slice(dirname(target).length + 1));
        try {
          mkdirSync(dirname(target), { recursive: true });
          if (meta.kind === 'archive') copyFileSync(meta.location, staging);
          else if (meta.kind === 'dir') await writeZip(staging, filesOf(meta.location));
          else {
            await meta.net!.download(meta.pkg!, staging);
            const auth = await authenticateArchive(meta.pkg!.hashes, (hs) => packageMatchesAnyHash({ location: staging, packed: true }, hs)).catch((e: Error) => {
              throw Object.assign(new Error(`Failed to authenticate ${fqn} v${selected} for ${platform}: ${e.message}.`), { summary: 'Invalid provider package' });
            });
            io.stdout(`  - Package authenticated: ${auth}\n`);
          }
          rmSync(target, { force: true });
          renameSync(staging, target);
        } catch (e) {
          const err = e as Error & { summary?: string };
          rmSync(staging, { force: true });
          diags.push(error(err.summary ?? 'Cannot download provider release', err.summary ? err.message : `Failed to download ${fqn} v${selected} for ${platform}: ${err.message}.`));
          continue;
        }
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  // The JSON indexes of every archive now in the directory (network mirror layout). Terraform scans the directory
  // (getproviders.SearchLocalDirectory); one that does not exist, because nothing was mirrored into it, fails here.
  const given = parsed.rest[0];
  let scannable = true;
  try {
    lstatSync(outDir);
  } catch (e) {
    scannable = false;
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'ENOTDIR' ? 'not a directory' : (e as Error).message;
    diags.push(error('Failed to update indexes', `Could not scan the output directory to get package metadata for the JSON indexes: cannot search ${given}: lstat ${given}: ${why}.`));
  }
  for (const [fqn, archives] of scannable ? archivesUnder(outDir) : []) {
    const versions: Record<string, object> = {};
    const byVersion = new Map<string, Record<string, { url: string; hashes: string[] }>>();
    for (const a of archives) {
      let h: string;
      try {
        h = await hashZipH1(a.file);
      } catch (e) {
        diags.push(error('Failed to update indexes', `Failed to determine a hash value for ${fqn} v${a.version} on ${a.platform}: ${(e as Error).message}.`));
        continue;
      }
      versions[a.version] = {};
      const m = byVersion.get(a.version) ?? {};
      m[a.platform] = { url: basename(a.file), hashes: [h] };
      byVersion.set(a.version, m);
    }
    const dir = join(outDir, fqn);
    try {
      writeFileSync(join(dir, 'index.json'), goIndent({ versions }), { mode: 0o644 });
    } catch (e) {
      diags.push(error('Failed to update indexes', `Failed to write an updated JSON index for ${fqn}: ${(e as Error).message}.`));
    }
    for (const [v, m] of byVersion) {
      try {
        writeFileSync(join(dir, `${v}.json`), goIndent({ archives: m }), { mode: 0o644 });
      } catch (e) {
        diags.push(error('Failed to update indexes', `Failed to write an updated JSON index for ${fqn} v${v}: ${(e as Error).message}.`));
      }
    }
  }
  show(diags);
  return hasErrors(diags) ? 1 : 0;
}

/** json.MarshalIndent(v, "", "  ") of plain maps: keys sorted as Go sorts map keys. */
function goIndent(v: unknown): string {
  const sort = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sort);
    if (x && typeof x === 'object') return Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort((x as Record<string, unknown>)[k])]));
    return x;
  };
  return JSON.stringify(sort(v), null, 2).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** The regular files of a package directory as zip inputs, by relative path (sorted). */
function filesOf(dir: string): ZipInput[] {
  const out: ZipInput[] = [];
  const walk = (rel: string) => {
    for (const n of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${n}` : n;
      const st = statSync(join(dir, r));
      if (st.isDirectory()) walk(r);
      else if (st.isFile()) out.push({ name: r, path: join(dir, r) });
    }
  };
  walk('');
  return out;
}

/** The packed archives under a mirror directory by provider (SearchLocalDirectory, archives only). */
function archivesUnder(root: string): Map<string, { file: string; version: string; platform: string }[]> {
  const out = new Map<string, { file: string; version: string; platform: string }[]>();
  const ls = (d: string) => {
    try {
      return readdirSync(d).sort();
    } catch {
      return [];
    }
  };
  for (const host of ls(root))
    for (const ns of ls(join(root, host)))
      for (const type of ls(join(root, host, ns))) {
        const fqn = `${host}/${ns}/${type}`;
        for (const name of ls(join(root, host, ns, type))) {
          const file = join(root, host, ns, type, name);
          const p = parsePackedName(name, type);
          if (!p) continue;
          try {
            if (!statSync(file).isFile()) continue;
          } catch {
            continue;
          }
          out.set(fqn, [...(out.get(fqn) ?? []), { file, ...p }]);
        }
      }
  return out;
}
