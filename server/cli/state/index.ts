// `foresight state <subcommand>`: dispatches to the state subcommands the way hashicorp/cli does for Terraform:
// `-h`/`-help`/`--help` anywhere (before "--") prints the (sub)command's help and exits 0; a missing or unknown
// subcommand prints the `state` help to stdout and exits 1 (RunResultHelp).

import { helpText } from '../help/index';
import type { Command } from '../io';
import { wantsHelp } from './meta';
import { runStateList, runStatePull, runStateShow } from './read';
import { runStateMv, runStatePush, runStateReplaceProvider, runStateRm } from './write';

const SUB: Record<string, Command> = {
  list: runStateList,
  mv: runStateMv,
  pull: runStatePull,
  push: runStatePush,
  'replace-provider': runStateReplaceProvider,
  rm: runStateRm,
  show: runStateShow,
};

export const runState: Command = async (args, io) => {
  const i = args.findIndex((a) => !a.startsWith('-'));
  const sub = i >= 0 ? SUB[args[i]] : undefined;
  if (sub && i === 0) {
    const rest = args.slice(1);
    if (wantsHelp(rest)) {
      io.stdout(helpText(`state ${args[0]}`));
      return 0;
    }
    return sub(rest, io);
  }
  io.stdout(helpText('state'));
  return wantsHelp(args) ? 0 : 1;
};
