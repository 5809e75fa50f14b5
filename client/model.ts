// The client's view model, free of `vscode` so that it is unit-tested under plain Node (test/client/model.test.ts):
// the Resources tree's nodes (modules → resources → instances) built from a plan or preview plus the state,
// the texts the views, status bar and the apply confirmation show, and run argument handling.
//
// Contract: everything here is a pure function of its arguments; the views render exactly these texts.

import type {
  PlanSummary,
  PlannedAction,
  ResourceChangeInfo,
  RunCommandArgs,
  RunDiagnostic,
  RunInfo,
  RunProgressParams,
  StateInstanceInfo,
  StateRequest,
} from '../server/lsp/protocol';

export interface InstanceNode {
  kind: 'instance';
  address: string;
  /** Label in the tree: the key (`[0]`, `["a"]`) under a resource, or the resource name for a single instance. */
  label: string;
  change?: ResourceChangeInfo;
  state?: StateInstanceInfo;
  errors: RunDiagnostic[];
}

export interface ResourceNode {
  kind: 'resource';
  /** `module.a.terraform_data.x` (no instance key). */
  address: string;
  label: string;
  mode: 'managed' | 'data';
  instances: InstanceNode[];
  file?: string;
  range?: ResourceChangeInfo['range'];
  errors: RunDiagnostic[];
}

export interface ModuleNode {
  kind: 'module';
  /** `module.a`, `module.a.module.b[0]`. */
  address: string;
  label: string;
  modules: ModuleNode[];
  resources: ResourceNode[];
}

export type TreeNode = ModuleNode | ResourceNode | InstanceNode;

/** Resource address without the instance key of its last step: `module.a[0].x.y["k"]` → `module.a[0].x.y`. */
export function resourceAddress(c: { module: string; mode: 'managed' | 'data'; type: string; name: string }): string {
  const local = `${c.mode === 'data' ? 'data.' : ''}${c.type}.${c.name}`;
  return c.module ? `${c.module}.${local}` : local;
}

/** Splits a module address `module.a[0].module.b` into its cumulative steps `module.a[0]`, `module.a[0].module.b`. */
export function moduleSteps(module: string): string[] {
  if (!module) return [];
  const out: string[] = [];
  // Step boundaries: ".module." outside of brackets/quotes.
  let depth = 0;
  let inStr = false;
  let start = 0;
  for (let i = 0; i < module.length; i++) {
    const ch = module[i];
    if (inStr) {
      if (ch === '\\') i++;
      else if (ch === '"') inStr = false;
      continue;
    }
    if (ch === '"') inStr = true;
    else if (ch === '[') depth++;
    else if (ch === ']') depth--;
    else if (depth === 0 && module.startsWith('.module.', i)) {
      out.push(module.slice(0, i));
      start = i + 1;
    }
  }
  void start;
  out.push(module);
  return out;
}

function inRange(d: RunDiagnostic, file: string | undefined, range: ResourceChangeInfo['range']): boolean {
  if (!d.file || !file || d.file !== file || !d.range || !range) return false;
  const before = (a: { line: number; character: number }, b: { line: number; character: number }) =>
    a.line < b.line || (a.line === b.line && a.character <= b.character);
  return before(range.start, d.range.start) && before(d.range.end, range.end);
}

/**
 * Builds the tree. Every instance in the changes appears; instances only in the state (no preview/plan yet)
 * appear too, with no change. Diagnostics whose range lies inside a resource block are attached to it.
 */
