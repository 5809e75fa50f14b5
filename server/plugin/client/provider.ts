// A provider plugin process behind the Provider interface (server/providers/provider.ts), as Terraform's
// plugin.GRPCProvider (protocol 5) and plugin6.GRPCProvider (protocol 6) are: the engine, the contract checks,
// the CLI and the language server use it exactly as they use a built-in provider.
//
//   new GrpcProvider(opts)  nothing starts until the first call; `opts.start` launches the process
//                           (client/process.ts) once. GetProviderSchema is answered from memory, else from the
//                           on-disk schema cache (server/plugin/schemacache.ts, keyed by the binary's hash) without
//                           starting the process, else by the RPC (then cached). Every other call needs the schemas
//                           (values are msgpack of the schema's types, server/plugin/convert.ts).
//   Failures never throw: each becomes Terraform's diagnostic, and the response gets placeholder fields:
//     - launch failure / schema failure: "Failed to load plugin schemas" with Terraform's wrapped detail;
//     - gRPC Unavailable (the plugin crashed or exited): "Plugin did not respond" / "The plugin encountered an
//       error, and failed to respond to the plugin6.(*GRPCProvider).X call. ..." (plugin. for protocol 5);
//     - Canceled, Unimplemented and other codes: "Request cancelled", "Unsupported plugin method", "Plugin error";
//     - an answer that does not decode against the schema (nonsense): the decoder's message, as Terraform appends
//       the error.
//   A process that died stays dead for this object (as in Terraform, where a crash ends the run); the pool
//   (server/plugin/pool.ts) starts a fresh one for the next run. `callTimeoutMs` (not in Terraform, which waits
//   forever) bounds a hung validation, plan or read for the language server; ApplyResourceChange is never cut short
//   (a run is cancelled instead).

import type * as grpc from '@grpc/grpc-js';
import { grpcModule } from '../grpc';
import type { Diagnostic } from '../../diags/diagnostic';
import { error } from '../../diags/diagnostic';
import type * as P from '../../providers/provider';
import { codecs, ConvertError, RPC_NAMES, type Method, type Msg, type ProtoVersion } from '../convert';
import { LaunchError, type PluginConnection } from './process';
import type { SchemaCache } from '../schemacache';
import { failedCallFields } from '../../providers/failed';

export interface GrpcProviderOptions {
  /** Fully qualified provider address (for messages). */
  fqn: string;
  /** Starts the plugin process (called at most once). */
  start: () => Promise<PluginConnection>;
  /** The on-disk schema cache and this binary's key in it (undefined: no caching). */
  schemaCache?: { cache: SchemaCache; key: () => Promise<string | undefined> };
  /** Per-call deadline in ms, except for ApplyResourceChange; none by default (Terraform waits forever). */
  callTimeoutMs?: number | (() => number | undefined);
  /** Called with each completed RPC's name and duration (ms), for measurements. */
  onCall?: (method: string, ms: number) => void;
}

type Req<M extends Method> = Parameters<P.Provider[M]>[0];
type Res<M extends Method> = Awaited<ReturnType<P.Provider[M]>>;

/** The Go method name Terraform's messages use: providers.Interface's names (the protocol 6 names). */
function goMethod(m: Method): string {
  return RPC_NAMES[6][m];
}

/** Terraform's grpcErr (internal/plugin{,6}/grpc_error.go) for a failed call. */
export function grpcErrorDiagnostic(err: grpc.ServiceError, method: Method, protocol: number): Diagnostic {
  const requestName = `${protocol === 5 ? 'plugin' : 'plugin6'}.(*GRPCProvider).${goMethod(method)}`;
  switch (err.code) {
    case grpcModule().status.UNAVAILABLE:
      return error('Plugin did not respond', `The plugin encountered an error, and failed to respond to the ${requestName} call. The plugin logs may contain more details.`);
    case grpcModule().status.CANCELLED:
      return error('Request cancelled', `The ${requestName} request was cancelled.`);
    case grpcModule().status.UNIMPLEMENTED:
      return error('Unsupported plugin method', `The ${requestName} method is not supported by this plugin.`);
    default:
      // grpc-js adds its own notes to a deadline; Go's client says "context deadline exceeded".
      return error(
        'Plugin error',
        `The plugin returned an unexpected error from ${requestName}: rpc error: code = ${codeName(err.code)} desc = ${err.code === grpcModule().status.DEADLINE_EXCEEDED ? 'context deadline exceeded' : err.details}`,
      );
  }
}

function codeName(c: number): string {
  const n = grpcModule().status[c] ?? String(c);
  return n
    .toLowerCase()
    .split('_')
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('')
    .replace(/^Ok$/, 'OK');
}


