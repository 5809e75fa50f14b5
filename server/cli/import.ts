// `foresight import [options] ADDR ID` (Terraform's command/import.go with Context.Import): checks that the
// address is declared in the root module, locks the state, asks the provider to import the object
// (ImportResourceState), refreshes each object it returns (ReadResource) and stores it: the first at ADDR, more at
// the addresses Terraform gives them (their own type; "-1", "-2" after a repeated name).
//
// Contract: prints Terraform's progress lines ("Importing from ID", "Import prepared!", "Refreshing state...")
// and "Import successful!"; an instance that already has an object is "Resource already managed by
// Terraform"; the state is written only on success and the lock is always released.

import { colorize, localBackend, lockState, makeUi, parseFlags, stripNoColor, unlockState, wantsHelp } from './state/meta';
import { error, hasErrors, type Diagnostic } from '../diags/diagnostic';
import { renderDiagnosticsView } from '../diags/render';
import { collectVariableValues, parseVariableValues, splitVarFlags } from '../config/variables';
import { DEFAULT_CLIENT_CAPABILITIES } from '../providers/provider';
import { encodeObject, markObject, providerConfigAddr, providerFqn, resourceProviderLocal } from '../engine/context';
import { checkReadResult, importWriteOnlyDiagnostics } from '../engine/contracts';
import { applyChange, instanceAddrString, State } from '../states/state';
import { helpText } from './help/index';
import type { CliIO } from './io';
import { parseInstance } from './state/addr';
import { loadConfig, providerFactory } from './plan';
import { objectValueID } from '../command/views/operation';