export function buildTree(changes: ResourceChangeInfo[], state: StateInstanceInfo[], diagnostics: RunDiagnostic[] = []): ModuleNode {
  const root: ModuleNode = { kind: 'module', address: '', label: 'root', modules: [], resources: [] };
  const modules = new Map<string, ModuleNode>([['', root]]);
  const resources = new Map<string, ResourceNode>();
  const instances = new Map<string, InstanceNode>();

  const moduleNode = (module: string): ModuleNode => {
    let parent = root;
    for (const step of moduleSteps(module)) {
      let m = modules.get(step);
      if (!m) {
        m = { kind: 'module', address: step, label: step.slice(parent.address ? parent.address.length + 1 : 0), modules: [], resources: [] };
        modules.set(step, m);
        parent.modules.push(m);
      }
      parent = m;
    }
    return parent;
  };
  const resourceNode = (c: { module: string; mode: 'managed' | 'data'; type: string; name: string }): ResourceNode => {
    const addr = resourceAddress(c);
    let r = resources.get(addr);
    if (!r) {
      r = { kind: 'resource', address: addr, label: addr.slice(c.module ? c.module.length + 1 : 0), mode: c.mode, instances: [], errors: [] };
      resources.set(addr, r);
      moduleNode(c.module).resources.push(r);
    }
    return r;
  };
  const instanceNode = (c: { address: string; module: string; mode: 'managed' | 'data'; type: string; name: string; key?: string; deposed?: string }): InstanceNode => {
    const id = c.deposed ? `${c.address} (deposed ${c.deposed})` : c.address;
    let i = instances.get(id);
    if (!i) {
      const r = resourceNode(c);
      const label = (c.key !== undefined ? `[${c.key}]` : r.label) + (c.deposed ? ` (deposed ${c.deposed})` : '');
      i = { kind: 'instance', address: c.address, label, errors: [] };
      instances.set(id, i);
      r.instances.push(i);
    }
    return i;
  };

  for (const c of changes) {
    const i = instanceNode(c);
    i.change = c;
    const r = resources.get(resourceAddress(c))!;
    if (!r.file && c.file) {
      r.file = c.file;
      r.range = c.range;
    }
  }
  for (const s of state) instanceNode(s).state = s;
  for (const d of diagnostics) {
    if (d.severity !== 'error') continue;
    for (const r of resources.values()) if (inRange(d, r.file, r.range)) r.errors.push(d);
  }
  const sortModule = (m: ModuleNode) => {
    m.modules.sort((a, b) => a.address.localeCompare(b.address));
    m.resources.sort((a, b) => a.address.localeCompare(b.address));
    for (const r of m.resources) r.instances.sort((a, b) => compareKeys(a.label, b.label));
    m.modules.forEach(sortModule);
  };
  sortModule(root);
  return root;
}

function compareKeys(a: string, b: string): number {
  const na = /^\[(\d+)\]/.exec(a);
  const nb = /^\[(\d+)\]/.exec(b);
  if (na && nb) return Number(na[1]) - Number(nb[1]);
  return a.localeCompare(b);
}

/** The single instance of a resource without count/for_each, shown as the resource itself. */
export function soleInstance(r: ResourceNode): InstanceNode | undefined {
  return r.instances.length === 1 && r.instances[0].address === r.address ? r.instances[0] : undefined;
}

/** Terraform's symbol for an action, as in the plan output. */
export function actionSymbol(action: PlannedAction): string {
  switch (action) {
    case 'create': return '+';
    case 'update': return '~';
    case 'replace': return '-/+';
    case 'delete': return '-';
    case 'read': return '<=';
    case 'forget': return '.';
    default: return ' ';
  }
}

/** Description beside an instance: its planned action and why, state presence, drift. */
export function instanceDescription(i: InstanceNode): string {
  const parts: string[] = [];
  const c = i.change;
  if (c) {
    switch (c.action) {
      case 'create': parts.push('+ create'); break;
      case 'update': {
        const n = c.changedAttributes;
        parts.push(n === undefined ? '~ update in-place' : `~ ${n} attribute${n === 1 ? '' : 's'}`);
        break;
      }
      case 'replace': parts.push(c.replacePaths?.length ? `-/+ replace (${c.replacePaths.join(', ')})` : '-/+ replace'); break;
      case 'delete': parts.push('- destroy'); break;
      case 'read': parts.push('<= read'); break;
      case 'forget': parts.push('. forget'); break;
      case 'no-op': parts.push('no changes'); break;
    }
    if (c.importing) parts.push('import');
    if (c.movedFrom) parts.push(`moved from ${c.movedFrom}`);
    if (c.drifted) parts.push('drifted');
  }
  if (i.state?.tainted) parts.push('tainted');
  if (!c || c.action !== 'create') parts.push(i.state || c?.inState ? 'in state' : 'not in state');
  if (i.errors.length) parts.push(`${i.errors.length} error${i.errors.length === 1 ? '' : 's'}`);
  return parts.join(' · ');
}