/** Terraform's "Failed to load plugin schemas" for a provider whose schema could not be obtained. */
export function schemaLoadFailure(fqn: string, why: string, instantiate: boolean): Diagnostic {
  const inner = instantiate ? `failed to instantiate provider "${fqn}" to obtain schema: ${why}` : `failed to retrieve schema from provider "${fqn}": ${why}`;
  return error('Failed to load plugin schemas', `Error while loading schemas for plugin components: Failed to obtain provider schema: Could not load the schema for provider ${fqn}: ${inner}..`);
}

export class GrpcProvider implements P.Provider {
  private proc?: Promise<PluginConnection | LaunchError>;
  private schemas?: P.GetProviderSchemaResponse;
  private schemaPromise?: Promise<P.GetProviderSchemaResponse>;
  private closed = false;

  constructor(private readonly opts: GrpcProviderOptions) {}

  /** The process, once started (undefined before the first call that needs it). */
  async process(): Promise<PluginConnection | undefined> {
    const p = await this.proc;
    return p instanceof LaunchError ? undefined : p;
  }

  /** Whether the process was started and has exited (crashed or stopped). */
  async dead(): Promise<boolean> {
    if (!this.proc) return false;
    const p = await this.proc;
    return p instanceof LaunchError || !p.alive;
  }

  private ensure(): Promise<PluginConnection | LaunchError> {
    if (!this.proc)
      this.proc = this.opts.start().catch((e: unknown) => (e instanceof LaunchError ? e : new LaunchError(e instanceof Error ? e.message : String(e))));
    return this.proc;
  }

  private unary(proc: PluginConnection, method: Method, msg: Msg): Promise<{ ok: Msg } | { err: grpc.ServiceError }> {
    const name = RPC_NAMES[proc.protocol as ProtoVersion][method];
    const t0 = performance.now();
    return new Promise((res) => {
      const md = new (grpcModule()).Metadata();
      // ApplyResourceChange has no deadline: creating a real object may take as long as it takes (Terraform waits),
      // and a run that must end sooner is cancelled (StopProvider, then the forced cancel).
      const limit = typeof this.opts.callTimeoutMs === 'function' ? this.opts.callTimeoutMs() : this.opts.callTimeoutMs;
      const options: grpc.CallOptions = limit && method !== 'applyResourceChange' ? { deadline: Date.now() + limit } : {};
      (proc.provider as any)[name](msg, md, options, (err: grpc.ServiceError | null, out: Msg) => {
        this.opts.onCall?.(name, performance.now() - t0);
        res(err ? { err } : { ok: out });
      });
    });
  }

  async getProviderSchema(): Promise<P.GetProviderSchemaResponse> {
    if (this.schemas) return this.schemas;
    if (!this.schemaPromise) this.schemaPromise = this.loadSchemas();
    return this.schemaPromise;
  }

  private async loadSchemas(): Promise<P.GetProviderSchemaResponse> {
    const fail = (d: Diagnostic): P.GetProviderSchemaResponse => ({ diagnostics: [d], ...(failedCallFields('getProviderSchema') as Omit<P.GetProviderSchemaResponse, 'diagnostics'>) });
    const cacheKey = this.opts.schemaCache ? await this.opts.schemaCache.key().catch(() => undefined) : undefined;
    if (cacheKey && this.opts.schemaCache) {
      const hit = this.opts.schemaCache.cache.get(cacheKey);
      if (hit) {
        this.schemas = hit;
        return hit;
      }
    }
    const proc = await this.ensure();
    if (proc instanceof LaunchError) {
      this.schemaPromise = undefined;
      return fail(schemaLoadFailure(this.opts.fqn, proc.message, true));
    }
    const r = await this.unary(proc, 'getProviderSchema', {});
    if ('err' in r) {
      this.schemaPromise = undefined;
      const d = grpcErrorDiagnostic(r.err, 'getProviderSchema', proc.protocol);
      return fail(schemaLoadFailure(this.opts.fqn, `${d.summary}: ${d.detail}`, false));
    }
    let res: P.GetProviderSchemaResponse;
    try {
      res = codecs(proc.protocol as ProtoVersion).getProviderSchema.responseFromProto(r.ok, undefined as never, undefined);
    } catch (e) {
      this.schemaPromise = undefined;
      return fail(schemaLoadFailure(this.opts.fqn, (e as Error).message, false));
    }
    if (res.diagnostics.some((d) => d.severity === 'error')) {
      this.schemaPromise = undefined;
      return res;
    }
    this.schemas = res;
    if (cacheKey && this.opts.schemaCache) this.opts.schemaCache.cache.put(cacheKey, proc.protocol as ProtoVersion, r.ok, res);
    return res;
  }

