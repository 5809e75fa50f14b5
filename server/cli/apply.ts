// `foresight apply [options] [PLANFILE]` and `foresight destroy` (Terraform's command/apply.go, which also
// implements destroy as apply -destroy). The shared operation flow lives in plan.ts.
//
// Interrupts (SIGINT, SIGTERM), as Terraform's Meta.RunOperation and backend/local's opWait handle them:
// - first: "Interrupt received. ... Gracefully shutting down..." and the operation is stopped (an abort signal):
//   a stop during the plan is noticed after it ("execution halted", the plan walk itself is not stopped, as in
//   backend_apply.go); during the apply walk "Stopping operation..." is printed and every provider gets StopProvider
//   (plan.ts `stoppable`), in-flight calls finish, their results are persisted and each halts its node
//   (engine/hooks.ts haltedDiagnostic).
// - second: "Two interrupts received. Exiting immediately. ..." on stderr; the provider processes are ended
//   (go-plugin's Kill: Shutdown, SIGKILL after 2 s) so a call stuck in a provider that ignored StopProvider returns,
//   everything the operation would still print is dropped, "Error: operation canceled" is reported and the command
//   exits 1 once the operation has persisted what completed and released the lock (at most 5 s, Terraform's wait).

import { error } from '../diags/diagnostic';
import { renderDiagnosticsView } from '../diags/render';
import { JsonStream } from '../command/views/json';
import { closeStartedPlugins } from '../plugin/client/factory';
import type { Hooks } from '../engine/hooks';
import type { CliIO } from './io';
import { runOperation, type Verb } from './plan';

export async function runApply(args: string[], io: CliIO): Promise<number> {
  return interruptible('apply', args, io);
}

export async function runDestroy(args: string[], io: CliIO): Promise<number> {
  return interruptible('destroy', args, io);
}

const INTERRUPTED = '\nInterrupt received.\nPlease wait for Terraform to exit or data loss may occur.\nGracefully shutting down...\n';
const FATAL_INTERRUPT = '\nTwo interrupts received. Exiting immediately. Note that data loss may have occurred.\n';
/** Meta.RunOperation's wait for a cancelled operation to return. */
const CANCEL_WAIT_MS = 5000;

async function interruptible(verb: Verb, args: string[], io: CliIO): Promise<number> {
  if (args.some((a) => a === '-help' || a === '-h' || a === '--help')) return runOperation(verb, args, io);
  const json = args.includes('-json');
  const color = !args.includes('-no-color') && !json;
  const log = (msg: string) => new JsonStream(io).emit('info', msg, { type: 'log' });
  const stop = new AbortController();
  let interrupts = 0;
  let silenced = false;
  // After the second interrupt nothing the operation still prints reaches the user.
  const quiet: CliIO = { ...io, stdout: (s) => silenced || io.stdout(s), stderr: (s) => silenced || io.stderr(s) };
  let cancelled: (() => void) | undefined;
  const cancel = new Promise<void>((r) => (cancelled = r));
  const onSignal = () => {
    interrupts++;
    if (interrupts === 1) {
      // Meta.RunOperation stops the operation, then prints; opWait's "Stopping operation..." (the stopping hook)
      // races with it in Terraform and comes second here.
      if (json) log(INTERRUPTED);
      else io.stdout(INTERRUPTED + '\n');
      stop.abort();
      return;
    }
    if (interrupts > 2) return;
    // The human form is word-wrapped at 78 columns (format.WordWrap, errorColumns without a terminal).
    if (json) log(FATAL_INTERRUPT);
    else io.stderr(FATAL_INTERRUPT.replace(' may have occurred', ' may have\noccurred') + '\n');
    silenced = true;
    cancelled!();
    void closeStartedPlugins();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const op = runOperation(verb, args, quiet, {
      signal: stop.signal,
      applyStopOnly: true,
      wrapHooks: (h: Hooks): Hooks => ({
        ...h,
        stopping: () => {
          h.stopping?.();
          if (silenced) return;
          if (json) log('Stopping operation...');
          else io.stdout('Stopping operation...\n');
        },
      }),
    });
    const first = await Promise.race([op, cancel.then(() => undefined)]);
    if (first !== undefined && !silenced) return first;
    // Cancelled: give the operation Terraform's few seconds to persist and unlock, then report.
    await Promise.race([op.catch(() => undefined), new Promise((r) => setTimeout(r, CANCEL_WAIT_MS).unref())]);
    const d = error('operation canceled');
    if (json) new JsonStream(io).diagnostic(d, { color: false });
    else io.stderr(renderDiagnosticsView([d], { color }));
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
