// Provider resolution for a loaded module tree, as Terraform's configs package does it:
//   - local names map to source addresses through `required_providers` (a bare or missing source gives the
//     implied address: hashicorp/<name> on registry.terraform.io, terraform.io/builtin/terraform for
//     "terraform");
//   - every resource, data source and provider block needs a provider: its `provider = name[.alias]`
//     argument, else the resource type's prefix (`random_id` -> "random");
//   - `providers = { child = parent.alias }` in module calls passes configurations into children;
//   - requirements per module (ProviderRequirementsByModule, printed by `terraform providers`) and for the
//     whole tree (ProviderRequirements, installed by `init`), version constraints from required_providers
//     and from deprecated provider-block `version` arguments;
//   - availability: a provider Foresight does not have, or whose version does not meet the constraints,
//     gets an error diagnostic at the required_providers entry (or the first resource / provider block that
//     implies it) listing the providers Foresight has.
// Contract: pure functions of the model (except stateProviders, which reads the local state file);
// diagnostics, never exceptions. The list of available providers is
// passed in; foresightProviders() derives it from the registry of built-in providers (./builtin).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { SourceText } from '../config/source';
import { error } from '../diags/diagnostic';
import type { Module, ModuleCall, ProviderConfig, Resource } from '../config/model';
import type { ProviderAddr } from '../addrs/provider';
import {
  UNKNOWN_NAMESPACE,
  compareProviders,
  impliedProvider,
  isAddrError,
  isBuiltIn,
  parseProviderSource,
  providerForDisplay,
  providerString,
  resourceTypeProviderName,
} from '../addrs/provider';
import type { ProviderConstraint } from '../versions/provider';
import { newestMeeting, parseProviderConstraints, providerConstraintsString } from '../versions/provider';
import { parseCoreConstraints } from '../versions/core';
import { BUILTIN_PROVIDERS } from './builtin/index';
import { parseFullyQualified } from '../addrs/provider';

/** A provider Foresight can use: its address and the versions it offers (none for terraform.io/builtin). */
export interface AvailableProvider {
  addr: ProviderAddr;
  versions: string[];
}

export interface Requirement {
  addr: ProviderAddr;
  constraints: ProviderConstraint[];
  /** Where the requirement comes from (required_providers entry, resource type, provider block). */
  range?: Range;
}

export interface ModuleRequirements {
  /** "" for the root, else "module.a.module.b". */
  path: string;
  /** By fully qualified address, in first-seen order. */
  requirements: Map<string, Requirement>;
  /** Child module calls by name. */
  children: Map<string, ModuleRequirements>;
}

/** A resource's provider configuration: fully qualified provider, local name, alias. */
export interface ResolvedProviderConfig {
  addr: ProviderAddr;
  localName: string;
  alias?: string;
}

/** The address required_providers maps `localName` to, or the implied one. */
export function providerForLocalName(mod: Module, localName: string): ProviderAddr {
  for (const tb of mod.terraform)
    for (const rp of tb.requiredProviders) {
      if (rp.name !== localName) continue;
      if (rp.source === undefined) return impliedProvider(localName);
      const p = parseProviderSource(rp.source);
      if (isAddrError(p)) return impliedProvider(localName);
      if (p.namespace === UNKNOWN_NAMESPACE) return { ...p, namespace: 'hashicorp' };
      return p;
    }
  return impliedProvider(localName);
}

/** The provider configuration a resource uses (its `provider` argument or its type's prefix). */
export function resourceProviderConfig(mod: Module, r: Resource): ResolvedProviderConfig {
  const localName = r.provider?.name ?? resourceTypeProviderName(r.type);
  return { addr: providerForLocalName(mod, localName), localName, alias: r.provider?.alias };
}

/** The provider a provider block configures. */
export function providerBlockAddr(mod: Module, p: ProviderConfig): ProviderAddr {
  return providerForLocalName(mod, p.name);
}

/**
 * The range of the quoted string value of `key = "..."` inside `within` (a required_providers entry), found in
 * the file's text; `within` itself when it cannot be found. The model keeps only the entry's range.
 */
export function valueRangeIn(sources: ReadonlyMap<string, string> | undefined, within: Range, key: string): Range {
  const text = sources?.get(within.filename);
  if (text === undefined) return within;
  const bytes = Buffer.from(text, 'utf8');
  const part = bytes.subarray(within.start.byte, within.end.byte).toString('utf8');
  const m = new RegExp(`(^|[\\s{,])${key}\\s*=\\s*("(?:[^"\\\\\\n]|\\\\.)*")`).exec(part);
  if (!m) return within;
  const startInPart = m.index + m[1].length + m[0].slice(m[1].length).indexOf(m[2]);
  const startByte = within.start.byte + Buffer.byteLength(part.slice(0, startInPart), 'utf8');
  const i0 = bytes.subarray(0, startByte).toString('utf8').length;
  return new SourceText(within.filename, text).range(i0, i0 + m[2].length);
}