  private async call<M extends Exclude<Method, 'getProviderSchema' | 'stopProvider'>>(method: M, req: Req<M>): Promise<Res<M>> {
    // Terraform appends these as plain errors, not the provider's (contextual) diagnostics: no range, no address.
    const fail = (d: Diagnostic) => ({ diagnostics: [{ ...d, sourceless: true }], ...failedCallFields(method) }) as unknown as Res<M>;
    if (this.closed) return fail(error('Plugin did not respond', `The provider ${this.opts.fqn} was already stopped.`));
    const schemas = await this.getProviderSchema();
    if (schemas.diagnostics.some((d) => d.severity === 'error')) return { ...fail(schemas.diagnostics[0]), diagnostics: schemas.diagnostics } as Res<M>;
    const proc = await this.ensure();
    if (proc instanceof LaunchError) return fail(schemaLoadFailure(this.opts.fqn, proc.message, true));
    const codec = codecs(proc.protocol as ProtoVersion)[method] as unknown as {
      requestToProto(r: Req<M>, s: P.GetProviderSchemaResponse): Msg;
      responseFromProto(m: Msg, s: P.GetProviderSchemaResponse, r: Req<M>): Res<M>;
    };
    let msg: Msg;
    try {
      msg = codec.requestToProto(req, schemas);
    } catch (e) {
      return fail(error((e as Error).message));
    }
    if (!proc.alive) return fail(grpcErrorDiagnostic({ code: grpcModule().status.UNAVAILABLE } as grpc.ServiceError, method, proc.protocol));
    const r = await this.unary(proc, method, msg);
    if ('err' in r) {
      // A crashed plugin: let its exit be observed before answering, so callers see a consistent state.
      if (r.err.code === grpcModule().status.UNAVAILABLE) await Promise.race([proc.exited, new Promise((res) => setTimeout(res, 500))]);
      return fail(grpcErrorDiagnostic(r.err, method, proc.protocol));
    }
    try {
      return codec.responseFromProto(r.ok, schemas, req);
    } catch (e) {
      if (e instanceof ConvertError || e instanceof Error) return fail(error(e.message));
      throw e;
    }
  }

  validateProviderConfig(req: P.ValidateProviderConfigRequest): Promise<P.ValidateProviderConfigResponse> {
    return this.call('validateProviderConfig', req);
  }
  validateResourceConfig(req: P.ValidateResourceConfigRequest): Promise<P.ValidateResourceConfigResponse> {
    return this.call('validateResourceConfig', req);
  }
  validateDataResourceConfig(req: P.ValidateDataResourceConfigRequest): Promise<P.ValidateDataResourceConfigResponse> {
    return this.call('validateDataResourceConfig', req);
  }
  configureProvider(req: P.ConfigureProviderRequest): Promise<P.ConfigureProviderResponse> {
    return this.call('configureProvider', req);
  }
  upgradeResourceState(req: P.UpgradeResourceStateRequest): Promise<P.UpgradeResourceStateResponse> {
    return this.call('upgradeResourceState', req);
  }
  readResource(req: P.ReadResourceRequest): Promise<P.ReadResourceResponse> {
    return this.call('readResource', req);
  }
  planResourceChange(req: P.PlanResourceChangeRequest): Promise<P.PlanResourceChangeResponse> {
    return this.call('planResourceChange', req);
  }
  applyResourceChange(req: P.ApplyResourceChangeRequest): Promise<P.ApplyResourceChangeResponse> {
    return this.call('applyResourceChange', req);
  }
  importResourceState(req: P.ImportResourceStateRequest): Promise<P.ImportResourceStateResponse> {
    return this.call('importResourceState', req);
  }
  moveResourceState(req: P.MoveResourceStateRequest): Promise<P.MoveResourceStateResponse> {
    return this.call('moveResourceState', req);
  }
  readDataSource(req: P.ReadDataSourceRequest): Promise<P.ReadDataSourceResponse> {
    return this.call('readDataSource', req);
  }

  async stopProvider(): Promise<P.StopProviderResponse> {
    if (!this.proc) return {};
    const proc = await this.proc;
    if (proc instanceof LaunchError || !proc.alive) return {};
    const r = await this.unary(proc, 'stopProvider', {});
    if ('err' in r) return { error: r.err.details || r.err.message };
    return r.ok.Error ? { error: String(r.ok.Error) } : {};
  }

  /** The process, started now if it was not yet (undefined when it failed to start). */
  async connection(): Promise<PluginConnection | undefined> {
    const p = await this.ensure();
    return p instanceof LaunchError ? undefined : p;
  }

  /** Ends the plugin process (Shutdown, then SIGKILL after 2 s); a shared process is only released. */
  close(): Promise<void> {
    return this.end((p) => p.kill());
  }

  /** Ends the plugin process even where it is shared (hung, or to be configured afresh). */
  terminate(): Promise<void> {
    return this.end((p) => p.terminate());
  }

  private async end(how: (p: PluginConnection) => Promise<void>): Promise<void> {
    this.closed = true;
    if (!this.proc) return;
    const proc = await this.proc;
    if (!(proc instanceof LaunchError)) await how(proc);
  }
}