export async function runImport(rawArgs: string[], io: CliIO): Promise<number> {
  if (wantsHelp(rawArgs)) {
    io.stdout(helpText('import'));
    return 0;
  }
  const { args: noColor, color } = stripNoColor(rawArgs);
  const ui = makeUi(io, color);
  const v = splitVarFlags(noColor);
  const f = parseFlags(v.rest, {
    config: 'string',
    input: 'bool',
    lock: 'bool',
    'lock-timeout': 'duration',
    state: 'string',
    'state-out': 'string',
    backup: 'string',
    'allow-missing-config': 'bool',
    'ignore-remote-version': 'bool',
    parallelism: 'int',
  });
  if (f.error) {
    // Terraform 1.11's import parses its flags with the usage as the only message (cmdFlags.Usage = Ui.Error(Help)).
    ui.error(helpText('import').trim());
    return 1;
  }
  if (f.args.length !== 2) {
    ui.error('The import command expects two arguments.');
    ui.error(helpText('import').trim());
    return 1;
  }
  const p = parseInstance(f.args[0]);
  if (!p.addr) {
    ui.diagnostics(p.diags);
    return 1;
  }
  const addr = p.addr;
  const id = f.args[1];
  const shown = instanceAddrString(addr);
  const cfg = await loadConfig(io, color);
  if (!('module' in cfg)) {
    for (const d of cfg.diags) io.stderr(renderDiagnosticsView([d], cfg.render));
    return 1;
  }
  // Only root module resources are checked here (child module calls are looked up the same way).
  let mod = cfg.module;
  for (const m of addr.module ? addr.module.split(/\.?module\./).filter(Boolean).map((s) => s.replace(/\[.*\]$/, '')) : []) {
    const c = mod.moduleCalls.get(m);
    if (!c?.module) {
      ui.diagnostics([
        error('Import to non-existent module', `${addr.module} is not defined in the configuration. Please add configuration for this module before importing into it.`),
      ]);
      return 1;
    }
    mod = c.module;
  }
  const res = mod.resources.find((r) => r.mode === addr.mode && r.type === addr.type && r.name === addr.name);
  if (!res && f.values.get('allow-missing-config') !== true) {
    const where = addr.module ? `the module ${addr.module.replace(/\[.*?\]/g, '')}` : 'the root module';
    // The message's colour tags go to the Ui as they are: its one colorstring pass renders them (and adds one reset).
    ui.error(
      `[reset][bold][red]Error:[reset][bold] resource address ${JSON.stringify(shown)} does not exist in the configuration.[reset]\n\nBefore importing this resource, please create its configuration in ${where}. For example:\n\nresource ${JSON.stringify(addr.type)} ${JSON.stringify(addr.name)} {\n  # (resource arguments)\n}\n`,
    );
    return 1;
  }
  const collected = await collectVariableValues(io.cwd, v.vars, io.env);
  const parsed = parseVariableValues(collected.raw, cfg.module);
  const vdiags: Diagnostic[] = [...collected.diagnostics, ...parsed.diagnostics];
  if (hasErrors(vdiags)) {
    for (const d of vdiags) io.stderr(renderDiagnosticsView([d], cfg.render));
    return 1;
  }
  const local = res ? resourceProviderLocal(res) : { local: addr.type.split('_')[0] };
  const fqn = providerFqn(mod, local.local);
  const provider = providerFactory(io)(fqn);
  const b = localBackend(io, { statePath: (f.values.get('state') as string) || undefined, backupPath: (f.values.get('backup') as string) || undefined }, cfg.module);
  const ws = b.currentWorkspace();
  const mgr = await b.stateMgr(ws);
  let lockId: string | undefined;
  if (f.values.get('lock') !== false) {
    lockId = await lockState(mgr, 'OperationTypeImport', (f.values.get('lock-timeout') as number) ?? 0, io, ui);
    if (lockId === undefined) return 1;
  }
  const fail = (ds: Diagnostic[]) => {
    ui.diagnostics(ds);
    return 1;
  };
  try {
    const rd = await mgr.refresh();
    if (hasErrors(rd)) return fail(rd);
    if (!provider) return fail([error('Failed to load plugin schemas', `Could not load the schema for provider ${fqn}.`)]);
    const schemaResp = await provider.getProviderSchema();
    const schema = schemaResp.resourceTypes[addr.type];
    if (!schema) return fail([error('Invalid resource type', `The provider ${fqn} does not support resource type ${JSON.stringify(addr.type)}.`)]);
    io.stdout(colorize(`[reset][bold]${shown}: Importing from ID ${JSON.stringify(id)}...`, color) + '\n');
    const ir = await provider.importResourceState({ typeName: addr.type, id, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    if (hasErrors(ir.diagnostics)) return fail(ir.diagnostics);
    const cfgAddr = (addr.module ? addr.module + '.' : '') + providerConfigAddr(fqn, local.alias);
    const wo = ir.importedResources.flatMap((r) => importWriteOnlyDiagnostics(schema.block, r.state, cfgAddr, shown));
    if (hasErrors(wo)) return fail([...ir.diagnostics, ...wo]);
    io.stdout(colorize(`[reset][bold][green]${shown}: Import prepared!`, color) + '\n');
    for (const r of ir.importedResources) io.stdout(colorize(`[reset][green]  Prepared ${r.typeName} for import`, color) + '\n');
    // Every object the provider returned goes to its own address, as Terraform's import graph places them: the
    // object's type replaces the address's, and a repeated address gets "-1", "-2", ... after its name.
    const state = mgr.read();
    const seen = new Map<string, number>();
    const targets = ir.importedResources.map((imp) => {
      const a = { ...addr, type: imp.typeName || addr.type };
      const key = instanceAddrString(a);
      const n = seen.get(key);
      if (n !== undefined) a.name += `-${n + 1}`;
      seen.set(key, n === undefined ? 0 : n + 1);
      return { imp, addr: a, shown: instanceAddrString(a) };
    });
    const managed = targets
      .filter((t) => state?.instance(t.addr)?.current)
      .map((t) =>
        error(
          'Resource already managed by Terraform',
          `Terraform is already managing a remote object for ${t.shown}. To import to this address you must first remove the existing object from the state.`,
        ),
      );
    if (managed.length) return fail(managed);
    const target = state ?? new State();
    const providerAddr = (addr.module ? addr.module + '.' : '') + providerConfigAddr(fqn, local.alias);
    for (const t of targets) {
      if (t.imp.typeName === '') return fail([error(`import of ${t.shown} didn't set type`)]);
      const tSchema = schemaResp.resourceTypes[t.addr.type];
      if (!tSchema) return fail([error(`provider does not support resource type ${JSON.stringify(t.addr.type)}`)]);
      const idShown = objectValueID(t.imp.state);
      io.stdout(colorize(`[reset][bold]${t.shown}: Refreshing state...${idShown ? ` [id=${idShown}]` : ''}`, color) + '\n');
      const rr = await provider.readResource({ typeName: t.addr.type, currentState: t.imp.state, private: t.imp.private, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
      if (hasErrors(rr.diagnostics)) return fail(rr.diagnostics);
      const read = checkReadResult(tSchema.block, rr.newState, fqn, cfgAddr, t.shown);
      if (!read.ok) return fail([...rr.diagnostics, ...read.diags]);
      if (rr.newState.isNull)
        return fail([
          error(
            'Cannot import non-existent remote object',
            `While attempting to import an existing object to "${t.shown}", the provider detected that no object exists with the given id. Only pre-existing objects can be imported; check that the id is correct and that it is associated with the provider's configured region or endpoint, or use "terraform apply" to create a new remote object for this resource.`,
          ),
        ]);
      const obj = encodeObject(markObject(rr.newState, tSchema), tSchema, { status: 'ready', dependencies: [], createBeforeDestroy: false, private: rr.private });
      target.ensureModule(t.addr.module);
      applyChange(target, { op: 'current', addr: t.addr, obj, provider: providerAddr });
    }
    // (No object at all imports nothing, and Terraform still reports success.)
    mgr.write(target);
    const pd = await mgr.persist();
    if (hasErrors(pd)) return fail(pd);
    io.stdout(
      colorize(
        '\n[reset][green]Import successful!\n\nThe resources that were imported are shown above. These resources are now in\nyour Terraform state and will henceforth be managed by Terraform.\n',
        color,
      ) + '\n',
    );
    return 0;
  } finally {
    if (lockId !== undefined) await unlockState(mgr, lockId, ui);
  }
}
