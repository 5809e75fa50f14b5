// The built-in `terraform` provider (terraform.io/builtin/terraform), as in Terraform 1.11.4:
//
// - resource `terraform_data`: `input` (any type) is copied to `output` at apply; `output` is unknown in the
//   plan whenever `input` changes; a change of `triggers_replace` (compared exactly, type included) forces
//   replacement; `id` is a random UUID chosen at create. Import by id gives an object with only `id` set;
//   refresh returns the state unchanged; state decoding is strict (an unknown attribute is an error).
//   MoveResourceState accepts `null_resource` objects of hashicorp/null (`triggers` → `triggers_replace`).
// - data source `terraform_remote_state` for the local backend (`backend = "local"`, `config.path`,
//   `config.workspace_dir`, `workspace`, `defaults`): `outputs` is an object of the root outputs of that
//   state, on top of `defaults`. The "http" and "pg" backends (config = the attributes of their backend block)
//   are opened through the backend registry and read without locking, as Terraform's getBackend/StateMgr/
//   RefreshState do; other backends are reported as unsupported here.
//
// Written with the SDK (../sdk). `terraformProvider({ workingDir })` resolves relative state paths against
// workingDir (default: the process's working directory, as Terraform's own provider does). Siblings:
// null.ts, random.ts, index.ts (the registry).

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import * as T from '../../lang/types';
import { Value, rawEquals } from '../../lang/value';
import { attrStep } from '../path';
import type { Provider, ProviderDiagnostic } from '../provider';
import { coerceValue, block as schemaBlock } from '../schema';
import { formatError } from '../path';
import { readStateFile } from '../../states/statefile';
import { BACKEND_SCHEMAS, configureBackend } from '../../backends/registry';
import type { Diagnostic } from '../../diags/diagnostic';
import { typeFromJSON } from '../wire';
import { attr, attrError, blockOf, defineProvider, get, plainError, S, str, unmarshalState, withAttrs } from '../sdk';
import type { DataSourceType, ResourceType } from '../sdk';

export const TERRAFORM_PROVIDER_ADDRESS = 'terraform.io/builtin/terraform';

/** The null_resource schema terraform_data moves from (hashicorp/null). */
const nullResourceType = T.Obj({ id: T.String, triggers: T.Map(T.String) });

/** A planned id: unknown, but known not to be null (Terraform 1.11 refines it so). */
function unknownId(): Value {
  return Value.unknown(T.String, { notNull: true });
}

/** output = unknown of input's type, or input itself when it is null (terraform_data's rule). */
function plannedOutput(input: Value): Value {
  return input.isNull ? input : Value.unknown(input.type);
}

const terraformData: ResourceType = {
  attributes: {
    id: attr.string({ computed: true }),
    input: attr.dynamic({ optional: true }),
    output: attr.dynamic({ computed: true }),
    triggers_replace: attr.dynamic({ optional: true }),
  },
  markComputedUnknown: false,
  strictStateDecoding: true,
  validateConfig(config) {
    const diags: ProviderDiagnostic[] = [];
    if (config.isNull) return diags;
    for (const name of ['id', 'output']) {
      if (!get(config, name).isNull) diags.push(plainError(`"${name}" attribute is read-only`));
    }
    return diags;
  },
  modifyPlan({ prior, planned }) {
    const input = get(planned, 'input');
    const trigger = get(planned, 'triggers_replace');
    if (prior.isNull) {
      return { planned: withAttrs(planned, { id: unknownId(), output: plannedOutput(input) }) };
    }
    if (!rawEquals(get(prior, 'triggers_replace'), trigger)) {
      return {
        planned: withAttrs(planned, { id: unknownId(), output: plannedOutput(input) }),
        requiresReplace: [[attrStep('triggers_replace')]],
      };
    }
    if (!rawEquals(get(prior, 'input'), input)) return { planned: withAttrs(planned, { output: Value.unknown(input.type) }) };
    return {};
  },
  create: ({ planned }) => ({ state: applyData(planned) }),
  update: ({ planned }) => ({ state: applyData(planned) }),
  importState: (id) => ({ state: { id: S(id) } }),
  moveState(req) {
    if (!req.sourceProviderAddress.endsWith('hashicorp/null')) {
      return { state: null, diagnostics: [plainError('Unsupported source provider for move operation', 'Only moving from the official hashicorp/null provider to terraform_data is supported.')] };
    }
    if (req.sourceTypeName !== 'null_resource') {
      return { state: null, diagnostics: [plainError('Unsupported source resource type for move operation', 'Only moving from the null_resource managed resource to terraform_data is supported.')] };
    }
    const dec = unmarshalState(req.sourceStateJson, nullResourceType);
    if ('error' in dec) return { state: null, diagnostics: [plainError(dec.error)] };
    const triggers = get(dec.value, 'triggers');
    return {
      state: {
        id: get(dec.value, 'id'),
        // An object, not a map: configurations write triggers_replace = { ... }, so the next plan shows no change.
        triggers_replace: triggers.isNull ? Value.null(T.Dynamic) : Value.object(triggers.entries),
      },
    };
  },
};

