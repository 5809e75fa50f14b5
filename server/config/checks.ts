// References come from each expression's AST (hclbody Expression.ast, parsed by lang/parse.ts).
// Static checks that Terraform's validate walk performs after the configuration loaded cleanly: references
// to undeclared variables, locals, resources, modules and outputs (with "Did you mean" suggestions as
// Terraform's didyoumean.NameSuggestion), invalid reference forms, misuse of count/each/self, and
// reference cycles between locals, resources, outputs and module calls ("Cycle: local.a, local.b").
// Siblings: load.ts builds the Module; validate.ts runs these checks only when loading had no errors.

import type { Diagnostic } from '../diags/diagnostic';
import { error, rangeSpan } from '../diags/diagnostic';
import type { Traversal } from '../lang/ast';
import { NONE as EMPTY } from '../lang/ast';
import { references } from '../lang/parse';
import type { Expression, Reference } from './hclbody';
import { toReference as bodyReference } from './hclbody';
import type { Local, Module, Resource } from './model';
import { resourceKey, resourceLookup } from './model';
import { nameSuggestion } from './load';
import { moduleProviderConfigDiagnostics } from '../providers/resolve';

interface Scope {
  /** Whether count / each / self are available. */
  count: boolean;
  each: boolean;
  self: boolean;
  /** Extra symbols bound here (dynamic block iterators). */
  extra?: Set<string>;
}

function displayAddr(mod: Module): string {
  return mod.path === '' ? 'the root module' : mod.path;
}

function sortedKeys(m: Map<string, unknown>): string[] {
  return [...m.keys()].sort();
}

/** Checks one reference; pushes diagnostics. Returns the graph node it points at, if any. */
function checkRef(mod: Module, ref: Reference, scope: Scope, diags: Diagnostic[]): string | undefined {
  const attr = (i: number) => (ref.steps[i]?.kind === 'attr' ? (ref.steps[i] as { name: string }).name : undefined);
  switch (ref.root) {
    case 'var': {
      const name = attr(0);
      if (name === undefined) {
        diags.push(error('Invalid reference', 'The "var" object cannot be accessed directly. Instead, access one of its attributes.', ref.range));
        return undefined;
      }
      if (!mod.variables.has(name)) {
        const s = nameSuggestion(name, sortedKeys(mod.variables));
        diags.push(
          error(
            'Reference to undeclared input variable',
            `An input variable with the name "${name}" has not been declared.${s ? ` Did you mean "${s}"?` : ` This variable can be declared with a variable "${name}" {} block.`}`,
            ref.range,
          ),
        );
      }
      return undefined;
    }
    case 'local': {
      const name = attr(0);
      if (name === undefined) {
        diags.push(error('Invalid reference', 'The "local" object cannot be accessed directly. Instead, access one of its attributes.', ref.range));
        return undefined;
      }
      if (!mod.locals.has(name)) {
        const s = nameSuggestion(name, sortedKeys(mod.locals));
        diags.push(
          error('Reference to undeclared local value', `A local value with the name "${name}" has not been declared.${s ? ` Did you mean "${s}"?` : ''}`, ref.range),
        );
        return undefined;
      }
      return `local.${name}`;
    }
    case 'module': {
      const name = attr(0);
      if (name === undefined) {
        diags.push(error('Invalid reference', 'The "module" object cannot be accessed directly. Instead, access one of its attributes.', ref.range));
        return undefined;
      }
      const call = mod.moduleCalls.get(name);
      if (!call) {
        const s = nameSuggestion(name, sortedKeys(mod.moduleCalls));
        diags.push(
          error('Reference to undeclared module', `No module call named "${name}" is declared in ${displayAddr(mod)}.${s ? ` Did you mean "${s}"?` : ''}`, ref.range),
        );
        return undefined;
      }
      const out = attr(1);
      if (out !== undefined && call.module && !call.module.outputs.has(out) && !call.count && !call.forEach) {
        diags.push(
          error(
            'Unsupported attribute',
            `This object does not have an attribute named "${out}".`,
            { filename: ref.range.filename, start: ref.steps[1].range.start, end: ref.range.end },
          ),
        );
      }
      return `module.${name}`;
    }
    case 'count':
      if (attr(0) !== 'index') {
        diags.push(error('Invalid "count" attribute', `The "count" object does not have an attribute named "${attr(0) ?? ''}". The only supported attribute is count.index, which is the index of each instance of a resource block that has the "count" argument set.`, ref.range));
        return undefined;
      }
      if (!scope.count)
        diags.push(
          error(
            'Reference to "count" in non-counted context',
            'The "count" object can only be used in "module", "resource", and "data" blocks, and only when the "count" argument is set.',
            ref.range,
          ),
        );
      return undefined;
    case 'each':
      if (!scope.each)
        diags.push(
          error(
            'Reference to "each" in context without for_each',
            'The "each" object can be used only in "module" or "resource" blocks, and only when the "for_each" argument is set.',
            ref.range,
          ),
        );
      return undefined;
    case 'self':
      if (!scope.self)
        diags.push(error('Invalid "self" reference', 'The "self" object is not available in this context. This object can be used only in resource provisioner, connection, and postcondition blocks.', ref.range));
      return undefined;
    case 'path':
    case 'terraform':
      return undefined;
    case 'data': {
      const type = attr(0);
      const name = attr(1);
      if (type === undefined || name === undefined) {
        diags.push(error('Invalid reference', 'The "data" object must be followed by two attribute names: the data source type and the resource name.', ref.range));
        return undefined;
      }
      return checkResourceRef(mod, { mode: 'data', type, name }, ref, diags);
    }
    case 'resource': {
      const type = attr(0);
      const name = attr(1);
      if (type === undefined || name === undefined) {
        diags.push(error('Invalid reference', 'The "resource" object must be followed by two attribute names: the resource type and the resource name.', ref.range));
        return undefined;
      }
      return checkResourceRef(mod, { mode: 'managed', type, name }, ref, diags);
    }
    default: {
      if (scope.extra?.has(ref.root)) return undefined;
      const name = attr(0);
      if (name === undefined) {
        diags.push(
          error(
            'Invalid reference',
            'A reference to a resource type must be followed by at least one attribute access, specifying the resource name.',
            ref.range,
          ),
        );
        return undefined;
      }
      return checkResourceRef(mod, { mode: 'managed', type: ref.root, name }, ref, diags);
    }
  }
}

