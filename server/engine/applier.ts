// The apply walk (Terraform's Context.Apply with the apply graph): the configuration graph of the plan walk plus
// destroy nodes, re-evaluation of each resource's configuration with the values learned so far, the second
// PlanResourceChange and its compatibility check with the saved plan, ApplyResourceChange and its result check,
// state written through SyncState as each object completes (the local backend's journal makes it durable).
//
// Ordering (DestroyEdgeTransformer's rules, as graph edges):
// - `destroy` node of R (pure deletes: orphans, -destroy, deposed objects of create_before_destroy replacements)
//   runs after the destroy nodes of every resource that depends on R (state dependencies), after the apply of every
//   resource whose prior state depends on R, and after R's own apply when R has create_before_destroy replacements.
// - `replace-destroy` node of R (the delete half of delete-then-create) runs before R's apply and after the
//   destroy nodes of R's dependents.
//
// Failures: a failed create leaves the object the provider returned as tainted; a create_before_destroy create that
// fails restores the deposed object as current when no new object exists; dependents of a failed node are skipped.
// Cancellation (`signal`, Terraform's Context.Stop and its stopHook): the Stopping hook runs at once; the walk goes
// on, but every instance that reaches its first hook afterwards ends there with "execution halted" (nothing is
// called; a destroy still announces itself first, as Terraform's UI hook runs before the stop hook), and a provider
// call in flight (the providers were sent StopProvider) finishes and is persisted, then its PostApply and state-update
// hooks add one "execution halted" each (engine/hooks.ts haltedDiagnostic).

import type { Diagnostic } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type { Module } from '../config/model';
import { resourceKey as configResourceKey } from '../config/model';
import { evaluate } from '../lang/eval';
import { Value } from '../lang/value';
import { walk } from '../graph/graph';
import { runLimited } from '../graph/semaphore';
import { proposedNew } from '../plans/objchange/proposed';
import { assertPlanValid, invalidPlanDiagnostics } from '../plans/objchange/valid';
import { exactEq } from '../plans/objchange/values';
import type { Action, Plan, ResourceInstanceChange } from '../plans/plan';
import { markWithPaths, unmarkDeepWithPaths } from '../providers/marks';
import { DEFAULT_CLIENT_CAPABILITIES } from '../providers/provider';
import type { Schema } from '../providers/schema';
import { impliedType } from '../providers/schema';
import type { ChangeListener, InstanceAddr, State } from '../states/state';
import { instanceAddrString, instanceKeyString, resourceKey, SyncState } from '../states/state';
import { marshal, marshalType } from './ctyjson';
import { decodeBody } from './decode';
import { haltedDiagnostic, type Hooks } from './hooks';
import type { ModuleInstance, Node, ProviderFactory, ResourceValues } from './context';
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
  nodeKey,
  privateBytes,
  providerConfigAddr,
  repetitionFor,
  staticPath,
  WalkContext,
} from './context';
import { createBeforeDestroy, fqnOfProviderAddr, preventDestroyDiag, withAddr } from './planner';
import { applyIgnoreChanges } from './lifecycle';
import { checkAppliedState, checkDataSourceResult, checkDestroyPlannedState, checkFinalPlan, checkPlannedState, checkReplacePlannedState, requiredReplaces, unexpectedDeferral } from './contracts';

export interface ApplyOptions {
  config: Module;
  providers: ProviderFactory;
  cwd: string;
  workspace?: string;
  parallelism?: number;
  hooks?: Hooks;
  /** Receives every state change as it happens (the local backend's journal). */
  listener?: ChangeListener;
  signal?: AbortSignal;
}

export interface ApplyResult {
  state: State;
  diagnostics: Diagnostic[];
}

const hasErr = (ds: readonly Diagnostic[]) => ds.some((d) => d.severity === 'error');

class Applier {
  readonly ctx: WalkContext;
  readonly sync: SyncState;
  readonly hooks: Hooks;
  /** node key -> changes it applies */
  readonly byNode = new Map<string, ResourceInstanceChange[]>();
  readonly changeByAddr = new Map<string, ResourceInstanceChange>();
  /** deposed keys created during this apply for create_before_destroy, by instance address */
  readonly newDeposed = new Map<string, string>();

