// HttpStateManager: the http backend's state manager (Terraform 1.11.4's states/remote.State over the http client),
// plus Foresight's local apply journal for it. Siblings: client.ts (wire protocol), config.ts, index.ts (backend).
//
// Behaviour kept from Terraform's remote.State:
// - refresh() GETs the state. No state resets lineage/serial and the read snapshot, but keeps the transient state.
// - persist() does nothing when the state, lineage and serial equal what was last read/written (no request at all).
//   Otherwise the serial is incremented and the whole state file is sent (update_method, ?ID= while locked). When
//   nothing was read, it first GETs again: no state there -> new lineage, serial 1; a state there -> that state,
//   lineage and serial replace ours (Terraform's own behaviour in that race).
// - lock()/unlock() go straight to the client (no lock_address: no-op, lock ID '').
// During an apply (journalListener), Terraform's StateHook cadence is kept: the whole state is POSTed at most once
// per persist interval (20 s, or TF_STATE_PERSIST_INTERVAL when larger), the first change starting the clock, and at
// the end. Foresight adds durability in between: with a data directory, every change is first appended and fsynced to
// a local journal (the local backend's format and invariants J1-J6, server/backends/local/journal.ts) at
// `<data dir>/foresight-http-<hash of address>.journal`, a checkpoint record is written before each POST, and the
// journal is deleted once a POST holding all of it succeeded. A run killed in between leaves the journal; the next
// refresh() replays it when the remote state is still the one it started from or checkpointed (J5; else it is set
// aside as `.stale`), and, holding the lock, POSTs the recovered state and deletes the journal.

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { error, warning, type Diagnostic } from '../../diags/diagnostic';
import { applyChange, type Change, type ChangeListener, type State } from '../../states/state';
import { newLineage, readStateFile, statesMarshalEqual, TERRAFORM_VERSION, writeStateFile, type StateFile } from '../../states/statefile';
import type { Full, LockHolder, LockInfo, SnapshotMeta } from '../../states/statemgr';
import { decodeJournal, journalApplies, JournalWriter, replayJournal } from '../local/journal';
import { HttpLockError, type HttpClient } from './client';

/**
 * The lock holder a refused LOCK of this process was answered with, by lock address, until a LOCK of that address
 * succeeds: the http protocol has no way to ask who holds a lock without taking it (see lockHolder()).
 */
const refusedBy = new Map<string, { holder: LockInfo; at: string }>();

export interface HttpStateOptions {
  /** Absolute data directory (.terraform or TF_DATA_DIR resolved); enables the apply journal. */
  dataDir?: string;
  /** Persist interval during apply in ms (default 20000). */
  persistIntervalMs?: number;
}

/** time.Now().UTC() marshalled as Go does (RFC 3339 with nanoseconds, trailing zeros trimmed). */
function rfc3339Nano(d: Date): string {
  const iso = d.toISOString();
  const sub = (process.hrtime.bigint() % 1000000n).toString().padStart(6, '0');
  const frac = (iso.slice(20, 23) + sub).replace(/0+$/, '');
  return iso.slice(0, 19) + (frac ? '.' + frac : '') + 'Z';
}

export class HttpStateManager implements Full {
  private lineage = '';
  private serial = 0;
  private state: State | null = null;
  private readLineage = '';
  private readSerial = 0;
  private readState: State | null = null;

  private readonly journalFile: string | undefined;
  private readonly persistIntervalMs: number;
  private journal: JournalWriter | undefined;
  private journalState: State | undefined;
  private journalLineage = '';
  private lockID = '';
  private locked = false;

  constructor(
    readonly client: HttpClient,
    opts: HttpStateOptions = {},
  ) {
    this.persistIntervalMs = opts.persistIntervalMs ?? 20000;
    if (opts.dataDir) {
      const h = createHash('sha256').update(client.config.address).digest('hex').slice(0, 16);
      this.journalFile = join(opts.dataDir, `foresight-http-${h}.journal`);
    }
  }

  /** The persist interval during an apply, in ms. */
  get persistInterval(): number {
    return this.persistIntervalMs;
  }

  /** Where this manager journals an apply (undefined without a data directory). */
  get journalPath(): string | undefined {
    return this.journalFile;
  }

  // ---- Reader / Writer ------------------------------------------------------------------------------------------

  read(): State | null {
    return this.state ? this.state.deepCopy() : null;
  }

  write(state: State): void {
    this.state = state.deepCopy();
  }

  meta(): SnapshotMeta {
    return { serial: this.serial, lineage: this.lineage };
  }

  /** StateForMigration: the snapshot with its lineage and serial. */
  fileForMigration(): StateFile | undefined {
    return this.state ? { terraformVersion: TERRAFORM_VERSION, serial: this.serial, lineage: this.lineage, state: this.state.deepCopy() } : undefined;
  }

