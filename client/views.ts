// The two tree views of the Foresight activity bar container: Resources (modules → resources → instances with
// their planned action, state presence, drift and errors) and Runs (this session's plan/apply/refresh runs with
// summary, status, duration and live per-resource progress). Both render client/model.ts's texts.

import * as vscode from 'vscode';
import type { PlannedAction, ResourceChangeInfo, RunDiagnostic, RunInfo, RunProgressParams, StateInstanceInfo } from '../server/lsp/protocol';
import {
  buildTree,
  contextValue,
  dominantAction,
  instanceDescription,
  moduleDescription,
  resourceDescription,
  runLabel,
  soleInstance,
  type InstanceNode,
  type ModuleNode,
  type ResourceNode,
  type TreeNode,
} from './model';

const ACTION_ICON: Record<PlannedAction, [string, string | undefined]> = {
  create: ['diff-added', 'gitDecoration.addedResourceForeground'],
  update: ['diff-modified', 'gitDecoration.modifiedResourceForeground'],
  replace: ['arrow-swap', 'list.warningForeground'],
  delete: ['diff-removed', 'gitDecoration.deletedResourceForeground'],
  read: ['eye', 'charts.blue'],
  forget: ['debug-disconnect', 'disabledForeground'],
  'no-op': ['pass', undefined],
};

function actionIcon(action: PlannedAction | undefined, errors: number): vscode.ThemeIcon {
  if (errors) return new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
  if (!action) return new vscode.ThemeIcon('circle-outline');
  const [id, color] = ACTION_ICON[action];
  return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}

function openCommand(file: string | undefined, range: ResourceChangeInfo['range']): vscode.Command | undefined {
  if (!file) return undefined;
  const selection = range ? new vscode.Range(range.start.line, range.start.character, range.start.line, range.start.character) : undefined;
  return { command: 'vscode.open', title: 'Open Source', arguments: [vscode.Uri.file(file), { selection, preview: true }] };
}

function errorsTooltip(errors: RunDiagnostic[]): string {
  return errors.map((e) => `**Error:** ${e.summary}${e.detail ? `\n\n${e.detail}` : ''}`).join('\n\n');
}

export class ResourcesTree implements vscode.TreeDataProvider<TreeNode> {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  root: ModuleNode = buildTree([], []);
  /** Where the shown changes come from: 'preview', a plan run id, or '' before anything. */
  source = '';

  update(changes: ResourceChangeInfo[], state: StateInstanceInfo[], diagnostics: RunDiagnostic[], source: string): void {
    this.root = buildTree(changes, state, diagnostics);
    this.source = source;
    this.emitter.fire(undefined);
  }

  /** Every instance node, depth first (tests and the quick picks use it). */
  instances(): InstanceNode[] {
    const out: InstanceNode[] = [];
    const walk = (m: ModuleNode) => {
      for (const r of m.resources) out.push(...r.instances);
      m.modules.forEach(walk);
    };
    walk(this.root);
    return out;
  }

  getChildren(n?: TreeNode): TreeNode[] {
    const m = n ?? this.root;
    if (m.kind === 'module') return [...m.modules, ...m.resources];
    if (m.kind === 'resource') return soleInstance(m) ? [] : m.instances;
    return [];
  }

  getTreeItem(n: TreeNode): vscode.TreeItem {
    if (n.kind === 'module') {
      const item = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `m:${n.address}`;
      item.iconPath = new vscode.ThemeIcon('package');
      item.contextValue = contextValue(n);
      item.description = moduleDescription(n);
      item.tooltip = n.address;
      return item;
    }
    if (n.kind === 'resource') return this.resourceItem(n);
    return this.instanceItem(n);
  }

  getParent(): undefined {
    return undefined;
  }

  private resourceItem(r: ResourceNode): vscode.TreeItem {
    const sole = soleInstance(r);
    const item = new vscode.TreeItem(r.label, sole ? vscode.TreeItemCollapsibleState.None : vscode.TreeItemCollapsibleState.Expanded);
    item.id = `r:${r.address}`;
    item.description = resourceDescription(r);
    item.contextValue = contextValue(r);
    const errors = r.errors.length + r.instances.reduce((n, i) => n + i.errors.length, 0);
    item.iconPath = actionIcon(dominantAction(r.instances.map((i) => i.change?.action)), errors);
    item.command = openCommand(r.file, r.range);
    const md = new vscode.MarkdownString(`\`${r.address}\`\n\n${item.description}`);
    if (r.errors.length) md.appendMarkdown(`\n\n${errorsTooltip(r.errors)}`);
    item.tooltip = md;
    return item;
  }

