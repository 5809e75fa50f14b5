// ProposedNew: the "proposed new state" core sends to PlanResourceChange, merged from the prior state and
// the configuration exactly as Terraform's objchange.ProposedNew (reference §2), and
// PlannedDataResourceObject, core's own plan for a data source it cannot read yet (§2.7).
//
// Rules in short: non-computed attributes take the configuration value (even null); computed attributes
// the configuration leaves null keep the prior value (except optional nested attribute types whose prior
// holds non-computed values: they must have come from removed configuration, so null is proposed);
// nested blocks and nested attribute types are merged recursively, list elements by position, map
// elements by key, set elements by finding a prior element that differs only in computed attributes.
// Both inputs are unmarked and conform to the schema; the prior is wholly known (except the unknown prior
// of PlannedDataResourceObject). Siblings: valid.ts (AssertPlanValid), compatible.ts, values.ts.

import * as T from '../../lang/types';
import { Value } from '../../lang/value';
import type { Path } from '../../providers/path';
import { applyPath } from '../../providers/path';
import type { Attribute, Block, NestedBlock, NestedObject } from '../../providers/schema';
import { attributeByPath, attributeType, emptyValue, impliedType, objectAttributeByPath } from '../../providers/schema';
import { attrOf, elemType, unrefinedEq, walk } from './values';

/** Correlation strategy for one nested schema: blocks and nested attribute types merge elements differently. */
interface Nested {
  /** Merges one collection element of config with its correlated prior element. */
  merge(prior: Value, config: Value): Value;
  /** The attribute a path inside one element leads to. */
  attributeByPath(p: Path): Attribute | undefined;
}

const blockNestedCache = new WeakMap<Block, Nested>();
function blockNested(b: Block): Nested {
  let n = blockNestedCache.get(b);
  if (!n) {
    n = { merge: (prior, config) => proposedNew(b, prior, config), attributeByPath: (p) => attributeByPath(b, p) };
    blockNestedCache.set(b, n);
  }
  return n;
}

const objectNestedCache = new WeakMap<NestedObject, Nested>();
function objectNested(o: NestedObject): Nested {
  let n = objectNestedCache.get(o);
  if (!n) {
    n = {
      merge: (prior, config) => (config.isNull ? config : Value.object(proposedNewAttributes(o.attributes, prior, config))),
      attributeByPath: (p) => objectAttributeByPath(o, p),
    };
    objectNestedCache.set(o, n);
  }
  return n;
}

const entriesCache = new WeakMap<object, [string, unknown][]>();
function entriesOf<V>(r: Readonly<Record<string, V>>): [string, V][] {
  let e = entriesCache.get(r);
  if (!e) {
    e = Object.entries(r);
    entriesCache.set(r, e);
  }
  return e as [string, V][];
}

/**
 * The proposed new state for a managed resource (objchange.ProposedNew): both null → the (null) prior;
 * a null prior is replaced by the block's empty value; then the block algorithm runs.
 */
export function proposedNew(b: Block, prior: Value, config: Value): Value {
  if (config.isNull && prior.isNull) return prior;
  if (prior.isNull) prior = emptyValue(b);
  return proposedNewBlock(b, prior, config);
}

/**
 * Core's planned value for a data source read deferred to apply: the block algorithm with a wholly unknown
 * prior, so computed attributes left null in config become unknown (except inside set and map blocks and
 * nested attribute types, which treat an unknown prior as "no prior").
 */
export function plannedDataResourceObject(b: Block, config: Value): Value {
  return proposedNewBlock(b, Value.unknown(impliedType(b)), config);
}

function proposedNewBlock(b: Block, prior: Value, config: Value): Value {
  if (config.isNull || !config.isKnown) return prior;
  const out = proposedNewAttributes(b.attributes, prior, config);
  for (const [name, nb] of entriesOf(b.blockTypes)) {
    out.set(name, proposedNewNestedBlock(nb, attrOf(prior, name), attrOf(config, name)));
  }
  return Value.object(out);
}

function proposedNewNestedBlock(nb: NestedBlock, prior: Value, config: Value): Value {
  if (!config.isKnown) return config;
  switch (nb.nesting) {
    case 'single':
      if (config.isNull) return Value.null(config.type);
      return proposedNew(nb.block, prior, config);
    case 'group':
      return proposedNew(nb.block, prior, config);
    case 'list':
      return proposedNewNestingList(blockNested(nb.block), prior, config);
    case 'map':
      return proposedNewNestingMap(blockNested(nb.block), prior, config);
    case 'set':
      return proposedNewNestingSet(blockNested(nb.block), prior, config);
  }
}

function proposedNewAttributes(attrs: Readonly<Record<string, Attribute>>, prior: Value, config: Value): Map<string, Value> {
  const out = new Map<string, Value>();
  const priorNull = prior.isNull;
  for (const [name, a] of entriesOf(attrs)) {
    const priorV = priorNull ? Value.null(attributeType(a)) : attrOf(prior, name);
    const configV = attrOf(config, name);
    let newV: Value;
    if (a.computed && configV.isNull) {
      newV = priorV;
      if (optionalValueNotComputable(a, priorV)) newV = configV;
    } else if (a.nestedType) {
      newV = proposedNewNestedType(a.nestedType, priorV, configV);
    } else {
      newV = configV;
    }
    out.set(name, newV);
  }
  return out;
}

