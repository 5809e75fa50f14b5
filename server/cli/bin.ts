// Process entry of dist/cli.js: runs the command line with the real process streams and sets the exit status.
import { processIO } from './io';
import { main } from './main';

main(process.argv.slice(2), processIO()).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // A bug, not a user error: say so plainly and fail.
    process.stderr.write(`foresight: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 11;
  },
);
