// Crash safety of the apply journal (server/backends/local/journal.ts, filesystem.ts): a run is recorded once,
// then every crash point is simulated by rebuilding the working directory as a crash at that point leaves it
// (state file as last written, journal cut at every byte offset, a torn final rewrite, a crash before the
// journal was deleted), and recovery must give exactly the state of the complete records, never a torn one.

import { test as nodeTest } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SyncState, State, type Change, type ObjectSrc } from '../../server/states/state';
import { readStateFile, writeStateFile } from '../../server/states/statefile';
import { decodeJournal, encodeLine, journalPath } from '../../server/backends/local/journal';
import { FilesystemStateManager, newLockInfo } from '../../server/backends/local/filesystem';

const P = 'provider["terraform.io/builtin/terraform"]';
const obj = (id: string): ObjectSrc => ({
  schemaVersion: 0,
  attrsJSON: `{"id":${JSON.stringify(id)},"input":null,"output":null,"triggers_replace":null}`,
  sensitivePaths: [],
  status: 'ready',
  dependencies: [],
  createBeforeDestroy: false,
});
const addr = (name: string, key?: number) => ({ module: '', mode: 'managed' as const, type: 'terraform_data', name, key });

const CHANGES: Change[] = [
  { op: 'current', addr: addr('a', 0), provider: P, obj: obj('a0') },
  { op: 'current', addr: addr('a', 1), provider: P, obj: obj('a1 <&> "quoted"\n') },
  { op: 'depose', addr: addr('old'), deposedKey: '0badcafe' },
  { op: 'current', addr: addr('old'), provider: P, obj: obj('new') },
  { op: 'deposed', addr: addr('old'), deposedKey: '0badcafe', provider: P, obj: null },
  { op: 'output', name: 'o', value: { valueJSON: '"v"', typeJSON: '"string"', sensitive: false } },
];

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'foresight-journal-'));
}

function initialState(): string {
  const s = new State();
  s.ensureModule('');
  const st = new State();
  const sync = new SyncState(st);
  sync.setResourceInstanceCurrent(addr('old'), obj('old'), P);
  return writeStateFile({ terraformVersion: '1.11.4', serial: 7, lineage: 'aaaaaaaa-0000-0000-0000-000000000001', state: st });
}

/** The state text expected after the first `k` changes (layout-only serial/lineage). */
function expectedAfter(k: number): string {
  const st = readStateFile(initialState()).file!.state;
  const sync = new SyncState(st);
  for (const c of CHANGES.slice(0, k)) sync.apply(c);
  return writeStateFile({ terraformVersion: '1.11.4', serial: 0, lineage: '', state: st });
}
const layout = (text: string) => {
  const f = readStateFile(text).file!;
  return writeStateFile({ terraformVersion: '1.11.4', serial: 0, lineage: '', state: f.state });
};

/** Runs the walk once, returning the journal bytes as they were just before the final persist. */
async function recordRun(interval: number): Promise<{ journal: Buffer; final: string; dir: string }> {
  const dir = tmp();
  writeFileSync(join(dir, 'terraform.tfstate'), initialState());
  const mgr = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate', checkpointIntervalMs: interval });
  const id = await mgr.lock(newLockInfo('OperationTypeApply'));
  assert.deepEqual(await mgr.refresh(), []);
  const sync = new SyncState(mgr.read()!, mgr.journalListener(mgr.read()!));
  for (const c of CHANGES) sync.apply(c);
  await sync.flush();
  const jp = join(dir, journalPath('terraform.tfstate'));
  const journal = interval === Infinity ? readFileSync(jp) : Buffer.alloc(0);
  mgr.write(await sync.close());
  assert.deepEqual(await mgr.persist(), []);
  assert.equal(existsSync(jp), false, 'journal deleted after the final persist');
  await mgr.unlock(id);
  return { journal, final: readFileSync(join(dir, 'terraform.tfstate'), 'utf8'), dir };
}

