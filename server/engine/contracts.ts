// Core's checks on each provider answer, call by call (shared/reference/terraform-contracts.md §5): what
// Terraform's node_resource_abstract_instance / upgrade_resource_state / importState do with a response before it
// trusts it. Pure functions: schema and values in, diagnostics (and the value core keeps) out. The planner,
// applier and importers call them right after each provider call, so every transport (in process, the plugin
// protocol) and every caller (CLI, editor runs, preview) enforces the same contracts with Terraform's texts.
//
// Naming of the provider differs per message, as in Terraform: `fqn` is the provider's source address
// (`registry.terraform.io/hashicorp/random`), `cfgAddr` its configuration address
// (`provider["registry.terraform.io/hashicorp/random"]`), `localName` the resource type's implied provider.
// The rules that compare values (ProposedNew, AssertPlanValid, AssertObjectCompatible, conformance) live in
// server/plans/objchange; this module decides which of them run when, and how their errors read.

import type { Diagnostic } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import { equals } from '../lang/eval';
import { goQuote } from '../lang/goquote';
import * as T from '../lang/types';
import { Value } from '../lang/value';
import { assertObjectCompatible, inconsistentFinalPlanDiagnostics } from '../plans/objchange/compatible';
import { valueConformsToSchema } from '../plans/objchange/conformance';
import { walk } from '../plans/objchange/values';
import type { Action } from '../plans/plan';
import { writeOnlyPaths } from '../providers/marks';
import type { Path } from '../providers/path';
import { applyPath, formatError, formatErrorPrefixed, formatPath, goPath } from '../providers/path';
import type { ImportedResource } from '../providers/provider';
import type { Block } from '../providers/schema';

const BUG = "This is a bug in the provider, which should be reported in the provider's own issue tracker.";

/** The provider a resource type implies by its prefix (`random_pet` → `random`), as Terraform names it in upgrade messages. */
export function impliedProviderName(resourceType: string): string {
  const i = resourceType.indexOf('_');
  return i < 0 ? resourceType : resourceType.slice(0, i);
}

/**
 * ephemeral.ValidateWriteOnlyAttributes: one diagnostic per write-only attribute holding a non-null value (one
 * path per list element and map key), or a single one when a path cannot be followed (through a set).
 */
export function writeOnlyDiagnostics(b: Block, v: Value, summary: string, detail: (p: Path) => string): Diagnostic[] {
  if (v.isNull || !v.isKnown) return [];
  const out: Diagnostic[] = [];
  for (const p of writeOnlyPaths(b, v)) {
    const r = applyPath(v, p);
    if (r.error !== undefined) return [error(summary, `Error validating write-only attributes: ${r.error}.`)];
    if (!r.value!.isNull) out.push(error(summary, detail(p)));
  }
  return out;
}

/**
 * Go's cty.NilVal, the "no value" of a failed call: our transports answer an untyped null (failed.ts). Over gRPC
 * an absent value decodes as a null of the schema's type, so such a null conforms wherever a null is legal.
 */
export function isNil(v: Value | undefined): boolean {
  return v === undefined || (v.isNull && v.type.kind === 'dynamic');
}

/** Conformance errors of a value to the block, where a nil counts as a null of the right type. */
function conformance(b: Block, v: Value) {
  return isNil(v) ? [] : valueConformsToSchema(b, v);
}

/** Every unknown value in `v` (the walk does not descend into an unknown), by path. */
export function unknownPaths(v: Value): Path[] {
  const out: Path[] = [];
  walk(v, (p, x) => {
    if (!x.isKnown) {
      out.push(p.slice());
      return 'skip';
    }
    return 'descend';
  });
  return out;
}