function checkResourceRef(mod: Module, addr: { mode: 'managed' | 'data'; type: string; name: string }, full: Reference, diags: Diagnostic[]): string | undefined {
  const key = resourceKey(addr);
  // Terraform's reference range covers the resource address only (type and name), not what follows.
  const used = addr.mode === 'data' || full.root === 'resource' ? 2 : 1;
  const ref: Reference = { root: full.root, rootRange: full.rootRange, steps: full.steps, range: rangeSpan(full.range, full.steps[used - 1].range) };
  const lookup = resourceLookup(mod);
  const found = lookup.all.get(key);
  if (!found) {
    let sugg = '';
    if (addr.mode === 'managed' && lookup.resources.has(resourceKey({ mode: 'data', type: addr.type, name: addr.name })))
      sugg = `\n\nDid you mean the data resource data.${addr.type}.${addr.name}?`;
    diags.push(
      error(
        'Reference to undeclared resource',
        `A ${addr.mode === 'data' ? 'data' : 'managed'} resource "${addr.type}" "${addr.name}" has not been declared in ${displayAddr(mod)}.${sugg}`,
        ref.range,
      ),
    );
    return undefined;
  }
  const next = full.steps[used];
  if (found.count && next && next.kind === 'attr') {
    diags.push(
      error(
        'Missing resource instance key',
        `Because ${key} has "count" set, its attributes must be accessed on specific instances.\n\nFor example, to correlate with indices of a referring resource, use:\n    ${key}[count.index]`,
        ref.range,
      ),
    );
  } else if (found.forEach && next && next.kind === 'attr') {
    diags.push(
      error(
        'Missing resource instance key',
        `Because ${key} has "for_each" set, its attributes must be accessed on specific instances.\n\nFor example, to correlate with indices of a referring resource, use:\n    ${key}[each.key]`,
        ref.range,
      ),
    );
  } else if (!found.count && !found.forEach && next && next.kind === 'index') {
    diags.push(
      error(
        'Unexpected resource instance key',
        `Because ${key} does not have "count" or "for_each" set, references to it must not include an index key. Remove the bracketed index to refer to the single instance of this resource.`,
        ref.range,
      ),
    );
  }
  return key;
}