  /**
   * WriteStateForMigration(f, force=true): takes the source's state, lineage and serial. The next persist() then
   * follows remote.State: onto an existing remote state it sends serial f.serial+1; onto an empty backend it GETs,
   * finds nothing, and so sends a NEW lineage with serial 1 (what terraform 1.11.4 does when `init -migrate-state`
   * moves local state into an empty http backend; http-interop.test.ts checks it).
   */
  writeForMigration(f: StateFile): void {
    this.state = f.state.deepCopy();
    this.lineage = f.lineage;
    this.serial = f.serial;
  }

  /** The http backend keeps no lock info on disk: a path that never exists (the CLI and preview look for one). */
  lockInfoPath(): string {
    return join(this.journalFile ? join(this.journalFile, '..') : '.terraform', 'foresight-http-no-lock-info');
  }

  // ---- Refresher ------------------------------------------------------------------------------------------------

  /** refreshState; returns Terraform's error text or undefined. */
  private async fetch(): Promise<{ err?: string; diags: Diagnostic[]; disk?: { lineage: string; serial: number } }> {
    let text: string | undefined;
    try {
      text = await this.client.get();
    } catch (e) {
      return { err: (e as Error).message, diags: [] };
    }
    if (text === undefined) {
      this.readState = null;
      this.lineage = '';
      this.serial = 0;
      return { diags: [] };
    }
    const r = readStateFile(text);
    if (r.diags.some((d) => d.severity === 'error') || !r.file) return { diags: r.diags.length ? r.diags : [error('Failed to load state', 'The remote state is empty.')] };
    this.lineage = r.file.lineage;
    this.serial = r.file.serial;
    this.state = r.file.state;
    this.readLineage = r.file.lineage;
    this.readSerial = r.file.serial;
    this.readState = r.file.state.deepCopy();
    return { diags: r.diags, disk: { lineage: r.file.lineage, serial: r.file.serial } };
  }

  async refresh(): Promise<Diagnostic[]> {
    const f = await this.fetch();
    if (f.err !== undefined) return [error(`error loading state: ${f.err}`)];
    if (f.diags.some((d) => d.severity === 'error')) return f.diags;
    const diags = [...f.diags];
    if (this.journalFile && existsSync(this.journalFile) && !this.journal) diags.push(...(await this.recoverJournal(f.disk)));
    return diags;
  }

  /** J5/J6 for the remote state: replay a leftover journal; with the lock, push the result and delete the journal. */
  private async recoverJournal(disk: { lineage: string; serial: number } | undefined): Promise<Diagnostic[]> {
    const jp = this.journalFile!;
    let text: string;
    try {
      text = readFileSync(jp, 'utf8');
    } catch {
      return [];
    }
    const j = decodeJournal(text);
    if (!j.header) {
      if (this.locked) unlinkSync(jp);
      return [];
    }
    if (!journalApplies(j, disk)) {
      if (!this.locked) return [];
      renameSync(jp, jp + '.stale');
      return [
        warning(
          'Stale state journal set aside',
          `Foresight found the journal of an interrupted run for ${this.client.config.address}, but the remote state was changed after that run, so the journal was not replayed. It was moved to ${jp}.stale for inspection.`,
        ),
      ];
    }
    const recovered = replayJournal(j)!;
    const diags: Diagnostic[] = [];
    if (j.tail) diags.push(warning('Incomplete state journal record ignored', `The last change recorded by an interrupted run could not be read (${j.tail}); it was not applied. This happens when a run stops while writing.`));
    const same = !!this.readState && statesMarshalEqual(this.readState, recovered);
    if (same) {
      if (this.locked) unlinkSync(jp);
      return diags;
    }
    const top = Math.max(disk?.serial ?? 0, j.header.disk_serial ?? 0, ...j.checkpoints);
    this.state = recovered.deepCopy();
    this.lineage = j.header.lineage;
    if (!this.locked) {
      // J6: in memory only; the snapshot looks like a state that was read.
      this.serial = top + 1;
      return diags;
    }
    // Push as the successor of the highest serial the journal's run may have written.
    this.serial = top;
    this.readState = disk ? this.readState : null;
    try {
      await this.putCurrent();
    } catch (e) {
      diags.push(error('Failed to save state', `Error saving the state recovered from ${jp}: ${(e as Error).message}`));
      return diags;
    }
    unlinkSync(jp);
    diags.push(warning('State recovered from journal', `Foresight replayed ${j.changes.length} recorded change(s) of an interrupted run onto the state at ${this.client.config.address}.`));
    return diags;
  }

  // ---- Persister ------------------------------------------------------------------------------------------------

  /**
   * Sends the snapshot (lineage, serial, state) and makes it the reference; with a journal, records the checkpoint
   * first (J1) and deletes the journal once the sent state holds all of it (J4).
   */
  private async send(): Promise<void> {
    const state = this.state!;
    const text = writeStateFile({ terraformVersion: TERRAFORM_VERSION, serial: this.serial, lineage: this.lineage, state });
    this.journal?.checkpoint(this.serial);
    await this.client.put(text);
    this.readState = state.deepCopy();
    this.readLineage = this.lineage;
    this.readSerial = this.serial;
    if (this.journal && this.journalState && statesMarshalEqual(this.journalState, state)) {
      this.journal.remove();
      this.journal = undefined;
      this.journalState = undefined;
    }
  }

