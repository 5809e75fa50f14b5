// Runs on request over a real stdio connection to dist/server.js: plan and apply a saved plan with
// per-resource progress and the resulting state file; stale plans refused; cancellation; the state lock shared
// with the command line (a CLI run excludes a server run and the other way round); state, runs history,
// workspaces and planned diffs.

import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { PlannedDiffRequest, PlanRunRequest, RunInfo, RunProgressParams, StateRequest, WorkspacesRequest } from '../../server/lsp/protocol';
import { PreviewClient, workspace } from './preview-client';

class RunsClient extends PreviewClient {
  readonly progress: RunProgressParams[] = [];
  readonly statusEvents: RunInfo[] = [];
  constructor() {
    super();
    this.conn.onNotification('foresight/runProgress', (p: RunProgressParams) => {
      this.progress.push(p);
      (this as unknown as { notify(): void }).notify();
    });
    this.conn.onNotification('foresight/runStatus', (p: RunInfo) => {
      this.statusEvents.push(p);
      (this as unknown as { notify(): void }).notify();
    });
  }
}

const CLI = join(process.cwd(), 'dist', 'cli.js');

/** Waits for a condition that no server message announces (a file another process writes). */
async function poll(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
const ID = /\[id=[^\]]+\]/g;

function cli(dir: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [CLI, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (b: Buffer) => (out += b));
    p.stderr.on('data', (b: Buffer) => (out += b));
    p.on('exit', (code) => resolve({ code: code ?? -1, out }));
  });
}

function stateFile(dir: string): { serial: number; resources: { type: string; name: string; instances: { index_key?: unknown; attributes: Record<string, unknown> }[] }[] } {
  return JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8'));
}

const TWO = `resource "terraform_data" "a" {
  input = "one"
}

resource "terraform_data" "b" {
  input = terraform_data.a.output
}
`;

