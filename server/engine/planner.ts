// The plan walk (Terraform's Context.Plan with its plan graph): refresh, upgrade, expansion, ProposedNew,
// PlanResourceChange with the contract checks, actions and reasons, lifecycle, data sources, outputs, orphans.
//
// Contract: `runPlan(opts)` never throws for user input; it returns the Plan (possibly `errored`, with the
// changes found so far, as Terraform shows "planned the following actions, but then encountered a problem") and
// every diagnostic. It never mutates `opts.state`.

import type { Diagnostic } from '../diags/diagnostic';
import { error, warning } from '../diags/diagnostic';
import type { Module, Resource } from '../config/model';
import { resourceKey as configResourceKey } from '../config/model';
import { finalizeRootVariables } from '../config/evaluate';
import type { InputValue } from '../config/variables';
import { evaluate } from '../lang/eval';
import * as T from '../lang/types';
import { rawEquals, Value } from '../lang/value';
import { walk } from '../graph/graph';
import { assertPlanValid, invalidPlanDiagnostics } from '../plans/objchange/valid';
import { plannedDataResourceObject, proposedNew } from '../plans/objchange/proposed';
import { exactEq } from '../plans/objchange/values';
import type { Action, ActionReason, DriftedResource, OutputChange, Plan, PlanMode, ResourceInstanceChange } from '../plans/plan';
import { compareResourceInstanceChanges } from '../plans/plan';
import { markWithPaths, unmarkDeepWithPaths } from '../providers/marks';
import type { Path } from '../providers/path';
import { applyPath, pathEquals } from '../providers/path';
import { DEFAULT_CLIENT_CAPABILITIES } from '../providers/provider';
import type { Schema } from '../providers/schema';
import { impliedType } from '../providers/schema';
import type { InstanceAddr, InstanceKey, ObjectSrc, ResourceAddr, ResourceState, State } from '../states/state';
import { applyChange, instanceAddrString, instanceKeyString, instanceKeySuffix, parseModuleInstance, resourceKey, SyncState } from '../states/state';
import { marshal, marshalType, unmarshal, unmarshalType } from './ctyjson';
import { decodeBody } from './decode';
import type { Hooks } from './hooks';
import type { BuiltGraph, ModuleInstance, Node, ProviderFactory, Repetition, ResourceValues } from './context';
import {
  buildConfigGraph,
  configResourceAddr,
  cycleDiagnostics,
  displayOrder,
  decodeObject,
  encodeObject,
  expansionKeys,
  instAddr,
  markObject,
  privateBytes,
  providerConfigAddr,
  providerFqn,
  repetitionFor,
  resourceExpressions,
  staticPath,
  WalkContext,
} from './context';
import { matchesTargets, parseTarget, parseTargets, type Target } from './targets';
import { applyMoves } from './refactor';
import { applyIgnoreChanges } from './lifecycle';
import { attributeRange } from './validate';
import {
  checkDataSourceResult,
  checkDestroyPlannedState,
  checkImported,
  checkPlannedState,
  checkReadResult,
  checkReplacePlannedState,
  checkUpgradedState,
  impliedProviderName,
  isNil,
  requiredReplaces,
  unexpectedDeferral,
  unknownAsNull,
  writeOnlyDiagnostics,
} from './contracts';
import type { MovedBlock } from '../config/model';
import { goQuote } from '../lang/goquote';
import { valueConformsToSchema } from '../plans/objchange/conformance';
import { formatError, formatPath } from '../providers/path';
import type { Body } from '../config/hclbody';
import type { ProviderDiagnostic } from '../providers/provider';
import { runLimited } from '../graph/semaphore';

export interface PlanOptions {
  /** The loaded root module (config/load.ts loadModuleTree). */
  config: Module;
  /** The state as the last run left it (never mutated). */
  state: State;
  /**
   * The previous run state when `state` is not it: a saved plan is re-derived from its refreshed prior state, while
   * its output changes are against the state before the refresh. Defaults to `state`.
   */
  prevRunState?: State;
  providers: ProviderFactory;
  /** Raw root variable values (variables.ts); finalised here against the declarations. */
  inputs?: ReadonlyMap<string, InputValue>;
  /** Already-final root variable values (takes precedence over inputs). */
  variableValues?: ReadonlyMap<string, Value>;
  /** With variableValues: the variables the caller set, as given (Plan.setVariables). */
  setVariables?: ReadonlyMap<string, Value>;
  mode?: PlanMode;
  /** -refresh=false sets this to false. */
  refresh?: boolean;
  targets?: readonly string[];
  forceReplace?: readonly string[];
  parallelism?: number;
  cwd: string;
  workspace?: string;
  hooks?: Hooks;
  signal?: AbortSignal;
  /** Clock for the plan timestamp (tests). */
  now?: () => Date;
  /** Reuse of resource nodes from the caller's previous plan of the same state (the preview's; see PlanReuse). */
  reuse?: PlanReuse;
  /**
   * With `reuse`: keep what the plan walked (PlanResult.session), so that the caller can re-plan a few of its
   * resources after an edit without walking the graph again (PlanSession.replan).
   */
  keepSession?: boolean;
}

/**
 * The hook of incremental plans (used by the language server's preview, server/lsp/preview/memo.ts). The planner
 * does the mechanics, the caller the policy:
 * - `done` is called after every node of the walk with its outcome; for a resource node whose whole effect on the
 *   plan is its values and changes (managed, normal mode, no targets, imports, conditions, orphans, deposed objects
 *   or diagnostics) it also gets those `effects`, and `replayed` says whether they were replayed.
 * - `replay` is asked before a resource node runs: effects it returns (recorded by `done` for the same node key in
 *   an earlier plan) are restored instead of evaluating and planning the node. The caller answers only when every
 *   input of the node is unchanged (its definition, what it depends on, the state, the providers), so the plan
 *   equals a full one. Hooks (preDiff/postDiff) are not called for replayed nodes.
 */
export interface PlanReuse {
  replay(key: string, n: Extract<Node, { kind: 'resource' }>, ctx: WalkContext): ResourceEffects | undefined;
  done(key: string, n: Node, ok: boolean, ctx: WalkContext, effects: ResourceEffects | undefined, replayed: boolean): void;
}

/** What a resource node contributed to a plan: its values per module instance address, and its changes in order. */
export interface ResourceEffects {
  values: ReadonlyMap<string, ResourceValues>;
  changes: readonly ResourceInstanceChange[];
}

export interface PlanResult {
  plan: Plan;
  diagnostics: Diagnostic[];
  /** With PlanOptions.keepSession, when the plan can be patched later (see PlanSession). */
  session?: PlanSession;
}

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

const hasErr = (ds: readonly Diagnostic[]) => ds.some((d) => d.severity === 'error');

class Planner {
  readonly ctx: WalkContext;
  readonly changes: ResourceInstanceChange[] = [];
  readonly drift: DriftedResource[] = [];
  readonly outputs: OutputChange[] = [];
  readonly prevRunState: State;
  readonly refreshState: SyncState;
  readonly mode: PlanMode;
  readonly refresh: boolean;
  readonly targets: Target[];
  readonly forceReplace: Target[];
  /** absolute config resource addresses with a pending (non-NoOp) change */
  readonly pending = new Set<string>();
  /** change by instance address string (current objects) */
  readonly changeByAddr = new Map<string, ResourceInstanceChange>();
  readonly hooks: Hooks;
  targeted?: Set<string>;
  /** Resource nodes a -target names directly (their instances are filtered); dependencies are included whole. */
  directlyTargeted = new Set<string>();
  variableValues = new Map<string, Value>();
  setVariables = new Map<string, Value>();
  /** new instance address string -> address in the previous run state (moved blocks) */
  moved = new Map<string, InstanceAddr>();
  forgotten: string[] = [];
  /**
   * -destroy with -target: Terraform's pre-destroy refresh is a normal plan with the same targets, so only the
   * targets (their matching instances) and, whole, what they depend on are refreshed. Config resource addresses.
   */
  destroyRefresh?: { direct: Set<string>; deps: Set<string> };
  /** import blocks: target instance address string -> import id */
  imports = new Map<string, string>();

  constructor(
    readonly opts: PlanOptions,
    readonly built: ReturnType<typeof buildConfigGraph>,
  ) {
    this.hooks = opts.hooks ?? {};
    this.ctx = new WalkContext(
      { root: opts.config, cwd: opts.cwd, workspace: opts.workspace ?? 'default', providers: opts.providers, parallelism: opts.parallelism ?? 10, hooks: this.hooks, signal: opts.signal, planning: true },
      built,
    );
    this.prevRunState = (opts.prevRunState ?? opts.state).deepCopy();
    this.refreshState = new SyncState(opts.state.deepCopy());
    this.ctx.state = this.refreshState.state;
    this.mode = opts.mode ?? 'normal';
    this.refresh = opts.refresh !== false;
    const td = parseTargets(opts.targets ?? []);
    const fr = parseTargets(opts.forceReplace ?? []);
    this.ctx.diagnostics.push(...td.diagnostics, ...fr.diagnostics);
    this.targets = td.targets;
    this.forceReplace = fr.targets;
  }

  get diagnostics(): Diagnostic[] {
    return this.ctx.diagnostics;
  }

  addChange(c0: ResourceInstanceChange): void {
    const addr = changeAddrString(c0);
    const prev = this.moved.get(addr);
    const c = prev ? { ...c0, prevRunAddr: prev } : c0;
    this.changes.push(c);
    if (c.deposedKey === undefined) this.changeByAddr.set(addr, c);
    if (c.action !== 'NoOp') this.pending.add(configResourceAddr(staticPath(c.addr.module), resourceKey(c.addr)));
  }

  // ---- per-node execution --------------------------------------------------------------------------------------

  async exec(key: string, n: Node): Promise<boolean> {
    switch (n.kind) {
      case 'provider':
        return this.ctx.configureProvider(n);
      case 'var':
        return this.ctx.evalVariable(n);
      case 'local':
        return this.ctx.evalLocal(n);
      case 'module':
        return this.ctx.expandModule(n);
      case 'module-close':
        return true;
      case 'output':
        // With -target, an output is planned only when targeting keeps it (targetedNodes); a targeted destroy
        // plans none (Terraform's destroy graph gives outputs no resource dependencies, so targeting drops them).
        if (this.targeted && (this.mode === 'destroy' || !this.targeted.has(key))) return true;
        return this.planOutput(n);
      case 'check':
        return this.evalCheck(n);
      case 'resource':
        if (this.targeted && !this.targeted.has(key)) return true;
        if (this.opts.reuse && this.replayResource(key, n)) return true;
        return this.planResource(n, this.directlyTargeted.has(key));
      case 'destroy':
        return true;
    }
  }

