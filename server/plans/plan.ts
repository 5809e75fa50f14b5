// The plan: what `terraform plan` decided, as plain data (Terraform's internal/plans package).
//
// Folder server/plans:
//   plan.ts       (this file) Plan, ResourceInstanceChange, OutputChange, actions and action reasons, and the
//                 schema lookup renderers use to walk a change's values.
//   objchange/    the provider contract checks (ProposedNew, plan validity, result compatibility).
// The engine (server/engine) builds a Plan; the CLI renders it (human, -json, show -json) and apply consumes it.
//
// Contracts:
// - A Plan is immutable once the engine returns it. Values are server/lang Values carrying their sensitive marks
//   (config-derived and schema-derived), so a renderer decides "(sensitive value)" from the marks alone.
// - `changes` holds one entry per resource instance object the plan considered, including no-ops (Terraform keeps
//   them: `show -json` lists no-op resource_changes) and data sources read during apply (Read with a Read* reason;
//   data sources read during plan are in priorState, not here); it is sorted with
//   compareResourceInstanceChanges (address order, then current object before deposed ones by key).
// - before/after: null Value of the schema's implied type on the missing side (create: before null; delete: after
//   null). Unknown leaves in `after` mean "(known after apply)".
// - `priorState` is the refreshed state the plan was made from; `prevRunState` the state as the last apply left it
//   (after upgrade, before refresh); drift is computed between the two. Both are never mutated.
// - Schemas: every change names its provider (`providerAddr`, absolute config address) and resource type; the
//   plan's `schemas` gives the Schema for (provider type address, mode, type), see `schemaForChange`.

import type { Diagnostic } from '../diags/diagnostic';
import type { Value } from '../lang/value';
import type { Path } from '../providers/path';
import type { GetProviderSchemaResponse, Private } from '../providers/provider';
import type { Schema } from '../providers/schema';
import type { CheckResult, InstanceAddr, State } from '../states/state';
import { compareInstanceAddrs, instanceAddrString } from '../states/state';

/** Terraform's plans.Mode. */
export type PlanMode = 'normal' | 'destroy' | 'refresh-only';

/** Terraform's plans.Action. */
export type Action = 'NoOp' | 'Create' | 'Read' | 'Update' | 'DeleteThenCreate' | 'CreateThenDelete' | 'Delete' | 'Forget' | 'CreateThenForget';

/** Terraform's plans.ResourceInstanceChangeActionReason (`None` = no special reason). */
export type ActionReason =
  | 'None'
  | 'ReplaceBecauseTainted'
  | 'ReplaceByRequest'
  | 'ReplaceByTriggers'
  | 'ReplaceBecauseCannotUpdate'
  | 'DeleteBecauseNoResourceConfig'
  | 'DeleteBecauseWrongRepetition'
  | 'DeleteBecauseCountIndex'
  | 'DeleteBecauseEachKey'
  | 'DeleteBecauseNoModule'
  | 'DeleteBecauseNoMoveTarget'
  | 'ReadBecauseConfigUnknown'
  | 'ReadBecauseDependencyPending'
  | 'ReadBecauseCheckNested';

