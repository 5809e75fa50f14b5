// defineProvider: turns a declarative provider description (resource types, data sources, provider
// configuration, each made of AttributeSpecs from schema.ts plus lifecycle functions) into an object
// implementing the Provider interface (../provider.ts), with the request handling of
// terraform-plugin-framework:
//
// - GetProviderSchema: the wire schemas (versions, flags, deprecation) derived from the declarations.
// - Validate*Config: deprecation warnings ("Deprecated" for a type, "Attribute Deprecated" for a set
//   attribute), int64 checks, every attribute's validators, then the type's own `validateConfig`.
// - PlanResourceChange: a destroy plans null; otherwise ProposedNew plus defaults; when that differs from the
//   prior state, computed attributes with null configuration and no default become unknown (unless the type
//   sets `markComputedUnknown: false`); then every attribute's plan modifiers, then the type's `modifyPlan`.
// - ApplyResourceChange: `create` / `update` (default: the plan as the new state) / `delete` (default: nothing).
// - ReadResource: `read` (default: the state unchanged; returning null means the object is gone).
// - Write-only attributes are null in every planned and applied object (the configuration carries them).
// - ImportResourceState: `importState(id)`, or "Resource Import Not Implemented".
// - UpgradeResourceState: the current version is decoded with the current schema; an older one with its
//   upgrader's prior schema and then upgraded; a version without an upgrader is an error.
// Every lifecycle function may be async and receives an AbortSignal that StopProvider triggers. Objects
// returned by lifecycle functions are completed to the schema with values.ts's objectFor (missing attributes
// null). Nothing is shared with the caller by reference, so the provider works behind wire.ts's loopback or
// a real transport. Siblings: schema.ts, values.ts, json.ts; index.ts has the guide for provider authors.

import type { Diagnostic } from '../../diags/diagnostic';
import { hasErrors } from '../../diags/diagnostic';
import { Value, rawEquals } from '../../lang/value';
import type { Path } from '../path';
import { attrStep, pathEquals } from '../path';
import type * as P from '../provider';
import type { ProviderDiagnostic } from '../provider';
import type { Attribute, Block, NestedBlock, Schema } from '../schema';
import { attributeType, impliedType, nullObject } from '../schema';
import { unmarshalState } from './json';
import type { AttributeSpec } from './schema';
import { attrWarning, int64Diagnostics, plainError } from './schema';
import { get, objectFor, withAttrs } from './values';

type MaybePromise<T> = T | Promise<T>;
/** An object as a lifecycle function may return it: a Value of the block's type, or its attributes. */
export type ObjectResult = Value | Readonly<Record<string, Value>>;

export interface Context {
  /** Aborted when core calls StopProvider (Ctrl-C); long operations should end early with a diagnostic. */
  signal: AbortSignal;
  /** The provider's configured state (what `configure` returned), undefined before ConfigureProvider. */
  providerData: unknown;
}

export interface StateResult {
  state: ObjectResult | null;
  diagnostics?: ProviderDiagnostic[];
  private?: Uint8Array;
}

export interface PlanHookRequest {
  /** Null when creating. */
  prior: Value;
  config: Value;
  /** The plan so far (after defaults, unknown-marking and attribute plan modifiers). */
  planned: Value;
}
export interface PlanHookResponse {
  planned?: Value;
  requiresReplace?: Path[];
  diagnostics?: ProviderDiagnostic[];
}

/** Converts the stored object of an older schema version to the current one. */
export interface StateUpgrader {
  /** The schema the stored state was written with; its JSON is decoded with this block's type. */
  priorSchema: Block;
  upgrade(prior: Value, ctx: Context): MaybePromise<StateResult>;
}

