// Cancelling a language-server run hung in a plugin provider (issue 10 §1: "a provider that ... hangs ... gives a
// diagnostic and leaves the server, the engine and the state intact"), over stdio to dist/server.js. Our random
// provider is served as a plugin through dev_overrides (example.com/test/random) with the misbehave kind
// 'hang-apply': the third ApplyResourceChange of the provider process hangs until StopProvider. A graceful cancel
// (a first Ctrl-C) sends StopProvider, the hung call ends with the provider's error, the run ends as cancelled with
// terraform's diagnostics for that stop (the provider's error with its address, two "execution halted"), the state
// keeps the two completed resources, the lock is released and the server goes on answering: a new plan run plans
// the two missing resources.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlanRunRequest, RunInfo, RunProgressParams } from '../../server/lsp/protocol';
import { readRecording } from '../../server/plugin/recording';
import { writeWrapper } from '../../server/cli/provider';
import { PreviewClient } from '../lsp/preview-client';
import { CLI, harness, workspace } from './_served';

class RunsClient extends PreviewClient {
  readonly progress: RunProgressParams[] = [];
  constructor() {
    super();
    this.conn.onNotification('foresight/runProgress', (p: RunProgressParams) => {
      this.progress.push(p);
      (this as unknown as { notify(): void }).notify();
    });
  }
}

let CONFIG = 'terraform {\n  required_providers {\n    random = {\n      source = "example.com/test/random"\n    }\n  }\n}\n';
CONFIG += 'resource "random_pet" "s1" {\n  prefix = "x"\n}\n';
for (let i = 2; i <= 4; i++) CONFIG += `resource "random_pet" "s${i}" {\n  prefix = random_pet.s${i - 1}.id\n}\n`;

test('runs: a graceful cancel of an apply hung in a plugin provider sends StopProvider, ends the run cancelled with terraform\'s diagnostics, keeps the completed resources and the server answers on', async () => {
  const h = harness({ providers: [] });
  const record = join(h.root, 'calls.jsonl');
  writeWrapper('random', h.bin, 'random', { cliPath: CLI, misbehave: 'hang-apply', record });
  writeFileSync(h.rc, `provider_installation {\n  dev_overrides {\n    "example.com/test/random" = ${JSON.stringify(h.bin)}\n  }\n  direct {}\n}\n`);
  // The server inherits the environment: the CLI configuration and a schema cache of this test's own.
  process.env.TF_CLI_CONFIG_FILE = h.rc;
  process.env.FORESIGHT_SCHEMA_CACHE_DIR = join(h.root, 'schemas');
  const dir = workspace(h, 'ws', { 'main.tf': CONFIG });
  const c = new RunsClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    const plan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: dir, parallelism: 1 });
    assert.equal(plan.status, 'succeeded', JSON.stringify(plan.diagnostics));
    assert.deepEqual(plan.summary, { add: 4, change: 0, destroy: 0, import: 0, replace: 0 });
    const applying = c.request<RunInfo>('foresight/apply', { planRunId: plan.runId });
    const started = await c.waitFor('random_pet.s3 started', () => c.progress.find((p) => p.runId !== plan.runId && p.address === 'random_pet.s3' && p.state === 'started'), 60_000);
    await new Promise((r) => setTimeout(r, 500));
    const stopsBefore = readRecording(record).filter((e) => e.method === 'stopProvider').length;
    await c.request('foresight/cancelRun', { runId: started.runId });
    const done = await applying;
    assert.equal(done.status, 'cancelled', JSON.stringify({ diags: done.diagnostics, progress: c.progress, output: done.output }));
    assert.equal(readRecording(record).filter((e) => e.method === 'stopProvider').length, stopsBefore + 1, 'StopProvider reached the provider');
    const mine = c.progress.filter((p) => p.runId === started.runId).map((p) => [p.address, p.state]);
    assert.deepEqual(mine, [
      ['random_pet.s1', 'started'],
      ['random_pet.s1', 'done'],
      ['random_pet.s2', 'started'],
      ['random_pet.s2', 'done'],
      ['random_pet.s3', 'started'],
      ['random_pet.s3', 'failed'],
    ]);
    // What terraform reports for the same stop (test/plugin/hang.test.ts compares the command lines).
    assert.deepEqual(
      done.diagnostics.map((d) => [d.severity, d.summary, d.detail ?? '']).sort(),
      [
        ['error', 'Stopped', 'The provider was asked to stop while applying: context canceled.'],
        ['error', 'execution halted', ''],
        ['error', 'execution halted', ''],
        ['warning', 'Provider development overrides are in effect', `The following provider development overrides are set in the CLI configuration:\n - example.com/test/random in ${h.bin}\n\nThe behavior may therefore not match any released version of the provider and applying changes may cause the state to become incompatible with published releases.`],
      ],
    );
    const st = JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')) as { resources: { name: string }[] };
    assert.deepEqual(st.resources.map((r) => r.name).sort(), ['s1', 's2']);
    // The lock was released and the server (and its pooled provider process) answers on.
    const again = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: dir });
    assert.equal(again.status, 'succeeded', JSON.stringify(again.diagnostics));
    assert.deepEqual(again.summary, { add: 2, change: 0, destroy: 0, import: 0, replace: 0 });
  } finally {
    await c.stop();
    delete process.env.TF_CLI_CONFIG_FILE;
    delete process.env.FORESIGHT_SCHEMA_CACHE_DIR;
    h.dispose();
  }
});
