// `foresight workspace new|select|list|show|delete`: Terraform's workspace commands (workspace_*.go) on the
// local backend: workspaces are folders under terraform.tfstate.d/, the selection lives in
// `.terraform/environment`, TF_WORKSPACE overrides it. Messages, colours and exit statuses are Terraform 1.11.4's,
// including the "Workspace is not empty" check of `delete` (bypassed by -force).

import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { error, hasErrors } from '../diags/diagnostic';
import { instanceAddrString, type InstanceAddr, type State } from '../states/state';
import { readStateFile } from '../states/statefile';
import { helpText } from './help/index';
import type { CliIO, Command } from './io';
import { backendConfigErrors, colorize, diagsErrorText, localBackend, lockState, makeUi, parseFlags, stripNoColor, unlockState, wantsHelp, type Ui } from './state/meta';

const ENV_DOES_NOT_EXIST = (n: string) =>
  `\nWorkspace ${JSON.stringify(n)} doesn't exist.\n\nYou can create this workspace with the "new" subcommand \nor include the "-or-create" flag with the "select" subcommand.`;
const ENV_CREATED = (n: string) =>
  `[reset][green][bold]Created and switched to workspace ${JSON.stringify(n)}![reset][green]\n\nYou're now on a new, empty workspace. Workspaces isolate their state,\nso if you run "terraform plan" Terraform will not see any existing state\nfor this configuration.`;
const ENV_INVALID_NAME = (n: string) =>
  `\nThe workspace name ${JSON.stringify(n)} is not allowed. The name must contain only URL safe\ncharacters, and no path separators.\n`;
const ENV_OVERRIDDEN_NOTE = '\n\nThe active workspace is being overridden using the TF_WORKSPACE environment\nvariable.\n';
const ENV_OVERRIDDEN_SELECT =
  '\nThe selected workspace is currently overridden using the TF_WORKSPACE\nenvironment variable.\n\nTo select a new workspace, either update this environment variable or unset\nit and then run this command again.\n';
const ENV_OVERRIDDEN_NEW =
  '\nThe workspace is currently overridden using the TF_WORKSPACE environment\nvariable. You cannot create a new workspace when using this setting.\n\nTo create a new workspace, either unset this environment variable or update it\nto match the workspace name you are trying to create, and then run this command\nagain.\n';

/** url.PathEscape(name) == name. */
export function validWorkspaceName(name: string): boolean {
  return /^[A-Za-z0-9\-_.~$&+:=@]*$/.test(name);
}

/** loadBackendConfig: root module errors stop the command (printed through the Ui). */
async function backendOK(io: CliIO, ui: Ui): Promise<boolean> {
  const be = await backendConfigErrors(io);
  if (!be) return true;
  ui.diagnostics(be.diags, be.src);
  return false;
}

function overridden(io: CliIO): boolean {
  return !!io.env.TF_WORKSPACE;
}

function flagError(ui: Ui, err: string, help: string): number {
  // These commands set cmdFlags.Usage to print the help (red, to stderr) before the parse error.
  if (err !== 'flag: help requested') ui.error(helpText(help).replace(/\n$/, ''));
  ui.error(`Error parsing command-line flags: ${err}\n`);
  return 1;
}

function jsonQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * b.Workspaces() as the workspace commands call it: a backend without named workspaces (the http backend's
 * backend.ErrWorkspacesNotSupported) is reported as terraform reports it, `prefix` + the error text, exit 1.
 */
async function listWorkspaces(b: { workspaces(): Promise<string[]> }, ui: Ui, prefix = ''): Promise<string[] | undefined> {
  try {
    return await b.workspaces();
  } catch (e) {
    if ((e as Error)?.constructor?.name !== 'WorkspacesNotSupportedError') throw e;
    ui.error(prefix + (e as Error).message);
    return undefined;
  }
}