  private evalCheck(n: Extract<Node, { kind: 'check' }>): boolean {
    const c = n.mod.checks[n.index];
    const diags: Diagnostic[] = [];
    for (const inst of this.ctx.instancesOf(n.path)) {
      const cfg = `${n.path ? n.path + '.' : ''}check.${c.name}`;
      const obj = `${inst.addr ? inst.addr + '.' : ''}check.${c.name}`;
      this.ctx.runConditions('check', c.asserts, inst, {}, undefined, cfg, obj, diags);
    }
    this.diagnostics.push(...diags);
    return true;
  }

  private planOutput(n: Extract<Node, { kind: 'output' }>): boolean {
    const o = n.mod.outputs.get(n.name)!;
    const diags: Diagnostic[] = [];
    for (const inst of this.ctx.instancesOf(n.path)) {
      let v: Value = Value.null();
      if (o.value) {
        const cfg = `${n.path ? n.path + '.' : ''}output.${o.name}`;
        const obj = `${inst.addr ? inst.addr + '.' : ''}output.${o.name}`;
        // As NodeApplyableOutput: a failed precondition prevents further evaluation, so the output gets no
        // planned change.
        const nDiags = diags.length;
        this.ctx.runConditions('output-pre', o.preconditions, inst, {}, undefined, cfg, obj, diags);
        if (hasErr(diags.slice(nDiags))) {
          inst.outputs.set(n.name, Value.unknown(T.Dynamic));
          continue;
        }
        v = this.ctx.eval(o.value.ast, inst, {}, diags);
        if (n.path === '' && !o.sensitive && v.hasMarksDeep && v.unmarkDeep()[1].has('sensitive') && !hasErr(diags)) {
          diags.push(
            error(
              'Output refers to sensitive values',
              'To reduce the risk of accidentally exporting sensitive data that was intended to be only internal, Terraform requires that any root module output containing sensitive data be explicitly marked as sensitive, to confirm your intent.\n\nIf you do intend to export this data, annotate the output value as sensitive by adding the following argument:\n    sensitive = true',
              o.declRange,
            ),
          );
        }
      }
      inst.outputs.set(n.name, v);
      if (n.path === '' && !hasErr(diags)) {
        // As Terraform, the refreshed (prior) state carries the root outputs' new values when they are known.
        const [u] = v.unmarkDeep();
        if (u.isWhollyKnown && !u.isNull) this.refreshState.setOutputValue(n.name, { valueJSON: marshal(u), typeJSON: marshalType(u.type), sensitive: o.sensitive });
        else if (u.isNull) this.refreshState.setOutputValue(n.name, null);
      }
      if (n.path === '') {
        // A destroy plan's prior state is the one its refresh plan left, where root outputs already carry their new
        // known values (set just above): "before" is that value, as Terraform shows it.
        const prev = this.mode === 'destroy' ? this.refreshState.state.outputs.get(n.name) : this.prevRunState.outputs.get(n.name);
        let before = Value.null();
        if (prev) {
          before = decodeOutput(prev.valueJSON, prev.typeJSON);
          if (prev.sensitive) before = before.mark('sensitive');
        }
        let after = o.sensitive ? v.mark('sensitive') : v;
        if (this.mode === 'destroy') after = Value.null();
        let action: Action;
        if (!prev) action = after.isNull && after.isKnown ? 'NoOp' : 'Create';
        else if (this.mode === 'destroy') action = 'Delete';
        else if (prev.sensitive !== o.sensitive) action = 'Update';
        else {
          const a = after.unmarkDeep()[0];
          const b = before.unmarkDeep()[0];
          action = a.isWhollyKnown && exactEq(a, b) && T.typeEquals(a.type, b.type) ? 'NoOp' : a.isWhollyKnown && sameJSON(a, b) ? 'NoOp' : 'Update';
        }
        this.outputs.push({ addr: `output.${n.name}`, module: '', name: n.name, action, before, after, sensitive: o.sensitive || prev?.sensitive === true });
      }
    }
    this.diagnostics.push(...diags);
    return !hasErr(diags);
  }

  // ---- resources ---------------------------------------------------------------------------------------------------

  private async planResource(n: Extract<Node, { kind: 'resource' }>, filterInstances = false): Promise<boolean> {
    const r = n.res;
    const schema = this.ctx.schemaOf(n.fqn, r.mode, r.type);
    if (!schema) {
      this.diagnostics.push(
        error(
          r.mode === 'managed' ? 'Invalid resource type' : 'Invalid data source',
          `The provider ${n.fqn.replace(/^registry\.terraform\.io\//, '')} does not support ${r.mode === 'managed' ? 'resource' : 'data source'} type ${JSON.stringify(r.type)}.`,
          r.typeRange,
        ),
      );
      return false;
    }
    const diags: Diagnostic[] = [];
    // Started at most ctx.startLimit at a time (runLimited).
    const tasks: (() => Promise<boolean>)[] = [];
    // (PlanReuse: only a node whose whole effect is its values and changes is offered for reuse.)
    let reusable =
      this.opts.reuse !== undefined && this.mode === 'normal' && r.mode === 'managed' && !this.targets.length && !this.forceReplace.length && !this.imports.size && !r.lifecycle?.preconditions.length && !r.lifecycle?.postconditions.length;
    for (const inst of this.ctx.instancesOf(n.path)) {
      const e = this.mode === 'destroy' ? { kind: 'single' as const } : this.ctx.expand(inst, r.count, r.forEach, diags);
      const rv: ResourceValues = { expansion: e, instances: new Map() };
      inst.resources.set(configResourceKey(r), rv);
      if (e.kind === 'unknown') continue;
      const keys = this.mode === 'destroy' ? [] : expansionKeys(e);
      const wanted = new Set(keys.map(instanceKeyString));
      const rs = this.refreshState.state.resource({ module: inst.addr, mode: r.mode, type: r.type, name: r.name });
      // Orphaned instances (keys no longer in the expansion).
      if (rs) {
        for (const [ks, is] of rs.instances) {
          if (is.deposed.size || !wanted.has(ks)) reusable = false;
          if (wanted.has(ks)) {
            for (const dk of is.deposed.keys()) tasks.push(() => this.planDeposed(instAddr(inst.addr, r, is.key), dk, schema, rs.provider, r));
            continue;
          }
          if (r.mode === 'data') {
            this.refreshState.forgetResourceInstanceAll(instAddr(inst.addr, r, is.key));
            continue;
          }
          const reason: ActionReason =
            this.mode === 'destroy'
              ? 'None'
              : e.kind === 'count'
                ? typeof is.key === 'number'
                  ? 'DeleteBecauseCountIndex'
                  : 'DeleteBecauseWrongRepetition'
                : e.kind === 'foreach'
                  ? typeof is.key === 'string'
                    ? 'DeleteBecauseEachKey'
                    : 'DeleteBecauseWrongRepetition'
                  : 'DeleteBecauseWrongRepetition';
          tasks.push(() => this.planOrphan(instAddr(inst.addr, r, is.key), rs, schema, reason, r, filterInstances));
        }
      }
      for (const k of keys) {
        const addr = instAddr(inst.addr, r, k);
        if (filterInstances && !matchesTargets(this.targets, addr)) {
          const o = rs?.instances.get(instanceKeyString(k))?.current;
          const v = o ? decodeObject(o, schema) : undefined;
          if (v) rv.instances.set(instanceKeyString(k), v);
          continue;
        }
        const rep = repetitionFor(e, k);
        tasks.push(() =>
          (r.mode === 'managed' ? this.planManaged(n, inst, addr, rep, schema, diags) : this.planData(n, inst, addr, rep, schema, diags)).then((v) => {
            if (v) rv.instances.set(instanceKeyString(k), v);
            return v !== undefined;
          }),
        );
      }
    }
    const results = await runLimited(tasks, this.ctx.startLimit);
    this.diagnostics.push(...diags);
    const ok = results.every((x) => x) && !hasErr(diags);
    if (reusable && ok && !diags.length) this.recordEffects(n);
    return ok;
  }

  /** PlanReuse: effects by node, and the nodes whose effects were replayed. */
  readonly effects = new Map<Node, ResourceEffects>();
  readonly replayed = new Set<Node>();

  private recordEffects(n: Extract<Node, { kind: 'resource' }>): void {
    const values = new Map<string, ResourceValues>();
    const changes: ResourceInstanceChange[] = [];
    for (const inst of this.ctx.instancesOf(n.path)) {
      const rv = inst.resources.get(configResourceKey(n.res));
      if (!rv) return;
      values.set(inst.addr, rv);
      for (const k of expansionKeys(rv.expansion)) {
        const c = this.changeByAddr.get(instanceAddrString(instAddr(inst.addr, n.res, k)));
        if (!c) return;
        changes.push(c);
      }
    }
    this.effects.set(n, { values, changes });
  }

  /** Restores a resource node's effects from the caller's earlier plan (PlanReuse); false when it must run. */
  replayResource(key: string, n: Extract<Node, { kind: 'resource' }>): boolean {
    const e = this.opts.reuse!.replay(key, n, this.ctx);
    const insts = this.ctx.instancesOf(n.path);
    if (!e || e.values.size !== insts.length || !insts.every((i) => e.values.has(i.addr))) return false;
    for (const inst of insts) inst.resources.set(configResourceKey(n.res), e.values.get(inst.addr)!);
    for (const c of e.changes) this.addChange(c);
    this.effects.set(n, e);
    this.replayed.add(n);
    return true;
  }

