// The extension in a workspace that is not trusted (the runner starts code-server with workspace trust on):
// it activates (limited support), every run command refuses with a message saying why, no run starts and
// nothing is written. The language server was told `trusted: false` at start (InitializationOptions).
/// <reference types="mocha" />

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ForesightApi } from '../../../client/extension';
import { Commands } from '../../../server/lsp/protocol';

suite('Foresight in an untrusted workspace', () => {
  let api: ForesightApi;
  let ws: string;
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<ForesightApi>('foresight.foresight');
    assert.ok(ext);
    api = await ext.activate();
    await api.ready();
    ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
  });

  test('the workspace is not trusted', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  for (const id of [Commands.plan, Commands.planDestroy, Commands.apply, Commands.refreshState, Commands.applySavedPlan, Commands.planResource, Commands.applyResource, Commands.replaceResource, Commands.refreshResource]) {
    test(`${id} is refused with the reason`, async () => {
      const r = await vscode.commands.executeCommand(id, { targets: ['terraform_data.server[0]'], autoApprove: true });
      assert.equal(r, undefined);
      assert.equal(
        api.lastError(),
        'Foresight runs are disabled because this workspace is not trusted: a plan or apply runs provider code from it. Trust the workspace to enable them.',
      );
    });
  }

  test('no run started and nothing was written', () => {
    assert.deepEqual(api.runs(), []);
    assert.equal(fs.existsSync(path.join(ws, 'terraform.tfstate')), false);
    assert.deepEqual(api.resources.instances().filter((i) => i.change), [], 'no preview plan in an untrusted workspace');
  });

  test('the status bar still shows the workspace', () => {
    assert.ok(api.statusBarText().startsWith('$(layers) default'));
  });
});