async function recover(dir: string): Promise<{ text: string; diags: string[] }> {
  const mgr = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate' });
  const id = await mgr.lock(newLockInfo('OperationTypeApply'));
  const diags = (await mgr.refresh()).map((d) => `${d.severity}: ${d.summary}`);
  const text = readFileSync(join(dir, 'terraform.tfstate'), 'utf8');
  assert.equal(existsSync(join(dir, journalPath('terraform.tfstate'))), false, 'journal compacted');
  assert.equal(layout(writeStateFile({ terraformVersion: '1.11.4', serial: 0, lineage: '', state: mgr.read()! })), layout(text));
  await mgr.unlock(id);
  return { text, diags };
}

// Child mode for the kill test below: this same bundled file, started with FORESIGHT_CRASH_CHILD=<dir>, runs an
// endless apply-like walk and prints the number of each change once apply() has returned (= durable).
const CHILD_DIR = process.env.FORESIGHT_CRASH_CHILD;
/** In child mode no test of this file runs. */
const test = (CHILD_DIR ? () => undefined : nodeTest) as typeof nodeTest;
if (CHILD_DIR) {
  void (async () => {
    const mgr = new FilesystemStateManager({ cwd: CHILD_DIR, path: 'terraform.tfstate', checkpointIntervalMs: 50 });
    await mgr.lock(newLockInfo('OperationTypeApply'));
    await mgr.refresh();
    const sync = new SyncState(mgr.read()!, mgr.journalListener(mgr.read()!));
    for (let i = 0; ; i++) {
      sync.apply({ op: 'current', addr: addr('n', i), provider: P, obj: obj(`n${i}`) });
      process.stdout.write(`${i}\n`);
      await new Promise((r) => setTimeout(r, 1));
    }
  })();
}

