// AssertPlanValid: checks a provider's planned state against the prior state and the configuration, as
// Terraform's objchange.AssertPlanValid (reference §3). A valid plan keeps every configured value (or,
// for a value the provider declares equivalent, the prior value), only fills in computed attributes, keeps
// the configured nested blocks, and never turns a block itself into an unknown.
//
// Each problem is a PathError whose message is Terraform's exact text; `invalidPlanDiagnostics` wraps them
// as core reports them ("Provider produced invalid plan"). Errors are returned in schema order (attributes
// by name, then block types by name); Terraform's own order is Go-map order and not deterministic.
// Inputs are unmarked. Siblings: proposed.ts, compatible.ts, values.ts.

import type { Diagnostic } from '../../diags/diagnostic';
import { error as errorDiag } from '../../diags/diagnostic';
import { Num } from '../../lang/number';
import * as T from '../../lang/types';
import { Value } from '../../lang/value';
import type { FullRefinements } from '../../providers/gostring';
import { goQuote, goString, refinementsOf } from '../../providers/gostring';
import type { Path, PathError } from '../../providers/path';
import { attrStep, formatError, formatErrorPrefixed, indexStep, pathError } from '../../providers/path';
import type { Attribute, Block, NestedObject } from '../../providers/schema';
import { attributeType, impliedType, nestedObjectElementType } from '../../providers/schema';
import { attrOf, exactEq, unrefinedEq } from './values';

const BUG = "This is a bug in the provider, which should be reported in the provider's own issue tracker.";

/** All the ways `planned` violates the contract for a plan from `prior` and `config` (objchange.AssertPlanValid). */
export function assertPlanValid(b: Block, prior: Value, config: Value, planned: Value): PathError[] {
  const errs: PathError[] = [];
  planValid(b, prior, config, planned, [], errs);
  return errs;
}

const sortedCache = new WeakMap<object, [string, unknown][]>();
function sorted<V>(r: Readonly<Record<string, V>>): [string, V][] {
  let e = sortedCache.get(r);
  if (!e) {
    e = Object.entries(r).sort((a, b) => T.compareBytes(a[0], b[0]));
    sortedCache.set(r, e);
  }
  return e as [string, V][];
}

