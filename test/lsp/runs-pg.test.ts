// The language server on a workspace whose state is in PostgreSQL (issue 9 §4), over stdio to dist/server.js with
// a throwaway cluster (scripts/pg.mjs): the preview and plan runs read the shared state; a lock held by another
// session (as a terraform apply holds it) refuses a run with Terraform's message, the state request names the
// holding session, and a run told to wait (lockTimeout) goes on once the lock is released.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlanRunRequest, PreviewRequest, StateRequest } from '../../server/lsp/protocol';
import { PreviewClient } from './preview-client';
import { throwawayCluster } from '../pg-cluster';

const cluster = throwawayCluster('language server on pg');

const CLI = join(process.cwd(), 'dist/cli.js');
const cli = (dir: string, args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, TF_IN_AUTOMATION: '1' } });
const main = (n: number) => `resource "terraform_data" "a" {\n  count = ${n}\n  input = "v\${count.index}"\n}\n`;

test('language server on pg state: preview and plan runs read it; a held lock refuses a run, is named, and a waiting run goes on when it is released', { timeout: 120_000 }, async (t) => {
  const pg = cluster.pg;
  if (!pg) return void t.skip(`PostgreSQL unavailable: ${cluster.skipReason}`);
  const conn = pg.createDb(`lsp${process.pid}`);
  const dir = mkdtempSync(join(tmpdir(), 'foresight-lsp-pg-'));
  writeFileSync(join(dir, 'main.tf'), main(2));
  writeFileSync(join(dir, 'backend.tf'), `terraform {\n  backend "pg" {\n    conn_str = ${JSON.stringify(conn)}\n  }\n}\n`);
  const pgmod = await import('pg');
  const other = new pgmod.default.Client({ connectionString: conn, application_name: 'terraform-ci' });
  const c = new PreviewClient();
  try {
    assert.equal(cli(dir, ['init', '-no-color']).status, 0);
    const applied = cli(dir, ['apply', '-auto-approve', '-no-color']);
    assert.equal(applied.status, 0, applied.stdout + applied.stderr);
    writeFileSync(join(dir, 'main.tf'), main(3));
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    // The preview and a plan run start from the two instances in the database.
    const preview = await c.request<PreviewRequest.Result>('foresight/preview', { directory: dir });
    assert.deepEqual(preview.summary, { add: 1, change: 0, destroy: 0, import: 0, replace: 0 }, JSON.stringify(preview.diagnostics));
    const plan = await c.request<PlanRunRequest.Result>('foresight/plan', { directory: dir });
    assert.equal(plan.status, 'succeeded', plan.output);
    assert.deepEqual(plan.summary, { add: 1, change: 0, destroy: 0, import: 0, replace: 0 });
    const state = await c.request<StateRequest.Result>('foresight/state', { directory: dir });
    assert.deepEqual(state.resources.map((r) => r.address), ['terraform_data.a[0]', 'terraform_data.a[1]']);
    assert.equal(state.lock, undefined);

    // Another session holds the workspace's lock, as a terraform run does.
    await other.connect();
    const id = (await other.query<{ id: string }>("SELECT id FROM terraform_remote_state.states WHERE name = 'default'")).rows[0].id;
    await other.query(`SELECT pg_advisory_lock(${id})`);
    await assert.rejects(
      c.request('foresight/plan', { directory: dir, lockTimeout: '0s' }),
      (e: Error & { code: number }) => e.code === -32803 && e.message.startsWith('Error acquiring the state lock: ') && e.message.includes('Workspace is already locked: default'),
    );
    const locked = await c.request<StateRequest.Result>('foresight/state', { directory: dir });
    assert.ok(locked.lock, 'the state request names the holder');
    assert.match(locked.lock.who, /, terraform-ci$/);
    // Told to wait, a run goes on once the other session lets go.
    const waiting = c.request<PlanRunRequest.Result>('foresight/plan', { directory: dir, lockTimeout: '60s' });
    await new Promise((r) => setTimeout(r, 1500));
    await other.query(`SELECT pg_advisory_unlock(${id})`);
    const waited = await waiting;
    assert.equal(waited.status, 'succeeded', waited.output);
    assert.match(waited.output ?? '', /^Acquiring state lock\. This may take a few moments\.\.\.$/m);
    assert.deepEqual(waited.summary, { add: 1, change: 0, destroy: 0, import: 0, replace: 0 });
    assert.equal((await c.request<StateRequest.Result>('foresight/state', { directory: dir })).lock, undefined);
  } finally {
    await c.stop();
    await other.end().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});