async function workspaceNew(args: string[], io: CliIO, ui: Ui): Promise<number> {
  const f = parseFlags(args, { lock: 'bool', 'lock-timeout': 'duration', state: 'string' });
  if (f.error) return flagError(ui, f.error, 'workspace new');
  if (f.args.length !== 1) {
    ui.error('Expected a single argument: NAME.\n');
    io.stdout(helpText('workspace new'));
    return 1;
  }
  const name = f.args[0];
  if (!validWorkspaceName(name)) {
    ui.error(ENV_INVALID_NAME(name));
    return 1;
  }
  if (overridden(io) && localBackend(io).currentWorkspace() !== name) {
    ui.error(ENV_OVERRIDDEN_NEW);
    return 1;
  }
  if (!(await backendOK(io, ui))) return 1;
  const b = localBackend(io);
  if (overridden(io) && b.currentWorkspace() !== name) {
    ui.error(ENV_OVERRIDDEN_NEW);
    return 1;
  }
  const existing = await listWorkspaces(b, ui, 'Failed to get configured named states: ');
  if (!existing) return 1;
  if (existing.includes(name)) {
    ui.error(`Workspace ${jsonQuote(name)} already exists`);
    return 1;
  }
  await b.stateMgr(name);
  try {
    b.selectWorkspace(name);
  } catch (e) {
    ui.error(`Error selecting new workspace: ${(e as Error).message}`);
    return 1;
  }
  ui.output(colorize(ENV_CREATED(name), ui.color));
  const statePath = (f.values.get('state') as string) ?? '';
  if (statePath === '') return 0;
  const mgr = await b.stateMgr(name);
  let lockID: string | undefined;
  if (f.values.get('lock') !== false) {
    lockID = await lockState(mgr, 'workspace-new', (f.values.get('lock-timeout') as number) ?? 0, io, ui);
    if (lockID === undefined) return 1;
  }
  try {
    let text: string;
    try {
      text = readFileSync(isAbsolute(statePath) ? statePath : join(io.cwd, statePath), 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      ui.error(`open ${statePath}: ${code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
      return 1;
    }
    const r = readStateFile(text);
    if (hasErrors(r.diags) || !r.file) {
      ui.error(diagsErrorText(r.diags) || 'no state');
      return 1;
    }
    await mgr.refresh();
    mgr.write(r.file.state);
    const d = await mgr.persist();
    if (hasErrors(d)) {
      ui.error(diagsErrorText(d));
      return 1;
    }
    return 0;
  } finally {
    if (lockID !== undefined) await unlockState(mgr, lockID, ui);
  }
}

async function workspaceSelect(args: string[], io: CliIO, ui: Ui): Promise<number> {
  const f = parseFlags(args, { 'or-create': 'bool' });
  if (f.error) return flagError(ui, f.error, 'workspace select');
  if (f.args.length !== 1) {
    ui.error('Expected a single argument: NAME.\n');
    io.stdout(helpText('workspace select'));
    return 1;
  }
  if (!(await backendOK(io, ui))) return 1;
  if (overridden(io)) {
    ui.error(ENV_OVERRIDDEN_SELECT);
    return 1;
  }
  const b = localBackend(io);
  const name = f.args[0];
  if (!validWorkspaceName(name)) {
    ui.error(ENV_INVALID_NAME(name));
    return 1;
  }
  const all = await listWorkspaces(b, ui);
  if (!all) return 1;
  if (name === b.currentWorkspace()) return 0;
  let created = false;
  if (!all.includes(name)) {
    if (f.values.get('or-create') !== true) {
      ui.error(ENV_DOES_NOT_EXIST(name));
      return 1;
    }
    await b.stateMgr(name);
    created = true;
  }
  try {
    b.selectWorkspace(name);
  } catch (e) {
    ui.error((e as Error).message);
    return 1;
  }
  if (created) ui.output(colorize(ENV_CREATED(name), ui.color));
  else ui.output(colorize(`[reset][green]Switched to workspace ${jsonQuote(name)}.`, ui.color));
  return 0;
}

async function workspaceList(args: string[], io: CliIO, ui: Ui): Promise<number> {
  const f = parseFlags(args, {});
  if (f.error) return flagError(ui, f.error, 'workspace list');
  if (!(await backendOK(io, ui))) return 1;
  const b = localBackend(io);
  const all = await listWorkspaces(b, ui);
  if (!all) return 1;
  const cur = b.currentWorkspace();
  let out = '';
  for (const s of all) out += (s === cur ? '* ' : '  ') + s + '\n';
  ui.output(out);
  if (overridden(io)) ui.output(ENV_OVERRIDDEN_NOTE);
  return 0;
}

async function workspaceShow(args: string[], io: CliIO, ui: Ui): Promise<number> {
  const f = parseFlags(args, { input: 'bool', var: 'string', 'var-file': 'string', 'compact-warnings': 'bool' });
  if (f.error) return flagError(ui, f.error, 'workspace show');
  ui.output(localBackend(io).currentWorkspace());
  return 0;
}

function managedObjectLines(state: State): string[] {
  const out: string[] = [];
  const addrs: InstanceAddr[] = [];
  for (const [m, r] of state.allResources()) {
    if (r.mode !== 'managed') continue;
    for (const is of r.instances.values()) addrs.push({ module: m.addr, mode: r.mode, type: r.type, name: r.name, key: is.key });
  }
  for (const a of addrs) {
    const is = state.instance(a)!;
    if (is.current) out.push(`\n  - ${instanceAddrString(a)}`);
    for (const dk of is.deposed.keys()) out.push(`\n  - ${instanceAddrString(a)} (deposed object ${dk})`);
  }
  return out.sort();
}

async function workspaceDelete(args: string[], io: CliIO, ui: Ui): Promise<number> {
  const f = parseFlags(args, { force: 'bool', lock: 'bool', 'lock-timeout': 'duration' });
  if (f.error) return flagError(ui, f.error, 'workspace delete');
  if (f.args.length !== 1) {
    ui.error('Expected a single argument: NAME.\n');
    io.stdout(helpText('workspace delete'));
    return 1;
  }
  const force = f.values.get('force') === true;
  if (!(await backendOK(io, ui))) return 1;
  const b = localBackend(io);
  const name = f.args[0];
  const all = await listWorkspaces(b, ui);
  if (!all) return 1;
  if (!all.includes(name)) {
    ui.error(ENV_DOES_NOT_EXIST(name).trim());
    return 1;
  }
  if (name === b.currentWorkspace()) {
    ui.error(
      `Workspace ${jsonQuote(name)} is your active workspace.\n\nYou cannot delete the currently active workspace. Please switch\nto another workspace and try again.`,
    );
    return 1;
  }
  const mgr = await b.stateMgr(name);
  let lockID: string | undefined;
  if (f.values.get('lock') !== false) {
    lockID = await lockState(mgr, 'state-replace-provider', (f.values.get('lock-timeout') as number) ?? 0, io, ui);
    if (lockID === undefined) return 1;
  }
  const unlock = async () => {
    if (lockID !== undefined) await unlockState(mgr, lockID, ui);
    lockID = undefined;
  };
  const rd = await mgr.refresh();
  if (hasErrors(rd)) {
    await unlock();
    ui.error(diagsErrorText(rd));
    return 1;
  }
  const state = mgr.read();
  const hasResources = !!state && state.hasManagedResourceInstanceObjects();
  if (hasResources && !force) {
    const list = managedObjectLines(state!).join('');
    await unlock();
    ui.diagnostics([
      error(
        'Workspace is not empty',
        `Workspace ${jsonQuote(name)} is currently tracking the following resource instances:${list}\n\nDeleting this workspace would cause Terraform to lose track of any associated remote objects, which would then require you to delete them manually outside of Terraform. You should destroy these objects with Terraform before deleting the workspace.\n\nIf you want to delete this workspace anyway, and have Terraform forget about these managed objects, use the -force option to disable this safety check.`,
      ),
    ]);
    return 1;
  }
  await unlock();
  const dd = await b.deleteWorkspace(name, force);
  if (hasErrors(dd)) {
    ui.error(diagsErrorText(dd));
    return 1;
  }
  ui.output(colorize(`[reset][green]Deleted workspace ${jsonQuote(name)}!`, ui.color));
  if (hasResources)
    ui.output(
      colorize(
        `[reset][yellow]WARNING: ${jsonQuote(name)} was non-empty.\nThe resources managed by the deleted workspace may still exist,\nbut are no longer manageable by Terraform since the state has\nbeen deleted.\n`,
        ui.color,
      ),
    );
  return 0;
}

const SUB: Record<string, (args: string[], io: CliIO, ui: Ui) => Promise<number>> = {
  new: workspaceNew,
  select: workspaceSelect,
  list: workspaceList,
  show: workspaceShow,
  delete: workspaceDelete,
};

export const runWorkspace: Command = async (rawArgs, io) => {
  const sub = rawArgs.length > 0 ? SUB[rawArgs[0]] : undefined;
  if (!sub) {
    io.stdout(helpText('workspace'));
    return wantsHelp(rawArgs) ? 0 : 1;
  }
  const rest = rawArgs.slice(1);
  if (wantsHelp(rest)) {
    io.stdout(helpText(`workspace ${rawArgs[0]}`));
    return 0;
  }
  const { args, color } = stripNoColor(rest);
  return sub(args, io, makeUi(io, color));
};