/** The references of an expression, from its AST (lang/parse.ts references, HCL's Variables()). */
export function refsOf(e: Expression): Reference[] {
  let refs = refsCache.get(e);
  if (!refs) {
    // The body's references (hclbody.ts astReferences, same traversals in the same order) are reused where they
    // took their traversal whole (their range is the traversal's own): one Reference per traversal, not two.
    const own = e.refs;
    refs = references(e.ast).map((t, i) => (own[i]?.range === t.range && own[i].rootRange === t.rootRange ? own[i] : toReference(t)));
    refsCache.set(e, refs);
  }
  return refs;
}

/** References by expression: expressions of unchanged files are reused across loads (load.ts FileCache). */
const refsCache = new WeakMap<Expression, Reference[]>();

/**
 * A traversal as the checks read it: hclbody.ts's reference (the literal steps up to the first non-literal
 * index), with the whole traversal as its range, where diagnostics about it point.
 */
function toReference(t: Traversal): Reference {
  const r = bodyReference(t);
  return r.range === t.range ? r : { root: r.root, rootRange: r.rootRange, steps: r.steps, range: t.range };
}

function exprsOfBody(b: Resource['config']): Expression[] {
  const out: Expression[] = [];
  for (const a of b.attributes) out.push(a.expr);
  for (const blk of b.blocks) out.push(...exprsOfBody(blk.body));
  return out;
}

/** Reference check results by expression, valid while the declarations (declarationSignature) are the same. */
interface ExprCheck {
  sig: number;
  scope: string;
  mod: string;
  diags: Diagnostic[];
  targets: (string | undefined)[];
}
const checkCache = new WeakMap<Expression, ExprCheck>();

function scopeKey(s: Scope): string {
  return `${s.count ? 'c' : ''}${s.each ? 'e' : ''}${s.self ? 's' : ''}${s.extra?.size ? ':' + [...s.extra].join(',') : ''}`;
}

/** The reference checks of one expression, from checkCache when still valid. */
function exprCheck(mod: Module, sig: number, e: Expression, scope: Scope, sk: string): ExprCheck {
  let c = checkCache.get(e);
  if (!c || c.sig !== sig || c.scope !== sk || c.mod !== mod.path) {
    const own: Diagnostic[] = [];
    const targets = refsOf(e).map((r) => checkRef(mod, r, scope, own));
    // Most expressions have no findings and many no references: the shared empty list for those.
    c = { sig, scope: sk, mod: mod.path, diags: own.length ? own : EMPTY, targets: targets.length ? targets : EMPTY };
    checkCache.set(e, c);
  }
  return c;
}

/**
 * Everything checkRef reads besides the reference and scope: declared names (and their order, which decides
 * suggestions and which duplicate is found first), count/for_each presence of resources and module calls, the
 * outputs of called modules. Compared element by element with what the previous check of the same module saw
 * (no string is built per declaration): unchanged declarations keep their number, so that each cached result
 * is validated in constant time.
 */
function declarationSignature(mod: Module): number {
  const lookup = resourceLookup(mod);
  const at = `${mod.dir}\u0000${mod.path}`;
  const st = declStates.get(at);
  if (st && sameDeclarations(st, mod, lookup)) return st.id;
  const head: string[] = [...mod.variables.keys(), '', ...mod.locals.keys(), ''];
  for (const m of mod.moduleCalls.values()) head.push(moduleCallSignature(m));
  const keys: string[] = [];
  const flags: number[] = [];
  const objs: Resource[] = [];
  lookup.all.forEach((r, k) => {
    keys.push(k);
    flags.push(declFlags(lookup, k, r));
    objs.push(r);
  });
  if (!st && declStates.size >= 64) declStates.clear();
  const id = ++lastSignatureId;
  declStates.set(at, { id, head, keys, flags, objs });
  return id;
}

