// AssertObjectCompatible: is `actual` a valid completion of the possibly-unknown `planned`? As Terraform's
// objchange.AssertObjectCompatible (reference §4). Every known value in the plan must be equal in the
// result; an unknown may become any value of its type that satisfies its refinements; known never becomes
// unknown; nested block counts and keys only change where the plan had unknown placeholders.
//
// Core uses it twice: after ApplyResourceChange (planned After vs new state: "Provider produced inconsistent
// result after apply") and during apply's re-plan (saved After vs new After: "Provider produced
// inconsistent final plan"); the wrappers at the end build those diagnostics with Terraform's exact texts.
// Values may carry marks; an attribute that is schema-sensitive or marked sensitive reports only
// "inconsistent values for sensitive attribute". Errors come in schema order (Terraform's is Go-map order).
// Siblings: valid.ts, conformance.ts (type mismatch texts), values.ts.

import type { Diagnostic } from '../../diags/diagnostic';
import { error as errorDiag } from '../../diags/diagnostic';
import * as T from '../../lang/types';
import { Value } from '../../lang/value';
import { goQuote, goString, refinementsOf } from '../../providers/gostring';
import type { Path, PathError } from '../../providers/path';
import { attrStep, formatError, indexStep, pathError } from '../../providers/path';
import type { Block } from '../../providers/schema';
import { mismatchMessage, testConformance } from './conformance';
import { attrOf, lengthOf } from './values';

const BUG = "This is a bug in the provider, which should be reported in the provider's own issue tracker.";