test('runs: plan, progress per resource, apply the saved plan, the state file; history; diff; state', async () => {
  const ws = workspace({ 'main.tf': TWO });
  const c = new RunsClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    const plan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    assert.equal(plan.status, 'succeeded');
    assert.equal(plan.kind, 'plan');
    assert.deepEqual(plan.summary, { add: 2, change: 0, destroy: 0, import: 0, replace: 0 });
    assert.deepEqual(
      plan.changes.map((x) => [x.address, x.action, x.file, x.range?.start.line]),
      [
        ['terraform_data.a', 'create', join(ws.dir, 'main.tf'), 0],
        ['terraform_data.b', 'create', join(ws.dir, 'main.tf'), 4],
      ],
    );
    assert.match(plan.output!, /Plan: 2 to add, 0 to change, 0 to destroy\.\n/);
    assert.match(plan.output!, /Saved the plan to: .*run-1\.tfplan/);
    assert.ok(plan.planFile?.endsWith('run-1.tfplan'));
    // The diff of one planned instance, from the run's plan.
    const diff = await c.request<PlannedDiffRequest.Result>('foresight/plannedDiff', { directory: ws.dir, address: 'terraform_data.b', runId: plan.runId });
    assert.deepEqual(diff, {
      address: 'terraform_data.b',
      action: 'create',
      prior: 'null',
      planned: '{\n  "id": "(known after apply)",\n  "input": "(known after apply)",\n  "output": "(known after apply)",\n  "triggers_replace": null\n}',
      rendered:
        '  # terraform_data.b will be created\n  + resource "terraform_data" "b" {\n      + id     = (known after apply)\n      + input  = (known after apply)\n      + output = (known after apply)\n    }',
    });

    const nProgress = c.progress.length;
    const applied = await c.request<RunInfo>('foresight/apply', { planRunId: plan.runId });
    assert.equal(applied.status, 'succeeded');
    assert.equal(applied.planRunId, plan.runId);
    assert.match(applied.output!, /Apply complete! Resources: 2 added, 0 changed, 0 destroyed\.\n/);
    const events = c.progress.slice(nProgress).map((p) => [p.runId, p.address, p.operation, p.state, p.message.replace(ID, '[id=…]')]);
    assert.deepEqual(events, [
      [applied.runId, 'terraform_data.a', 'create', 'started', 'terraform_data.a: Creating...'],
      [applied.runId, 'terraform_data.a', 'create', 'done', 'terraform_data.a: Creation complete after 0s [id=…]'],
      [applied.runId, 'terraform_data.b', 'create', 'started', 'terraform_data.b: Creating...'],
      [applied.runId, 'terraform_data.b', 'create', 'done', 'terraform_data.b: Creation complete after 0s [id=…]'],
    ]);
    assert.deepEqual(
      c.statusEvents.filter((s) => s.runId === applied.runId).map((s) => s.status),
      ['running', 'succeeded'],
    );
    const st = stateFile(ws.dir);
    assert.deepEqual(
      st.resources.map((r) => [r.type, r.name, r.instances[0].attributes.input]),
      [
        ['terraform_data', 'a', { value: 'one', type: 'string' }],
        ['terraform_data', 'b', { value: 'one', type: 'string' }],
      ],
    );
    // The state as the server reports it.
    const state = await c.request<StateRequest.Result>('foresight/state', { directory: ws.dir });
    assert.equal(state.workspace, 'default');
    assert.equal(state.serial, st.serial);
    assert.equal(state.lock, undefined);
    assert.deepEqual(
      state.resources.map((r) => [r.address, r.provider, r.attributes.input]),
      [
        ['terraform_data.a', 'provider["terraform.io/builtin/terraform"]', { value: 'one', type: 'string' }],
        ['terraform_data.b', 'provider["terraform.io/builtin/terraform"]', { value: 'one', type: 'string' }],
      ],
    );
    // History, newest first.
    const runs = await c.request<RunInfo[]>('foresight/runs', {});
    assert.deepEqual(
      runs.map((r) => [r.runId, r.kind, r.status]),
      [
        ['run-2', 'apply', 'succeeded'],
        ['run-1', 'plan', 'succeeded'],
      ],
    );
    // Workspaces: list, select a missing one (refused).
    assert.deepEqual(await c.request<WorkspacesRequest.Result>('foresight/workspaces', { directory: ws.dir }), { current: 'default', workspaces: ['default'] });
    await assert.rejects(c.request('foresight/workspaces', { directory: ws.dir, select: 'nope' }), (e: Error & { code: number }) => e.code === -32803 && e.message === 'Workspace "nope" doesn\'t exist.');
    // Select a workspace made from a terminal: the server's next plan works in it (its state is empty).
    mkdirSync(join(ws.dir, 'terraform.tfstate.d', 'dev'), { recursive: true });
    assert.deepEqual(await c.request<WorkspacesRequest.Result>('foresight/workspaces', { directory: ws.dir, select: 'dev' }), { current: 'dev', workspaces: ['default', 'dev'] });
    assert.equal(readFileSync(join(ws.dir, '.terraform', 'environment'), 'utf8'), 'dev');
    const devPlan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    assert.deepEqual(devPlan.summary, { add: 2, change: 0, destroy: 0, import: 0, replace: 0 });
    assert.equal((await c.request<StateRequest.Result>('foresight/state', { directory: ws.dir })).workspace, 'dev');
  } finally {
    await c.stop();
    ws.done();
  }
});

test('runs: a saved plan is refused once the state changed (stale)', async () => {
  const ws = workspace({ 'main.tf': TWO });
  const c = new RunsClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    const p1 = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    const p2 = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    const a2 = await c.request<RunInfo>('foresight/apply', { planRunId: p2.runId });
    assert.equal(a2.status, 'succeeded');
    const serial = stateFile(ws.dir).serial;
    await assert.rejects(
      c.request('foresight/apply', { planRunId: p1.runId }),
      (e: Error & { code: number }) =>
        e.code === -32803 &&
        e.message === 'Saved plan is stale: The given plan file can no longer be applied because the state was changed by another operation after the plan was created.',
    );
    assert.equal(stateFile(ws.dir).serial, serial, 'the state is untouched');
    const runs = await c.request<RunInfo[]>('foresight/runs', {});
    assert.deepEqual(runs[0].kind, 'apply');
    assert.deepEqual(runs[0].status, 'failed');
  } finally {
    await c.stop();
    ws.done();
  }
});

// As terraform 1.11.4 reports the same stop (checked with the time provider served as a plugin): the sleep in flight
// ends with the provider's error, its PostApply and state-update hooks halt, and s[1] and s[2] halt before starting
// (Terraform's stopHook: "execution halted" each).
const DIAGS: [string, string][] = [['error', 'Create time sleep error'], ...Array.from({ length: 4 }, (): [string, string] => ['error', 'execution halted'])];
const SLEEPS = `resource "time_sleep" "s" {
  count           = 3
  create_duration = "1s"
}
`;

