// @grpc/grpc-js, loaded on first use: its module set-up costs every command ~17 ms, and only the commands that run
// or serve a plugin need it. Files import its types with `import type * as grpc` and reach the module through
// grpcModule().

import type * as G from '@grpc/grpc-js';

let loaded: typeof G | undefined;

export function grpcModule(): typeof G {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('@grpc/grpc-js') as typeof G);
}
