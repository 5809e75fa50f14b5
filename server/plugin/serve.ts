// Serving a provider (server/providers/provider.ts) as a Terraform provider plugin: go-plugin's handshake,
// AutoMTLS, tfplugin6 (or tfplugin5 when the client offers only 5), health, controller, stdio and broker services.
//
// API (stable):
//   serveProvider(factory, opts?): Promise<number>
//       Runs in the current process as a plugin started by Terraform (or by our own client): checks the magic
//       cookie (else prints go-plugin's "This binary is a plugin" to stderr and resolves 1), negotiates the
//       protocol version from PLUGIN_PROTOCOL_VERSIONS, listens on a fresh unix socket (PLUGIN_UNIX_SOCKET_DIR
//       or the temp dir), serves mTLS when PLUGIN_CLIENT_CERT is set, writes the handshake line to stdout and
//       resolves 0 after controller Shutdown (or SIGTERM). After the handshake, console.log goes to stderr:
//       stdout belongs to the handshake. SIGINT is ignored, as Go plugins do (Terraform cancels with
//       StopProvider).
//   startServer(factory, opts): Promise<RunningServer>
//       The same without touching the process (tests, benchmarks): returns the handshake line, a `done`
//       promise and stop(). `opts.env` stands in for the process environment.
//   ServeOptions.versions: the protocol versions offered (default [6, 5]; 5 is only possible when the schema
//       has no nested attribute types, else its GetSchema answers an error diagnostic).
//   ServeOptions.wrap: a function applied to each Provider instance before serving (recording.ts, misbehaving).
//
// One Provider instance serves the whole process (Terraform starts one process per provider configuration).
// A request that does not decode against the schema is answered with gRPC INVALID_ARGUMENT; a provider method
// that throws is answered with gRPC UNKNOWN (Terraform reports either as "Plugin did not respond" / the error).

import type * as grpc from '@grpc/grpc-js';
import { grpcModule } from './grpc';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GetProviderSchemaResponse, Provider } from '../providers/provider';
import { codecs, ConvertError, RPC_NAMES, diagnosticsToProto, type Method, type Msg, type ProtoVersion } from './convert';
import { checkMagicCookie, clientVersions, formatHandshake, negotiateVersion, NOT_A_PLUGIN_MESSAGE } from './handshake';
import { GRPC_OPTIONS, loadProtos } from './proto/load';
import { generateCertificate, serverCredentials } from './tls';

export interface ServeOptions {
  env?: NodeJS.ProcessEnv;
  versions?: readonly ProtoVersion[];
  wrap?: (p: Provider) => Provider;
  /** A last change to each response message before it is sent (misbehaving.ts's wire-level faults). */
  tamper?: (method: Method, msg: Msg, schemas: GetProviderSchemaResponse, req: unknown, res: unknown) => Msg;
  /** Where log lines go (default: process.stderr). */
  log?: (line: string) => void;
}

export interface RunningServer {
  /** The handshake line, with its newline. */
  handshake: string;
  version: ProtoVersion;
  /** Resolves when the controller's Shutdown was called (or stop()). */
  done: Promise<void>;
  stop(): Promise<void>;
}

const PROVIDER_METHODS = Object.keys(RPC_NAMES[6]) as Method[];

function grpcError(code: grpc.status, details: string): grpc.ServiceError {
  const e = new Error(details) as grpc.ServiceError;
  e.code = code;
  e.details = details;
  e.metadata = new (grpcModule()).Metadata();
  return e;
}