/** cty.UnknownAsNull: every unknown replaced by a null of its type (set elements may coalesce). */
export function unknownAsNull(v: Value): Value {
  if (!v.isKnown) return Value.null(v.type);
  if (v.isNull || v.isWhollyKnown) return v;
  const t = v.type;
  let out: Value;
  switch (t.kind) {
    case 'list':
      out = Value.list(v.elems.map(unknownAsNull), t.elem);
      break;
    case 'set':
      out = Value.set(v.elems.map(unknownAsNull), t.elem);
      break;
    case 'tuple':
      out = Value.tuple(v.elems.map(unknownAsNull));
      break;
    case 'map':
      out = Value.map(new Map([...v.entries].map(([k, e]) => [k, unknownAsNull(e)])), t.elem);
      break;
    case 'object':
      out = Value.object(new Map([...v.entries].map(([k, e]) => [k, unknownAsNull(e)])));
      break;
    default:
      return v;
  }
  return out.markWith(v.marks);
}

/**
 * deferring.UnexpectedProviderDeferralDiagnostic: Terraform 1.11 never allows deferrals (its client capabilities say
 * so), so a deferred answer without errors (ReadResource, PlanResourceChange, ImportResourceState, ReadDataSource) is
 * a provider bug; none of the call's other checks run.
 */
export function unexpectedDeferral(resp: { deferred?: unknown; diagnostics: readonly Diagnostic[] }, address: string): Diagnostic[] {
  if (!resp.deferred || resp.diagnostics.some((d) => d.severity === 'error')) return [];
  return [
    error(
      'Provider deferred changes when Terraform did not allow deferrals',
      `The provider signaled a deferred action for ${goQuote(address)}, but in this context deferrals are disabled. This is a bug in the provider, please file an issue with the provider developers.`,
    ),
  ];
}

// ---- UpgradeResourceState (§5.1) -------------------------------------------------------------------------------

/**
 * Checks an upgraded state; `ok` is false when any check failed (core then stops). An unknown value is reported
 * and the conformance check still runs after it.
 */
export function checkUpgradedState(b: Block, v: Value, address: string, resourceType: string): { diags: Diagnostic[]; ok: boolean } {
  const local = impliedProviderName(resourceType);
  const diags: Diagnostic[] = [];
  const invalid = (why: string) => error('Invalid resource state upgrade', `The ${local} provider upgraded the state for ${address} from a previous version, but produced an invalid result: ${why}.`);
  if (!v.isWhollyKnown) diags.push(invalid('The returned state contains unknown values'));
  const conf = conformance(b, v);
  if (conf.length) return { diags: [...diags, ...conf.map((e) => invalid(formatError(e)))], ok: false };
  const wo = writeOnlyDiagnostics(
    b,
    v,
    'Invalid resource state upgrade',
    (p) =>
      `While attempting to upgrade state of resource ${address}, the provider ${goQuote(local)} returned a value for the write-only attribute "${address}${formatPath(p)}". Write-only attributes cannot be read back from the provider. ${BUG}`,
  );
  if (wo.length) return { diags: [...diags, ...wo], ok: false };
  // (CompleteUpgrade nulls unknowns before encoding, so an unknown is only the error above.)
  return { diags, ok: diags.length === 0 };
}

// ---- ReadResource (§5.2) ---------------------------------------------------------------------------------------

/** Checks a refreshed object; `ok` false keeps the old state. A null object is legal (the object is gone). */
export function checkReadResult(b: Block, v: Value, fqn: string, cfgAddr: string, address: string): { diags: Diagnostic[]; ok: boolean } {
  const invalid = (why: string) => error('Provider produced invalid object', `Provider ${goQuote(fqn)} planned an invalid value for ${address} during refresh: ${why}.\n\n${BUG}`);
  const diags: Diagnostic[] = [];
  if (!v.isWhollyKnown) diags.push(invalid('The returned state contains unknown values'));
  for (const e of conformance(b, v)) diags.push(invalid(formatError(e)));
  if (diags.length) return { diags, ok: false };
  const wo = writeOnlyDiagnostics(
    b,
    v,
    'Provider produced invalid object',
    (p) =>
      `Provider ${goQuote(cfgAddr)} returned a value for the write-only attribute "${address}${formatPath(p)}" during refresh. Write-only attributes cannot be read back from the provider. ${BUG}`,
  );
  return { diags: wo, ok: wo.length === 0 };
}

