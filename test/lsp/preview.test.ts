// The preview plan over a real stdio connection to dist/server.js: code lens titles, inlay hint labels and
// hover text after edits, exactly; the preview never applies and never refreshes on its own; an untrusted
// workspace gets no preview and no runs.

import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CodeLens } from 'vscode-languageserver-protocol';
import { PreviewClient, workspace } from './preview-client';
import type { RunInfo, PlanRunRequest } from '../../server/lsp/protocol';

const MAIN = `resource "terraform_data" "a" {
  input = "one"
}

resource "terraform_data" "b" {
  count = 2
  input = terraform_data.a.output
}

variable "name" {
  default = "n1"
}

resource "terraform_data" "c" {
  input            = var.name
  triggers_replace = var.name
}
`;

test('preview: code lens, inlay hints and hover follow edits; the preview never applies', async () => {
  const ws = workspace({ 'main.tf': MAIN });
  const c = new PreviewClient();
  try {
    const init = await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    assert.equal(init.capabilities.hoverProvider, true);
    assert.deepEqual(init.capabilities.codeLensProvider, { resolveProvider: false });
    const uri = ws.uri('main.tf');
    await c.open(uri, MAIN);
    const p1 = await c.nextPreview(ws.dir);
    assert.equal(p1.complete, true);
    assert.deepEqual(p1.summary, { add: 4, change: 0, destroy: 0, import: 0, replace: 0 });
    assert.deepEqual(
      p1.changes.map((x) => [x.address, x.action, x.range?.start.line]),
      [
        ['terraform_data.a', 'create', 0],
        ['terraform_data.b[0]', 'create', 4],
        ['terraform_data.b[1]', 'create', 4],
        ['terraform_data.c', 'create', 13],
      ],
    );
    assert.deepEqual(await c.lenses(uri), [
      '0: + create',
      '0: Plan this',
      '0: Apply this',
      '0: Show diff',
      '4: + create ×2',
      '4: Plan this',
      '4: Apply this',
      '4: Show diff',
      '13: + create',
      '13: Plan this',
      '13: Apply this',
      '13: Show diff',
    ]);
    const ls = await c.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    assert.deepEqual(ls[1].command, { title: 'Plan this', command: 'foresight.planResource', arguments: [{ targets: ['terraform_data.a'], directory: ws.dir }] });
    assert.deepEqual(ls[3].command, { title: 'Show diff', command: 'foresight.showPlannedDiff', arguments: [{ targets: ['terraform_data.a'], directory: ws.dir }] });
    // b's input refers to a's output, unknown until a is created.
    assert.deepEqual(await c.hints(uri), ['6:33 (known after apply)']);
    assert.equal(existsSync(join(ws.dir, 'terraform.tfstate')), false, 'the preview never applies');

    // Apply through a run, then the preview starts from the new state: no changes.
    const plan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    assert.equal(plan.status, 'succeeded');
    const applied = await c.request<RunInfo>('foresight/apply', { planRunId: plan.runId });
    assert.equal(applied.status, 'succeeded');
    const before = c.previews.length;
    const p2 = await c.waitFor('a preview after the apply', () => c.previews.slice(before).find((p) => p.directory === ws.dir), 20_000);
    assert.deepEqual(p2.summary, { add: 0, change: 0, destroy: 0, import: 0, replace: 0 });
    // The state the preview read is another one (a client asks for it again), and stays the same over edits.
    assert.equal(typeof p1.stateStamp, 'string');
    assert.notEqual(p2.stateStamp, p1.stateStamp);
    assert.deepEqual((await c.lenses(uri)).filter((l) => !/this|diff/.test(l)), ['0: no changes', '4: no changes ×2', '13: no changes']);

    // Edit a's input and the variable default: a is updated in place, c is replaced (triggers_replace).
    const v = p2.version;
    await c.change(uri, 2, [
      { range: { start: { line: 1, character: 10 }, end: { line: 1, character: 15 } }, text: '"two"' },
      { range: { start: { line: 10, character: 12 }, end: { line: 10, character: 16 } }, text: '"n2"' },
    ]);
    const p3 = await c.nextPreview(ws.dir, v);
    assert.equal(p3.stateStamp, p2.stateStamp);
    assert.deepEqual(
      p3.changes.map((x) => [x.address, x.action, x.actionReason ?? '', (x.replacePaths ?? []).join(',')]),
      [
        ['terraform_data.a', 'update', '', ''],
        ['terraform_data.b[0]', 'update', '', ''],
        ['terraform_data.b[1]', 'update', '', ''],
        ['terraform_data.c', 'replace', 'replace_because_cannot_update', 'triggers_replace'],
      ],
    );
    assert.deepEqual((await c.lenses(uri)).filter((l) => !/this|diff/.test(l)), ['0: ~ update in-place', '4: ~ update in-place ×2', '13: -/+ replace']);
    assert.deepEqual(await c.hints(uri), [
      '1:15 "one" → "two"',
      '6:33 "one" → (known after apply)',
      '14:29 "n1" → "n2"',
      '15:29 "n1" → "n2" # forces replacement',
    ]);
    // Hover on the attribute: prior and planned values.
    assert.equal(await c.hover(uri, 1, 3), '**input**\n\nprior: `"one"`  \nplanned: `"two"`');
    // Hover on the block header: the rendered plan block, as `foresight plan` prints it, and the reason.
    assert.equal(
      await c.hover(uri, 13, 3),
      [
        '**terraform_data.c**: -/+ replace',
        'Reason: an attribute that cannot be updated in-place changed: triggers_replace (`replace_because_cannot_update`)',
        '```\n  # terraform_data.c must be replaced\n-/+ resource "terraform_data" "c" {\n      ~ id               = "' +
          JSON.parse(readFileSync(join(ws.dir, 'terraform.tfstate'), 'utf8')).resources.find((r: { name: string }) => r.name === 'c').instances[0].attributes.id +
          '" -> (known after apply)\n      ~ input            = "n1" -> "n2"\n      ~ output           = "n1" -> (known after apply)\n      ~ triggers_replace = "n1" -> "n2"\n    }\n```',
      ].join('\n\n'),
    );
    // Hover on a reference: its planned value and type.
    assert.equal(await c.hover(uri, 14, 26), '```hcl\n"n2"\n```\n\nType: `string`');
    assert.equal(await c.hover(uri, 6, 12), '```hcl\n(known after apply)\n```\n\nType: `string`');
  } finally {
    await c.stop();
    ws.done();
  }
});