export async function startServer(factory: () => Provider | Promise<Provider>, opts: ServeOptions = {}): Promise<RunningServer> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? ((l: string) => void process.stderr.write(l.endsWith('\n') ? l : l + '\n'));
  const offered = opts.versions ?? [6, 5];
  const version = negotiateVersion(clientVersions(env), offered) as ProtoVersion;
  const protos = loadProtos();
  let provider = await factory();
  if (opts.wrap) provider = opts.wrap(provider);
  const codec = codecs(version);

  let schemas: GetProviderSchemaResponse | undefined;
  const getSchemas = async () => (schemas ??= await provider.getProviderSchema());

  const server = new (grpcModule()).Server({ ...GRPC_OPTIONS });
  const impl: grpc.UntypedServiceImplementation = {};
  for (const method of PROVIDER_METHODS) {
    const c = codec[method] as unknown as { requestFromProto(m: unknown, s: unknown): unknown; responseToProto(r: unknown, s: unknown, req: unknown): unknown };
    impl[RPC_NAMES[version][method]] = (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      (async () => {
        const s = await getSchemas();
        if (method === 'getProviderSchema') {
          try {
            return c.responseToProto(s, s, undefined);
          } catch (e) {
            if (!(e instanceof ConvertError)) throw e;
            // Protocol 5 cannot describe this provider (nested attribute types).
            return { diagnostics: diagnosticsToProto([{ severity: 'error', summary: 'Provider schema not representable in plugin protocol 5', detail: e.message }]), resource_schemas: {}, data_source_schemas: {} };
          }
        }
        let req: unknown;
        try {
          req = method === 'stopProvider' ? undefined : c.requestFromProto(call.request, s);
        } catch (e) {
          if (e instanceof ConvertError) throw grpcError(grpcModule().status.INVALID_ARGUMENT, e.message);
          throw e;
        }
        const res = await (provider[method] as (r: unknown) => Promise<unknown>).call(provider, req);
        const msg = c.responseToProto(res, s, req) as Msg;
        return opts.tamper ? opts.tamper(method, msg, s, req, res) : msg;
      })().then(
        (msg) => callback(null, msg),
        (e: unknown) => {
          if (e && typeof e === 'object' && 'code' in e && typeof (e as grpc.ServiceError).code === 'number') return callback(e as grpc.ServiceError);
          log(`provider ${method} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
          callback(grpcError(grpcModule().status.UNKNOWN, e instanceof Error ? e.message : String(e)));
        },
      );
    };
  }
  // GetMetadata (both versions): what the provider offers, for clients that skip GetProviderSchema.
  impl.GetMetadata = (_call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
    getSchemas().then(
      (s) =>
        callback(null, {
          server_capabilities: { plan_destroy: s.serverCapabilities.planDestroy, get_provider_schema_optional: s.serverCapabilities.getProviderSchemaOptional, move_resource_state: s.serverCapabilities.moveResourceState },
          diagnostics: [],
          data_sources: Object.keys(s.dataSources).map((type_name) => ({ type_name })),
          resources: Object.keys(s.resourceTypes).map((type_name) => ({ type_name })),
          functions: [],
          ephemeral_resources: [],
        }),
      (e: unknown) => callback(grpcError(grpcModule().status.UNKNOWN, String(e))),
    );
  };
  impl.GetFunctions = (_call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => callback(null, { functions: {}, diagnostics: [] });
  const provSvc = (version === 5 ? protos.tfplugin5 : protos.tfplugin6).Provider.service;
  server.addService(provSvc, impl);

  // grpc.health.v1: go-plugin clients check "plugin".
  server.addService(protos.health.service, {
    Check: (_call: grpc.ServerUnaryCall<any, any>, cb: grpc.sendUnaryData<any>) => cb(null, { status: 'SERVING' }),
    Watch: (call: grpc.ServerWritableStream<any, any>) => {
      call.write({ status: 'SERVING' });
    },
  });

  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  const streams = new Set<grpc.ServerWritableStream<any, any> | grpc.ServerDuplexStream<any, any>>();
  let stopping = false;
  const stop = async () => {
    if (stopping) return done;
    stopping = true;
    for (const s of streams) s.end();
    await new Promise<void>((r) => server.tryShutdown(() => r()));
    server.forceShutdown();
    rmSync(sockDir, { recursive: true, force: true });
    resolveDone();
  };

  server.addService(protos.controller.service, {
    Shutdown: (_call: grpc.ServerUnaryCall<any, any>, cb: grpc.sendUnaryData<any>) => {
      cb(null, {});
      setImmediate(() => void provider.close().finally(() => void stop()));
    },
  });
  // The stdio stream stays open and idle: our providers log to stderr, which Terraform reads directly.
  server.addService(protos.stdio.service, {
    StreamStdio: (call: grpc.ServerWritableStream<any, any>) => {
      streams.add(call);
      call.on('cancelled', () => streams.delete(call));
    },
  });
  server.addService(protos.broker.service, {
    StartStream: (call: grpc.ServerDuplexStream<any, any>) => {
      streams.add(call);
      call.on('data', () => undefined);
      call.on('end', () => call.end());
      call.on('cancelled', () => streams.delete(call));
    },
  });

  const sockDir = mkdtempSync(join(env.PLUGIN_UNIX_SOCKET_DIR || tmpdir(), 'plugin'));
  const sock = join(sockDir, 'plugin.sock');
  let cert: ReturnType<typeof generateCertificate> | undefined;
  let creds = grpcModule().ServerCredentials.createInsecure();
  const clientPem = env.PLUGIN_CLIENT_CERT;
  if (clientPem) {
    cert = generateCertificate();
    creds = serverCredentials(cert, clientPem);
  }
  await new Promise<void>((res, rej) => server.bindAsync(`unix:${sock}`, creds, (err) => (err ? rej(err) : res())));
  const handshake = formatHandshake({ appVersion: version, network: 'unix', address: sock, serverCertDer: cert?.certDer });
  return { handshake, version, done, stop };
}

/** Serves a provider as this process's plugin; see the file comment. Resolves with the exit status. */
export async function serveProvider(factory: () => Provider | Promise<Provider>, opts: ServeOptions = {}): Promise<number> {
  const env = opts.env ?? process.env;
  if (!checkMagicCookie(env)) {
    process.stderr.write(NOT_A_PLUGIN_MESSAGE);
    return 1;
  }
  const pem = env.PLUGIN_CLIENT_CERT;
  if (pem && !/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(pem)) {
    process.stderr.write('Error: PLUGIN_CLIENT_CERT does not hold a PEM certificate; the plugin cannot serve mTLS\n');
    return 1;
  }
  let running: RunningServer;
  try {
    running = await startServer(factory, opts);
  } catch (e) {
    // A socket directory that cannot be used, a provider that fails to start: said plainly, exit 1 (go-plugin's
    // servers also exit 1 when they cannot listen).
    process.stderr.write(`Error: the provider plugin could not start: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  // After the handshake, stdout is not ours: route console output to stderr.
  console.log = console.info = console.debug = (...a: unknown[]) => void process.stderr.write(a.map(String).join(' ') + '\n');
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => void running.stop());
  process.stdout.write(running.handshake);
  await running.done;
  return 0;
}