// ---- PlanResourceChange (§5.3–§5.6) ---------------------------------------------------------------------------

function plannedWriteOnly(b: Block, v: Value, cfgAddr: string, address: string): Diagnostic[] {
  return writeOnlyDiagnostics(
    b,
    v,
    'Provider produced invalid plan',
    (p) =>
      `Provider ${goQuote(cfgAddr)} returned a value for the write-only attribute "${address}${formatPath(p)}" during planning. Write-only attributes cannot be read back from the provider. ${BUG}`,
  );
}

/** The main plan's checks before AssertPlanValid: write-only values, then type conformance. Any error stops. */
export function checkPlannedState(b: Block, v: Value, fqn: string, cfgAddr: string, address: string): Diagnostic[] {
  const wo = plannedWriteOnly(b, v, cfgAddr, address);
  if (wo.length) return wo;
  return conformance(b, v).map((e) =>
    error('Provider produced invalid plan', `Provider ${goQuote(fqn)} planned an invalid value for ${formatErrorPrefixed(e, address)}.\n\n${BUG}`),
  );
}

/**
 * The replacement re-plan's checks (no AssertPlanValid): conformance with Terraform's missing separator between
 * the address and the error, then write-only values.
 */
export function checkReplacePlannedState(b: Block, v: Value, fqn: string, cfgAddr: string, address: string): Diagnostic[] {
  const conf = conformance(b, v).map((e) =>
    error('Provider produced invalid plan', `Provider ${goQuote(fqn)} planned an invalid value for ${address}${formatError(e)}.\n\n${BUG}`),
  );
  if (conf.length) return conf;
  return plannedWriteOnly(b, v, cfgAddr, address);
}

/**
 * getRequiredReplaces: the provider's requires-replace paths that matter. A path found in neither the prior nor the
 * planned value is a provider bug (every path is examined; any such error stops the plan); a path found on one side
 * is compared with null there; a path is kept when the values there differ (or may), or when it is exactly a
 * write-only attribute.
 */
export function requiredReplaces(b: Block, paths: readonly Path[], prior: Value, planned: Value, fqn: string, address: string): { paths: Path[]; diags: Diagnostic[] } {
  const out: Path[] = [];
  const diags: Diagnostic[] = [];
  if (prior.isNull) return { paths: out, diags };
  const wo = writeOnlyPaths(b, planned).map(formatPath);
  for (const p of paths) {
    const a = applyPath(prior, p);
    const c = applyPath(planned, p);
    if (a.error !== undefined && c.error !== undefined) {
      diags.push(error('Provider produced invalid plan', `Provider ${goQuote(fqn)} has indicated "requires replacement" on ${address} for a non-existent attribute path ${goPath(p)}.\n\n${BUG}`));
      continue;
    }
    const av = a.error !== undefined ? Value.null(c.value!.type) : a.value!;
    const cv = c.error !== undefined ? Value.null(av.type) : c.value!;
    const eq = equals(av.unmarkDeep()[0], cv.unmarkDeep()[0]);
    const differs = !eq.isKnown || eq.isNull || !eq.bool;
    if (!differs && !wo.includes(formatPath(p))) continue;
    if (!out.some((q) => formatPath(q) === formatPath(p))) out.push(p);
  }
  return { paths: diags.length ? [] : out, diags };
}

/** planDestroy: the provider must plan null for a destroy. */
export function checkDestroyPlannedState(v: Value, fqn: string, address: string): Diagnostic[] {
  if (v.isNull) return [];
  return [error('Provider produced invalid plan', `Provider ${goQuote(fqn)} planned a non-null destroy value for ${address}.\n\n${BUG}`)];
}

// ---- ApplyResourceChange (§5.7) and the final plan (§5.8) -----------------------------------------------------

/**
 * checkPlannedChange: the apply-time plan against the saved one. An Update that became a NoOp is allowed; a
 * create-before-destroy/destroy-before-create swap is Terraform's own bug; any other action change, and every
 * incompatibility of the new planned value with the saved one, is the provider's.
 */
