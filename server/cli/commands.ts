// The table of verbs. Verbs Terraform has that Foresight does not implement yet are absent, so the
// dispatcher reports them as unknown rather than pretending.

import { runApply, runDestroy } from './apply';
import { runConsoleInDirectory } from './console-scope';
import { runPlan } from './plan';
import { runRefresh } from './refresh';
import { runTaint, runUntaint } from './taint';
import { runFmt } from './fmt';
import { runForceUnlock } from './forceunlock';
import { runGet } from './get';
import { runGraph } from './graph';
import { runImport } from './import';
import { runInit } from './init';
import { runProviders } from './providers';
import { runProviderCommand } from './provider';
import type { Command } from './io';
import { runOutput } from './output';
import { runShow } from './show';
import { runState } from './state/index';
import { runWorkspace } from './workspace';
import { runValidate } from './validate';
import { runVersion } from './version';

export const commands: Record<string, Command> = {
  apply: (args, io) => runApply(args, io),
  console: (args, io) => runConsoleInDirectory(args, io),
  destroy: (args, io) => runDestroy(args, io),
  plan: (args, io) => runPlan(args, io),
  refresh: (args, io) => runRefresh(args, io),
  fmt: (args, io) => runFmt(args, io),
  'force-unlock': (args, io) => runForceUnlock(args, io),
  get: (args, io) => runGet(args, io),
  graph: (args, io) => runGraph(args, io),
  import: (args, io) => runImport(args, io),
  init: (args, io) => runInit(args, io),
  output: (args, io) => runOutput(args, io),
  provider: (args, io) => runProviderCommand(args, io),
  providers: (args, io) => runProviders(args, io),
  show: (args, io) => runShow(args, io),
  state: (args, io) => runState(args, io),
  taint: (args, io) => runTaint(args, io),
  untaint: (args, io) => runUntaint(args, io),
  validate: (args, io) => runValidate(args, io),
  workspace: (args, io) => runWorkspace(args, io),
  version: (args, io) => runVersion(args, io),
};