  constructor(
    readonly plan: Plan,
    readonly opts: ApplyOptions,
    readonly built: ReturnType<typeof buildConfigGraph>,
  ) {
    this.hooks = opts.hooks ?? {};
    this.ctx = new WalkContext(
      { root: opts.config, cwd: opts.cwd, workspace: opts.workspace ?? 'default', providers: opts.providers, parallelism: opts.parallelism ?? 10, hooks: this.hooks, signal: opts.signal, planning: false },
      built,
    );
    this.sync = new SyncState(plan.priorState.deepCopy(), opts.listener);
    this.ctx.state = this.sync.state;
    for (const c of plan.changes) if (c.deposedKey === undefined) this.changeByAddr.set(instanceAddrString(c.addr), c);
  }

  get diagnostics(): Diagnostic[] {
    return this.ctx.diagnostics;
  }

  schema(c: ResourceInstanceChange): Schema | undefined {
    return this.ctx.schemaOf(fqnOfProviderAddr(c.providerAddr), c.addr.mode, c.addr.type);
  }

  // ---- graph --------------------------------------------------------------------------------------------------

  /** Adds destroy nodes and their edges to the configuration graph. */
  addDestroyNodes(): void {
    const g = this.built.graph;
    const depsOf = new Map<string, Set<string>>(); // abs resource addr -> resources it depends on (state + config)
    for (const [m, rs] of this.sync.state.allResources()) {
      const a = configResourceAddr(staticPath(m.addr), resourceKey(rs));
      const s = depsOf.get(a) ?? new Set<string>();
      for (const is of rs.instances.values()) {
        for (const d of is.current?.dependencies ?? []) s.add(d);
        for (const o of is.deposed.values()) for (const d of o.dependencies) s.add(d);
      }
      depsOf.set(a, s);
    }
    for (const [a, ds] of this.built.resourceDeps.entries()) {
      const s = depsOf.get(a) ?? new Set<string>();
      for (const d of ds) s.add(d);
      depsOf.set(a, s);
    }
    const destroyKey = (a: string) => nodeKey('destroy', '', a);
    const replaceKey = (a: string) => nodeKey('replace-destroy', '', a);
    const cbd = new Set<string>();
    for (const c of this.plan.changes) {
      const a = configResourceAddr(staticPath(c.addr.module), resourceKey(c.addr));
      const fqn = fqnOfProviderAddr(c.providerAddr);
      const provKey = nodeKey('provider', '', c.providerAddr);
      const resNode = this.built.resourceNodes.get(a);
      let k: string | undefined;
      if (c.action === 'Delete' || c.action === 'Forget') k = destroyKey(a);
      else if (c.action === 'DeleteThenCreate') {
        k = replaceKey(a);
        if (!g.has(k)) g.add(k, { kind: 'destroy', absAddr: a, fqn, providerAddr: c.providerAddr, replace: true });
        this.push(k, c);
        if (resNode) this.push(resNode, c);
        continue;
      } else if (c.action === 'CreateThenDelete') {
        cbd.add(a);
        k = destroyKey(a);
        if (!g.has(k)) g.add(k, { kind: 'destroy', absAddr: a, fqn, providerAddr: c.providerAddr, replace: false });
        if (resNode) this.push(resNode, c);
        this.push(k, c);
        continue;
      } else {
        if (resNode) this.push(resNode, c);
        continue;
      }
      if (!g.has(k)) g.add(k, { kind: 'destroy', absAddr: a, fqn, providerAddr: c.providerAddr, replace: false });
      if (g.has(provKey)) g.connect(k, provKey);
      this.push(k, c);
    }
    // Edges, through the reverse index (resource -> resources depending on it) so this stays O(V+E).
    const dependentsOf = new Map<string, string[]>();
    for (const [x, ds] of depsOf) {
      for (const d of ds) {
        const l = dependentsOf.get(d) ?? [];
        l.push(x);
        dependentsOf.set(d, l);
      }
    }
    for (const [k, n] of [...g.entries()]) {
      if (n.kind !== 'destroy') continue;
      const provKey = nodeKey('provider', '', n.providerAddr);
      if (g.has(provKey)) g.connect(k, provKey);
      else if (g.has(nodeKey('provider', '', providerConfigAddr(n.fqn)))) g.connect(k, nodeKey('provider', '', providerConfigAddr(n.fqn)));
      const r = n.absAddr;
      const res = this.built.resourceNodes.get(r);
      if (n.replace) {
        if (res) g.connect(res, k);
      } else if (res && cbd.has(r)) g.connect(k, res);
      for (const x of dependentsOf.get(r) ?? []) {
        if (x === r) continue;
        if (g.has(destroyKey(x))) g.connect(k, destroyKey(x));
        if (g.has(replaceKey(x))) g.connect(k, replaceKey(x));
        const xr = this.built.resourceNodes.get(x);
        if (!n.replace && xr && g.has(xr)) g.connect(k, xr);
      }
    }
  }