function moduleCallSignature(m: Module['moduleCalls'] extends Map<string, infer C> ? C : never): string {
  return `m${m.name}${m.count ? 'c' : ''}${m.forEach ? 'f' : ''}${m.module ? '(' + [...m.module.outputs.keys()].join(',') + ')' : ''}`;
}

function declFlags(lookup: ReturnType<typeof resourceLookup>, k: string, r: Resource): number {
  // Without data sources of check blocks, `all` is `resources` itself: every key of it is in it (no lookup; this
  // was most of sameDeclarations' time, about 1.2 ms of each edit at 5,000 resources).
  return (r.count ? 1 : 0) | (r.forEach ? 2 : 0) | (lookup.all === lookup.resources || lookup.resources.has(k) ? 0 : 4);
}

/** Whether the module declares what `st` recorded, compared in place (nothing is allocated when it does). */
function sameDeclarations(st: DeclState, mod: Module, lookup: ReturnType<typeof resourceLookup>): boolean {
  const h = st.head;
  let i = 0;
  for (const k of mod.variables.keys()) if (h[i++] !== k) return false;
  if (h[i++] !== '') return false;
  for (const k of mod.locals.keys()) if (h[i++] !== k) return false;
  if (h[i++] !== '') return false;
  for (const m of mod.moduleCalls.values()) if (h[i++] !== moduleCallSignature(m)) return false;
  if (i !== h.length || lookup.all.size !== st.keys.length) return false;
  // Without check-block data sources or duplicates, the lookup lists the module's resources in their order: they are
  // compared by position, and only one that is another object (of an edited file) is read.
  const rs = mod.resources;
  if (lookup.all === lookup.resources && rs.length === st.keys.length) {
    for (let k = 0; k < rs.length; k++) {
      const r = rs[k];
      if (st.objs[k] === r) continue;
      const key = resourceKey(r);
      if (st.keys[k] !== key || st.flags[k] !== declFlags(lookup, key, r)) return false;
      st.objs[k] = r;
    }
    return true;
  }
  // Values and keys side by side, without an entry array per declaration.
  const keys = lookup.all.keys();
  i = 0;
  for (const r of lookup.all.values()) {
    const k = keys.next().value as string;
    if (st.keys[i] !== k) return false;
    // The same Resource object has the same flags; only another one (of an edited file) is read.
    if (st.objs[i] !== r) {
      if (st.flags[i] !== declFlags(lookup, k, r)) return false;
      st.objs[i] = r;
    }
    i++;
  }
  return true;
}

interface DeclState {
  id: number;
  head: string[];
  keys: string[];
  flags: number[];
  /** The resource each key and flags were taken from (updated as later loads of an edited file replace it). */
  objs: Resource[];
}
/** The declarations each module (by directory and path) was last checked with. */
const declStates = new Map<string, DeclState>();
let lastSignatureId = 0;

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** exprsOfBody, kept per Body (bodies of unchanged files are reused across loads). */
const bodyExprsCache = new WeakMap<Resource['config'], Expression[]>();
function bodyExprs(b: Resource['config']): Expression[] {
  let l = bodyExprsCache.get(b);
  if (!l) bodyExprsCache.set(b, (l = exprsOfBody(b)));
  return l;
}

/**
 * The checks of one resource block (its count/for_each, body, depends_on and conditions): its diagnostics in
 * that order and the graph nodes it refers to (first occurrence order, itself excluded). Kept by the Resource
 * object, which loads of an unchanged file share and never mutate (load.ts), valid while the declarations are
 * the same, so that re-checking an unchanged resource costs one lookup.
 */
interface ResourceCheck {
  /** The resource's resourceKey (the graph node). */
  key: string;
  sig: number;
  mod: string;
  diags: Diagnostic[];
  targets: string[];
}
const resourceChecks = new WeakMap<Resource, ResourceCheck>();

