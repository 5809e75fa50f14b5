// The extension in a workspace without Terraform files (the runner opens an empty folder): it still activates
// (the views are there, with their welcome content), and run commands say there is no configuration.
/// <reference types="mocha" />

import * as assert from 'node:assert/strict';
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

  test('Apply Saved Plan without a plan says to plan first', async () => {
    assert.equal(await vscode.commands.executeCommand(Commands.applySavedPlan), undefined);
    assert.equal(api.lastError(), 'No saved plan in this session: run Foresight: Plan first.');
  });
});
