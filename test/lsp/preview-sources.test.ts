// The preview, continued: instances removed from the configuration, moved and imported ones shown at the nearest
// source; module call lenses; plan-time errors as preview diagnostics; refresh on request (drift); and
// incremental re-planning (only instances whose inputs changed reach PlanResourceChange).

import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { PlanRunRequest, PreviewResult, RunInfo } from '../../server/lsp/protocol';
import { PreviewClient, workspace } from './preview-client';
import { main } from '../../server/cli/main';
import { initParser } from '../../server/syntax/treesitter';

async function applyAll(c: PreviewClient, dir: string): Promise<void> {
  const plan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: dir });
  assert.equal(plan.status, 'succeeded', plan.output);
  const applied = await c.request<RunInfo>('foresight/apply', { planRunId: plan.runId });
  assert.equal(applied.status, 'succeeded', applied.output);
}

const lensTitles = async (c: PreviewClient, uri: string) => (await c.lenses(uri)).filter((l) => !/: (Plan this|Apply this|Show diff)$/.test(l));

test('preview: removed, moved and imported instances at the nearest source; module calls summarised', async () => {
  const ws = workspace({
    'main.tf': `resource "terraform_data" "old" {
  input = "o"
}

resource "terraform_data" "gone" {
  input = "g"
}

module "m" {
  source = "./mod"
}
`,
  });
  mkdirSync(join(ws.dir, 'mod'));
  writeFileSync(join(ws.dir, 'mod', 'main.tf'), 'resource "terraform_data" "x" {\n  input = "x"\n}\n');
  const c = new PreviewClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    await initParser();
    const code = await main(['init', '-no-color'], { cwd: ws.dir, env: process.env, stdin: async () => '', stdout: () => undefined, stderr: () => undefined });
    assert.equal(code, 0);
    await applyAll(c, ws.dir);
    const id = (name: string) =>
      (JSON.parse(readFileSync(join(ws.dir, 'terraform.tfstate'), 'utf8')).resources as { name: string; instances: { attributes: { id: string } }[] }[]).find((r) => r.name === name)!.instances[0].attributes.id;
    const goneId = id('gone');
    // Rename old → new with a moved block; drop "gone" (a removed block would keep it); import a new one.
    const text = `resource "terraform_data" "new" {
  input = "o"
}

moved {
  from = terraform_data.old
  to   = terraform_data.new
}

module "m" {
  source = "./mod"
}
`;
    const uri = ws.uri('main.tf');
    await c.open(uri, text);
    const p = await c.nextPreview(ws.dir);
    assert.deepEqual(
      p.changes.map((x) => [x.address, x.action, x.range?.start.line, x.movedFrom ?? '', x.actionReason ?? '']),
      [
        ['terraform_data.gone', 'delete', 0, '', 'delete_because_no_resource_config'],
        ['terraform_data.new', 'no-op', 0, 'terraform_data.old', ''],
        ['module.m.terraform_data.x', 'no-op', 0, '', ''],
      ],
    );
    assert.equal(p.changes[2].file, join(ws.dir, 'mod', 'main.tf'));
    assert.deepEqual(await lensTitles(c, uri), [
      '0: no changes (moved from terraform_data.old)',
      '9: no changes',
      '4: moved: terraform_data.old → terraform_data.new',
      '0: - destroy terraform_data.gone (its resource block is no longer in the configuration)',
    ]);
    assert.match((await c.hover(uri, 0, 0))!, /\*\*terraform_data\.gone\*\*: - destroy/);
    assert.deepEqual(await lensTitles(c, ws.uri('mod/main.tf')), ['0: no changes']);

    // An import block for an object not yet managed; the module's instance changes.
    const v = p.version;
    const text2 = text.replace('module "m"', `import {\n  to = terraform_data.imp\n  id = "${goneId}"\n}\n\nresource "terraform_data" "imp" {\n}\n\nmodule "m"`);
    await c.change(uri, 2, [{ text: text2 }]);
    await c.open(ws.uri('mod/main.tf'), 'resource "terraform_data" "x" {\n  input = "y"\n}\n');
    const p2 = await c.waitFor('the preview of both edits', () => c.previews.find((x) => x.directory === ws.dir && x.version > v && x.summary.change === 1), 20_000);
    assert.deepEqual(
      p2.changes.filter((x) => x.importing || x.address.startsWith('module')).map((x) => [x.address, x.action, x.range?.start.line, !!x.importing]),
      [
        ['terraform_data.imp', 'no-op', 9, true],
        ['module.m.terraform_data.x', 'update', 0, false],
      ],
    );
    assert.deepEqual(await lensTitles(c, uri), [
      '0: no changes (moved from terraform_data.old)',
      '14: import',
      '17: 0 to add, 1 to change, 0 to destroy',
      '4: moved: terraform_data.old → terraform_data.new',
      `9: import terraform_data.imp [id=${goneId}]`,
      '0: - destroy terraform_data.gone (its resource block is no longer in the configuration)',
    ]);
    assert.deepEqual(await c.hints(ws.uri('mod/main.tf')), ['1:13 "x" → "y"']);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('preview: plan-time errors are preview diagnostics; refresh on request shows drift', async () => {
  const text = `variable "n" {
  default = 1
}

resource "terraform_data" "a" {
  input = var.n
  lifecycle {
    precondition {
      condition     = var.n < 3
      error_message = "n is too big."
    }
  }
}
`;
  const ws = workspace({ 'main.tf': text });
  const c = new PreviewClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    const uri = ws.uri('main.tf');
    await c.open(uri, text);
    const p1 = await c.nextPreview(ws.dir);
    assert.equal(p1.complete, true);
    await c.change(uri, 2, [{ range: { start: { line: 1, character: 12 }, end: { line: 1, character: 13 } }, text: '5' }]);
    const p2 = await c.nextPreview(ws.dir, p1.version);
    assert.equal(p2.complete, false);
    assert.deepEqual(
      p2.diagnostics.map((d) => [d.severity, d.summary, d.detail, d.range?.start.line]),
      [['error', 'Resource precondition failed', 'n is too big.', 8]],
    );
    const pushed = await c.waitFor('the preview diagnostic', () => c.latest(uri)?.diagnostics.find((d) => d.source === 'foresight preview'));
    assert.deepEqual([pushed.range.start, pushed.message], [{ line: 8, character: 22 }, 'Resource precondition failed\n\nn is too big.\n\nvar.n is 5']);

    // Back to a valid value, apply, then change the state behind the server's back: the preview (refresh off)
    // does not notice; an explicit refresh does, and the drift shows.
    await c.change(uri, 3, [{ range: { start: { line: 1, character: 12 }, end: { line: 1, character: 13 } }, text: '1' }]);
    await c.waitFor('the error to go', () => !c.latest(uri)?.diagnostics.some((d) => d.source === 'foresight preview'));
    await applyAll(c, ws.dir);
    const statePath = join(ws.dir, 'terraform.tfstate');
    const st = JSON.parse(readFileSync(statePath, 'utf8'));
    st.resources[0].instances[0].attributes.input = { value: 7, type: 'number' };
    st.resources[0].instances[0].attributes.output = { value: 7, type: 'number' };
    st.serial++;
    writeFileSync(statePath, JSON.stringify(st, null, 2));
    const n = c.previews.length;
    await c.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: `file://${statePath}`, type: 2 }] });
    const p3 = await c.waitFor('a preview from the edited state', () => c.previews.slice(n).find((x) => x.summary.change === 1), 20_000);
    assert.deepEqual(p3.changes.map((x) => [x.address, x.action, !!x.drifted]), [['terraform_data.a', 'update', false]]);
    assert.deepEqual(await c.hints(uri), ['5:15 7 → 1']);
    const r = await c.request<RunInfo>('foresight/refresh', { directory: ws.dir });
    assert.equal(r.status, 'succeeded', r.output);
    assert.match(r.output!, /terraform_data\.a: Refreshing state\.\.\. \[id=[^\]]+\]\n/);
    assert.match(r.output!, /Apply complete! Resources: 0 added, 0 changed, 0 destroyed\.\n/);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('preview: an edit re-plans only the instances whose inputs changed', async () => {
  const N = 200;
  let text = '';
  for (let i = 0; i < N; i++) text += `resource "terraform_data" "r${i}" {\n  input = "v${i}"\n}\n\n`;
  const ws = workspace({ 'main.tf': text });
  const c = new PreviewClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    const uri = ws.uri('main.tf');
    await c.open(uri, text);
    const p1 = await c.nextPreview(ws.dir);
    assert.equal(p1.summary.add, N);
    const stats = () =>
      c.logs
        .map((l) => /^preview of .*: (\d+) ms, (\d+) PlanResourceChange calls, (\d+) from cache$/.exec(l))
        .filter((m): m is RegExpExecArray => !!m)
        .map((m) => [Number(m[2]), Number(m[3])]);
    await c.waitFor('the first preview log', () => stats().length >= 1);
    assert.deepEqual(stats()[0], [N, 0]);
    // Edit one attribute: one PlanResourceChange call, and no other (the kept plan is patched: only the edited
    // resource is planned again, server/lsp/preview/patch.ts).
    await c.change(uri, 2, [{ range: { start: { line: 1, character: 10 }, end: { line: 1, character: 14 } }, text: '"edited"' }]);
    const p2 = await c.nextPreview(ws.dir, p1.version);
    await c.waitFor('the second preview log', () => stats().length >= 2);
    assert.deepEqual(stats()[1], [1, 0]);
    // The first notification brings the whole list; the next one is edits of it: one run of the first list's entries,
    // since the edited resource is still created at the same place (an entry holds no values). Applied, they give the
    // list a preview request answers.
    assert.equal(c.notifications[0].changes?.length, N);
    const n2 = c.notifications.find((n) => n.directory === ws.dir && n.version === p2.version)!;
    assert.equal(n2.changes, undefined);
    assert.deepEqual(n2.changesDelta?.base, p1.version);
    assert.deepEqual(
      n2.changesDelta?.ops.map((o) => (Array.isArray(o) ? o : o.address)),
      [[0, N]],
    );
    const full = await c.request<PreviewResult>('foresight/preview', { directory: ws.dir });
    assert.equal(full.version, p2.version);
    assert.deepEqual(p2.changes, full.changes);
    assert.deepEqual(await c.hints(uri), []);
    // A new block is not a patch: the plan is made again, and every resource of the edited file (its blocks are new
    // objects) asks PlanResourceChange again, answered from the cache but for the new one.
    const added = `resource "terraform_data" "r${N}" {\n  input = "v${N}"\n}\n`;
    await c.change(uri, 3, [{ range: { start: { line: 4 * N, character: 0 }, end: { line: 4 * N, character: 0 } }, text: added }]);
    const p3 = await c.nextPreview(ws.dir, p2.version);
    assert.equal(p3.summary.add, N + 1);
    await c.waitFor('the third preview log', () => stats().length >= 3);
    assert.deepEqual(stats()[2], [1, N]);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('preview: output hover; a plan run flags drift found by its refresh', async () => {
  const text = `resource "local_file" "f" {
  filename = "\${path.module}/out.txt"
  content  = "hello"
}

output "content" {
  value = local_file.f.content
}
`;
  const ws = workspace({ 'main.tf': text });
  const c = new PreviewClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    const uri = ws.uri('main.tf');
    await c.open(uri, text);
    await c.nextPreview(ws.dir);
    assert.equal(await c.hover(uri, 5, 3), '**output.content**: + create\n\nprior: `null`  \nplanned: `"hello"`');
    await applyAll(c, ws.dir);
    assert.equal(readFileSync(join(ws.dir, 'out.txt'), 'utf8'), 'hello');
    rmSync(join(ws.dir, 'out.txt'));
    const plan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    assert.deepEqual(plan.changes.map((x) => [x.address, x.action, !!x.drifted, x.inState]), [['local_file.f', 'create', true, false]]);
    assert.match(plan.output!, /# local_file\.f has been deleted/);
    // The previews show what the run's refresh found; the state itself changes only with an explicit refresh.
    const n = c.previews.length;
    const pv = await c.waitFor('a preview with the drift', () => c.previews.slice(n).find((x) => x.changes.some((ch) => ch.drifted)), 20_000);
    assert.deepEqual(pv.changes.map((x) => [x.address, x.action, !!x.drifted]), [['local_file.f', 'no-op', true]]);
    assert.deepEqual(await lensTitles(c, uri), ['0: no changes (deleted outside of Terraform)']);
    const m = c.previews.length;
    const r = await c.request<RunInfo>('foresight/refresh', { directory: ws.dir });
    assert.equal(r.status, 'succeeded', r.output);
    await c.waitFor('a preview from the refreshed state', () => c.previews.slice(m).find((x) => x.summary.add === 1), 20_000);
    assert.deepEqual(await lensTitles(c, uri), ['0: + create (deleted outside of Terraform)']);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('preview: inlay hints inside a nested block', async () => {
  const text = `resource "tls_private_key" "k" {
  algorithm = "ED25519"
}

resource "tls_cert_request" "r" {
  private_key_pem = tls_private_key.k.private_key_pem
  subject {
    common_name = "a"
  }
}
`;
  const ws = workspace({ 'main.tf': text });
  const c = new PreviewClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    await applyAll(c, ws.dir);
    const uri = ws.uri('main.tf');
    await c.open(uri, text.replace('common_name = "a"', 'common_name = "b"'));
    const p = await c.nextPreview(ws.dir);
    assert.deepEqual(p.changes.map((x) => [x.address, x.action, (x.replacePaths ?? []).join(',')]), [
      ['tls_cert_request.r', 'replace', 'subject,subject[0].common_name'],
      ['tls_private_key.k', 'no-op', ''],
    ]);
    assert.deepEqual(await c.hints(uri), ['7:21 "a" → "b" # forces replacement']);
  } finally {
    await c.stop();
    ws.done();
  }
});