  /**
   * Plans a resource node of a completed plan again (PlanSession.replan), in place of `old`, the node whose effects
   * the plan recorded: its changes and values are replaced by the new ones. Undefined when the node did not plan to
   * effects alone (diagnostics, conditions, orphans...): the plan is then no longer consistent and must be made again.
   */
  async replanResource(old: Extract<Node, { kind: 'resource' }>, n: Extract<Node, { kind: 'resource' }>): Promise<{ dropped: readonly ResourceInstanceChange[]; effects: ResourceEffects } | undefined> {
    const e = this.effects.get(old);
    if (!e) return undefined;
    for (const c of e.changes) {
      const a = changeAddrString(c);
      if (this.changeByAddr.get(a) === c) this.changeByAddr.delete(a);
      this.pending.delete(configResourceAddr(staticPath(c.addr.module), resourceKey(c.addr)));
    }
    this.effects.delete(old);
    this.replayed.delete(old);
    const before = this.diagnostics.length;
    this.replanning = true;
    let ok: boolean;
    try {
      ok = await this.planResource(n, false);
    } finally {
      this.replanning = false;
    }
    const effects = this.effects.get(n);
    if (!ok || !effects || this.diagnostics.length !== before) {
      this.diagnostics.length = before;
      return undefined;
    }
    return { dropped: e.changes, effects };
  }

  /** Removes changes from the walk's list (after replanResource). */
  dropChanges(dropped: ReadonlySet<ResourceInstanceChange>): void {
    if (dropped.size === 0) return;
    const list = this.changes;
    let j = 0;
    if (dropped.size > FEW_CHANGES) {
      for (let i = 0; i < list.length; i++) if (!dropped.has(list[i])) list[j++] = list[i];
    } else {
      // A patch drops a few changes of thousands: compared by identity in a plain loop, the changes are not read
      // (a set lookup hashes each object, reading it; 13,750 of them were 0.5 ms of each preview patch).
      const few = [...dropped];
      for (let i = 0; i < list.length; i++) if (positionIn(few, list[i]) < 0) list[j++] = list[i];
    }
    list.length = j;
  }

  /** Set while replanResource plans a node again. */
  private replanning = false;
  /**
   * The prior objects replanResource upgraded, by stored object (a re-plan reads the same state, so an object is
   * upgraded once however often the same resource is planned again after edits; as in one plan, where Terraform
   * upgrades each object once). Only answers without diagnostics are kept.
   */
  private upgradedObjects: WeakMap<ObjectSrc, { schema: Schema; value: Value }> | undefined;

  /** Upgrades a stored object to the provider's current schema and decodes it. */
  async upgrade(addr: InstanceAddr, o: ObjectSrc, schema: Schema, fqn: string, diags: Diagnostic[], providerAddr = providerConfigAddr(fqn)): Promise<Value | undefined> {
    const kept = this.replanning ? (this.upgradedObjects ??= new WeakMap()) : undefined;
    const hit = kept?.get(o);
    if (hit && hit.schema === schema) return hit.value;
    const prov = this.ctx.providerFor(providerAddr);
    if (!prov) return undefined;
    const p = { provider: prov };
    if (o.schemaVersion > schema.version) {
      diags.push(
        error(
          'Resource instance managed by newer provider version',
          `The current state of ${instanceAddrString(addr)} was created by a newer provider version than is currently selected. Upgrade the ${impliedProviderName(addr.type)} provider to work with this state.`,
        ),
      );
      return undefined;
    }
    const r = await this.ctx.sem.run(() =>
      p.provider.upgradeResourceState({ typeName: addr.type, version: o.schemaVersion, rawStateJson: o.attrsJSON, rawStateFlatmap: o.attrsFlat as Record<string, string> | undefined }),
    );
    diags.push(...r.diagnostics);
    if (hasErr(r.diagnostics)) return undefined;
    const chk = checkUpgradedState(schema.block, r.upgradedState, instanceAddrString(addr), addr.type);
    diags.push(...chk.diags);
    if (!chk.ok) return undefined;
    const value = markObject(r.upgradedState, schema, o.sensitivePaths.map((p2) => fromState(p2)));
    if (kept && !r.diagnostics.length && !chk.diags.length) kept.set(o, { schema, value });
    return value;
  }

  /**
   * Refreshes an object (ReadResource); returns the new value (null when gone) or undefined on errors. The provider's
   * diagnostics are placed InConfigBody of `body`, the resource's configuration when it has one (refresh()).
   */
  async refreshObject(addr: InstanceAddr, deposedKey: string | undefined, o: ObjectSrc, prior: Value, schema: Schema, fqn: string, providerAddr: string, diags: Diagnostic[], importing = false, body?: Body): Promise<Value | undefined> {
    if (!this.refresh && !importing) return prior;
    if (this.destroyRefresh && !importing) {
      const ca = configResourceAddr(staticPath(addr.module), resourceKey(addr));
      const want = this.destroyRefresh.deps.has(ca) || (this.destroyRefresh.direct.has(ca) && matchesTargets(this.targets, addr));
      if (!want) return prior;
    }
    const p = { provider: this.ctx.providerFor(providerAddr)! };
    this.hooks.preRefresh?.(addr, deposedKey, prior);
    const { value: unmarked, marks } = unmarkDeepWithPaths(prior);
    const r = await this.ctx.sem.run(() =>
      p.provider.readResource({ typeName: addr.type, currentState: unmarked, private: privateBytes(o), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES }),
    );
    const readDeferred = unexpectedDeferral(r, instanceAddrString(addr));
    diags.push(...readDeferred, ...r.diagnostics.map((d) => withAddr(d, addr, body)));
    if (hasErr(r.diagnostics) || readDeferred.length) return undefined;
    const chk = checkReadResult(schema.block, r.newState, fqn, providerAddr, instanceAddrString(addr));
    diags.push(...chk.diags);
    if (!chk.ok) return undefined;
    let nv = r.newState;
    if (!nv.isNull) nv = markObject(markWithPaths(nv, marks), schema);
    else nv = Value.null(impliedType(schema.block));
    this.hooks.postRefresh?.(addr, deposedKey, prior, nv);
    if (importing) return nv;
    // Record drift and store the refreshed object.
    const changed = !exactEq(nv.unmarkDeep()[0], unmarked);
    if (changed) {
      this.drift.push({ addr, prevRunAddr: addr, deposedKey, providerAddr, action: nv.isNull ? 'Delete' : 'Update', before: prior, after: nv });
    }
    if (nv.isNull) {
      if (deposedKey) this.refreshState.setResourceInstanceDeposed(addr, deposedKey, null, providerAddr);
      else this.refreshState.setResourceInstanceCurrent(addr, null, providerAddr);
    } else if (changed || r.private.length !== privateBytes(o).length) {
      const src = encodeObject(nv, schema, { status: o.status, dependencies: o.dependencies, createBeforeDestroy: o.createBeforeDestroy, private: r.private });
      if (deposedKey) this.refreshState.setResourceInstanceDeposed(addr, deposedKey, src, providerAddr);
      else this.refreshState.setResourceInstanceCurrent(addr, src, providerAddr);
    }
    return nv;
  }

  private async planOrphan(addr: InstanceAddr, rs: ResourceState, schema: Schema, reason: ActionReason, r: Resource | undefined, filter = this.targets.length > 0): Promise<boolean> {
    const diags: Diagnostic[] = [];
    const is = rs.instances.get(instanceKeyString(addr.key))!;
    const fqn = fqnOfProviderAddr(rs.provider);
    const tasks: Promise<boolean>[] = [];
    for (const dk of is.deposed.keys()) tasks.push(this.planDeposed(addr, dk, schema, rs.provider, r));
    const o = is.current;
    if (o) {
      if (filter && !matchesTargets(this.targets, addr)) return (await Promise.all(tasks)).every((x) => x);
      const prior = await this.upgrade(addr, o, schema, fqn, diags);
      if (prior) {
        const nv = await this.refreshObject(addr, undefined, o, prior, schema, fqn, rs.provider, diags, false, r?.config);
        const pd = nv && !nv.isNull && this.mode !== 'refresh-only' ? await this.planDestroy(addr, nv, privateBytes(this.refreshState.state.object(addr) ?? o), schema, fqn, rs.provider, diags) : undefined;
        if (nv && pd) {
          this.addChange({
            addr,
            prevRunAddr: addr,
            providerAddr: rs.provider,
            action: 'Delete',
            actionReason: reason,
            before: nv,
            after: Value.null(impliedType(schema.block)),
            requiredReplace: [],
            private: pd.private,
          });
          if (r && this.preventDestroy(r)) diags.push(preventDestroyDiag(addr, r));
        }
      }
    }
    this.diagnostics.push(...diags);
    return (await Promise.all(tasks)).every((x) => x) && !hasErr(diags);
  }

  private async planDeposed(addr: InstanceAddr, dk: string, schema: Schema, providerAddr: string, r: Resource | undefined): Promise<boolean> {
    const diags: Diagnostic[] = [];
    const o = this.refreshState.state.object(addr, dk);
    if (!o) return true;
    const fqn = fqnOfProviderAddr(providerAddr);
    const prior = await this.upgrade(addr, o, schema, fqn, diags);
    if (prior) {
      const nv = await this.refreshObject(addr, dk, o, prior, schema, fqn, providerAddr, diags, false, r?.config);
      const pd = nv && !nv.isNull && this.mode !== 'refresh-only' ? await this.planDestroy(addr, nv, privateBytes(this.refreshState.state.object(addr, dk) ?? o), schema, fqn, providerAddr, diags) : undefined;
      if (nv && pd) {
        this.addChange({
          addr,
          prevRunAddr: addr,
          deposedKey: dk,
          providerAddr,
          action: 'Delete',
          actionReason: 'None',
          before: nv,
          after: Value.null(impliedType(schema.block)),
          requiredReplace: [],
          private: pd.private,
        });
      }
    }
    this.diagnostics.push(...diags);
    return !hasErr(diags);
  }

  /**
   * planDestroy: a provider with the plan_destroy capability is asked to plan the destroy (null proposed state and
   * configuration) and must answer null; others are not called (the protocol client answers for them). The
   * private data to carry into the change, or undefined on errors.
   */
  private async planDestroy(addr: InstanceAddr, prior: Value, priorPrivate: Uint8Array, schema: Schema, fqn: string, providerAddr: string, diags: Diagnostic[]): Promise<{ private: Uint8Array } | undefined> {
    if (!this.ctx.providers.get(fqn)?.schema.serverCapabilities.planDestroy) return { private: priorPrivate };
    const p = this.ctx.providerFor(providerAddr)!;
    const nullObj = Value.null(impliedType(schema.block));
    const r = await this.ctx.sem.run(() =>
      p.planResourceChange({ typeName: addr.type, priorState: unmarkDeepWithPaths(prior).value, proposedNewState: nullObj, config: nullObj, priorPrivate, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES }),
    );
    diags.push(...r.diagnostics);
    if (hasErr(r.diagnostics)) return undefined;
    const bad = checkDestroyPlannedState(isNil(r.plannedState) ? nullObj : r.plannedState, fqn, instanceAddrString(addr));
    diags.push(...bad);
    return bad.length ? undefined : { private: r.plannedPrivate };
  }