function planValid(b: Block, prior: Value, config: Value, planned: Value, path: Path, errs: PathError[]): void {
  if (planned.isNull && !config.isNull) {
    errs.push(pathError(path, 'planned for absence but config wants existence'));
    return;
  }
  if (config.isNull && !planned.isNull) {
    errs.push(pathError(path, 'planned for existence but config wants absence'));
    return;
  }
  if (planned.isNull) return;
  attrsValid(b.attributes, prior, config, planned, path, errs);
  const impTy = impliedType(b);
  for (const [name, bs] of sorted(b.blockTypes)) {
    const p = [...path, attrStep(name)];
    const plannedV = attrOf(planned, name);
    let configV = attrOf(config, name);
    const priorV = prior.isNull ? Value.null(impTy.attrs.get(name)!) : attrOf(prior, name);
    if (exactEq(plannedV, configV)) continue;
    if (!configV.isKnown) {
      errs.push(pathError(p, `planned value ${goString(plannedV)} for unknown dynamic block`));
      continue;
    }
    if (!plannedV.isKnown) {
      errs.push(pathError(p, 'attribute representing nested block must not be unknown itself; set nested attribute values to unknown instead'));
      continue;
    }
    const elemTy = impliedType(bs.block);
    switch (bs.nesting) {
      case 'single':
      case 'group':
        planValid(bs.block, priorV, configV, plannedV, p, errs);
        break;
      case 'list': {
        if (plannedV.isNull) {
          errs.push(pathError(p, 'attribute representing a list of nested blocks must be empty to indicate no blocks, not null'));
          continue;
        }
        if (configV.isNull) configV = Value.list([], elemTy);
        const plannedL = plannedV.elems.length;
        const configL = configV.elems.length;
        if (plannedL !== configL) {
          errs.push(pathError(p, `block count in plan (${plannedL}) disagrees with count in config (${configL})`));
          continue;
        }
        plannedV.elems.forEach((plannedEV, i) => {
          const ep = [...p, indexStep(i)];
          if (!plannedEV.isKnown) {
            errs.push(pathError(ep, 'element representing nested block must not be unknown itself; set nested attribute values to unknown instead'));
            return;
          }
          const priorEV = !priorV.isNull && priorV.isKnown && i < priorV.elems.length ? priorV.elems[i] : Value.null(elemTy);
          planValid(bs.block, priorEV, configV.elems[i], plannedEV, ep, errs);
        });
        break;
      }
      case 'map': {
        if (plannedV.isNull) {
          errs.push(pathError(p, 'attribute representing a map of nested blocks must be empty to indicate no blocks, not null'));
          continue;
        }
        const priorMap = !priorV.isNull && priorV.isKnown ? priorV.entries : new Map<string, Value>();
        const configMap = configV.isNull ? new Map<string, Value>() : configV.entries;
        const plannedKeys = [...plannedV.entries.keys()].sort(T.compareBytes);
        const configKeys = [...configMap.keys()].sort(T.compareBytes);
        if (plannedV.type.kind === 'object') {
          for (const k of plannedKeys) {
            if (!configMap.has(k)) {
              errs.push(pathError(p, `block key ${goQuote(k)} from plan is not present in config`));
              continue;
            }
            const ep = [...p, attrStep(k)];
            const plannedEV = plannedV.entries.get(k)!;
            if (!plannedEV.isKnown) {
              errs.push(pathError(ep, 'element representing nested block must not be unknown itself; set nested attribute values to unknown instead'));
              continue;
            }
            planValid(bs.block, priorMap.get(k) ?? Value.null(elemTy), configMap.get(k)!, plannedEV, ep, errs);
          }
          for (const k of configKeys) {
            if (!plannedV.entries.has(k)) errs.push(pathError(p, `block key ${goQuote(k)} from config is not present in plan`));
          }
          break;
        }
        if (plannedKeys.length !== configKeys.length) {
          errs.push(pathError(p, `block count in plan (${plannedKeys.length}) disagrees with count in config (${configKeys.length})`));
          continue;
        }
        for (const k of plannedKeys) {
          const ep = [...p, indexStep(Value.string(k))];
          const plannedEV = plannedV.entries.get(k)!;
          if (!plannedEV.isKnown) {
            errs.push(pathError(ep, 'element representing nested block must not be unknown itself; set nested attribute values to unknown instead'));
            continue;
          }
          if (!configMap.has(k)) {
            errs.push(pathError(ep, `block key ${goQuote(k)} from plan is not present in config`));
            continue;
          }
          planValid(bs.block, priorMap.get(k) ?? Value.null(elemTy), configMap.get(k)!, plannedEV, ep, errs);
        }
        for (const k of configKeys) {
          if (!plannedV.entries.has(k)) errs.push(pathError(p, `block key ${goQuote(k)} from config is not present in plan`));
        }
        break;
      }
      case 'set': {
        if (plannedV.isNull) {
          errs.push(pathError(p, 'attribute representing a set of nested blocks must be empty to indicate no blocks, not null'));
          continue;
        }
        for (const plannedEV of plannedV.elems) {
          if (!plannedEV.isKnown) {
            errs.push(pathError([...p, indexStep(plannedEV)], 'element representing nested block must not be unknown itself; set nested attribute values to unknown instead'));
          }
        }
        break;
      }
    }
  }
}

