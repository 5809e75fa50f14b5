// `foresight taint ADDRESS` and `foresight untaint ADDRESS` (Terraform's command/taint.go, untaint.go): mark
// or unmark the current object of a managed resource instance as tainted in the selected workspace's state,
// with Terraform's flags (-allow-missing, -lock, -lock-timeout, -state, -state-out, -backup,
// -ignore-remote-version), messages and exit statuses.
//
// Contract: the state is written (with its backup) only when the status changes; the lock is always released.

import { error, warning, type Diagnostic } from '../diags/diagnostic';
import { helpText } from './help/index';
import type { CliIO } from './io';
import { parseInstance } from './state/addr';
import { localBackend, lockState, makeUi, parseFlags, stripNoColor, unlockState, wantsHelp } from './state/meta';
import { instanceAddrString } from '../states/state';
import { renderDiagnosticsView } from '../diags/render';

async function run(verb: 'taint' | 'untaint', rawArgs: string[], io: CliIO): Promise<number> {
  if (wantsHelp(rawArgs)) {
    io.stdout(helpText(verb));
    return 0;
  }
  const { args, color } = stripNoColor(rawArgs);
  const ui = makeUi(io, color);
  const f = parseFlags(args, {
    'allow-missing': 'bool',
    lock: 'bool',
    'lock-timeout': 'duration',
    state: 'string',
    'state-out': 'string',
    backup: 'string',
    'ignore-remote-version': 'bool',
  });
  if (f.error) {
    io.stderr(renderDiagnosticsView([error('Failed to parse command-line flags', f.error)], { color }));
    io.stderr(`\nFor more help on using this command, run:\n  terraform ${verb} -help\n`);
    return 1;
  }
  if (f.args.length !== 1) {
    ui.error(`The ${verb} command expects exactly one argument.`);
    io.stderr(helpText(verb));
    return 1;
  }
  const p = parseInstance(f.args[0]);
  if (!p.addr) {
    ui.diagnostics(p.diags);
    return 1;
  }
  const addr = p.addr;
  const shown = instanceAddrString(addr);
  if (addr.mode !== 'managed') {
    ui.error(`Resource instance ${shown} cannot be ${verb}ed`);
    return 1;
  }
  const allowMissing = f.values.get('allow-missing') === true;
  const missing = (): number => {
    ui.diagnostics([warning('No such resource instance', `Resource instance ${shown} was not found, but this is not an error because -allow-missing was set.`)]);
    return 0;
  };
  const b = localBackend(io, { statePath: (f.values.get('state') as string) || undefined, backupPath: (f.values.get('backup') as string) || undefined });
  const ws = b.currentWorkspace();
  const mgr = await b.stateMgr(ws);
  let lockId: string | undefined;
  if (f.values.get('lock') !== false) {
    lockId = await lockState(mgr, verb, (f.values.get('lock-timeout') as number) ?? 0, io, ui);
    if (lockId === undefined) return 1;
  }
  try {
    const rd = await mgr.refresh();
    if (rd.some((d) => d.severity === 'error')) {
      ui.diagnostics(rd);
      return 1;
    }
    const state = mgr.read();
    const fail = (d: Diagnostic) => {
      ui.diagnostics([d]);
      return 1;
    };
    if (!state || state.empty()) {
      if (allowMissing) return missing();
      return fail(error('No such resource instance', 'The state currently contains no resource instances whatsoever. This may occur if the configuration has never been applied or if it has recently been destroyed.'));
    }
    const is = state.instance(addr);
    if (!is) {
      if (allowMissing) return missing();
      return fail(
        error(
          'No such resource instance',
          `There is no resource instance in the state with the address ${shown}. If the resource configuration has just been added, you must run "terraform apply" once to create the corresponding instance(s) before they can be ${verb}ed.`,
        ),
      );
    }
    const obj = is.current;
    if (!obj) {
      if (is.deposed.size > 0)
        return fail(
          error(
            'No such resource instance',
            `Resource instance ${shown} is currently part-way through a create_before_destroy replacement action. Run "terraform apply" to complete its replacement before ${verb === 'taint' ? 'tainting' : 'untainting'} it.`,
          ),
        );
      return fail(error('No such resource instance', `Resource instance ${shown} does not currently have a remote object associated with it, so it cannot be ${verb}ed.`));
    }
    if (verb === 'untaint' && obj.status !== 'tainted') {
      return fail(error('Resource instance is not tainted', `Resource instance ${shown} is not currently tainted, and so it cannot be untainted.`));
    }
    is.current = { ...obj, status: verb === 'taint' ? 'tainted' : 'ready' };
    mgr.write(state);
    const pd = await mgr.persist();
    if (pd.some((d) => d.severity === 'error')) {
      ui.error(`Error writing state file: ${pd[0].detail ?? pd[0].summary}`);
      return 1;
    }
    ui.output(verb === 'taint' ? `Resource instance ${shown} has been marked as tainted.` : `Resource instance ${shown} has been successfully untainted.`);
    return 0;
  } finally {
    if (lockId !== undefined) await unlockState(mgr, lockId, ui);
  }
}

export function runTaint(args: string[], io: CliIO): Promise<number> {
  return run('taint', args, io);
}

export function runUntaint(args: string[], io: CliIO): Promise<number> {
  return run('untaint', args, io);
}