/**
 * True when an optional nested attribute's prior value holds a non-null value at a non-computed nested
 * attribute: that value came from configuration which has since been removed, so it must not be kept.
 */
function optionalValueNotComputable(a: Attribute, v: Value): boolean {
  if (!a.optional || !a.nestedType) return false;
  const o = a.nestedType;
  let found = false;
  walk(v, (p, pv) => {
    if (pv.isNull) return 'descend';
    const at = objectAttributeByPath(o, p);
    if (!at) return 'descend';
    if (!at.computed) {
      found = true;
      return 'stop';
    }
    return 'descend';
  });
  return found;
}

function proposedNewNestedType(o: NestedObject, prior: Value, config: Value): Value {
  if (!config.isKnown) return config;
  switch (o.nesting) {
    case 'single':
      if (config.isNull) return config;
      return Value.object(proposedNewAttributes(o.attributes, prior, config));
    case 'list':
      return proposedNewNestingList(objectNested(o), prior, config);
    case 'map':
      return proposedNewNestingMap(objectNested(o), prior, config);
    case 'set':
      return proposedNewNestingSet(objectNested(o), prior, config);
  }
}

/** Elements correlated by position; config elements beyond a known prior's length are taken verbatim. */
function proposedNewNestingList(n: Nested, prior: Value, config: Value): Value {
  if (config.isNull || !config.isKnown || config.elems.length === 0) return config;
  const ce = config.elems;
  const out: Value[] = new Array(ce.length);
  const priorKnown = prior.isKnown;
  for (let i = 0; i < ce.length; i++) {
    if (priorKnown && (prior.isNull || i >= prior.elems.length)) {
      out[i] = ce[i];
      continue;
    }
    const priorEV = priorKnown ? prior.elems[i] : Value.unknown(prior.type.kind === 'list' ? prior.type.elem : T.Dynamic);
    out[i] = n.merge(priorEV, ce[i]);
  }
  return config.type.kind === 'tuple' ? Value.tuple(out) : Value.list(out, elemType(config.type));
}

/** Elements correlated by key; keys absent from the prior are taken verbatim, prior-only keys dropped. */
function proposedNewNestingMap(n: Nested, prior: Value, config: Value): Value {
  if (config.isNull || !config.isKnown || config.entries.size === 0) return config;
  const priorMap = prior.isKnown && !prior.isNull ? prior.entries : undefined;
  const out = new Map<string, Value>();
  for (const [k, configEV] of config.entries) {
    const priorEV = priorMap?.get(k);
    out.set(k, priorEV === undefined ? configEV : n.merge(priorEV, configEV));
  }
  return config.type.kind === 'object' ? Value.object(out) : Value.map(out, elemType(config.type));
}

/**
 * Each config element is merged with the first unused prior element that could have been produced from
 * it by filling in computed attributes only (validPriorFromConfig), or with a null prior.
 */
function proposedNewNestingSet(n: Nested, prior: Value, config: Value): Value {
  if (!config.isKnown || config.isNull || config.elems.length === 0) return config;
  const priorVals = prior.isKnown && !prior.isNull ? prior.elems : [];
  const used = new Array<boolean>(priorVals.length).fill(false);
  const et = elemType(config.type);
  const out: Value[] = [];
  for (const configEV of config.elems) {
    let priorEV: Value | undefined;
    for (let i = 0; i < priorVals.length; i++) {
      if (used[i]) continue;
      if (validPriorFromConfig(n, priorVals[i], configEV)) {
        priorEV = priorVals[i];
        used[i] = true;
        break;
      }
    }
    out.push(n.merge(priorEV ?? Value.null(et), configEV));
  }
  return Value.set(out, et);
}

/** Could `prior` have been produced from `config` by a provider filling in computed attributes only? */
export function validPriorFromConfig(n: Nested, prior: Value, config: Value): boolean {
  if (unrefinedEq(config, prior)) return true;
  let valid = true;
  walk(prior, (p, priorV) => {
    const r = applyPath(config, p);
    if (r.error !== undefined) {
      valid = false;
      return 'stop';
    }
    const configV = r.value;
    if (unrefinedEq(configV, priorV)) return 'skip';
    if (configV.type.kind === 'set') {
      valid = false;
      return 'stop';
    }
    const a = n.attributeByPath(p);
    if (!a) return 'descend';
    if (a.nestedType) return 'descend';
    if (!a.computed || !configV.isNull) {
      valid = false;
      return 'stop';
    }
    return 'skip';
  });
  return valid;
}

/** The correlation strategies, for tests of validPriorFromConfig. */
export const nestedStrategies = { block: blockNested, object: objectNested };
