// `show PLANFILE` for Foresight plan files (Terraform's views/show.go with a plan): the human plan rendering
// or, with -json, the JSON plan document (command/jsonplan.ts). Registered with show.ts by cli/plan.ts.

import type { CliIO } from '../../cli/io';
import { error } from '../../diags/diagnostic';
import { renderDiagnosticsView } from '../../diags/render';
import { readPlanFile } from '../../plans/planfile';
import { startBuiltinProvider } from '../../providers/builtin';
import { externalProvider } from '../../plugin/client/factory';
import { renderHumanPlan } from '../format/plan';
import { marshalPlan } from '../jsonplan';

export async function showPlanFile(path: string, bytes: Buffer, opts: { json: boolean; color: boolean }, io: CliIO): Promise<number> {
  // Provider binaries of the working directory supply the schemas of the providers Foresight does not carry.
  const pf = await readPlanFile(bytes, io.cwd, (fqn) => startBuiltinProvider(fqn) ?? (fqn.startsWith('terraform.io/builtin/') ? undefined : externalProvider({ workDir: io.cwd, env: io.env, fqn })));
  if ('error' in pf) {
    io.stderr(renderDiagnosticsView([error('Failed to read the given file as a state or plan file', `Plan read error: ${pf.error}`)], { color: opts.color && !opts.json }));
    return 1;
  }
  if (opts.json) {
    io.stdout(marshalPlan(pf.plan, pf.config) + '\n');
    return 0;
  }
  io.stdout(renderHumanPlan(pf.plan, { color: opts.color }));
  void path;
  return 0;
}
