// Test harness for built-in providers: drives a provider through wire.ts's loopback as Terraform core would
// (ProposedNew, PlanResourceChange, a second create plan after RequiresReplace, ApplyResourceChange,
// ReadResource, ImportResourceState, UpgradeResourceState) and checks every answer with
// server/plans/objchange: planned and applied objects conform to the schema, plans are valid for their prior
// state and configuration, applied objects are wholly known and compatible with their plans. A contract
// violation fails the test with the exact diagnostic core would print. Only test files import this module.

import assert from 'node:assert/strict';
import { Value } from '../../../server/lang/value';
import type { Path } from '../../../server/providers/path';
import { formatError, formatPath } from '../../../server/providers/path';
import type { Provider, ProviderDiagnostic } from '../../../server/providers/provider';
import { DEFAULT_CLIENT_CAPABILITIES } from '../../../server/providers/provider';
import type { Block, Schema } from '../../../server/providers/schema';
import { nullObject } from '../../../server/providers/schema';
import { loopbackProvider } from '../../../server/providers/wire';
import { startBuiltinProvider } from '../../../server/providers/builtin';
import { proposedNew } from '../../../server/plans/objchange/proposed';
import { assertPlanValid, invalidPlanDiagnostics } from '../../../server/plans/objchange/valid';
import { assertObjectCompatible, inconsistentResultDiagnostics } from '../../../server/plans/objchange/compatible';
import { valueConformsToSchema } from '../../../server/plans/objchange/conformance';
import { objectFor } from '../../../server/providers/sdk';
import { goString } from '../../../server/providers/gostring';

/** A diagnostic as a compact comparable string: `error: Summary: Detail [at .path]`. */
export function diagText(d: ProviderDiagnostic): string {
  return `${d.severity}: ${d.summary}${d.detail ? `: ${d.detail}` : ''}${d.path && d.path.length ? ` [at ${formatPath(d.path)}]` : ''}`;
}

export interface Planned {
  planned: Value;
  requiresReplace: string[];
  /** True when the provider asked for replacement and the harness re-planned as a create. */
  replaced: boolean;
  diagnostics: string[];
}

/** One provider under test, reached only through the loopback. */
export class Harness {
  readonly p: Provider;
  private schemas?: Record<string, Schema>;
  private dataSchemas?: Record<string, Schema>;
  constructor(
    readonly address: string,
    opts: { workingDir?: string } = {},
  ) {
    const raw = startBuiltinProvider(address, opts);
    if (!raw) throw new Error(`no built-in provider ${address}`);
    this.p = loopbackProvider(raw);
  }

  /** The schema of a managed resource type, or of a data source with mode 'data' (a type may be both). */
  async schema(type: string, mode: 'managed' | 'data' = 'managed'): Promise<Schema> {
    if (!this.schemas) {
      const r = await this.p.getProviderSchema();
      this.schemas = r.resourceTypes;
      this.dataSchemas = r.dataSources;
    }
    const s = mode === 'data' ? this.dataSchemas![type] : (this.schemas[type] ?? this.dataSchemas![type]);
    assert.ok(s, `no ${mode} schema for ${type}`);
    return s;
  }

  async block(type: string, mode: 'managed' | 'data' = 'managed'): Promise<Block> {
    return (await this.schema(type, mode)).block;
  }

  /** A configuration object: the given attributes, everything else null. */
  async config(type: string, attrs: Record<string, Value>, mode: 'managed' | 'data' = 'managed'): Promise<Value> {
    return objectFor(await this.block(type, mode), attrs);
  }