  preventDestroy(r: Resource): boolean {
    return lifecycleFlag(r.lifecycle?.preventDestroy);
  }

  /** Plans one managed instance; returns its planned (marked) value for references, or undefined on errors. */
  private async planManaged(n: Extract<Node, { kind: 'resource' }>, inst: ModuleInstance, addr: InstanceAddr, rep: Repetition, schema: Schema, outDiags: Diagnostic[]): Promise<Value | undefined> {
    const r = n.res;
    const diags: Diagnostic[] = [];
    const p = { provider: this.ctx.providerFor(n.providerAddr)! };
    const block = schema.block;
    const nullObj = Value.null(impliedType(block));
    const addrStr = instanceAddrString(addr);
    const cur = this.refreshState.state.object(addr);
    const rs = this.refreshState.state.resource(addr);
    const providerAddr = n.providerAddr;
    let prior: Value = nullObj;
    let priorPrivate: Uint8Array = new Uint8Array();
    let tainted = false;
    const importId = cur ? undefined : this.imports.get(addrStr);
    if (importId !== undefined && this.mode === 'normal') {
      this.hooks.prePlanImport?.(addr, importId);
      const ir = await this.ctx.sem.run(() => p.provider.importResourceState({ typeName: r.type, id: importId, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES }));
      const importDeferred = unexpectedDeferral(ir, addrStr);
      diags.push(...importDeferred, ...ir.diagnostics.map((d) => withAddr(d, addr)));
      if (hasErr(ir.diagnostics) || importDeferred.length) {
        outDiags.push(...diags);
        return undefined;
      }
      const chk = checkImported(block, ir.importedResources, importId, providerAddr, addrStr);
      diags.push(...chk.diags);
      const obj = chk.object;
      if (!obj) {
        outDiags.push(...diags);
        return undefined;
      }
      const imported = markObject(obj.state, schema);
      const src = encodeObject(imported, schema, { status: 'ready', dependencies: [], createBeforeDestroy: false, private: obj.private });
      const nv = imported.isNull ? imported : await this.refreshObject(addr, undefined, src, imported, schema, n.fqn, providerAddr, diags, true, r.config);
      if (!nv || nv.isNull || chk.failed) {
        if (nv && nv.isNull && !chk.failed) {
          diags.push(
            error(
              'Cannot import non-existent remote object',
              `While attempting to import an existing object to "${addrStr}", the provider detected that no object exists with the given id. Only pre-existing objects can be imported; check that the id is correct and that it is associated with the provider's configured region or endpoint, or use "terraform apply" to create a new remote object for this resource.`,
            ),
          );
        }
        outDiags.push(...diags);
        return undefined;
      }
      prior = nv;
      priorPrivate = obj.private;
    }
    if (cur) {
      const up = await this.upgrade(addr, cur, schema, n.fqn, diags);
      if (!up) {
        outDiags.push(...diags);
        return undefined;
      }
      const nv = await this.refreshObject(addr, undefined, cur, up, schema, n.fqn, rs?.provider ?? providerAddr, diags, false, r.config);
      if (!nv) {
        outDiags.push(...diags);
        return undefined;
      }
      prior = nv;
      priorPrivate = privateBytes(this.refreshState.state.object(addr) ?? cur);
      tainted = cur.status === 'tainted' && !nv.isNull;
    }
    if (this.mode === 'refresh-only') {
      outDiags.push(...diags);
      return prior.isNull ? undefined : prior;
    }
    if (this.mode === 'destroy') {
      outDiags.push(...diags);
      return prior;
    }

    // Configuration.
    const scope = this.ctx.scope(inst, rep);
    const config = decodeBody(r.config, block, scope, diags);
    if (hasErr(diags)) {
      outDiags.push(...diags);
      return undefined;
    }
    const cfgAddr = configResourceAddr(n.path, resourceKey(addr));
    this.ctx.runConditions('resource-pre', r.lifecycle?.preconditions ?? [], inst, rep, undefined, cfgAddr, addrStr, diags);
    if (hasErr(diags)) {
      outDiags.push(...diags);
      return undefined;
    }
    const { value: unmarkedConfig, marks: configMarks } = unmarkDeepWithPaths(config);
    const vr = await p.provider.validateResourceConfig({ typeName: r.type, config: unmarkedConfig, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    // (Terraform's validate walk, before planning, reports these with the resource's static address.)
    diags.push(...vr.diagnostics.map((d) => withAddr(d, configResourceAddr(staticPath(addr.module), resourceKey(addr)), r.config)));
    if (hasErr(vr.diagnostics)) {
      outDiags.push(...diags);
      return undefined;
    }

    let priorForPlan = prior;
    if (tainted) priorForPlan = nullObj;
    const unmarkedPrior = unmarkDeepWithPaths(priorForPlan).value;
    const configForPlan = applyIgnoreChanges(unmarkedConfig, unmarkedPrior, r.lifecycle?.ignoreChanges);
    let proposed = proposedNew(block, unmarkedPrior, configForPlan);
    this.hooks.preDiff?.(addr, undefined, priorForPlan, proposed);
    let resp = await this.ctx.sem.run(() =>
      p.provider.planResourceChange({ typeName: r.type, priorState: unmarkedPrior, proposedNewState: proposed, config: configForPlan, priorPrivate: tainted ? new Uint8Array() : priorPrivate, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES }),
    );
    const planDeferred = unexpectedDeferral(resp, addrStr);
    diags.push(...planDeferred, ...resp.diagnostics.map((d) => withAddr(d, addr, r.config)));
    if (hasErr(resp.diagnostics) || planDeferred.length) {
      outDiags.push(...diags);
      return undefined;
    }
    let planned = resp.plannedState;
    const conformance = checkPlannedState(block, planned, n.fqn, providerAddr, addrStr);
    if (conformance.length) {
      outDiags.push(...diags, ...conformance);
      return undefined;
    }
    if (!resp.legacyTypeSystem) {
      const errs = assertPlanValid(block, unmarkedPrior, configForPlan, planned);
      if (errs.length) {
        diags.push(...invalidPlanDiagnostics(errs, n.fqn, addrStr));
        outDiags.push(...diags);
        return undefined;
      }
    }

    // requiresReplace paths that actually change.
    const rr = requiredReplaces(block, resp.requiresReplace, unmarkedPrior, planned, n.fqn, addrStr);
    if (rr.diags.length) {
      outDiags.push(...diags, ...rr.diags);
      return undefined;
    }
    const reqRep: Path[] = rr.paths;
    const forced = this.forceReplace.length > 0 && matchesTargets(this.forceReplace, addr, true);
    const triggered = !priorForPlan.isNull && this.replaceTriggered(r, inst, rep, diags);
    const eq = planned.isWhollyKnown && exactEq(planned, unmarkedPrior);
    const cbd = createBeforeDestroy(this.built, r, n.path);
    let action: Action;
    let reason: ActionReason = 'None';
    if (priorForPlan.isNull) action = 'Create';
    else if (eq && !forced && !triggered) action = 'NoOp';
    else if (forced || triggered || reqRep.length) {
      action = cbd ? 'CreateThenDelete' : 'DeleteThenCreate';
      reason = forced ? 'ReplaceByRequest' : triggered ? 'ReplaceByTriggers' : 'ReplaceBecauseCannotUpdate';
    } else action = 'Update';
    let planPrivate = resp.plannedPrivate;
    if (action === 'DeleteThenCreate' || action === 'CreateThenDelete') {
      // The replacement is planned from a null prior with the configuration as written (ignore_changes does not
      // apply to a new object) and the first answer's private data. Warnings were already given by the first
      // call; this one's diagnostics count only when they hold an error. No AssertPlanValid on this answer.
      proposed = proposedNew(block, nullObj, unmarkedConfig);
      const firstPrivate = planPrivate;
      resp = await this.ctx.sem.run(() =>
        p.provider.planResourceChange({ typeName: r.type, priorState: nullObj, proposedNewState: proposed, config: unmarkedConfig, priorPrivate: firstPrivate, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES }),
      );
      const replaceDeferred = unexpectedDeferral(resp, addrStr);
      if (hasErr(resp.diagnostics) || replaceDeferred.length) {
        diags.push(...replaceDeferred);
        if (hasErr(resp.diagnostics)) diags.push(...resp.diagnostics.map((d) => withAddr(d, addr, r.config)));
        outDiags.push(...diags);
        return undefined;
      }
      planned = resp.plannedState;
      planPrivate = resp.plannedPrivate;
      const replaceErrs = checkReplacePlannedState(block, planned, n.fqn, providerAddr, addrStr);
      if (replaceErrs.length) {
        outDiags.push(...diags, ...replaceErrs);
        return undefined;
      }
    }
    if (action === 'Create' && tainted) {
      action = cbd ? 'CreateThenDelete' : 'DeleteThenCreate';
      reason = 'ReplaceBecauseTainted';
    }
    const after = markObject(markWithPaths(planned, configMarks), schema);
    const before = tainted ? prior : priorForPlan;
    this.hooks.postDiff?.(addr, undefined, action, before, after);
    this.addChange({
      addr,
      prevRunAddr: addr,
      providerAddr,
      action,
      actionReason: reason,
      before,
      after,
      requiredReplace: reqRep,
      private: planPrivate,
      config: unmarkedConfig,
      schemaVersion: schema.version,
      importing: importId !== undefined && !prior.isNull ? { id: importId } : undefined,
    });
    if ((action === 'DeleteThenCreate' || action === 'CreateThenDelete') && this.preventDestroy(r)) diags.push(preventDestroyDiag(addr, r));
    this.ctx.runConditions('resource-post', r.lifecycle?.postconditions ?? [], inst, rep, after, cfgAddr, addrStr, diags);
    outDiags.push(...diags);
    return after;
  }

  private replaceTriggered(r: Resource, inst: ModuleInstance, rep: Repetition, diags: Diagnostic[]): boolean {
    void diags;
    const rtb = r.lifecycle?.replaceTriggeredBy;
    if (!rtb) return false;
    for (const e of rtb) {
      const ref = e.refs[0];
      if (!ref) continue;
      const isData = ref.root === 'data';
      const steps = ref.steps;
      const type = isData ? (steps[0] as { name?: string }).name : ref.root;
      const name = isData ? (steps[1] as { name?: string }).name : (steps[0] as { name?: string }).name;
      if (!type || !name) continue;
      let rest = steps.slice(isData ? 2 : 1);
      // Instance key: a literal index, or count.index / each.key of this instance.
      let key: InstanceKey | 'any' = 'any';
      if (rest[0]?.kind === 'index') {
        key = (rest[0] as { key: string | number }).key;
        rest = rest.slice(1);
      } else if (/\[\s*count\.index\s*\]/.test(e.text) && rep.countIndex) {
        key = Number(rep.countIndex.num.toString());
      } else if (/\[\s*each\.key\s*\]/.test(e.text) && rep.each) key = rep.each.key.str;
      let attrs = rest.filter((s) => s.kind === 'attr').map((s) => (s as { name: string }).name);
      // The static traversal stops at a dynamic index (`[each.key]`); the attributes after it come from the text.
      const dyn = /\[\s*(?:count\.index|each\.key)\s*\]((?:\s*\.\s*[A-Za-z_][\w-]*)*)\s*$/.exec(e.text);
      if (dyn) attrs = dyn[1].split('.').map((x) => x.trim()).filter((x) => x);
      const prefix = `${inst.addr ? inst.addr + '.' : ''}${isData ? 'data.' : ''}${type}.${name}`;
      for (const c of this.changes) {
        if (c.deposedKey !== undefined) continue;
        const s = instanceAddrString(c.addr);
        if (!s.startsWith(prefix)) continue;
        const rest2 = s.slice(prefix.length);
        if (rest2 && !rest2.startsWith('[')) continue;
        if (key !== 'any' && rest2 !== instanceKeySuffix(key)) continue;
        if (c.action === 'NoOp' || c.action === 'Read') continue;
        if (c.action === 'Create' && attrs.length === 0) continue;
        if (!attrs.length) return true;
        let a = c.before.unmarkDeep()[0];
        let b = c.after.unmarkDeep()[0];
        for (const at of attrs) {
          a = a.isKnown && !a.isNull && a.type.kind === 'object' ? a.entries.get(at) ?? Value.null() : Value.null();
          b = b.isKnown && !b.isNull && b.type.kind === 'object' ? b.entries.get(at) ?? Value.null() : Value.unknown();
        }
        if (!b.isWhollyKnown || !exactEq(a, b)) return true;
      }
    }
    return false;
  }

  private async planData(n: Extract<Node, { kind: 'resource' }>, inst: ModuleInstance, addr: InstanceAddr, rep: Repetition, schema: Schema, outDiags: Diagnostic[]): Promise<Value | undefined> {
    if (n.mod.checks.some((c) => c.data.includes(n.res))) {
      // Problems reading a data source scoped to a check block are warnings: checks never block a plan.
      const ds: Diagnostic[] = [];
      const v = await this.planDataInner(n, inst, addr, rep, schema, ds);
      for (const d of ds) outDiags.push({ ...d, severity: 'warning', noConsolidate: true });
      return v ?? Value.unknown(impliedType(schema.block));
    }
    return this.planDataInner(n, inst, addr, rep, schema, outDiags);
  }

  private async planDataInner(n: Extract<Node, { kind: 'resource' }>, inst: ModuleInstance, addr: InstanceAddr, rep: Repetition, schema: Schema, outDiags: Diagnostic[]): Promise<Value | undefined> {
    const r = n.res;
    const diags: Diagnostic[] = [];
    const p = { provider: this.ctx.providerFor(n.providerAddr)! };
    const block = schema.block;
    if (this.mode === 'destroy') {
      const o = this.refreshState.state.object(addr);
      return o ? decodeObject(o, schema) : Value.null(impliedType(block));
    }
    const config = decodeBody(r.config, block, this.ctx.scope(inst, rep), diags);
    this.ctx.runConditions('resource-pre', r.lifecycle?.preconditions ?? [], inst, rep, undefined, configResourceAddr(n.path, resourceKey(addr)), instanceAddrString(addr), diags);
    if (hasErr(diags)) {
      outDiags.push(...diags);
      return undefined;
    }
    const { value: unmarkedConfig, marks } = unmarkDeepWithPaths(config);
    const vr = await p.provider.validateDataResourceConfig({ typeName: r.type, config: unmarkedConfig });
    diags.push(...vr.diagnostics.map((d) => withAddr(d, configResourceAddr(staticPath(addr.module), resourceKey(addr)), r.config)));
    if (hasErr(vr.diagnostics)) {
      outDiags.push(...diags);
      return undefined;
    }
    const deps = this.built.resourceDeps.get(configResourceAddr(staticPath(addr.module), resourceKey(addr))) ?? [];
    const depPending = deps.some((d) => this.pending.has(d));
    if (!unmarkedConfig.isWhollyKnown || depPending) {
      const planned = markObject(markWithPaths(plannedDataResourceObject(block, unmarkedConfig), marks), schema);
      this.addChange({
        addr,
        prevRunAddr: addr,
        providerAddr: n.providerAddr,
        action: 'Read',
        actionReason: unmarkedConfig.isWhollyKnown ? 'ReadBecauseDependencyPending' : 'ReadBecauseConfigUnknown',
        before: Value.null(impliedType(block)),
        after: planned,
        requiredReplace: [],
        private: new Uint8Array(),
        config: unmarkedConfig,
        schemaVersion: schema.version,
      });
      outDiags.push(...diags);
      return planned;
    }
    this.hooks.preReadData?.(addr);
    const resp = await this.ctx.sem.run(() => p.provider.readDataSource({ typeName: r.type, config: unmarkedConfig, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES }));
    const dataDeferred = unexpectedDeferral(resp, instanceAddrString(addr));
    diags.push(...dataDeferred, ...resp.diagnostics.map((d) => withAddr(d, addr, r.config)));
    const chk = hasErr(resp.diagnostics) || dataDeferred.length ? undefined : checkDataSourceResult(block, resp.state, n.providerAddr, instanceAddrString(addr));
    if (chk) diags.push(...chk.diags);
    if (!chk?.value || hasErr(chk.diags)) {
      this.hooks.postReadData?.(addr, true);
      outDiags.push(...diags);
      return undefined;
    }
    const v = markObject(markWithPaths(chk.value, marks), schema);
    this.hooks.postReadData?.(addr, false, v);
    this.refreshState.setResourceInstanceCurrent(addr, encodeObject(v, schema, { status: 'ready', dependencies: [], createBeforeDestroy: false }), n.providerAddr);
    if (n.mod.checks.some((c) => c.data.includes(r))) {
      // Data sources scoped to a check block are read again during apply, so the check reflects the result.
      this.addChange({
        addr,
        prevRunAddr: addr,
        providerAddr: n.providerAddr,
        action: 'Read',
        actionReason: 'ReadBecauseCheckNested',
        before: Value.null(impliedType(block)),
        after: v,
        requiredReplace: [],
        private: new Uint8Array(),
        config: unmarkedConfig,
        schemaVersion: schema.version,
      });
    }
    this.ctx.runConditions('resource-post', r.lifecycle?.postconditions ?? [], inst, rep, v, configResourceAddr(n.path, resourceKey(addr)), instanceAddrString(addr), diags);
    outDiags.push(...diags);
    return v;
  }

  // ---- orphans of modules and removed resources -----------------------------------------------------------------

  private cfgIndex?: Map<string, Resource>;
  /** The configuration of a resource by static module path and key (indexed once). */
  configResource(sp: string, key: string): Resource | undefined {
    if (!this.cfgIndex) {
      this.cfgIndex = new Map();
      for (const [, n] of this.built.graph.entries()) if (n.kind === 'resource') this.cfgIndex.set(configResourceAddr(n.path, configResourceKey(n.res)), n.res);
    }
    return this.cfgIndex.get(configResourceAddr(sp, key));
  }

  /** State resources with no configuration, or in module instances no longer expanded. */
  async planStateOrphans(): Promise<void> {
    const tasks: Promise<boolean>[] = [];
    for (const [m, rs] of [...this.refreshState.state.allResources()]) {
      const sp = staticPath(m.addr);
      const insts = this.ctx.instancesOf(sp);
      const inst = insts.find((i) => i.addr === m.addr);
      const cfg = this.configResource(sp, resourceKey(rs));
      // Resources with configuration in an existing module instance were handled by their node (destroy mode too).
      if (inst && cfg) continue;
      const fqn = fqnOfProviderAddr(rs.provider);
      const schema = this.ctx.schemaOf(fqn, rs.mode, rs.type);
      if (!schema) continue;
      const removed = this.mode === 'destroy' ? undefined : removedBlockFor(this.opts.config, sp, resourceKey(rs));
      for (const is of rs.instances.values()) {
        const addr = instAddr(m.addr, rs, is.key);
        if (rs.mode === 'data') {
          this.refreshState.forgetResourceInstanceAll(addr);
          continue;
        }
        if (removed && !removed.destroy) {
          if (this.targets.length && !matchesTargets(this.targets, addr)) continue;
          for (const [dk, o] of [['', is.current], ...is.deposed] as [string, ObjectSrc | undefined][]) {
            if (!o) continue;
            const v = decodeObject(o, schema);
            if (!v) continue;
            this.addChange({
              addr,
              prevRunAddr: addr,
              deposedKey: dk || undefined,
              providerAddr: rs.provider,
              action: 'Forget',
              actionReason: 'DeleteBecauseNoResourceConfig',
              before: v,
              after: v,
              requiredReplace: [],
              private: privateBytes(o),
            });
            if (!dk) this.forgotten.push(instanceAddrString(addr));
          }
          continue;
        }
        // NoModule: the module call is still configured but this instance of it is not (count/for_each);
        // a module call removed altogether leaves resources without configuration.
        const reason: ActionReason = this.mode === 'destroy' ? 'None' : !inst && findModule(this.opts.config, sp) ? 'DeleteBecauseNoModule' : 'DeleteBecauseNoResourceConfig';
        tasks.push(this.planOrphan(addr, rs, schema, reason, cfg));
      }
    }
    await Promise.all(tasks);
  }
}

/** The `removed` block (in the module that declared it) naming a resource, with its lifecycle destroy setting. */
function removedBlockFor(root: Module, sp: string, key: string): { destroy: boolean } | undefined {
  const abs = sp ? `${sp}.${key}` : key;
  const visit = (m: Module): { destroy: boolean } | undefined => {
    for (const rb of m.removed) {
      const t = rb.from ? parseTarget(rb.from.text.trim()) : undefined;
      if (!t) continue;
      const target = m.path ? `${m.path}.${t.configAddr}` : t.configAddr;
      if (target !== abs && !(t.isModule && abs.startsWith(target + '.'))) continue;
      const d = rb.lifecycle?.attributes.find((a) => a.name === 'destroy');
      return { destroy: d ? d.expr.text.trim() !== 'false' : true };
    }
    for (const c of m.moduleCalls.values()) {
      if (!c.module) continue;
      const r = visit(c.module);
      if (r) return r;
    }
    return undefined;
  };
  return visit(root);
}

/** "Removed resource still exists" for removed blocks whose resource is still configured. */
function removedStillConfigured(root: Module): Diagnostic[] {
  const out: Diagnostic[] = [];
  const visit = (m: Module) => {
    for (const rb of m.removed) {
      const t = rb.from ? parseTarget(rb.from.text.trim()) : undefined;
      if (!t?.resource || t.module) continue;
      const r = m.resources.find((x) => x.mode === t.resource!.mode && x.type === t.resource!.type && x.name === t.resource!.name);
      if (r) {
        out.push(
          error('Removed resource still exists', `This statement declares that ${t.configAddr} was removed, but it is still declared in configuration.`, r.declRange),
        );
      }
    }
    for (const c of m.moduleCalls.values()) if (c.module) visit(c.module);
  };
  visit(root);
  return out;
}

function findModule(root: Module, sp: string): Module | undefined {
  if (sp === '') return root;
  let m: Module | undefined = root;
  for (const [name] of parseModuleInstance(sp)) {
    m = m?.moduleCalls.get(name)?.module;
    if (!m) return undefined;
  }
  return m;
}

export function fqnOfProviderAddr(a: string): string {
  const m = /provider\["([^"]+)"\]/.exec(a);
  return m ? m[1] : a;
}

function fromState(p: import('../states/state').AttrPath): Path {
  return p.map((s) => {
    if (s.type === 'get_attr') return { kind: 'attr' as const, name: s.name };
    try {
      const j = JSON.parse(s.key) as { value: string | number; type: string };
      return { kind: 'index' as const, key: j.type === 'number' ? Value.number(Number(j.value)) : Value.string(String(j.value)) };
    } catch {
      return { kind: 'index' as const, key: Value.string(s.key) };
    }
  });
}


/**
 * tfdiags InConfigBody for a provider's answer about `addr` configured by `body`: the address is recorded and the
 * range is the attribute path's in the body (the body's end without one). A failed call (sourceless) stays as is.
 */
export function withAddr(d: Diagnostic, addr: InstanceAddr | string, body?: Body): Diagnostic {
  if (!body || d.sourceless) return d;
  const { path, ...rest } = d as ProviderDiagnostic;
  const out: Diagnostic = { ...rest };
  if (!out.address) out.address = typeof addr === 'string' ? addr : instanceAddrString(addr);
  // A diagnostic without a path is tfdiags' WholeContainingBody: the body's MissingItemRange, hclsyntax's zero-width
  // range at its opening brace (terraform shows the block's first line).
  if (!out.subject) out.subject = path?.length ? attributeRange(body, path) : { filename: body.range.filename, start: body.range.start, end: body.range.start };
  return out;
}

/**
 * A `moved` block between resource types or providers (refactoring's crossTypeMover): the target resource's
 * provider translates each object with MoveResourceState, and the source object is rewritten in place with the
 * target's schema version and provider configuration, keeping its status and dependencies. Nothing happens when
 * the target resource is not configured, or has the source's type and provider.
 */
async function crossTypeMove(pl: Planner, built: ReturnType<typeof buildConfigGraph>, stmt: MovedBlock, from: ResourceAddr, to: ResourceAddr, keys: InstanceAddr['key'][]): Promise<Diagnostic[]> {
  const state = pl.refreshState.state;
  const rs = state.resource(from);
  const k = built.resourceNodes.get(configResourceAddr(staticPath(to.module), resourceKey(to)));
  const n = k ? built.graph.get(k) : undefined;
  if (!rs || n?.kind !== 'resource') return [];
  const sourceFqn = fqnOfProviderAddr(rs.provider);
  if (n.fqn === sourceFqn && from.type === to.type) return [];
  const entry = pl.ctx.providers.get(n.fqn);
  if (!entry) return [];
  if (!entry.schema.serverCapabilities.moveResourceState) {
    return [error('Unsupported `moved` across resource types', `The provider ${goQuote(n.fqn)} does not support moved operations across resource types and providers.`, stmt.range)];
  }
  const schema = entry.schema.resourceTypes[to.type];
  if (!schema) return [];
  const diags: Diagnostic[] = [];
  for (const key of keys) {
    const addr = { ...from, key };
    const src = state.object(addr);
    if (!src) continue;
    const target = instanceAddrString({ ...to, key });
    const resp = await entry.provider.moveResourceState({
      sourceProviderAddress: sourceFqn,
      sourceTypeName: from.type,
      sourceSchemaVersion: src.schemaVersion,
      sourceStateJson: src.attrsJSON ?? '',
      sourcePrivate: privateBytes(src),
      targetTypeName: to.type,
    });
    diags.push(...resp.diagnostics);
    if (hasErr(resp.diagnostics)) continue;
    const wo = writeOnlyDiagnostics(
      schema.block,
      resp.targetState,
      'Provider returned invalid value',
      (p) =>
        `The provider ${goQuote(n.providerAddr)} returned a value for the write-only attribute "${target}${formatPath(p)}" during an across type move operation to ${target}. Write-only attributes cannot be read back from the provider. This is a bug in the provider, which should be reported in the provider's own issue tracker.`,
    );
    diags.push(...wo);
    if (wo.length) continue;
    if (isNil(resp.targetState)) {
      diags.push(error('Provider returned invalid value', `The provider returned an invalid value during an across type move operation to ${target}. This is a bug in the relevant provider; Please report it.`, stmt.range));
      continue;
    }
    if (!resp.targetState.isWhollyKnown) {
      diags.push(
        error(
          'Provider returned invalid value',
          `The provider ${n.providerAddr} returned an invalid value during an across type move operation: The returned state contains unknown values. This is a bug in the relevant provider; Please report it.`,
          stmt.range,
        ),
      );
    }
    const conf = valueConformsToSchema(schema.block, resp.targetState);
    if (conf.length) {
      diags.push(error('Failed to encode source value', `Terraform failed to encode the value in state for ${instanceAddrString(addr)}: ${formatError(conf[0])}. This is a bug in Terraform; Please report it.`, stmt.range));
      continue;
    }
    const obj = encodeObject(unknownAsNull(markObject(resp.targetState, schema)), schema, {
      status: src.status,
      dependencies: src.dependencies,
      createBeforeDestroy: src.createBeforeDestroy,
      private: resp.targetPrivate,
    });
    applyChange(state, { op: 'current', addr, obj, provider: n.providerAddr });
  }
  return diags;
}

/** create_before_destroy as the resource sets it, or forced by a dependent that has it (plan and apply agree). */
export function createBeforeDestroy(built: ReturnType<typeof buildConfigGraph>, r: Resource, path: string): boolean {
  return built.forcedCBD.has(configResourceAddr(path, configResourceKey(r))) || lifecycleFlag(r.lifecycle?.createBeforeDestroy);
}

/** A lifecycle flag (a literal: meta-arguments refer to nothing): true only when it evaluates to a known true. */
function lifecycleFlag(e: { ast: Parameters<typeof evaluate>[0] } | undefined): boolean {
  if (!e) return false;
  const v = evaluate(e.ast, { funcCtx: { baseDir: '.', planning: true, console: false }, resolve: () => ({ variables: new Map(), diagnostics: [] }) }).value;
  return v.isKnown && !v.isNull && v.type.kind === 'bool' && v.bool;
}

export function preventDestroyDiag(addr: InstanceAddr, r: Resource): Diagnostic {
  return error(
    'Instance cannot be destroyed',
    `Resource ${instanceAddrString(addr)} has lifecycle.prevent_destroy set, but the plan calls for this resource to be destroyed. To avoid this error and continue with the plan, either disable lifecycle.prevent_destroy or reduce the scope of the plan using the -target option.`,
    r.declRange,
  );
}

function decodeOutput(valueJSON: string, typeJSON: string): Value {
  let t;
  try {
    t = unmarshalType(typeJSON);
  } catch {
    return Value.null();
  }
  const r = unmarshal(valueJSON, t);
  return r.value ?? Value.null();
}

function sameJSON(a: Value, b: Value): boolean {
  try {
    return marshal(a) === marshal(b) && marshalType(a.type) === marshalType(b.type);
  } catch {
    return false;
  }
}

/**
 * A change's instance address string, kept per change: a plan that replays another's changes (PlanReuse) adds the
 * same change objects again. (Changes are never mutated; a moved one is a copy with the same address.)
 */
const changeAddrs = new WeakMap<ResourceInstanceChange, string>();
function changeAddrString(c: ResourceInstanceChange): string {
  let a = changeAddrs.get(c);
  if (a === undefined) changeAddrs.set(c, (a = instanceAddrString(c.addr)));
  return a;
}

/** Terraform's Context.Plan. */
export async function runPlan(opts: PlanOptions): Promise<PlanResult> {
  const started = (opts.now ?? (() => new Date()))();
  const built = buildConfigGraph(opts.config);
  const pl = new Planner(opts, built);
  const diags = pl.diagnostics;
  diags.push(...built.diagnostics, ...cycleDiagnostics(built.graph));

  // Root variables.
  if (opts.variableValues) {
    for (const [k, v] of opts.variableValues) pl.variableValues.set(k, v);
    for (const [k, v] of opts.setVariables ?? []) pl.setVariables.set(k, v);
  } else {
    for (const [k, iv] of opts.inputs ?? []) if (iv.value !== undefined && iv.source !== 'config' && opts.config.variables.has(k)) pl.setVariables.set(k, iv.value);
    const fin = finalizeRootVariables(opts.config, opts.inputs ?? new Map());
    diags.push(...fin.diagnostics);
    for (const [k, v] of fin.inputs.values) pl.variableValues.set(k, v);
  }
  for (const [k, v] of pl.variableValues) pl.ctx.rootInstance.vars.set(k, v);

  // Providers used by the configuration and the state.
  const fqns = new Set<string>();
  for (const [, n] of built.graph.entries()) if (n.kind === 'provider') fqns.add(n.fqn);
  for (const [, rs] of opts.state.allResources()) fqns.add(fqnOfProviderAddr(rs.provider));
  if (!hasErr(diags)) await pl.ctx.loadProviders(fqns);

  if (pl.targets.length) pl.targeted = targetedNodes(pl, built);
  if (pl.targets.length && pl.mode === 'destroy') pl.destroyRefresh = preDestroyRefreshSet(pl, built);
  diags.push(...removedStillConfigured(opts.config));
  for (const ib of opts.config.imports) {
    if (!ib.to || !ib.id || ib.forEach) continue;
    const t = parseTarget(ib.to.text.trim());
    if (!t?.resource) continue;
    const idv = pl.ctx.eval(ib.id.ast, pl.ctx.rootInstance, {}, diags);
    if (!idv.isKnown || idv.isNull || idv.type.kind !== 'string') {
      if (!hasErr(diags)) diags.push(error('Invalid import id argument', 'The import ID cannot be null.', ib.id.range));
      continue;
    }
    pl.imports.set(instanceAddrString({ module: t.module, ...t.resource, key: t.key?.value }), idv.unmark()[0].str);
  }
  let moveDiags: Diagnostic[] = [];
  if (!hasErr(diags) && pl.mode !== 'destroy') {
    const mv = await applyMoves(opts.config, pl.refreshState.state, (stmt, from, to, keys) => crossTypeMove(pl, built, stmt, from, to, keys));
    // Terraform validates move statements after the plan walk (postPlanValidateMoves): refresh still runs.
    moveDiags = mv.diagnostics;
    pl.moved = mv.moved;
  }

  if (!hasErr(diags)) {
    // State-only providers need configuring too (for refresh and destroy of orphans).
    for (const fqn of fqns) {
      const e = pl.ctx.providers.get(fqn);
      if (e && !pl.ctx.configured.has(providerConfigAddr(fqn)) && !built.graph.has(`provider\u0000\u0000${providerConfigAddr(fqn)}`)) {
        await pl.ctx.configureProvider({ kind: 'provider', fqn, name: fqn.split('/').pop()! });
      }
    }
    const reuse = opts.reuse;
    // A resource replayed from the earlier plan finishes at once (walk's synchronous answers); nothing else does.
    const exec = reuse
      ? (k: string, n: Node): boolean | Promise<boolean> => {
          if (n.kind === 'resource' && !(pl.targeted && !pl.targeted.has(k)) && pl.replayResource(k, n)) {
            reuse.done(k, n, true, pl.ctx, pl.effects.get(n), true);
            return true;
          }
          return pl.exec(k, n).then((ok) => {
            reuse.done(k, n, ok, pl.ctx, pl.effects.get(n), pl.replayed.has(n));
            return ok;
          });
        }
      : (k: string, n: Node) => pl.exec(k, n);
    await walk(built.graph, exec, { signal: opts.signal, order: displayOrder(built.graph), concurrency: pl.ctx.startLimit });
    if (!hasErr(diags) || pl.changes.length) await pl.planStateOrphans();
  }
  if (pl.forgotten.length) {
    diags.push(
      warning(
        'Some objects will no longer be managed by Terraform',
        `If you apply this plan, Terraform will discard its tracking information for the following objects, but it will not delete them:\n${pl.forgotten
          .sort()
          .map((a) => ` - ${a}`)
          .join('\n')}\n\nAfter applying this plan, Terraform will no longer manage these objects. You will need to import them into Terraform to manage them again.`,
      ),
    );
  }
  if (pl.targets.length && !hasErr(diags)) {
    diags.push(
      warning(
        'Resource targeting is in effect',
        'You are creating a plan with the -target option, which means that the result of this plan may not represent all of the changes requested by the current configuration.\n\nThe -target option is not for routine use, and is provided only for exceptional situations such as recovering from errors or mistakes, or when Terraform specifically suggests to use it as part of an error message.',
      ),
    );
  }

  // Root outputs no longer in configuration are deleted.
  if (pl.mode !== 'refresh-only') {
    for (const [name, prev] of pl.prevRunState.outputs) {
      if (opts.config.outputs.has(name)) continue;
      let before = decodeOutput(prev.valueJSON, prev.typeJSON);
      if (prev.sensitive) before = before.mark('sensitive');
      pl.outputs.push({ addr: `output.${name}`, module: '', name, action: 'Delete', before, after: Value.null(), sensitive: prev.sensitive });
    }
  }
  pl.outputs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  if (hasErr(moveDiags)) {
    // Invalid move statements take precedence over everything else, and there is no plan.
    diags.splice(0, diags.length, ...moveDiags);
    pl.changes.length = 0;
    pl.outputs.length = 0;
    pl.drift.length = 0;
  } else diags.push(...moveDiags);

  pl.ctx.declareRemainingChecks();
  const priorState = await pl.refreshState.close();
  const changes = pl.changes.slice().sort(compareResourceInstanceChanges);
  const errored = hasErr(diags);
  // As plans.Changes.Empty: an import or a move is a change to apply even when the action is NoOp.
  const anyChange =
    changes.some((c) => c.action !== 'NoOp' || c.importing !== undefined || instanceAddrString(c.prevRunAddr) !== instanceAddrString(c.addr)) ||
    pl.outputs.some((o) => o.action !== 'NoOp');
  const applyable = !errored && (pl.mode === 'refresh-only' ? pl.drift.length > 0 || pl.outputs.some((o) => o.action !== 'NoOp') : anyChange);
  const schemas = new Map([...pl.ctx.providers].map(([k, e]) => [k, e.schema]));
  const plan: Plan = {
    uiMode: pl.mode,
    variableValues: pl.variableValues,
    setVariables: pl.setVariables,
    changes: pl.mode === 'refresh-only' ? [] : changes,
    outputs: pl.outputs,
    driftedResources: pl.drift.sort(compareResourceInstanceChanges),
    movedFrom: new Map([...pl.moved].map(([k, v]) => [k, instanceAddrString(v)])),
    prevRunState: pl.prevRunState,
    priorState,
    targets: opts.targets ?? [],
    forceReplace: opts.forceReplace ?? [],
    applyable,
    errored,
    complete: !errored && (opts.targets ?? []).length === 0,
    checks: pl.ctx.checks.results(),
    timestamp: rfc3339(started),
    schemas,
    diagnostics: diags,
  };
  const patchable =
    opts.keepSession && opts.reuse && !errored && pl.mode === 'normal' && !pl.targets.length && !pl.forceReplace.length && !pl.imports.size && !pl.moved.size && !pl.forgotten.length && !pl.drift.length && !opts.signal?.aborted;
  return { plan, diagnostics: diags, ...(patchable ? { session: new PlanSession(pl, built, plan) } : {}) };
}

/** Up to how many changes a patch looks for by identity in a plain loop (positionIn) rather than in a set or map. */
const FEW_CHANGES = 8;

/** The position of `x` in the short list `few` by identity, or -1 (a plain loop: nothing in the lists is read). */
function positionIn<T>(few: readonly T[], x: T): number {
  for (let k = 0; k < few.length; k++) if (few[k] === x) return k;
  return -1;
}

/** The positions where a patched plan's change list differs from the list it was patched from (PlanSession.replan). */
const patchPositions = new WeakMap<readonly ResourceInstanceChange[], { from: readonly ResourceInstanceChange[]; at: number[] }>();

/**
 * The positions at which `changes` holds another object than `from` (lists of the same length): recorded by the
 * patch that made `changes` from `from`, else found by comparing the two lists.
 */
export function changedPositions(changes: readonly ResourceInstanceChange[], from: readonly ResourceInstanceChange[]): readonly number[] {
  const known = patchPositions.get(changes);
  if (known && known.from === from) return known.at;
  const at: number[] = [];
  for (let i = 0; i < changes.length; i++) if (changes[i] !== from[i]) at.push(i);
  return at;
}

/**
 * A completed plan kept for patching (PlanOptions.keepSession; the editor's preview): after an edit that changes only
 * the bodies of some managed resources (the same references, meta-arguments and declarations everywhere), `replan`
 * plans those resources and what depends on them again, in the walk's context (the values of everything else), and
 * gives the plan with their changes replaced: the plan a full walk would make, without walking 5,000 nodes. It
 * refuses (undefined) whenever something affected is not a managed resource whose whole effect on the plan is its
 * values and changes (a local, an output, a module, a check, conditions, diagnostics...); the session is then spent
 * (`spent`), and the caller makes a full plan. The caller checks that nothing else changed (configuration, state,
 * variables, providers).
 */
export class PlanSession {
  private dependents: Map<string, string[]> | undefined;
  /** Set once a replan failed: the walk's context no longer matches `plan`. */
  spent = false;