  private push(k: string, c: ResourceInstanceChange): void {
    const l = this.byNode.get(k) ?? [];
    l.push(c);
    this.byNode.set(k, l);
  }

  // ---- execution ----------------------------------------------------------------------------------------------

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
      case 'check': {
        const c = n.mod.checks[n.index];
        const diags: Diagnostic[] = [];
        for (const inst of this.ctx.instancesOf(n.path)) {
          this.ctx.runConditions('check', c.asserts, inst, {}, undefined, `${n.path ? n.path + '.' : ''}check.${c.name}`, `${inst.addr ? inst.addr + '.' : ''}check.${c.name}`, diags);
        }
        this.diagnostics.push(...diags);
        return true;
      }
      case 'output':
        return this.applyOutput(n);
      case 'resource':
        return this.applyResource(key, n);
      case 'destroy':
        return this.applyDestroys(key, n);
    }
  }

  private applyOutput(n: Extract<Node, { kind: 'output' }>): boolean {
    const o = n.mod.outputs.get(n.name)!;
    const diags: Diagnostic[] = [];
    for (const inst of this.ctx.instancesOf(n.path)) {
      if (this.plan.uiMode === 'destroy') {
        // A targeted destroy plans no output change (planner.ts), and the outputs stay in state as in Terraform.
        if (inst.addr === '' && this.plan.targets.length === 0) this.sync.setOutputValue(n.name, null);
        continue;
      }
      // A targeted plan only re-evaluates the root outputs it planned.
      if (inst.addr === '' && this.plan.targets.length > 0 && !this.plan.outputs.some((x) => x.name === n.name)) continue;
      const cfg = `${n.path ? n.path + '.' : ''}output.${o.name}`;
      const obj = `${inst.addr ? inst.addr + '.' : ''}output.${o.name}`;
      if (!this.ctx.runConditions('output-pre', o.preconditions, inst, {}, undefined, cfg, obj, diags)) continue;
      const v = o.value ? this.ctx.eval(o.value.ast, inst, {}, diags) : Value.null();
      inst.outputs.set(n.name, v);
      if (inst.addr !== '' || hasErr(diags)) continue;
      const [u] = v.unmarkDeep();
      if (u.isNull) this.sync.setOutputValue(n.name, null);
      else if (u.isWhollyKnown) this.sync.setOutputValue(n.name, { valueJSON: marshal(u), typeJSON: marshalType(u.type), sensitive: o.sensitive });
    }
    this.diagnostics.push(...diags);
    return !hasErr(diags);
  }

  private async applyResource(key: string, n: Extract<Node, { kind: 'resource' }>): Promise<boolean> {
    const r = n.res;
    const schema = this.ctx.schemaOf(n.fqn, r.mode, r.type);
    if (!schema) return false;
    const changes = new Map<string, ResourceInstanceChange>();
    for (const c of this.byNode.get(key) ?? []) if (c.deposedKey === undefined) changes.set(instanceAddrString(c.addr), c);
    const diags: Diagnostic[] = [];
    // Started at most ctx.startLimit at a time (runLimited): an instance's apply call then queues behind the
    // second plans of a few instances, not of all of them.
    const tasks: (() => Promise<boolean>)[] = [];
    for (const inst of this.ctx.instancesOf(n.path)) {
      const e = this.plan.uiMode === 'destroy' ? { kind: 'single' as const } : this.ctx.expand(inst, r.count, r.forEach, diags);
      const rv: ResourceValues = { expansion: e, instances: new Map() };
      inst.resources.set(configResourceKey(r), rv);
      for (const k of expansionKeys(e)) {
        const addr = instAddr(inst.addr, r, k);
        const c = changes.get(instanceAddrString(addr));
        const ks = instanceKeyString(k);
        if (c?.importing && !this.sync.state.object(addr)) {
          // The object imported during plan enters the state now.
          this.hooks.preApplyImport?.(addr, c.importing.id);
          this.sync.setResourceInstanceCurrent(
            addr,
            encodeObject(c.before, schema, { status: 'ready', dependencies: this.built.resourceDeps.get(configResourceAddr(n.path, configResourceKey(r))) ?? [], createBeforeDestroy: false, private: c.private }),
            c.providerAddr,
          );
          this.hooks.postApplyImport?.(addr, c.importing.id);
        }
        if (!c || c.action === 'NoOp' || c.action === 'Delete' || c.action === 'Forget') {
          const o = this.sync.state.object(addr);
          const v = o ? decodeObject(o, schema) : undefined;
          if (v) rv.instances.set(ks, v);
          if (c && c.action === 'NoOp' && v) {
            const rep = repetitionFor(e, k);
            const cfgAddr = configResourceAddr(n.path, configResourceKey(r));
            const ok =
              this.ctx.runConditions('resource-pre', r.lifecycle?.preconditions ?? [], inst, rep, undefined, cfgAddr, instanceAddrString(addr), diags) &&
              this.ctx.runConditions('resource-post', r.lifecycle?.postconditions ?? [], inst, rep, v, cfgAddr, instanceAddrString(addr), diags);
            if (!ok) rv.instances.delete(ks);
          }
          continue;
        }
        const rep = repetitionFor(e, k);
        tasks.push(() =>
          this.applyInstance(n, inst, addr, c, schema, diags, rep).then((v) => {
            if (v) rv.instances.set(ks, v);
            return v !== undefined;
          }),
        );
      }
    }
    const res = await runLimited(tasks, this.ctx.startLimit);
    this.diagnostics.push(...diags);
    return res.every((x) => x) && !hasErr(diags);
  }

  /** Runs one instance's apply holding a -parallelism slot; after cancellation nothing new starts. */
  private applyInstance(
    n: Extract<Node, { kind: 'resource' }>,
    inst: ModuleInstance,
    addr: InstanceAddr,
    c: ResourceInstanceChange,
    schema: Schema,
    outDiags: Diagnostic[],
    rep: ReturnType<typeof repetitionFor>,
  ): Promise<Value | undefined> {
    return this.ctx.sem.run(async () => {
      // Terraform halts such an instance at its second plan's PreDiff hook, which prints nothing.
      if (this.opts.signal?.aborted) return void outDiags.push(haltedDiagnostic());
      return this.applyInstanceLocked(n, inst, addr, c, schema, outDiags, rep);
    });
  }

  private async applyInstanceLocked(
    n: Extract<Node, { kind: 'resource' }>,
    inst: ModuleInstance,
    addr: InstanceAddr,
    c: ResourceInstanceChange,
    schema: Schema,
    outDiags: Diagnostic[],
    rep: ReturnType<typeof repetitionFor>,
  ): Promise<Value | undefined> {
    const r = n.res;
    const diags: Diagnostic[] = [];
    const p = { provider: this.ctx.providerFor(c.providerAddr)! };
    const block = schema.block;
    const nullObj = Value.null(impliedType(block));
    const addrStr = instanceAddrString(addr);
    const config = decodeBody(r.config, block, this.ctx.scope(inst, rep), diags);
    if (hasErr(diags)) {
      outDiags.push(...diags);
      return undefined;
    }
    const cfgAddr = configResourceAddr(n.path, resourceKey(addr));
    if (!this.ctx.runConditions('resource-pre', r.lifecycle?.preconditions ?? [], inst, rep, undefined, cfgAddr, addrStr, diags)) {
      outDiags.push(...diags);
      return undefined;
    }
    const { value: unmarkedConfig, marks: configMarks } = unmarkDeepWithPaths(config);

    if (c.action === 'Read') {
      this.hooks.preApply?.(addr, undefined, 'Read', c.before, c.after);
      const resp = await p.provider.readDataSource({ typeName: r.type, config: unmarkedConfig, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
      const dataDeferred = unexpectedDeferral(resp, addrStr);
      diags.push(...dataDeferred, ...resp.diagnostics.map((d) => withAddr(d, addr, r.config)));
      const chk = hasErr(resp.diagnostics) || dataDeferred.length ? undefined : checkDataSourceResult(block, resp.state, c.providerAddr, addrStr);
      if (chk) diags.push(...chk.diags);
      const failed = !chk?.value || hasErr(chk.diags);
      const v = failed ? nullObj : markObject(markWithPaths(chk.value!, configMarks), schema);
      this.hooks.postApply?.(addr, undefined, 'Read', v, failed);
      if (!failed) this.sync.setResourceInstanceCurrent(addr, encodeObject(v, schema, { status: 'ready', dependencies: [], createBeforeDestroy: false }), c.providerAddr);
      if (this.opts.signal?.aborted) diags.push(haltedDiagnostic(), haltedDiagnostic());
      outDiags.push(...diags);
      return failed || this.opts.signal?.aborted ? undefined : v;
    }

    const replacing = c.action === 'DeleteThenCreate' || c.action === 'CreateThenDelete';
    const cbd = c.action === 'CreateThenDelete';
    // The prior object as the walk sees it now (a delete-then-create's old object is already gone).
    const curSrc = this.sync.state.object(addr);
    const prior = replacing ? nullObj : curSrc ? decodeObject(curSrc, schema) ?? nullObj : nullObj;
    const unmarkedPrior = unmarkDeepWithPaths(prior).value;
    const priorPrivate = replacing ? new Uint8Array() : privateBytes(curSrc);

    // The second plan, with everything known so far.
    const plannedBefore = unmarkDeepWithPaths(c.after).value;
    const configForPlan = applyIgnoreChanges(unmarkedConfig, unmarkedPrior, r.lifecycle?.ignoreChanges);
    const proposed = proposedNew(block, unmarkedPrior, configForPlan);
    const pr = await p.provider.planResourceChange({ typeName: r.type, priorState: unmarkedPrior, proposedNewState: proposed, config: configForPlan, priorPrivate, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    const planDeferred = unexpectedDeferral(pr, addrStr);
    diags.push(...planDeferred, ...pr.diagnostics.map((d) => withAddr(d, addr, r.config)));
    if (hasErr(pr.diagnostics) || planDeferred.length) {
      outDiags.push(...diags);
      return undefined;
    }
    const planned = pr.plannedState;
    // The apply-time plan gets the plan's checks, then must agree with the saved change (checkPlannedChange).
    const planErrs = replacing ? checkReplacePlannedState(block, planned, n.fqn, c.providerAddr, addrStr) : checkPlannedState(block, planned, n.fqn, c.providerAddr, addrStr);
    if (!planErrs.length && !replacing && !pr.legacyTypeSystem) planErrs.push(...invalidPlanDiagnostics(assertPlanValid(block, unmarkedPrior, configForPlan, planned), n.fqn, addrStr));
    let newAction: Action = c.action;
    if (!planErrs.length && !replacing) {
      const rr = requiredReplaces(block, pr.requiresReplace, unmarkedPrior, planned, n.fqn, addrStr);
      planErrs.push(...rr.diags);
      if (unmarkedPrior.isNull) newAction = 'Create';
      else if (rr.paths.length) newAction = createBeforeDestroy(this.built, r, n.path) ? 'CreateThenDelete' : 'DeleteThenCreate';
      else newAction = planned.isWhollyKnown && exactEq(planned, unmarkedPrior) ? 'NoOp' : 'Update';
    }
    if (!planErrs.length) planErrs.push(...checkFinalPlan(block, c.action, newAction, plannedBefore, planned, n.fqn, addrStr));
    if (planErrs.length) {
      outDiags.push(...diags, ...planErrs);
      return undefined;
    }

    let deposedKey: string | undefined;
    if (cbd) {
      deposedKey = this.sync.deposeResourceInstanceObject(addr);
      if (deposedKey) this.newDeposed.set(addrStr, deposedKey);
    }
    const action: Action = replacing ? 'Create' : c.action;
    this.hooks.preApply?.(addr, undefined, action, prior, markObject(markWithPaths(planned, configMarks), schema));
    const resp = await p.provider.applyResourceChange({ typeName: r.type, priorState: unmarkedPrior, plannedState: planned, config: unmarkedConfig, plannedPrivate: pr.plannedPrivate });
    // Terraform's apply(): the provider's diagnostics InConfigBody of the resource (a destroy has no body).
    diags.push(...resp.diagnostics.map((d) => withAddr(d, addr, r.config)));
    const providerFailed = hasErr(resp.diagnostics);
    // Core's checks on the new object (a legacy-SDK provider's inconsistencies are tolerated). An inconsistent
    // result is an error of the apply: the object is saved, tainted when created or replacing (maybeTainted), and
    // the hook reports a failure rather than "Creation complete".
    const chk = checkAppliedState(block, c.action, planned, resp.newState, providerFailed, c.providerAddr, addrStr, unmarkedPrior);
    const checkDiags = resp.legacyTypeSystem ? chk.diags.filter((d) => d.summary !== 'Provider produced inconsistent result after apply') : chk.diags;
    diags.push(...checkDiags);
    const failed = providerFailed || hasErr(checkDiags);
    // No object at all (it failed type conformance or kept write-only values): the current object is removed.
    const dropped = chk.value === undefined;
    const newVal = dropped ? nullObj : chk.value!.isNull ? nullObj : chk.value!;
    const marked = newVal.isNull ? newVal : markObject(markWithPaths(newVal, configMarks), schema);
    this.hooks.postApply?.(addr, undefined, action, marked, failed);
    const deps = this.built.resourceDeps.get(configResourceAddr(staticPath(addr.module), resourceKey(addr))) ?? [];
    const cbdFlag = cbd || createBeforeDestroy(this.built, r, n.path);
    if (!newVal.isNull) {
      this.sync.setResourceInstanceCurrent(
        addr,
        encodeObject(marked, schema, { status: failed && (c.action === 'Create' || replacing) ? 'tainted' : 'ready', dependencies: deps, createBeforeDestroy: cbdFlag, private: resp.private }),
        c.providerAddr,
      );
    } else if (dropped) {
      this.sync.setResourceInstanceCurrent(addr, null, c.providerAddr);
    } else if (failed && !replacing && c.action === 'Update') {
      // Update failed without a new object: keep the prior object.
    } else if (failed && cbd && deposedKey) {
      // The replacement failed: restore the deposed object as current.
      const dep = this.sync.state.object(addr, deposedKey);
      if (dep && !this.sync.state.object(addr)) {
        this.sync.setResourceInstanceDeposed(addr, deposedKey, null, c.providerAddr);
        this.sync.setResourceInstanceCurrent(addr, dep, c.providerAddr);
        this.newDeposed.delete(addrStr);
      }
    } else if (!failed) {
      this.sync.setResourceInstanceCurrent(addr, null, c.providerAddr);
    }
    // Stopped meanwhile: the PostApply and state-update hooks halt (the object is kept), postconditions are not run.
    if (this.opts.signal?.aborted) diags.push(haltedDiagnostic(), haltedDiagnostic());
    else if (!failed) {
      this.ctx.runConditions('resource-post', r.lifecycle?.postconditions ?? [], inst, rep, marked, configResourceAddr(n.path, resourceKey(addr)), addrStr, diags);
    }
    outDiags.push(...diags);
    return failed || hasErr(diags) ? undefined : marked;
  }

  private async applyDestroys(key: string, n: Extract<Node, { kind: 'destroy' }>): Promise<boolean> {
    const changes = this.byNode.get(key) ?? [];
    const diags: Diagnostic[] = [];
    const results = await runLimited(
      changes.map((c) => () => this.destroyOne(c, n, diags)),
      this.ctx.startLimit,
    );
    this.diagnostics.push(...diags);
    return results.every((x) => x);
  }

  private destroyOne(c: ResourceInstanceChange, n: Extract<Node, { kind: 'destroy' }>, diags: Diagnostic[]): Promise<boolean> {
    return this.ctx.sem.run(() => this.destroyOneLocked(c, n, diags));
  }

  private async destroyOneLocked(c: ResourceInstanceChange, n: Extract<Node, { kind: 'destroy' }>, diags: Diagnostic[]): Promise<boolean> {
    const addr = c.addr;
    const addrStr = instanceAddrString(addr);
    let deposedKey = c.deposedKey;
    if (c.action === 'CreateThenDelete') {
      deposedKey = this.newDeposed.get(addrStr);
      if (!deposedKey) return true; // the replacement failed and the old object was restored, or nothing to do
    }
    const schema = this.schema(c);
    const base = this.ctx.providers.get(n.fqn);
    const prov = this.ctx.providerFor(c.providerAddr);
    if (!schema || !base || !prov) return false;
    const e = { provider: prov, schema: base.schema };
    const src = this.sync.state.object(addr, deposedKey);
    if (!src) return true;
    if (c.action === 'Forget') {
      if (deposedKey) this.sync.setResourceInstanceDeposed(addr, deposedKey, null, c.providerAddr);
      else this.sync.setResourceInstanceCurrent(addr, null, c.providerAddr);
      return true;
    }
    const prior = decodeObject(src, schema) ?? c.before;
    const unmarkedPrior = unmarkDeepWithPaths(prior).value;
    const nullObj = Value.null(impliedType(schema.block));
    this.hooks.preApply?.(addr, deposedKey, 'Delete', prior, nullObj);
    if (this.opts.signal?.aborted) {
      diags.push(haltedDiagnostic());
      return false;
    }
    let planned = nullObj;
    let plannedPrivate = privateBytes(src);
    if (e.schema.serverCapabilities.planDestroy) {
      const pr = await e.provider.planResourceChange({ typeName: addr.type, priorState: unmarkedPrior, proposedNewState: nullObj, config: nullObj, priorPrivate: plannedPrivate, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
      diags.push(...pr.diagnostics);
      if (hasErr(pr.diagnostics)) {
        this.hooks.postApply?.(addr, deposedKey, 'Delete', prior, true);
        return false;
      }
      const nonNull = checkDestroyPlannedState(pr.plannedState, fqnOfProviderAddr(c.providerAddr), instanceAddrString(addr));
      if (nonNull.length) {
        diags.push(...nonNull);
        this.hooks.postApply?.(addr, deposedKey, 'Delete', prior, true);
        return false;
      }
      planned = pr.plannedState;
      plannedPrivate = pr.plannedPrivate;
    }
    const resp = await e.provider.applyResourceChange({ typeName: addr.type, priorState: unmarkedPrior, plannedState: planned, config: nullObj, plannedPrivate });
    diags.push(...resp.diagnostics);
    // A destroy that returns an object is an error; Terraform still saves the errant object.
    const chk = checkAppliedState(schema.block, 'Delete', planned, resp.newState, hasErr(resp.diagnostics), c.providerAddr, instanceAddrString(addr), unmarkedPrior);
    diags.push(...chk.diags);
    const failed = hasErr(resp.diagnostics) || hasErr(chk.diags);
    this.hooks.postApply?.(addr, deposedKey, 'Delete', failed ? prior : nullObj, failed);
    if (this.opts.signal?.aborted) diags.push(haltedDiagnostic(), haltedDiagnostic());
    if (failed) {
      // The object survives; keep it (as it was, or as the provider returned it).
      if (!resp.newState.isNull) {
        const keep = encodeObject(markObject(resp.newState, schema), schema, { status: src.status, dependencies: src.dependencies, createBeforeDestroy: src.createBeforeDestroy, private: resp.private });
        if (deposedKey) this.sync.setResourceInstanceDeposed(addr, deposedKey, keep, c.providerAddr);
        else this.sync.setResourceInstanceCurrent(addr, keep, c.providerAddr);
      }
      return false;
    }
    if (deposedKey) this.sync.setResourceInstanceDeposed(addr, deposedKey, null, c.providerAddr);
    else this.sync.setResourceInstanceCurrent(addr, null, c.providerAddr);
    return !this.opts.signal?.aborted;
  }
}

/** Terraform's Context.Apply: applies `plan` and returns the new state (also on errors: partial progress is kept). */
export async function runApply(plan: Plan, opts: ApplyOptions): Promise<ApplyResult> {
  const built = buildConfigGraph(opts.config);
  const ap = new Applier(plan, opts, built);
  const diags = ap.diagnostics;
  if (plan.errored) {
    diags.push(error('Cannot apply incomplete plan', 'Terraform encountered an error when generating this plan, so it cannot be applied.'));
    return { state: plan.priorState.deepCopy(), diagnostics: diags };
  }
  // prevent_destroy is enforced again (a saved plan may predate the setting).
  for (const c of plan.changes) {
    if (c.action !== 'Delete' && c.action !== 'DeleteThenCreate' && c.action !== 'CreateThenDelete') continue;
    const k = built.resourceNodes.get(configResourceAddr(staticPath(c.addr.module), resourceKey(c.addr)));
    const n = k ? built.graph.get(k) : undefined;
    if (n?.kind === 'resource' && n.res.lifecycle?.preventDestroy?.text.trim() === 'true' && c.deposedKey === undefined) diags.push(preventDestroyDiag(c.addr, n.res));
  }
  if (hasErr(diags)) return { state: await ap.sync.close(), diagnostics: diags };

  for (const [k, v] of plan.variableValues) ap.ctx.rootInstance.vars.set(k, v);
  const fqns = new Set<string>();
  for (const [, n] of built.graph.entries()) if (n.kind === 'provider') fqns.add(n.fqn);
  for (const c of plan.changes) fqns.add(fqnOfProviderAddr(c.providerAddr));
  await ap.ctx.loadProviders(fqns);
  if (hasErr(diags)) return { state: await ap.sync.close(), diagnostics: diags };
  for (const c of plan.changes) {
    // Providers only the state still uses (orphans): their configuration address as stored.
    const k = nodeKey('provider', '', c.providerAddr);
    if (built.graph.has(k) || /^module\./.test(c.providerAddr)) continue;
    const alias = /\]\.(.+)$/.exec(c.providerAddr)?.[1];
    built.graph.add(k, { kind: 'provider', fqn: fqnOfProviderAddr(c.providerAddr), alias, name: fqnOfProviderAddr(c.providerAddr).split('/').pop()! });
  }

  ap.addDestroyNodes();
  // Terraform's Context.Stop: the hooks hear of the stop at once (the CLI prints "Stopping operation...").
  if (opts.signal?.aborted) ap.hooks.stopping?.();
  else opts.signal?.addEventListener('abort', () => ap.hooks.stopping?.(), { once: true });
  const cyc = cycleDiagnostics(built.graph);
  if (cyc.length) {
    diags.push(...cyc);
    return { state: await ap.sync.close(), diagnostics: diags };
  }
  if (plan.uiMode === 'refresh-only') {
    // Nothing to apply: the refreshed state (and outputs) become the new state.
    await walk(built.graph, async (k, n) => (n.kind === 'resource' || n.kind === 'destroy' ? true : ap.exec(k, n)), { order: displayOrder(built.graph), concurrency: ap.ctx.startLimit });
  } else {
    // After a stop the walk goes on (Terraform's walker has no stop of its own); instances halt as they start.
    await walk(built.graph, (k, n) => ap.exec(k, n), { order: displayOrder(built.graph), concurrency: ap.ctx.startLimit });
  }
  // Root outputs no longer in configuration disappear.
  for (const name of [...ap.sync.state.outputs.keys()]) if (!opts.config.outputs.has(name)) ap.sync.setOutputValue(name, null);
  if (plan.uiMode !== 'destroy') {
    ap.ctx.declareRemainingChecks();
    const results = ap.ctx.checks.results();
    ap.sync.setCheckResults(results.length ? results : null);
  } else ap.sync.setCheckResults(null);
  let state: State;
  try {
    state = await ap.sync.close();
  } catch (e) {
    diags.push(error('Failed to persist state', String((e as Error).message ?? e)));
    state = ap.sync.state;
  }
  return { state, diagnostics: diags };
}