/** All the ways `actual` is not a valid completion of `planned` for a resource of this schema. */
export function assertObjectCompatible(b: Block, planned: Value, actual: Value): PathError[] {
  const errs: PathError[] = [];
  objectCompatible(b, planned, actual, [], errs);
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

function objectCompatible(b: Block, planned: Value, actual: Value, path: Path, errs: PathError[]): void {
  const atRoot = path.length === 0 ? 'Root object ' : '';
  if (planned.isNull && !actual.isNull) {
    errs.push(pathError(path, `${atRoot}was absent, but now present`));
    return;
  }
  if (actual.isNull && !planned.isNull) {
    errs.push(pathError(path, `${atRoot}was present, but now absent`));
    return;
  }
  if (planned.isNull) return;

  for (const [name, a] of sorted(b.attributes)) {
    const p = [...path, attrStep(name)];
    const [plannedV, marksP] = attrOf(planned, name).unmarkDeep();
    const [actualV, marksA] = attrOf(actual, name).unmarkDeep();
    const more: PathError[] = [];
    valueCompatible(plannedV, actualV, p, more);
    if (a.sensitive || marksP.has('sensitive') || marksA.has('sensitive')) {
      if (more.length) errs.push(pathError(p, 'inconsistent values for sensitive attribute'));
    } else errs.push(...more);
  }

  for (const [name, bs] of sorted(b.blockTypes)) {
    const p = [...path, attrStep(name)];
    const plannedV = attrOf(planned, name).unmark()[0];
    const actualV = attrOf(actual, name).unmark()[0];
    switch (bs.nesting) {
      case 'single':
      case 'group':
        if (!plannedV.isKnown && actualV.isNull) continue;
        objectCompatible(bs.block, plannedV, actualV, p, errs);
        break;
      case 'list': {
        if (!plannedV.isKnown || !actualV.isKnown || plannedV.isNull || actualV.isNull) continue;
        const plannedL = plannedV.elems.length;
        const actualL = actualV.elems.length;
        if (plannedL !== actualL) {
          errs.push(pathError(p, `block count changed from ${plannedL} to ${actualL}`));
          continue;
        }
        plannedV.elems.forEach((pe, i) => objectCompatible(bs.block, pe, actualV.elems[i], [...p, indexStep(i)], errs));
        break;
      }
      case 'map': {
        if (plannedV.type.kind === 'object') {
          const plannedKeys = T.attrNames(plannedV.type);
          const actualAttrs = actualV.type.kind === 'object' ? actualV.type.attrs : new Map<string, T.Type>();
          for (const k of plannedKeys) {
            if (!actualAttrs.has(k)) {
              errs.push(pathError(p, `block key ${goQuote(k)} has vanished`));
              continue;
            }
            objectCompatible(bs.block, attrOf(plannedV, k), attrOf(actualV, k), [...p, attrStep(k)], errs);
          }
          if (plannedV.isKnown) {
            for (const k of [...actualAttrs.keys()].sort(T.compareBytes)) {
              if (!plannedV.type.attrs.has(k)) errs.push(pathError(p, `new block key ${goQuote(k)} has appeared`));
            }
          }
          break;
        }
        if (!plannedV.isKnown || plannedV.isNull || actualV.isNull || !actualV.isKnown) continue;
        const plannedL = plannedV.entries.size;
        const actualL = actualV.entries.size;
        if (plannedL !== actualL) {
          errs.push(pathError(p, `block count changed from ${plannedL} to ${actualL}`));
          continue;
        }
        for (const k of [...plannedV.entries.keys()].sort(T.compareBytes)) {
          const ae = actualV.entries.get(k);
          if (ae) objectCompatible(bs.block, plannedV.entries.get(k)!, ae, [...p, indexStep(Value.string(k))], errs);
        }
        break;
      }
      case 'set': {
        if (!plannedV.isKnown || !actualV.isKnown || plannedV.isNull || actualV.isNull) continue;
        errs.push(
          ...setValuesCompatible(plannedV, actualV, p, (pe, ae) => {
            const e: PathError[] = [];
            objectCompatible(bs.block, pe, ae, [...p, indexStep(ae)], e);
            return e.length === 0;
          }),
        );
        const plannedL = plannedV.elems.length;
        const actualL = actualV.elems.length;
        if (plannedL < actualL) errs.push(pathError(p, `block set length changed from ${plannedL} to ${actualL}`));
        break;
      }
    }
  }
}

/**
 * Whether an unknown planned value's refinements definitely exclude `actual` (cty's Range().Includes
 * being known false). Undecidable cases are accepted.
 */
function rangeExcludes(planned: Value, actual: Value): boolean {
  const r = refinementsOf(planned);
  if (r?.isNull) return !actual.isNull && actual.isKnown;
  if (actual.isNull) return !!r?.notNull;
  if (!actual.isKnown || !r) return false;
  const k = actual.type.kind;
  if (k === 'string' && r.stringPrefix && !actual.str.startsWith(r.stringPrefix)) return true;
  if (k === 'number') {
    if (r.numberLower) {
      const c = actual.num.cmp(r.numberLower.value);
      if (c < 0 || (c === 0 && !r.numberLower.inclusive)) return true;
    }
    if (r.numberUpper) {
      const c = actual.num.cmp(r.numberUpper.value);
      if (c > 0 || (c === 0 && !r.numberUpper.inclusive)) return true;
    }
  }
  if (k === 'list' || k === 'set' || k === 'map') {
    const n = lengthOf(actual);
    if (r.lengthLower !== undefined && n < r.lengthLower) return true;
    if (r.lengthUpper !== undefined && n > r.lengthUpper) return true;
  }
  return false;
}

/** `indexStrForErrors`: numbers in plain decimal, strings Go-quoted. */
function indexStr(k: Value): string {
  if (k.type.kind === 'number') return k.num.toString();
  if (k.type.kind === 'string') return goQuote(k.str);
  return goString(k);
}

function valueCompatible(planned: Value, actual: Value, path: Path, errs: PathError[]): void {
  if (planned.type.kind === 'dynamic') return;
  if (testConformance(actual.type, planned.type).length > 0) {
    errs.push(pathError(path, `wrong final value type: ${mismatchMessage(actual.type, planned.type)}`));
    return;
  }
  if (!planned.isKnown) {
    if (rangeExcludes(planned, actual)) {
      errs.push(pathError(path, `final value ${goString(actual)} does not conform to planning placeholder ${goString(planned)}`));
    }
    return;
  }
  if (actual.isNull) {
    if (!planned.isNull) errs.push(pathError(path, `was ${goString(planned)}, but now null`));
    return;
  }
  if (planned.isNull) {
    errs.push(pathError(path, `was null, but now ${goString(actual)}`));
    return;
  }
  if (!actual.isKnown) {
    errs.push(pathError(path, 'was known, but now unknown'));
    return;
  }
  const k = planned.type.kind;
  switch (k) {
    case 'string':
    case 'bool':
    case 'number': {
      const eq = k === 'number' ? planned.num.equals(actual.num) : planned.data === actual.data;
      if (!eq) errs.push(pathError(path, `was ${goString(planned)}, but now ${goString(actual)}`));
      return;
    }
    case 'list':
    case 'tuple': {
      const pe = planned.elems;
      const ae = actual.elems;
      for (let i = 0; i < pe.length; i++) {
        if (i >= ae.length) {
          errs.push(pathError(path, `element ${i} has vanished`));
          continue;
        }
        valueCompatible(pe[i], ae[i], [...path, indexStep(i)], errs);
      }
      for (let i = pe.length; i < ae.length; i++) errs.push(pathError(path, `new element ${i} has appeared`));
      return;
    }
    case 'map': {
      const pk = [...planned.entries.keys()].sort(T.compareBytes);
      for (const key of pk) {
        const a = actual.entries.get(key);
        if (!a) {
          errs.push(pathError(path, `element ${indexStr(Value.string(key))} has vanished`));
          continue;
        }
        valueCompatible(planned.entries.get(key)!, a, [...path, indexStep(Value.string(key))], errs);
      }
      for (const key of [...actual.entries.keys()].sort(T.compareBytes)) {
        if (!planned.entries.has(key)) errs.push(pathError(path, `new element ${indexStr(Value.string(key))} has appeared`));
      }
      return;
    }
    case 'object':
      for (const name of T.attrNames(planned.type as T.ObjectType)) {
        valueCompatible(attrOf(planned, name), attrOf(actual, name), [...path, attrStep(name)], errs);
      }
      return;
    case 'set': {
      errs.push(
        ...setValuesCompatible(planned, actual, path, (pv, av) => {
          const e: PathError[] = [];
          valueCompatible(pv, av, [...path, indexStep(av)], e);
          return e.length === 0;
        }),
      );
      const plannedL = planned.elems.length;
      const actualL = actual.elems.length;
      if (plannedL < actualL) errs.push(pathError(path, `length changed from ${plannedL} to ${actualL}`));
      return;
    }
  }
}

/** Every planned element must have an equivalent actual element, and then every actual element a planned one. */
function setValuesCompatible(planned: Value, actual: Value, path: Path, equiv: (p: Value, a: Value) => boolean): PathError[] {
  const as = planned.elems;
  const bs = actual.elems;
  const aeqs = new Array<boolean>(as.length).fill(false);
  const beqs = new Array<boolean>(bs.length).fill(false);
  for (let i = 0; i < as.length; i++) {
    for (let j = 0; j < bs.length; j++) {
      if (equiv(as[i], bs[j])) {
        aeqs[i] = true;
        beqs[j] = true;
      }
    }
  }
  const errs: PathError[] = [];
  aeqs.forEach((eq, i) => {
    if (!eq) errs.push(pathError(path, `planned set element ${goString(as[i])} does not correlate with any element in actual`));
  });
  if (errs.length) return errs;
  beqs.forEach((eq, j) => {
    if (!eq) errs.push(pathError(path, `actual set element ${goString(bs[j])} does not correlate with any element in plan`));
  });
  return errs;
}

// ---- diagnostics ---------------------------------------------------------------------------------------------

/**
 * Core's diagnostics for incompatibilities after ApplyResourceChange: "Provider produced inconsistent
 * result after apply", naming the provider by its configuration address (e.g.
 * `provider["registry.terraform.io/hashicorp/aws"]`, quoted with Go escapes).
 */
export function inconsistentResultDiagnostics(errs: readonly PathError[], address: string, providerConfigAddr: string): Diagnostic[] {
  return errs.map((e) =>
    errorDiag(
      'Provider produced inconsistent result after apply',
      `When applying changes to ${address}, provider ${goQuote(providerConfigAddr)} produced an unexpected new value: ${formatError(e)}.\n\n${BUG}`,
      undefined,
      { source: 'apply' },
    ),
  );
}

/** Core's diagnostics for an apply-time plan incompatible with the saved plan (provider named by FQN). */
export function inconsistentFinalPlanDiagnostics(errs: readonly PathError[], address: string, providerFqn: string): Diagnostic[] {
  return errs.map((e) =>
    errorDiag(
      'Provider produced inconsistent final plan',
      `When expanding the plan for ${address} to include new values learned so far during apply, provider ${goQuote(providerFqn)} produced an invalid new value for ${formatError(e)}.\n\n${BUG}`,
      undefined,
      { source: 'apply' },
    ),
  );
}

/** The log line core writes instead of diagnostics when a legacy-SDK provider's apply result is inconsistent. */
export function legacyInconsistentResultWarning(errs: readonly PathError[], providerConfigAddr: string, address: string): string {
  let s = `[WARN] Provider ${goQuote(providerConfigAddr)} produced an unexpected new value for ${address}, but we are tolerating it because it is using the legacy plugin SDK.\n    The following problems may be the cause of any confusing errors from downstream operations:`;
  for (const e of errs) s += `\n      - ${formatError(e)}`;
  return s;
}