  constructor(
    private readonly pl: Planner,
    readonly built: BuiltGraph,
    public plan: Plan,
  ) {}

  /** The walk's context (values of every module instance), for the caller's reuse records. */
  get ctx(): WalkContext {
    return this.pl.ctx;
  }

  /**
   * The nodes a re-plan of `keys` plans: them and their transitive dependents, each after its dependencies; undefined
   * when one of them is not a managed resource with recorded effects.
   */
  affected(keys: Iterable<string>): string[] | undefined {
    const g = this.built.graph;
    const deps = (this.dependents ??= g.dependents());
    const set = new Set<string>();
    const stack = [...keys];
    while (stack.length) {
      const k = stack.pop()!;
      if (set.has(k)) continue;
      const n = g.get(k);
      if (!n || n.kind !== 'resource' || n.res.mode !== 'managed' || !this.pl.effects.has(n)) return undefined;
      set.add(k);
      for (const d of deps.get(k) ?? []) stack.push(d);
    }
    const pending = new Map<string, number>();
    const ready: string[] = [];
    for (const k of set) {
      let c = 0;
      for (const d of g.dependencies(k)) if (set.has(d)) c++;
      pending.set(k, c);
      if (c === 0) ready.push(k);
    }
    const order: string[] = [];
    while (ready.length) {
      const k = ready.pop()!;
      order.push(k);
      for (const d of deps.get(k) ?? []) {
        const c = pending.get(d);
        if (c === undefined) continue;
        pending.set(d, c - 1);
        if (c === 1) ready.push(d);
      }
    }
    return order.length === set.size ? order : undefined;
  }

