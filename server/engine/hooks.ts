// Progress hooks of a walk (Terraform's terraform.Hook): the CLI prints "Creating...", "Refreshing state..."
// lines from them and the language server can preview. Hooks are called synchronously on the walk's thread;
// they must not throw and must not mutate what they receive. Values are marked (sensitive) as the plan holds them.

import { error, type Diagnostic } from '../diags/diagnostic';
import type { Value } from '../lang/value';
import type { Action } from '../plans/plan';
import type { InstanceAddr } from '../states/state';

export interface Hooks {
  /** Before ReadResource of a managed resource instance (plan's refresh). */
  preRefresh?(addr: InstanceAddr, deposedKey: string | undefined, priorState: Value): void;
  postRefresh?(addr: InstanceAddr, deposedKey: string | undefined, priorState: Value, newState: Value): void;
  /** Before PlanResourceChange of an instance. */
  preDiff?(addr: InstanceAddr, deposedKey: string | undefined, priorState: Value, proposedNewState: Value): void;
  postDiff?(addr: InstanceAddr, deposedKey: string | undefined, action: Action, priorState: Value, plannedNewState: Value): void;
  /** Before ApplyResourceChange (or ReadDataSource during apply). */
  preApply?(addr: InstanceAddr, deposedKey: string | undefined, action: Action, priorState: Value, plannedNewState: Value): void;
  /** After it; `failed` when the call returned errors. `newState` is null after a destroy or a failed create. */
  postApply?(addr: InstanceAddr, deposedKey: string | undefined, action: Action, newState: Value, failed: boolean): void;
  /** Data source reads during plan. */
  preReadData?(addr: InstanceAddr): void;
  postReadData?(addr: InstanceAddr, failed: boolean, newState?: Value): void;
  /** Import blocks: before ImportResourceState during plan ("Preparing import... [id=x]"). */
  prePlanImport?(addr: InstanceAddr, id: string): void;
  /** Import blocks during apply ("Importing... [id=x]", "Import complete [id=x]"). */
  preApplyImport?(addr: InstanceAddr, id: string): void;
  postApplyImport?(addr: InstanceAddr, id: string): void;
  /**
   * A stop was requested (Terraform's Hook.Stopping, called by Context.Stop): called once, at once, while provider
   * calls are still in flight; the walk then halts each instance at its next hook (haltedDiagnostic).
   */
  stopping?(): void;
}

/**
 * Terraform's stopHook error: after a stop, every hook call of a resource instance fails with it (after the other
 * hooks ran), so the node ends there. Sourceless, no detail.
 */
export function haltedDiagnostic(): Diagnostic {
  return { ...error('execution halted'), sourceless: true };
}