/** Apply for create and update: output takes input when planned unknown; a new id when planned unknown. */
function applyData(planned: Value): Value {
  const changes: Record<string, Value> = {};
  if (!get(planned, 'output').isKnown) changes.output = get(planned, 'input');
  if (!get(planned, 'id').isKnown) changes.id = Value.string(randomUUID());
  return withAttrs(planned, changes);
}

// ---- terraform_remote_state ------------------------------------------------------------------------------------

/** The local backend's configuration schema (terraform { backend "local" { ... } }). */
const localBackendBlock = schemaBlock({ path: { type: T.String, optional: true }, workspace_dir: { type: T.String, optional: true } });

/** Backends Terraform 1.11 no longer has, with its messages. */
const REMOVED_BACKENDS: Record<string, string> = {
  artifactory: 'The "artifactory" backend is not supported in Terraform v1.3 or later.',
  azure: 'The "azure" backend name has been removed, please use "azurerm".',
  etcd: 'The "etcd" backend is not supported in Terraform v1.3 or later.',
  etcdv3: 'The "etcdv3" backend is not supported in Terraform v1.3 or later.',
  manta: 'The "manta" backend is not supported in Terraform v1.3 or later.',
  swift: 'The "swift" backend is not supported in Terraform v1.3 or later.',
};

/** Backends Terraform has that this provider cannot read from. */
const OTHER_BACKENDS = ['azurerm', 'consul', 'cos', 'gcs', 'inmem', 'kubernetes', 'oss', 'remote', 's3', 'cloud'];

/** Remote backends read through the backend registry, with their configuration schemas. */
const REGISTRY_BACKENDS = ['http', 'pg'];
const registryBlocks = new Map(
  REGISTRY_BACKENDS.map((b) => [
    b,
    schemaBlock(Object.fromEntries(Object.entries(BACKEND_SCHEMAS[b]).map(([k, t]) => [k, { type: t === 'string' ? T.String : t === 'bool' ? T.Bool : T.Number, optional: true }]))),
  ]),
);

const isObjectLike = (t: T.Type) => t.kind === 'dynamic' || t.kind === 'object' || t.kind === 'map';