/** Diagnostics for `source` strings and `version` constraints of required_providers entries (Terraform's messages). */
export function checkRequiredProviderSources(mod: Module, sources?: ReadonlyMap<string, string>): Diagnostic[] {
  const diags: Diagnostic[] = [];
  for (const tb of mod.terraform)
    for (const rp of tb.requiredProviders) {
      if (rp.version !== undefined && !parseCoreConstraints(rp.version))
        diags.push(error('Invalid version constraint', 'This string does not use correct version constraint syntax.', valueRangeIn(sources, rp.range, 'version')));
      if (rp.source !== undefined) {
        const p = parseProviderSource(rp.source);
        if (isAddrError(p)) diags.push(error(p.summary, p.detail, valueRangeIn(sources, rp.range, 'source')));
      }
    }
  for (const call of mod.moduleCalls.values()) if (call.module) diags.push(...checkRequiredProviderSources(call.module, sources));
  return diags;
}

function constraintsOf(text: string | undefined): ProviderConstraint[] {
  if (text === undefined) return [];
  const cs = parseProviderConstraints(text);
  return 'error' in cs ? [] : cs;
}

/**
 * The deprecated `version` argument of a provider block, when the caller can find it (the model keeps only
 * the block's remaining body; init recovers it from the loader's deprecation warning).
 */
export type ProviderBlockVersion = (p: ProviderConfig) => string | undefined;

/** Requirements of one module, not including its children (configs.Module's provider requirements). */
export function moduleOwnRequirements(mod: Module, blockVersion?: ProviderBlockVersion): Map<string, Requirement> {
  const reqs = new Map<string, Requirement>();
  const add = (addr: ProviderAddr, constraints: ProviderConstraint[], range?: Range) => {
    const k = providerString(addr);
    const cur = reqs.get(k);
    if (cur) cur.constraints.push(...constraints);
    else reqs.set(k, { addr, constraints: [...constraints], range });
  };
  for (const tb of mod.terraform)
    for (const rp of tb.requiredProviders) add(providerForLocalName(mod, rp.name), constraintsOf(rp.version), rp.range);
  const resources: Resource[] = [...mod.resources, ...mod.checks.flatMap((c) => c.data)];
  for (const r of resources) {
    const addr = resourceProviderConfig(mod, r).addr;
    if (!reqs.has(providerString(addr))) add(addr, [], r.typeRange);
  }
  for (const p of mod.providers) {
    const addr = providerBlockAddr(mod, p);
    const ver = p.body.attributes.find((a) => a.name === 'version');
    const text = ver && ver.expr.shape === 'string' && typeof ver.expr.literal === 'string' ? ver.expr.literal : blockVersion?.(p);
    const extra = constraintsOf(text);
    add(addr, extra, p.nameRange);
  }
  return reqs;
}

/** ProviderRequirementsByModule: the tree `terraform providers` prints. */
export function requirementsByModule(mod: Module, blockVersion?: ProviderBlockVersion): ModuleRequirements {
  const children = new Map<string, ModuleRequirements>();
  for (const call of mod.moduleCalls.values()) if (call.module) children.set(call.name, requirementsByModule(call.module, blockVersion));
  return { path: mod.path, requirements: moduleOwnRequirements(mod, blockVersion), children };
}

/** ProviderRequirements: every module's requirements merged (constraints concatenated). */
export function treeRequirements(mod: Module, blockVersion?: ProviderBlockVersion): Map<string, Requirement> {
  const out = new Map<string, Requirement>();
  const visit = (m: ModuleRequirements) => {
    for (const [k, r] of m.requirements) {
      const cur = out.get(k);
      if (cur) cur.constraints.push(...r.constraints);
      else out.set(k, { addr: r.addr, constraints: [...r.constraints], range: r.range });
    }
    for (const c of m.children.values()) visit(c);
  };
  visit(requirementsByModule(mod, blockVersion));
  return out;
}

/** The text Terraform prints for a module's requirements tree (`terraform providers`), without the heading. */
export function formatRequirementsTree(root: ModuleRequirements): string {
  // treeprint: "." root, children "├── " / "└── ", continuation "│" + two no-break spaces + " " / four spaces.
  const lines: string[] = ['.'];
  const node = (m: ModuleRequirements, prefix: string) => {
    const items: { label: string; child?: ModuleRequirements }[] = [];
    const reqs = [...m.requirements.values()].sort((a, b) => compareProviders(a.addr, b.addr));
    for (const r of reqs) {
      const v = providerConstraintsString(r.constraints);
      items.push({ label: `provider[${providerString(r.addr)}]${v ? ' ' + v : ''}` });
    }
    for (const name of [...m.children.keys()].sort()) items.push({ label: `module.${name}`, child: m.children.get(name)! });
    items.forEach((it, i) => {
      const last = i === items.length - 1;
      lines.push(prefix + (last ? '└── ' : '├── ') + it.label);
      if (it.child) node(it.child, prefix + (last ? '    ' : '│\u00a0\u00a0 '));
    });
  };
  node(root, '');
  return lines.join('\n') + '\n';
}