function attrsValid(attrs: Readonly<Record<string, Attribute>>, prior: Value, config: Value, planned: Value, path: Path, errs: PathError[]): void {
  for (const [name, a] of sorted(attrs)) {
    const plannedV = attrOf(planned, name);
    const configV = attrOf(config, name);
    const priorV = prior.isNull ? Value.null(attributeType(a)) : attrOf(prior, name);
    plannedValueValid(a, priorV, configV, plannedV, [...path, attrStep(name)], errs);
  }
}

function plannedValueValid(a: Attribute, priorV: Value, configV: Value, plannedV: Value, path: Path, errs: PathError[]): void {
  if (unrefinedEq(plannedV, configV)) return;
  if (!priorV.isNull && !configV.isNull && unrefinedEq(plannedV, priorV)) return;
  if (a.writeOnly) {
    if (!plannedV.isNull) errs.push(pathError(path, 'planned value for write-only attribute is not null'));
    return;
  }
  if (a.computed && !a.optional) return;
  if (configV.isNull && a.computed) return;
  if (configV.isNull && !plannedV.isNull) {
    errs.push(pathError(path, a.sensitive ? 'sensitive planned value for a non-computed attribute' : `planned value ${goString(plannedV)} for a non-computed attribute`));
    return;
  }
  if (a.nestedType) {
    plannedObjectValid(a.nestedType, priorV, configV, plannedV, path, errs);
    return;
  }
  if (priorV.isNull) {
    errs.push(
      pathError(path, a.sensitive ? 'sensitive planned value does not match config value' : `planned value ${goString(plannedV)} does not match config value ${goString(configV)}`),
    );
    return;
  }
  errs.push(
    pathError(
      path,
      a.sensitive
        ? 'sensitive planned value does not match config value nor prior value'
        : `planned value ${goString(plannedV)} does not match config value ${goString(configV)} nor prior value ${goString(priorV)}`,
    ),
  );
}

// ---- collection lengths as cty computes them (Value.Length) --------------------------------------------------

const MAX_INT = Num.fromInt(2n ** 63n - 1n);

/**
 * cty's Length of a collection as a number value: known for known lists and maps (and for known sets that
 * are wholly known or have one element); a set with unknowns has a length refined to [1, n]; an unknown
 * collection has a not-null length refined to its length bounds (default [0, MaxInt64]).
 */
export function ctyLength(v: Value): Value {
  if (v.type.kind === 'tuple') return Value.number(Num.fromInt(v.type.elems.length));
  if (!v.isKnown) {
    const r = refinementsOf(v);
    const lower = r?.lengthLower ?? 0;
    const upper = r?.lengthUpper !== undefined ? Num.fromInt(r.lengthUpper) : MAX_INT;
    const refs: FullRefinements = {
      notNull: true,
      numberLower: { value: Num.fromInt(lower), inclusive: true },
      numberUpper: { value: upper, inclusive: true },
    };
    return Value.unknown(T.Number, refs);
  }
  const n = v.type.kind === 'map' || v.type.kind === 'object' ? v.entries.size : v.elems.length;
  if (v.type.kind === 'set' && n !== 1 && !v.isWhollyKnown) {
    const refs: FullRefinements = { notNull: true, numberLower: { value: Num.fromInt(1), inclusive: true }, numberUpper: { value: Num.fromInt(n), inclusive: true } };
    return Value.unknown(T.Number, refs);
  }
  return Value.number(Num.fromInt(n));
}

/** Whether a number range (a known number, or a refined unknown) definitely excludes a known number. */
function rangeExcludes(rng: Value, n: Value): boolean {
  if (!n.isKnown) return false;
  if (rng.isKnown) return !rng.num.equals(n.num);
  const r = refinementsOf(rng);
  if (r?.numberLower) {
    const c = n.num.cmp(r.numberLower.value);
    if (c < 0 || (c === 0 && !r.numberLower.inclusive)) return true;
  }
  if (r?.numberUpper) {
    const c = n.num.cmp(r.numberUpper.value);
    if (c > 0 || (c === 0 && !r.numberUpper.inclusive)) return true;
  }
  return false;
}

