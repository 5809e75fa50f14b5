// `foresight apply [options] [PLANFILE]` and `foresight destroy` (Terraform's command/apply.go, which also
// implements destroy as apply -destroy). The shared operation flow lives in plan.ts.

import type { CliIO } from './io';
import { runOperation } from './plan';

export async function runApply(args: string[], io: CliIO): Promise<number> {
  return runOperation('apply', args, io);
}

export async function runDestroy(args: string[], io: CliIO): Promise<number> {
  return runOperation('destroy', args, io);
}
