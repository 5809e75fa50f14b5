// `terraform import ADDR ID` in the engine (Terraform's Context.Import): evaluates what provider configuration
// needs (variables, locals), configures the resource's provider, ImportResourceState, then ReadResource, and stores
// the object in the state.
//
// Contract: `runImport(opts)` never throws for user input. It returns the new state (a copy; `opts.state` is not
// mutated) and diagnostics: "Resource already managed by Terraform" when the address already has an object,
// "Cannot import non-existent remote object" when the refresh finds nothing, provider errors as they come. The CLI
// checks beforehand that the address is declared in the root module (its message is not a diagnostic).

import type { Diagnostic } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type { Module } from '../config/model';
import { finalizeRootVariables } from '../config/evaluate';
import type { InputValue } from '../config/variables';
import type { Value } from '../lang/value';
import { walk } from '../graph/graph';
import { DEFAULT_CLIENT_CAPABILITIES, type ImportedResource } from '../providers/provider';
import type { ChangeListener, InstanceAddr, State } from '../states/state';
import { instanceAddrString, SyncState } from '../states/state';
import type { Hooks } from './hooks';
import type { ProviderFactory } from './context';
import { buildConfigGraph, displayOrder, encodeObject, markObject, WalkContext } from './context';
import { checkReadResult, importWriteOnlyDiagnostics } from './contracts';
import { withAddr } from './planner';
import { parseTarget } from './targets';

export interface ImportHooks extends Hooks {
  /** "addr: Importing from ID "x"..." */
  preImportState?(addr: InstanceAddr, id: string): void;
  /** "addr: Import prepared!" with one "  Prepared <type> for import" line per object. */
  postImportState?(addr: InstanceAddr, imported: readonly ImportedResource[]): void;
}

export interface ImportOptions {
  config: Module;
  state: State;
  providers: ProviderFactory;
  /** The resource instance address as written (`aws_x.y`, `aws_x.y[0]`, `module.m.aws_x.y["k"]`). */
  addr: string;
  id: string;
  inputs?: ReadonlyMap<string, InputValue>;
  variableValues?: ReadonlyMap<string, Value>;
  cwd: string;
  workspace?: string;
  hooks?: ImportHooks;
  listener?: ChangeListener;
}

const hasErr = (ds: readonly Diagnostic[]) => ds.some((d) => d.severity === 'error');

