// The extension in a real VS Code (code-server's workbench), on a copy of examples/ that the runner made and
// initialised: activation, every command, the Resources and Runs trees after plan and apply, the apply
// confirmation (declined, confirmed, never skipped for destroy), the planned diff editor, cancellation.
// Later tests start from the state the earlier ones left (they run in order, as a user would).
/// <reference types="mocha" />

import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ForesightApi } from '../../../client/extension';
import type { Confirmation } from '../../../client/model';
import type { TreeNode } from '../../../client/model';
import { Commands, type PlanRunRequest, type PlannedDiffRequest, type RunInfo } from '../../../server/lsp/protocol';

const EXTENSION_ID = 'foresight.foresight';
let api: ForesightApi;
let ws: string;

async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Skips the current test, with a notice, when the last command failed because the server lacks a request. */
function labels(nodes: TreeNode[]): string[] {
  return nodes.map((n) => `${n.label}${api.resources.getTreeItem(n).description ? ` — ${api.resources.getTreeItem(n).description}` : ''}`);
}

function stateFile(): { resources: { type: string; name: string; module?: string; instances: unknown[] }[]; serial: number } | undefined {
  const f = path.join(ws, 'terraform.tfstate');
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : undefined;
}

function instanceCount(): number {
  return (stateFile()?.resources ?? []).filter((r) => (r as { mode?: string }).mode !== 'data').reduce((n, r) => n + r.instances.length, 0);
}

const EXPECTED_ADDRESSES = [
  'module.greeting.terraform_data.message',
  'terraform_data.bucket["assets"]',
  'terraform_data.bucket["logs"]',
  'terraform_data.server[0]',
  'terraform_data.server[1]',
  'terraform_data.server[2]',
];