/** The `action_reason` string of the JSON plan, or undefined for `None`. */
export function actionReasonJSON(r: ActionReason): string | undefined {
  if (r === 'None') return undefined;
  return r.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

/** The JSON plan's `change.actions` array for an action. */
export function actionJSON(a: Action): string[] {
  switch (a) {
    case 'NoOp':
      return ['no-op'];
    case 'Create':
      return ['create'];
    case 'Read':
      return ['read'];
    case 'Update':
      return ['update'];
    case 'DeleteThenCreate':
      return ['delete', 'create'];
    case 'CreateThenDelete':
      return ['create', 'delete'];
    case 'Delete':
      return ['delete'];
    case 'Forget':
      return ['forget'];
    case 'CreateThenForget':
      return ['create', 'forget'];
  }
}

export function isReplace(a: Action): boolean {
  return a === 'DeleteThenCreate' || a === 'CreateThenDelete' || a === 'CreateThenForget';
}

/** An import the plan will perform (`import` block). */
export interface Importing {
  id: string;
}

/** One planned change to a resource instance object (Terraform's plans.ResourceInstanceChange). */
export interface ResourceInstanceChange {
  readonly addr: InstanceAddr;
  /** The address in the previous run's state (differs from addr after a `moved` block). */
  readonly prevRunAddr: InstanceAddr;
  /** Set for a change to a deposed object (always Delete or Forget). */
  readonly deposedKey?: string;
  /** Absolute provider configuration address, `provider["registry.terraform.io/hashicorp/terraform"]`. */
  readonly providerAddr: string;
  readonly action: Action;
  readonly actionReason: ActionReason;
  /** Marked values; null of the implied type on the missing side. */
  readonly before: Value;
  readonly after: Value;
  /** Attribute paths that forced the replacement (PlanResourceChange's requiresReplace, filtered). */
  readonly requiredReplace: readonly Path[];
  readonly importing?: Importing;
  /** The provider's planned private data, passed back to ApplyResourceChange. */
  readonly private: Private;
  /** The configuration object the plan was made from (unmarked, unknowns allowed); null for Delete/Forget. */
  readonly config?: Value;
  /** Schema version of `after` (the provider's current schema version for the type). */
  readonly schemaVersion?: number;
  /** For Forget/removed blocks: whether the `removed` block asked to destroy. */
  readonly generatedConfig?: string;
}

/** A root (or child, non-persisted) output change (Terraform's plans.OutputChange). */
export interface OutputChange {
  /** `output.name` in the root module, `module.a.output.name` elsewhere. */
  readonly addr: string;
  readonly module: string;
  readonly name: string;
  readonly action: Action;
  readonly before: Value;
  readonly after: Value;
  readonly sensitive: boolean;
}

/** A resource whose refreshed object differs from the previous run (drift), reported before the plan. */
export interface DriftedResource {
  readonly addr: InstanceAddr;
  readonly prevRunAddr: InstanceAddr;
  readonly deposedKey?: string;
  readonly providerAddr: string;
  /** Update ("has changed") or Delete ("has been deleted"). */
  readonly action: Action;
  readonly before: Value;
  readonly after: Value;
}

/** Schemas by provider type address (`registry.terraform.io/hashicorp/terraform`), as the plan was made with. */
export type ProviderSchemas = ReadonlyMap<string, GetProviderSchemaResponse>;

export interface Plan {
  readonly uiMode: PlanMode;
  /** Root input variable values, final (marked sensitive where declared so). */
  readonly variableValues: ReadonlyMap<string, Value>;
  /**
   * The root variables the caller set (-var, -var-file, tfvars files, TF_VAR_), as given: before conversion to the
   * declared type (a primitive-typed -var is its string). Terraform records these in the plan (and its JSON form).
   */
  readonly setVariables?: ReadonlyMap<string, Value>;
  readonly changes: readonly ResourceInstanceChange[];
  readonly outputs: readonly OutputChange[];
  readonly driftedResources: readonly DriftedResource[];
  /** Instances moved by `moved` blocks: new address string -> previous address string. */
  readonly movedFrom?: ReadonlyMap<string, string>;
  readonly prevRunState: State;
  readonly priorState: State;
  /** -target addresses as written. */
  readonly targets: readonly string[];
  /** -replace addresses as written. */
  readonly forceReplace: readonly string[];
  /** True when applying it would do something (or the plan is refresh-only with changes). */
  readonly applyable: boolean;
  /** True when planning stopped on errors (the plan is then incomplete and not applyable). */
  readonly errored: boolean;
  /** False when some changes were deferred or targeting excluded objects. */
  readonly complete: boolean;
  readonly checks: readonly CheckResult[] | null;
  /** RFC 3339 time at which planning started. */
  readonly timestamp: string;
  readonly schemas: ProviderSchemas;
  /** Diagnostics produced while planning (warnings of a successful plan are kept for rendering). */
  readonly diagnostics?: readonly Diagnostic[];
}

/** Terraform's ordering of resource changes: address order, the current object before deposed ones by key. */
export function compareResourceInstanceChanges(a: { addr: InstanceAddr; deposedKey?: string }, b: { addr: InstanceAddr; deposedKey?: string }): number {
  const c = compareInstanceAddrs(a.addr, b.addr);
  if (c) return c;
  if (a.deposedKey === b.deposedKey) return 0;
  if (a.deposedKey === undefined) return -1;
  if (b.deposedKey === undefined) return 1;
  return a.deposedKey < b.deposedKey ? -1 : 1;
}

/** `registry.terraform.io/hashicorp/aws` from `provider["registry.terraform.io/hashicorp/aws"].alias`. */
export function providerTypeOf(providerAddr: string): string {
  const m = /provider\["([^"]+)"\]/.exec(providerAddr);
  return m ? m[1] : providerAddr;
}

/** The schema of a resource type or data source, when the plan's providers declared it. */
export function schemaFor(schemas: ProviderSchemas, providerAddr: string, mode: 'managed' | 'data', type: string): Schema | undefined {
  const p = schemas.get(providerTypeOf(providerAddr)) ?? schemas.get(providerAddr);
  if (!p) return undefined;
  return mode === 'managed' ? p.resourceTypes[type] : p.dataSources[type];
}

/** The schema a renderer uses to walk a change's before/after. */
export function schemaForChange(plan: Pick<Plan, 'schemas'>, c: Pick<ResourceInstanceChange, 'addr' | 'providerAddr'>): Schema | undefined {
  return schemaFor(plan.schemas, c.providerAddr, c.addr.mode, c.addr.type);
}

/** The change to one instance's current object (no deposed key), if any. */
export function changeFor(plan: Pick<Plan, 'changes'>, addr: InstanceAddr, deposedKey?: string): ResourceInstanceChange | undefined {
  const s = instanceAddrString(addr);
  return plan.changes.find((c) => c.deposedKey === deposedKey && instanceAddrString(c.addr) === s);
}

/** Counts for the "Plan: N to add, N to change, N to destroy." line (imports counted separately). */
export function planSummary(plan: Pick<Plan, 'changes'>): { add: number; change: number; destroy: number; import: number; forget: number } {
  const s = { add: 0, change: 0, destroy: 0, import: 0, forget: 0 };
  for (const c of plan.changes) {
    if (c.addr.mode === 'data') continue;
    if (c.importing) s.import++;
    switch (c.action) {
      case 'Create':
        s.add++;
        break;
      case 'Update':
        s.change++;
        break;
      case 'Delete':
        s.destroy++;
        break;
      case 'DeleteThenCreate':
      case 'CreateThenDelete':
        s.add++;
        s.destroy++;
        break;
      case 'Forget':
        s.forget++;
        break;
      case 'CreateThenForget':
        s.add++;
        s.forget++;
        break;
      default:
        break;
    }
  }
  return s;
}

/** True when some resource or output change is not a no-op (Terraform's Plan.Changes.Empty negated). */
export function hasChanges(plan: Pick<Plan, 'changes' | 'outputs'>): boolean {
  return plan.changes.some((c) => c.action !== 'NoOp') || plan.outputs.some((o) => o.action !== 'NoOp');
}
