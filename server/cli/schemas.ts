// The provider schemas that `show` and `state show` render a state with, as Terraform loads them (Core.Schemas):
// the built-in providers' own, and for every other provider of the state the installed binary's (lock file +
// .terraform/providers, or dev_overrides), answered from the disk schema cache when it holds that package's
// schema, else by starting the provider (stopped again at once).

import { providerFQN, stateSchemas, type SchemaSource } from '../command/jsonstate';
import { binaryProvider, locate } from '../plugin/client/factory';
import { findBuiltinProvider } from '../providers/builtin/index';
import type { Schema } from '../providers/schema';
import type { State } from '../states/state';
import type { CliIO } from './io';

/**
 * The schemas of the state's providers that are binaries (not built in): the
 * installed provider (lock file + .terraform/providers, or dev_overrides) answers GetProviderSchema, from the disk
 * schema cache when it holds that package's schema, else by starting the provider (stopped again at once).
 * A provider that cannot be found or started keeps the schema-less rendering.
 */
async function binarySchemas(state: State, io: Pick<CliIO, 'cwd' | 'env'>): Promise<Map<string, { resourceTypes: Record<string, Schema>; dataSources: Record<string, Schema> }>> {
  const out = new Map<string, { resourceTypes: Record<string, Schema>; dataSources: Record<string, Schema> }>();
  const fqns = new Set<string>();
  for (const [, r] of state.allResources()) fqns.add(providerFQN(r.provider));
  const env = io.env ?? process.env;
  for (const fqn of fqns) {
    if (findBuiltinProvider(fqn)) continue;
    try {
      const loc = await locate(io.cwd, fqn, env);
      if (loc.kind !== 'binary') continue;
      const p = binaryProvider(io.cwd, loc, env);
      try {
        const resp = await p.getProviderSchema();
        if (!resp.diagnostics.some((d) => d.severity === 'error')) out.set(fqn, { resourceTypes: resp.resourceTypes, dataSources: resp.dataSources });
      } finally {
        await p.close();
      }
    } catch {
      // the schema-less rendering
    }
  }
  return out;
}

/** Schemas for rendering `state`: built-in providers, then installed binaries; undefined where neither has one. */
export async function stateProviderSchemas(state: State, io: Pick<CliIO, 'cwd' | 'env'>): Promise<SchemaSource> {
  const builtin = await stateSchemas(state);
  const binaries = await binarySchemas(state, io);
  return (provider, mode, type) => {
    const b = binaries.get(provider);
    return (b ? (mode === 'data' ? b.dataSources[type] : b.resourceTypes[type]) : undefined) ?? builtin(provider, mode, type);
  };
}
