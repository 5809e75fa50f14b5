// The read-only state subcommands: `state list`, `state show`, `state pull` (Terraform's state_list.go,
// state_show.go, state_pull.go), byte for byte: their flags, messages, exit statuses and output.
// Siblings: meta.ts (Ui, flags, backend), addr.ts/lookup.ts (addresses), write.ts (mutating subcommands).

import { decodeObject, providerFQN, stateSchemas, type JModule, type JResource } from '../../command/jsonstate';
import { renderHumanState } from '../../command/format/state';
import { hasErrors } from '../../diags/diagnostic';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { instanceAddrString, instanceKeySuffix, parseModuleInstance, type State } from '../../states/state';
import { readStateFile, TERRAFORM_VERSION, writeStateFile } from '../../states/statefile';
import { helpText } from '../help/index';
import { stateProviderSchemas } from '../schemas';
import type { CliIO } from '../io';
import { parseInstance } from './addr';
import { lookupInstances } from './lookup';
import { renderDiagnosticsView } from '../../diags/render';
import { backendConfigErrors, checkRequiredVersion, diagsErrorText, ERR_STATE_LOADING, loadConfig, ERR_STATE_NOT_FOUND, localBackend, makeUi, parseFlags, stripNoColor, type Ui } from './meta';

/** Prints a command's help to stdout for RunResultHelp and returns 1. */
export function runResultHelp(io: CliIO, path: string): number {
  io.stdout(helpText(path));
  return 1;
}

/** Loads the current workspace's state (refreshed); prints Terraform's errors and returns undefined on failure. */
async function loadState(io: CliIO, ui: Ui, statePath: string, refreshErr: string): Promise<{ state: State | null } | undefined> {
  const b = localBackend(io, { statePath });
  let mgr;
  try {
    mgr = await b.stateMgr(b.currentWorkspace());
  } catch (e) {
    ui.error(ERR_STATE_LOADING((e as Error).message));
    return undefined;
  }
  const d = await mgr.refresh();
  if (hasErrors(d)) {
    ui.error(`${refreshErr}: ${diagsErrorText(d)}`);
    return undefined;
  }
  return { state: mgr.read() };
}

/** LegacyInstanceObjectID: the string "id" attribute of the current object. */
function legacyID(state: State, addr: Parameters<State['instance']>[0]): string {
  const obj = state.instance(addr)?.current;
  if (!obj) return '<not created>';
  if (obj.attrsFlat) return obj.attrsFlat.id ?? '';
  try {
    const v = JSON.parse(obj.attrsJSON ?? 'null') as Record<string, unknown> | null;
    return v && typeof v.id === 'string' ? v.id : '';
  } catch {
    return '';
  }
}

export async function runStateList(rawArgs: string[], io: CliIO): Promise<number> {
  const { args, color } = stripNoColor(rawArgs);
  const ui = makeUi(io, color);
  const f = parseFlags(args, { state: 'string', id: 'string' });
  if (f.error) {
    ui.error(`Error parsing command-line flags: ${f.error}\n`);
    return runResultHelp(io, 'state list');
  }
  const be = await backendConfigErrors(io);
  if (be) {
    ui.diagnostics(be.diags, be.src);
    return 1;
  }
  const loaded = await loadState(io, ui, (f.values.get('state') as string) ?? '', 'Failed to load state');
  if (!loaded) return 1;
  const state = loaded.state;
  if (!state) {
    ui.error(ERR_STATE_NOT_FOUND);
    return 1;
  }
  const lookupId = (f.values.get('id') as string) ?? '';
  let addrs;
  if (f.args.length === 0) {
    addrs = (await import('../../states/state')).instanceAddrs(state);
  } else {
    addrs = [];
    const diags = [];
    for (const a of f.args) {
      const r = lookupInstances(state, false, a);
      addrs.push(...r.addrs);
      diags.push(...r.diags);
    }
    if (hasErrors(diags)) {
      ui.diagnostics(diags);
      return 1;
    }
  }
  for (const a of addrs) {
    if (!state.instance(a)) continue;
    if (lookupId === '' || lookupId === legacyID(state, a)) ui.output(instanceAddrString(a));
  }
  return 0;
}

const ERR_NO_INSTANCE =
  'No instance found for the given address!\n\nThis command requires that the address references one specific instance.\nTo view the available instances, use "terraform state list". Please modify \nthe address to reference a specific instance.';

