// A provider plugin scripted for the client tests (bundled by them with esbuild and run as a real process through a
// `terraform-provider-<name>` shell wrapper). It serves one of Foresight's built-in providers (FAKE_PROVIDER: null,
// random, ...) over go-plugin's handshake with AutoMTLS, tfplugin6 or tfplugin5 (FAKE_PROTOCOLS, default "6";
// the highest the client also offers is chosen), with health, controller Shutdown and the stdio stream, and can
// misbehave on purpose (FAKE_MODE):
//   ok                      behaves
//   no-handshake            writes nothing and exits 1 (like a binary that is not a plugin)
//   bad-handshake           writes a line that is not a handshake, then waits
//   slow-handshake:<ms>     serves normally, but writes its handshake line only after <ms> milliseconds
//   crash-on:<Rpc>          exits (status 2) when that RPC arrives, writing a Go-like panic to stderr
//   hang-on:<Rpc>           never answers that RPC
//   slow-on:<Rpc>:<ms>      answers that RPC correctly, after waiting <ms> milliseconds
//   nonsense-on:<Rpc>       answers that RPC with undecodable msgpack in every DynamicValue field
//   error-on:<Rpc>          answers with a gRPC INTERNAL error
// FAKE_LOG: a file each received RPC name is appended to (one per line), to check reuse and call counts.
// Test-only code: the real served providers are server/plugin/serve.ts (`foresight provider serve`).

import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { startBuiltinProvider } from '../../server/providers/builtin';
import { checkMagicCookie, clientVersions, formatHandshake, negotiateVersion, NOT_A_PLUGIN_MESSAGE } from '../../server/plugin/handshake';
import { generateCertificate, serverCredentials } from '../../server/plugin/tls';
import { GRPC_OPTIONS, loadProtos } from '../../server/plugin/proto/load';
import { codecs, RPC_NAMES, type Method, type Msg, type ProtoVersion } from '../../server/plugin/convert';
import type { GetProviderSchemaResponse } from '../../server/providers/provider';

async function main(): Promise<void> {
  const mode = process.env.FAKE_MODE ?? 'ok';
  if (!checkMagicCookie(process.env)) {
    process.stderr.write(NOT_A_PLUGIN_MESSAGE);
    process.exit(1);
  }
  if (mode === 'no-handshake') {
    process.stderr.write('fake provider: refusing to start\n');
    process.exit(1);
  }
  if (mode === 'bad-handshake') {
    process.stdout.write('hello, I am not a plugin\n');
    setInterval(() => undefined, 1000);
    return;
  }
  const name = process.env.FAKE_PROVIDER ?? 'null';
  const inner = startBuiltinProvider(`registry.terraform.io/hashicorp/${name}`);
  if (!inner) throw new Error(`no built-in provider ${name}`);
  const serverVersions = (process.env.FAKE_PROTOCOLS ?? '6').split(',').map(Number);
  const v = negotiateVersion(clientVersions(process.env), serverVersions) as ProtoVersion;
  const protos = loadProtos();
  const server = new grpc.Server(GRPC_OPTIONS);
  const codec = codecs(v);
  let schemas: GetProviderSchemaResponse | undefined;
  const getSchemas = async () => (schemas ??= await inner.getProviderSchema());
  const log = (rpc: string) => {
    if (process.env.FAKE_LOG) appendFileSync(process.env.FAKE_LOG, `${process.pid} ${rpc}\n`);
  };
  const impl: Record<string, grpc.handleUnaryCall<Msg, Msg>> = {};
  for (const [method, rpc] of Object.entries(RPC_NAMES[v]) as [Method, string][]) {
    impl[rpc] = async (call, cb) => {
      log(rpc);
      if (mode === `crash-on:${rpc}`) {
        process.stderr.write(`panic: fake provider crash in ${rpc}\n\ngoroutine 1 [running]:\nmain.main()\n`);
        process.exit(2);
      }
      if (mode === `hang-on:${rpc}`) return;
      if (mode.startsWith(`slow-on:${rpc}:`)) await new Promise((r) => setTimeout(r, Number(mode.slice(`slow-on:${rpc}:`.length))));
      if (mode === `error-on:${rpc}`) return cb({ code: grpc.status.INTERNAL, details: `fake failure in ${rpc}` } as grpc.ServiceError, null);
      try {
        const s = await getSchemas();
        const c = codec[method] as unknown as {
          requestFromProto(m: Msg, s: GetProviderSchemaResponse): unknown;
          responseToProto(r: unknown, s: GetProviderSchemaResponse, req: unknown): Msg;
        };
        const req = method === 'getProviderSchema' || method === 'stopProvider' ? undefined : c.requestFromProto(call.request, s);
        const res = await (inner as unknown as Record<string, (r: unknown) => Promise<unknown>>)[method](req);
        const out = c.responseToProto(res, s, req);
        if (mode === `nonsense-on:${rpc}`) for (const k of Object.keys(out)) if (out[k] && typeof out[k] === 'object' && 'msgpack' in out[k]) out[k] = { msgpack: Buffer.from([0xc1, 0xc1]), json: Buffer.alloc(0) };
        cb(null, out);
      } catch (e) {
        cb({ code: grpc.status.UNKNOWN, details: (e as Error).message } as grpc.ServiceError, null);
      }
    };
  }
  server.addService((v === 5 ? protos.tfplugin5.Provider : protos.tfplugin6.Provider).service, impl);
  server.addService(protos.health.service, { Check: (_c: unknown, cb: grpc.sendUnaryData<Msg>) => cb(null, { status: 'SERVING' }), Watch: () => undefined });
  server.addService(protos.controller.service, {
    Shutdown: (_c: unknown, cb: grpc.sendUnaryData<Msg>) => {
      cb(null, {});
      setTimeout(() => process.exit(0), 10);
    },
  });
  server.addService(protos.stdio.service, { StreamStdio: () => undefined });
  server.addService(protos.broker.service, { StartStream: () => undefined });
  const sockDir = mkdtempSync(join(tmpdir(), 'plugin'));
  process.on('exit', () => rmSync(sockDir, { recursive: true, force: true }));
  const sock = join(sockDir, 'plugin.sock');
  const clientPem = process.env.PLUGIN_CLIENT_CERT;
  const cert = clientPem ? generateCertificate() : undefined;
  const creds = cert && clientPem ? serverCredentials(cert, clientPem) : grpc.ServerCredentials.createInsecure();
  await new Promise<void>((res, rej) => server.bindAsync(`unix:${sock}`, creds, (err) => (err ? rej(err) : res())));
  process.stderr.write(`fake provider ${name} serving protocol ${v}\n`);
  if (mode.startsWith('slow-handshake:')) await new Promise((r) => setTimeout(r, Number(mode.slice('slow-handshake:'.length))));
  process.stdout.write(formatHandshake({ appVersion: v, network: 'unix', address: sock, serverCertDer: cert?.certDer }));
}

void main();
