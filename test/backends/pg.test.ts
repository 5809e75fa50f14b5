// The pg state backend (issue 9) against a throwaway PostgreSQL cluster started by scripts/pg.mjs (installed from
// Debian when missing; the whole file skips with a printed notice when PostgreSQL cannot be installed or started).
// Covers: the schema/table/sequence/index Terraform creates, rows per workspace, serial/lineage rules, advisory
// lock exclusion with Terraform's messages, the apply journal's crash recovery, `foresight init` recording the
// backend exactly as terraform does (hash included), -backend-config and PG_CONN_STR/PG_SCHEMA_NAME, "Backend
// initialization required", the CLI verbs on pg, and init -migrate-state local -> pg -> local losing nothing.
// Interop with terraform 1.11.4 (skipped with a notice when terraform is absent) is in pg-interop.test.ts.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error plain ES module without types
import { startPg } from '../../scripts/pg.mjs';
import { configurePgBackend, type PgBackend } from '../../server/backends/pg/index';
import { backendHash, chooseBackend } from '../../server/backends/registry';
import { newLockInfo } from '../../server/backends/local/filesystem';
import { LockError, lockInfoString } from '../../server/states/statemgr';
import { State, SyncState } from '../../server/states/state';
import { readStateFile } from '../../server/states/statefile';

type Pg = { connStr: string; dir: string; psql(sql: string, db?: string): string; createDb(name: string): string; stop(): void; skip?: string };
let pg: Pg | undefined;
let skipReason = '';
let dbCounter = 0;

before(async () => {
  const r = (await startPg({ log: (s: string) => console.log(s) })) as Pg;
  if (r.skip) {
    skipReason = r.skip;
    console.log(`# SKIP pg backend tests: ${r.skip}`);
    return;
  }
  pg = r;
});
after(() => pg?.stop());

function db(): { conn: string; name: string } {
  const name = `t${process.pid}_${++dbCounter}`;
  return { conn: pg!.createDb(name), name };
}