export function checkFinalPlan(b: Block, savedAction: Action, newAction: Action, savedAfter: Value, newAfter: Value, fqn: string, address: string): Diagnostic[] {
  const diags: Diagnostic[] = [];
  const prefix = `When expanding the plan for ${address} to include new values learned so far during apply,`;
  if (savedAction !== newAction && !(savedAction === 'Update' && newAction === 'NoOp')) {
    const swap = (savedAction === 'CreateThenDelete' && newAction === 'DeleteThenCreate') || (savedAction === 'DeleteThenCreate' && newAction === 'CreateThenDelete');
    if (swap) diags.push(error('Terraform produced inconsistent final plan', `${prefix} the planned action changed from ${savedAction} to ${newAction}.\n\nThis is a bug in Terraform and should be reported.`));
    else diags.push(error('Provider produced inconsistent final plan', `${prefix} provider ${goQuote(fqn)} changed the planned action from ${savedAction} to ${newAction}.\n\n${BUG}`));
  }
  diags.push(...inconsistentFinalPlanDiagnostics(assertObjectCompatible(b, savedAfter, newAfter), address, fqn));
  return diags;
}

/**
 * The checks on ApplyResourceChange's new object, in Terraform's order. `value` is what core goes on with:
 * `undefined` when the object cannot be saved at all (it fails type conformance or carries write-only values:
 * the instance's current object is removed), else the returned object with unknowns nulled. The compatibility
 * with the plan and the null-at-the-wrong-time checks run only when nothing failed before (`priorErrors` are the
 * provider's own errors).
 */
export function checkAppliedState(
  b: Block,
  action: Action,
  planned: Value,
  returned: Value | undefined,
  priorErrors: boolean,
  cfgAddr: string,
  address: string,
  before: Value,
): { value: Value | undefined; diags: Diagnostic[] } {
  const diags: Diagnostic[] = [];
  let v: Value;
  if (isNil(returned)) {
    v = planned.isNull ? Value.null(T.Dynamic) : before;
    if (!priorErrors) diags.push(error('Provider produced invalid object', `Provider ${goQuote(cfgAddr)} produced an invalid nil value after apply for ${address}.\n\n${BUG}`));
    return { value: v, diags };
  }
  v = returned!;
  const conf = conformance(b, v);
  if (conf.length) {
    return {
      value: undefined,
      diags: conf.map((e) =>
        error(
          'Provider produced invalid object',
          `Provider ${goQuote(cfgAddr)} produced an invalid value after apply for ${formatErrorPrefixed(e, address)}. The result cannot not be saved in the Terraform state.\n\n${BUG}`,
        ),
      ),
    };
  }
  const wo = writeOnlyDiagnostics(
    b,
    v,
    'Provider produced invalid object',
    (p) => `Provider ${goQuote(cfgAddr)} returned a value for the write-only attribute "${address}${formatPath(p)}" after apply. Write-only attributes cannot be read back from the provider. ${BUG}`,
  );
  if (wo.length) return { value: undefined, diags: wo };
  if (!v.isWhollyKnown) {
    for (const p of unknownPaths(v)) {
      diags.push(
        error(
          'Provider returned invalid result object after apply',
          `After the apply operation, the provider still indicated an unknown value for ${address}${formatPath(p)}. All values must be known after apply, so this is always a bug in the provider and should be reported in the provider's own repository. Terraform will still save the other known object values in the state.`,
        ),
      );
    }
    v = unknownAsNull(v);
  }
  if (priorErrors || diags.length) return { value: v, diags };
  if (action !== 'Delete') {
    for (const e of assertObjectCompatible(b, planned, v)) {
      diags.push(
        error(
          'Provider produced inconsistent result after apply',
          `When applying changes to ${address}, provider ${goQuote(cfgAddr)} produced an unexpected new value: ${formatError(e)}.\n\n${BUG}`,
        ),
      );
    }
  }
  if (diags.length) return { value: v, diags };
  if (action === 'Delete' && !v.isNull) {
    diags.push(
      error(
        'Provider returned invalid result object after apply',
        `After applying a ${action} plan, the provider returned a non-null object for ${address}. Destroying should always produce a null value, so this is always a bug in the provider and should be reported in the provider's own repository. Terraform will still save this errant object in the state for debugging and recovery.`,
      ),
    );
  } else if (action !== 'Delete' && v.isNull) {
    diags.push(
      error(
        'Provider returned invalid result object after apply',
        `After applying a ${action} plan, the provider returned a null object for ${address}. Only destroying should always produce a null value, so this is always a bug in the provider and should be reported in the provider's own repository.`,
      ),
    );
  }
  return { value: v, diags };
}

