// Entry point of the `foresight` command line (bundled to dist/cli.js, started by bin/foresight).
//
// It speaks Terraform's command-line language: the same verbs, global options (-chdir, -help, -version),
// flags, exit statuses and output, so scripts and people can use either tool on the same workspace.
// Each verb lives in its own module exporting a Command (io.ts); this file only dispatches.

import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliIO, Command } from './io';
import { commands } from './commands';
import usage from './usage.txt';
import { cliPluginScope } from '../plugin/client/factory';

export async function main(argv: string[], io: CliIO): Promise<number> {
  const args = [...argv];
  let cwd = io.cwd;
  // Global options come before the subcommand.
  while (args.length > 0 && args[0].startsWith('-')) {
    const a = args[0];
    if (a === '-chdir' || a.startsWith('-chdir=')) {
      if (!a.startsWith('-chdir=')) {
        io.stderr('Invalid -chdir option: must include an equals sign followed by a directory path, like -chdir=example\n');
        return 1;
      }
      const dir = resolve(cwd, a.slice('-chdir='.length));
      if (!existsSync(dir) || !statSync(dir).isDirectory()) {
        io.stderr(`Error handling -chdir option: chdir ${a.slice('-chdir='.length)}: no such file or directory\n`);
        return 1;
      }
      cwd = dir;
      args.shift();
      continue;
    }
    if (a === '-v' || a === '-version' || a === '--version') {
      args[0] = 'version';
      break;
    }
    if (a === '-h' || a === '-help' || a === '--help') {
      io.stdout(usage);
      return 0;
    }
    break;
  }
  if (args.length === 0) {
    io.stdout(usage);
    return 127;
  }
  const verb = args.shift()!;
  const cmd: Command | undefined = commands[verb];
  if (!cmd) {
    io.stderr(`Terraform has no command named "${verb}".\n\nTo see all of Terraform's top-level commands, run:\n  terraform -help\n\n`);
    return 1;
  }
  // Provider binaries started by the command end with it (server/plugin/client/factory.ts).
  return cliPluginScope(() => cmd(args, { ...io, cwd }));
}
