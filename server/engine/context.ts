// The walk context shared by plan and apply: the configuration graph, module instances and their values,
// providers (schemas, configuration), state object encoding, and the ModuleData that expressions read.
//
// Graph (server/graph): one node per configuration object per static module path (Terraform's "expand" nodes):
// `provider`, `var`, `local`, `output`, `module` (expansion of a call), `module-close` (after the child's outputs),
// `resource` (managed and data; expands count/for_each in every instance of its module and handles each instance),
// `check`. Edges come from the references of every expression of the object (refsOf), depends_on, the provider a
// resource uses and the module a node lives in. A node runs once for all instances of its module path.
//
// Contracts:
// - Nodes run only after their dependencies (graph.walk), so every value an expression reads has been stored by
//   then; lookups of objects whose node failed or was not walked (targeting) fall back to the state.
// - Values in the stores carry marks (sensitive); provider calls get unmarked values (marks.ts) and answers are
//   re-marked with the config's marks and the schema's sensitive attributes.
// - Everything a user did wrong is a Diagnostic pushed to `diagnostics`; exceptions are bugs.

import { relative } from 'node:path';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type { Expression, Reference } from '../config/hclbody';
import type { Module, ModuleCall, ProviderConfig, Resource } from '../config/model';
import type { Expr } from '../lang/ast';
import { evaluate, type Scope } from '../lang/eval';
import type { FuncContext } from '../lang/funcs/function';
import { ModuleScope, type Lookup, type ModuleData } from '../lang/scope';
import * as T from '../lang/types';
import { Value } from '../lang/value';
import { Graph } from '../graph/graph';
import { Semaphore } from '../graph/semaphore';
import { markWithPaths, sensitivePaths, unmarkDeepWithPaths } from '../providers/marks';
import type { Path } from '../providers/path';
import { attrStep as pAttr, indexStep as pIndex } from '../providers/path';
import type { GetProviderSchemaResponse, Provider } from '../providers/provider';
import { DEFAULT_CLIENT_CAPABILITIES } from '../providers/provider';
import { absProviderConfigString, resolveResourceProviders } from '../providers/resolve';
import type { Schema } from '../providers/schema';
import { impliedType, nullObject } from '../providers/schema';
import type { AttrPath, InstanceAddr, InstanceKey, ObjectSrc, PathStep, State } from '../states/state';
import { instanceAddrString, instanceKeyString, resourceKey } from '../states/state';
import { countValue, forEachValue } from '../config/evaluate';
import { expressionValues } from '../config/variables';
import { finalizeVariable, validateVariable } from '../config/variables';
import { marshal, unmarshal } from './ctyjson';
import { decodeBody } from './decode';
import type { Hooks } from './hooks';
import { CheckTracker, evalCondition, type ConditionKind, type Rule } from './conditions';
import { providerGraphDiagnostics } from './validate';

/** Supplies a provider instance for a provider source address (`terraform.io/builtin/terraform`). */
export type ProviderFactory = (fqn: string) => Provider | undefined;

export const BUILTIN_TERRAFORM = 'terraform.io/builtin/terraform';

/** Normalises a required_providers source to a fully-qualified provider address. */
export function normalizeSource(src: string): string {
  const parts = src.split('/');
  if (parts.length === 3) return src.toLowerCase() === 'terraform.io/builtin/terraform' ? BUILTIN_TERRAFORM : src;
  if (parts.length === 2) return `registry.terraform.io/${src}`.toLowerCase();
  return `registry.terraform.io/hashicorp/${src}`;
}

/** The provider source a module's local provider name means (required_providers, else the implied default). */
export function providerFqn(mod: Module, local: string): string {
  for (const tb of mod.terraform) for (const rp of tb.requiredProviders) if (rp.name === local && rp.source) return normalizeSource(rp.source);
  if (local === 'terraform') return BUILTIN_TERRAFORM;
  return `registry.terraform.io/hashicorp/${local}`;
}

/** The local provider name a resource uses: its `provider` argument or its type's prefix. */
export function resourceProviderLocal(r: Resource): { local: string; alias?: string } {
  if (r.provider) return { local: r.provider.name, alias: r.provider.alias };
  const i = r.type.indexOf('_');
  return { local: i < 0 ? r.type : r.type.slice(0, i) };
}

/** `provider["fqn"]` or `provider["fqn"].alias`. */
export function providerConfigAddr(fqn: string, alias?: string): string {
  return absProviderConfigString({ module: '', fqn, alias });
}

