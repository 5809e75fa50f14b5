// The local backend (server/backends/local): Terraform's persistence rules (serial, lineage, backup, empty-file
// cleanup, lock info), workspaces, atomic writes, and locking against a real `terraform` both ways (skipped with
// a notice when terraform is not installed).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { State } from '../../server/states/state';
import { readStateFile, writeStateFile } from '../../server/states/statefile';
import { LockError, lockAcquireDiagnostic, lockInfoString, lockWithTimeout, parseLockInfo, goTimeString } from '../../server/states/statemgr';
import { FilesystemStateManager, newLockInfo } from '../../server/backends/local/filesystem';
import { LocalBackend } from '../../server/backends/local/backend';
import { writeFileAtomic } from '../../server/backends/local/atomic';
import { lockingMode } from '../../server/backends/local/flock';

const DATA = join(process.cwd(), 'test/data/states');
const tmp = () => mkdtempSync(join(tmpdir(), 'foresight-local-'));

function withOutput(s: State, name: string, v: string): State {
  s.outputs.set(name, { valueJSON: JSON.stringify(v), typeJSON: '"string"', sensitive: false });
  return s;
}

test('the fcntl addon is built and used', () => {
  assert.notEqual(lockingMode(), 'none', 'native/fcntl was not built: run `node native/build.mjs`');
});