export interface ResourceType {
  /** Schema version (default 0); stored states of lower versions go through `upgraders`. */
  version?: number;
  description?: string;
  /** Non-empty: the whole type is deprecated (warning "Deprecated" when configured). */
  deprecationMessage?: string;
  attributes: Readonly<Record<string, AttributeSpec>>;
  blocks?: Readonly<Record<string, NestedBlock>>;
  /** Default true: the framework's marking of computed, unconfigured, default-less attributes as unknown on change. */
  markComputedUnknown?: boolean;
  /** Decode stored state strictly (unknown attributes are an error) instead of ignoring unknown attributes. */
  strictStateDecoding?: boolean;
  validateConfig?(config: Value, ctx: Context): ProviderDiagnostic[];
  modifyPlan?(req: PlanHookRequest, ctx: Context): MaybePromise<PlanHookResponse>;
  create(req: { planned: Value; config: Value }, ctx: Context): MaybePromise<StateResult>;
  read?(req: { state: Value; private: Uint8Array }, ctx: Context): MaybePromise<StateResult>;
  update?(req: { prior: Value; planned: Value; config: Value }, ctx: Context): MaybePromise<StateResult>;
  delete?(req: { prior: Value }, ctx: Context): MaybePromise<{ diagnostics?: ProviderDiagnostic[] }>;
  importState?(id: string, ctx: Context): MaybePromise<StateResult>;
  upgraders?: Readonly<Record<number, StateUpgrader>>;
  moveState?(req: P.MoveResourceStateRequest, ctx: Context): MaybePromise<StateResult>;
}

export interface DataSourceType {
  description?: string;
  deprecationMessage?: string;
  attributes: Readonly<Record<string, AttributeSpec>>;
  blocks?: Readonly<Record<string, NestedBlock>>;
  validateConfig?(config: Value, ctx: Context): ProviderDiagnostic[];
  read(req: { config: Value }, ctx: Context): MaybePromise<StateResult>;
}

export interface ProviderDefinition {
  /** The provider's local name, e.g. "random" (resource type names start with it). */
  name: string;
  /** Provider configuration attributes (the `provider "x" {}` block). */
  config?: Readonly<Record<string, AttributeSpec>>;
  configBlocks?: Readonly<Record<string, NestedBlock>>;
  validateConfig?(config: Value): ProviderDiagnostic[];
  /** Called by ConfigureProvider; the result is passed to lifecycle functions as ctx.providerData. */
  configure?(config: Value, terraformVersion: string): MaybePromise<{ data?: unknown; diagnostics?: ProviderDiagnostic[] }>;
  resources: Readonly<Record<string, ResourceType>>;
  dataSources?: Readonly<Record<string, DataSourceType>>;
  serverCapabilities?: Partial<P.ServerCapabilities>;
}

/** The wire block of a set of attribute declarations. */
export function blockOf(attributes: Readonly<Record<string, AttributeSpec>>, blocks: Readonly<Record<string, NestedBlock>> = {}, extra: { description?: string; deprecated?: boolean } = {}): Block {
  const attrs: Record<string, Attribute> = {};
  for (const [k, a] of Object.entries(attributes)) attrs[k] = a.schema;
  return {
    attributes: attrs,
    blockTypes: blocks,
    ...(extra.description !== undefined ? { description: extra.description, descriptionKind: 'markdown' as const } : {}),
    ...(extra.deprecated ? { deprecated: true } : {}),
  };
}

/** The wire schema of a resource type. */
export function resourceSchema(r: ResourceType): Schema {
  return { version: r.version ?? 0, block: blockOf(r.attributes, r.blocks, { description: r.description, deprecated: !!r.deprecationMessage }) };
}

const EMPTY = new Uint8Array(0);

/** Appends diagnostics skipping exact duplicates, as the framework's Diagnostics.Append does. */
function appendUnique(diags: ProviderDiagnostic[], more: readonly ProviderDiagnostic[]): void {
  for (const d of more) {
    const dup = diags.some(
      (e) => e.severity === d.severity && e.summary === d.summary && e.detail === d.detail && (e.path === d.path || (!!e.path && !!d.path && pathEquals(e.path, d.path))),
    );
    if (!dup) diags.push(d);
  }
}

function validateAttributes(specs: Readonly<Record<string, AttributeSpec>>, config: Value): ProviderDiagnostic[] {
  const diags: ProviderDiagnostic[] = [];
  if (config.isNull || !config.isKnown) return diags;
  for (const [name, a] of Object.entries(specs)) {
    const path: Path = [attrStep(name)];
    const v = get(config, name);
    if (a.deprecationMessage && v.isKnown && !v.isNull) diags.push(attrWarning(path, 'Attribute Deprecated', a.deprecationMessage));
    if (a.int64) {
      const d = int64Diagnostics(path, v);
      if (d.length) {
        diags.push(...d);
        continue;
      }
    }
    for (const val of a.validators ?? []) appendUnique(diags, val.validate({ path, value: v, config }));
  }
  return diags;
}