/** Description of a resource with several instances: counts of the planned actions. */
export function resourceDescription(r: ResourceNode): string {
  const sole = soleInstance(r);
  if (sole) {
    const d = instanceDescription(sole);
    return r.errors.length ? `${d} · ${r.errors.length} error${r.errors.length === 1 ? '' : 's'}` : d;
  }
  const counts = new Map<string, number>();
  for (const i of r.instances) {
    const a = i.change?.action ?? 'no-op';
    counts.set(a, (counts.get(a) ?? 0) + 1);
  }
  const order: PlannedAction[] = ['create', 'update', 'replace', 'delete', 'read', 'forget', 'no-op'];
  const parts = order.filter((a) => counts.has(a) && a !== 'no-op').map((a) => `${actionSymbol(a)}${counts.get(a)}`);
  if (counts.has('no-op')) parts.push(parts.length ? `=${counts.get('no-op')}` : 'no changes');
  const text = `${r.instances.length} instance${r.instances.length === 1 ? '' : 's'}${parts.length ? ': ' + parts.join(' ') : ''}`;
  return r.errors.length ? `${text} · ${r.errors.length} error${r.errors.length === 1 ? '' : 's'}` : text;
}

/** Description of a module: counts of its instances' planned actions (`+1 ~2`), or `no changes`. */
export function moduleDescription(m: ModuleNode): string {
  const counts = new Map<string, number>();
  const walk = (x: ModuleNode) => {
    for (const r of x.resources) for (const i of r.instances) {
      const a = i.change?.action;
      if (a && a !== 'no-op') counts.set(a, (counts.get(a) ?? 0) + 1);
    }
    x.modules.forEach(walk);
  };
  walk(m);
  const order: PlannedAction[] = ['create', 'update', 'replace', 'delete', 'read', 'forget'];
  const parts = order.filter((a) => counts.has(a)).map((a) => `${actionSymbol(a)}${counts.get(a)}`);
  return parts.length ? parts.join(' ') : 'no changes';
}

/** The most significant action among a resource's instances (for its icon). */
export function dominantAction(actions: (PlannedAction | undefined)[]): PlannedAction | undefined {
  const rank: PlannedAction[] = ['delete', 'replace', 'update', 'create', 'forget', 'read', 'no-op'];
  let best: PlannedAction | undefined;
  for (const a of actions) if (a && (best === undefined || rank.indexOf(a) < rank.indexOf(best))) best = a;
  return best;
}

/** Context value of a tree item: space-separated words the manifest's `when` clauses match. */
export function contextValue(n: TreeNode): string {
  if (n.kind === 'module') return 'module';
  if (n.kind === 'resource') {
    const sole = soleInstance(n);
    return sole ? `resource ${contextValue(sole)}` : `resource ${n.mode}`;
  }
  const words = ['instance', n.change?.mode ?? n.state?.mode ?? 'managed'];
  if (n.state || n.change?.inState) words.push('inState');
  if (n.change && n.change.action !== 'no-op') words.push('changed');
  return words.join(' ');
}

/** The status bar's summary: `+3 ~1 -0` (replacements count in both + and -, as Terraform counts them). */
export function shortSummary(s: PlanSummary | undefined): string {
  if (!s) return '';
  return `+${s.add} ~${s.change} -${s.destroy}`;
}

/** Terraform's plan summary line. */
export function summaryLine(s: PlanSummary, kind: 'plan' | 'apply' = 'plan'): string {
  const imp = s.import ? `${s.import} to import, ` : '';
  if (kind === 'apply') {
    const impd = s.import ? `${s.import} imported, ` : '';
    return `${impd}${s.add} added, ${s.change} changed, ${s.destroy} destroyed`;
  }
  return `${imp}${s.add} to add, ${s.change} to change, ${s.destroy} to destroy`;
}

export function isEmptySummary(s: PlanSummary): boolean {
  return s.add === 0 && s.change === 0 && s.destroy === 0 && s.import === 0;
}