test('runs: graceful cancellation stops the providers and starts nothing more (a first Ctrl-C)', async () => {
  const ws = workspace({ 'main.tf': SLEEPS.replace('1s', '30s') });
  const c = new RunsClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    const plan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir, parallelism: 1 });
    assert.equal(plan.status, 'succeeded');
    const applying = c.request<RunInfo>('foresight/apply', { planRunId: plan.runId });
    const started = await c.waitFor('the first resource started', () => c.progress.find((p) => p.operation === 'create' && p.state === 'started'));
    const t0 = Date.now();
    await c.request('foresight/cancelRun', { runId: started.runId });
    const done = await applying;
    assert.ok(Date.now() - t0 < 10_000, 'the 30 s sleep in flight was stopped');
    assert.equal(done.status, 'cancelled');
    // The time provider ends its sleep with Go's context error when StopProvider arrives, as under terraform.
    const mine = c.progress.filter((p) => p.runId === started.runId).map((p) => [p.address, p.state, p.message]);
    assert.deepEqual(mine, [
      ['time_sleep.s[0]', 'started', 'time_sleep.s[0]: Creating...'],
      ['time_sleep.s[0]', 'failed', 'time_sleep.s[0]: Creation errored after 0s'],
    ]);
    assert.deepEqual(
      done.diagnostics.map((d) => [d.severity, d.summary]),
      DIAGS,
    );
    // Nothing else was started, nothing is in the state, and the lock was released: a new plan run works.
    assert.deepEqual(stateFile(ws.dir).resources, []);
    const again = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    assert.deepEqual(again.summary, { add: 3, change: 0, destroy: 0, import: 0, replace: 0 });
  } finally {
    await c.stop();
    ws.done();
  }
});

test('runs: forceful cancellation reports the run cancelled at once', async () => {
  const ws = workspace({ 'main.tf': SLEEPS.replace('1s', '3s') });
  const c = new RunsClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    const plan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir, parallelism: 1 });
    const applying = c.request<RunInfo>('foresight/apply', { planRunId: plan.runId });
    const started = await c.waitFor('the first resource started', () => c.progress.find((p) => p.operation === 'create' && p.state === 'started'));
    const t0 = Date.now();
    await c.request('foresight/cancelRun', { runId: started.runId, force: true });
    const done = await applying;
    assert.equal(done.status, 'cancelled');
    assert.ok(Date.now() - t0 < 2000, 'answered before the resource in flight finished');
    assert.deepEqual(
      c.statusEvents.filter((s) => s.runId === started.runId).map((s) => s.status),
      ['running', 'cancelled'],
    );
  } finally {
    await c.stop();
    ws.done();
  }
});

test('runs: the state lock is shared with the command line, both ways', async () => {
  const ws = workspace({ 'main.tf': SLEEPS.replace('count           = 3', 'count           = 1').replace('1s', '4s') });
  const c = new RunsClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    // A terminal `foresight apply` holds the lock: the server's plan is refused, and the state request names the holder.
    const terminal = cli(ws.dir, ['apply', '-auto-approve', '-no-color']);
    await poll('the terminal run to lock', () => {
      try {
        return readFileSync(join(ws.dir, '.terraform.tfstate.lock.info'), 'utf8').length > 0;
      } catch {
        return false;
      }
    });
    const state = await c.request<StateRequest.Result>('foresight/state', { directory: ws.dir });
    assert.equal(state.lock?.operation, 'OperationTypeApply');
    await assert.rejects(
      c.request('foresight/plan', { directory: ws.dir }),
      (e: Error & { code: number }) => e.code === -32803 && e.message.startsWith('Error acquiring the state lock: ') && e.message.includes('OperationTypeApply'),
    );
    const t = await terminal;
    assert.equal(t.code, 0, t.out);
    // The server's apply holds the lock: a terminal plan is refused.
    writeFileSync(join(ws.dir, 'main.tf'), SLEEPS.replace('1s', '4s'));
    const plan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    assert.equal(plan.summary!.add, 2);
    const applying = c.request<RunInfo>('foresight/apply', { planRunId: plan.runId });
    await c.waitFor('the server apply started', () => c.progress.find((p) => p.runId !== plan.runId && p.state === 'started'));
    const blocked = await cli(ws.dir, ['plan', '-no-color']);
    assert.equal(blocked.code, 1);
    assert.match(blocked.out, /Error: Error acquiring the state lock/);
    assert.equal((await applying).status, 'succeeded');
  } finally {
    await c.stop();
    ws.done();
  }
});

