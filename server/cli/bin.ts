// Process entry of dist/cli.js: runs the command line with the real process streams and sets the exit status.
import { processIO } from './io';
import { main } from './main';
import { BackendOpenError } from '../backends/registry';
import { renderDiagnosticsView } from '../diags/render';
import { pluginPanics } from '../plugin/client/process';

main(process.argv.slice(2), processIO()).then(
  (code) => {
    // As Terraform's main.go: a failed command reports the plugins that crashed (Ui.Error adds a newline).
    if (code !== 0) for (const p of pluginPanics()) process.stderr.write(p + '\n');
    process.exitCode = code;
  },
  (err: unknown) => {
    // A backend that cannot be opened (init required, database unreachable) where a command did not catch it:
    // Terraform's diagnostics, exit 1.
    if (err instanceof BackendOpenError) {
      process.stderr.write(renderDiagnosticsView(err.diagnostics, { color: !process.argv.includes('-no-color') }));
      process.exitCode = 1;
      return;
    }
    // A bug, not a user error: say so plainly and fail.
    process.stderr.write(`foresight: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 11;
  },
);
