// `foresight refresh` (Terraform's command/refresh.go): a refresh-only plan whose refreshed state is written
// directly, followed by the outputs. The shared operation flow lives in plan.ts.

import type { CliIO } from './io';
import { runOperation } from './plan';

export async function runRefresh(args: string[], io: CliIO): Promise<number> {
  return runOperation('refresh', args, io);
}
