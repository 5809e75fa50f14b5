// Refactoring before planning (Terraform's refactoring package): `moved` blocks and implied moves between a
// resource without repetition and its [0] instance, applied to the working state before the plan walk.
//
// Contract: `applyMoves(root, state)` mutates `state` (the plan's working copy; the previous run state is left
// alone), returns each moved object's new -> previous instance address, and Terraform's diagnostics for invalid
// statements ("Redundant move statement"). A statement whose source is absent from the state, or whose
// destination is already occupied, is skipped (Terraform reports the latter as a warning-free no-op too when the
// source is gone). Statements are applied in declaration order, root module first; chains (a -> b, b -> c) work
// because each statement sees the result of the previous ones.

import type { Diagnostic } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type { Module } from '../config/model';
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

export function applyMoves(root: Module, state: State): MoveResult {
  const moved = new Map<string, InstanceAddr>();
  const diagnostics: Diagnostic[] = [];
  const record = (to: InstanceAddr, from: InstanceAddr) => {
    const prev = moved.get(instanceAddrString(from)) ?? from;
    moved.delete(instanceAddrString(from));
    moved.set(instanceAddrString(to), prev);
  };

  const moveResource = (from: ResourceAddr, to: ResourceAddr) => {
    const r = state.resource(from);
    if (!r || state.resource(to)) return;
    const keys = [...r.instances.values()].map((i) => i.key);
    applyChange(state, { op: 'move-resource', from, to });
    for (const k of keys) record({ ...to, key: k }, { ...from, key: k });
  };
  const moveInstance = (from: InstanceAddr, to: InstanceAddr) => {
    if (!state.instance(from) || state.instance(to)) return;
    applyChange(state, { op: 'move-instance', from, to });
    record(to, from);
  };

  const visit = (m: Module) => {
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
      for (const base of moduleInstancesOf(state, m.path)) applyStatement(base, from, to);
    }
    for (const c of m.moduleCalls.values()) if (c.module) visit(c.module);
  };

  const applyStatement = (base: string, from: Target, to: Target) => {
    const fm = joinModule(base, from.module);
    const tm = joinModule(base, to.module);
    if (from.isModule && to.isModule) {
      // Every resource under the module instance (and its descendants) moves.
      for (const mod of [...state.modules.keys()]) {
        if (mod !== fm && !mod.startsWith(fm + '.')) continue;
        const dest = tm + mod.slice(fm.length);
        for (const r of [...state.modules.get(mod)!.resources.values()]) moveResource({ module: mod, mode: r.mode, type: r.type, name: r.name }, { module: dest, mode: r.mode, type: r.type, name: r.name });
      }
      return;
    }
    if (!from.resource || !to.resource) return;
    const fr = { module: fm, ...from.resource };
    const tr = { module: tm, ...to.resource };
    if (from.key || to.key) {
      if (from.key && to.key) moveInstance({ ...fr, key: from.key.value }, { ...tr, key: to.key.value });
      else if (from.key) moveInstance({ ...fr, key: from.key.value }, { ...tr, key: undefined });
      else if (to.key) moveInstance({ ...fr, key: undefined }, { ...tr, key: to.key.value });
      return;
    }
    moveResource(fr, tr);
  };

  visit(root);

  // Implied moves: `count` added to a resource that had none (NoKey -> [0]), or removed ([0] -> NoKey).
  const implied = (m: Module) => {
    for (const r of m.resources) {
      if (r.mode !== 'managed' || r.forEach) continue;
      for (const base of moduleInstancesOf(state, m.path)) {
        const rs = state.resource({ module: base, mode: r.mode, type: r.type, name: r.name });
        if (!rs) continue;
        const addr = { module: base, mode: r.mode, type: r.type, name: r.name };
        if (r.count && rs.instances.has('') && !rs.instances.has('0')) moveInstance({ ...addr, key: undefined }, { ...addr, key: 0 });
        else if (!r.count && rs.instances.has('0') && !rs.instances.has(instanceKeyString(undefined))) moveInstance({ ...addr, key: 0 }, { ...addr, key: undefined });
      }
    }
    for (const c of m.moduleCalls.values()) if (c.module) implied(c.module);
  };
  implied(root);
  return { moved, diagnostics };
}