function plannedObjectValid(o: NestedObject, prior: Value, config: Value, planned: Value, path: Path, errs: PathError[]): void {
  if (planned.isNull && !config.isNull) {
    errs.push(pathError(path, 'planned for absence but config wants existence'));
    return;
  }
  if (config.isNull && !planned.isNull) {
    errs.push(pathError(path, 'planned for existence but config wants absence'));
    return;
  }
  if (!config.isNull && !planned.isKnown) {
    errs.push(pathError(path, 'planned unknown for configured value'));
    return;
  }
  if (planned.isNull) return;
  const elemTy = nestedObjectElementType(o);
  switch (o.nesting) {
    case 'single':
      attrsValid(o.attributes, prior, config, planned, path, errs);
      return;
    case 'list':
    case 'map': {
      const plannedL = ctyLength(planned);
      const configL = ctyLength(config);
      if (!plannedL.isKnown && !configL.isKnown) return;
      if (!plannedL.isKnown || !configL.isKnown || !plannedL.num.equals(configL.num)) {
        errs.push(pathError(path, `count in plan (${goString(plannedL)}) disagrees with count in config (${goString(configL)})`));
        return;
      }
      if (o.nesting === 'list') {
        planned.elems.forEach((plannedEV, i) => {
          if (i >= config.elems.length) return;
          const priorEV = !prior.isNull && prior.isKnown && i < prior.elems.length ? prior.elems[i] : Value.null(elemTy);
          attrsValid(o.attributes, priorEV, config.elems[i], plannedEV, [...path, indexStep(i)], errs);
        });
        return;
      }
      const priorMap = !prior.isNull && prior.isKnown ? prior.entries : new Map<string, Value>();
      for (const k of [...planned.entries.keys()].sort(T.compareBytes)) {
        const configEV = config.entries.get(k);
        if (!configEV) {
          errs.push(pathError(path, `map key ${goQuote(k)} from plan is not present in config`));
          continue;
        }
        attrsValid(o.attributes, priorMap.get(k) ?? Value.null(elemTy), configEV, planned.entries.get(k)!, [...path, attrStep(k)], errs);
      }
      for (const k of [...config.entries.keys()].sort(T.compareBytes)) {
        if (!planned.entries.has(k)) errs.push(pathError(path, `map key ${goQuote(k)} from config is not present in plan`));
      }
      return;
    }
    case 'set': {
      const plannedL = ctyLength(planned);
      const configL = ctyLength(config);
      if (rangeExcludes(plannedL, configL)) {
        errs.push(pathError(path, `count in plan (${goString(plannedL)}) disagrees with count in config (${goString(configL)})`));
      }
      return;
    }
  }
}

// ---- diagnostics ---------------------------------------------------------------------------------------------

/**
 * Core's diagnostics for AssertPlanValid errors: summary "Provider produced invalid plan", detail naming the
 * provider by its fully-qualified address (e.g. registry.terraform.io/hashicorp/aws) and the resource address.
 */
export function invalidPlanDiagnostics(errs: readonly PathError[], providerFqn: string, address: string): Diagnostic[] {
  return errs.map((e) =>
    errorDiag('Provider produced invalid plan', `Provider ${goQuote(providerFqn)} planned an invalid value for ${formatErrorPrefixed(e, address)}.\n\n${BUG}`, undefined, {
      source: 'plan',
    }),
  );
}

/** The log line core writes instead of diagnostics when a legacy-SDK provider's plan is invalid. */
export function legacyInvalidPlanWarning(errs: readonly PathError[], providerFqn: string, address: string): string {
  let s = `[WARN] Provider ${goQuote(providerFqn)} produced an invalid plan for ${address}, but we are tolerating it because it is using the legacy plugin SDK.\n    The following problems may be the cause of any confusing errors from downstream operations:`;
  for (const e of errs) s += `\n      - ${formatError(e)}`;
  return s;
}