export async function runImport(opts: ImportOptions): Promise<{ state: State; diagnostics: Diagnostic[] }> {
  const built = buildConfigGraph(opts.config);
  const hooks = opts.hooks ?? {};
  const ctx = new WalkContext(
    { root: opts.config, cwd: opts.cwd, workspace: opts.workspace ?? 'default', providers: opts.providers, parallelism: 1, hooks, planning: true },
    built,
  );
  const sync = new SyncState(opts.state.deepCopy(), opts.listener);
  ctx.state = sync.state;
  const diags = ctx.diagnostics;
  const t = parseTarget(opts.addr);
  if (!t?.resource || t.resource.mode !== 'managed') {
    diags.push(error('Invalid address', `The address ${opts.addr} is not a managed resource instance address.`));
    return { state: await sync.close(), diagnostics: diags };
  }
  const addr: InstanceAddr = { module: t.module, ...t.resource, key: t.key?.value };
  const nodeKey = built.resourceNodes.get(t.configAddr);
  const node = nodeKey ? built.graph.get(nodeKey) : undefined;
  if (!node || node.kind !== 'resource') {
    diags.push(error('Configuration for import target does not exist', `The configuration for the given import ${opts.addr} does not exist. All target instances must have an associated configuration to be imported.`));
    return { state: await sync.close(), diagnostics: diags };
  }

  if (opts.variableValues) for (const [k, v] of opts.variableValues) ctx.rootInstance.vars.set(k, v);
  else {
    const fin = finalizeRootVariables(opts.config, opts.inputs ?? new Map());
    diags.push(...fin.diagnostics);
    for (const [k, v] of fin.inputs.values) ctx.rootInstance.vars.set(k, v);
  }
  if (hasErr(diags)) return { state: await sync.close(), diagnostics: diags };
  await ctx.loadProviders([node.fqn]);
  if (hasErr(diags)) return { state: await sync.close(), diagnostics: diags };
  // Only what provider configuration can read: variables, locals, module expansion, providers.
  await walk(
    built.graph,
    async (_k, n) => {
      switch (n.kind) {
        case 'var':
          return ctx.evalVariable(n);
        case 'local':
          return ctx.evalLocal(n);
        case 'module':
          return ctx.expandModule(n);
        case 'provider':
          return n.fqn === node.fqn ? ctx.configureProvider(n) : true;
        default:
          return true;
      }
    },
    { order: displayOrder(built.graph) },
  );
  if (hasErr(diags)) return { state: await sync.close(), diagnostics: diags };

  const provider = ctx.providerFor(node.providerAddr)!;
  const schema = ctx.schemaOf(node.fqn, 'managed', addr.type)!;
  hooks.preImportState?.(addr, opts.id);
  const ir = await provider.importResourceState({ typeName: addr.type, id: opts.id, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  diags.push(...ir.diagnostics);
  if (hasErr(ir.diagnostics)) return { state: await sync.close(), diagnostics: diags };
  hooks.postImportState?.(addr, ir.importedResources);
  if (sync.state.object(addr)) {
    diags.push(
      error(
        'Resource already managed by Terraform',
        `Terraform is already managing a remote object for ${instanceAddrString(addr)}. To import to this address you must first remove the existing object from the state.`,
      ),
    );
    return { state: await sync.close(), diagnostics: diags };
  }
  const wo = ir.importedResources.flatMap((x) => importWriteOnlyDiagnostics(schema.block, x.state, node.providerAddr, instanceAddrString(addr)));
  diags.push(...wo);
  const obj = ir.importedResources[0];
  if (!obj) {
    diags.push(error('Import returned no resources', `While attempting to import with ID ${opts.id}, the providerreturned no instance states.`));
    return { state: await sync.close(), diagnostics: diags };
  }
  if (hasErr(wo)) return { state: await sync.close(), diagnostics: diags };
  if (obj.typeName === '') {
    diags.push(error(`import of ${instanceAddrString(addr)} didn't set type`));
    return { state: await sync.close(), diagnostics: diags };
  }
  const imported = markObject(obj.state, schema);
  hooks.preRefresh?.(addr, undefined, imported);
  const rr = await provider.readResource({ typeName: addr.type, currentState: obj.state, private: obj.private, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  // The imported object's refresh places the provider's diagnostics InConfigBody of the resource, as terraform's.
  diags.push(...rr.diagnostics.map((d) => withAddr(d, addr, node.res.config)));
  if (hasErr(rr.diagnostics)) return { state: await sync.close(), diagnostics: diags };
  const read = checkReadResult(schema.block, rr.newState, node.fqn, node.providerAddr, instanceAddrString(addr));
  diags.push(...read.diags);
  if (!read.ok) return { state: await sync.close(), diagnostics: diags };
  if (rr.newState.isNull) {
    diags.push(
      error(
        'Cannot import non-existent remote object',
        `While attempting to import an existing object to "${instanceAddrString(addr)}", the provider detected that no object exists with the given id. Only pre-existing objects can be imported; check that the id is correct and that it is associated with the provider's configured region or endpoint, or use "terraform apply" to create a new remote object for this resource.`,
      ),
    );
    return { state: await sync.close(), diagnostics: diags };
  }
  const v = markObject(rr.newState, schema);
  hooks.postRefresh?.(addr, undefined, imported, v);
  sync.setResourceInstanceCurrent(addr, encodeObject(v, schema, { status: 'ready', dependencies: [], createBeforeDestroy: false, private: rr.private }), node.providerAddr);
  return { state: await sync.close(), diagnostics: diags };
}
