// The extension in a workspace without Terraform files (the runner opens an empty folder): it still activates
// (the views are there, with their welcome content), and run commands say there is no configuration.
/// <reference types="mocha" />

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ForesightApi } from '../../../client/extension';
import { Commands } from '../../../server/lsp/protocol';

suite('Foresight in a workspace without .tf files', () => {
  let api: ForesightApi;
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<ForesightApi>('foresight.foresight');
    assert.ok(ext);
    api = await ext.activate();
    await api.ready();
  });

  test('the views are contributed and empty', async () => {
    await vscode.commands.executeCommand('foresight.resources.focus');
    assert.deepEqual(api.resources.getChildren(), []);
    assert.deepEqual(api.runsView.getChildren(), []);
  });

  for (const id of [Commands.plan, Commands.apply, Commands.planDestroy, Commands.refreshState]) {
    test(`${id} says there is no configuration`, async () => {
      assert.equal(await vscode.commands.executeCommand(id), undefined);
      assert.equal(api.lastError(), 'No Terraform configuration (.tf files) in this workspace.');
      assert.deepEqual(api.runs(), []);
    });
  }

  test('Open Example Workspace (the welcome view\'s link) copies the shipped example into the extension\'s storage, once', async () => {
    const dir = await vscode.commands.executeCommand<string | undefined>(Commands.openExample, { open: false });
    assert.ok(dir, api.lastError());
    const ext = vscode.extensions.getExtension('foresight.foresight')!;
    for (const f of ['main.tf', 'variables.tf', 'outputs.tf', 'terraform.tfvars', 'modules/greeting/main.tf'])
      assert.equal(fs.readFileSync(path.join(dir, f), 'utf8'), fs.readFileSync(path.join(ext.extensionPath, 'examples', f), 'utf8'), f);
    assert.ok(!dir.startsWith(ext.extensionPath), 'runs in the example never write into the installed extension');
    // A second use keeps the user's copy (and its state) as it is.
    fs.writeFileSync(path.join(dir, 'terraform.tfstate'), '{}');
    assert.equal(await vscode.commands.executeCommand<string | undefined>(Commands.openExample, { open: false }), dir);
    assert.equal(fs.readFileSync(path.join(dir, 'terraform.tfstate'), 'utf8'), '{}');
  });

  test('Apply Saved Plan without a plan says to plan first', async () => {
    assert.equal(await vscode.commands.executeCommand(Commands.applySavedPlan), undefined);
    assert.equal(api.lastError(), 'No saved plan in this session: run Foresight: Plan first.');
  });
});
