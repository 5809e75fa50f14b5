// Attribute declarations for SDK providers: the wire schema of an attribute (server/providers/schema.ts)
// together with its behaviour: a static default, validators and plan modifiers. The behaviour follows
// terraform-plugin-framework, so providers ported from Go keep their plans and messages:
//
// - Defaults apply at plan time to optional+computed attributes whose configuration is null.
// - Validators run in ValidateResourceConfig on the configuration value (they skip null and unknown values
//   themselves, as the framework's do) and report "Invalid Attribute Value"-style diagnostics located by the
//   attribute path.
// - Plan modifiers run in PlanResourceChange after defaults and after computed attributes with a null
//   configuration were marked unknown; they may change the attribute's planned value, ask for replacement
//   or report diagnostics. `requiresReplace`, `requiresReplaceIf`, `useStateForUnknown` and
//   `requiresReplaceIfValuesNotNull` are the framework's modifiers of those names.
//
// Siblings: define.ts (runs them), values.ts, json.ts; index.ts documents how to write a provider.

import * as T from '../../lang/types';
import type { Type } from '../../lang/types';
import { goFormatG10 } from '../../lang/format';
import { Value, rawEquals } from '../../lang/value';
import { error, warning } from '../../diags/diagnostic';
import type { Path } from '../path';
import { attrStep, formatPath } from '../path';
import type { ProviderDiagnostic } from '../provider';
import type { Attribute, DescriptionKind } from '../schema';
import { get } from './values';

// ---- diagnostics -----------------------------------------------------------------------------------------------

/** An error located at an attribute path (tfdiags.AttributeValue / the framework's AddAttributeError). */
export function attrError(path: Path, summary: string, detail: string): ProviderDiagnostic {
  return { ...error(summary, detail), path };
}
/** A warning located at an attribute path. */
export function attrWarning(path: Path, summary: string, detail: string): ProviderDiagnostic {
  return { ...warning(summary, detail), path };
}
/** An error not tied to an attribute (an `error` returned by Go code becomes a summary without detail). */
export function plainError(summary: string, detail?: string): ProviderDiagnostic {
  return error(summary, detail ?? '');
}

/** The framework's path.String(): `length`, `rule[0].port`, `tags["Name"]` (formatPath without the leading dot). */
export function frameworkPath(p: Path): string {
  const s = formatPath(p);
  return s.startsWith('.') ? s.slice(1) : s;
}

// ---- validators --------------------------------------------------------------------------------------------------

export interface ValidatorRequest {
  /** Path of the attribute being validated. */
  path: Path;
  /** The attribute's configuration value (may be null or unknown). */
  value: Value;
  /** The whole configuration object. */
  config: Value;
}

/** A configuration check of one attribute. */
export interface Validator {
  readonly description: string;
  validate(req: ValidatorRequest): ProviderDiagnostic[];
}

function invalidValue(path: Path, description: string, got: string): ProviderDiagnostic {
  return attrError(path, 'Invalid Attribute Value', `Attribute ${frameworkPath(path)} ${description}, got: ${got}`);
}

const usable = (v: Value) => v.isKnown && !v.isNull;
const numText = (v: Value) => v.num.toString();

/** int64validator.AtLeast: the number is ≥ min. */
export function atLeast(min: number): Validator {
  const description = `value must be at least ${min}`;
  return {
    description,
    validate: ({ path, value }) => (usable(value) && value.num.toNumber() < min ? [invalidValue(path, description, numText(value))] : []),
  };
}

/** int64validator.AtMost: the number is ≤ max. */
export function atMost(max: number): Validator {
  const description = `value must be at most ${max}`;
  return {
    description,
    validate: ({ path, value }) => (usable(value) && value.num.toNumber() > max ? [invalidValue(path, description, numText(value))] : []),
  };
}

/** int64validator.Between: min ≤ number ≤ max. */
export function between(min: number, max: number): Validator {
  const description = `value must be between ${min} and ${max}`;
  return {
    description,
    validate: ({ path, value }) => {
      if (!usable(value)) return [];
      const n = value.num.toNumber();
      return n < min || n > max ? [invalidValue(path, description, numText(value))] : [];
    },
  };
}

/**
 * int64validator.AtLeastSumOf: the number is ≥ the sum of the named top-level attributes (null ones count
 * zero; any unknown one skips the check).
 */
export function atLeastSumOf(...names: string[]): Validator {
  const description = `value must be at least sum of ${names.join(' + ')}`;
  return {
    description,
    validate: ({ path, value, config }) => {
      if (!usable(value)) return [];
      let sum = 0;
      for (const n of names) {
        const v = get(config, n);
        if (!v.isKnown) return [];
        if (!v.isNull) sum += v.num.toNumber();
      }
      return value.num.toNumber() < sum ? [invalidValue(path, description, numText(value))] : [];
    },
  };
}

