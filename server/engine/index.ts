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

import type { Module, Resource } from '../config/model';
import type { Diagnostic } from '../diags/diagnostic';
import type { Plan } from '../plans/plan';
import type { GetProviderSchemaResponse as ProviderSchema } from '../providers/provider';
import { providerFqn, resourceProviderLocal, type ProviderFactory } from './context';
import { schemaStructureDiagnostics } from './decode';
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

/**
 * The structural errors of resource bodies against their providers' schemas (unsupported arguments and block
 * types, missing arguments), in declaration order, root module first. Terraform finds these in the same validate
 * walk as the count/for_each and reference errors, so the CLI adds them when those stop a plan early. `skip`
 * leaves out resources (Terraform does not decode a body whose references failed).
 */
export async function resourceSchemaDiagnostics(config: Module, providers: ProviderFactory, skip: (r: Resource) => boolean = () => false): Promise<Diagnostic[]> {
  const diags: Diagnostic[] = [];
  const schemas = new Map<string, ProviderSchema | undefined>();
  const visit = async (m: Module) => {
    for (const r of m.resources) {
      if (skip(r)) continue;
      const fqn = providerFqn(m, resourceProviderLocal(r).local);
      if (!schemas.has(fqn)) {
        const p = providers(fqn);
        const s = p ? await p.getProviderSchema() : undefined;
        schemas.set(fqn, s && !s.diagnostics.some((d) => d.severity === 'error') ? s : undefined);
      }
      const s = schemas.get(fqn);
      const schema = s && (r.mode === 'managed' ? s.resourceTypes[r.type] : s.dataSources[r.type]);
      if (schema) diags.push(...schemaStructureDiagnostics(r.config, schema.block));
    }
    for (const c of m.moduleCalls.values()) if (c.module) await visit(c.module);
  };
  await visit(config);
  return diags;
}