export async function runStateShow(rawArgs: string[], io: CliIO): Promise<number> {
  const { args, color } = stripNoColor(rawArgs);
  const f = parseFlags(args, { state: 'string' });
  if (f.error) {
    io.stderr(`Error parsing command-line flags: ${f.error}\n`);
    return 1;
  }
  if (f.args.length !== 1) {
    io.stderr('Exactly one argument expected.\n');
    return runResultHelp(io, 'state show');
  }
  const be = await backendConfigErrors(io);
  if (be) {
    makeUi(io, color).diagnostics(be.diags, be.src);
    return 1;
  }
  const p = parseInstance(f.args[0]);
  if (!p.addr) {
    io.stderr(
      `Error parsing instance address: ${f.args[0]}\n\nThis command requires that the address references one specific instance.\nTo view the available instances, use "terraform state list". Please modify \nthe address to reference a specific instance.\n`,
    );
    return 1;
  }
  // LocalRun loads the configuration from the absolute working directory (for the schemas); its errors stop the
  // command and are shown by the view.
  const cfg = await loadConfig(io, true);
  if (hasErrors(cfg.diags)) {
    io.stderr(renderDiagnosticsView(cfg.diags.filter((d) => d.severity === 'error'), { color, ...cfg.src }));
    return 1;
  }
  const b = localBackend(io, { statePath: (f.values.get('state') as string) ?? '' });
  let mgr;
  try {
    mgr = await b.stateMgr(b.currentWorkspace());
  } catch (e) {
    io.stderr(ERR_STATE_LOADING((e as Error).message) + '\n');
    return 1;
  }
  const d = await mgr.refresh();
  if (hasErrors(d)) {
    io.stderr(`Failed to refresh state: ${diagsErrorText(d)}\n`);
    return 1;
  }
  const state = mgr.read();
  if (!state) {
    io.stderr(ERR_STATE_NOT_FOUND + '\n');
    return 1;
  }
  const addr = p.addr;
  const is = state.instance(addr);
  const rs = state.resource(addr);
  if (!is || !is.current || !rs) {
    io.stderr(ERR_NO_INSTANCE + '\n');
    return 1;
  }
  const provider = providerFQN(rs.provider);
  const schema = (await stateProviderSchemas(state, io))(provider, rs.mode, rs.type);
  const res: JResource = {
    address: instanceAddrString(addr),
    mode: rs.mode,
    type: rs.type,
    name: rs.name,
    key: addr.key,
    providerName: provider,
    schemaVersion: is.current.schemaVersion,
    value: decodeObject(is.current, schema?.block),
    block: schema?.block,
    dependsOn: [],
    tainted: is.current.status === 'tainted',
  };
  // The single instance is rendered as the only resource of a state; nested modules print as Terraform's
  // module tree does, which for one resource is just the resource.
  const root = singleResourceTree(addr.module, res);
  io.stdout(renderHumanState(root, [], color));
  return 0;
}

/** The module tree of a state holding only `res` in module `module` (what state show renders). */
function singleResourceTree(module: string, res: JResource): JModule {
  const steps = parseModuleInstance(module);
  let node: JModule = { address: module, resources: [res], children: [] };
  for (let n = steps.length - 1; n >= 0; n--) {
    const addr = steps
      .slice(0, n)
      .map(([name, k]) => `module.${name}${instanceKeySuffix(k)}`)
      .join('.');
    node = { address: addr, resources: [], children: [node] };
  }
  return node;
}

/** The terraform_version recorded in the state file on disk when it is the snapshot we hold, else ours. */
function storedVersion(io: CliIO, path: string, meta: { serial: number; lineage: string }): string {
  try {
    const r = readStateFile(readFileSync(isAbsolute(path) ? path : join(io.cwd, path), 'utf8'));
    if (r.file && r.file.lineage === meta.lineage && r.file.serial === meta.serial) return r.file.terraformVersion;
  } catch {
    // fall through
  }
  return TERRAFORM_VERSION;
}

export async function runStatePull(rawArgs: string[], io: CliIO): Promise<number> {
  const { args, color } = stripNoColor(rawArgs);
  const ui = makeUi(io, color);
  const f = parseFlags(args, {});
  if (f.error) {
    ui.error(`Error parsing command-line flags: ${f.error}\n`);
    return 1;
  }
  if (!(await checkRequiredVersion(io, ui))) return 1;
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
    ui.error(ERR_STATE_LOADING((e as Error).message));
    return 1;
  }
  const d = await mgr.refresh();
  if (hasErrors(d)) {
    ui.error(`Failed to refresh state: ${diagsErrorText(d)}`);
    return 1;
  }
  const state = mgr.read();
  if (state) {
    const meta = mgr.meta();
    ui.output(writeStateFile({ terraformVersion: storedVersion(io, b.statePaths(b.currentWorkspace()).stateIn, meta), serial: meta.serial, lineage: meta.lineage, state }));
  }
  return 0;
}