  private instanceItem(i: InstanceNode): vscode.TreeItem {
    const item = new vscode.TreeItem(i.label, vscode.TreeItemCollapsibleState.None);
    item.id = `i:${i.address}:${i.change?.deposed ?? i.state?.deposed ?? ''}`;
    item.description = instanceDescription(i);
    item.contextValue = contextValue(i);
    item.iconPath = actionIcon(i.change?.action, i.errors.length);
    item.command = openCommand(i.change?.file, i.change?.range);
    item.tooltip = new vscode.MarkdownString(`\`${i.address}\`\n\n${item.description}`);
    return item;
  }
}

export type RunNode = { kind: 'run'; run: RunInfo } | { kind: 'progress'; run: RunInfo; progress: RunProgressParams } | { kind: 'diagnostic'; run: RunInfo; diagnostic: RunDiagnostic };

const STATUS_ICON: Record<RunInfo['status'], [string, string | undefined]> = {
  running: ['sync~spin', undefined],
  succeeded: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
  cancelled: ['circle-slash', 'disabledForeground'],
};

export class RunsTree implements vscode.TreeDataProvider<RunNode> {
  private readonly emitter = new vscode.EventEmitter<RunNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private runs: RunInfo[] = [];

  set(runs: RunInfo[]): void {
    this.runs = runs;
    this.emitter.fire(undefined);
  }

  getChildren(n?: RunNode): RunNode[] {
    if (!n) return this.runs.map((run) => ({ kind: 'run', run }));
    if (n.kind !== 'run') return [];
    return [
      ...n.run.diagnostics.filter((d) => d.severity === 'error').map((diagnostic) => ({ kind: 'diagnostic' as const, run: n.run, diagnostic })),
      ...n.run.resources.map((progress) => ({ kind: 'progress' as const, run: n.run, progress })),
    ];
  }

  getTreeItem(n: RunNode): vscode.TreeItem {
    if (n.kind === 'run') {
      const { label, description } = runLabel(n.run);
      const expandable = n.run.resources.length > 0 || n.run.diagnostics.some((d) => d.severity === 'error');
      const item = new vscode.TreeItem(
        label,
        !expandable ? vscode.TreeItemCollapsibleState.None : n.run.status === 'running' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
      );
      // The id names the status and whether the run has children: VS Code keeps an item's collapse state per id,
      // so a running run that was first shown without children (not collapsible) would otherwise stay collapsed
      // when its first resource starts, instead of opening as a running run does.
      item.id = `run:${n.run.runId}:${n.run.status}:${expandable ? 'children' : 'leaf'}`;
      item.description = description;
      const [icon, color] = STATUS_ICON[n.run.status];
      item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
      const words = ['run', n.run.kind, n.run.status];
      if (n.run.kind === 'plan' && n.run.status === 'succeeded' && n.run.planFile) words.push('savedPlan');
      item.contextValue = words.join(' ');
      item.tooltip = `${n.run.directory}\n${description}`;
      item.command = { command: 'foresight.showOutput', title: 'Show Output', arguments: [n] };
      return item;
    }
    if (n.kind === 'diagnostic') {
      const item = new vscode.TreeItem(n.diagnostic.summary, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
      item.tooltip = n.diagnostic.detail;
      item.contextValue = 'runDiagnostic';
      if (n.diagnostic.file) item.command = openCommand(n.diagnostic.file, n.diagnostic.range);
      return item;
    }
    const p = n.progress;
    const item = new vscode.TreeItem(p.address, vscode.TreeItemCollapsibleState.None);
    item.id = `run:${n.run.runId}:${p.address}:${p.state}`;
    item.description = p.message;
    item.iconPath = new vscode.ThemeIcon(p.state === 'started' ? 'loading~spin' : p.state === 'done' ? 'check' : 'error');
    item.contextValue = 'runResource';
    return item;
  }
}