test('preview: inlay hints follow the inlayHints settings; sensitive values are hidden', async () => {
  const text = `variable "secret" {
  default   = "s1"
  sensitive = true
}

resource "terraform_data" "a" {
  input            = var.secret
  triggers_replace = "x"
}
`;
  const ws = workspace({ 'main.tf': text });
  const c = new PreviewClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10, inlayHints: { plannedValues: true, knownAfterApply: false, forcesReplacement: true } });
    const uri = ws.uri('main.tf');
    const plan = await (async () => {
      await c.open(uri, text);
      await c.nextPreview(ws.dir);
      return c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    })();
    await c.request<RunInfo>('foresight/apply', { planRunId: plan.runId });
    const v = c.previews[c.previews.length - 1].version;
    await c.change(uri, 2, [
      { range: { start: { line: 1, character: 14 }, end: { line: 1, character: 18 } }, text: '"s2"' },
      { range: { start: { line: 7, character: 21 }, end: { line: 7, character: 24 } }, text: '"y"' },
    ]);
    await c.waitFor('the preview of the edit', () => c.previews.find((p) => p.directory === ws.dir && p.version > v && p.summary.replace === 1), 20_000);
    assert.deepEqual(await c.hints(uri), ['6:31 (sensitive value) → (sensitive value)', '7:24 "x" → "y" # forces replacement']);
    assert.equal(await c.hover(uri, 6, 24), '```hcl\n(sensitive value)\n```\n\nType: `string`');
  } finally {
    await c.stop();
    ws.done();
  }
});

test('preview: an untrusted workspace gets no preview and no runs', async () => {
  const ws = workspace({ 'main.tf': MAIN });
  const c = new PreviewClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10, trusted: false });
    const uri = ws.uri('main.tf');
    await c.open(uri, MAIN);
    await c.waitFor('static diagnostics', () => c.statuses.length > 0);
    const msg =
      'This workspace is not trusted: Foresight runs no provider code and starts no plan, apply or refresh until you trust the workspace.';
    await assert.rejects(c.request('foresight/plan', { directory: ws.dir }), (e: Error & { code: number }) => e.code === -32803 && e.message === msg);
    await assert.rejects(c.request('foresight/preview', { directory: ws.dir }), (e: Error & { code: number }) => e.code === -32803 && e.message === msg);
    assert.deepEqual(await c.lenses(uri), []);
    assert.equal(c.previews.length, 0);
    // Reading the state runs no provider code: allowed.
    assert.deepEqual(await c.request('foresight/workspaces', { directory: ws.dir }), { current: 'default', workspaces: ['default'] });
    // Trusting the workspace starts the preview.
    await c.conn.sendNotification('foresight/trust', { trusted: true });
    const p = await c.nextPreview(ws.dir);
    assert.equal(p.summary.add, 4);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('preview: variables from the settings, terraform.tfvars and *.auto.tfvars, in the CLI precedence', async () => {
  const text = `variable "a" {}
variable "b" {}
variable "c" {}

resource "terraform_data" "x" {
  input = [var.a, var.b, var.c, local.l]
}

locals {
  l = upper(var.c)
}
`;
  const ws = workspace({ 'main.tf': text, 'terraform.tfvars': 'a = "tfvars"\nb = "tfvars"\n', 'x.auto.tfvars': 'b = "auto"\n' });
  const c = new PreviewClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10, vars: { c: 'settings' } });
    const uri = ws.uri('main.tf');
    await c.open(uri, text);
    const p = await c.nextPreview(ws.dir);
    assert.equal(p.complete, true);
    assert.equal(await c.hover(uri, 5, 12), '```hcl\n"tfvars"\n```\n\nType: `string`');
    assert.equal(await c.hover(uri, 5, 19), '```hcl\n"auto"\n```\n\nType: `string`');
    assert.equal(await c.hover(uri, 5, 26), '```hcl\n"settings"\n```\n\nType: `string`');
    assert.equal(await c.hover(uri, 5, 33), '```hcl\n"SETTINGS"\n```\n\nType: `string`');
  } finally {
    await c.stop();
    ws.done();
  }
});