  async validate(type: string, attrs: Record<string, Value>): Promise<string[]> {
    const config = await this.config(type, attrs);
    const r = await this.p.validateResourceConfig({ typeName: type, config, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    return r.diagnostics.map(diagText);
  }

  async validateData(type: string, attrs: Record<string, Value>): Promise<string[]> {
    const config = await this.config(type, attrs, 'data');
    const r = await this.p.validateDataResourceConfig({ typeName: type, config });
    return r.diagnostics.map(diagText);
  }

  /** Plans as core does; after RequiresReplace, plans the replacement as a create (prior null). */
  async plan(type: string, prior: Value | null, attrs: Record<string, Value>): Promise<Planned> {
    const b = await this.block(type);
    const config = await this.config(type, attrs);
    const p0 = prior ?? nullObject(b);
    const first = await this.planOnce(type, b, p0, config);
    if (first.diagnostics.length || p0.isNull || first.requiresReplace.length === 0) return { ...first, replaced: false };
    const second = await this.planOnce(type, b, nullObject(b), config);
    return { ...second, requiresReplace: first.requiresReplace, replaced: true };
  }

  private async planOnce(type: string, b: Block, prior: Value, config: Value): Promise<Omit<Planned, 'replaced'>> {
    const proposed = proposedNew(b, prior, config);
    const r = await this.p.planResourceChange({
      typeName: type,
      priorState: prior,
      proposedNewState: proposed,
      config,
      priorPrivate: new Uint8Array(0),
      clientCapabilities: DEFAULT_CLIENT_CAPABILITIES,
    });
    const diagnostics = r.diagnostics.map(diagText);
    if (r.diagnostics.some((d) => d.severity === 'error')) return { planned: r.plannedState, requiresReplace: [], diagnostics };
    assert.deepEqual(valueConformsToSchema(b, r.plannedState).map(formatError), [], 'planned object conforms to the schema');
    const errs = assertPlanValid(b, prior, config, r.plannedState);
    assert.deepEqual(invalidPlanDiagnostics(errs, this.address, `${type}.test`).map((d) => d.detail), [], 'plan is valid');
    return { planned: r.plannedState, requiresReplace: r.requiresReplace.map((p: Path) => formatPath(p)), diagnostics };
  }

  /** Applies a plan; checks the result is wholly known, conforms and is compatible with the plan. */
  async apply(type: string, prior: Value | null, planned: Value, attrs: Record<string, Value>): Promise<{ state: Value; diagnostics: string[] }> {
    const b = await this.block(type);
    const config = planned.isNull ? nullObject(b) : await this.config(type, attrs);
    const r = await this.p.applyResourceChange({ typeName: type, priorState: prior ?? nullObject(b), plannedState: planned, config, plannedPrivate: new Uint8Array(0) });
    const diagnostics = r.diagnostics.map(diagText);
    if (r.diagnostics.some((d) => d.severity === 'error')) return { state: r.newState, diagnostics };
    assert.deepEqual(valueConformsToSchema(b, r.newState).map(formatError), [], 'new state conforms to the schema');
    assert.ok(r.newState.isWhollyKnown, `new state is wholly known: ${goString(r.newState)}`);
    const errs = assertObjectCompatible(b, planned, r.newState);
    assert.deepEqual(inconsistentResultDiagnostics(errs, `${type}.test`, `provider["${this.address}"]`).map((d) => d.detail), [], 'result is compatible with the plan');
    return { state: r.newState, diagnostics };
  }

  /** Plan then apply a create or update; fails on diagnostics. */
  async converge(type: string, prior: Value | null, attrs: Record<string, Value>): Promise<{ state: Value; plan: Planned }> {
    const plan = await this.plan(type, prior, attrs);
    assert.deepEqual(plan.diagnostics, []);
    const { state, diagnostics } = await this.apply(type, plan.replaced ? null : prior, plan.planned, attrs);
    assert.deepEqual(diagnostics, []);
    return { state, plan };
  }

  async read(type: string, state: Value): Promise<{ state: Value; diagnostics: string[] }> {
    const r = await this.p.readResource({ typeName: type, currentState: state, private: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    if (!r.newState.isNull) assert.deepEqual(valueConformsToSchema(await this.block(type), r.newState).map(formatError), []);
    return { state: r.newState, diagnostics: r.diagnostics.map(diagText) };
  }

  async import(type: string, id: string): Promise<{ state?: Value; diagnostics: string[] }> {
    const r = await this.p.importResourceState({ typeName: type, id, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    const diagnostics = r.diagnostics.map(diagText);
    if (r.importedResources.length === 0) return { diagnostics };
    assert.equal(r.importedResources.length, 1);
    const st = r.importedResources[0].state;
    assert.deepEqual(valueConformsToSchema(await this.block(type), st).map(formatError), []);
    return { state: st, diagnostics };
  }

  async upgrade(type: string, version: number, rawStateJson: string): Promise<{ state: Value; diagnostics: string[] }> {
    const r = await this.p.upgradeResourceState({ typeName: type, version, rawStateJson });
    const diagnostics = r.diagnostics.map(diagText);
    if (!r.diagnostics.some((d) => d.severity === 'error')) {
      assert.deepEqual(valueConformsToSchema(await this.block(type), r.upgradedState).map(formatError), []);
      assert.ok(r.upgradedState.isWhollyKnown);
    }
    return { state: r.upgradedState, diagnostics };
  }

  async readData(type: string, attrs: Record<string, Value>): Promise<{ state: Value; diagnostics: string[] }> {
    const config = await this.config(type, attrs, 'data');
    const r = await this.p.readDataSource({ typeName: type, config, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    const diagnostics = r.diagnostics.map(diagText);
    if (!r.diagnostics.some((d) => d.severity === 'error')) {
      assert.deepEqual(valueConformsToSchema(await this.block(type, 'data'), r.state).map(formatError), []);
      assert.ok(r.state.isWhollyKnown);
    }
    return { state: r.state, diagnostics };
  }
}

/** The attribute of an object (test shorthand). */
export function at(v: Value, name: string): Value {
  return v.entries.get(name)!;
}