  /** Recovery: sends the recovered state as the successor of the current serial. */
  private async putCurrent(): Promise<void> {
    this.serial++;
    await this.send();
  }

  /** PersistState; throws Terraform's error text. */
  private async persistOrThrow(): Promise<void> {
    if (!this.state) return;
    if (this.readState) {
      const lineageUnchanged = this.readLineage !== '' && this.lineage === this.readLineage;
      const serialUnchanged = this.readSerial !== 0 && this.serial === this.readSerial;
      if (lineageUnchanged && serialUnchanged && statesMarshalEqual(this.state, this.readState)) return;
      this.serial++;
    } else {
      const f = await this.fetch();
      if (f.err !== undefined) throw new Error(`failed checking for existing remote state: ${f.err}`);
      if (f.diags.some((d) => d.severity === 'error')) throw new Error(`failed checking for existing remote state: ${f.diags[0].summary}`);
      if (this.lineage === '') {
        // A new state. With an apply journal, its header already fixed the lineage (the journal must name the
        // lineage the server will hold); otherwise a new one, as remote.State makes it here.
        this.lineage = this.journal ? this.journalLineage : newLineage(randomBytes);
        this.serial++;
      }
    }
    await this.send();
  }

  async persist(): Promise<Diagnostic[]> {
    try {
      await this.persistOrThrow();
      return [];
    } catch (e) {
      return [error('Failed to save state', `Error saving state: ${(e as Error).message}`)];
    }
  }

  /**
   * A listener for the SyncState of an apply walk starting from `start`: journals each change (when a data directory
   * was given) and persists to the server at Terraform's cadence (see the header). The caller ends the walk with
   * `write(await sync.close())` and `persist()`. A failed intermediate persist stops the walk, as Terraform's
   * StateHook halts the apply; the journal still holds every completed change.
   */
  journalListener(start: State): ChangeListener {
    if (this.journal) throw new Error('journalListener: the previous walk was not finished with persist()');
    const st = start.deepCopy();
    this.journalState = st;
    let lastPersist = 0;
    return async (c: Change) => {
      if (lastPersist === 0) lastPersist = Date.now();
      if (this.journalFile && !this.journal) {
        mkdirSync(join(this.journalFile, '..'), { recursive: true });
        if (existsSync(this.journalFile)) renameSync(this.journalFile, this.journalFile + '.stale');
        // With no remote state yet, the lineage the first POST will use is chosen now, for the journal's header.
        const lineage = this.lineage !== '' ? this.lineage : newLineage(randomBytes);
        this.journalLineage = lineage;
        this.journal = new JournalWriter(this.journalFile, {
          lineage,
          disk_serial: this.readState ? this.readSerial : null,
          base: writeStateFile({ terraformVersion: TERRAFORM_VERSION, serial: 0, lineage, state: start }),
        });
      }
      this.journal?.append(c);
      applyChange(st, c);
      this.write(st);
      if (Date.now() - lastPersist >= this.persistIntervalMs) {
        await this.persistOrThrow();
        lastPersist = Date.now();
      }
    };
  }

  // ---- Locker ---------------------------------------------------------------------------------------------------

  async lock(info: LockInfo): Promise<string> {
    const full: LockInfo = { ...info, Created: info.Created || rfc3339Nano(new Date()) };
    const key = this.client.config.lockAddress ?? '';
    let id: string;
    try {
      id = await this.client.lock(full);
    } catch (e) {
      if (e instanceof HttpLockError) refusedBy.set(key, { holder: e.holder, at: rfc3339Nano(new Date()) });
      throw e;
    }
    refusedBy.delete(key);
    this.lockID = id;
    this.locked = true;
    return id;
  }

  async unlock(id: string): Promise<void> {
    // An unfinished journal stays on disk: exactly what a crash would leave, recovered next time.
    this.journal?.close();
    this.journal = undefined;
    this.locked = false;
    this.lockID = '';
    await this.client.unlock(id);
  }

  /**
   * LockProber for the editor: asking an http backend who holds the lock would mean taking it (LOCK), which could
   * refuse a run starting at that moment, so this tells only what the last refused LOCK of this process was
   * answered with (the holder's own lock info), until a LOCK succeeds; undefined (cannot tell) otherwise.
   */
  async lockHolder(): Promise<LockHolder | undefined> {
    const r = refusedBy.get(this.client.config.lockAddress ?? '');
    if (!r) return undefined;
    return { id: r.holder.ID, who: r.holder.Who, operation: `${r.holder.Operation} (as the lock server answered a run refused at ${r.at})`, created: r.holder.Created };
  }

  /** The lock ID this manager holds ('' when none or the backend has no lock_address). */
  get heldLockID(): string {
    return this.lockID;
  }
}