/** stringvalidator.OneOf: the string is one of the given values. */
export function oneOf(...values: string[]): Validator {
  const description = `value must be one of: [${values.map((v) => JSON.stringify(v)).join(' ')}]`;
  return {
    description,
    validate: ({ path, value }) =>
      usable(value) && !values.includes(value.str)
        ? [attrError(path, 'Invalid Attribute Value Match', `Attribute ${frameworkPath(path)} ${description}, got: ${JSON.stringify(value.str)}`)]
        : [],
  };
}

/** stringvalidator.LengthAtLeast: the string has at least `min` bytes (Go's len of the UTF-8 text). */
export function lengthAtLeast(min: number): Validator {
  const description = `string length must be at least ${min}`;
  return {
    description,
    validate: ({ path, value }) => {
      if (!usable(value)) return [];
      const len = Buffer.byteLength(value.str, 'utf8');
      return len < min ? [attrError(path, 'Invalid Attribute Value Length', `Attribute ${frameworkPath(path)} ${description}, got: ${len}`)] : [];
    },
  };
}

/**
 * hashicorp/random's AtLeastOneOfTrue: when this bool is false, at least one of the named top-level bools
 * must be true (a null or unknown one passes). The message lists the others and then this attribute.
 */
export function atLeastOneOfTrue(...names: string[]): Validator {
  return {
    description: `Ensure that at least one attribute from this collection is set: [${names.join(',')}]`,
    validate: ({ path, value, config }) => {
      if (!usable(value) || value.bool) return [];
      for (const n of names) {
        const v = get(config, n);
        if (!v.isKnown || v.isNull || v.bool) return [];
      }
      const all = [...names];
      const self = frameworkPath(path);
      if (!all.includes(self)) all.push(self);
      return [attrError(path, 'Invalid Attribute Combination', `At least one attribute out of [${all.join(',')}] must be specified as true`)];
    },
  };
}

/** A validator from a function (for checks specific to one provider). */
export function validator(description: string, fn: (req: ValidatorRequest) => ProviderDiagnostic[]): Validator {
  return { description, validate: fn };
}

// ---- plan modifiers ------------------------------------------------------------------------------------------------

export interface PlanModifierRequest {
  path: Path;
  /** The attribute's configuration value. */
  config: Value;
  /** The attribute's prior state value (null when creating). */
  state: Value;
  /** The attribute's planned value so far (after defaults, unknown-marking and earlier modifiers). */
  plan: Value;
  /** Whole objects: the configuration, prior state (null when creating) and plan so far. */
  resourceConfig: Value;
  resourceState: Value;
  resourcePlan: Value;
}

export interface PlanModifierResponse {
  /** A new planned value for the attribute. */
  plan?: Value;
  requiresReplace?: boolean;
  diagnostics?: ProviderDiagnostic[];
}

export interface PlanModifier {
  readonly description: string;
  modify(req: PlanModifierRequest): PlanModifierResponse;
}

/** The framework's value equality for plan modifiers: same knownness, nullness and data (types may differ only when null). */
function sameValue(a: Value, b: Value): boolean {
  return rawEquals(a, b);
}

/**
 * Replace the resource when this attribute's planned value differs from its prior value (not on create or
 * destroy; an unknown planned value counts as different), and `cond` (when given) agrees.
 */
export function requiresReplaceIf(cond: (req: PlanModifierRequest) => boolean, description: string): PlanModifier {
  return {
    description,
    modify: (req) => {
      if (req.resourceState.isNull || req.resourcePlan.isNull) return {};
      if (sameValue(req.plan, req.state)) return {};
      return cond(req) ? { requiresReplace: true } : {};
    },
  };
}

/** Replace the resource whenever this attribute's planned value changes. */
export function requiresReplace(): PlanModifier {
  return requiresReplaceIf(() => true, 'If the value of this attribute changes, Terraform will destroy and recreate the resource.');
}

/**
 * Keep the prior value of a computed attribute instead of "(known after apply)" when the resource is
 * updated in place: applies when there is a prior value, the plan is unknown and the configuration is known.
 */
export function useStateForUnknown(): PlanModifier {
  return {
    description: 'Once set, the value of this attribute in state will not change.',
    modify: (req) => {
      if (req.state.isNull || req.plan.isKnown || !req.config.isKnown) return {};
      return { plan: req.state };
    },
  };
}

/**
 * The `keepers`/`triggers` rule of hashicorp/random and hashicorp/null: replace when a map of strings changes,
 * except that keys with null values are ignored (the older SDK never stored them).
 */
export function requiresReplaceIfValuesNotNull(): PlanModifier {
  return {
    description: 'If the value of this attribute changes, Terraform will destroy and recreate the resource.',
    modify: (req) => {
      if (req.resourceState.isNull || req.resourcePlan.isNull) return {};
      const cfg = req.config;
      const st = req.state;
      if (sameValue(cfg, st)) return {};
      // An unknown map has no elements to compare, as in the Go modifier.
      const cfgEntries = cfg.isNull || !cfg.isKnown ? new Map<string, Value>() : cfg.entries;
      if (st.isNull) {
        for (const v of cfgEntries.values()) if (!v.isNull) return { requiresReplace: true };
        return {};
      }
      for (const [k, v] of cfgEntries) {
        const s = st.entries.get(k);
        if (!s && v.isNull) continue;
        if (s && sameValue(v, s)) continue;
        return { requiresReplace: true };
      }
      for (const k of st.entries.keys()) if (!cfgEntries.has(k)) return { requiresReplace: true };
      return {};
    },
  };
}