export interface Selection {
  addr: ProviderAddr;
  constraints: ProviderConstraint[];
  /** undefined for built-in providers (no version of their own). */
  version?: string;
}

/**
 * Chooses a version of each required provider among `available`: the locked version when it is available
 * and still meets the constraints (unless `upgrade`), else the newest meeting them. Providers that are not
 * available, or have no acceptable version, get diagnostics at their requirement's range.
 */
export function selectProviders(
  reqs: ReadonlyMap<string, Requirement>,
  available: readonly AvailableProvider[],
  locked: ReadonlyMap<string, { version: string }>,
  upgrade: boolean,
): { selections: Selection[]; diagnostics: Diagnostic[] } {
  const selections: Selection[] = [];
  const diagnostics: Diagnostic[] = [];
  const have = [...available].sort((a, b) => compareProviders(a.addr, b.addr));
  const list = have.map((a) => `  - ${providerForDisplay(a.addr)}${a.versions.length ? ' ' + a.versions.join(', ') : ''}`).join('\n');
  for (const [k, r] of reqs) {
    const a = available.find((x) => providerString(x.addr) === k);
    if (!a) {
      diagnostics.push(
        error(
          'Provider not available in Foresight',
          `This configuration requires provider ${providerForDisplay(r.addr)}, which Foresight does not have. Foresight does not download providers; it can use only the providers built into it:\n${list}`,
          r.range,
        ),
      );
      continue;
    }
    if (isBuiltIn(r.addr)) {
      // Sourceless, as Terraform reports it.
      if (r.constraints.length)
        diagnostics.push(
          error(
            'Invalid dependency on built-in provider',
            `Cannot use ${providerForDisplay(r.addr)}: built-in providers do not support explicit version constraints.`,
          ),
        );
      selections.push({ addr: r.addr, constraints: r.constraints });
      continue;
    }
    const lockedVersion = locked.get(k)?.version;
    let version: string | undefined;
    if (!upgrade && lockedVersion !== undefined) {
      version = newestMeeting(a.versions.filter((v) => v === lockedVersion), r.constraints);
      if (version === undefined) {
        const inConstraints = newestMeeting([lockedVersion], r.constraints) !== undefined;
        diagnostics.push(
          error(
            'Failed to query available provider packages',
            inConstraints
              ? `Could not retrieve the list of available versions for provider ${providerForDisplay(r.addr)}: locked provider ${k} ${lockedVersion} is not available in Foresight, which has version(s) ${a.versions.join(', ')}. To select one of those, run "terraform init -upgrade".`
              : `Could not retrieve the list of available versions for provider ${providerForDisplay(r.addr)}: locked provider ${k} ${lockedVersion} does not match configured version constraint ${providerConstraintsString(r.constraints)}; must use terraform init -upgrade to allow selection of new versions`,
            r.range,
          ),
        );
        continue;
      }
    } else version = newestMeeting(a.versions, r.constraints);
    if (version === undefined) {
      diagnostics.push(
        error(
          'Failed to query available provider packages',
          `Could not retrieve the list of available versions for provider ${providerForDisplay(r.addr)}: no available releases match the given constraints ${providerConstraintsString(r.constraints)}\n\nForesight has ${providerForDisplay(r.addr)} version(s) ${a.versions.join(', ')} built in.`,
          r.range,
        ),
      );
      continue;
    }
    selections.push({ addr: r.addr, constraints: r.constraints, version });
  }
  return { selections, diagnostics };
}

/**
 * Recovers provider blocks' deprecated `version` strings from the loader's "Version constraints inside
 * provider configuration blocks are deprecated" warnings (their subject is the version expression): the
 * first such warning in the block's file after the block header.
 */
export function providerVersionsFromWarnings(diags: readonly Diagnostic[], sources: ReadonlyMap<string, string>): ProviderBlockVersion {
  const warns = diags.filter((d) => d.summary === 'Version constraints inside provider configuration blocks are deprecated' && d.subject);
  return (p) => {
    let best: Diagnostic | undefined;
    for (const w of warns) {
      const s = w.subject!;
      if (s.filename !== p.declRange.filename || s.start.byte < p.declRange.end.byte) continue;
      if (!best || s.start.byte < best.subject!.start.byte) best = w;
    }
    if (!best) return undefined;
    const text = sources.get(best.subject!.filename);
    if (text === undefined) return undefined;
    const raw = Buffer.from(text, 'utf8').subarray(best.subject!.start.byte, best.subject!.end.byte).toString('utf8');
    const m = /^"([^"\\$%]*)"$/.exec(raw);
    return m ? m[1] : undefined;
  };
}