function resourceCheck(mod: Module, sig: number, r: Resource): ResourceCheck {
  const c = resourceChecks.get(r);
  if (c && c.sig === sig && c.mod === mod.path) return c;
  const fresh = checkResource(mod, sig, r);
  resourceChecks.set(r, fresh);
  return fresh;
}

function checkResource(mod: Module, sig: number, r: Resource): ResourceCheck {
  const key = resourceKey(r);
  const diags: Diagnostic[] = [];
  const targets = new Set<string>();
  const add = (exprs: readonly (Expression | undefined)[], scope: Scope) => {
    const sk = scopeKey(scope);
    for (const e of exprs) {
      if (!e) continue;
      const ec = exprCheck(mod, sig, e, scope, sk);
      for (const d of ec.diags) diags.push(d);
      for (const to of ec.targets) if (to && to !== key) targets.add(to);
    }
  };
  const scope: Scope = { count: !!r.count, each: !!r.forEach, self: false, extra: r.dynamic.length ? new Set(r.dynamic.map((d) => d.iterator ?? d.blockType)) : undefined };
  add([r.count, r.forEach], NONE);
  add(bodyExprs(r.config), scope);
  if (r.dependsOn) add([r.dependsOn], NONE);
  if (r.lifecycle) {
    for (const x of r.lifecycle.preconditions) add([x.condition, x.errorMessage], scope);
    for (const x of r.lifecycle.postconditions) add([x.condition, x.errorMessage], { ...scope, self: true });
  }
  return { key, sig, mod: mod.path, diags: diags.length ? diags : EMPTY, targets: targets.size ? [...targets] : EMPTY };
}

const NONE: Scope = { count: false, each: false, self: false };

/**
 * The reference graph of one module: nodes in the order first named, and the lists of nodes they refer to as
 * (node, list) pairs in the order added (duplicates and edges to nodes that are not declared are harmless:
 * findCycle skips them). Built after every edit, usually identical to the previous analysis's graph: while
 * what is added matches `prev` (lists by identity, else item by item) nothing is stored, and a graph that
 * stays identical to the end is `prev` itself (sameAsPrev), with its cycle already known.
 */
class RefGraph {
  order: string[] = [];
  from: number[] = [];
  lists: (readonly (string | undefined)[])[] = [];
  /** Node ids by name (complete for `order` once the graph no longer follows `prev`). */
  readonly index = new Map<string, number>();
  /** Nodes and pairs matched so far while following `prev`. */
  private nodes = 0;
  private pairs = 0;
  private following: boolean;

  constructor(private readonly prev?: RefGraph) {
    this.following = !!prev;
  }

  node(n: string): number {
    if (this.following) {
      const i = this.prev!.index.get(n);
      if (i !== undefined && i < this.nodes) return i;
      if (i === this.nodes) return this.nodes++;
      this.diverge();
    }
    let i = this.index.get(n);
    if (i === undefined) {
      this.index.set(n, (i = this.order.length));
      this.order.push(n);
    }
    return i;
  }

  edges(node: number, list: readonly (string | undefined)[]): void {
    if (this.following) {
      const p = this.prev!;
      if (this.pairs < p.from.length && p.from[this.pairs] === node && sameItems(p.lists[this.pairs], list)) {
        // The list the caller holds now (equal, often another object of the same contents): the next comparison
        // with it is by identity, without reading either list.
        p.lists[this.pairs] = list;
        this.pairs++;
        return;
      }
      this.diverge();
    }
    this.from.push(node);
    this.lists.push(list);
  }

  /** Whether everything added equals `prev`'s graph (then use `prev`). */
  sameAsPrev(): boolean {
    return this.following && this.nodes === this.prev!.order.length && this.pairs === this.prev!.from.length;
  }

  /**
   * node(n) for a node whose id in `prev` the caller knows (ResourceRun), without looking it up or reading its
   * name: the id while following `prev` and that answers it, else undefined (then call node(n)).
   */
  followNode(prevId: number): number | undefined {
    if (!this.following) return undefined;
    if (prevId < this.nodes) return prevId;
    if (prevId === this.nodes) return this.nodes++;
    return undefined;
  }