/** A plan modifier from a function. */
export function planModifier(description: string, fn: (req: PlanModifierRequest) => PlanModifierResponse): PlanModifier {
  return { description, modify: fn };
}

// ---- attribute declarations ---------------------------------------------------------------------------------------

/** An attribute: its wire schema plus SDK behaviour. */
export interface AttributeSpec {
  readonly schema: Attribute;
  /** Planned when the configuration leaves this optional+computed attribute null. */
  readonly default?: Value;
  readonly validators?: readonly Validator[];
  readonly planModifiers?: readonly PlanModifier[];
  /** Non-empty: the attribute is deprecated; setting it gives the warning "Attribute Deprecated" with this text. */
  readonly deprecationMessage?: string;
  /** The value must be a whole number that fits in 64 bits (the framework's Int64 attributes). */
  readonly int64?: boolean;
}

export interface AttributeOptions {
  required?: boolean;
  optional?: boolean;
  computed?: boolean;
  sensitive?: boolean;
  writeOnly?: boolean;
  description?: string;
  descriptionKind?: DescriptionKind;
  deprecationMessage?: string;
  default?: Value | string | number | boolean;
  validators?: Validator[];
  planModifiers?: PlanModifier[];
}

function spec(type: Type, o: AttributeOptions, extra: Partial<AttributeSpec> = {}): AttributeSpec {
  if (!o.required && !o.optional && !o.computed) throw new Error('an attribute needs one of required, optional or computed');
  if (o.default !== undefined && !(o.optional && o.computed)) throw new Error('a default needs an optional and computed attribute');
  const schema: Attribute = {
    type,
    ...(o.description !== undefined ? { description: o.description } : {}),
    ...(o.descriptionKind ? { descriptionKind: o.descriptionKind } : {}),
    ...(o.required ? { required: true } : {}),
    ...(o.optional ? { optional: true } : {}),
    ...(o.computed ? { computed: true } : {}),
    ...(o.sensitive ? { sensitive: true } : {}),
    ...(o.writeOnly ? { writeOnly: true } : {}),
    ...(o.deprecationMessage ? { deprecated: true } : {}),
  };
  const d = o.default;
  const def = d === undefined ? undefined : d instanceof Value ? d : typeof d === 'string' ? Value.string(d) : typeof d === 'number' ? Value.number(d) : Value.bool(d);
  return {
    schema,
    ...(def ? { default: def } : {}),
    ...(o.validators?.length ? { validators: o.validators } : {}),
    ...(o.planModifiers?.length ? { planModifiers: o.planModifiers } : {}),
    ...(o.deprecationMessage ? { deprecationMessage: o.deprecationMessage } : {}),
    ...extra,
  };
}

/** Attribute declarations by type. */
export const attr = {
  string: (o: AttributeOptions) => spec(T.String, o),
  number: (o: AttributeOptions) => spec(T.Number, o),
  /** A number that must be a whole 64-bit integer (the framework's Int64Attribute). */
  int64: (o: AttributeOptions) => spec(T.Number, o, { int64: true }),
  bool: (o: AttributeOptions) => spec(T.Bool, o),
  list: (elem: Type, o: AttributeOptions) => spec(T.List(elem), o),
  set: (elem: Type, o: AttributeOptions) => spec(T.Set(elem), o),
  map: (elem: Type, o: AttributeOptions) => spec(T.Map(elem), o),
  object: (attrs: Record<string, Type>, o: AttributeOptions) => spec(T.Obj(attrs), o),
  dynamic: (o: AttributeOptions) => spec(T.Dynamic, o),
};

/**
 * The framework's Int64Type.Validate: a whole number within 64 bits. Its messages format the *big.Float
 * with `%s`, which Go prints as `%!s(*big.Float=1.5)`; that is reproduced.
 */
export function int64Diagnostics(path: Path, v: Value): ProviderDiagnostic[] {
  if (!usable(v)) return [];
  const n = v.num;
  const shown = `%!s(*big.Float=${goFormatG10(n)})`;
  if (!n.isInteger() || n.isInf()) return [attrError(path, 'Int64 Type Validation Error', `Value ${shown} is not an integer.`)];
  const big = n.toBigInt();
  if (big !== undefined && big >= -(2n ** 63n) && big < 2n ** 63n) return [];
  return [attrError(path, 'Int64 Type Validation Error', `Value ${shown} cannot be represented as a 64-bit integer.`)];
}

/** The attribute path of a top-level attribute. */
export function rootPath(name: string): Path {
  return [attrStep(name)];
}