/**
 * The providers Foresight has built in, by source address, with the versions it offers, from the registry
 * of built-in providers (server/providers/builtin): terraform.io/builtin/terraform (no version of its own),
 * hashicorp/null and hashicorp/random.
 */
export function foresightProviders(): AvailableProvider[] {
  const out: AvailableProvider[] = [];
  for (const b of BUILTIN_PROVIDERS) {
    const addr = parseFullyQualified(b.address);
    if (addr) out.push({ addr, versions: b.version ? [b.version] : [] });
  }
  return out;
}


// ---- provider requirements of the state ------------------------------------------------------------

function currentWorkspace(dir: string, env: Readonly<Record<string, string | undefined>> | undefined): string {
  if (env?.TF_WORKSPACE) return env.TF_WORKSPACE;
  try {
    return readFileSync(join(dir, env?.TF_DATA_DIR ?? '.terraform', 'environment'), 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}

/** Provider addresses of the resources in the workspace's local state file (sorted, unique). */
export function stateProviders(dir: string, env?: Readonly<Record<string, string | undefined>>): string[] {
  const ws = currentWorkspace(dir, env);
  const path = ws === 'default' ? join(dir, 'terraform.tfstate') : join(dir, 'terraform.tfstate.d', ws, 'terraform.tfstate');
  let doc: { resources?: { provider?: string }[] };
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (const r of doc.resources ?? []) {
    const m = /provider\["([^"]+)"\]/.exec(r.provider ?? '');
    if (m) out.add(m[1]);
  }
  return [...out].sort();
}


// ---- provider configurations of resources ------------------------------------------------------------------

/** A provider configuration address: module path ("" for root), provider, alias. */
export interface AbsProviderConfig {
  module: string;
  fqn: string;
  alias?: string;
}

/**
 * Provider configuration addresses made so far (a few per configuration), by module path, provider and alias: a
 * lookup of strings that exist already, not a concatenation and hash per call (every resource asks several times
 * per graph). Bounded: cleared when it holds 1,024 addresses.
 */
const configAddrs = new Map<string, Map<string, Map<string, string>>>();
let configAddrCount = 0;

/**
 * As Terraform writes it in state and messages: `module.a.provider["registry.terraform.io/hashicorp/random"].west`.
 * Every resource's graph node and planned change keeps one: the same address is one string, not a concatenation
 * per resource.
 */
export function absProviderConfigString(a: AbsProviderConfig): string {
  const alias = a.alias ?? '';
  let byFqn = configAddrs.get(a.module);
  let byAlias = byFqn?.get(a.fqn);
  const known = byAlias?.get(alias);
  if (known !== undefined) return known;
  if (configAddrCount >= 1024) {
    configAddrs.clear();
    configAddrCount = 0;
    byFqn = byAlias = undefined;
  }
  if (!byFqn) configAddrs.set(a.module, (byFqn = new Map()));
  if (!byAlias) byFqn.set(a.fqn, (byAlias = new Map()));
  const s = `${a.module ? a.module + '.' : ''}provider["${a.fqn}"]${alias ? '.' + alias : ''}`;
  byAlias.set(alias, s);
  configAddrCount++;
  return s;
}

function parentPath(path: string): string | undefined {
  if (path === '') return undefined;
  const i = path.lastIndexOf('.module.');
  return i < 0 ? '' : path.slice(0, i);
}

/** `name` or `name.alias` from a traversal expression's text. */
function localConfigRef(text: string): { name: string; alias?: string } | undefined {
  const m = /^\s*([A-Za-z_][\w-]*)(?:\.([A-Za-z_][\w-]*))?\s*$/.exec(text);
  return m ? { name: m[1], alias: m[2] } : undefined;
}

/**
 * The provider configuration every resource and data source of the tree uses, keyed by its configuration
 * address ("module.a.random_id.x"), as Terraform's ProviderTransformer resolves it: a provider block of the
 * resource's own module (`provider = name.alias` or the type's prefix), else a configuration passed in by the
 * calling module's `providers = { name[.alias] = parent_name[.alias] }` (followed to the parent's), else, for
 * default (unaliased) configurations only, the nearest ancestor's, else the root module's default
 * configuration (which Terraform creates implicitly when no block declares it).
 */
export function resolveResourceProviders(root: Module): Map<string, AbsProviderConfig> {
  const concrete = new Set<string>();
  const proxies = new Map<string, AbsProviderConfig>();
  const key = (a: AbsProviderConfig) => absProviderConfigString(a);
  const mods: Module[] = [];
  const visit = (m: Module) => {
    mods.push(m);
    for (const p of m.providers) concrete.add(key({ module: m.path, fqn: providerString(providerBlockAddr(m, p)), alias: p.alias }));
    for (const call of m.moduleCalls.values()) {
      const child = call.module;
      if (!child) continue;
      const e = call.providers;
      if (e && e.shape === 'object')
        for (const it of e.items ?? []) {
          const inChild = localConfigRef(it.key.text);
          const inParent = localConfigRef(it.value.text);
          if (!inChild || !inParent) continue;
          const fqn = providerString(providerForLocalName(child, inChild.name));
          proxies.set(key({ module: child.path, fqn, alias: inChild.alias }), { module: m.path, fqn, alias: inParent.alias });
        }
      visit(child);
    }
  };
  visit(root);
  const exact = (a: AbsProviderConfig, depth = 0): AbsProviderConfig | undefined => {
    const k = key(a);
    // A configuration the caller passes in wins over an (empty, legacy proxy) block of the same name.
    const p = proxies.get(k);
    if (p && depth < 64) return resolve(p, depth + 1);
    if (concrete.has(k)) return a;
    return undefined;
  };
  const resolve = (a: AbsProviderConfig, depth = 0): AbsProviderConfig => {
    const hit = exact(a, depth);
    if (hit) return hit;
    if (!a.alias) for (let p = parentPath(a.module); p !== undefined; p = parentPath(p)) {
      const h = exact({ module: p, fqn: a.fqn }, depth);
      if (h) return h;
    }
    return a.alias ? a : { module: '', fqn: a.fqn };
  };
  const out = new Map<string, AbsProviderConfig>();
  for (const m of mods)
    for (const r of [...m.resources, ...m.checks.flatMap((c) => c.data)]) {
      const rc = resourceProviderConfig(m, r);
      const addr = (m.path ? m.path + '.' : '') + (r.mode === 'data' ? 'data.' : '') + `${r.type}.${r.name}`;
      out.set(addr, resolve({ module: m.path, fqn: providerString(rc.addr), alias: rc.alias }));
    }
  return out;
}

/**
 * For editors and validate-like checks: the providers the configuration needs that Foresight cannot supply
 * (not built in, or no built-in version meets the constraints), as error diagnostics at the
 * required_providers entry or the first resource / provider block needing them. Lock files are ignored.
 */
export function providerAvailabilityDiagnostics(root: Module): Diagnostic[] {
  return selectProviders(treeRequirements(root), foresightProviders(), new Map(), false).diagnostics.filter((d) => d.subject);
}

/**
 * The editor's note on providers a configuration needs but the workspace cannot run (neither built in nor
 * installed: the validate walk's "Missing required provider"), one warning at each requirement (the
 * required_providers entry, or the first resource type implying the provider) naming what is available. The
 * editor warns instead of erroring, as an uninitialised workspace is normal while writing; the command line keeps
 * Terraform's error.
 */
export function missingProviderWarnings(root: Module, missing: ReadonlySet<string>): Diagnostic[] {
  if (missing.size === 0) return [];
  const have = foresightProviders().sort((a, b) => compareProviders(a.addr, b.addr));
  const list = have.map((a) => `  - ${providerForDisplay(a.addr)}${a.versions.length ? ' ' + a.versions.join(', ') : ''}`).join('\n');
  const out: Diagnostic[] = [];
  for (const [k, r] of treeRequirements(root)) {
    if (!missing.has(k) || !r.range) continue;
    out.push({
      severity: 'warning',
      summary: 'Provider not available',
      detail: `This configuration requires provider ${providerForDisplay(r.addr)}, which is neither built into Foresight nor installed in this workspace, so its resources are not validated or previewed. Foresight does not download providers: run "foresight init" (or "terraform init") to install it from a filesystem mirror or plugin cache, or use a provider built into Foresight:\n${list}`,
      subject: r.range,
      source: 'provider',
    });
  }
  return out;
}

/**
 * Terraform's "Redundant empty provider block" warnings (configs.validateProviderConfigs): in every module
 * but the root, empty provider blocks (nothing but `alias`, no `version`) are legacy proxy configurations;
 * one warning per provider local name (in declaration order), at the first block by range string, suggesting the
 * required_providers entry (with configuration_aliases when aliased blocks are among them). As in Terraform,
 * an aliased block's suggested source is looked up under its aliased name, so it falls back to
 * hashicorp/<name>. `blockVersion` tells which blocks had a (removed from the model) `version` argument.
 */
export function redundantEmptyProviderWarnings(root: Module, blockVersion?: ProviderBlockVersion): Diagnostic[] {
  const out: Diagnostic[] = [];
  const visit = (m: Module) => {
    for (const c of m.moduleCalls.values()) if (c.module) visit(c.module);
    out.push(...emptyProviderWarningsOf(m, blockVersion));
  };
  visit(root);
  return out;
}

/** The "Redundant empty provider block" warnings of one module (none for the root). */
function emptyProviderWarningsOf(m: Module, blockVersion?: ProviderBlockVersion): Diagnostic[] {
  const out: Diagnostic[] = [];
  {
    if (m.path === '') return out;
    const localNames = new Map<string, ProviderAddr>();
    for (const tb of m.terraform) for (const rp of tb.requiredProviders) localNames.set(rp.name, providerForLocalName(m, rp.name));
    const empty = new Map<string, Range>();
    for (const p of m.providers) {
      if (p.body.attributes.length || p.body.blocks.length || blockVersion?.(p) !== undefined) continue;
      empty.set(p.alias ? `${p.name}.${p.alias}` : p.name, p.declRange);
    }
    const groups = new Map<string, { source: ProviderAddr; ranges: Range[]; configs: string[]; aliases: number }>();
    // Declaration order: Terraform's maps of small size mostly iterate in insertion order, so the first
    // empty block of a provider decides the suggested source (an aliased one falls back to hashicorp/<name>).
    for (const name of empty.keys()) {
      const local = name.split('.')[0];
      let g = groups.get(local);
      if (!g) {
        g = { source: localNames.get(name) ?? { hostname: 'registry.terraform.io', namespace: 'hashicorp', type: local }, ranges: [], configs: [], aliases: 0 };
        groups.set(local, g);
      }
      if (name !== local) g.aliases++;
      g.configs.push(name);
      g.ranges.push(empty.get(name)!);
    }
    for (const [name, g] of groups) {
      let detail = `Earlier versions of Terraform used empty provider blocks ("proxy provider configurations") for child modules to declare their need to be passed a provider configuration by their callers. That approach was ambiguous and is now deprecated.\n\nIf you control this module, you can migrate to the new declaration syntax by removing all of the empty provider ${JSON.stringify(name)} blocks and then adding or updating an entry like the following to the required_providers block of ${m.path}:\n`;
      detail += `    ${name} = {\n      source = ${JSON.stringify(providerForDisplay(g.source))}\n`;
      if (g.aliases > 0) detail += `      configuration_aliases = [\n${[...g.configs].sort().map((c) => `        ${c},\n`).join('')}      ]\n`;
      detail += '    }';
      const rs = (r: Range) => `${r.filename}:${r.start.line},${r.start.column}-${r.end.line === r.start.line ? '' : r.end.line + ','}${r.end.column}`;
      const first = [...g.ranges].sort((a, b) => (rs(a) < rs(b) ? -1 : rs(a) > rs(b) ? 1 : 0))[0];
      out.push({ severity: 'warning', summary: 'Redundant empty provider block', detail, subject: first });
    }
  }
  return out;
}

// ---- provider configurations across module calls (configs.validateProviderConfigs) ----------------------------

/**
 * The `configuration_aliases` of a module's required_providers entries, as "name.alias" -> provider. The model
 * keeps only each entry's range (load.ts reads and skips the attribute), so the list is read back from the
 * entry's text in the module's file on disk; unsaved editor buffers are not seen.
 */
export function configurationAliases(mod: Module): Map<string, ProviderAddr> {
  const out = new Map<string, ProviderAddr>();
  const texts = new Map<string, Buffer | undefined>();
  for (const tb of mod.terraform)
    for (const rp of tb.requiredProviders) {
      const f = rp.range.filename;
      if (!texts.has(f)) {
        let b: Buffer | undefined;
        try {
          b = readFileSync(join(mod.dir, f.split(/[\\/]/).pop()!));
        } catch {
          b = undefined;
        }
        texts.set(f, b);
      }
      const buf = texts.get(f);
      if (!buf) continue;
      const text = buf.subarray(rp.range.start.byte, rp.range.end.byte).toString('utf8');
      // `configuration_aliases = [a.b]`, or `"configuration_aliases": ["a.b"]` in a .tf.json file.
      const m = /"?configuration_aliases"?\s*[=:]\s*\[([\s\S]*?)\]/.exec(text);
      if (!m) continue;
      const list = m[1].replace(/(#|\/\/)[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
      for (const a of list.matchAll(/([A-Za-z_][\w-]*)\.([A-Za-z_][\w-]*)/g)) out.set(`${a[1]}.${a[2]}`, providerForLocalName(mod, rp.name));
    }
  return out;
}

function isOfficial(p: ProviderAddr): boolean {
  return p.hostname === 'registry.terraform.io' && p.namespace === 'hashicorp';
}

function sameProvider(a: ProviderAddr, b: ProviderAddr): boolean {
  return providerString(a) === providerString(b);
}

/** The range of the first name of a `name[.alias]` traversal (HCL's NameRange of a provider reference). */
function firstNameRange(r: Range, name: string): Range {
  return { filename: r.filename, start: r.start, end: { line: r.start.line, column: r.start.column + name.length, byte: r.start.byte + name.length } };
}

/**
 * Terraform's static checks of provider configurations across module calls, run when a configuration is
 * loaded (so plan, apply and validate report them first): `providers = {}` entries naming undeclared local
 * names or mismatched provider types, configuration_aliases nobody passes, provider blocks in modules called
 * with count/for_each/depends_on or overridden by the caller, and redundant empty (proxy) provider blocks.
 * Children are checked before their parents, as Terraform walks the tree; within a module in declaration order
 * (Terraform's own order there follows Go map iteration).
 */
export function moduleProviderConfigDiagnostics(root: Module, blockVersion?: ProviderBlockVersion): Diagnostic[] {
  const out: Diagnostic[] = [];
  type Passed = { inChild: { name: string; alias?: string }; inParent: { name: string; alias?: string }; childRange: Range; parentRange: Range };
  const passedOf = (call: ModuleCall): Passed[] => {
    const ps: Passed[] = [];
    const e = call.providers;
    if (!e || e.shape !== 'object') return ps;
    for (const it of e.items ?? []) {
      const inChild = localConfigRef(it.key.text);
      const inParent = localConfigRef(it.value.text);
      if (!inChild || !inParent) continue;
      ps.push({ inChild, inParent, childRange: firstNameRange(it.key.range, inChild.name), parentRange: firstNameRange(it.value.range, inParent.name) });
    }
    return ps;
  };
  const nameOf = (r: { name: string; alias?: string }) => (r.alias ? `${r.name}.${r.alias}` : r.name);
  const visit = (m: Module, parent: Module | undefined, parentCall: ModuleCall | undefined, noConfigRange: Range | undefined) => {
    for (const c of m.moduleCalls.values()) {
      if (!c.module) continue;
      let r = noConfigRange;
      if (c.count) r = c.count.range;
      else if (c.forEach) r = c.forEach.range;
      else if (c.dependsOn) r = c.dependsOn.elems?.[0]?.range ?? c.declRange;
      visit(c.module, m, c, r);
    }
    const configured = new Map<string, Range>();
    for (const p of m.providers) {
      const name = p.alias ? `${p.name}.${p.alias}` : p.name;
      if (p.body.attributes.length || p.body.blocks.length || blockVersion?.(p) !== undefined) configured.set(name, p.declRange);
    }
    const localNames = new Map<string, ProviderAddr>();
    for (const tb of m.terraform) for (const rp of tb.requiredProviders) if (!localNames.has(rp.name)) localNames.set(rp.name, providerForLocalName(m, rp.name));
    const configAliases = m.path ? configurationAliases(m) : new Map<string, ProviderAddr>();
    const passedIn = new Map<string, Passed>();
    if (parentCall) for (const p of passedOf(parentCall)) passedIn.set(nameOf(p.inChild), p);
    const moduleText = m.path || 'the root module';
    const parentPathOfM = parentPath(m.path);
    const parentModuleText = parentPathOfM ? parentPathOfM : 'the root module';

    for (const call of m.moduleCalls.values())
      for (const passed of passedOf(call)) {
        if (passed.inParent.alias) continue;
        const name = passed.inParent.name;
        const confOK = configured.has(name);
        const localOK = localNames.has(name);
        const passedOK = passedIn.has(name);
        if (!(confOK || localOK)) {
          const def = providerForDisplay(impliedProvider(name));
          out.push({
            severity: 'warning',
            summary: 'Reference to undefined provider',
            detail: `There is no explicit declaration for local provider name ${JSON.stringify(name)} in ${moduleText}, so Terraform is assuming you mean to pass a configuration for provider ${JSON.stringify(def)}.\n\nTo clarify your intent and silence this warning, add to ${parentModuleText} a required_providers entry named ${JSON.stringify(name)} with source = ${JSON.stringify(def)}, or a different source address if appropriate.`,
            subject: passed.parentRange,
          });
          continue;
        }
        if (m.path && parentCall && !(confOK || passedOK)) {
          const def = providerForDisplay(impliedProvider(name));
          out.push({
            severity: 'warning',
            summary: 'Missing required provider configuration',
            detail: `The configuration for ${moduleText} expects to inherit a configuration for provider ${def} with local name ${JSON.stringify(name)}, but ${parentModuleText} doesn't pass a configuration under that name.\n\nTo satisfy this requirement, add an entry for ${JSON.stringify(name)} to the "providers" argument in the module ${JSON.stringify(parentCall.name)} block.`,
            subject: parentCall.declRange,
          });
        }
      }
    if (!m.path || !parentCall || !parent) return;

    if (configured.size > 0 && noConfigRange)
      out.push(
        error(
          'Module is incompatible with count, for_each, and depends_on',
          `The module at ${m.path} is a legacy module which contains its own local provider configurations, and so calls to it may not use the count, for_each, or depends_on arguments.\n\nIf you also control the module ${JSON.stringify(parentCall.source ?? '')}, consider updating this module to instead expect provider configurations to be passed by its caller.`,
          noConfigRange,
        ),
      );
    for (const name of configured.keys()) {
      const passed = passedIn.get(name);
      if (passed)
        out.push(
          error(
            'Cannot override provider configuration',
            `The configuration of ${moduleText} has its own local configuration for ${name}, and so it cannot accept an overridden configuration provided by ${parentModuleText}.`,
            passed.childRange,
          ),
        );
    }
    for (const [name, addr] of configAliases) {
      if (configured.has(name) || passedIn.has(name)) continue;
      out.push(
        error(
          'Missing required provider configuration',
          `The child module requires an additional configuration for provider ${providerForDisplay(addr)}, with the local name ${JSON.stringify(name)}.\n\nRefer to the module's documentation to understand the intended purpose of this additional provider configuration, and then add an entry for ${name} in the "providers" meta-argument in the module block to choose which provider configuration the module should use for that purpose.`,
          parentCall.declRange,
        ),
      );
    }
    const empty = new Set<string>();
    for (const p of m.providers) {
      const name = p.alias ? `${p.name}.${p.alias}` : p.name;
      if (!configured.has(name)) empty.add(name);
    }
    const parentLocal = new Map<string, ProviderAddr>();
    for (const tb of parent.terraform) for (const rp of tb.requiredProviders) if (!parentLocal.has(rp.name)) parentLocal.set(rp.name, providerForLocalName(parent, rp.name));
    for (const [name, passed] of passedIn) {
      let childTy = localNames.get(passed.inChild.name) ?? impliedProvider(passed.inChild.name);
      const local = localNames.get(name);
      if (local) childTy = local;
      const alias = configAliases.get(name);
      if (alias) childTy = alias;
      if (!(local || alias || empty.has(name))) {
        const d = providerForDisplay(childTy);
        if (isOfficial(childTy))
          out.push({
            severity: 'warning',
            summary: 'Reference to undefined provider',
            detail: `There is no explicit declaration for local provider name ${JSON.stringify(name)} in ${moduleText}, so Terraform is assuming you mean to pass a configuration for ${JSON.stringify(d)}.\n\nIf you also control the child module, add a required_providers entry named ${JSON.stringify(name)} with the source address ${JSON.stringify(d)}.`,
            subject: passed.childRange,
          });
        else
          out.push(
            error(
              'Reference to undefined provider',
              `The child module does not declare any provider requirement with the local name ${JSON.stringify(name)}.\n\nIf you also control the child module, you can add a required_providers entry named ${JSON.stringify(name)} with the source address ${JSON.stringify(d)} to accept this provider configuration.`,
              passed.childRange,
            ),
          );
      }
      // As Terraform does, the parent's required_providers is consulted under the child's name.
      const parentTy = parentLocal.get(name) ?? providerForLocalName(parent, passed.inParent.name);
      if (sameProvider(childTy, parentTy)) continue;
      let other: string | undefined;
      for (const [ln, a] of localNames)
        if (sameProvider(a, parentTy)) {
          other = ln;
          break;
        }
      if (other !== undefined)
        out.push(
          error(
            'Provider type mismatch',
            `The assigned configuration is for provider ${JSON.stringify(providerForDisplay(parentTy))}, but local name ${JSON.stringify(passed.inChild.name)} in ${parentModuleText} represents ${JSON.stringify(providerForDisplay(childTy))}.\n\nTo pass this configuration to the child module, use the local name ${JSON.stringify(other)} instead.`,
            passed.childRange,
          ),
        );
      else
        out.push(
          error(
            'Provider type mismatch',
            `The local name ${JSON.stringify(nameOf(passed.inParent))} in ${parentModuleText} represents provider ${JSON.stringify(providerForDisplay(parentTy))}, but ${JSON.stringify(nameOf(passed.inChild))} in ${moduleText} represents ${JSON.stringify(providerForDisplay(childTy))}.\n\nEach provider has its own distinct configuration schema and provider types, so this module's ${JSON.stringify(nameOf(passed.inChild))} can be assigned only a configuration for ${providerForDisplay(childTy)}, which is not required by ${moduleText}.`,
            passed.parentRange,
          ),
        );
    }
    out.push(...emptyProviderWarningsOf(m, blockVersion));
  };
  visit(root, undefined, undefined, undefined);
  return out;
}