  /**
   * Plans the nodes `order` (from `affected`) again, the ones in `changed` with their new Resource, and returns the
   * patched plan (also `this.plan`); `done` receives each re-planned node and its effects. Undefined when a node could
   * not be re-planned to effects alone: the session is spent. It is not interrupted half-way (it plans a few
   * resources; a caller wanting a newer patch waits for it).
   */
  async replan(
    order: readonly string[],
    changed: ReadonlyMap<string, Resource>,
    done?: (key: string, n: Extract<Node, { kind: 'resource' }>, effects: ResourceEffects) => void,
  ): Promise<Plan | undefined> {
    if (this.spent) return undefined;
    const g = this.built.graph;
    const replaced = new Map<ResourceInstanceChange, ResourceInstanceChange>();
    const dropped = new Set<ResourceInstanceChange>();
    this.spent = true;
    /** Effects before and after of the nodes planned again. */
    const replanned = new Map<string, { before: ResourceEffects; after: ResourceEffects }>();
    for (const k of order) {
      const old = g.get(k) as Extract<Node, { kind: 'resource' }>;
      const r = changed.get(k);
      // A dependent is planned again only when something it reads of a node planned again reads differently.
      if (!r && ![...g.dependencies(k)].some((d) => replanned.has(d) && this.readsChanged(old, d, replanned.get(d)!))) continue;
      const n = r ? { ...old, res: r } : old;
      const before = this.pl.effects.get(old);
      const out = await this.pl.replanResource(old, n);
      if (!out || out.dropped.length !== out.effects.changes.length) return undefined;
      for (let i = 0; i < out.dropped.length; i++) {
        const a = out.dropped[i];
        const b = out.effects.changes[i];
        if (changeAddrString(a) !== changeAddrString(b)) return undefined;
        replaced.set(a, b);
        dropped.add(a);
      }
      if (n !== old) g.add(k, n);
      replanned.set(k, { before: before!, after: out.effects });
      done?.(k, n, out.effects);
    }
    this.pl.dropChanges(dropped);
    // (As in dropChanges: a few replaced changes are looked for by identity, without reading every change.)
    let changes: ResourceInstanceChange[];
    if (replaced.size > FEW_CHANGES) changes = this.plan.changes.map((c) => replaced.get(c) ?? c);
    else {
      const olds = [...replaced.keys()];
      const news = olds.map((c) => replaced.get(c)!);
      changes = this.plan.changes.slice();
      const at: number[] = [];
      for (let i = 0; i < changes.length; i++) {
        const k = positionIn(olds, changes[i]);
        if (k >= 0) {
          changes[i] = news[k];
          at.push(i);
        }
      }
      patchPositions.set(changes, { from: this.plan.changes, at });
    }
    const anyChange =
      changes.some((c) => c.action !== 'NoOp' || c.importing !== undefined || (c.prevRunAddr !== c.addr && instanceAddrString(c.prevRunAddr) !== instanceAddrString(c.addr))) ||
      this.plan.outputs.some((o) => o.action !== 'NoOp');
    this.plan = { ...this.plan, changes, applyable: !this.plan.errored && anyChange, timestamp: rfc3339((this.pl.opts.now ?? (() => new Date()))()) };
    this.spent = false;
    this.replannedCount = replanned.size;
    return this.plan;
  }