  /** Stores what was matched while following `prev`, when the graph turned out a part of it (findCycle reads a settled graph). */
  settle(): void {
    if (this.following) this.diverge();
  }

  /** Stops following `prev`: stores what matched so far. */
  private diverge(): void {
    const p = this.prev!;
    this.following = false;
    this.order = p.order.slice(0, this.nodes);
    for (let i = 0; i < this.nodes; i++) this.index.set(this.order[i], i);
    this.from = p.from.slice(0, this.pairs);
    this.lists = p.lists.slice(0, this.pairs);
  }
}

/**
 * The resources of a module as its previous check met them, by position: the Resource objects (loads of unchanged
 * files share them), their checks and the graph node each got. Where the same object is at the same position under
 * the same declarations, its check and node are taken from here: no WeakMap or Map lookup per resource (at 5,000
 * resources those lookups were about 2.5 ms of each edit's analysis).
 */
interface ResourceRun {
  sig: number;
  resources: readonly Resource[];
  checks: ResourceCheck[];
  nodes: Int32Array;
  /** The check's targets, and whether it has diagnostics (1) and targets (2): read without touching the check. */
  targets: (readonly string[])[];
  flags: Uint8Array;
}

/** The graph each module (by directory and path) was last checked with, the cycle found in it, and its resources. */
const lastGraphs = new Map<string, { graph: RefGraph; cycle: string[] | undefined; run?: ResourceRun; locals?: LocalRun }>();

/** The local values of a module as its previous check met them, by position (as ResourceRun for resources). */
interface LocalRun {
  sig: number;
  list: Local[];
  checks: ExprCheck[];
  nodes: Int32Array;
  /** Whether the check has diagnostics (1) and targets (2). */
  flags: Uint8Array;
}

