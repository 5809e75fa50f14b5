// Providers Foresight does not carry, for the command line and the language server: a provider address resolves
// to a binary as Terraform's providerFactories resolve it (server/plugin/discovery.ts: dev_overrides, else the lock
// file's version installed under .terraform/providers and matching a lock hash) and runs out of process
// (client/provider.ts), through a pool when one is given (server/plugin/pool.ts: the language server's reuse).
//
//   externalProvider(opts)  a Provider at once (the engine's ProviderFactory is synchronous); the binary is located
//                           on the first call. Where Terraform would have no provider, every call answers
//                           Terraform's diagnostic: "Missing required provider" (no lock entry, as the engine words it
//                           for an unknown provider), "Required plugins are not installed" (not installed, hash
//                           mismatch), or the launch failure. Never throws.
//   preferDevOverride(...)  a built-in provider that yields to a dev_overrides entry for its address in the CLI
//                           configuration (decided on the first call), as Terraform uses the overriding binary.
//   cliPluginScope(run)     the command line runs each command inside it: providers start their own processes, and all
//                           are ended when the command is done (as Terraform kills its provider processes at the end
//                           of each operation). Outside a scope, only a pool (setDefaultPool, the language server's,
//                           with its trust setting) starts binaries; without one nothing is started.

import { relative } from 'node:path';
import type { Diagnostic } from '../../diags/diagnostic';
import { error } from '../../diags/diagnostic';
import type * as P from '../../providers/provider';
import { readLockFile } from '../../depsfile/locks';
import { hashPackageDir, loadCliConfig, locateProvider, type Env, type Located } from '../discovery';
import { defaultSchemaCacheDir, schemaCacheAt } from '../schemacache';
import { GrpcProvider } from './provider';
import { PluginProcess, type LaunchOptions, type PluginConnection } from './process';
import type { ProviderPool } from '../pool';
import { failedCallFields } from '../../providers/failed';

export interface ExternalProviderOptions {
  workDir: string;
  env?: Env;
  fqn: string;
  /** Reuse processes through this pool (language server); without one each provider starts its own process. */
  pool?: ProviderPool;
}

const started = new Set<GrpcProvider>();
let cliScopes = 0;
let defaultPool: ProviderPool | undefined;

/**
 * Runs a command line command: inside it, providers without a pool start their own processes, all ended when the
 * command is done. Outside (the language server) a pool must be set (setDefaultPool), else no binary is started.
 */
export async function cliPluginScope<T>(run: () => Promise<T>): Promise<T> {
  cliScopes++;
  try {
    return await run();
  } finally {
    cliScopes--;
    if (cliScopes === 0) await closeStartedPlugins();
  }
}

/** The pool externalProvider uses when none is passed (the language server sets its own, with its trust setting). */
export function setDefaultPool(pool: ProviderPool | undefined): void {
  defaultPool = pool;
}

/** Ends every plugin process started without a pool (Shutdown, then SIGKILL after 2 s). */
export async function closeStartedPlugins(): Promise<void> {
  const all = [...started];
  started.clear();
  await Promise.all(all.map((p) => p.close()));
}

/** Terraform's message for a provider that is not available (the engine's own wording, engine/context.ts). */
export function missingProvider(fqn: string): Diagnostic {
  return error(
    'Missing required provider',
    `This configuration requires provider ${fqn}, but that provider isn't available. You may be able to install it automatically by running:\n  terraform init`,
  );
}

/** Resolves a provider address to its binary for a working directory (lock file + discovery). */
export async function locate(workDir: string, fqn: string, env: Env): Promise<Located> {
  const locks = await readLockFile(workDir);
  const lock = locks.providers.get(fqn);
  return locateProvider(workDir, fqn, lock ? { version: lock.version, hashes: lock.hashes } : undefined, env);
}

