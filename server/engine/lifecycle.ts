// lifecycle.ignore_changes (Terraform's processIgnoreChanges): configured values at the ignored paths are replaced
// by the prior object's values before ProposedNew and PlanResourceChange, in plan and again in apply.
//
// Contract: pure; `all` keeps every prior attribute; a path may hold attribute steps and string or number index
// steps (`tags["Name"]`, `list[0]`); a path that does not exist in the configuration is ignored. No prior object
// (a create) leaves the configuration unchanged.

import type { Expression } from '../config/hclbody';
import { Value } from '../lang/value';

type Step = string | number;

function stepsOf(e: Expression): { steps: Step[]; indexes: boolean[] } | undefined {
  const ref = e.refs[0];
  if (!ref) return undefined;
  const steps: Step[] = [ref.root];
  const indexes = [false];
  for (const s of ref.steps) {
    steps.push(s.kind === 'attr' ? s.name : s.key);
    indexes.push(s.kind === 'index');
  }
  return { steps, indexes };
}

function child(v: Value, s: Step): Value | undefined {
  if (!v.isKnown || v.isNull) return undefined;
  const k = v.type.kind;
  if ((k === 'object' || k === 'map') && typeof s === 'string') return v.entries.get(s);
  if ((k === 'list' || k === 'tuple') && typeof s === 'number') return v.elems[s];
  return undefined;
}

function replaceAt(config: Value, prior: Value | undefined, steps: Step[], indexes: boolean[] = []): Value {
  if (!steps.length) return prior ?? config;
  const isIndex = indexes[0] === true;
  if (!config.isKnown || config.isNull) return config;
  const [h, ...t] = steps;
  const k = config.type.kind;
  const cur = child(config, h);
  const pv = prior ? child(prior, h) : undefined;
  if (k === 'object' && typeof h === 'string' && config.entries.has(h) && !isIndex) {
    const m = new Map(config.entries);
    m.set(h, replaceAt(cur!, pv ?? Value.null(cur!.type), t, indexes.slice(1)));
    return Value.raw(config.type, m, config.marks);
  }
  if (k === 'map' && typeof h === 'string') {
    const m = new Map(config.entries);
    if (t.length === 0) {
      // The whole element: keep the prior element, or drop a newly added one.
      if (pv) m.set(h, pv);
      else m.delete(h);
    } else if (cur) m.set(h, replaceAt(cur, pv, t, indexes.slice(1)));
    else return config;
    return Value.raw(config.type, m, config.marks);
  }
  // Index steps into anything but a map (objects of dynamically-typed attributes, lists) ignore the whole value, as
  // Terraform does (only map elements are ignored individually).
  if (isIndex || typeof h === 'number' || k !== 'object') return prior ?? config;
  return config;
}

/** The configuration with ignore_changes applied against the prior object (both unmarked). */
export function applyIgnoreChanges(config: Value, prior: Value, ic: Expression[] | 'all' | undefined): Value {
  if (!ic || prior.isNull || !prior.isKnown || !config.isKnown || config.isNull) return config;
  if (ic === 'all') {
    const m = new Map<string, Value>();
    for (const [k, v] of config.entries) m.set(k, prior.entries.get(k) ?? v);
    return Value.raw(config.type, m);
  }
  let out = config;
  for (const e of ic) {
    const p = stepsOf(e);
    if (p) out = replaceAt(out, prior, p.steps, p.indexes);
  }
  return out;
}
