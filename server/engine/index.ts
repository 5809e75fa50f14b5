// The engine's API: plan and apply over a loaded configuration, a state and providers.
//
// Folder server/engine:
//   index.ts    (this file) `plan(opts) -> {plan, diagnostics}`, `apply(plan, opts) -> {state, diagnostics}`.
//   context.ts  the configuration graph, module instances, values, providers and state object encoding.
//   planner.ts  the plan walk (refresh, upgrade, expansion, PlanResourceChange, actions and reasons, orphans).
//   applier.ts  the apply walk (destroy ordering, second plan and compatibility, ApplyResourceChange, SyncState).
//   decode.ts   configuration bodies decoded with provider schemas (hcldec), dynamic blocks.
//   ctyjson.ts  cty's JSON for state attributes and outputs.
//   importer.ts `terraform import ADDR ID` (ImportResourceState + ReadResource into the state).
//   refactor.ts moved blocks and implied count moves.
//   conditions.ts custom conditions, check blocks and check results.
//   lifecycle.ts  ignore_changes.
//   targets.ts  -target / -replace address parsing and matching.
//   hooks.ts    progress hooks (Creating..., Refreshing state...).
// Consumers: the CLI verbs (plan, apply, destroy, refresh, import) and the language server's preview. The engine
// never imports vscode, never prints, and never throws for user input (problems are Diagnostics).

import type { Plan } from '../plans/plan';
import { runApply, type ApplyOptions, type ApplyResult } from './applier';
import { runPlan, type PlanOptions, type PlanResult } from './planner';

export type { ApplyOptions, ApplyResult } from './applier';
export type { PlanOptions, PlanResult } from './planner';
export type { Hooks } from './hooks';
export type { ImportHooks, ImportOptions } from './importer';
export { runImport as importResource } from './importer';
export type { ProviderFactory } from './context';
export { BUILTIN_TERRAFORM, providerFqn, normalizeSource } from './context';

/** Makes a plan (Terraform's Context.Plan). Defaults: normal mode, refresh on, parallelism 10. */
export function plan(opts: PlanOptions): Promise<PlanResult> {
  return runPlan(opts);
}

/** Applies a plan (Terraform's Context.Apply); the returned state holds everything that completed. */
export function apply(p: Plan, opts: ApplyOptions): Promise<ApplyResult> {
  return runApply(p, opts);
}
