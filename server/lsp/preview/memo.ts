// The preview's incremental plan: the policy behind the engine's PlanReuse hook (server/engine/planner.ts).
//
// A PreviewMemo belongs to one directory. Each preview plan records, per graph node, what the node produced
// (variable, local and output values per module instance, module expansions, a resource node's values and
// changes); the next plan replays a resource node from that record instead of evaluating and planning it when
// nothing it reads can have changed:
//   - its definition: the same Resource parts (blocks of an unchanged file are the same objects, load.ts's
//     FileCache), provider, and forced create_before_destroy;
//   - its dependencies: the same set of graph edges, and every one of them "the same" in this plan as in the
//     previous one: a var/local/output node whose values are equal (cty RawEquals with marks, refinements and
//     order), a module expansion with the same instances, a provider whose block text and dependencies are
//     unchanged, a module-close whose dependencies are all the same, a resource replayed or re-planned to equal
//     values and changes;
//   - everything global (`begin`'s key): the state (the same loaded object), the workspace, the lock file and
//     module manifest, moved/import/removed blocks. A different key forgets every record.
// Resources whose expressions call impure functions (file reads, timestamps, random) are always planned.
//
// Contract: a plan made with the memo equals the plan made without it (test/lsp/preview-incremental.test.ts checks
// this over random edits). Records of an aborted plan are dropped (`end(false)`): the next plan compares with the
// last completed one. Memory: the records of one plan (values and changes the plan itself holds).

import { resourceNodeKeys, type Node, type ResourceValues, type WalkContext } from '../../engine/context';
import { sameExpansion, sameValue as samePlanValue, type PlanReuse, type ResourceEffects } from '../../engine/planner';
import type { Body } from '../../config/hclbody';
import type { Resource } from '../../config/model';
import type { Value } from '../../lang/value';
import type { ResourceInstanceChange } from '../../plans/plan';
import { instanceAddrString } from '../../states/state';

/** Values in a node's record: [module instance address, value] pairs (or another exact description). */
type Values = readonly (readonly [string, Value | undefined])[];

interface Rec {
  /** Dependency keys in the graph's order, joined. */
  deps: string;
  /** A var/local/output/module node's values; a provider's block text. */
  values?: Values;
  text?: string;
  /** A resource node's definition and effects (absent: not reusable). */
  def?: unknown[];
  effects?: ResourceEffects;
}

