// The provider interface, shaped after the plugin protocol tfplugin6 (Terraform's providers.Interface).
//
// One method per RPC; every method is async and takes one request object and returns one response object.
// Requests and responses are plain data: schemas (schema.ts), Values (server/lang/value.ts, immutable),
// paths (path.ts), strings, numbers and byte arrays. A provider must not rely on object identity across
// calls (a remote provider gets copies) and must not mutate what it receives. Values passed to a provider
// never carry marks (see marks.ts); a provider answers with unmarked values.
//
// Every response carries `diagnostics`: problems found by the provider, each optionally located by an
// attribute path into the request's object. Error diagnostics mean the call failed; the engine then reports
// them and skips the contract checks of server/plans/objchange for that answer.
//
// Siblings: schema.ts (Schema/Block), path.ts (Path), marks.ts, wire.ts (a JSON form of every request and
// response; `loopbackProvider` copies them through it). In-process providers (tests, built-in
// `terraform_data`) implement this interface directly; a gRPC client for real provider binaries adapts it.

import type { Diagnostic } from '../diags/diagnostic';
import type { Value } from '../lang/value';
import type { Path } from './path';
import type { Schema } from './schema';

/** A diagnostic from a provider. `path` locates it inside the object of the request (config or state). */
export interface ProviderDiagnostic extends Diagnostic {
  path?: Path;
}

/** Every response has diagnostics (possibly empty). */
export interface Response {
  diagnostics: ProviderDiagnostic[];
}

/** Opaque provider-private bytes stored with a resource instance object; core only passes them along. */
export type Private = Uint8Array;

/** What the client (core) supports; sent with plan, read, import and data source requests. */
export interface ClientCapabilities {
  deferralAllowed: boolean;
  writeOnlyAttributesAllowed: boolean;
}

/** Why a provider deferred an action (tfplugin6 Deferred.Reason). */
export type DeferredReason = 'unknown' | 'resource_config_unknown' | 'provider_config_unknown' | 'absent_prereq';
export interface Deferred {
  reason: DeferredReason;
}

// ---- GetProviderSchema -------------------------------------------------------------------------------------

/** Optional behaviours the provider supports (tfplugin6 ServerCapabilities). */
export interface ServerCapabilities {
  /** The provider wants PlanResourceChange for destroys; otherwise core short-cuts them to a null plan. */
  planDestroy: boolean;
  /** GetProviderSchema may be cached across processes of the same provider binary. */
  getProviderSchemaOptional: boolean;
  moveResourceState: boolean;
}

export interface GetProviderSchemaResponse extends Response {
  provider: Schema;
  providerMeta?: Schema;
  resourceTypes: Record<string, Schema>;
  dataSources: Record<string, Schema>;
  ephemeralResourceTypes?: Record<string, Schema>;
  serverCapabilities: ServerCapabilities;
}

// ---- validation --------------------------------------------------------------------------------------------

export interface ValidateProviderConfigRequest {
  config: Value;
}
export type ValidateProviderConfigResponse = Response;

export interface ValidateResourceConfigRequest {
  typeName: string;
  /** The configuration object; may contain unknown values and nulls for unset attributes. */
  config: Value;
  clientCapabilities: ClientCapabilities;
}
export type ValidateResourceConfigResponse = Response;

export interface ValidateDataResourceConfigRequest {
  typeName: string;
  config: Value;
}
export type ValidateDataResourceConfigResponse = Response;

// ---- ConfigureProvider -------------------------------------------------------------------------------------

export interface ConfigureProviderRequest {
  terraformVersion: string;
  config: Value;
  clientCapabilities: ClientCapabilities;
}
export type ConfigureProviderResponse = Response;

// ---- UpgradeResourceState ----------------------------------------------------------------------------------

export interface UpgradeResourceStateRequest {
  typeName: string;
  /** The schema version the stored state was written with. */
  version: number;
  /** The stored state as JSON text (state file `attributes`), or undefined when only flatmap is available. */
  rawStateJson?: string;
  /** Legacy flatmap state (`attributes_flat`), for states written by Terraform 0.11 and earlier. */
  rawStateFlatmap?: Record<string, string>;
}
export interface UpgradeResourceStateResponse extends Response {
  /** The state converted to the current schema version; must be wholly known and conform to the schema. */
  upgradedState: Value;
}

// ---- ReadResource ------------------------------------------------------------------------------------------

export interface ReadResourceRequest {
  typeName: string;
  currentState: Value;
  private: Private;
  providerMeta?: Value;
  clientCapabilities: ClientCapabilities;
}
export interface ReadResourceResponse extends Response {
  /** The refreshed object, or null when the remote object no longer exists. */
  newState: Value;
  private: Private;
  deferred?: Deferred;
}

// ---- PlanResourceChange ------------------------------------------------------------------------------------