/** Static module path ("module.a.module.b") of a module instance address ("module.a[0].module.b"). */
export function staticPath(modInst: string): string {
  return modInst.replace(/\[(?:\d+|"(?:[^"\\]|\\.)*")\]/g, '');
}

/** The absolute config address of a resource: `module.a.terraform_data.x`. */
export function configResourceAddr(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

// ---- sensitive paths between marks and the state ----------------------------------------------------------

export function toStatePath(p: Path): AttrPath {
  return p.map((s): PathStep => {
    if (s.kind === 'attr') return { type: 'get_attr', name: s.name };
    const k = s.key;
    return { type: 'index', key: k.type.kind === 'number' ? `{"value":${k.num.toString()},"type":"number"}` : `{"value":${JSON.stringify(k.str)},"type":"string"}` };
  });
}

export function fromStatePath(p: AttrPath): Path {
  return p.map((s) => {
    if (s.type === 'get_attr') return pAttr(s.name);
    try {
      const j = JSON.parse(s.key) as { value: string | number; type: string };
      return pIndex(j.type === 'number' ? Value.number(Number(j.value)) : Value.string(String(j.value)));
    } catch {
      return pIndex(Value.string(s.key));
    }
  });
}

// ---- module instances and their values ----------------------------------------------------------------------

export type Repetition = { countIndex?: Value; each?: { key: Value; value: Value } };

/** How a resource or module call expanded in one module instance. */
export type Expansion = { kind: 'single' } | { kind: 'count'; n: number } | { kind: 'foreach'; entries: Map<string, Value> } | { kind: 'unknown' };

export function expansionKeys(e: Expansion): InstanceKey[] {
  switch (e.kind) {
    case 'single':
      return [undefined];
    case 'count':
      return Array.from({ length: e.n }, (_, i) => i);
    case 'foreach':
      return [...e.entries.keys()];
    case 'unknown':
      return [];
  }
}

export function repetitionFor(e: Expansion, key: InstanceKey): Repetition {
  if (e.kind === 'count') return { countIndex: Value.number(key as number) };
  if (e.kind === 'foreach') return { each: { key: Value.string(key as string), value: e.entries.get(key as string)! } };
  return {};
}

export interface ResourceValues {
  expansion: Expansion;
  /** instanceKeyString -> marked object value */
  instances: Map<string, Value>;
}

export class ModuleInstance {
  readonly vars = new Map<string, Value>();
  readonly locals = new Map<string, Value>();
  readonly outputs = new Map<string, Value>();
  readonly resources = new Map<string, ResourceValues>();
  /** call name -> expansion and child instances by key string */
  readonly calls = new Map<string, { expansion: Expansion; children: Map<string, ModuleInstance> }>();
  constructor(
    readonly addr: string,
    readonly mod: Module,
    readonly rep: Repetition,
    readonly parent?: ModuleInstance,
  ) {}
}

// ---- graph nodes ----------------------------------------------------------------------------------------------

export type Node =
  | { kind: 'provider'; fqn: string; alias?: string; config?: ProviderConfig; name: string; module?: string }
  | { kind: 'var'; path: string; mod: Module; name: string }
  | { kind: 'local'; path: string; mod: Module; name: string }
  | { kind: 'output'; path: string; mod: Module; name: string }
  | { kind: 'module'; path: string; mod: Module; call: ModuleCall }
  | { kind: 'module-close'; path: string; mod: Module; call: ModuleCall }
  | { kind: 'resource'; path: string; mod: Module; res: Resource; fqn: string; providerAddr: string }
  | { kind: 'check'; path: string; mod: Module; index: number }
  | { kind: 'destroy'; absAddr: string; fqn: string; providerAddr: string; replace: boolean };

export function nodeKey(kind: string, path: string, name: string): string {
  return `${kind}\u0000${path}\u0000${name}`;
}

/** The name Terraform gives a node in messages (cycles). */
export function nodeDisplayName(n: Node): string {
  const pre = (p: string) => (p ? p + '.' : '');
  switch (n.kind) {
    case 'provider':
      return absProviderConfigString({ module: n.module ?? '', fqn: n.fqn, alias: n.alias });
    case 'var':
      return `${pre(n.path)}var.${n.name}`;
    case 'local':
      return `${pre(n.path)}local.${n.name}`;
    case 'output':
      return `${pre(n.path)}output.${n.name}`;
    case 'module':
      return `${pre(n.path)}module.${n.call.name} (expand)`;
    case 'module-close':
      return `${pre(n.path)}module.${n.call.name} (close)`;
    case 'resource':
      return `${pre(n.path)}${resourceKey(n.res)}`;
    case 'check':
      return `${pre(n.path)}check.${n.mod.checks[n.index].name}`;
    case 'destroy':
      return `${n.absAddr} (destroy)`;
  }
}

/** Every expression of a resource block that may hold references. */
export function resourceExpressions(r: Resource): Expression[] {
  const out: Expression[] = [];
  const body = (b: Resource['config']) => {
    for (const a of b.attributes) out.push(a.expr);
    for (const bl of b.blocks) body(bl.body);
  };
  body(r.config);
  if (r.count) out.push(r.count);
  if (r.forEach) out.push(r.forEach);
  if (r.dependsOn) out.push(r.dependsOn);
  const lc = r.lifecycle;
  if (lc) {
    for (const e of lc.replaceTriggeredBy ?? []) out.push(e);
    for (const c of [...lc.preconditions, ...lc.postconditions]) {
      if (c.condition) out.push(c.condition);
      if (c.errorMessage) out.push(c.errorMessage);
    }
  }
  return out;
}

export interface BuiltGraph {
  graph: Graph<Node>;
  /** absolute config resource address -> node key */
  resourceNodes: Map<string, string>;
  /** absolute config resource address -> absolute addresses of resources it depends on (transitively), sorted */
  resourceDeps: ResourceDeps;
  /** Resources whose create_before_destroy is forced because a create_before_destroy resource depends on them. */
  forcedCBD: Set<string>;
  diagnostics: Diagnostic[];
  /**
   * The node keys a resource block's references name in module `m` of this graph, as its edges were made (without
   * the provider's and the module expansion's); undefined when one names a module output or is unresolved (edges
   * that depend on more than the names). For comparing an edited block's edges with its node's (preview patches).
   */
  resourceTargets(m: Module, r: Resource, from: string): string[] | undefined;
  /** The node a reference in module `m` names, as the graph's edges are made; undefined when none. */
  referenceTarget(m: Module, ref: Reference): string | undefined;
}

/**
 * A resource block's configuration address and node key, the same strings for every graph while the block is the
 * same object (resourceEdges' targets are then the graph's own keys, and looking them up compares no characters).
 */
const nodeKeys = new WeakMap<Resource['config'], { path: string; addr: string; key: string }>();

export function resourceNodeKeys(path: string, r: Resource): { addr: string; key: string } {
  const hit = nodeKeys.get(r.config);
  if (hit && hit.path === path) return hit;
  const rk = resourceKey(r);
  const e = { path, addr: configResourceAddr(path, rk), key: nodeKey('resource', path, rk) };
  nodeKeys.set(r.config, e);
  return e;
}

/** Reference roots that never name a node (refTarget answers undefined for them whatever the configuration). */
const STATIC_ROOTS = new Set(['count', 'each', 'path', 'terraform', 'self', 'ephemeral']);

/**
 * The reference edges of a resource block by its body (a body is the same object while its file's text is), made
 * from the block's count, for_each, depends_on and lifecycle (compared by identity too) in module `path`, kept only
 * when every reference named a node by its text alone (no module outputs, nothing unresolved): a later graph
 * reuses them when all those nodes exist in it. An editor's previews build the graph after every edit.
 */
const resourceEdges = new WeakMap<
  Resource['config'],
  { path: string; count: Resource['count']; forEach: Resource['forEach']; dependsOn: Resource['dependsOn']; lifecycle: Resource['lifecycle']; targets: string[] }
>();

/**
 * The transitive resource dependencies of a graph (what the state's `dependencies` lists), each list made when it is
 * first asked for: a plan that replays most resources (the editor's preview, server/lsp/preview/memo.ts) needs the
 * lists of the few it plans, and making all of them is most of a large graph's build time.
 */
export class ResourceDeps {
  private readonly lists = new Map<string, string[]>();
  private keyToAddr: Map<string, string> | undefined;
  constructor(
    private readonly g: Graph<Node>,
    private readonly resourceNodes: Map<string, string>,
  ) {}

  /** The sorted addresses `addr` depends on; undefined when `addr` is not a resource of the configuration. */
  get(addr: string): string[] | undefined {
    let l = this.lists.get(addr);
    if (l) return l;
    const k = this.resourceNodes.get(addr);
    if (k === undefined) return undefined;
    if (!this.keyToAddr) {
      this.keyToAddr = new Map();
      for (const [a, key] of this.resourceNodes) this.keyToAddr.set(key, a);
    }
    const g = this.g;
    const seen = new Set<string>([k]);
    const stack = [...g.dependencies(k)];
    const out = new Set<string>();
    while (stack.length) {
      const x = stack.pop()!;
      if (seen.has(x)) continue;
      seen.add(x);
      const n = g.get(x)!;
      if (n.kind === 'provider') continue;
      const ra = this.keyToAddr.get(x);
      if (ra) out.add(ra);
      for (const d of g.dependencies(x)) stack.push(d);
    }
    this.lists.set(addr, (l = [...out].sort()));
    return l;
  }

  /** Every resource's list, in the order of the graph's resource nodes. */
  *entries(): IterableIterator<[string, string[]]> {
    for (const a of this.resourceNodes.keys()) yield [a, this.get(a)!];
  }
}

/** Builds the configuration graph of a module tree. O(V+E); the transitive dependency lists are made on demand. */
export function buildConfigGraph(root: Module): BuiltGraph {
  const g = new Graph<Node>();
  const diagnostics: Diagnostic[] = [];
  const resourceNodes = new Map<string, string>();
  const providers = new Map<string, string>(); // provider config address -> node key
  const mods: Module[] = [];
  const visit = (m: Module) => {
    mods.push(m);
    for (const c of m.moduleCalls.values()) if (c.module) visit(c.module);
  };
  visit(root);
  const modByPath = new Map(mods.map((m) => [m.path, m] as const));
  // Which configuration each resource uses: a block of its own module, one passed in through `providers = {}`,
  // or an inherited default one (resolveResourceProviders, Terraform's ProviderTransformer).
  const resolved = resolveResourceProviders(root);
  // A `providers = {}` entry naming a configuration its caller lacks ends Terraform's graph build (engine/validate.ts).
  diagnostics.push(...providerGraphDiagnostics(root));

  const ensureProvider = (fqn: string, local: string, alias: string | undefined, module = ''): string => {
    const addr = absProviderConfigString({ module, fqn, alias });
    let k = providers.get(addr);
    if (!k) {
      k = nodeKey('provider', '', addr);
      const m = modByPath.get(module);
      const cfg = m?.providers.find((p) => (p.alias ?? '') === (alias ?? '') && providerFqn(m, p.name) === fqn);
      g.add(k, { kind: 'provider', fqn, alias, config: cfg, name: cfg?.name ?? local, module });
      providers.set(addr, k);
    }
    return k;
  };
  // Every root provider configuration is a node, used or not (Terraform configures them all).
  for (const p of root.providers) ensureProvider(providerFqn(root, p.name), p.name, p.alias);

  // Nodes.
  for (const m of mods) {
    const p = m.path;
    for (const v of m.variables.values()) g.add(nodeKey('var', p, v.name), { kind: 'var', path: p, mod: m, name: v.name });
    for (const l of m.locals.values()) g.add(nodeKey('local', p, l.name), { kind: 'local', path: p, mod: m, name: l.name });
    for (const o of m.outputs.values()) g.add(nodeKey('output', p, o.name), { kind: 'output', path: p, mod: m, name: o.name });
    for (const c of m.moduleCalls.values()) {
      g.add(nodeKey('module', p, c.name), { kind: 'module', path: p, mod: m, call: c });
      g.add(nodeKey('module-close', p, c.name), { kind: 'module-close', path: p, mod: m, call: c });
    }
    const allRes = [...m.resources, ...m.checks.flatMap((c) => c.data)];
    for (const r of allRes) {
      const { local, alias } = resourceProviderLocal(r);
      const fqn = providerFqn(m, local);
      const { addr, key: k } = resourceNodeKeys(p, r);
      const rc = resolved.get(addr);
      const cfgMod = rc?.module ?? '';
      const cfgAlias = rc ? rc.alias : alias;
      ensureProvider(fqn, local, cfgAlias, cfgMod);
      g.add(k, { kind: 'resource', path: p, mod: m, res: r, fqn, providerAddr: absProviderConfigString({ module: cfgMod, fqn, alias: cfgAlias }) });
      resourceNodes.set(addr, k);
    }
    m.checks.forEach((c, i) => g.add(nodeKey('check', p, c.name), { kind: 'check', path: p, mod: m, index: i }));
  }

  // Edges from references.
  const refTarget = (m: Module, root: string, steps: { kind: string; name?: string }[]): string | undefined => {
    const p = m.path;
    const name0 = steps[0]?.kind === 'attr' ? steps[0].name : undefined;
    const name1 = steps[1]?.kind === 'attr' ? steps[1].name : undefined;
    switch (root) {
      case 'var':
        return name0 && m.variables.has(name0) ? nodeKey('var', p, name0) : undefined;
      case 'local':
        return name0 && m.locals.has(name0) ? nodeKey('local', p, name0) : undefined;
      case 'module': {
        // `module.x.out` / `module.x[k].out` depend on that output only; `module.x` as a whole on everything in it.
        const call = name0 ? m.moduleCalls.get(name0) : undefined;
        if (!call) return undefined;
        let i = 1;
        if (steps[i]?.kind === 'index') i++;
        const out = steps[i]?.kind === 'attr' ? steps[i].name : undefined;
        if (out && call.module?.outputs.has(out)) return nodeKey('output', call.module.path, out);
        return nodeKey('module-close', p, name0!);
      }
      case 'data':
        return name0 && name1 ? resourceNodes.get(configResourceAddr(p, `data.${name0}.${name1}`)) : undefined;
      case 'count':
      case 'each':
      case 'path':
      case 'terraform':
      case 'self':
      case 'ephemeral':
        return undefined;
      case 'resource':
        return name0 && name1 ? resourceNodes.get(configResourceAddr(p, `${name0}.${name1}`)) : undefined;
      default:
        return name0 ? resourceNodes.get(configResourceAddr(p, `${root}.${name0}`)) : undefined;
    }
  };
  const connectRefs = (from: string, m: Module, exprs: (Expression | undefined)[]) => {
    for (const e of exprs) {
      if (!e) continue;
      for (const r of e.refs) {
        const t = refTarget(m, r.root, r.steps as { kind: string; name?: string }[]);
        // Self-references (a variable's validation reading the variable) are not dependencies.
        if (t && t !== from) g.connect(from, t);
      }
    }
  };
  /**
   * The targets of a resource block's references (pushed to `targets`); false when one names a module output (its edge
   * depends on the child module) or is unresolved (on names declared elsewhere).
   */
  const scanTargets = (m: Module, r: Resource, from: string, targets: string[]): boolean => {
    let byName = true;
    for (const e of resourceExpressions(r)) {
      for (const ref of e.refs) {
        const t = refTarget(m, ref.root, ref.steps as { kind: string; name?: string }[]);
        if (ref.root === 'module' || (t === undefined && !STATIC_ROOTS.has(ref.root))) byName = false;
        if (t && t !== from) targets.push(t);
      }
    }
    return byName;
  };
  /**
   * A resource's reference edges, from the last graph that had the same block (resourceEdges) when each of its
   * targets is a node of this graph too; else found again.
   */
  const connectResource = (from: string, m: Module, r: Resource) => {
    const hit = resourceEdges.get(r.config);
    if (hit && hit.path === m.path && hit.count === r.count && hit.forEach === r.forEach && hit.dependsOn === r.dependsOn && hit.lifecycle === r.lifecycle && hit.targets.every((t) => g.has(t))) {
      for (const t of hit.targets) g.connect(from, t);
      return;
    }
    const targets: string[] = [];
    const reusable = scanTargets(m, r, from, targets);
    for (const t of targets) g.connect(from, t);
    if (reusable) resourceEdges.set(r.config, { path: m.path, count: r.count, forEach: r.forEach, dependsOn: r.dependsOn, lifecycle: r.lifecycle, targets });
    else resourceEdges.delete(r.config);
  };
  for (const m of mods) {
    const p = m.path;
    // Everything in a child module waits for the module's expansion.
    const parentExpand = m.path ? nodeKey('module', parentPath(p), lastCallName(p)) : undefined;
    const inModule = (k: string) => {
      if (parentExpand && g.has(parentExpand)) g.connect(k, parentExpand);
    };
    for (const v of m.variables.values()) {
      const k = nodeKey('var', p, v.name);
      inModule(k);
      // A child's variable reads the call's argument in the parent module.
      if (parentExpand) {
        const parent = g.get(parentExpand) as Extract<Node, { kind: 'module' }>;
        connectRefs(k, parent.mod, [parent.call.arguments.get(v.name)]);
      }
      connectRefs(k, m, v.validations.flatMap((c) => [c.condition, c.errorMessage]));
    }
    for (const l of m.locals.values()) {
      const k = nodeKey('local', p, l.name);
      inModule(k);
      connectRefs(k, m, [l.expr]);
    }
    for (const o of m.outputs.values()) {
      const k = nodeKey('output', p, o.name);
      inModule(k);
      connectRefs(k, m, [o.value, o.dependsOn, ...o.preconditions.flatMap((c) => [c.condition, c.errorMessage])]);
    }
    for (const c of m.moduleCalls.values()) {
      const k = nodeKey('module', p, c.name);
      inModule(k);
      connectRefs(k, m, [c.count, c.forEach, c.dependsOn]);
      const close = nodeKey('module-close', p, c.name);
      g.connect(close, k);
      if (c.module) {
        // The close node waits for everything inside the child module (and its descendants' close nodes).
        const cm = c.module;
        for (const o of cm.outputs.keys()) g.connect(close, nodeKey('output', cm.path, o));
        for (const v of cm.variables.keys()) g.connect(close, nodeKey('var', cm.path, v));
        for (const l of cm.locals.keys()) g.connect(close, nodeKey('local', cm.path, l));
        for (const r of [...cm.resources, ...cm.checks.flatMap((x) => x.data)]) g.connect(close, resourceNodeKeys(cm.path, r).key);
        for (const cc of cm.moduleCalls.values()) g.connect(close, nodeKey('module-close', cm.path, cc.name));
      }
      // depends_on of a module call: every resource inside waits for it (connected below via the expand node).
    }
    for (const r of [...m.resources, ...m.checks.flatMap((c) => c.data)]) {
      const k = resourceNodeKeys(p, r).key;
      inModule(k);
      const n = g.get(k) as Extract<Node, { kind: 'resource' }>;
      g.connect(k, providers.get(n.providerAddr)!);
      connectResource(k, m, r);
    }
    m.checks.forEach((c) => {
      const k = nodeKey('check', p, c.name);
      inModule(k);
      connectRefs(k, m, c.asserts.flatMap((a) => [a.condition, a.errorMessage]));
      for (const d of c.data) g.connect(k, resourceNodeKeys(p, d).key);
    });
  }
  for (const [, k] of providers) {
    const n = g.get(k) as Extract<Node, { kind: 'provider' }>;
    const pm = modByPath.get(n.module ?? '') ?? root;
    // A provider block inside a child module is evaluated in that module (its single instance).
    if (pm.path) {
      const expandKey = nodeKey('module', parentPath(pm.path), lastCallName(pm.path));
      if (g.has(expandKey)) g.connect(k, expandKey);
    }
    if (n.config) {
      const exprs: Expression[] = [];
      const body = (b: typeof n.config.body) => {
        for (const a of b.attributes) exprs.push(a.expr);
        for (const bl of b.blocks) body(bl.body);
      };
      body(n.config.body);
      connectRefs(k, pm, exprs);
    }
  }

  // Transitive resource dependencies (what the state's `dependencies` lists).
  const resourceDeps = new ResourceDeps(g, resourceNodes);

  const forcedCBD = new Set<string>();
  for (const [addr, k] of resourceNodes) {
    const n = g.get(k) as Extract<Node, { kind: 'resource' }>;
    if (n.res.lifecycle?.createBeforeDestroy?.text.trim() === 'true') for (const d of resourceDeps.get(addr) ?? []) forcedCBD.add(d);
  }
  const resourceTargets = (m: Module, r: Resource, from: string): string[] | undefined => {
    const targets: string[] = [];
    return scanTargets(m, r, from, targets) ? targets : undefined;
  };
  const referenceTarget = (m: Module, ref: Reference) => refTarget(m, ref.root, ref.steps as { kind: string; name?: string }[]);
  return { graph: g, resourceNodes, resourceDeps, forcedCBD, diagnostics, resourceTargets, referenceTarget };
}

function parentPath(p: string): string {
  const i = p.lastIndexOf('.module.');
  return i < 0 ? '' : p.slice(0, i);
}
function lastCallName(p: string): string {
  const i = p.lastIndexOf('module.');
  return p.slice(i + 'module.'.length);
}

/** Orders node keys by their display names (the start order of simultaneously ready nodes). */
export function displayOrder(g: Graph<Node>): (a: string, b: string) => number {
  const names = new Map<string, string>();
  const name = (k: string) => {
    let n = names.get(k);
    if (n === undefined) {
      n = nodeDisplayName(g.get(k)!);
      names.set(k, n);
    }
    return n;
  };
  return (a, b) => {
    const x = name(a);
    const y = name(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

/** "Cycle: a, b" diagnostics for the cycles of a graph. */
export function cycleDiagnostics(g: Graph<Node>): Diagnostic[] {
  // Terraform lists a cycle's nodes in no particular order; sorted names make the message deterministic.
  return g.cycles().map((c) => error(`Cycle: ${c.map((k) => nodeDisplayName(g.get(k)!)).sort().join(', ')}`));
}

// ---- providers ---------------------------------------------------------------------------------------------------

export interface ProviderEntry {
  fqn: string;
  provider: Provider;
  schema: GetProviderSchemaResponse;
  configured: boolean;
}

// ---- the context ----------------------------------------------------------------------------------------------------

export interface ContextOptions {
  root: Module;
  cwd: string;
  workspace: string;
  providers: ProviderFactory;
  parallelism: number;
  hooks: Hooks;
  signal?: AbortSignal;
  planning: boolean;
}

export class WalkContext {
  readonly diagnostics: Diagnostic[] = [];
  readonly sem: Semaphore;
  /**
   * How many nodes a walk, and how many instances a node, run at once: twice -parallelism, so that work between
   * provider calls never leaves a semaphore slot idle, while not every instance holds its values at once
   * (ARCHITECTURE.md, server/graph).
   */
  get startLimit(): number {
    return 2 * this.sem.n;
  }
  readonly providers = new Map<string, ProviderEntry>();
  readonly rootInstance: ModuleInstance;
  /** static module path -> its instances (filled by module expansion nodes) */
  readonly instances = new Map<string, ModuleInstance[]>();
  /** The state lookups fall back to (set by plan/apply). */
  state!: State;
  readonly checks: CheckTracker;

  constructor(
    readonly opts: ContextOptions,
    readonly built: BuiltGraph,
  ) {
    this.sem = new Semaphore(Math.max(1, opts.parallelism));
    this.checks = new CheckTracker(opts.root);
    this.rootInstance = new ModuleInstance('', opts.root, {});
    this.instances.set('', [this.rootInstance]);
  }

  /** Loads the schemas of every provider the configuration and the state use. False on errors. */
  async loadProviders(fqns: Iterable<string>): Promise<boolean> {
    let ok = true;
    for (const fqn of fqns) {
      if (this.providers.has(fqn)) continue;
      const p = this.opts.providers(fqn);
      if (!p) {
        this.diagnostics.push(
          error(
            'Missing required provider',
            `This configuration requires provider ${fqn}, but that provider isn't available. You may be able to install it automatically by running:\n  terraform init`,
          ),
        );
        ok = false;
        continue;
      }
      const schema = await p.getProviderSchema();
      this.pushProviderDiags(schema.diagnostics);
      if (schema.diagnostics.some((d) => d.severity === 'error')) {
        ok = false;
        continue;
      }
      this.providers.set(fqn, { fqn, provider: p, schema, configured: false });
    }
    return ok;
  }

  pushProviderDiags(ds: readonly Diagnostic[], addr?: string): void {
    for (const d of ds) this.diagnostics.push(addr && !d.subject ? { ...d } : d);
  }

  schemaOf(fqn: string, mode: 'managed' | 'data', type: string): Schema | undefined {
    const p = this.providers.get(fqn);
    if (!p) return undefined;
    return mode === 'managed' ? p.schema.resourceTypes[type] : p.schema.dataSources[type];
  }

  /** Configured provider instances by configuration address (`provider["fqn"]`, `provider["fqn"].alias`). */
  readonly configured = new Map<string, Provider>();

  /** The configured provider instance for a configuration address (aliases fall back to the default one). */
  providerFor(configAddr: string): Provider | undefined {
    const c = this.configured.get(configAddr) ?? this.configured.get(configAddr.replace(/^(?:module\.[^.]+(?:\[[^\]]*\])?\.)+/, ''));
    if (c) return c;
    const fqn = /provider\["([^"]+)"\]/.exec(configAddr)?.[1];
    return fqn ? this.configured.get(providerConfigAddr(fqn)) ?? this.providers.get(fqn)?.provider : undefined;
  }

  /** Configures a provider configuration (once) from its root configuration block. */
  async configureProvider(n: Extract<Node, { kind: 'provider' }>): Promise<boolean> {
    const base = this.providers.get(n.fqn);
    if (!base) return false;
    const addr = absProviderConfigString({ module: n.module ?? '', fqn: n.fqn, alias: n.alias });
    if (this.configured.has(addr)) return true;
    let e: ProviderEntry = base;
    if (n.alias || n.module || base.configured) {
      const inst = this.opts.providers(n.fqn);
      if (!inst) return false;
      e = { ...base, provider: inst, configured: false };
    }
    let config = nullObject(e.schema.provider.block);
    const diags: Diagnostic[] = [];
    // A child module's provider block reads that module's (single) instance; modules with provider blocks cannot
    // use count/for_each, so the static path names it.
    const inst = (n.module && this.instances.get(n.module)?.[0]) || this.rootInstance;
    if (n.config) config = decodeBody(n.config.body, e.schema.provider.block, this.scope(inst), diags);
    else config = decodeBody({ attributes: [], blocks: [], range: emptyRange(), endRange: emptyRange() }, e.schema.provider.block, this.scope(inst), diags);
    this.diagnostics.push(...diags);
    if (diags.some((d) => d.severity === 'error')) return false;
    const unmarked = unmarkDeepWithPaths(config).value;
    const v = await e.provider.validateProviderConfig({ config: unmarked });
    this.diagnostics.push(...v.diagnostics);
    if (v.diagnostics.some((d) => d.severity === 'error')) return false;
    const r = await e.provider.configureProvider({ terraformVersion: '1.11.4', config: unmarked, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    this.diagnostics.push(...r.diagnostics);
    if (r.diagnostics.some((d) => d.severity === 'error')) return false;
    e.configured = true;
    this.configured.set(addr, e.provider);
    return true;
  }

  // ---- evaluation ---------------------------------------------------------------------------------------------

  funcCtx(inst: ModuleInstance): FuncContext {
    const rel = relative(this.opts.cwd, inst.mod.dir);
    const pathModule = rel === '' ? '.' : rel;
    return { baseDir: this.opts.cwd === process.cwd() ? pathModule : `${this.opts.cwd}/${pathModule}`, planning: this.opts.planning, console: false };
  }

  moduleData(inst: ModuleInstance, rep: Repetition = {}, self?: Value): ModuleData {
    const mod = inst.mod;
    const rel = relative(this.opts.cwd, mod.dir);
    return {
      variable: (n) => (mod.variables.has(n) ? inst.vars.get(n) ?? Value.unknown() : undefined),
      local: (n) => (mod.locals.has(n) ? inst.locals.get(n) ?? Value.unknown() : undefined),
      module: (n) => this.moduleValue(inst, n),
      resource: (m, t, n) => this.resourceValue(inst, m, t, n),
      countIndex: rep.countIndex,
      each: rep.each,
      self,
      pathModule: rel === '' ? '.' : rel,
      pathRoot: '.',
      pathCwd: this.opts.cwd,
      workspace: this.opts.workspace,
      moduleDescription: inst.addr === '' ? 'in the root module' : `in ${inst.addr}`,
      // Only read for "Did you mean" suggestions, so built on demand.
      get names() {
        return { variables: [...mod.variables.keys()], locals: [...mod.locals.keys()], modules: [...mod.moduleCalls.keys()] };
      },
    };
  }

  scope(inst: ModuleInstance, rep: Repetition = {}, self?: Value): Scope {
    return new ModuleScope(this.moduleData(inst, rep, self), this.funcCtx(inst));
  }

  eval(e: Expr, inst: ModuleInstance, rep: Repetition = {}, diags: Diagnostic[] = this.diagnostics): Value {
    const r = evaluate(e, this.scope(inst, rep));
    diags.push(...r.diagnostics);
    return r.value;
  }

  private moduleValue(inst: ModuleInstance, name: string): Lookup {
    const call = inst.mod.moduleCalls.get(name);
    if (!call) return undefined;
    const c = inst.calls.get(name);
    if (!c || c.expansion.kind === 'unknown') return Value.unknown();
    const objOf = (child: ModuleInstance) => {
      const m = new Map<string, Value>();
      for (const o of child.mod.outputs.values()) {
        let v = child.outputs.get(o.name) ?? Value.unknown();
        if (o.sensitive) v = v.mark('sensitive');
        m.set(o.name, v);
      }
      return Value.object(m);
    };
    switch (c.expansion.kind) {
      case 'single':
        return objOf(c.children.get('')!);
      case 'count':
        return Value.tuple(expansionKeys(c.expansion).map((k) => objOf(c.children.get(instanceKeyString(k))!)));
      case 'foreach': {
        const m = new Map<string, Value>();
        for (const k of c.expansion.entries.keys()) m.set(k, objOf(c.children.get(instanceKeyString(k))!));
        return Value.object(m);
      }
    }
  }

  private readonly resourceIndexes = new Map<Module, Map<string, Resource>>();

  /** A module's resources (and check blocks' data sources) by key, built once per module. */
  resourcesOf(mod: Module): Map<string, Resource> {
    let m = this.resourceIndexes.get(mod);
    if (!m) {
      m = new Map();
      for (const r of [...mod.resources, ...mod.checks.flatMap((c) => c.data)]) m.set(resourceKey(r), r);
      this.resourceIndexes.set(mod, m);
    }
    return m;
  }

  private resourceValue(inst: ModuleInstance, mode: 'managed' | 'data' | 'ephemeral', type: string, name: string): Lookup {
    if (mode === 'ephemeral') return undefined;
    const r = this.resourcesOf(inst.mod).get(resourceKey({ mode, type, name }));
    if (!r) return undefined;
    const key = resourceKey(r);
    let rv = inst.resources.get(key);
    if (!rv) rv = this.resourceValuesFromState(inst, r);
    return resourceValue(rv);
  }

  /** Values of a resource in a module instance as the working state holds them (for objects not walked). */
  resourceValuesFromState(inst: ModuleInstance, r: Resource): ResourceValues {
    const { local } = resourceProviderLocal(r);
    const fqn = providerFqn(inst.mod, local);
    const schema = this.schemaOf(fqn, r.mode, r.type);
    const rs = this.state.resource({ module: inst.addr, mode: r.mode, type: r.type, name: r.name });
    const instances = new Map<string, Value>();
    let expansion: Expansion = r.count ? { kind: 'count', n: 0 } : r.forEach ? { kind: 'foreach', entries: new Map() } : { kind: 'single' };
    if (rs && schema) {
      for (const [k, is] of rs.instances) {
        if (!is.current) continue;
        const v = decodeObject(is.current, schema);
        if (v) instances.set(k, v);
      }
      if (expansion.kind === 'count') expansion = { kind: 'count', n: [...rs.instances.values()].filter((i) => typeof i.key === 'number').length };
      if (expansion.kind === 'foreach') {
        const m = new Map<string, Value>();
        for (const is of rs.instances.values()) if (typeof is.key === 'string') m.set(is.key, Value.unknown());
        expansion = { kind: 'foreach', entries: m };
      }
    }
    if (!schema) return { expansion: { kind: 'unknown' }, instances };
    return { expansion, instances };
  }

  /**
   * Evaluates a list of condition rules for one checkable object and reports them to the check tracker.
   * Returns false when a rule failed or errored (for resource and output conditions: an error diagnostic).
   */
  runConditions(kind: ConditionKind, rules: readonly Rule[], inst: ModuleInstance, rep: Repetition, self: Value | undefined, configAddr: string, objectAddr: string, diags: Diagnostic[]): boolean {
    if (!rules.length) return true;
    const scope = this.scope(inst, rep, self);
    let ok = true;
    this.checks.declare(configAddr, objectAddr);
    for (const rule of rules) {
      const r = evalCondition(rule, scope, kind, diags);
      this.checks.report(configAddr, objectAddr, r.status, r.message);
      if ((r.status === 'fail' || r.status === 'error') && kind !== 'check') ok = false;
    }
    return ok;
  }

  /** Declares the not-yet-reported outputs and check blocks of every module instance (status unknown). */
  declareRemainingChecks(): void {
    for (const [path, insts] of this.instances) {
      for (const inst of insts) {
        const pre = inst.addr ? inst.addr + '.' : '';
        const cpre = path ? path + '.' : '';
        for (const o of inst.mod.outputs.values()) if (o.preconditions.length) this.checks.declare(`${cpre}output.${o.name}`, `${pre}output.${o.name}`);
        for (const c of inst.mod.checks) this.checks.declare(`${cpre}check.${c.name}`, `${pre}check.${c.name}`);
      }
    }
  }

  // ---- module instances ---------------------------------------------------------------------------------------

  instancesOf(path: string): ModuleInstance[] {
    return this.instances.get(path) ?? [];
  }

  /** Evaluates count/for_each of a resource or module call in one module instance. */
  expand(inst: ModuleInstance, count: Expression | undefined, forEach: Expression | undefined, diags: Diagnostic[], allowUnknown = false): Expansion {
    if (count) {
      const v = this.eval(count.ast, inst, {}, diags);
      const c = countValue(v, count.range, { allowUnknown });
      diags.push(...c.diagnostics);
      if (c.count === undefined) return { kind: 'unknown' };
      return { kind: 'count', n: c.count };
    }
    if (forEach) {
      const v = this.eval(forEach.ast, inst, {}, diags);
      const f = forEachValue(v, forEach.range, { allowUnknown });
      // As Terraform's for_each diagnostics (Expression + EvalContext): the values the expression read.
      for (const d of f.diagnostics) {
        const causedByUnknown = /^The "for_each" (set|map) includes /.test(d.detail ?? '');
        const values = expressionValues(forEach.ast, this.scope(inst), { causedByUnknown });
        diags.push(values.length ? { ...d, values } : d);
      }
      if (!f.entries) return { kind: 'unknown' };
      return { kind: 'foreach', entries: f.entries };
    }
    return { kind: 'single' };
  }

  /** Runs a module call's expansion in every instance of its parent path and registers the child instances. */
  expandModule(n: Extract<Node, { kind: 'module' }>): boolean {
    const diags: Diagnostic[] = [];
    const childPath = (n.path ? n.path + '.' : '') + 'module.' + n.call.name;
    const children: ModuleInstance[] = [];
    for (const inst of this.instancesOf(n.path)) {
      const e = this.expand(inst, n.call.count, n.call.forEach, diags);
      const map = new Map<string, ModuleInstance>();
      if (n.call.module) {
        for (const k of expansionKeys(e)) {
          const addr = `${inst.addr ? inst.addr + '.' : ''}module.${n.call.name}${k === undefined ? '' : `[${instanceKeyString(k)}]`}`;
          const child = new ModuleInstance(addr, n.call.module, repetitionFor(e, k), inst);
          map.set(instanceKeyString(k), child);
          children.push(child);
        }
      }
      inst.calls.set(n.call.name, { expansion: e, children: map });
    }
    this.instances.set(childPath, children);
    this.diagnostics.push(...diags);
    return !diags.some((d) => d.severity === 'error');
  }

  /** Evaluates an input variable in every instance of its module. */
  evalVariable(n: Extract<Node, { kind: 'var' }>): boolean {
    const diags: Diagnostic[] = [];
    const v = n.mod.variables.get(n.name)!;
    for (const inst of this.instancesOf(n.path)) {
      if (inst.parent) {
        const call = inst.parent.mod.moduleCalls.get(lastCallName(n.path))!;
        const arg = call.arguments.get(n.name);
        let input;
        if (arg) input = { value: this.eval(arg.ast, inst.parent, inst.rep, diags), source: 'config' as const, range: arg.range };
        const r = finalizeVariable(v, input, `${inst.addr}.var.${n.name}`);
        diags.push(...r.diagnostics);
        inst.vars.set(n.name, v.sensitive ? r.value.mark('sensitive') : r.value);
      } else if (!inst.vars.has(n.name)) {
        inst.vars.set(n.name, Value.unknown());
      } else if (v.sensitive) {
        inst.vars.set(n.name, inst.vars.get(n.name)!.mark('sensitive'));
      }
      if (v.validations.length) {
        const range: Range = (inst.parent ? inst.parent.mod.moduleCalls.get(lastCallName(n.path))!.arguments.get(n.name)?.range : undefined) ?? v.declRange;
        const vd = validateVariable(v, this.scope(inst), range);
        diags.push(...vd);
        const cfg = `${n.path ? n.path + '.' : ''}var.${n.name}`;
        const obj = `${inst.addr ? inst.addr + '.' : ''}var.${n.name}`;
        const val = inst.vars.get(n.name);
        if (vd.some((d) => d.severity === 'error')) {
          for (const d of vd) if (d.summary === 'Invalid value for variable') this.checks.report(cfg, obj, 'fail', (d.detail ?? '').split('\n\nThis was checked')[0]);
          if (!vd.some((d) => d.summary === 'Invalid value for variable')) this.checks.report(cfg, obj, 'error');
        } else this.checks.report(cfg, obj, val && !val.isWhollyKnown ? 'unknown' : 'pass');
      }
    }
    this.diagnostics.push(...diags);
    return !diags.some((d) => d.severity === 'error');
  }

  evalLocal(n: Extract<Node, { kind: 'local' }>): boolean {
    const diags: Diagnostic[] = [];
    const l = n.mod.locals.get(n.name)!;
    for (const inst of this.instancesOf(n.path)) inst.locals.set(n.name, this.eval(l.expr.ast, inst, {}, diags));
    this.diagnostics.push(...diags);
    return !diags.some((d) => d.severity === 'error');
  }
}

function emptyRange(): Range {
  return { filename: '', start: { line: 1, column: 1, byte: 0 }, end: { line: 1, column: 1, byte: 0 } };
}

/** The reference value of a resource: one object, a tuple (count), an object by key (for_each). */
export function resourceValue(rv: ResourceValues): Value {
  const e = rv.expansion;
  switch (e.kind) {
    case 'unknown':
      return Value.unknown();
    case 'single':
      return rv.instances.get('') ?? Value.unknown();
    case 'count':
      return Value.tuple(Array.from({ length: e.n }, (_, i) => rv.instances.get(String(i)) ?? Value.unknown()));
    case 'foreach': {
      const m = new Map<string, Value>();
      for (const k of e.entries.keys()) m.set(k, rv.instances.get(instanceKeyString(k)) ?? Value.unknown());
      return Value.object(m);
    }
  }
}

// ---- state objects ------------------------------------------------------------------------------------------------

/** Decodes a stored object with the schema (no upgrade), marked with its sensitive paths and the schema's. */
export function decodeObject(o: ObjectSrc, schema: Schema): Value | undefined {
  if (o.attrsJSON === undefined) return undefined;
  const r = unmarshal(o.attrsJSON, impliedType(schema.block));
  if (r.error !== undefined) return undefined;
  return markObject(r.value, schema, o.sensitivePaths.map(fromStatePath));
}

export function markObject(v: Value, schema: Schema, extra: readonly Path[] = []): Value {
  const paths = [...extra, ...sensitivePaths(schema.block, v)];
  if (!paths.length) return v;
  return markWithPaths(v, paths.map((path) => ({ path, marks: ['sensitive'] })));
}

/** Encodes a (marked) object value for the state. Sensitive paths come from the value's marks. */
export function encodeObject(
  v: Value,
  schema: Schema,
  extra: { status: 'ready' | 'tainted'; dependencies: readonly string[]; createBeforeDestroy: boolean; private?: Uint8Array },
): ObjectSrc {
  const { value, marks } = unmarkDeepWithPaths(v);
  const sens = marks.filter((m) => m.marks.includes('sensitive')).map((m) => toStatePath(m.path));
  return {
    schemaVersion: schema.version,
    attrsJSON: marshal(value, impliedType(schema.block)),
    sensitivePaths: sens,
    private: extra.private && extra.private.length ? Buffer.from(extra.private).toString('base64') : undefined,
    status: extra.status,
    dependencies: extra.dependencies,
    createBeforeDestroy: extra.createBeforeDestroy,
  };
}

export function privateBytes(o: ObjectSrc | undefined): Uint8Array {
  return o?.private ? new Uint8Array(Buffer.from(o.private, 'base64')) : new Uint8Array();
}

export function instAddr(module: string, r: { mode: 'managed' | 'data'; type: string; name: string }, key: InstanceKey): InstanceAddr {
  return { module, mode: r.mode, type: r.type, name: r.name, key };
}

export { instanceAddrString };
void T;