/** Functions whose results are not a function of their arguments (or read files): their resources always re-plan. */
const IMPURE = /\b(?:file\w*|templatefile|timestamp|plantimestamp|uuid|bcrypt|abspath|provider::[\w-]+::[\w-]+)\s*\(/;

export class PreviewMemo implements PlanReuse {
  private key: string | undefined;
  /** Records of the last completed plan. */
  private prev = new Map<string, Rec>();
  /** Records of the plan being made. */
  private cur = new Map<string, Rec>();
  /** Nodes of the plan being made that are the same as in the previous plan. */
  private same = new Set<string>();
  /** Figures of the plan being made: resource nodes replayed / planned. */
  readonly stats = { replayed: 0, planned: 0 };

  /** Starts a plan; `key` describes everything global the plan reads (a new key forgets every record). */
  begin(key: string): void {
    if (key !== this.key) this.prev = new Map();
    this.key = key;
    this.cur = new Map();
    this.same = new Set();
    this.depLists.clear();
    this.stats.replayed = 0;
    this.stats.planned = 0;
  }

  /** Ends a plan: its records become the ones the next plan compares with, unless it did not complete. */
  end(completed: boolean): void {
    if (completed) this.prev = this.cur;
    this.cur = new Map();
    this.same = new Set();
    this.depLists.clear();
  }

  /** Forgets everything (state, lock file or workspace changed on disk). */
  reset(): void {
    this.key = undefined;
    this.prev = new Map();
    this.cur = new Map();
    this.same = new Set();
  }

  /**
   * A node's dependency keys, joined in the graph's order (once per node and plan: replay and done both ask). The
   * graph adds a node's edges in the order of its configuration, so the same edges of an unchanged definition come
   * in the same order; the same edges in another order only make the node plan again.
   */
  private readonly depLists = new Map<string, { list: string; keys: ReadonlySet<string> }>();

  private depsOf(key: string, ctx: WalkContext): { list: string; same: boolean } {
    let d = this.depLists.get(key);
    if (!d) {
      const keys = ctx.built.graph.dependencies(key);
      let list = '';
      for (const k of keys) list = list === '' ? k : list + '\n' + k;
      this.depLists.set(key, (d = { list, keys }));
    }
    let same = true;
    for (const k of d.keys)
      if (!this.same.has(k)) {
        same = false;
        break;
      }
    return { list: d.list, same };
  }

  replay(key: string, n: Extract<Node, { kind: 'resource' }>, ctx: WalkContext): ResourceEffects | undefined {
    const p = this.prev.get(key);
    if (!p?.effects || !p.def) return undefined;
    const d = this.depsOf(key, ctx);
    if (!d.same || d.list !== p.deps) return undefined;
    if (!sameDefinition(n, ctx, p.def)) return undefined;
    return p.effects;
  }

  /**
   * A resource node of the last completed plan was planned again (a preview patch, engine PlanSession.replan): its
   * record takes its new definition and effects, so that the next plan replays it as the patched plan has it. Its
   * dependency edges are the same (the patch requires it).
   */
  patched(key: string, n: Extract<Node, { kind: 'resource' }>, ctx: WalkContext, effects: ResourceEffects): void {
    const p = this.prev.get(key);
    if (!p) return;
    const def = resourceDefinition(n, ctx);
    if (def) {
      p.def = def;
      p.effects = effects;
    } else {
      delete p.def;
      delete p.effects;
    }
  }

  done(key: string, n: Node, ok: boolean, ctx: WalkContext, effects: ResourceEffects | undefined, replayed: boolean): void {
    const p = this.prev.get(key);
    const d = this.depsOf(key, ctx);
    const rec: Rec = { deps: d.list };
    let same = false;
    switch (n.kind) {
      case 'resource': {
        if (replayed) this.stats.replayed++;
        else this.stats.planned++;
        // (A replayed node's definition is the previous one: replay compared every part.)
        const def = effects && (replayed && p?.def ? p.def : resourceDefinition(n, ctx));
        if (effects && def) {
          rec.def = def;
          rec.effects = effects;
        }
        same = ok && !!effects && !!p?.effects && (replayed || sameEffects(p.effects, effects));
        break;
      }
      case 'var':
      case 'local':
      case 'output': {
        rec.values = ctx.instancesOf(n.path).map((i) => [i.addr, (n.kind === 'var' ? i.vars : n.kind === 'local' ? i.locals : i.outputs).get(n.name)] as const);
        same = ok && !!p?.values && sameValues(p.values, rec.values);
        break;
      }
      case 'module': {
        const child = (n.path ? n.path + '.' : '') + 'module.' + n.call.name;
        rec.values = ctx.instancesOf(child).map((i) => [i.addr, i.rep.countIndex ?? i.rep.each?.value] as const);
        rec.text = ctx.instancesOf(child).map((i) => (i.rep.each ? i.rep.each.key.str : '')).join('\n');
        same = ok && !!p?.values && p.text === rec.text && sameValues(p.values, rec.values) && d.same && p.deps === d.list;
        break;
      }
      case 'provider': {
        rec.text = `${n.fqn}|${n.alias ?? ''}|${n.module ?? ''}|${n.config ? bodyText(n.config.body) : ''}`;
        same = ok && p?.text === rec.text && d.same && p.deps === d.list;
        break;
      }
      case 'module-close':
      case 'check':
      case 'destroy':
        same = ok && !!p && d.same && p.deps === d.list;
        break;
    }
    this.cur.set(key, rec);
    if (same) this.same.add(key);
  }
}

/**
 * What a resource node's plan depends on in its own configuration, compared by identity with the previous plan's
 * (the Resource is a fresh shallow copy per load; its parts are shared while the file is unchanged). Undefined
 * when the resource must always be planned (impure functions).
 */
function resourceDefinition(n: Extract<Node, { kind: 'resource' }>, ctx: WalkContext): unknown[] | undefined {
  if (impure(n.res)) return undefined;
  const parts: unknown[] = [];
  definitionParts(n, ctx, (x) => parts.push(x) > 0);
  return parts;
}

/** resourceDefinition(n, ctx) equals `def` part for part (compared without making the list). */
function sameDefinition(n: Extract<Node, { kind: 'resource' }>, ctx: WalkContext, def: readonly unknown[]): boolean {
  if (impure(n.res)) return false;
  let i = 0;
  return definitionParts(n, ctx, (x) => i < def.length && x === def[i++]) && i === def.length;
}

/** Gives `visit` the parts of a resource node's definition in order, while it answers true; false when it stopped. */
function definitionParts(n: Extract<Node, { kind: 'resource' }>, ctx: WalkContext, visit: (part: unknown) => boolean): boolean {
  const r: Resource = n.res;
  return (
    visit(n.fqn) &&
    visit(n.providerAddr) &&
    visit(ctx.built.forcedCBD.has(resourceNodeKeys(n.path, r).addr)) &&
    visit(r.mode) &&
    visit(r.type) &&
    visit(r.name) &&
    visit(r.file) &&
    visit(r.config) &&
    visit(r.count) &&
    visit(r.forEach) &&
    visit(r.dependsOn) &&
    visit(r.provider) &&
    visit(r.lifecycle) &&
    visit(r.typeRange) &&
    visit(r.nameRange) &&
    visit(r.declRange) &&
    visit(r.dynamic.length) &&
    r.dynamic.every(visit)
  );
}

const impureCache = new WeakMap<Body, boolean>();

/** Whether a resource's expressions call a function whose result is not a function of its arguments (IMPURE). */
export function impure(r: Resource): boolean {
  let v = impureCache.get(r.config);
  if (v === undefined) {
    v = IMPURE.test(bodyText(r.config)) || [r.count, r.forEach].some((e) => e && IMPURE.test(e.text));
    impureCache.set(r.config, v);
  }
  return v;
}

/** A body's text as far as a provider or the impurity check cares: names, expression texts and positions. */
function bodyText(b: Body): string {
  const out: string[] = [];
  const walk = (x: Body) => {
    for (const a of x.attributes) out.push(`${a.name}@${a.range.start.byte}=${a.expr.text}`);
    for (const bl of x.blocks) {
      out.push(`${bl.type} ${bl.labels.join(' ')} {`);
      walk(bl.body);
      out.push('}');
    }
  };
  walk(b);
  return out.join('\n');
}

/** Values equal as the plan shows them: type, knownness, marks, refinements, data and element order. */
function sameValue(a: Value | undefined, b: Value | undefined): boolean {
  if (a === b) return true;
  return !!a && !!b && samePlanValue(a, b);
}

function sameValues(a: Values, b: Values): boolean {
  return a.length === b.length && a.every(([k, v], i) => b[i][0] === k && sameValue(v, b[i][1]));
}

function sameResourceValues(a: ResourceValues, b: ResourceValues): boolean {
  if (!sameExpansion(a, b)) return false;
  if (a.instances.size !== b.instances.size) return false;
  for (const [k, v] of a.instances) if (!sameValue(v, b.instances.get(k))) return false;
  return true;
}

function sameChange(a: ResourceInstanceChange, b: ResourceInstanceChange): boolean {
  return (
    a === b ||
    (instanceAddrString(a.addr) === instanceAddrString(b.addr) &&
      a.action === b.action &&
      a.actionReason === b.actionReason &&
      a.deposedKey === b.deposedKey &&
      sameValue(a.before, b.before) &&
      sameValue(a.after, b.after))
  );
}

/** A re-planned resource is the same for its dependents when its values and changes are. */
function sameEffects(a: ResourceEffects, b: ResourceEffects): boolean {
  if (a.values.size !== b.values.size || a.changes.length !== b.changes.length) return false;
  for (const [k, v] of a.values) {
    const w = b.values.get(k);
    if (!w || !sameResourceValues(v, w)) return false;
  }
  return a.changes.every((c, i) => sameChange(c, b.changes[i]));
}