// ---- ImportResourceState (§5.9) --------------------------------------------------------------------------------

/**
 * An import block's checks on ImportResourceState's answer: the object to read (the first one; the returned type
 * name is only checked for emptiness), or undefined when core stops. `failed` is set when the import fails after
 * the read that still follows (multiple objects, a null object).
 */
export function checkImported(b: Block, imported: readonly ImportedResource[], id: string, cfgAddr: string, address: string): { object?: ImportedResource; diags: Diagnostic[]; failed: boolean } {
  const diags: Diagnostic[] = [];
  let failed = false;
  if (imported.length > 1) {
    diags.push(error('Multiple import states not supported', `While attempting to import with ID ${id}, the provider returned multiple resource instance states. This is not currently supported.`));
    failed = true;
  }
  if (imported.length === 0) {
    diags.push(error('Import returned no resources', `While attempting to import with ID ${id}, the providerreturned no instance states.`));
    return { diags, failed: true };
  }
  const obj = imported[0];
  if (obj.typeName === '') return { diags: [...diags, error(`import of ${address} didn't set type`)], failed: true };
  const wo = writeOnlyDiagnostics(
    b,
    obj.state,
    'Import returned a non-null value for a write-only attribute',
    (p) =>
      `While attempting to import with ID ${id}, the provider ${goQuote(cfgAddr)} returned a value for the write-only attribute "${address}${formatPath(p)}". Write-only attributes cannot be read back from the provider. ${BUG}`,
  );
  if (wo.length) return { diags: [...diags, ...wo], failed: true };
  if (obj.state.isNull) {
    diags.push(error('Import returned null resource', `While attempting to import with ID ${id}, the providerreturned an instance with no state.`));
    failed = true;
  }
  return { object: obj, diags, failed };
}

/** `terraform import`'s write-only check on each imported object (its own wording, "during import"). */
export function importWriteOnlyDiagnostics(b: Block, v: Value, cfgAddr: string, address: string): Diagnostic[] {
  return writeOnlyDiagnostics(
    b,
    v,
    'Import returned a non-null value for a write-only attribute',
    (p) => `Provider ${goQuote(cfgAddr)} returned a value for the write-only attribute "${address}${formatPath(p)}" during import. Write-only attributes cannot be read back from the provider. ${BUG}`,
  );
}

// ---- ReadDataSource (§5.10) ------------------------------------------------------------------------------------

/**
 * Checks a data source's result; `value` is what core keeps (unknowns nulled), or undefined when the result cannot
 * be used (it fails conformance or is null).
 */
export function checkDataSourceResult(b: Block, v: Value, cfgAddr: string, address: string): { value: Value | undefined; diags: Diagnostic[] } {
  const conf = conformance(b, v);
  if (conf.length) {
    return {
      value: undefined,
      diags: conf.map((e) => error('Provider produced invalid object', `Provider ${goQuote(cfgAddr)} produced an invalid value for ${formatErrorPrefixed(e, address)}.\n\n${BUG}`)),
    };
  }
  if (v.isNull) return { value: undefined, diags: [error('Provider produced null object', `Provider ${goQuote(cfgAddr)} produced a null value for ${address}.\n\n${BUG}`)] };
  if (!v.isWhollyKnown) {
    return {
      value: unknownAsNull(v),
      diags: [error('Provider produced invalid object', `Provider ${goQuote(cfgAddr)} produced a value for ${address} that is not wholly known.\n\n${BUG}`)],
    };
  }
  return { value: v, diags: [] };
}