  /** How many nodes the last replan planned again (the others of its order read nothing that changed). */
  replannedCount = 0;

  /**
   * Whether resource node `n` reads something of node `dep` that differs between `before` and `after`: the top-level
   * attributes its references name (`aws_x.y.id`, `aws_x.y[0].id`), or the whole object where a reference names no
   * attribute statically. A replace_triggered_by always counts (it reads `dep`'s planned action).
   */
  private readsChanged(n: Extract<Node, { kind: 'resource' }>, dep: string, x: { before: ResourceEffects; after: ResourceEffects }): boolean {
    if (n.res.lifecycle?.replaceTriggeredBy?.length) return true;
    const attrs = new Set<string | undefined>();
    for (const e of resourceExpressions(n.res)) {
      for (const ref of e.refs) {
        if (this.built.referenceTarget(n.mod, ref) !== dep) continue;
        let i = ref.root === 'resource' ? 2 : 1;
        if (ref.steps[i]?.kind === 'index') i++;
        const s = ref.steps[i];
        attrs.add(s?.kind === 'attr' ? s.name : undefined);
      }
    }
    const { before, after } = x;
    if (before.values.size !== after.values.size) return true;
    for (const [addr, b] of after.values) {
      const a = before.values.get(addr);
      if (!a || !sameExpansion(a, b) || a.instances.size !== b.instances.size) return true;
      for (const [key, v] of b.instances) {
        const u = a.instances.get(key);
        if (!u) return true;
        for (const attr of attrs) if (!sameAttribute(u, v, attr)) return true;
      }
    }
    return false;
  }
}

/** Values equal as a plan reads them: type, knownness, marks, refinements, data and element order. */
export function sameValue(a: Value, b: Value): boolean {
  return a === b || (exactEq(a, b) && rawEquals(a, b));
}

/** Attribute `attr` of two objects reads the same (the whole values when `attr` is undefined or either is not a known object). */
function sameAttribute(a: Value, b: Value, attr: string | undefined): boolean {
  if (a === b) return true;
  const objects = attr !== undefined && a.isKnown && b.isKnown && !a.isNull && !b.isNull && a.type.kind === 'object' && b.type.kind === 'object';
  if (!objects || a.marks.size || b.marks.size) return sameValue(a, b);
  const x = (a.data as ReadonlyMap<string, Value>).get(attr);
  const y = (b.data as ReadonlyMap<string, Value>).get(attr);
  return x !== undefined && y !== undefined ? sameValue(x, y) : sameValue(a, b);
}

/** Two resource values were expanded the same (kind, count, for_each keys and values). */
export function sameExpansion(a: ResourceValues, b: ResourceValues): boolean {
  const x = a.expansion;
  const y = b.expansion;
  if (x.kind !== y.kind) return false;
  if (x.kind === 'count' && y.kind === 'count') return x.n === y.n;
  if (x.kind === 'foreach' && y.kind === 'foreach') {
    if (x.entries.size !== y.entries.size) return false;
    for (const [k, v] of x.entries) {
      const w = y.entries.get(k);
      if (!w || !sameValue(v, w)) return false;
    }
  }
  return true;
}

/** The resources a -destroy -target plan refreshes: the targets and, whole, the resources they depend on. */
function preDestroyRefreshSet(pl: Planner, built: ReturnType<typeof buildConfigGraph>): { direct: Set<string>; deps: Set<string> } {
  const addrOf = new Map<string, string>();
  for (const [addr, k] of built.resourceNodes) addrOf.set(k, addr);
  const direct = new Set<string>();
  const deps = new Set<string>();
  const stack: string[] = [];
  for (const [addr, k] of built.resourceNodes) {
    if (pl.targets.some((t) => t.configPrefix.length === 0 || addr === t.configAddr || (t.isModule && addr.startsWith(t.configAddr + '.')))) {
      direct.add(addr);
      stack.push(k);
    }
  }
  const seen = new Set<string>();
  while (stack.length) {
    const k = stack.pop()!;
    if (seen.has(k)) continue;
    seen.add(k);
    for (const d of built.graph.dependencies(k)) {
      const a = addrOf.get(d);
      if (a !== undefined) deps.add(a);
      stack.push(d);
    }
  }
  return { direct, deps };
}

/** Resource nodes selected by -target and everything they depend on. */
function targetedNodes(pl: Planner, built: ReturnType<typeof buildConfigGraph>): Set<string> {
  const out = new Set<string>();
  const stack: string[] = [];
  for (const [addr, k] of built.resourceNodes) {
    const n = built.graph.get(k) as Extract<Node, { kind: 'resource' }>;
    void n;
    if (pl.targets.some((t) => t.configPrefix.length === 0 || addr === t.configAddr || (t.isModule && addr.startsWith(t.configAddr + '.')))) {
      stack.push(k);
      pl.directlyTargeted.add(k);
    }
  }
  // Planning: the targets and what they depend on. Destroying: the targets and what depends on them.
  const dependents = pl.mode === 'destroy' ? built.graph.dependents() : undefined;
  while (stack.length) {
    const k = stack.pop()!;
    if (out.has(k)) continue;
    out.add(k);
    for (const d of dependents ? dependents.get(k) ?? [] : built.graph.dependencies(k)) stack.push(d);
  }
  if (dependents) {
    // Non-resource nodes (values, providers) still evaluate; only resources are limited.
    for (const [k, n] of built.graph.entries()) if (n.kind !== 'resource') out.add(k);
    return out;
  }
  // TargetsTransformer: a root module output is kept when it depends on at least one resource and every resource it
  // depends on is kept (outputs cannot be targeted themselves); then so is all it depends on. The walk stops at
  // resources: what a kept resource depends on is kept already.
  for (const [k, n] of built.graph.entries()) {
    if (n.kind !== 'output' || n.path !== '') continue;
    const seen = new Set<string>();
    const st = [...built.graph.dependencies(k)];
    let found = 0;
    while (st.length) {
      const d = st.pop()!;
      if (seen.has(d)) continue;
      seen.add(d);
      const dn = built.graph.get(d)!;
      if (dn.kind === 'resource') {
        if (!out.has(d)) {
          found = 0;
          break;
        }
        found++;
        continue;
      }
      for (const x of built.graph.dependencies(d)) st.push(x);
    }
    if (found > 0) {
      out.add(k);
      for (const d of seen) out.add(d);
    }
  }
  return out;
}

export { providerFqn, marshal };