/** Runs reference checks and cycle detection over a module and its loaded children. */
export function checkModule(mod: Module): Diagnostic[] {
  const diags: Diagnostic[] = [];
  // Provider configurations across module calls are checked when Terraform loads the configuration: their errors
  // stop everything else, their warnings come first.
  if (mod.path === '') {
    const pd = moduleProviderConfigDiagnostics(mod);
    if (pd.some((d) => d.severity === 'error')) return pd;
    diags.push(...pd);
  }
  const at = `${mod.dir}\u0000${mod.path}`;
  const last = lastGraphs.get(at);
  const graph = new RefGraph(last?.graph);
  const sig = declarationSignature(mod);
  const visitOne = (from: string | undefined, node: number, e: Expression | undefined, scope: Scope, sk: string) => {
    if (!e) return;
    // An expression's checks depend only on its references, its scope and the module's declarations.
    const c = exprCheck(mod, sig, e, scope, sk);
    // (Indexed: the lists are nearly always empty, and an iterator per expression was garbage of every analysis.)
    for (let i = 0; i < c.diags.length; i++) diags.push(c.diags[i]);
    if (from === undefined || c.targets.length === 0) return;
    // A local value referring to itself is a cycle; any other node's references to itself are not edges.
    if (from.startsWith('local.') || !c.targets.includes(from)) graph.edges(node, c.targets);
    else graph.edges(node, c.targets.filter((t) => t !== from));
  };
  const visit = (from: string | undefined, exprs: (Expression | undefined)[], scope: Scope) => {
    const node = from ? graph.node(from) : -1;
    const sk = scope === NONE ? '' : scopeKey(scope);
    for (const e of exprs) visitOne(from, node, e, scope, sk);
  };
  for (const v of mod.variables.values()) {
    for (const val of v.validations) visit(undefined, [val.condition, val.errorMessage], NONE);
  }
  // Local values by position, as resources below (LocalRun): the same object at the same position under the same
  // declarations has its check and graph node from the previous check, without a look-up or a node name built.
  const prevLocals = last?.locals;
  if (last) last.locals = undefined;
  const sameLocals = prevLocals && prevLocals.sig === sig ? prevLocals : undefined;
  const nl = mod.locals.size;
  const localRun: LocalRun =
    prevLocals && prevLocals.list.length === nl
      ? prevLocals
      : { sig, list: new Array<Local>(nl), checks: new Array<ExprCheck>(nl), nodes: new Int32Array(nl), flags: new Uint8Array(nl) };
  let li = 0;
  for (const l of mod.locals.values()) {
    const k = li++;
    if (sameLocals !== undefined && sameLocals.list[k] === l) {
      const f = sameLocals.flags[k];
      const c = sameLocals.checks[k];
      if (f & 1) for (const d of c.diags) diags.push(d);
      const node = graph.followNode(sameLocals.nodes[k]) ?? graph.node(`local.${l.name}`);
      // (A local value's references to itself are edges: a cycle.)
      if (f & 2) graph.edges(node, c.targets);
      localRun.nodes[k] = node;
      if (localRun !== sameLocals) {
        localRun.list[k] = l;
        localRun.checks[k] = c;
        localRun.flags[k] = f;
      }
      continue;
    }
    const node = graph.node(`local.${l.name}`);
    const c = exprCheck(mod, sig, l.expr, NONE, '');
    for (let i = 0; i < c.diags.length; i++) diags.push(c.diags[i]);
    if (c.targets.length) graph.edges(node, c.targets);
    localRun.list[k] = l;
    localRun.checks[k] = c;
    localRun.nodes[k] = node;
    localRun.flags[k] = (c.diags.length ? 1 : 0) | (c.targets.length ? 2 : 0);
  }
  localRun.sig = sig;
  // The previous run's arrays are reused in place (each position is read before it is written); taken out of the
  // entry until this check completes, so that a check that throws leaves none behind half written.
  const rs = mod.resources;
  const prevRun = last?.run;
  if (last) last.run = undefined;
  const same = prevRun && prevRun.sig === sig ? prevRun : undefined;
  const n = rs.length;
  const run: ResourceRun =
    prevRun && prevRun.checks.length === n
      ? prevRun
      : { sig, resources: rs, checks: new Array<ResourceCheck>(n), nodes: new Int32Array(n), targets: new Array<readonly string[]>(n), flags: new Uint8Array(n) };
  for (let k = 0; k < n; k++) {
    const r = rs[k];
    if (same !== undefined && same.resources[k] === r) {
      // Neither the resource nor its check is read (the objects lie all over the heap, and touching 5,000 of them
      // was what cost): the check, its node and targets are where the previous check put them.
      const f = same.flags[k];
      if (f & 1) for (const d of same.checks[k].diags) diags.push(d);
      const node = graph.followNode(same.nodes[k]) ?? graph.node(same.checks[k].key);
      if (f & 2) graph.edges(node, same.targets[k]);
      run.nodes[k] = node;
      if (run !== same) {
        run.checks[k] = same.checks[k];
        run.targets[k] = same.targets[k];
        run.flags[k] = f;
      }
      continue;
    }
    const c = resourceCheck(mod, sig, r);
    for (let i = 0; i < c.diags.length; i++) diags.push(c.diags[i]);
    const node = graph.node(c.key);
    if (c.targets.length) graph.edges(node, c.targets);
    run.checks[k] = c;
    run.nodes[k] = node;
    run.targets[k] = c.targets;
    run.flags[k] = (c.diags.length ? 1 : 0) | (c.targets.length ? 2 : 0);
  }
  run.sig = sig;
  run.resources = rs;
  for (const o of mod.outputs.values()) {
    visit(`output.${o.name}`, [o.value, o.dependsOn], NONE);
    for (const c of o.preconditions) visit(`output.${o.name}`, [c.condition, c.errorMessage], NONE);
  }
  for (const m of mod.moduleCalls.values()) {
    const scope: Scope = { count: !!m.count, each: !!m.forEach, self: false };
    visit(`module.${m.name}`, [m.count, m.forEach], NONE);
    visit(`module.${m.name}`, [...m.arguments.values()], scope);
    if (m.module) {
      for (const [arg, range] of m.argumentRanges) {
        if (!m.module.variables.has(arg))
          diags.push(
            error(
              'Unsupported argument',
              `An argument named "${arg}" is not expected here.`,
              range,
            ),
          );
      }
      for (const v of m.module.variables.values()) {
        if (!v.default && v.nullable !== false && !m.arguments.has(v.name))
          diags.push(
            error('Missing required argument', `The argument "${v.name}" is required, but no definition was found.`, m.missingItemRange ?? m.declRange),
          );
      }
    }
  }
  for (const c of mod.checks) for (const a of c.asserts) visit(undefined, [a.condition, a.errorMessage], NONE);
  // Terraform builds the graph (and finds cycles) before it evaluates references: a cycle is the only error.
  // An edit that changes no reference leaves the graph as it was, and with it the answer.
  let cyc: string[] | undefined;
  if (last && graph.sameAsPrev()) {
    cyc = last.cycle;
    last.run = run;
    last.locals = localRun;
  } else {
    graph.settle();
    cyc = findCycle(graph);
    if (!last && lastGraphs.size >= 64) lastGraphs.clear();
    lastGraphs.set(at, { graph, cycle: cyc, run, locals: localRun });
  }
  if (cyc) return [error(`Cycle: ${cyc.map(nodeName).join(', ')}`)];
  for (const m of mod.moduleCalls.values()) if (m.module) diags.push(...checkModule(m.module));
  return diags;
}