/** A GrpcProvider for a located binary, with the on-disk schema cache keyed by the package hash. */
export function binaryProvider(
  workDir: string,
  loc: Extract<Located, { kind: 'binary' }>,
  env: Env,
  extra: { callTimeoutMs?: number | (() => number | undefined); launch?: (opts: LaunchOptions) => Promise<PluginConnection> } = {},
): GrpcProvider {
  const display = relative(workDir, loc.executable);
  const launch = extra.launch ?? ((o: LaunchOptions) => PluginProcess.start(o));
  return new GrpcProvider({
    fqn: loc.fqn,
    start: () => launch({ executable: loc.executable, displayPath: display && !display.startsWith('..') ? display : loc.executable, env, cwd: workDir }),
    schemaCache: env.FORESIGHT_SCHEMA_CACHE === 'off' ? undefined : { cache: schemaCacheAt(defaultSchemaCacheDir(env)), key: () => hashPackageDir(loc.packageDir) },
    callTimeoutMs: extra.callTimeoutMs,
  });
}

const METHODS = [
  'getProviderSchema',
  'validateProviderConfig',
  'validateResourceConfig',
  'validateDataResourceConfig',
  'configureProvider',
  'upgradeResourceState',
  'readResource',
  'planResourceChange',
  'applyResourceChange',
  'importResourceState',
  'moveResourceState',
  'readDataSource',
] as const;


/** A provider binary behind the Provider interface, located lazily (see the header). */
export function externalProvider(opts: ExternalProviderOptions): P.Provider {
  const env = opts.env ?? process.env;
  let target: Promise<P.Provider | Diagnostic> | undefined;
  const resolveTarget = () =>
    (target ??= (async (): Promise<P.Provider | Diagnostic> => {
      const pool = opts.pool ?? defaultPool;
      if (pool) return pool.provider(opts.workDir, opts.fqn);
      const loc = await locate(opts.workDir, opts.fqn, env).catch((e: unknown) => ({ kind: 'error' as const, diagnostic: error('Failed to load plugin schemas', (e as Error).message) }));
      if (loc.kind === 'missing') return missingProvider(opts.fqn);
      if (loc.kind === 'error') return loc.diagnostic;
      if (cliScopes === 0)
        return error('Provider not started', `No provider process pool is configured here, so ${opts.fqn} (${loc.executable}) was not started.`);
      const p = binaryProvider(opts.workDir, loc, env);
      started.add(p);
      return p;
    })());
  const out: Record<string, unknown> = {};
  for (const m of METHODS) {
    out[m] = async (req?: unknown) => {
      const t = await resolveTarget();
      if ('summary' in t) return { diagnostics: [t], ...failedCallFields(m) };
      return (t as unknown as Record<string, (r?: unknown) => Promise<unknown>>)[m](req);
    };
  }
  out.stopProvider = async () => {
    if (!target) return {};
    const t = await target;
    return 'summary' in t ? {} : t.stopProvider();
  };
  out.close = async () => {
    if (!target) return;
    const t = await target;
    if (!('summary' in t)) {
      if (t instanceof GrpcProvider) started.delete(t);
      await t.close();
    }
  };
  return out as unknown as P.Provider;
}

/**
 * `builtin` unless the CLI configuration's dev_overrides name `fqn`: then the overriding binary (`external()`),
 * as Terraform would run it. Decided once, on the first call; a configuration that cannot be read keeps the
 * built-in provider (the commands report the configuration's own problems).
 */
export function preferDevOverride(builtin: P.Provider, external: () => P.Provider, workDir: string, fqn: string, env: Env = process.env): P.Provider {
  let chosen: Promise<P.Provider> | undefined;
  const pick = () =>
    (chosen ??= loadCliConfig(workDir, env).then(
      (c) => (c.devOverrides.has(fqn) ? external() : builtin),
      () => builtin,
    ));
  const out: Record<string, unknown> = {};
  for (const m of [...METHODS, 'stopProvider', 'close'] as const) {
    out[m] = async (req?: unknown) => ((await pick()) as unknown as Record<string, (r?: unknown) => Promise<unknown>>)[m](req);
  }
  out.stopProvider = async () => (chosen ? (await chosen).stopProvider() : {});
  out.close = async () => {
    if (chosen) await (await chosen).close();
  };
  return out as unknown as P.Provider;
}