export interface PlanResourceChangeRequest {
  typeName: string;
  /** Null for a create (or a tainted object). */
  priorState: Value;
  /** ProposedNew(schema, prior, config) (server/plans/objchange/proposed.ts); null for a destroy. */
  proposedNewState: Value;
  /** Null for a destroy. */
  config: Value;
  priorPrivate: Private;
  providerMeta?: Value;
  clientCapabilities: ClientCapabilities;
}
export interface PlanResourceChangeResponse extends Response {
  plannedState: Value;
  /** Attribute paths whose change forces replacement of the object. */
  requiresReplace: Path[];
  plannedPrivate: Private;
  /** Set only by terraform-plugin-sdk v1/v2: core then tolerates invalid plans (logged, not reported). */
  legacyTypeSystem?: boolean;
  deferred?: Deferred;
}

// ---- ApplyResourceChange -----------------------------------------------------------------------------------

export interface ApplyResourceChangeRequest {
  typeName: string;
  priorState: Value;
  /** Null for a destroy. */
  plannedState: Value;
  /** Null (of the schema type) for a destroy. */
  config: Value;
  plannedPrivate: Private;
  providerMeta?: Value;
}
export interface ApplyResourceChangeResponse extends Response {
  /** The object after the change (null after a destroy); must be wholly known and compatible with the plan. */
  newState: Value;
  private: Private;
  legacyTypeSystem?: boolean;
}

// ---- ImportResourceState -----------------------------------------------------------------------------------

export interface ImportResourceStateRequest {
  typeName: string;
  id: string;
  clientCapabilities: ClientCapabilities;
}
export interface ImportedResource {
  typeName: string;
  state: Value;
  private: Private;
}
export interface ImportResourceStateResponse extends Response {
  importedResources: ImportedResource[];
  deferred?: Deferred;
}

// ---- MoveResourceState -------------------------------------------------------------------------------------

export interface MoveResourceStateRequest {
  sourceProviderAddress: string;
  sourceTypeName: string;
  sourceSchemaVersion: number;
  /** The source object as state JSON text. */
  sourceStateJson: string;
  targetTypeName: string;
  sourcePrivate: Private;
}
export interface MoveResourceStateResponse extends Response {
  targetState: Value;
  targetPrivate: Private;
}

// ---- ReadDataSource ----------------------------------------------------------------------------------------

export interface ReadDataSourceRequest {
  typeName: string;
  /** Wholly known configuration. */
  config: Value;
  providerMeta?: Value;
  clientCapabilities: ClientCapabilities;
}
export interface ReadDataSourceResponse extends Response {
  /** The data source's result; must be non-null, wholly known and conform to the schema. */
  state: Value;
  deferred?: Deferred;
}

// ---- StopProvider ------------------------------------------------------------------------------------------

export interface StopProviderResponse {
  /** Non-empty when the provider could not stop its in-flight operations. */
  error?: string;
}

// ---- the interface -----------------------------------------------------------------------------------------

/** A provider: a plugin process behind gRPC, or an in-process implementation. */
export interface Provider {
  getProviderSchema(): Promise<GetProviderSchemaResponse>;
  validateProviderConfig(req: ValidateProviderConfigRequest): Promise<ValidateProviderConfigResponse>;
  validateResourceConfig(req: ValidateResourceConfigRequest): Promise<ValidateResourceConfigResponse>;
  validateDataResourceConfig(req: ValidateDataResourceConfigRequest): Promise<ValidateDataResourceConfigResponse>;
  configureProvider(req: ConfigureProviderRequest): Promise<ConfigureProviderResponse>;
  upgradeResourceState(req: UpgradeResourceStateRequest): Promise<UpgradeResourceStateResponse>;
  readResource(req: ReadResourceRequest): Promise<ReadResourceResponse>;
  planResourceChange(req: PlanResourceChangeRequest): Promise<PlanResourceChangeResponse>;
  applyResourceChange(req: ApplyResourceChangeRequest): Promise<ApplyResourceChangeResponse>;
  importResourceState(req: ImportResourceStateRequest): Promise<ImportResourceStateResponse>;
  moveResourceState(req: MoveResourceStateRequest): Promise<MoveResourceStateResponse>;
  readDataSource(req: ReadDataSourceRequest): Promise<ReadDataSourceResponse>;
  /** Asks the provider to cancel in-flight operations (Ctrl-C); other calls may then fail. */
  stopProvider(): Promise<StopProviderResponse>;
  /** Releases the provider (ends a plugin process). */
  close(): Promise<void>;
}

/** Default capabilities core sends in 1.11: no deferrals, write-only attributes allowed. */
export const DEFAULT_CLIENT_CAPABILITIES: ClientCapabilities = { deferralAllowed: false, writeOnlyAttributesAllowed: true };