test('runs: with a lock timeout (the user chose to wait), a run waits for a terminal run to release the lock', async () => {
  const ws = workspace({ 'main.tf': SLEEPS.replace('count           = 3', 'count           = 1').replace('1s', '4s') });
  const c = new RunsClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10, lockTimeout: '120s' });
    const terminal = cli(ws.dir, ['apply', '-auto-approve', '-no-color']);
    await poll('the terminal run to lock', () => {
      try {
        return readFileSync(join(ws.dir, '.terraform.tfstate.lock.info'), 'utf8').length > 0;
      } catch {
        return false;
      }
    });
    // The server's settings say wait: the plan run is not refused; it plans once the terminal apply is done.
    const plan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    const t = await terminal;
    assert.equal(t.code, 0, t.out);
    assert.equal(plan.status, 'succeeded', plan.output);
    assert.match(plan.output ?? '', /^Acquiring state lock\. This may take a few moments\.\.\.$/m);
    assert.equal(plan.summary!.add, 0, 'planned against the state the terminal apply wrote');
    // A per-run lockTimeout of 0s overrides the setting: refused at once while the lock is held.
    const again = cli(ws.dir, ['apply', '-auto-approve', '-no-color', '-replace=time_sleep.s[0]']);
    await poll('the second terminal run to lock', () => {
      try {
        return readFileSync(join(ws.dir, '.terraform.tfstate.lock.info'), 'utf8').length > 0;
      } catch {
        return false;
      }
    });
    await assert.rejects(
      c.request('foresight/plan', { directory: ws.dir, lockTimeout: '0s' }),
      (e: Error & { code: number }) => e.code === -32803 && e.message.startsWith('Error acquiring the state lock: '),
    );
    assert.equal((await again).code, 0);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('runs: bad requests answer RequestFailed with a message and the server stays up', async () => {
  const ws = workspace({ 'main.tf': TWO });
  const c = new RunsClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    const fails = async (method: string, params: unknown, message: string) =>
      assert.rejects(c.request(method, params as object), (e: Error & { code: number }) => {
        assert.equal(e.code, -32803, `${method}: ${e.message}`);
        assert.equal(e.message, message);
        return true;
      });
    await fails('foresight/preview', {}, 'No workspace directory was given.');
    await fails('foresight/plan', { directory: '' }, 'No workspace directory was given.');
    await fails('foresight/apply', { planRunId: 'run-99' }, 'There is no plan run run-99.');
    await fails('foresight/cancelRun', { runId: 'run-99' }, 'There is no run run-99.');
    await fails('foresight/plannedDiff', { directory: ws.dir, address: 'terraform_data.a', runId: 'run-99' }, 'No plan of run run-99 is available.');
    const plan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    await fails('foresight/plannedDiff', { directory: ws.dir, address: 'terraform_data.zzz', runId: plan.runId }, 'The plan has no change for terraform_data.zzz.');
    // A plan of a configuration with errors is a failed run with the diagnostics, not a refusal.
    writeFileSync(join(ws.dir, 'main.tf'), 'resource "terraform_data" "a" {\n  input = var.nope\n}\n');
    const bad = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: ws.dir });
    assert.equal(bad.status, 'failed');
    assert.deepEqual(
      bad.diagnostics.map((d) => [d.severity, d.summary, d.file, d.range?.start.line]),
      [['error', 'Reference to undeclared input variable', join(ws.dir, 'main.tf'), 1]],
    );
    assert.deepEqual(await c.request('textDocument/hover', { textDocument: { uri: ws.uri('nothing.tf') }, position: { line: 0, character: 0 } }), null);
    assert.deepEqual(await c.request('textDocument/codeLens', { textDocument: { uri: 'untitled:x' } }), []);
    assert.ok(c.alive);
  } finally {
    await c.stop();
    ws.done();
  }
});
