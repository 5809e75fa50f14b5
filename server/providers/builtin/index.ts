// The registry of providers built into Foresight, by source address, with the version each one is
// compatible with, and the in-process factory the engine uses to start one.
//
// `BUILTIN_PROVIDERS` lists them (terraform.io/builtin/terraform and registry.terraform.io/hashicorp/null,
// random, local, time, tls, http and archive; server/providers/resolve.ts derives the versions init and the
// lock file use from this list; local and archive resolve relative paths against BuiltinOptions.workingDir).
// `startBuiltinProvider(address)` returns a fresh, unconfigured instance wrapped by `guardProvider`, which
// turns a provider method that throws (a provider bug) into the diagnostic Terraform shows when a plugin
// crashes ("Plugin did not respond") instead of an exception in the engine. The providers are plain Provider
// objects and never rely on running in-process: tests call them through wire.ts's loopbackProvider.
// Siblings: terraform.ts, null.ts, random.ts, local.ts, time.ts, tls.ts (with tls/), http.ts, archive.ts;
// the SDK is ../sdk.

import type { Provider } from '../provider';
import { ARCHIVE_PROVIDER_ADDRESS, archiveProvider } from './archive';
import { HTTP_PROVIDER_ADDRESS, httpProvider } from './http';
import { LOCAL_PROVIDER_ADDRESS, localProvider } from './local';
import { NULL_PROVIDER_ADDRESS, nullProvider } from './null';
import { RANDOM_PROVIDER_ADDRESS, randomProvider } from './random';
import { TERRAFORM_PROVIDER_ADDRESS, terraformProvider } from './terraform';
import { TIME_PROVIDER_ADDRESS, timeProvider } from './time';
import { TLS_PROVIDER_ADDRESS, tlsProvider } from './tls';
import { failedCallFields } from '../failed';

export interface BuiltinProvider {
  /** Fully-qualified source address, e.g. registry.terraform.io/hashicorp/random. */
  readonly address: string;
  /** The local name Terraform implies from resource type prefixes ("random" for random_string). */
  readonly name: string;
  /** The version of HashiCorp's provider this one is compatible with; "" for the builtin terraform provider. */
  readonly version: string;
  /** Starts a new instance. */
  readonly factory: (opts: BuiltinOptions) => Provider;
}

export interface BuiltinOptions {
  /** The directory relative paths are resolved against (terraform_remote_state's local backend). */
  workingDir?: string;
}

export const BUILTIN_PROVIDERS: readonly BuiltinProvider[] = [
  { address: TERRAFORM_PROVIDER_ADDRESS, name: 'terraform', version: '', factory: (o) => terraformProvider(o) },
  { address: NULL_PROVIDER_ADDRESS, name: 'null', version: '3.2.4', factory: () => nullProvider() },
  { address: RANDOM_PROVIDER_ADDRESS, name: 'random', version: '3.7.2', factory: () => randomProvider() },
  { address: LOCAL_PROVIDER_ADDRESS, name: 'local', version: '2.5.3', factory: (o) => localProvider(o) },
  { address: TIME_PROVIDER_ADDRESS, name: 'time', version: '0.12.1', factory: () => timeProvider() },
  { address: TLS_PROVIDER_ADDRESS, name: 'tls', version: '4.0.6', factory: () => tlsProvider() },
  { address: HTTP_PROVIDER_ADDRESS, name: 'http', version: '3.5.0', factory: () => httpProvider() },
  { address: ARCHIVE_PROVIDER_ADDRESS, name: 'archive', version: '2.7.1', factory: (o) => archiveProvider(o) },
];

/** The built-in provider with this fully-qualified source address, if any. */
export function findBuiltinProvider(address: string): BuiltinProvider | undefined {
  return BUILTIN_PROVIDERS.find((p) => p.address === address);
}

/** A new instance of a built-in provider, guarded (see guardProvider); undefined for an unknown address. */
export function startBuiltinProvider(address: string, opts: BuiltinOptions = {}): Provider | undefined {
  const p = findBuiltinProvider(address);
  return p ? guardProvider(p.factory(opts)) : undefined;
}

/** The diagnostic Terraform reports when a provider plugin fails to answer a call (it crashed). */
export function pluginDidNotRespond(method: string) {
  return {
    severity: 'error' as const,
    summary: 'Plugin did not respond',
    detail: `The plugin encountered an error, and failed to respond to the plugin.(*GRPCProvider).${method} call. The plugin logs may contain more details.`,
  };
}

const METHOD_NAMES: Record<string, string> = {
  getProviderSchema: 'GetProviderSchema',
  validateProviderConfig: 'ValidateProviderConfig',
  validateResourceConfig: 'ValidateResourceConfig',
  validateDataResourceConfig: 'ValidateDataResourceConfig',
  configureProvider: 'ConfigureProvider',
  upgradeResourceState: 'UpgradeResourceState',
  readResource: 'ReadResource',
  planResourceChange: 'PlanResourceChange',
  applyResourceChange: 'ApplyResourceChange',
  importResourceState: 'ImportResourceState',
  moveResourceState: 'MoveResourceState',
  readDataSource: 'ReadDataSource',
};

/**
 * Wraps a provider so that a method which throws or rejects answers with "Plugin did not respond" instead
 * (the other fields of the response are placeholders: dynamic nulls and empty collections).
 * StopProvider answers its error text; close never fails.
 */
export function guardProvider(p: Provider): Provider {
  const out: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(METHOD_NAMES)) {
    const fn = (p as unknown as Record<string, (req?: unknown) => Promise<unknown>>)[key].bind(p);
    out[key] = async (req?: unknown) => {
      try {
        return await fn(req);
      } catch {
        return { diagnostics: [pluginDidNotRespond(name)], ...failedCallFields(key) };
      }
    };
  }
  out.stopProvider = async () => {
    try {
      return await p.stopProvider();
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
  };
  out.close = async () => {
    try {
      await p.close();
    } catch {
      // A provider that fails to close has nothing left to report.
    }
  };
  return out as unknown as Provider;
}