/** The backend type and coerced local configuration, or diagnostics (dataSourceRemoteStateValidate / getBackend). */
function localBackend(cfg: Value): { type: string; config: Value } | { diagnostics: ProviderDiagnostic[] } {
  let backend = str(get(cfg, 'backend')) ?? '';
  if (backend === '_local') backend = 'local';
  if (REGISTRY_BACKENDS.includes(backend)) {
    let config = get(cfg, 'config');
    if (config.isNull) config = Value.object({});
    if (config.type.kind === 'map') config = Value.object(config.entries);
    const r = coerceValue(registryBlocks.get(backend)!, config);
    if (r.error) {
      return {
        diagnostics: [attrError([attrStep('config')], 'Invalid backend configuration', `The given configuration is not valid for backend ${JSON.stringify(backend)}: ${formatError(r.error)}.`)],
      };
    }
    return { type: backend, config: r.value };
  }
  if (backend !== 'local') {
    const detail = OTHER_BACKENDS.includes(backend)
      ? `Foresight's built-in terraform_remote_state reads only the "local" backend; ${JSON.stringify(backend)} is not supported.`
      : REMOVED_BACKENDS[backend] ?? `There is no backend type named ${JSON.stringify(backend)}.`;
    return { diagnostics: [attrError([attrStep('backend')], 'Invalid backend configuration', detail)] };
  }
  let config = get(cfg, 'config');
  if (config.isNull) config = Value.object({});
  if (config.type.kind === 'map') config = Value.object(config.entries);
  const r = coerceValue(localBackendBlock, config);
  if (r.error) {
    return {
      diagnostics: [attrError([attrStep('config')], 'Invalid backend configuration', `The given configuration is not valid for backend "local": ${formatError(r.error)}.`)],
    };
  }
  // The local backend's PrepareConfig: neither path may be empty (located at the backend's own attribute).
  const diags: ProviderDiagnostic[] = [];
  if (str(get(r.value, 'path')) === '') diags.push(attrError([attrStep('path')], 'Invalid local state file path', 'The "path" attribute value must not be empty.'));
  if (str(get(r.value, 'workspace_dir')) === '') {
    diags.push(attrError([attrStep('workspace_dir')], 'Invalid local workspace directory path', 'The "workspace_dir" attribute value must not be empty.'));
  }
  return diags.length ? { diagnostics: diags } : { type: 'local', config: r.value };
}

function remoteStateData(workingDir: string): DataSourceType {
  return {
    attributes: {
      backend: attr.string({ required: true, description: 'The remote backend to use, e.g. `remote` or `http`.', descriptionKind: 'markdown' }),
      config: attr.dynamic({ optional: true, description: 'The configuration of the remote backend. Although this is optional, most backends require some configuration.\n\nThe object can use any arguments that would be valid in the equivalent `terraform { backend "<TYPE>" { ... } }` block.', descriptionKind: 'markdown' }),
      defaults: attr.dynamic({ optional: true, description: 'Default values for outputs, in case the state file is empty or lacks a required output.', descriptionKind: 'markdown' }),
      outputs: attr.dynamic({ computed: true, description: 'An object containing every root-level output in the remote state.', descriptionKind: 'markdown' }),
      workspace: attr.string({ optional: true, description: 'The Terraform workspace to use, if the backend supports workspaces.', descriptionKind: 'markdown' }),
    },
    validateConfig(cfg) {
      const diags: ProviderDiagnostic[] = [];
      if (get(cfg, 'config').isWhollyKnown && get(cfg, 'backend').isKnown) {
        const b = localBackend(cfg);
        if ('diagnostics' in b) diags.push(...b.diagnostics);
      } else if (!isObjectLike(get(cfg, 'config').type)) {
        diags.push(attrError([attrStep('config')], 'Invalid backend configuration', 'The configuration must be an object value.'));
      }
      if (!isObjectLike(get(cfg, 'defaults').type)) {
        diags.push(attrError([attrStep('defaults')], 'Invalid default values', 'Defaults must be given in an object value.'));
      }
      return diags;
    },
    read({ config: cfg }) {
      const b = localBackend(cfg);
      if ('diagnostics' in b) return { state: null, diagnostics: b.diagnostics };
      if (b.type !== 'local') return readRegistryBackend(cfg, b.type, b.config, workingDir);
      const ws = str(get(cfg, 'workspace'));
      const dir = str(get(b.config, 'workspace_dir')) ?? 'terraform.tfstate.d';
      let file = str(get(b.config, 'path')) ?? 'terraform.tfstate';
      if (ws !== undefined && ws !== 'default') file = join(dir, ws, 'terraform.tfstate');
      if (!isAbsolute(file)) file = join(workingDir, file);
      const outputs = new Map<string, Value>();
      const defaults = get(cfg, 'defaults');
      if (!defaults.isNull) for (const [k, v] of defaults.entries) outputs.set(k, v);
      const base = {
        backend: get(cfg, 'backend'),
        config: get(cfg, 'config'),
        workspace: get(cfg, 'workspace'),
        defaults: defaults.isNull ? Value.null(T.Dynamic) : defaults,
      };
      let text: string | undefined;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        text = undefined;
      }
      const read = text === undefined ? { diags: [] } : readStateFile(text);
      if (read.diags.some((d) => d.severity === 'error')) {
        return { state: null, diagnostics: read.diags.map((d) => ({ ...d })) };
      }
      if (!read.file) {
        return {
          state: { ...base, outputs: Value.object({}) },
          diagnostics: [attrError([attrStep('workspace')], 'Unable to find remote state', 'No stored state was found for the given workspace in the given backend.')],
        };
      }
      for (const [k, o] of read.file.state.outputs) {
        const dec = unmarshalState(o.valueJSON, typeFromJSON(JSON.parse(o.typeJSON)));
        if ('value' in dec) outputs.set(k, dec.value);
      }
      return { state: { ...base, outputs: Value.object(outputs) } };
    },
  };
}