test('SIGKILL at random moments: every acknowledged change survives, nothing torn is applied', async () => {
  const { spawn } = await import('node:child_process');
  for (let round = 0; round < 8; round++) {
    const dir = tmp();
    writeFileSync(join(dir, 'terraform.tfstate'), initialState());
    const child = spawn(process.execPath, [__filename], { env: { ...process.env, FORESIGHT_CRASH_CHILD: dir }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise((r) => setTimeout(r, 150 + round * 40));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    const acked = out.split('\n').filter((l) => /^\d+$/.test(l)).length;
    const { text } = await recover(dir);
    const st = readStateFile(text).file!.state;
    const r = st.resource(addr('n'));
    const n = r ? r.instances.size : 0;
    assert.ok(n >= acked, `round ${round}: ${n} changes recovered, ${acked} acknowledged`);
    assert.ok(n <= acked + 1, `round ${round}: at most the one unacknowledged change in flight`);
    for (let i = 0; i < n; i++) assert.ok(st.object(addr('n', i)), `round ${round}: change ${i} present (linear prefix)`);
    rmSync(dir, { recursive: true });
  }
});

test('a complete run leaves the final state and no journal', async () => {
  const { final, dir } = await recordRun(Infinity);
  assert.equal(layout(final), expectedAfter(CHANGES.length));
  const f = readStateFile(final).file!;
  assert.equal(f.serial, 8);
  assert.equal(f.lineage, 'aaaaaaaa-0000-0000-0000-000000000001');
  assert.deepEqual(readdirSync(dir).sort(), ['terraform.tfstate', 'terraform.tfstate.backup']);
  assert.equal(readFileSync(join(dir, 'terraform.tfstate.backup'), 'utf8'), initialState());
  rmSync(dir, { recursive: true });
});

test('crash at every byte of the journal: recovery applies exactly the complete records', async () => {
  const { journal, dir: d0 } = await recordRun(Infinity);
  rmSync(d0, { recursive: true });
  const lines = journal.toString('utf8').split('\n').slice(0, -1);
  assert.equal(lines.length, 1 + CHANGES.length);
  const ends: number[] = [];
  let off = 0;
  for (const l of lines) ends.push((off += Buffer.byteLength(l, 'utf8') + 1));
  const dir = tmp();
  for (let cut = 0; cut <= journal.length; cut++) {
    rmSync(dir, { recursive: true, force: true });
    const d = mkdtempSync(join(tmpdir(), 'foresight-crash-'));
    writeFileSync(join(d, 'terraform.tfstate'), initialState());
    writeFileSync(join(d, journalPath('terraform.tfstate')), journal.subarray(0, cut));
    const complete = ends.filter((e) => e <= cut).length; // header + records fully written
    const { text, diags } = await recover(d);
    if (complete <= 1) {
      // No header (J3) or no record: nothing to apply, state untouched.
      assert.equal(text, initialState(), `cut ${cut}`);
    } else {
      assert.equal(layout(text), expectedAfter(complete - 1), `cut ${cut}`);
      assert.equal(readStateFile(text).file!.serial, 8, `cut ${cut}`);
      assert.ok(diags.includes('warning: State recovered from journal'), `cut ${cut}`);
    }
    const torn = cut !== ends.find((e) => e >= cut) && complete >= 1;
    assert.equal(diags.includes('warning: Incomplete state journal record ignored'), torn && complete >= 1 && cut > ends[0], `cut ${cut} ${diags}`);
    rmSync(d, { recursive: true });
  }
});

test('crash while rewriting the state file in place, and before deleting the journal', async () => {
  const { journal, final, dir: d0 } = await recordRun(Infinity);
  rmSync(d0, { recursive: true });
  for (const cut of [0, 1, 100, final.length - 1]) {
    const d = tmp();
    writeFileSync(join(d, 'terraform.tfstate'), final.slice(0, cut));
    writeFileSync(join(d, journalPath('terraform.tfstate')), journal);
    const { text } = await recover(d);
    assert.equal(layout(text), expectedAfter(CHANGES.length), `torn at ${cut}`);
    rmSync(d, { recursive: true });
  }
  // The final state was written (with a checkpoint record first) but the journal not yet deleted.
  const d = tmp();
  const serial = readStateFile(final).file!.serial;
  writeFileSync(join(d, 'terraform.tfstate'), final);
  writeFileSync(join(d, journalPath('terraform.tfstate')), Buffer.concat([journal, Buffer.from(encodeLine({ seq: CHANGES.length + 1, checkpoint: serial }))]));
  const { text } = await recover(d);
  assert.equal(text, final, 'nothing rewritten, serial unchanged');
  rmSync(d, { recursive: true });
});

test('a journal older than the state file is set aside, not replayed', async () => {
  const { journal, dir: d0 } = await recordRun(Infinity);
  rmSync(d0, { recursive: true });
  const d = tmp();
  const newer = readStateFile(initialState()).file!;
  const text = writeStateFile({ ...newer, serial: 42 });
  writeFileSync(join(d, 'terraform.tfstate'), text);
  writeFileSync(join(d, journalPath('terraform.tfstate')), journal);
  const { text: after, diags } = await recover(d);
  assert.equal(after, text);
  assert.deepEqual(diags, ['warning: Stale state journal set aside']);
  assert.ok(existsSync(join(d, journalPath('terraform.tfstate') + '.stale')));
  rmSync(d, { recursive: true });
});

test('readers without the lock see a leftover journal replayed but change nothing', async () => {
  const { journal, dir: d0 } = await recordRun(Infinity);
  rmSync(d0, { recursive: true });
  const d = tmp();
  writeFileSync(join(d, 'terraform.tfstate'), initialState());
  writeFileSync(join(d, journalPath('terraform.tfstate')), journal);
  const mgr = new FilesystemStateManager({ cwd: d, path: 'terraform.tfstate' });
  await mgr.refresh();
  assert.equal(writeStateFile({ terraformVersion: '1.11.4', serial: 0, lineage: '', state: mgr.read()! }), expectedAfter(CHANGES.length));
  assert.equal(readFileSync(join(d, 'terraform.tfstate'), 'utf8'), initialState());
  assert.ok(existsSync(join(d, journalPath('terraform.tfstate'))));
  rmSync(d, { recursive: true });
});

test('checkpoint after every change (Terraform cadence) writes the state as it goes and ends clean', async () => {
  const dir = tmp();
  writeFileSync(join(dir, 'terraform.tfstate'), initialState());
  const mgr = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate', checkpointIntervalMs: 0 });
  const id = await mgr.lock(newLockInfo('OperationTypeApply'));
  await mgr.refresh();
  const sync = new SyncState(mgr.read()!, mgr.journalListener(mgr.read()!));
  for (let k = 0; k < CHANGES.length; k++) {
    sync.apply(CHANGES[k]);
    await sync.flush();
    const onDisk = readFileSync(join(dir, 'terraform.tfstate'), 'utf8');
    assert.equal(layout(onDisk), expectedAfter(k + 1));
    assert.equal(existsSync(join(dir, journalPath('terraform.tfstate'))), false);
  }
  mgr.write(await sync.close());
  await mgr.persist();
  await mgr.unlock(id);
  // Like Terraform, every write that differs from the state read at the start bumps the serial: 7 + 6 + final.
  assert.equal(readStateFile(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')).file!.serial, 14);
  rmSync(dir, { recursive: true });
});

test('journal codec: checksums, sequence and torn tails', () => {
  const h = encodeLine({ foresight_journal: 1, lineage: 'l', disk_serial: null, base: '' });
  const r1 = encodeLine({ seq: 1, checkpoint: 3 });
  assert.deepEqual(decodeJournal(h + r1).checkpoints, [3]);
  assert.equal(decodeJournal(h + r1.replace('3', '4')).tail, 'record 1: checksum mismatch');
  assert.equal(decodeJournal(h + encodeLine({ seq: 2, checkpoint: 3 })).tail, 'record 1: sequence 2, expected 1');
  assert.equal(decodeJournal(h + r1.slice(0, -1)).tail, 'record 1: incomplete');
  assert.equal(decodeJournal(h.slice(0, -1)).header, undefined);
});

test('a run that stops without its final persist is recovered by the next locker', async () => {
  const dir = tmp();
  writeFileSync(join(dir, 'terraform.tfstate'), initialState());
  const mgr = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate', checkpointIntervalMs: Infinity });
  const id = await mgr.lock(newLockInfo('OperationTypeApply'));
  await mgr.refresh();
  const sync = new SyncState(mgr.read()!, mgr.journalListener(mgr.read()!));
  for (const c of CHANGES.slice(0, 3)) sync.apply(c); // durable when apply returns (synchronous journal)
  assert.equal(decodeJournal(readFileSync(join(dir, journalPath('terraform.tfstate')), 'utf8')).changes.length, 3);
  await mgr.unlock(id); // e.g. the process is interrupted: no final persist
  assert.equal(readFileSync(join(dir, 'terraform.tfstate'), 'utf8'), initialState());
  const { text, diags } = await recover(dir);
  assert.equal(layout(text), expectedAfter(3));
  assert.deepEqual(diags, ['warning: State recovered from journal']);
  rmSync(dir, { recursive: true });
});

test('without the lock (-lock=false) the state file is replaced atomically and the journal still protects it', async () => {
  const dir = tmp();
  writeFileSync(join(dir, 'terraform.tfstate'), initialState());
  const { statSync } = await import('node:fs');
  const ino = statSync(join(dir, 'terraform.tfstate')).ino;
  const mgr = new FilesystemStateManager({ cwd: dir, path: 'terraform.tfstate', checkpointIntervalMs: Infinity });
  await mgr.refresh();
  const sync = new SyncState(mgr.read()!, mgr.journalListener(mgr.read()!));
  for (const c of CHANGES) sync.apply(c);
  assert.ok(existsSync(join(dir, journalPath('terraform.tfstate'))));
  mgr.write(await sync.close());
  assert.deepEqual(await mgr.persist(), []);
  assert.notEqual(statSync(join(dir, 'terraform.tfstate')).ino, ino);
  assert.equal(layout(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')), expectedAfter(CHANGES.length));
  assert.deepEqual(readdirSync(dir).sort(), ['terraform.tfstate', 'terraform.tfstate.backup']);
  rmSync(dir, { recursive: true });
});
