// The gRPC service definitions of Terraform's plugin protocol, loaded from the .proto texts embedded in the bundle.
//
// API (stable; used by server/plugin/serve.ts and the client in server/plugin/client/):
//   loadProtos(): Protos                 — parsed once per process (≈50 ms), then cached.
//   Protos.tfplugin5 / .tfplugin6        — { Provider: grpc ServiceClientConstructor } (Provider.service is the
//                                          ServiceDefinition for server.addService).
//   Protos.controller / .stdio / .broker — go-plugin's GRPCController, GRPCStdio, GRPCBroker.
//   Protos.health                        — grpc.health.v1.Health.
//   GRPC_OPTIONS                         — channel/server options: no message size limits (the aws schema is > 4 MB).
// Messages use proto-loader's plain-object form with keepCase (snake_case field names as in the .proto), enums as
// strings, bytes as Buffer, 64-bit integers as JS numbers, default values filled in, oneofs named by `oneofs`.
//
// The texts: tfplugin5.proto/tfplugin6.proto are protocol 5.8/6.8 as published with terraform v1.11.4;
// grpc_*.proto are go-plugin v1.6.0's; health.proto is grpc.health.v1.

import type * as grpc from '@grpc/grpc-js';
import { grpcModule } from '../grpc';
import type * as protoLoader from '@grpc/proto-loader';
import type * as protobufTypes from 'protobufjs';
import tfplugin5 from './tfplugin5.proto';
import tfplugin6 from './tfplugin6.proto';
import controller from './grpc_controller.proto';
import stdio from './grpc_stdio.proto';
import broker from './grpc_broker.proto';
import health from './health.proto';

export interface Protos {
  tfplugin5: { Provider: grpc.ServiceClientConstructor };
  tfplugin6: { Provider: grpc.ServiceClientConstructor };
  controller: grpc.ServiceClientConstructor;
  stdio: grpc.ServiceClientConstructor;
  broker: grpc.ServiceClientConstructor;
  health: grpc.ServiceClientConstructor;
}

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  bytes: Buffer,
  defaults: true,
  oneofs: true,
};

/** gRPC options for both ends: go-plugin allows messages up to MaxInt32; grpc-js defaults to 4 MB receive. */
export const GRPC_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': -1,
  'grpc.max_send_message_length': -1,
};

let cached: Protos | undefined;

export function loadProtos(): Protos {
  if (cached) return cached;
  // Loaded here, not at start-up: their module set-up costs every command ~20 ms, and only plugin commands need it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const protobuf = require('protobufjs') as typeof protobufTypes;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loader = require('@grpc/proto-loader') as typeof protoLoader;
  const root = new protobuf.Root();
  for (const f of ['google/protobuf/timestamp.proto', 'google/protobuf/empty.proto']) {
    const j = protobuf.common.get(f);
    if (!j) throw new Error(`protobufjs lacks ${f}`);
    root.addJSON(j.nested!);
  }
  for (const text of [tfplugin5, tfplugin6, controller, stdio, broker, health]) {
    protobuf.parse(text, root, { keepCase: true });
  }
  const def = loader.fromJSON(root.toJSON(), LOADER_OPTIONS);
  const g = grpcModule().loadPackageDefinition(def) as any;
  cached = {
    tfplugin5: { Provider: g.tfplugin5.Provider },
    tfplugin6: { Provider: g.tfplugin6.Provider },
    controller: g.plugin.GRPCController,
    stdio: g.plugin.GRPCStdio,
    broker: g.plugin.GRPCBroker,
    health: g.grpc.health.v1.Health,
  };
  return cached;
}
