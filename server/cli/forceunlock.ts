// `foresight force-unlock [-force] LOCK_ID`: Terraform's unlock.go against the local backend. Local state can only
// be unlocked by the process holding the lock, so without -force Terraform refuses ("Local state cannot be
// unlocked by another process") and with -force the fresh state manager fails with "LocalState not locked";
// Foresight reproduces both, with Terraform's exit statuses. Remote backends (pg, http) ask "Do you really want
// to force-unlock?" unless -force, then call the backend's unlock (pg's does nothing when this process holds no lock,
// as Terraform's).

import { helpText } from './help/index';
import type { CliIO } from './io';
import { FilesystemStateManager } from '../backends/local/filesystem';
import { backendConfigErrors, colorize, localBackend, makeUi, parseFlags, stripNoColor, wantsHelp } from './state/meta';

export async function runForceUnlock(rawArgs: string[], io: CliIO): Promise<number> {
  if (wantsHelp(rawArgs)) {
    io.stdout(helpText('force-unlock'));
    return 0;
  }
  const { args, color } = stripNoColor(rawArgs);
  const ui = makeUi(io, color);
  const f = parseFlags(args, { force: 'bool' });
  if (f.error) {
    ui.error(helpText('force-unlock').replace(/\n$/, ''));
    ui.error(`Error parsing command-line flags: ${f.error}\n`);
    return 1;
  }
  if (f.args.length !== 1) {
    ui.error('Expected a single argument: LOCK_ID');
    io.stdout(helpText('force-unlock'));
    return 1;
  }
  const lockID = f.args[0];
  const be = await backendConfigErrors(io);
  if (be) {
    ui.diagnostics(be.diags, be.src);
    return 1;
  }
  const b = localBackend(io);
  let mgr;
  try {
    mgr = await b.stateMgr(b.currentWorkspace());
  } catch (e) {
    ui.error(`Failed to load state: ${(e as Error).message}`);
    return 1;
  }
  if (f.values.get('force') !== true) {
    if (mgr instanceof FilesystemStateManager) {
      ui.error('Local state cannot be unlocked by another process');
      return 1;
    }
    // A remote backend (pg, http): Terraform asks first.
    io.stdout(
      colorize(
        '[reset][bold]Do you really want to force-unlock?[reset]\n  Terraform will remove the lock on the remote state.\n  This will allow local Terraform commands to modify this state, even though it\n  may still be in use. Only \'yes\' will be accepted to confirm.\n\n  [bold]Enter a value:[reset] ',
        color,
      ),
    );
    const input = await io.stdin();
    const nl = input.indexOf('\n');
    if (nl < 0) {
      ui.error('Error asking for confirmation: EOF');
      return 1;
    }
    io.stdout('\n');
    if (input.slice(0, nl).replace(/\r$/, '') !== 'yes') {
      ui.output('force-unlock cancelled.');
      return 1;
    }
  }
  try {
    await mgr.unlock(lockID);
  } catch (e) {
    ui.error(`Failed to unlock state: ${(e as Error).message}`);
    return 1;
  }
  ui.output(
    (color ? '\x1b[0m\x1b[1m\x1b[32m' : '') +
      'Terraform state has been successfully unlocked!' +
      (color ? '\x1b[0m\x1b[32m' : '') +
      '\n\nThe state has been unlocked, and Terraform commands should now be able to\nobtain a new lock on the remote state.' +
      (color ? '\x1b[0m' : ''),
  );
  return 0;
}