const plainDiags = (ds: readonly Diagnostic[]): ProviderDiagnostic[] => ds.map((d) => ({ severity: d.severity, summary: d.summary, detail: d.detail }) as ProviderDiagnostic);

/** The base of the data source's new state (its arguments, defaults kept as given). */
function remoteStateBase(cfg: Value) {
  const defaults = get(cfg, 'defaults');
  return { backend: get(cfg, 'backend'), config: get(cfg, 'config'), workspace: get(cfg, 'workspace'), defaults: defaults.isNull ? Value.null(T.Dynamic) : defaults };
}

/** dataSourceRemoteStateRead for a backend of the registry: configure, StateMgr(workspace), RefreshState, outputs. */
async function readRegistryBackend(cfg: Value, type: string, config: Value, workingDir: string) {
  const attrs: Record<string, unknown> = {};
  for (const [k, t] of Object.entries(BACKEND_SCHEMAS[type])) {
    const v = get(config, k);
    attrs[k] = v.isNull || !v.isKnown ? null : t === 'string' ? v.str : t === 'bool' ? v.bool : v.num.toNumber();
  }
  const opened = await configureBackend(type, attrs, { cwd: workingDir, env: process.env });
  const backend = opened.backend;
  if (!backend || opened.diagnostics.some((d) => d.severity === 'error')) return { state: null, diagnostics: plainDiags(opened.diagnostics) };
  try {
    const ws = str(get(cfg, 'workspace')) ?? 'default';
    let mgr: Awaited<ReturnType<typeof backend.stateMgr>>;
    try {
      mgr = await backend.stateMgr(ws);
    } catch (e) {
      return { state: null, diagnostics: [attrError([attrStep('backend')], 'Error loading state error', `error loading the remote state: ${(e as Error).message}`)] };
    }
    const rd = await mgr.refresh();
    if (rd.some((d) => d.severity === 'error')) return { state: null, diagnostics: plainDiags(rd) };
    const st = mgr.read();
    const base = remoteStateBase(cfg);
    if (!st) {
      return {
        state: { ...base, outputs: Value.object({}) },
        diagnostics: [attrError([attrStep('workspace')], 'Unable to find remote state', 'No stored state was found for the given workspace in the given backend.')],
      };
    }
    const outputs = new Map<string, Value>();
    if (!base.defaults.isNull) for (const [k, v] of base.defaults.entries) outputs.set(k, v);
    for (const [k, o] of st.outputs) {
      const dec = unmarshalState(o.valueJSON, typeFromJSON(JSON.parse(o.typeJSON)));
      if ('value' in dec) outputs.set(k, dec.value);
    }
    return { state: { ...base, outputs: Value.object(outputs) } };
  } finally {
    await (backend as { close?(): Promise<void> }).close?.();
  }
}

/** The `terraform` provider. */
export function terraformProvider(opts: { workingDir?: string } = {}): Provider {
  return defineProvider({
    name: 'terraform',
    resources: { terraform_data: terraformData },
    dataSources: { terraform_remote_state: remoteStateData(opts.workingDir ?? process.cwd()) },
    serverCapabilities: { moveResourceState: true },
  });
}

/** The schema block of terraform_data (for tests and documentation tools). */
export const terraformDataBlock = blockOf(terraformData.attributes);