test('first persist: new lineage, serial 1, no backup; unchanged persist keeps the serial', async () => {
  const dir = tmp();
  const mgr = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  const id = await mgr.lock(newLockInfo('OperationTypeApply'));
  assert.ok(existsSync(join(dir, 'terraform.tfstate')), 'lock creates the state file');
  assert.deepEqual(await mgr.refresh(), []);
  assert.equal(mgr.read(), null);
  mgr.write(withOutput(new State(), 'a', 'x'));
  assert.deepEqual(await mgr.persist(), []);
  const f1 = readStateFile(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')).file!;
  assert.equal(f1.serial, 1);
  assert.match(f1.lineage, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  await mgr.unlock(id);
  assert.deepEqual(readdirSync(dir), ['terraform.tfstate']);

  // Second run: same content -> serial unchanged, file rewritten, no backup.
  const m2 = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  const id2 = await m2.lock(newLockInfo('OperationTypeApply'));
  await m2.refresh();
  m2.write(m2.read()!);
  await m2.persist();
  assert.equal(readStateFile(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')).file!.serial, 1);
  assert.ok(!existsSync(join(dir, 'terraform.tfstate.backup')));
  // A change -> backup of the prior file (once), serial + 1, then further writes keep bumping from the read state.
  const before = readFileSync(join(dir, 'terraform.tfstate'), 'utf8');
  m2.write(withOutput(m2.read()!, 'b', 'y'));
  await m2.persist();
  assert.equal(readFileSync(join(dir, 'terraform.tfstate.backup'), 'utf8'), before);
  m2.write(withOutput(m2.read()!, 'c', 'z'));
  await m2.persist();
  assert.equal(readFileSync(join(dir, 'terraform.tfstate.backup'), 'utf8'), before, 'backup written once per run');
  const f3 = readStateFile(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')).file!;
  assert.equal(f3.serial, 3);
  assert.equal(f3.lineage, f1.lineage);
  await m2.unlock(id2);
  rmSync(dir, { recursive: true });
});

test('lock info file, conflicts, wrong ids, and cleanup of a created empty file', async () => {
  const dir = tmp();
  const a = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  const info = newLockInfo('OperationTypePlan');
  const id = await a.lock(info);
  const infoPath = join(dir, '.terraform.tfstate.lock.info');
  const raw = readFileSync(infoPath, 'utf8');
  assert.equal(statSync(infoPath).mode & 0o777, 0o600);
  assert.match(raw, /^\{"ID":"[0-9a-f-]{36}","Operation":"OperationTypePlan","Info":"","Who":"[^"]+@[^"]+","Version":"1\.11\.4","Created":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z","Path":"terraform\.tfstate"\}$/);
  await assert.rejects(a.lock(newLockInfo('x')), /state "terraform.tfstate" already locked/);

  const b = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  let err: unknown;
  try {
    await b.lock(newLockInfo('OperationTypeApply'));
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof LockError);
  assert.equal(err.message, 'resource temporarily unavailable\n' + lockInfoString(parseLockInfo(raw)!));
  assert.equal(err.info!.ID, id);

  await assert.rejects(a.unlock('nope'), (e: Error) => e instanceof LockError && e.message.startsWith(`invalid lock id: "nope". current id: "${id}"\nLock Info:`));
  await a.unlock(id);
  assert.deepEqual(readdirSync(dir), [], 'lock-created empty state file and info file removed');
  await assert.rejects(a.unlock(id), /LocalState not locked/);

  // Without the info file the error names the missing file, as Terraform prints it.
  const c = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  const cid = await c.lock(newLockInfo('x'));
  rmSync(infoPath);
  const d = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  await assert.rejects(d.lock(newLockInfo('y')), (e: Error) => e.message === 'resource temporarily unavailable\nopen .terraform.tfstate.lock.info: no such file or directory');
  await c.unlock(cid);
  rmSync(dir, { recursive: true });
});

test('lockWithTimeout retries until the holder lets go', async () => {
  const dir = tmp();
  const a = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  const b = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  const id = await a.lock(newLockInfo('x'));
  await assert.rejects(lockWithTimeout(b, newLockInfo('y'), 0), LockError);
  let slow = false;
  setTimeout(() => void a.unlock(id), 300);
  const sleeps: number[] = [];
  const bid = await lockWithTimeout(b, newLockInfo('y'), 5000, {
    onSlow: () => (slow = true),
    sleep: (ms) => (sleeps.push(ms), new Promise((r) => setTimeout(r, 500))),
  });
  assert.ok(bid);
  assert.equal(sleeps[0], 1000);
  assert.ok(slow);
  await b.unlock(bid);
  rmSync(dir, { recursive: true });
});

test('lock error diagnostic text', () => {
  const info = { ID: 'f0ce4f75-d131-a145-7c0a-c0c15a6ee937', Operation: 'OperationTypeApply', Info: '', Who: 'root@vm', Version: '1.11.4', Created: '2026-11-22T17:52:25.913379805Z', Path: 'terraform.tfstate' };
  const d = lockAcquireDiagnostic(new LockError(['resource temporarily unavailable'], info));
  assert.equal(d.summary, 'Error acquiring the state lock');
  assert.equal(
    d.detail,
    'Error message: resource temporarily unavailable\nLock Info:\n  ID:        f0ce4f75-d131-a145-7c0a-c0c15a6ee937\n  Path:      terraform.tfstate\n  Operation: OperationTypeApply\n  Who:       root@vm\n  Version:   1.11.4\n  Created:   2026-11-22 17:52:25.913379805 +0000 UTC\n  Info:      \n\n\nTerraform acquires a state lock to protect the state from being written\nby multiple users at the same time. Please resolve the issue above and try\nagain. For most commands, you can disable locking with the "-lock=false"\nflag, but this is not recommended.',
  );
  assert.equal(goTimeString('2026-01-02T03:04:05Z'), '2026-01-02 03:04:05 +0000 UTC');
});

test('-state / -state-out / -backup paths and workspaces', async () => {
  const dir = tmp();
  const be = new LocalBackend({ cwd: dir, env: {} });
  assert.deepEqual(be.statePaths('default'), { stateIn: 'terraform.tfstate', stateOut: 'terraform.tfstate', backup: 'terraform.tfstate.backup' });
  assert.deepEqual(be.statePaths('dev'), { stateIn: 'terraform.tfstate.d/dev/terraform.tfstate', stateOut: 'terraform.tfstate.d/dev/terraform.tfstate', backup: 'terraform.tfstate.d/dev/terraform.tfstate.backup' });
  const o = new LocalBackend({ cwd: dir, statePath: 'in.tfstate', stateOutPath: 'out/o.tfstate', backupPath: '-' });
  assert.deepEqual(o.statePaths('default'), { stateIn: 'in.tfstate', stateOut: 'out/o.tfstate', backup: '' });

  // -state is read, -state-out written (in a new folder), the lock info sits beside the output.
  writeFileSync(join(dir, 'in.tfstate'), readFileSync(join(DATA, 'taint.tfstate')));
  const mgr = await o.stateMgr('default');
  const id = await mgr.lock(newLockInfo('OperationTypeApply'));
  assert.ok(existsSync(join(dir, 'out/.o.tfstate.lock.info')));
  assert.equal(parseLockInfo(readFileSync(join(dir, 'out/.o.tfstate.lock.info'), 'utf8'))!.Path, 'in.tfstate');
  await mgr.refresh();
  mgr.write(withOutput(mgr.read()!, 'x', 'y'));
  await mgr.persist();
  await mgr.unlock(id);
  assert.equal(readFileSync(join(dir, 'in.tfstate'), 'utf8'), readFileSync(join(DATA, 'taint.tfstate'), 'utf8'));
  assert.equal(readStateFile(readFileSync(join(dir, 'out/o.tfstate'), 'utf8')).file!.serial, 5);

  assert.deepEqual(await be.workspaces(), ['default']);
  assert.equal(be.currentWorkspace(), 'default');
  await be.stateMgr('zeta');
  await be.stateMgr('alpha');
  writeFileSync(join(dir, 'terraform.tfstate.d', 'stray-file'), '');
  assert.deepEqual(await be.workspaces(), ['default', 'alpha', 'zeta']);
  be.selectWorkspace('zeta');
  assert.equal(readFileSync(join(dir, '.terraform/environment'), 'utf8'), 'zeta');
  assert.equal(be.currentWorkspace(), 'zeta');
  assert.equal(new LocalBackend({ cwd: dir, env: { TF_WORKSPACE: 'alpha' } }).currentWorkspace(), 'alpha');
  assert.equal((await be.deleteWorkspace('default', false))[0].detail, 'cannot delete default state');
  assert.deepEqual(await be.deleteWorkspace('zeta', false), []);
  assert.deepEqual(await be.workspaces(), ['default', 'alpha']);
  rmSync(dir, { recursive: true });
});

test('atomic writes replace the file whole and leave no temporary files', () => {
  const dir = tmp();
  const p = join(dir, 'f');
  writeFileSync(p, 'old');
  const before = statSync(p).ino;
  writeFileAtomic(p, 'new content');
  assert.equal(readFileSync(p, 'utf8'), 'new content');
  assert.notEqual(statSync(p).ino, before, 'replaced by rename, not rewritten');
  assert.deepEqual(readdirSync(dir), ['f']);
  mkdirSync(join(dir, 'd'));
  assert.throws(() => writeFileAtomic(join(dir, 'd'), 'x'));
  assert.deepEqual(readdirSync(dir).sort(), ['d', 'f'], 'a failed write cleans up its temporary file');
  rmSync(dir, { recursive: true });
});

// ---- interoperability with a real terraform --------------------------------------------------------------------

const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
if (!hasTerraform) console.log('# NOTICE: terraform not found on PATH; skipping the locking interop tests with a real terraform');

function tfEnv(dir: string): NodeJS.ProcessEnv {
  const rc = join(dir, '..', `${dir.split('/').pop()}.tfrc`);
  writeFileSync(rc, '');
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TF_')) env[k] = v;
  return { ...env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
}
function tf(dir: string, args: string[]) {
  return spawnSync('terraform', args, { cwd: dir, env: tfEnv(dir), encoding: 'utf8' });
}

test('terraform is refused while foresight holds the lock, and reads our lock info', { skip: !hasTerraform }, async () => {
  const dir = tmp();
  writeFileSync(join(dir, 'main.tf'), 'resource "terraform_data" "a" {\n  input = "x"\n}\n');
  assert.equal(tf(dir, ['init', '-input=false', '-no-color']).status, 0);
  assert.equal(tf(dir, ['apply', '-input=false', '-auto-approve', '-no-color']).status, 0);
  const mgr = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  const info = newLockInfo('OperationTypeApply');
  const id = await mgr.lock(info);
  const r = tf(dir, ['plan', '-input=false', '-no-color']);
  assert.equal(r.status, 1);
  const held = parseLockInfo(readFileSync(join(dir, '.terraform.tfstate.lock.info'), 'utf8'))!;
  const detail = lockAcquireDiagnostic(new LockError(['resource temporarily unavailable'], held)).detail!;
  // terraform parsed our info file, including the timestamp, and printed exactly what we would print.
  assert.ok(r.stderr.includes('Error: Error acquiring the state lock\n\n' + detail), r.stderr);
  // A state written by foresight while locked is what terraform reads afterwards.
  await mgr.refresh();
  mgr.write(withOutput(mgr.read()!, 'from_foresight', 'hello'));
  await mgr.persist();
  await mgr.unlock(id);
  const out = tf(dir, ['output', '-raw', 'from_foresight']);
  assert.equal(out.stdout, 'hello');
  const plan = tf(dir, ['plan', '-input=false', '-no-color', '-detailed-exitcode']);
  assert.equal(plan.status, 2, plan.stdout + plan.stderr); // the output is not in the config: it will be removed
  assert.match(plan.stdout, /from_foresight/);
  rmSync(dir, { recursive: true });
});

test('foresight is refused while terraform holds the lock, then reads its state', { skip: !hasTerraform }, async () => {
  const dir = tmp();
  writeFileSync(
    join(dir, 'main.tf'),
    'resource "terraform_data" "slow" {\n  input = "x"\n  provisioner "local-exec" {\n    command = "sleep 4"\n  }\n}\n',
  );
  assert.equal(tf(dir, ['init', '-input=false', '-no-color']).status, 0);
  const child = spawn('terraform', ['apply', '-input=false', '-auto-approve', '-no-color'], { cwd: dir, env: tfEnv(dir), stdio: 'ignore' });
  const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  const infoPath = join(dir, '.terraform.tfstate.lock.info');
  for (let i = 0; i < 100 && !existsSync(infoPath); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(existsSync(infoPath), 'terraform took the lock');
  const mgr = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  let err: unknown;
  try {
    await mgr.lock(newLockInfo('OperationTypeApply'));
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof LockError, String(err));
  assert.equal(err.errors[0], 'resource temporarily unavailable');
  assert.equal(err.info!.Operation, 'OperationTypeApply');
  assert.equal(err.info!.Version, '1.11.4');
  assert.equal(err.info!.Path, 'terraform.tfstate');
  assert.equal(await exited, 0);
  const id = await lockWithTimeout(mgr, newLockInfo('OperationTypeApply'), 2000);
  assert.deepEqual(await mgr.refresh(), []);
  const s = mgr.read()!;
  assert.ok(s.object({ module: '', mode: 'managed', type: 'terraform_data', name: 'slow', key: undefined }));
  await mgr.unlock(id);
  // Terraform's own file round-trips through our codec byte for byte.
  const text = readFileSync(join(dir, 'terraform.tfstate'), 'utf8');
  assert.equal(writeStateFile(readStateFile(text).file!), text);
  rmSync(dir, { recursive: true });
});

test('workspaces agree with terraform workspace list/select', { skip: !hasTerraform }, async () => {
  const dir = tmp();
  writeFileSync(join(dir, 'main.tf'), '');
  assert.equal(tf(dir, ['init', '-input=false', '-no-color']).status, 0);
  assert.equal(tf(dir, ['workspace', 'new', '-no-color', 'b-dev']).status, 0);
  assert.equal(tf(dir, ['workspace', 'new', '-no-color', 'a-prod']).status, 0);
  const be = new LocalBackend({ cwd: dir, env: {} });
  assert.deepEqual(await be.workspaces(), ['default', 'a-prod', 'b-dev']);
  assert.equal(be.currentWorkspace(), 'a-prod');
  be.selectWorkspace('b-dev');
  assert.equal(tf(dir, ['workspace', 'show']).stdout, 'b-dev\n');
  assert.equal(tf(dir, ['workspace', 'list']).stdout, '  default\n  a-prod\n* b-dev\n\n');
  rmSync(dir, { recursive: true });
});

test('acquireLock and releaseLock give Terraform diagnostics', async () => {
  const { acquireLock, releaseLock } = await import('../../server/states/statemgr');
  const dir = tmp();
  const a = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  const b = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  const got = await acquireLock(a, newLockInfo('OperationTypePlan'), 0);
  assert.ok(got.id);
  const refused = await acquireLock(b, newLockInfo('OperationTypePlan'), 0);
  assert.equal(refused.id, undefined);
  assert.equal(refused.diags[0].summary, 'Error acquiring the state lock');
  assert.match(refused.diags[0].detail!, /^Error message: resource temporarily unavailable\nLock Info:\n  ID:        /);
  assert.deepEqual(await releaseLock(a, got.id!), []);
  const bad = await releaseLock(a, got.id!);
  assert.equal(bad[0].summary, 'Error releasing the state lock');
  assert.match(bad[0].detail!, /^Error message: LocalState not locked\n\n/);
  rmSync(dir, { recursive: true });
});