function nodeName(n: string): string {
  if (n.startsWith('local.') || n.startsWith('output.') || n.startsWith('module.')) return `${n} (expand)`;
  return n;
}

/**
 * The first strongly connected component with more than one node (or a self loop), nodes sorted. Tarjan's
 * algorithm over integer node ids, iterative (the same visiting order as the recursive formulation).
 */
function findCycle(g: RefGraph): string[] | undefined {
  const order = g.order;
  const n = order.length;
  const id = g.index;
  // Adjacency in the order the references were met (a counting sort of the pairs by node), edges to unknown
  // nodes dropped.
  const count = new Int32Array(n + 1);
  for (const f of g.from) count[f + 1]++;
  for (let i = 0; i < n; i++) count[i + 1] += count[i];
  const byNode = new Int32Array(g.from.length);
  const fill = count.slice(0, n);
  for (let k = 0; k < g.from.length; k++) byNode[fill[g.from[k]]++] = k;
  const adjStart = new Int32Array(n + 1);
  const adj: number[] = [];
  for (let i = 0; i < n; i++) {
    adjStart[i] = adj.length;
    for (let x = count[i]; x < count[i + 1]; x++)
      for (const w of g.lists[byNode[x]]) {
        if (w === undefined) continue;
        const j = id.get(w);
        if (j !== undefined) adj.push(j);
      }
  }
  adjStart[n] = adj.length;
  const selfLoop = (v: number) => {
    for (let e = adjStart[v]; e < adjStart[v + 1]; e++) if (adj[e] === v) return true;
    return false;
  };
  const idx = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const callV: number[] = [];
  const callE: number[] = [];
  let index = 0;
  let found: string[] | undefined;
  for (let root = 0; root < n; root++) {
    if (idx[root] !== -1) continue;
    callV.push(root);
    callE.push(adjStart[root]);
    idx[root] = low[root] = index++;
    stack.push(root);
    onStack[root] = 1;
    while (callV.length > 0) {
      const top = callV.length - 1;
      const v = callV[top];
      const e = callE[top];
      if (e < adjStart[v + 1]) {
        callE[top] = e + 1;
        const w = adj[e];
        if (idx[w] === -1) {
          idx[w] = low[w] = index++;
          stack.push(w);
          onStack[w] = 1;
          callV.push(w);
          callE.push(adjStart[w]);
        } else if (onStack[w]) low[v] = Math.min(low[v], idx[w]);
        continue;
      }
      callV.pop();
      callE.pop();
      if (low[v] === idx[v]) {
        const comp: string[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp.push(order[w]);
        } while (w !== v);
        if (!found && (comp.length > 1 || selfLoop(v))) found = comp.sort();
      }
      if (callV.length > 0) {
        const parent = callV[callV.length - 1];
        low[parent] = Math.min(low[parent], low[v]);
      }
    }
  }
  return found;
}