const ROOT = process.cwd();
const CLI = join(ROOT, 'dist/cli.js');
function fs(dir: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}) {
  const r = spawnSync('node', [CLI, ...args], { cwd: dir, encoding: 'utf8', input: opts.input ?? '', env: { ...process.env, TF_IN_AUTOMATION: '1', ...opts.env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, out: r.stdout + r.stderr };
}

function skipUnlessPg(t: { skip(msg: string): void }): boolean {
  if (pg) return false;
  t.skip(`PostgreSQL unavailable: ${skipReason}`);
  return true;
}

test('configure creates exactly Terraform\'s schema, sequence, table and index', async (t) => {
  if (skipUnlessPg(t)) return;
  const { conn, name } = db();
  const r = configurePgBackend({ conn_str: conn }, {});
  assert.deepEqual(r.diagnostics, []);
  const b = r.backend!;
  try {
    assert.deepEqual(await b.prepare(), []);
    assert.equal(pg!.psql("select count(*) from information_schema.schemata where schema_name = 'terraform_remote_state'", name).trim(), '1');
    assert.equal(pg!.psql("select count(*) from information_schema.sequences where sequence_schema = 'public' and sequence_name = 'global_states_id_seq' and data_type = 'bigint'", name).trim(), '1');
    const cols = pg!.psql("select column_name, data_type, is_nullable, coalesce(column_default,'') from information_schema.columns where table_schema='terraform_remote_state' and table_name='states' order by ordinal_position", name);
    assert.equal(cols, "id|bigint|NO|nextval('global_states_id_seq'::regclass)\nname|text|YES|\ndata|text|YES|\n");
    const idx = pg!.psql("select indexname from pg_indexes where schemaname='terraform_remote_state' and tablename='states' order by indexname", name);
    assert.equal(idx, 'states_by_name\nstates_name_key\nstates_pkey\n');
    assert.deepEqual(await b.workspaces(), ['default']);
  } finally {
    await b.close();
  }
});

test('skip_* options create nothing; PG_SCHEMA_NAME and PG_CONN_STR are read when the block leaves them unset', async (t) => {
  if (skipUnlessPg(t)) return;
  const { conn, name } = db();
  const s = configurePgBackend({ skip_schema_creation: true, skip_table_creation: true, skip_index_creation: true }, { PG_CONN_STR: conn, PG_SCHEMA_NAME: 'custom' });
  assert.deepEqual(await s.backend!.prepare(), []);
  assert.equal(pg!.psql("select count(*) from information_schema.schemata where schema_name = 'custom'", name).trim(), '0');
  await s.backend!.close();
  const r = configurePgBackend({}, { PG_CONN_STR: conn, PG_SCHEMA_NAME: 'custom' });
  const b = r.backend!;
  try {
    assert.deepEqual(await b.prepare(), []);
    assert.equal(pg!.psql("select count(*) from information_schema.tables where table_schema = 'custom' and table_name = 'states'", name).trim(), '1');
  } finally {
    await b.close();
  }
  // Type errors are Terraform's "Invalid backend configuration".
  const bad = configurePgBackend({ skip_table_creation: 'maybe' }, {});
  assert.equal(bad.backend, undefined);
  assert.equal(bad.diagnostics[0].summary, 'Invalid backend configuration');
});

test('state rows: persist increments the serial only on change, workspaces are rows, default cannot be deleted', async (t) => {
  if (skipUnlessPg(t)) return;
  const { conn, name } = db();
  const b = configurePgBackend({ conn_str: conn }, {}).backend!;
  try {
    const m = await b.stateMgr('default');
    assert.deepEqual(await m.refresh(), []);
    assert.equal(m.read(), null);
    const st = new State();
    st.outputs.set('x', { valueJSON: '"a"', typeJSON: '"string"', sensitive: false });
    m.write(st);
    assert.deepEqual(await m.persist(), []);
    const first = m.meta();
    assert.equal(first.serial, 1);
    assert.match(first.lineage, /^[0-9a-f-]{36}$/);
    assert.deepEqual(await m.persist(), []);
    assert.equal(m.meta().serial, 1, 'an unchanged state is not rewritten');
    assert.equal(m.writes, 1);
    const row = pg!.psql("select data from terraform_remote_state.states where name = 'default'", name);
    const f = readStateFile(row.trim()).file!;
    assert.equal(f.serial, 1);
    assert.equal(f.lineage, first.lineage);
    // A new workspace is created with an empty state (serial 1, its own lineage) and listed after default.
    await b.stateMgr('zeta');
    await b.stateMgr('alpha');
    assert.deepEqual(await b.workspaces(), ['default', 'alpha', 'zeta']);
    const z = readStateFile(pg!.psql("select data from terraform_remote_state.states where name = 'zeta'", name).trim()).file!;
    assert.equal(z.serial, 1);
    assert.ok(z.state.empty());
    assert.deepEqual(await b.deleteWorkspace('zeta', false), []);
    assert.deepEqual(await b.workspaces(), ['default', 'alpha']);
    assert.equal((await b.deleteWorkspace('default', false))[0].summary, "can't delete default state");
  } finally {
    await b.close();
  }
});

test('advisory locks: a second session is refused with Terraform\'s message carrying its own lock info', async (t) => {
  if (skipUnlessPg(t)) return;
  const { conn } = db();
  const b1 = configurePgBackend({ conn_str: conn }, {}).backend!;
  const b2 = configurePgBackend({ conn_str: conn }, {}).backend!;
  try {
    const m1 = await b1.stateMgr('default');
    m1.write(new State());
    await m1.persist();
    const id = await m1.lock(newLockInfo('OperationTypeApply'));
    const m2 = await b2.stateMgr('default');
    const info = { ...newLockInfo('OperationTypePlan'), Created: '2026-11-23T06:00:00.123456789Z' };
    await assert.rejects(m2.lock(info), (e: unknown) => {
      assert.ok(e instanceof LockError);
      assert.equal(e.message, `Workspace is already locked: default\n${lockInfoString({ ...info, Path: '' })}`);
      return true;
    });
    await m1.unlock(id);
    const id2 = await m2.lock(info);
    assert.equal(id2, info.ID);
    await m2.unlock(id2);
    // unlock without holding the lock does nothing (force-unlock on pg has no effect, as in Terraform).
    await m2.unlock('whatever');
  } finally {
    await b1.close();
    await b2.close();
  }
});

test('apply journal: changes of a run that died before its persist are recovered from the local journal', async (t) => {
  if (skipUnlessPg(t)) return;
  const { conn } = db();
  const jdir = mkdtempSync(join(tmpdir(), 'foresight-pgj-'));
  const b = configurePgBackend({ conn_str: conn }, {}, { journalDir: jdir, persistIntervalMs: 3600_000 }).backend!;
  try {
    const m = await b.stateMgr('default');
    const id = await m.lock(newLockInfo('OperationTypeApply'));
    await m.refresh();
    const start = m.read() ?? new State();
    const sync = new SyncState(start.deepCopy(), m.journalListener(start));
    for (let i = 0; i < 5; i++) sync.setOutputValue(`o${i}`, { valueJSON: `"${i}"`, typeJSON: '"string"', sensitive: false });
    await sync.close();
    assert.equal(m.writes, 0, 'no row rewrite inside the persist interval');
    const journals = readdirSync(join(jdir, 'pg-journal')).filter((f) => f.endsWith('.journal'));
    assert.equal(journals.length, 1);
    // The process "dies": its session (and lock) goes away without persist.
    (m as unknown as { lockClient: { release(d: boolean): void } }).lockClient.release(true);
    void id;
    const b2 = configurePgBackend({ conn_str: conn }, {}, { journalDir: jdir }).backend!;
    try {
      const m2 = await b2.stateMgr('default');
      const id2 = await m2.lock(newLockInfo('OperationTypeApply'));
      const d = await m2.refresh();
      assert.deepEqual(d.map((x) => x.summary), ['State recovered from journal']);
      const st = m2.read()!;
      assert.deepEqual([...st.outputs.keys()].sort(), ['o0', 'o1', 'o2', 'o3', 'o4']);
      assert.equal(readdirSync(join(jdir, 'pg-journal')).filter((f) => f.endsWith('.journal')).length, 0);
      await m2.unlock(id2);
    } finally {
      await b2.close();
    }
  } finally {
    await b.close().catch(() => undefined);
    rmSync(jdir, { recursive: true, force: true });
  }
});

test('backend hash and the initialization check follow Terraform', () => {
  // Recorded from terraform 1.11.4 init with this conn_str (.terraform/terraform.tfstate "hash").
  assert.equal(backendHash('pg', { conn_str: 'postgres://postgres@/postgres?host=%2Ftmp%2Fforesight-pg-nZ1Z3K&sslmode=disable' }), 311977589);
  const attrs = new Map();
  const c = chooseBackend({ type: 'pg', attributes: attrs }, undefined);
  assert.equal(c.diagnostics[0].summary, 'Backend initialization required, please run "terraform init"');
  assert.match(c.diagnostics[0].detail!, /^Reason: Initial configuration of the requested backend "pg"\n/);
  const u = chooseBackend(undefined, { type: 'pg', config: {}, hash: 1 });
  assert.match(u.diagnostics[0].detail!, /^Reason: Unsetting the previously set backend "pg"\n/);
  const ch = chooseBackend({ type: 'local', attributes: attrs }, { type: 'pg', config: {}, hash: 1 });
  assert.equal(ch.diagnostics[0].summary, 'Backend initialization required: please run "terraform init"');
  assert.match(ch.diagnostics[0].detail!, /^Reason: Backend type changed from "pg" to "local"\n/);
});

function workdir(conn: string | undefined, body = 'resource "terraform_data" "a" {\n  count = 3\n  input = "v${count.index}"\n}\n\noutput "o" {\n  value = terraform_data.a[*].output\n}\n'): string {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-pgcli-'));
  writeFileSync(join(dir, 'main.tf'), body);
  if (conn !== undefined) writeFileSync(join(dir, 'backend.tf'), `terraform {\n  backend "pg" {\n    conn_str = ${JSON.stringify(conn)}\n  }\n}\n`);
  return dir;
}

test('CLI: init records the backend as terraform does; plan/apply/state/output/workspace/show work on pg', { timeout: 120_000 }, (t) => {
  if (skipUnlessPg(t)) return;
  const { conn, name } = db();
  const dir = workdir(conn);
  try {
    let r = fs(dir, ['plan', '-no-color']);
    assert.equal(r.status, 1, r.out);
    assert.match(r.stderr, /Error: Backend initialization required, please run "terraform init"/);
    assert.match(r.stderr, /Reason: Initial configuration of the requested backend "pg"/);
    r = fs(dir, ['init', '-no-color']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.stdout, /Successfully configured the backend "pg"! Terraform will automatically\nuse this backend unless the backend configuration changes\./);
    const rec = JSON.parse(readFileSync(join(dir, '.terraform/terraform.tfstate'), 'utf8'));
    assert.deepEqual(rec, {
      version: 3,
      terraform_version: '1.11.4',
      backend: { type: 'pg', config: { conn_str: conn, schema_name: null, skip_index_creation: null, skip_schema_creation: null, skip_table_creation: null }, hash: backendHash('pg', { conn_str: conn }) },
    });
    r = fs(dir, ['apply', '-auto-approve', '-no-color']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.stdout, /Apply complete! Resources: 3 added, 0 changed, 0 destroyed\./);
    assert.ok(!existsSync(join(dir, 'terraform.tfstate')), 'no local state file is written');
    const f = readStateFile(pg!.psql("select data from terraform_remote_state.states where name='default'", name).trim()).file!;
    assert.equal(f.state.modules.get('')!.resources.size, 1);
    assert.equal(f.serial, 1, 'the first snapshot written is serial 1');
    r = fs(dir, ['plan', '-detailed-exitcode', '-no-color']);
    assert.equal(r.status, 0, r.out);
    r = fs(dir, ['state', 'list']);
    assert.equal(r.stdout, 'terraform_data.a[0]\nterraform_data.a[1]\nterraform_data.a[2]\n');
    r = fs(dir, ['output', '-json', 'o']);
    assert.equal(r.stdout, '["v0","v1","v2"]\n');
    r = fs(dir, ['workspace', 'new', 'dev', '-no-color']);
    assert.equal(r.status, 0, r.out);
    assert.equal(pg!.psql("select string_agg(name, ',' order by name) from terraform_remote_state.states", name).trim(), 'default,dev');
    r = fs(dir, ['workspace', 'list']);
    assert.equal(r.stdout, '  default\n* dev\n\n');
    r = fs(dir, ['state', 'list']);
    assert.equal(r.stdout, '');
    fs(dir, ['workspace', 'select', 'default']);
    r = fs(dir, ['state', 'rm', 'terraform_data.a[2]']);
    assert.equal(r.status, 0, r.out);
    r = fs(dir, ['state', 'list']);
    assert.equal(r.stdout, 'terraform_data.a[0]\nterraform_data.a[1]\n');
    // A changed block needs init again.
    writeFileSync(join(dir, 'backend.tf'), `terraform {\n  backend "pg" {\n    conn_str    = ${JSON.stringify(conn)}\n    schema_name = "other"\n  }\n}\n`);
    r = fs(dir, ['plan', '-no-color']);
    assert.equal(r.status, 1, r.out);
    assert.match(r.stderr, /Error: Backend initialization required: please run "terraform init"/);
    assert.match(r.stderr, /Reason: Backend configuration block has changed/);
    r = fs(dir, ['init', '-no-color']);
    assert.equal(r.status, 1, r.out);
    assert.match(r.stderr, /Error: Backend configuration changed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: -backend-config key=value and files, unknown arguments rejected as Terraform does', { timeout: 60_000 }, (t) => {
  if (skipUnlessPg(t)) return;
  const { conn } = db();
  const dir = workdir(undefined);
  try {
    writeFileSync(join(dir, 'backend.tf'), 'terraform {\n  backend "pg" {}\n}\n');
    writeFileSync(join(dir, 'pg.hcl'), 'schema_name = "from_file"\n');
    let r = fs(dir, ['init', '-no-color', `-backend-config=conn_str=${conn}`, '-backend-config=pg.hcl']);
    assert.equal(r.status, 0, r.out);
    const rec = JSON.parse(readFileSync(join(dir, '.terraform/terraform.tfstate'), 'utf8'));
    assert.equal(rec.backend.config.conn_str, conn);
    assert.equal(rec.backend.config.schema_name, 'from_file');
    assert.equal(rec.backend.hash, backendHash('pg', {}));
    r = fs(dir, ['apply', '-auto-approve', '-no-color']);
    assert.equal(r.status, 0, r.out);
    r = fs(dir, ['init', '-no-color', '-backend-config=bogus=1']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /Error: Invalid backend configuration argument\n\nThe backend configuration argument "bogus" given on the command line is not\nexpected for the selected backend type\./);
    writeFileSync(join(dir, 'backend.tf'), 'terraform {\n  backend "pg" {\n    nope = 1\n  }\n}\n');
    r = fs(dir, ['init', '-no-color', '-reconfigure']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /Error: Unsupported argument\n\n  on backend\.tf line 3, in terraform:\n   3:     nope = 1\n\nAn argument named "nope" is not expected here\./);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: init -migrate-state local -> pg -> local keeps every workspace, resource, serial and lineage', { timeout: 180_000 }, (t) => {
  if (skipUnlessPg(t)) return;
  const { conn, name } = db();
  const dir = workdir(undefined);
  try {
    assert.equal(fs(dir, ['init', '-no-color']).status, 0);
    assert.equal(fs(dir, ['apply', '-auto-approve', '-no-color']).status, 0);
    assert.equal(fs(dir, ['workspace', 'new', 'stage']).status, 0);
    assert.equal(fs(dir, ['apply', '-auto-approve', '-no-color']).status, 0);
    fs(dir, ['workspace', 'select', 'default']);
    const before = {
      default: readFileSync(join(dir, 'terraform.tfstate'), 'utf8'),
      stage: readFileSync(join(dir, 'terraform.tfstate.d/stage/terraform.tfstate'), 'utf8'),
    };
    writeFileSync(join(dir, 'backend.tf'), `terraform {\n  backend "pg" {\n    conn_str = ${JSON.stringify(conn)}\n  }\n}\n`);
    // Without input the migration is refused.
    let r = fs(dir, ['init', '-no-color', '-input=false']);
    assert.equal(r.status, 1, r.out);
    assert.equal(r.stderr, '\nError: Can\'t ask approval for state migration when interactive input is disabled.\n\nPlease remove the "-input=false" option and try again.\n\n');
    r = fs(dir, ['init', '-no-color'], { input: 'yes\n' });
    assert.equal(r.status, 0, r.out);
    assert.match(r.stdout, /Do you want to migrate all workspaces to "pg"\?\n  Both the existing "local" backend and the newly configured "pg" backend\n/);
    for (const ws of ['default', 'stage'] as const) {
      const src = readStateFile(before[ws]).file!;
      const got = readStateFile(pg!.psql(`select data from terraform_remote_state.states where name='${ws}'`, name).trim()).file!;
      assert.equal(got.serial, src.serial, `${ws} serial`);
      assert.equal(got.lineage, src.lineage, `${ws} lineage`);
      assert.equal(JSON.stringify(got.state), JSON.stringify(src.state));
    }
    assert.equal(readFileSync(join(dir, 'terraform.tfstate'), 'utf8'), '', 'the local copy is emptied, as terraform does');
    assert.equal(readFileSync(join(dir, 'terraform.tfstate.backup'), 'utf8'), before.default);
    assert.equal(fs(dir, ['plan', '-detailed-exitcode', '-no-color']).status, 0);
    // And back, with -force-copy (no prompts).
    rmSync(join(dir, 'backend.tf'));
    r = fs(dir, ['init', '-no-color', '-migrate-state', '-force-copy']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.stdout, /Terraform has detected you're unconfiguring your previously set "pg" backend\./);
    assert.match(r.stdout, /Successfully unset the backend "pg"\. Terraform will now operate locally\./);
    for (const [ws, p] of [
      ['default', 'terraform.tfstate'],
      ['stage', 'terraform.tfstate.d/stage/terraform.tfstate'],
    ] as const) {
      const src = readStateFile(before[ws]).file!;
      const got = readStateFile(readFileSync(join(dir, p), 'utf8')).file!;
      assert.equal(got.serial, src.serial, `${ws} serial back`);
      assert.equal(got.lineage, src.lineage, `${ws} lineage back`);
      assert.equal(JSON.stringify(got.state), JSON.stringify(src.state));
    }
    assert.equal(fs(dir, ['plan', '-detailed-exitcode', '-no-color']).status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

export type { PgBackend };

test('openDirectoryBackend (for the language server) opens the pg backend a directory was initialised with', { timeout: 60_000 }, async (t) => {
  if (skipUnlessPg(t)) return;
  const { conn } = db();
  const dir = workdir(conn);
  try {
    assert.equal(fs(dir, ['init', '-no-color']).status, 0);
    assert.equal(fs(dir, ['apply', '-auto-approve', '-no-color']).status, 0);
    const { openDirectoryBackend } = await import('../../server/backends/registry');
    const r = await openDirectoryBackend(dir, { ...process.env, TF_WORKSPACE: '' });
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.type, 'pg');
    assert.equal(r.workspace, 'default');
    const m = await r.backend!.stateMgr('default');
    await m.refresh();
    assert.equal(m.read()!.modules.get('')!.resources.size, 1);
    await (r.backend as PgBackend).close();
    // Uninitialised change: a diagnostic, not an exception.
    writeFileSync(join(dir, 'backend.tf'), 'terraform {\n  backend "local" {}\n}\n');
    const u = await openDirectoryBackend(dir, {});
    assert.equal(u.backend, undefined);
    assert.equal(u.diagnostics[0].summary, 'Backend initialization required: please run "terraform init"');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: a foresight apply killed mid-run loses no completed resource; the next run recovers and converges', { timeout: 180_000 }, async (t) => {
  if (skipUnlessPg(t)) return;
  const { conn, name } = db();
  const dir = workdir(conn, 'resource "terraform_data" "r" {\n  count = 300\n  input = "v${count.index}"\n}\n');
  try {
    assert.equal(fs(dir, ['init', '-no-color']).status, 0);
    const { spawn } = await import('node:child_process');
    const seen = await new Promise<number>((resolve) => {
      const p = spawn('node', [CLI, 'apply', '-auto-approve', '-no-color', '-parallelism=2'], { cwd: dir, env: { ...process.env, TF_IN_AUTOMATION: '1' } });
      let out = '';
      let killed = false;
      p.stdout.on('data', (d) => {
        out += d;
        const done = (out.match(/Creation complete/g) ?? []).length;
        if (!killed && done >= 40) {
          killed = true;
          p.kill('SIGKILL');
        }
      });
      p.on('exit', () => resolve((out.match(/Creation complete/g) ?? []).length));
    });
    assert.ok(seen >= 40 && seen < 300, `killed after ${seen} creations`);
    // The row still holds what the last persist wrote (nothing within 20 s); the journal holds the rest.
    assert.equal(pg!.psql("select count(*) from terraform_remote_state.states where name='default' and data like '%terraform_data%'", name).trim(), '0');
    let r = fs(dir, ['state', 'list']);
    const listed = r.stdout.split('\n').filter(Boolean).length;
    // "Creation complete" is printed by the apply hook just before the node records its state change (as in
    // terraform), so each of the 2 parallel nodes may have printed without recording when the kill came.
    assert.ok(listed >= seen - 2 && listed <= seen + 2, `state list (journal replayed in memory) shows ${listed}, ${seen} completed`);
    r = fs(dir, ['apply', '-auto-approve', '-no-color']);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, new RegExp(`Apply complete! Resources: ${300 - listed} added, 0 changed, 0 destroyed\\.`));
    const f = readStateFile(pg!.psql("select data from terraform_remote_state.states where name='default'", name).trim()).file!;
    assert.equal([...f.state.modules.get('')!.resources.values()][0].instances.size, 300);
    assert.equal(fs(dir, ['plan', '-detailed-exitcode', '-no-color']).status, 0);
    assert.deepEqual(readdirSync(join(dir, '.terraform/pg-journal')).filter((x) => x.endsWith('.journal')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the editor\'s state request names the session holding the pg lock (read from pg_locks, nothing locked to ask), and none once released', { timeout: 60_000 }, async (t) => {
  if (skipUnlessPg(t)) return;
  const { conn } = db();
  const dir = workdir(conn);
  const pgmod = await import('pg');
  // Another tool's session (terraform's lib/pq would look the same) holding the workspace's advisory lock.
  const other = new pgmod.default.Client({ connectionString: conn, application_name: 'terraform-ci' });
  try {
    assert.equal(fs(dir, ['init', '-no-color']).status, 0);
    assert.equal(fs(dir, ['apply', '-auto-approve', '-no-color']).status, 0);
    const { readState } = await import('../../server/lsp/preview/worker');
    assert.equal((await readState(dir)).lock, undefined, 'not locked');
    await other.connect();
    const id = (await other.query<{ id: string }>("SELECT id FROM terraform_remote_state.states WHERE name = 'default'")).rows[0].id;
    await other.query(`SELECT pg_advisory_lock(${id})`);
    const pid = (await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const s = await readState(dir);
    assert.equal(s.resources.length, 3, 'the state is read all the same');
    assert.ok(s.lock, 'the lock is seen');
    assert.equal(s.lock.id, `PostgreSQL session ${pid}`);
    assert.match(s.lock.who, /^\S+ from (a local socket|[\d.:a-f]+), terraform-ci$/);
    assert.equal(s.lock.operation, 'a run (PostgreSQL keeps no lock info)');
    assert.ok(!Number.isNaN(Date.parse(s.lock.created)));
    // The probe took nothing: a foresight run is refused as before, with Terraform's message.
    const refused = fs(dir, ['plan', '-no-color']);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /Error acquiring the state lock/);
    await other.query(`SELECT pg_advisory_unlock(${id})`);
    assert.equal((await readState(dir)).lock, undefined, 'released');
  } finally {
    await other.end().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('conn_str sslmode as lib/pq reads it, in both forms: require encrypts without checking the certificate (node-postgres alone would verify it)', async () => {
  const { connectionSettings } = await import('../../server/backends/pg/index');
  const dir = mkdtempSync(join(tmpdir(), 'foresight-pgssl-'));
  try {
    writeFileSync(join(dir, 'ca.pem'), 'CA PEM');
    assert.deepEqual(connectionSettings('postgres://ci@db.internal/tfstate?sslmode=require'), { connectionString: 'postgres://ci@db.internal/tfstate', ssl: { rejectUnauthorized: false } });
    assert.deepEqual(connectionSettings('postgres://postgres@/t1?host=%2Ftmp%2Fx&sslmode=disable'), { connectionString: 'postgres://postgres@/t1?host=%2Ftmp%2Fx', ssl: false });
    assert.deepEqual(connectionSettings(`postgres://ci@db/tf?sslmode=verify-full&sslrootcert=${encodeURIComponent(join(dir, 'ca.pem'))}`), { connectionString: 'postgres://ci@db/tf', ssl: { ca: 'CA PEM', rejectUnauthorized: true } });
    const ca = connectionSettings(`host=db dbname=tf sslmode=verify-ca sslrootcert='${join(dir, 'ca.pem')}'`) as { ssl: { ca: string; rejectUnauthorized: boolean; checkServerIdentity: () => undefined } };
    assert.equal(ca.ssl.ca, 'CA PEM');
    assert.equal(ca.ssl.rejectUnauthorized, true);
    assert.equal(ca.ssl.checkServerIdentity(), undefined, 'verify-ca: any host name');
    assert.deepEqual(connectionSettings("host=/tmp/x port=5433 user=ci dbname='my db' sslmode=require connect_timeout=5"), { host: '/tmp/x', port: 5433, user: 'ci', database: 'my db', ssl: { rejectUnauthorized: false }, connectionTimeoutMillis: 5000 });
    assert.deepEqual(connectionSettings('postgres://ci@db/tf'), { connectionString: 'postgres://ci@db/tf' }, 'no sslmode: node-postgres decides');
    // A certificate file that cannot be read is a configuration error, not a crash.
    const bad = configurePgBackend({ conn_str: `postgres://ci@db/tf?sslmode=verify-full&sslrootcert=${encodeURIComponent(join(dir, 'missing.pem'))}` }, {});
    assert.equal(bad.backend, undefined);
    assert.equal(bad.diagnostics[0].summary, 'Invalid backend configuration');
    assert.match(bad.diagnostics[0].detail ?? '', /^conn_str: ENOENT: no such file or directory, open '.*missing\.pem'$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
