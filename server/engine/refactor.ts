// Refactoring before planning (Terraform's refactoring package): `moved` blocks and implied moves between a
// resource without repetition and its [0] instance, applied to the working state before the plan walk.
//
// Contract: `applyMoves(root, state)` mutates `state` (the plan's working copy; the previous run state is left
// alone), returns each moved object's new -> previous instance address, and Terraform's diagnostics for invalid
// statements ("Redundant move statement"). A statement whose source is absent from the state, or whose
// destination is already occupied, is skipped (Terraform reports the latter as a warning-free no-op too when the
// source is gone). Statements are applied in declaration order, root module first; chains (a -> b, b -> c) work
// because each statement sees the result of the previous ones.
//
// A move between resource types (or providers), such as null_resource -> terraform_data, is a cross-type move:
// before the state moves, the `crossType` callback asks the target resource's provider to translate each object
// (MoveResourceState, Terraform's refactoring/cross_provider_move.go) and rewrites the source object in place;
// its diagnostics join the result and the move happens either way, as in Terraform.

import type { Diagnostic } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type { Module, MovedBlock } from '../config/model';
import type { InstanceAddr, ResourceAddr, State } from '../states/state';
import { applyChange, instanceAddrString, instanceKeyString } from '../states/state';
import { staticPath } from './context';
import { parseTarget, type Target } from './targets';

export interface MoveResult {
  /** new instance address string -> previous instance address */
  moved: Map<string, InstanceAddr>;
  diagnostics: Diagnostic[];
}

function joinModule(a: string, b: string): string {
  return a && b ? `${a}.${b}` : a || b;
}

function moduleInstancesOf(state: State, staticModulePath: string): string[] {
  if (staticModulePath === '') return [''];
  return [...state.modules.keys()].filter((m) => staticPath(m) === staticModulePath);
}

/**
 * Translates the objects of `keys` (instance keys as stored) of resource `from` for their move to `to` when the
 * types or providers differ (it does nothing for an ordinary move), rewriting them in `state` in place.
 */
export type CrossTypeMover = (stmt: MovedBlock, from: ResourceAddr, to: ResourceAddr, keys: InstanceAddr['key'][]) => Promise<Diagnostic[]>;

export async function applyMoves(root: Module, state: State, crossType?: CrossTypeMover): Promise<MoveResult> {
  const moved = new Map<string, InstanceAddr>();
  const diagnostics: Diagnostic[] = [];
  const record = (to: InstanceAddr, from: InstanceAddr) => {
    const prev = moved.get(instanceAddrString(from)) ?? from;
    moved.delete(instanceAddrString(from));
    moved.set(instanceAddrString(to), prev);
  };

  const moveResource = async (from: ResourceAddr, to: ResourceAddr, stmt?: MovedBlock) => {
    const r = state.resource(from);
    if (!r || state.resource(to)) return;
    const keys = [...r.instances.values()].map((i) => i.key);
    if (stmt && crossType) diagnostics.push(...(await crossType(stmt, from, to, keys)));
    applyChange(state, { op: 'move-resource', from, to });
    for (const k of keys) record({ ...to, key: k }, { ...from, key: k });
  };
  const moveInstance = async (from: InstanceAddr, to: InstanceAddr, stmt?: MovedBlock) => {
    if (!state.instance(from) || state.instance(to)) return;
    if (stmt && crossType) {
      const { key, ...fr } = from;
      const { key: _k, ...tr } = to;
      diagnostics.push(...(await crossType(stmt, fr, tr, [key])));
    }
    applyChange(state, { op: 'move-instance', from, to });
    record(to, from);
  };

  const visit = async (m: Module) => {
    for (const mv of m.moved) {
      if (!mv.from || !mv.to) continue;
      const from = parseTarget(mv.from.text.trim());
      const to = parseTarget(mv.to.text.trim());
      if (!from || !to) continue;
      if (from.text === to.text) {
        diagnostics.push(
          error('Redundant move statement', `This statement declares a move from ${from.text} to the same address, which is the same as not declaring this move at all.`, mv.range),
        );
        continue;
      }
      for (const base of moduleInstancesOf(state, m.path)) await applyStatement(base, from, to, mv);
    }
    for (const c of m.moduleCalls.values()) if (c.module) await visit(c.module);
  };

  const applyStatement = async (base: string, from: Target, to: Target, stmt: MovedBlock) => {
    const fm = joinModule(base, from.module);
    const tm = joinModule(base, to.module);
    if (from.isModule && to.isModule) {
      // Every resource under the module instance (and its descendants) moves.
      for (const mod of [...state.modules.keys()]) {
        if (mod !== fm && !mod.startsWith(fm + '.')) continue;
        const dest = tm + mod.slice(fm.length);
        for (const r of [...state.modules.get(mod)!.resources.values()]) await moveResource({ module: mod, mode: r.mode, type: r.type, name: r.name }, { module: dest, mode: r.mode, type: r.type, name: r.name });
      }
      return;
    }
    if (!from.resource || !to.resource) return;
    const fr = { module: fm, ...from.resource };
    const tr = { module: tm, ...to.resource };
    if (from.key || to.key) {
      if (from.key && to.key) await moveInstance({ ...fr, key: from.key.value }, { ...tr, key: to.key.value }, stmt);
      else if (from.key) await moveInstance({ ...fr, key: from.key.value }, { ...tr, key: undefined }, stmt);
      else if (to.key) await moveInstance({ ...fr, key: undefined }, { ...tr, key: to.key.value }, stmt);
      return;
    }
    await moveResource(fr, tr, stmt);
  };

  await visit(root);

  // Implied moves: `count` added to a resource that had none (NoKey -> [0]), or removed ([0] -> NoKey).
  const implied = async (m: Module) => {
    for (const r of m.resources) {
      if (r.mode !== 'managed' || r.forEach) continue;
      for (const base of moduleInstancesOf(state, m.path)) {
        const rs = state.resource({ module: base, mode: r.mode, type: r.type, name: r.name });
        if (!rs) continue;
        const addr = { module: base, mode: r.mode, type: r.type, name: r.name };
        if (r.count && rs.instances.has('') && !rs.instances.has('0')) await moveInstance({ ...addr, key: undefined }, { ...addr, key: 0 });
        else if (!r.count && rs.instances.has('0') && !rs.instances.has(instanceKeyString(undefined))) await moveInstance({ ...addr, key: 0 }, { ...addr, key: undefined });
      }
    }
    for (const c of m.moduleCalls.values()) if (c.module) await implied(c.module);
  };
  await implied(root);
  return { moved, diagnostics };
}