/** What the apply confirmation says: a title and the lists of what is created, changed, replaced and destroyed. */
export interface Confirmation {
  title: string;
  detail: string;
  /** True when anything is destroyed or replaced: then the confirmation can never be skipped. */
  destructive: boolean;
  /** The button that confirms. */
  action: string;
}

export function confirmation(summary: PlanSummary, changes: ResourceChangeInfo[], opts: { destroyMode?: boolean; workspace?: string } = {}): Confirmation {
  const by = (a: PlannedAction) => changes.filter((c) => c.action === a && !c.deposed).map((c) => c.address);
  const deposedDeletes = changes.filter((c) => c.action === 'delete' && c.deposed).map((c) => `${c.address} (deposed object ${c.deposed})`);
  const groups: [string, string[]][] = [
    ['Destroy', [...by('delete'), ...deposedDeletes]],
    ['Replace (destroy and create again)', by('replace')],
    ['Create', by('create')],
    ['Change in place', by('update')],
    ['Forget (remove from the state, keep the object)', by('forget')],
  ];
  const lines: string[] = [summaryLine(summary) + '.'];
  for (const [name, addrs] of groups) {
    if (!addrs.length) continue;
    lines.push('', `${name} (${addrs.length}):`);
    for (const a of addrs.slice(0, 30)) lines.push(`  ${a}`);
    if (addrs.length > 30) lines.push(`  ... and ${addrs.length - 30} more`);
  }
  const destructive = by('delete').length + deposedDeletes.length + by('replace').length > 0;
  if (destructive) lines.push('', 'Destroyed objects cannot be recovered.');
  const ws = opts.workspace && opts.workspace !== 'default' ? ` in workspace "${opts.workspace}"` : '';
  const title = opts.destroyMode
    ? `Destroy all resources${ws}? ${summary.destroy} to destroy.`
    : destructive
      ? `Apply this plan${ws}? It destroys or replaces ${summary.destroy} object${summary.destroy === 1 ? '' : 's'}.`
      : `Apply this plan${ws}?`;
  return { title, detail: lines.join('\n'), destructive, action: opts.destroyMode ? 'Destroy' : 'Apply' };
}

/** Normalises a command argument: from code it is RunCommandArgs; from a tree menu a node; from the palette nothing. */
export function runArgs(arg: unknown): { args: RunCommandArgs; fromCode: boolean } {
  if (arg && typeof arg === 'object' && !('kind' in arg) && !('runId' in arg)) {
    const a = arg as RunCommandArgs;
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
    return {
      args: {
        targets: strings(a.targets),
        replace: strings(a.replace),
        autoApprove: a.autoApprove === true,
        directory: typeof a.directory === 'string' ? a.directory : undefined,
      },
      fromCode: true,
    };
  }
  return { args: {}, fromCode: false };
}

/** Human duration: `850ms`, `4.2s`, `2m 5s`. */
export function duration(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${s % 60}s`;
}

/** Label and description of a run in the Runs tree. */
export function runLabel(r: RunInfo): { label: string; description: string } {
  const kind = r.kind === 'plan' ? 'Plan' : r.kind === 'apply' ? 'Apply' : 'Refresh';
  const time = r.startedAt ? new Date(r.startedAt).toISOString().slice(11, 19) : '';
  const parts: string[] = [];
  if (r.summary && r.status !== 'running') parts.push(r.kind === 'apply' ? summaryLine(r.summary, 'apply') : summaryLine(r.summary));
  parts.push(r.status);
  if (r.durationMs !== undefined) parts.push(duration(r.durationMs));
  return { label: `${kind} ${time}`.trim(), description: parts.join(' · ') };
}

/** Applies a progress event to a run's per-resource list (latest event per address, in first-seen order). */
export function mergeProgress(list: RunProgressParams[], p: RunProgressParams): RunProgressParams[] {
  const i = list.findIndex((x) => x.address === p.address);
  if (i < 0) return [...list, p];
  const out = list.slice();
  out[i] = p;
  return out;
}

/** Who holds the state lock, as the status bar's tooltip says it (Terraform's lock info fields). */
export function lockHolderLine(l: NonNullable<StateRequest.Result['lock']>): string {
  return `Locked by ${l.who} for ${l.operation} since ${l.created} (lock ID ${l.id})`;
}