/** A readable error for a lifecycle function that did not return an object. */
function missingState(what: string): ProviderDiagnostic {
  return plainError(`Missing Resource State After ${what}`, `The Terraform Provider unexpectedly returned no resource state after having no errors in the resource ${what}. This is always an issue in the Terraform Provider and should be reported to the provider developers.`);
}

/** Builds a Provider from a definition; see the header for the behaviour of each call. */
export function defineProvider(def: ProviderDefinition): P.Provider {
  let abort = new AbortController();
  let providerData: unknown;
  const ctx = (): Context => ({ signal: abort.signal, providerData });
  const resourceSchemas: Record<string, Schema> = {};
  for (const [k, r] of Object.entries(def.resources)) resourceSchemas[k] = resourceSchema(r);
  const dataSchemas: Record<string, Schema> = {};
  for (const [k, d] of Object.entries(def.dataSources ?? {})) {
    dataSchemas[k] = { version: 0, block: blockOf(d.attributes, d.blocks, { description: d.description, deprecated: !!d.deprecationMessage }) };
  }
  const providerBlock = blockOf(def.config ?? {}, def.configBlocks);

  const unknownResource = (typeName: string): ProviderDiagnostic =>
    plainError('Resource Type Not Found', `No resource type named ${JSON.stringify(typeName)} was found in the provider.`);
  const unknownData = (typeName: string): ProviderDiagnostic =>
    plainError('Data Source Type Not Found', `No data source type named ${JSON.stringify(typeName)} was found in the provider.`);

  const finish = (b: Block, r: StateResult | undefined): { value: Value | null; diags: ProviderDiagnostic[]; priv: Uint8Array } => {
    const diags = r?.diagnostics ?? [];
    const priv = r?.private ?? EMPTY;
    if (!r || r.state === null || (r.state instanceof Value && r.state.isNull)) return { value: null, diags, priv };
    return { value: objectFor(b, r.state), diags, priv };
  };

  return {
    async getProviderSchema() {
      return {
        diagnostics: [],
        provider: { version: 0, block: providerBlock },
        resourceTypes: resourceSchemas,
        dataSources: dataSchemas,
        serverCapabilities: { planDestroy: false, getProviderSchemaOptional: false, moveResourceState: false, ...def.serverCapabilities },
      };
    },

    async validateProviderConfig(req) {
      const diags = validateAttributes(def.config ?? {}, req.config);
      if (!hasErrors(diags) && def.validateConfig) diags.push(...def.validateConfig(req.config));
      return { diagnostics: diags };
    },

    async validateResourceConfig(req) {
      const r = def.resources[req.typeName];
      if (!r) return { diagnostics: [unknownResource(req.typeName)] };
      const diags: ProviderDiagnostic[] = [];
      if (r.deprecationMessage) diags.push(plainWarning('Deprecated', r.deprecationMessage));
      diags.push(...validateAttributes(r.attributes, req.config));
      if (r.validateConfig) diags.push(...r.validateConfig(req.config, ctx()));
      return { diagnostics: diags };
    },

    async validateDataResourceConfig(req) {
      const d = def.dataSources?.[req.typeName];
      if (!d) return { diagnostics: [unknownData(req.typeName)] };
      const diags: ProviderDiagnostic[] = [];
      if (d.deprecationMessage) diags.push(plainWarning('Deprecated', d.deprecationMessage));
      diags.push(...validateAttributes(d.attributes, req.config));
      if (d.validateConfig) diags.push(...d.validateConfig(req.config, ctx()));
      return { diagnostics: diags };
    },

    async configureProvider(req) {
      if (!def.configure) return { diagnostics: [] };
      const r = await def.configure(req.config, req.terraformVersion);
      providerData = r.data;
      return { diagnostics: r.diagnostics ?? [] };
    },

    async upgradeResourceState(req) {
      const r = def.resources[req.typeName];
      if (!r) return { diagnostics: [unknownResource(req.typeName)], upgradedState: Value.null() };
      const schema = resourceSchemas[req.typeName];
      const ty = impliedType(schema.block);
      const fail = (d: ProviderDiagnostic) => ({ diagnostics: [d], upgradedState: nullObject(schema.block) });
      if (req.rawStateJson === undefined) {
        return fail(plainError('Unable to Read Previously Saved State for UpgradeResourceState', 'There was an error reading the saved resource state using the current resource schema. This resource has no flatmap state support.'));
      }
      if (req.version === schema.version) {
        const dec = unmarshalState(req.rawStateJson, ty, { ignoreUndefined: !r.strictStateDecoding });
        if ('error' in dec) return fail(plainError(dec.error));
        return { diagnostics: [], upgradedState: dec.value };
      }
      const up = r.upgraders?.[req.version];
      if (!up) {
        return fail(
          plainError(
            'Unable to Upgrade Resource State',
            `This resource was implemented ${r.upgraders ? 'with' : 'without'} an UpgradeState() method, however Terraform was expecting an implementation for version ${req.version} upgrade.\n\nThis is always an issue with the Terraform Provider and should be reported to the provider developer.`,
          ),
        );
      }
      const dec = unmarshalState(req.rawStateJson, impliedType(up.priorSchema), { ignoreUndefined: true });
      if ('error' in dec) {
        return fail(plainError('Unable to Read Previously Saved State for UpgradeResourceState', `There was an error reading the saved resource state using the prior resource schema defined for version ${req.version} upgrade.\n\nPlease report this to the provider developer:\n\n${dec.error}`));
      }
      const res = finish(schema.block, await up.upgrade(dec.value, ctx()));
      return { diagnostics: res.diags, upgradedState: res.value ?? nullObject(schema.block) };
    },

    async readResource(req) {
      const r = def.resources[req.typeName];
      if (!r) return { diagnostics: [unknownResource(req.typeName)], newState: req.currentState, private: req.private };
      if (!r.read || req.currentState.isNull) return { diagnostics: [], newState: req.currentState, private: req.private };
      const schema = resourceSchemas[req.typeName];
      const res = finish(schema.block, await r.read({ state: req.currentState, private: req.private }, ctx()));
      return { diagnostics: res.diags, newState: res.value ?? nullObject(schema.block), private: res.value ? (res.priv.length ? res.priv : req.private) : EMPTY };
    },

    async planResourceChange(req) {
      const r = def.resources[req.typeName];
      const none = { requiresReplace: [], plannedPrivate: req.priorPrivate };
      if (!r) return { diagnostics: [unknownResource(req.typeName)], plannedState: req.proposedNewState, ...none };
      if (req.proposedNewState.isNull) return { diagnostics: [], plannedState: req.proposedNewState, ...none };
      const block = resourceSchemas[req.typeName].block;
      const diags: ProviderDiagnostic[] = [];
      let planned = req.proposedNewState;
      const prior = req.priorState.isNull ? nullObject(block) : req.priorState;
      const config = req.config;
      // Defaults for unconfigured optional+computed attributes.
      const defaults: Record<string, Value> = {};
      for (const [name, a] of Object.entries(r.attributes)) {
        if (a.default && get(config, name).isNull) defaults[name] = a.default;
      }
      if (Object.keys(defaults).length) planned = withAttrs(planned, defaults);
      // Computed attributes without configuration or default become unknown when anything changes.
      if (r.markComputedUnknown !== false && !rawEquals(planned, req.priorState)) {
        const unk: Record<string, Value> = {};
        for (const [name, a] of Object.entries(r.attributes)) {
          if (a.schema.computed && !a.default && get(config, name).isNull) unk[name] = Value.unknown(attributeType(a.schema));
        }
        if (Object.keys(unk).length) planned = withAttrs(planned, unk);
      }
      const requiresReplace: Path[] = [];
      for (const [name, a] of Object.entries(r.attributes)) {
        if (!a.planModifiers) continue;
        const path: Path = [attrStep(name)];
        for (const m of a.planModifiers) {
          const res = m.modify({
            path,
            config: get(config, name),
            state: get(prior, name),
            plan: get(planned, name),
            resourceConfig: config,
            resourceState: req.priorState,
            resourcePlan: planned,
          });
          if (res.diagnostics) appendUnique(diags, res.diagnostics);
          if (res.plan) planned = withAttrs(planned, { [name]: res.plan });
          if (res.requiresReplace && !requiresReplace.some((p) => pathEquals(p, path))) requiresReplace.push(path);
        }
      }
      if (hasErrors(diags)) return { diagnostics: diags, plannedState: req.proposedNewState, ...none };
      if (r.modifyPlan) {
        const res = await r.modifyPlan({ prior: req.priorState, config, planned }, ctx());
        if (res.diagnostics) diags.push(...res.diagnostics);
        if (res.planned) planned = res.planned;
        for (const p of res.requiresReplace ?? []) if (!requiresReplace.some((q) => pathEquals(p, q))) requiresReplace.push(p);
      }
      return { diagnostics: diags, plannedState: objectFor(block, nullWriteOnly(r, planned)), requiresReplace, plannedPrivate: req.priorPrivate };
    },

    async applyResourceChange(req) {
      const r = def.resources[req.typeName];
      if (!r) return { diagnostics: [unknownResource(req.typeName)], newState: req.priorState, private: req.plannedPrivate };
      const block = resourceSchemas[req.typeName].block;
      if (req.plannedState.isNull) {
        const res = r.delete ? await r.delete({ prior: req.priorState }, ctx()) : {};
        const diags = res.diagnostics ?? [];
        return { diagnostics: diags, newState: hasErrors(diags) ? req.priorState : nullObject(block), private: EMPTY };
      }
      const creating = req.priorState.isNull;
      const result: StateResult = creating
        ? await r.create({ planned: req.plannedState, config: req.config }, ctx())
        : r.update
          ? await r.update({ prior: req.priorState, planned: req.plannedState, config: req.config }, ctx())
          : { state: req.plannedState };
      const res = finish(block, result);
      if (hasErrors(res.diags)) return { diagnostics: res.diags, newState: res.value ?? (creating ? nullObject(block) : req.priorState), private: req.plannedPrivate };
      if (!res.value) return { diagnostics: [...res.diags, missingState(creating ? 'Create' : 'Update')], newState: nullObject(block), private: EMPTY };
      return { diagnostics: res.diags, newState: objectFor(block, nullWriteOnly(r, res.value)), private: res.priv.length ? res.priv : req.plannedPrivate };
    },

    async importResourceState(req) {
      const r = def.resources[req.typeName];
      if (!r) return { diagnostics: [unknownResource(req.typeName)], importedResources: [] };
      if (!r.importState) {
        return {
          diagnostics: [plainError('Resource Import Not Implemented', 'This resource does not support import. Please contact the provider developer for additional information.')],
          importedResources: [],
        };
      }
      const block = resourceSchemas[req.typeName].block;
      const res = finish(block, await r.importState(req.id, ctx()));
      if (hasErrors(res.diags) || !res.value) return { diagnostics: res.diags, importedResources: [] };
      return { diagnostics: res.diags, importedResources: [{ typeName: req.typeName, state: res.value, private: res.priv }] };
    },

    async moveResourceState(req) {
      const r = def.resources[req.targetTypeName];
      if (!r) return { diagnostics: [unknownResource(req.targetTypeName)], targetState: Value.null(), targetPrivate: EMPTY };
      const block = resourceSchemas[req.targetTypeName].block;
      if (!r.moveState) {
        return {
          diagnostics: [plainError('Unable to Move Resource State', `The target resource type ${JSON.stringify(req.targetTypeName)} does not support moving resource state from ${JSON.stringify(req.sourceTypeName)}.`)],
          targetState: nullObject(block),
          targetPrivate: EMPTY,
        };
      }
      const res = finish(block, await r.moveState(req, ctx()));
      return { diagnostics: res.diags, targetState: res.value ?? nullObject(block), targetPrivate: res.priv };
    },

    async readDataSource(req) {
      const d = def.dataSources?.[req.typeName];
      if (!d) return { diagnostics: [unknownData(req.typeName)], state: req.config };
      const block = dataSchemas[req.typeName].block;
      const res = finish(block, await d.read({ config: req.config }, ctx()));
      return { diagnostics: res.diags, state: res.value ?? nullObject(block) };
    },

    async stopProvider() {
      abort.abort();
      abort = new AbortController();
      return {};
    },

    async close() {
      abort.abort();
    },
  };
}

/** Write-only attributes are never planned or stored: the object with each of them null (as the framework does). */
function nullWriteOnly(r: ResourceType, v: Value): Value {
  const changes: Record<string, Value> = {};
  for (const [name, a] of Object.entries(r.attributes)) if (a.schema.writeOnly) changes[name] = Value.null(attributeType(a.schema));
  return Object.keys(changes).length ? withAttrs(v, changes) : v;
}

function plainWarning(summary: string, detail: string): Diagnostic {
  return { severity: 'warning', summary, detail };
}
