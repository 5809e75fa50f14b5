// `foresight show [-json] [-no-color] [PATH]`: Terraform's show command for states (show.go, views/show.go):
// the current workspace's state (no PATH) or a state file (PATH), rendered by command/format/state.ts or, with
// -json, by command/jsonstate.ts, with the schemas of built-in providers and of installed provider binaries
// (cli/schemas.ts). Saved plan files are shown by a renderer registered with `setPlanShower`
// (the plan engine's), since plans are not this module's business.

import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { marshalModules, marshalOutputs, marshalState } from '../command/jsonstate';
import { renderHumanState } from '../command/format/state';
import { error, hasErrors, type Diagnostic } from '../diags/diagnostic';
import { renderDiagnosticsView } from '../diags/render';
import { State } from '../states/state';
import { readStateFile } from '../states/statefile';
import { helpText } from './help/index';
import type { CliIO } from './io';
import { stateProviderSchemas } from './schemas';
import { backendConfigErrors, diagsErrorText, loadConfig, localBackend, parseFlags, wantsHelp } from './state/meta';

/** Shows a saved plan file: returns undefined when `bytes` is not a plan file, else the exit status. */
export type PlanShower = (path: string, bytes: Buffer, opts: { json: boolean; color: boolean }, io: CliIO) => Promise<number | undefined>;
let planShower: PlanShower | undefined;

/** Registers the saved-plan renderer (called by the plan module at load time). */
export function setPlanShower(fn: PlanShower): void {
  planShower = fn;
}

interface Snapshot {
  terraformVersion: string;
  state: State;
}

async function display(snap: Snapshot | null, json: boolean, color: boolean, io: CliIO): Promise<number> {
  const schemas = await stateProviderSchemas(snap?.state ?? new State(), io);
  if (json) {
    io.stdout(marshalState(snap, schemas) + '\n');
    return 0;
  }
  if (!snap) {
    io.stdout('No state.\n');
    return 0;
  }
  io.stdout(renderHumanState(marshalModules(snap.state, schemas), marshalOutputs(snap.state), color));
  return 0;
}

export async function runShow(rawArgs: string[], io: CliIO): Promise<number> {
  if (wantsHelp(rawArgs)) {
    io.stdout(helpText('show'));
    return 0;
  }
  const args = rawArgs.filter((a) => a !== '-no-color');
  let color = args.length === rawArgs.length;
  const diags: Diagnostic[] = [];
  const f = parseFlags(args, { json: 'bool' });
  if (f.error) diags.push(error('Failed to parse command-line flags', f.error));
  if (!f.error && f.args.length > 1) diags.push(error('Too many command line arguments', 'Expected at most one positional argument.'));
  if (hasErrors(diags)) {
    io.stderr(renderDiagnosticsView(diags, { color }));
    io.stderr('\nFor more help on using this command, run:\n  terraform show -help\n');
    return 1;
  }
  const json = f.values.get('json') === true;
  const fail = (ds: Diagnostic[], src?: { sources: ReadonlyMap<string, string>; contextOf: (r: import('../diags/diagnostic').Range) => string | undefined }) => {
    io.stderr(renderDiagnosticsView(ds, { color, ...src }));
    return 1;
  };
  const path = f.args[0];
  if (path !== undefined) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(isAbsolute(path) ? path : join(io.cwd, path));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file or directory' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
      return fail([
        error(
          'Failed to read the given file as a state or plan file',
          `State read error: Error loading statefile: open ${path}: ${why}\n\nPlan read error: couldn't load the provided path as either a local plan file (open ${path}: ${why}) or a saved cloud plan (open ${path}: ${why})`,
        ),
      ]);
    }
    if (planShower && bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b) {
      const r = await planShower(path, bytes, { json, color }, io);
      if (r !== undefined) return r;
    }
    const r = readStateFile(bytes.toString('utf8'));
    if (hasErrors(r.diags) || !r.file) {
      return fail([error('Couldn\'t show state file', `Plan read error: ${hasErrors(r.diags) ? diagsErrorText(r.diags) : 'no state'}`)]);
    }
    if (json) color = false;
    return display({ terraformVersion: r.file.terraformVersion, state: r.file.state }, json, color, io);
  }
  const be = await backendConfigErrors(io);
  if (be) return fail(be.diags, be.src);
  const b = localBackend(io);
  const ws = b.currentWorkspace();
  const mgr = await b.stateMgr(ws);
  const rd = await mgr.refresh();
  if (hasErrors(rd)) return fail([error(`Failed to load state: ${diagsErrorText(rd)}`)]);
  const state = mgr.read();
  if (!state) return display(null, json, color, io);
  // MaybeGetSchemas loads the configuration; its errors stop the command.
  const cfg = await loadConfig(io, false);
  if (hasErrors(cfg.diags)) {
    io.stderr(renderDiagnosticsView(cfg.diags.filter((d) => d.severity === 'error'), { color, ...cfg.src }));
    return 1;
  }
  let version = '1.11.4';
  try {
    const p = b.statePaths(ws).stateIn;
    const rf = readStateFile(readFileSync(isAbsolute(p) ? p : join(io.cwd, p), 'utf8'));
    if (rf.file) version = rf.file.terraformVersion;
  } catch {
    // keep ours
  }
  return display({ terraformVersion: version, state }, json, color, io);
}