suite('Foresight extension', () => {
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<ForesightApi>(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is installed`);
    api = await ext.activate();
    await api.ready();
    ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
  });

  teardown(() => api.setConfirmHandler(undefined));

  test('activates and registers every command', async () => {
    const all = await vscode.commands.getCommands(true);
    for (const id of Object.values(Commands)) assert.ok(all.includes(id), `${id} is registered`);
    // The views' focus commands exist once the views are contributed.
    assert.ok(all.includes('foresight.resources.focus') && all.includes('foresight.runs.focus'));
  });

  test('opens a .tf file as the terraform language', async () => {
    const doc = await vscode.workspace.openTextDocument(path.join(ws, 'main.tf'));
    assert.equal(doc.languageId, 'terraform');
    await vscode.window.showTextDocument(doc);
  });

  test('status bar shows the workspace and the language server answers', async () => {
    await waitFor('status bar text', () => api.statusBarText().startsWith('$(layers) default') && api.statusBarText());
    await vscode.commands.executeCommand('foresight.resources.focus');
  });

  test('Show Output opens the runs channel without failing', async () => {
    await vscode.commands.executeCommand(Commands.showOutput);
  });

  let plan: PlanRunRequest.Result;

  test('Plan: the plan of the example, its run and the Resources tree', async function () {
    const r = await vscode.commands.executeCommand<PlanRunRequest.Result | undefined>(Commands.plan, {});
    assert.ok(r, `plan returned a result (${api.lastError()})`);
    plan = r;
    assert.equal(r.status, 'succeeded', JSON.stringify(r.diagnostics));
    assert.deepEqual(r.summary, { add: 6, change: 0, destroy: 0, import: 0, replace: 0 });
    assert.deepEqual(r.changes.map((c) => c.address).sort(), EXPECTED_ADDRESSES);
    assert.ok(r.changes.every((c) => c.action === 'create' && !c.inState));
    assert.ok(r.planFile, 'the plan is saved for apply');

    // Runs tree: the plan, newest first.
    const run = api.runs()[0];
    assert.equal(run.runId, r.runId);
    assert.equal(run.kind, 'plan');
    assert.equal(run.status, 'succeeded');

    // Resources tree: modules → resources → instances, each "+ create".
    const top = api.resources.getChildren();
    assert.deepEqual(labels(top), [
      'module.greeting — +1',
      'terraform_data.bucket — 2 instances: +2',
      'terraform_data.server — 3 instances: +3',
    ]);
    assert.deepEqual(labels(api.resources.getChildren(top[0])), ['terraform_data.message — + create']);
    assert.deepEqual(labels(api.resources.getChildren(top[2])), ['[0] — + create', '[1] — + create', '[2] — + create']);
    const item = api.resources.getTreeItem(api.resources.getChildren(top[2])[0]);
    assert.equal(item.contextValue, 'instance managed changed');
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'diff-added');
    // Clicking opens the resource block in main.tf.
    assert.equal(item.command?.command, 'vscode.open');
    assert.equal((item.command?.arguments?.[0] as vscode.Uri).fsPath, path.join(ws, 'main.tf'));
    assert.equal(stateFile(), undefined, 'a plan writes no state');
  });

  test('Show Planned Diff opens the diff editor: prior (null) against planned JSON', async function () {
    if (!plan) this.skip();
    const r = await vscode.commands.executeCommand<{ prior: vscode.Uri; planned: vscode.Uri; result: PlannedDiffRequest.Result } | undefined>(
      Commands.showPlannedDiff,
      { targets: ['terraform_data.server[1]'] },
    );
    assert.ok(r, api.lastError());
    assert.equal(r.result.action, 'create');
    const tab = await waitFor('the diff tab', () => {
      const t = vscode.window.tabGroups.activeTabGroup.activeTab;
      return t && t.input instanceof vscode.TabInputTextDiff ? t : undefined;
    });
    const input = tab.input as vscode.TabInputTextDiff;
    assert.equal(input.original.toString(), r.prior.toString());
    assert.equal(input.modified.toString(), r.planned.toString());
    assert.equal(tab.label, 'terraform_data.server[1]: prior ↔ planned (create)');
    const planned = (await vscode.workspace.openTextDocument(r.planned)).getText();
    const prior = (await vscode.workspace.openTextDocument(r.prior)).getText();
    assert.equal(planned, r.result.planned);
    assert.equal(prior, r.result.prior);
    assert.equal(prior.trim(), 'null');
    assert.deepEqual(JSON.parse(planned).input, { name: 'foresight-staging-server-1', tags: { environment: 'staging', project: 'foresight' } });
    assert.match(planned, /"id": "\(known after apply\)"/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('Apply, declined: the confirmation lists what is created; nothing is applied', async function () {
    let seen: Confirmation | undefined;
    api.setConfirmHandler(async (c) => {
      seen = c;
      return false;
    });
    const before = api.runs().length;
    const r = await vscode.commands.executeCommand<RunInfo | undefined>(Commands.apply);
    assert.equal(r, undefined);
    assert.ok(seen, 'the confirmation was asked');
    assert.equal(seen.title, 'Apply this plan?');
    assert.equal(seen.destructive, false);
    assert.equal(
      seen.detail,
      ['6 to add, 0 to change, 0 to destroy.', '', 'Create (6):', ...plan.changes.map((c) => `  ${c.address}`)].join('\n'),
    );
    assert.equal(api.runs().length, before + 1, 'only the plan ran');
    assert.equal(api.runs()[0].kind, 'plan');
    assert.equal(stateFile(), undefined);
  });

  test('Apply, confirmed: applies exactly the confirmed plan; state, Runs and Resources follow', async function () {
    let seen: Confirmation | undefined;
    api.setConfirmHandler(async (c) => {
      seen = c;
      return true;
    });
    const r = await vscode.commands.executeCommand<RunInfo | undefined>(Commands.apply);
    assert.ok(r, api.lastError());
    assert.equal(r.kind, 'apply');
    assert.equal(r.status, 'succeeded', JSON.stringify(r.diagnostics));
    const planRun = api.runs().find((x) => x.runId === r.planRunId);
    assert.ok(planRun && planRun.kind === 'plan', 'the apply names the plan run it applied');
    assert.deepEqual(r.summary, { add: 6, change: 0, destroy: 0, import: 0, replace: 0 });
    assert.match(r.output ?? '', /Apply complete! Resources: 6 added, 0 changed, 0 destroyed\./);
    assert.equal(instanceCount(), 6);
    assert.deepEqual(api.runs().slice(0, 2).map((x) => [x.kind, x.status]), [['apply', 'succeeded'], ['plan', 'succeeded']]);
    // Resources after apply: every instance in state, nothing to do.
    await waitFor('the Resources tree after apply', () => api.resources.instances().length === 6 && api.resources.instances().every((i) => i.state));
    const descs = api.resources.instances().map((i) => api.resources.getTreeItem(i).description);
    assert.ok(descs.every((d) => d === 'no changes · in state' || d === 'in state'), descs.join(', '));
    await waitFor('status bar +0 ~0 -0', () => api.statusBarText().endsWith('+0 ~0 -0') || (api.statusBarText() === '$(layers) default' ? undefined : false));
  });

  test('the Runs tree: the apply with its summary, status, duration and each resource\'s progress', function () {
    const runs = api.runsView.getChildren();
    const apply = runs[0];
    assert.equal(apply.kind, 'run');
    const item = api.runsView.getTreeItem(apply);
    assert.match(String(item.label), /^Apply \d\d:\d\d:\d\d$/);
    assert.match(String(item.description), /^6 added, 0 changed, 0 destroyed · succeeded · \d+(\.\d)?m?s$/);
    assert.equal(item.contextValue, 'run apply succeeded');
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'pass');
    const progress = api.runsView.getChildren(apply).map((n) => api.runsView.getTreeItem(n));
    assert.deepEqual(progress.map((p) => p.label).sort(), EXPECTED_ADDRESSES);
    for (const p of progress) assert.match(String(p.description), /^.+: Creation complete after \d+s( \[id=[0-9a-f-]+\])?$/);
    const planItem = api.runsView.getTreeItem(runs[1]);
    assert.equal(planItem.contextValue, 'run plan succeeded savedPlan', 'a finished plan offers Apply Saved Plan');
  });

  test('Show Output on a plan run re-opens it in the Resources view', async () => {
    const planNode = api.runsView.getChildren().find((n) => n.kind === 'run' && n.run.kind === 'plan')!;
    await vscode.commands.executeCommand(Commands.showOutput, planNode);
    await waitFor('the plan in the Resources view', () => api.resources.source === planNode.run.runId);
    await waitFor('its changes', () => api.resources.instances().filter((i) => i.change?.action === 'create').length === 6);
  });

  test('Plan after apply: no changes', async function () {
    const r = await vscode.commands.executeCommand<PlanRunRequest.Result | undefined>(Commands.plan, {});
    assert.ok(r);
    assert.deepEqual(r.summary, { add: 0, change: 0, destroy: 0, import: 0, replace: 0 });
    assert.ok(r.changes.every((c) => c.action === 'no-op' && c.inState));
  });

  test('Show in State opens the instance object from the state', async function () {
    const uri = await vscode.commands.executeCommand<vscode.Uri | undefined>(Commands.showInState, { targets: ['terraform_data.bucket["logs"]'] });
    assert.ok(uri, api.lastError());
    const obj = JSON.parse(api.documentText(uri)!);
    assert.equal(obj.address, 'terraform_data.bucket["logs"]');
    // terraform_data's input/output are dynamically typed: the state keeps the value with its type.
    assert.deepEqual(obj.attributes.input, { value: 'foresight-staging-logs', type: 'string' });
    assert.deepEqual(obj.attributes.output, { value: 'foresight-staging-logs', type: 'string' });
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), uri.toString());
  });

  test('Replace This Resource plans a replacement and the confirmation calls it out', async function () {
    let seen: Confirmation | undefined;
    api.setConfirmHandler(async (c) => {
      seen = c;
      return true;
    });
    const node = api.resources.instances().find((i) => i.address === 'terraform_data.server[0]');
    assert.ok(node);
    const r = await vscode.commands.executeCommand<RunInfo | undefined>(Commands.replaceResource, node);
    assert.ok(seen);
    assert.equal(seen.title, 'Apply this plan? It destroys or replaces 1 object.');
    assert.equal(seen.detail, ['1 to add, 0 to change, 1 to destroy.', '', 'Replace (destroy and create again) (1):', '  terraform_data.server[0]', '', 'Destroyed objects cannot be recovered.'].join('\n'));
    assert.ok(r && r.status === 'succeeded', api.lastError());
    assert.deepEqual(r.summary, { add: 1, change: 0, destroy: 1, import: 0, replace: 1 });
  });

  test('Plan This Resource plans only the target', async function () {
    fs.writeFileSync(path.join(ws, 'terraform.tfvars'), 'environment  = "prod"\nserver_count = 3\n');
    const r = await vscode.commands.executeCommand<PlanRunRequest.Result | undefined>(Commands.planResource, { targets: ['terraform_data.bucket["logs"]'] });
    assert.ok(r, api.lastError());
    const changed = r.changes.filter((c) => c.action !== 'no-op').map((c) => `${c.action} ${c.address}`);
    // A new input is an in-place update of terraform_data (only triggers_replace replaces it).
    assert.deepEqual(changed, ['update terraform_data.bucket["logs"]']);
    assert.equal(r.changes.find((c) => c.address === 'terraform_data.bucket["logs"]')?.changedAttributes, 2, 'input and output');
    fs.writeFileSync(path.join(ws, 'terraform.tfvars'), 'environment  = "staging"\nserver_count = 3\n');
  });

  test('Apply This Resource (tree menu): confirms and applies only the target; the other instances keep their state', async function () {
    const inputOf = (key: string) => (stateFile()!.resources.find((r) => r.name === 'bucket')!.instances as { index_key?: unknown; attributes: { input?: unknown } }[]).find((i) => i.index_key === key)!.attributes.input;
    fs.writeFileSync(path.join(ws, 'terraform.tfvars'), 'environment  = "prod"\nserver_count = 3\n');
    try {
      let seen: Confirmation | undefined;
      api.setConfirmHandler(async (c) => {
        seen = c;
        return true;
      });
      const node = api.resources.instances().find((i) => i.address === 'terraform_data.bucket["logs"]');
      assert.ok(node);
      const r = await vscode.commands.executeCommand<RunInfo | undefined>(Commands.applyResource, node);
      assert.ok(seen, 'the confirmation was asked');
      assert.match(seen.detail ?? '', /0 to add, 1 to change, 0 to destroy\./);
      assert.match(seen.detail ?? '', /terraform_data\.bucket\["logs"\]/);
      assert.doesNotMatch(seen.detail ?? '', /bucket\["assets"\]/);
      assert.ok(r && r.status === 'succeeded', api.lastError());
      assert.equal(r.kind, 'apply');
      assert.deepEqual(r.summary, { add: 0, change: 1, destroy: 0, import: 0, replace: 0 });
      assert.deepEqual(r.resources.map((x) => [x.address, x.state]), [['terraform_data.bucket["logs"]', 'done']]);
      assert.deepEqual(inputOf('logs'), { value: 'foresight-prod-logs', type: 'string' });
      assert.deepEqual(inputOf('assets'), { value: 'foresight-staging-assets', type: 'string' }, 'the other instance is untouched');
    } finally {
      fs.writeFileSync(path.join(ws, 'terraform.tfvars'), 'environment  = "staging"\nserver_count = 3\n');
    }
    // Back to the workspace's own values, approved from code (the argument's autoApprove).
    const back = await vscode.commands.executeCommand<RunInfo | undefined>(Commands.applyResource, { targets: ['terraform_data.bucket["logs"]'], autoApprove: true });
    assert.ok(back && back.status === 'succeeded', api.lastError());
    assert.deepEqual(inputOf('logs'), { value: 'foresight-staging-logs', type: 'string' });
  });

  test('Refresh This Resource (tree menu) runs a refresh-only apply of the target alone', async function () {
    const node = api.resources.instances().find((i) => i.address === 'terraform_data.server[1]');
    assert.ok(node);
    const r = await vscode.commands.executeCommand<RunInfo | undefined>(Commands.refreshResource, node);
    assert.ok(r, api.lastError());
    assert.equal(r.kind, 'refresh');
    assert.equal(r.status, 'succeeded', JSON.stringify(r.diagnostics));
    assert.deepEqual(r.resources.map((x) => [x.address, x.operation, x.state]), [['terraform_data.server[1]', 'refresh', 'done']]);
    assert.equal(instanceCount(), 6);
  });

  test('Refresh State runs a refresh-only apply', async function () {
    const r = await vscode.commands.executeCommand<RunInfo | undefined>(Commands.refreshState, {});
    assert.ok(r, api.lastError());
    assert.equal(r.kind, 'refresh');
    assert.equal(r.status, 'succeeded', JSON.stringify(r.diagnostics));
    assert.equal(instanceCount(), 6);
  });

  test('Select Workspace switches Terraform workspaces: state, status bar and plans follow', async function () {
    const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist/cli.js');
    execFileSync(process.execPath, [cli, 'workspace', 'new', '-no-color', 'staging'], { cwd: ws, stdio: 'pipe' });
    execFileSync(process.execPath, [cli, 'workspace', 'select', '-no-color', 'default'], { cwd: ws, stdio: 'pipe' });
    const r = await vscode.commands.executeCommand<string | undefined>(Commands.selectWorkspace, { workspace: 'staging' });
    assert.equal(r, 'staging', api.lastError());
    assert.equal(fs.readFileSync(path.join(ws, '.terraform/environment'), 'utf8'), 'staging');
    await waitFor('the status bar on staging', () => api.statusBarText().startsWith('$(layers) staging'));
    const p = await vscode.commands.executeCommand<PlanRunRequest.Result | undefined>(Commands.plan, {});
    assert.ok(p, api.lastError());
    assert.deepEqual(p.summary, { add: 6, change: 0, destroy: 0, import: 0, replace: 0 }, 'the new workspace has an empty state');
    assert.equal(await vscode.commands.executeCommand<string | undefined>(Commands.selectWorkspace, { workspace: 'default' }), 'default');
    await waitFor('the status bar on default', () => api.statusBarText().startsWith('$(layers) default'));
    const back = await vscode.commands.executeCommand<PlanRunRequest.Result | undefined>(Commands.plan, {});
    assert.ok(back);
    assert.equal(back.summary?.add, 0, 'default keeps its state');
  });

  test('Plan Destroy, then Apply Saved Plan: the confirmation is asked even with apply.confirm off', async function () {
    await vscode.workspace.getConfiguration('foresight').update('apply.confirm', false, vscode.ConfigurationTarget.Workspace);
    try {
      const p = await vscode.commands.executeCommand<PlanRunRequest.Result | undefined>(Commands.planDestroy, {});
      assert.ok(p, api.lastError());
      assert.deepEqual(p.summary, { add: 0, change: 0, destroy: 6, import: 0, replace: 0 });
      let seen: Confirmation | undefined;
      api.setConfirmHandler(async (c) => {
        seen = c;
        return false;
      });
      assert.equal(await vscode.commands.executeCommand(Commands.applySavedPlan, { runId: p.runId }), undefined);
      assert.ok(seen, 'a destroy is always confirmed');
      assert.equal(seen.title, 'Destroy all resources? 6 to destroy.');
      assert.equal(seen.action, 'Destroy');
      assert.equal(instanceCount(), 6, 'declined: nothing destroyed');
    } finally {
      await vscode.workspace.getConfiguration('foresight').update('apply.confirm', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('with apply.confirm off, a plan that only creates is applied without asking', async function () {
    await vscode.workspace.getConfiguration('foresight').update('apply.confirm', false, vscode.ConfigurationTarget.Workspace);
    fs.writeFileSync(path.join(ws, 'terraform.tfvars'), 'environment  = "staging"\nserver_count = 4\n');
    try {
      let asked = false;
      api.setConfirmHandler(async () => (asked = true));
      const r = await vscode.commands.executeCommand<RunInfo | undefined>(Commands.apply);
      assert.ok(r, api.lastError());
      assert.equal(asked, false);
      assert.equal(r.status, 'succeeded');
      assert.deepEqual(r.summary, { add: 1, change: 0, destroy: 0, import: 0, replace: 0 });
      assert.equal(instanceCount(), 7);
    } finally {
      await vscode.workspace.getConfiguration('foresight').update('apply.confirm', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('Restart Language Server: the server comes back and answers', async function () {
    const before = api.runs().length;
    await vscode.commands.executeCommand(Commands.restartLanguageServer);
    await api.ready();
    // The old server's runs stay in the history under ids that cannot clash with the new server's.
    assert.equal(api.runs().length, before);
    assert.ok(api.runs().every((r) => / \(server \d+\)$/.test(r.runId) && r.status !== 'running' && !r.planFile));
    const r = await vscode.commands.executeCommand<PlanRunRequest.Result | undefined>(Commands.plan, {});
    assert.ok(r, api.lastError());
    assert.equal(r.status, 'succeeded');
    assert.ok(r.changes.every((c) => c.action === 'no-op'));
  });

  test('another process holds the state lock: runs are refused with Terraform\'s message; the status bar shows the lock', async function () {
    // `foresight apply` in a terminal, creating a resource that takes 8 s, holds the lock meanwhile.
    const hold = path.join(ws, 'hold.tf');
    fs.writeFileSync(hold, 'resource "time_sleep" "hold" {\n  create_duration = "8s"\n}\n');
    const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist/cli.js');
    const child = spawn(process.execPath, [cli, 'apply', '-auto-approve', '-input=false', '-no-color'], { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((res) => child.once('exit', res));
    try {
      await waitFor('the lock info file', () => fs.existsSync(path.join(ws, '.terraform.tfstate.lock.info')), 20000);
      const r = await vscode.commands.executeCommand<PlanRunRequest.Result | undefined>(Commands.plan, {});
      assert.equal(r, undefined);
      assert.match(api.lastError() ?? '', /Error acquiring the state lock/);
      await waitFor('the lock icon', () => api.statusBarText().includes('$(lock)'), 10000);
      // The tooltip names the holder from its lock info: the terminal apply, by this machine's user.
      assert.match(api.statusBarTooltip(), /Locked by \S+@\S+ for OperationTypeApply since \d{4}-\d\d-\d\dT[\d:.]+Z \(lock ID [0-9a-f-]{36}\)/);
      assert.equal(await exited, 0, `the other apply finished:\n${out}`);
      await waitFor('the lock icon to go', () => !api.statusBarText().includes('$(lock)'), 15000);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(hold, { force: true });
    }
  });

  test('Cancel Run stops a running apply', async function () {
    // A resource that takes 30 s to create (the built-in time provider), so the run is still going when cancelled.
    const slow = path.join(ws, 'slow.tf');
    fs.writeFileSync(slow, 'resource "time_sleep" "wait" {\n  create_duration = "30s"\n}\n');
    try {
      execFileSync(process.execPath, [path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist/cli.js'), 'init', '-input=false', '-no-color'], { cwd: ws, stdio: 'pipe' });
      const started = Date.now();
      const applying = vscode.commands.executeCommand<RunInfo | undefined>(Commands.apply, { autoApprove: true });
      const run = await waitFor('the apply run to start creating', () =>
        api.runs().find((x) => x.kind === 'apply' && x.status === 'running' && x.resources.some((p) => p.address === 'time_sleep.wait' && p.state === 'started')),
      60000).catch(async (e) => {
        const r = await applying;
        throw e;
      });
      const cancelled = await vscode.commands.executeCommand<string | undefined>(Commands.cancelRun);
      assert.equal(cancelled, run.runId, `${api.lastError()} ${JSON.stringify(api.runs().map((x) => [x.runId, x.kind, x.status, x.diagnostics.map((d) => d.summary)]))}`);
      // A graceful stop lets what is in flight finish (the time provider's create would run to its end, as after
      // Terraform's first Ctrl-C); if the run is still going, Cancel Run asked again within 10 s stops it at once,
      // as a second Ctrl-C does.
      await new Promise((res) => setTimeout(res, 1000));
      const after = api.runs().find((x) => x.runId === run.runId)?.status;
      console.log(`      after graceful cancel: ${after} at ${Date.now() - started} ms`);
      if (after === 'running') assert.equal(await vscode.commands.executeCommand<string | undefined>(Commands.cancelRun), run.runId);
      const r = await applying;
      console.log(`      after forced cancel: ${r?.status} at ${Date.now() - started} ms`);
      assert.ok(r);
      assert.equal(r.status, 'cancelled');
      assert.ok(Date.now() - started < 25000, 'stopped before the 30 s create finished');
      assert.equal(api.runs().find((x) => x.runId === run.runId)?.status, 'cancelled');
    } finally {
      fs.rmSync(slow, { force: true });
    }
  });
});
