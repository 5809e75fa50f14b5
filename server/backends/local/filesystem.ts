// FilesystemStateManager: the local backend's state manager (Terraform's statemgr.Filesystem), plus the apply
// journal on top of it. Siblings: see flock.ts.
//
// Behaviour kept from Terraform (checked against 1.11.4):
// - Paths are kept as the user gave them (relative to `cwd`) for messages and the lock info's Path; I/O resolves
//   them against `cwd`. The state is read from `readPath` (-state) until the first persist, then from `path`
//   (-state-out, defaulting to -state).
// - lock() opens (creating if needed, with parent directories) the output state file and takes the fcntl write
//   lock on it (flock.ts), then writes `.<name>.lock.info` (mode 0600, compact JSON) beside it. A failed lock
//   reports the holder's lock info or the error reading it (and, unlike Terraform, closes the descriptor so a
//   retry locks whatever file is at the path then). unlock() deletes the info file, releases and closes,
//   and deletes the state file again if lock() created it and nothing was written.
// - The serial is incremented on every persist whose state differs from the snapshot read by refresh(); a new
//   lineage is made when there was no state. terraform_version is always ours (1.11.4).
// - The backup (`<out>.backup` unless disabled) receives the state file as it was when first opened, once, on
//   the first persist that changes the state; nothing is backed up when there was no prior state.
// - The state file is rewritten in place on the locked descriptor (truncate, write, fsync): the fcntl lock lives
//   on that inode, and a terraform waiting on it must find the new content there, so it is never replaced by a
//   rename while locked. Without a lock (-lock=false) the file is replaced atomically (atomic.ts).
// Added by Foresight: during an apply, changes are journalled (journal.ts, whose header states the invariants) and
// the state file is rewritten only at checkpoints (every `checkpointIntervalMs`, default 20 s; 0 = after every
// change, Terraform's own cadence) and at the end. refresh() replays a leftover journal (compacting it when
// locked). Not safe for concurrent calls from several async tasks: one operation owns a manager at a time.

import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeFileSync, constants } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { randomBytes } from 'node:crypto';
import { dirname, isAbsolute, join, basename } from 'node:path';
import { error, warning, type Diagnostic } from '../../diags/diagnostic';
import { applyChange, type Change, type ChangeListener, State } from '../../states/state';
import { canonicalState, newLineage, readStateFile, statesMarshalEqual, TERRAFORM_VERSION, withMeta, writeStateFile, type StateFile } from '../../states/statefile';
import { LockError, lockInfoJSON, parseLockInfo, type Full, type LockHolder, type LockInfo, type SnapshotMeta } from '../../states/statemgr';
import { rewriteInPlace, writeFileAtomic } from './atomic';
import { lockFd, lockingMode, unlockFd } from './flock';
import { decodeJournal, journalApplies, journalPath, JournalWriter, replayJournal } from './journal';

export interface FilesystemOptions {
  /** Directory relative paths are resolved against. */
  cwd: string;
  /** Where snapshots are written (-state-out, else -state, else terraform.tfstate). */
  path: string;
  /** Where the first snapshot is read from (-state); defaults to `path`. */
  readPath?: string;
  /** Backup path; '' disables backups. Defaults to `${path}.backup`. */
  backupPath?: string;
  /** Journal checkpoint interval in ms (see the header); default 20000. */
  checkpointIntervalMs?: number;
}

/** A new LockInfo for an operation (ID, Who, Version filled; Created and Path are set by lock()). */
export function newLockInfo(operation: string, info = ''): LockInfo {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // keep "unknown"
  }
  return { ID: newLineage(randomBytes), Operation: operation, Info: info, Who: `${user}@${hostname()}`, Version: TERRAFORM_VERSION, Created: '', Path: '' };
}

/** time.Now().UTC() as Go marshals it (RFC 3339 with nanoseconds, trailing zeros trimmed). */
function rfc3339Nano(d: Date): string {
  const iso = d.toISOString(); // 2026-11-22T17:52:25.913Z
  const sub = (process.hrtime.bigint() % 1000000n).toString().padStart(6, '0');
  const frac = (iso.slice(20, 23) + sub).replace(/0+$/, '');
  return iso.slice(0, 19) + (frac ? '.' + frac : '') + 'Z';
}

function readAllFd(fd: number): string {
  const size = fstatSync(fd).size;
  const buf = Buffer.alloc(size);
  let off = 0;
  while (off < size) {
    const n = readSync(fd, buf, off, size - off, off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off).toString('utf8');
}

function goPathError(op: string, path: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const text = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
  return `${op} ${path}: ${text}`;
}

export class FilesystemStateManager implements Full {
  readonly path: string;
  private readPath: string;
  readonly backupPath: string;
  private readonly cwd: string;
  private readonly checkpointIntervalMs: number;

  private fd: number | undefined;
  private created = false;
  private lockID = '';
  /** Lock taken without the native addon: the info file alone marks it (see flock.ts). */
  private infoOnlyLock = false;

  private file: StateFile | undefined;
  private readFile: StateFile | undefined;
  /** canonicalState(readFile.state), computed once per refresh. */
  private readCanon: string | undefined;
  private backupFile: StateFile | undefined;
  /** The state file's text when it was opened, parsed into backupFile only when a persist needs it (a plan never does). */
  private backupText: string | undefined;
  private backupRead = false;
  private writtenBackup = false;

  private journal: JournalWriter | undefined;
  private journalState: State | undefined;
  private lastDiskWrite = Date.now();

  constructor(opts: FilesystemOptions) {
    this.cwd = opts.cwd;
    this.path = opts.path;
    this.readPath = opts.readPath ?? opts.path;
    this.backupPath = opts.backupPath ?? `${opts.path}.backup`;
    this.checkpointIntervalMs = opts.checkpointIntervalMs ?? 20000;
  }

  private abs(p: string): string {
    return isAbsolute(p) ? p : join(this.cwd, p);
  }

  /** `.<name>.lock.info` beside the output state file (a leading dot of the name is dropped first). */
  lockInfoPath(): string {
    const name = basename(this.path).replace(/^\./, '');
    const dir = dirname(this.path);
    return dir === '.' ? `.${name}.lock.info` : join(dir, `.${name}.lock.info`);
  }

  get locked(): boolean {
    return this.lockID !== '';
  }

  // ---- Reader / Writer ------------------------------------------------------------------------------------------

  read(): State | null {
    return this.file ? this.file.state.deepCopy() : null;
  }

  write(state: State): void {
    if (!this.file) this.file = { terraformVersion: TERRAFORM_VERSION, serial: 0, lineage: newLineage(randomBytes), state: state.deepCopy() };
    else this.file = { ...this.file, state: state.deepCopy() };
  }

  meta(): SnapshotMeta {
    return { serial: this.file?.serial ?? 0, lineage: this.file?.lineage ?? '' };
  }

  // ---- Refresher ------------------------------------------------------------------------------------------------

  async refresh(): Promise<Diagnostic[]> {
    const diags: Diagnostic[] = [];
    let text = '';
    let exists = true;
    if (this.fd !== undefined && this.readPath === this.path) {
      // The text read when the file was opened (under the lock), if no persist has happened since.
      text = this.backupText ?? readAllFd(this.fd);
    } else {
      try {
        text = readFileSync(this.abs(this.readPath), 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return [error('Failed to load state', goPathError('open', this.readPath, e))];
        exists = false;
      }
    }
    const r = readStateFile(text);
    // With a journal present, an existing but empty state file is a rewrite cut short after its truncation.
    const empty = exists && text.trim() === '';
    let unreadable = false;
    if (r.diags.some((d) => d.severity === 'error')) {
      unreadable = true;
      if (!this.hasJournal()) return r.diags;
    } else diags.push(...r.diags);
    this.file = r.file;
    // The manager never changes a state it holds (read() hands out copies, write() takes one), so what was read
    // and what is current share one State until a write replaces the current one.
    this.readFile = r.file ? { ...r.file } : undefined;
    this.readCanon = undefined;
    if (this.readPath === this.path && this.hasJournal()) {
      const jd = this.recoverJournal(unreadable ? 'unreadable' : empty ? 'empty' : r.file ? { lineage: r.file.lineage, serial: r.file.serial } : undefined);
      diags.push(...jd);
      if (jd.some((d) => d.severity === 'error')) return diags;
    } else if (unreadable) {
      return r.diags;
    }
    return diags;
  }

  private hasJournal(): boolean {
    return existsSync(this.abs(journalPath(this.path)));
  }

  /** J5/J6 of journal.ts: replay a leftover journal; compact it when we hold the lock. */
  private recoverJournal(disk: undefined | 'empty' | 'unreadable' | { lineage: string; serial: number }): Diagnostic[] {
    const jp = this.abs(journalPath(this.path));
    const j = decodeJournal(readFileSync(jp, 'utf8'));
    const diags: Diagnostic[] = [];
    if (!j.header) {
      // J3: void journal; the state file was never touched after it was created.
      if (this.locked) unlinkSync(jp);
      if (disk === 'unreadable') diags.push(error('Failed to load state', `The state file ${this.path} is not valid JSON and no usable journal exists to recover it from.`));
      return diags;
    }
    if (!journalApplies(j, disk)) {
      if (this.locked) {
        renameSync(jp, jp + '.stale');
        diags.push(
          warning(
            'Stale state journal set aside',
            `Foresight found the journal of an interrupted run beside ${this.path}, but the state file was changed after that run, so the journal was not replayed. It was moved to ${journalPath(this.path)}.stale for inspection.`,
          ),
        );
      }
      if (disk === 'unreadable') diags.push(error('Failed to load state', `The state file ${this.path} is not valid JSON.`));
      return diags;
    }
    const recovered = replayJournal(j)!;
    if (j.tail) diags.push(warning('Incomplete state journal record ignored', `The last change recorded by an interrupted run could not be read (${j.tail}); it was not applied. This happens when a run stops while writing.`));
    const diskSerial = typeof disk === 'object' ? disk.serial : 0;
    const top = Math.max(diskSerial, j.header.disk_serial ?? 0, ...j.checkpoints);
    const same = !!this.file && typeof disk === 'object' && statesMarshalEqual(this.file.state, recovered);
    const recoveredFile: StateFile = { terraformVersion: TERRAFORM_VERSION, serial: same ? diskSerial : top + 1, lineage: j.header.lineage, state: recovered };
    this.file = recoveredFile;
    this.readFile = { ...recoveredFile, state: recovered.deepCopy() };
    this.readCanon = undefined;
    if (!this.locked) return diags;
    if (!same) {
      const text = writeStateFile(recoveredFile);
      if (this.fd !== undefined) rewriteInPlace(this.fd, text);
      else writeFileAtomic(this.abs(this.path), text);
    }
    this.backupFile = { ...recoveredFile, state: recovered.deepCopy() };
    this.backupText = undefined;
    this.backupRead = true;
    unlinkSync(jp);
    diags.push(warning('State recovered from journal', `Foresight replayed ${j.changes.length} recorded change(s) of an interrupted run onto ${this.path}.`));
    return diags;
  }

  // ---- Persister ------------------------------------------------------------------------------------------------

  private loadBackupSource(): void {
    if (this.backupRead) return;
    this.backupRead = true;
    try {
      this.backupText = this.fd !== undefined ? readAllFd(this.fd) : readFileSync(this.abs(this.path), 'utf8');
    } catch {
      this.backupText = undefined;
    }
  }

  /** The state as it was when the file was opened (the backup's content), parsed on first use. */
  private backupSource(): StateFile | undefined {
    if (this.backupText !== undefined) {
      const r = readStateFile(this.backupText);
      this.backupText = undefined;
      if (r.file && !r.diags.some((d) => d.severity === 'error')) this.backupFile = r.file;
    }
    return this.backupFile;
  }

  async persist(): Promise<Diagnostic[]> {
    try {
      this.persistSync();
      return [];
    } catch (e) {
      return [error('Failed to save state', `Error saving state: ${(e as Error).message}`)];
    }
  }

  private persistSync(): void {
    if (!this.file) return;
    mkdirSync(dirname(this.abs(this.path)), { recursive: true });
    this.loadBackupSource();
    const state = this.file.state;
    // One serialisation per persist: every comparison and the written text derive from it.
    const canon = canonicalState(state);
    const backup = this.writtenBackup || this.backupPath === '' ? undefined : this.backupSource();
    if (backup && canon !== canonicalState(backup.state)) {
      writeFileAtomic(this.abs(this.backupPath), writeStateFile(backup));
      this.writtenBackup = true;
    }
    if (this.readFile && this.readCanon === undefined) this.readCanon = canonicalState(this.readFile.state);
    const serial = !this.readFile || canon !== this.readCanon ? this.file.serial + 1 : this.file.serial;
    this.file = { terraformVersion: TERRAFORM_VERSION, serial, lineage: this.file.lineage, state };
    const text = withMeta(canon, this.file);
    if (this.journal) this.journal.checkpoint(this.file.serial);
    if (this.fd !== undefined) rewriteInPlace(this.fd, text);
    else writeFileAtomic(this.abs(this.path), text);
    this.readPath = this.path;
    this.lastDiskWrite = Date.now();
    if (this.journal && this.journalState && canonicalState(this.journalState) === canon) {
      this.journal.remove();
      this.journal = undefined;
    }
  }

  /**
   * A listener for a SyncState whose walk starts from `start` (Terraform's apply walk): every change is journalled
   * (created on the first change) and written before the walk continues, fsynced by group commit (journal.ts J1); at checkpoints the state file is
   * rewritten. The caller ends the walk with `write(await sync.close())` and `persist()`, which deletes the
   * journal once the file holds all of it. Throws (into SyncState.flush) when the journal cannot be written.
   */
  journalListener(start: State): ChangeListener {
    if (this.journal) throw new Error('journalListener: the previous walk was not finished with persist()');
    this.journalState = start.deepCopy();
    return (c: Change) => {
      const st = this.journalState!;
      if (!this.journal) {
        if (!this.file) this.write(st);
        const lineage = this.file!.lineage;
        this.journal = new JournalWriter(this.abs(journalPath(this.path)), {
          lineage,
          disk_serial: this.diskSerial(),
          base: writeStateFile({ terraformVersion: TERRAFORM_VERSION, serial: 0, lineage, state: st }),
        });
      }
      this.journal.append(c);
      applyChange(st, c);
      if (Date.now() - this.lastDiskWrite >= this.checkpointIntervalMs) {
        this.write(st);
        this.persistSync();
      }
    };
  }

  /** Serial of the state file as it is on disk now (null when there is none): what the journal header records. */
  private diskSerial(): number | null {
    try {
      const text = this.fd !== undefined ? readAllFd(this.fd) : readFileSync(this.abs(this.path), 'utf8');
      return readStateFile(text).file?.serial ?? null;
    } catch {
      return null;
    }
  }

  // ---- Locker ---------------------------------------------------------------------------------------------------

  private openOut(): void {
    if (this.fd !== undefined) return;
    const p = this.abs(this.path);
    this.created = !existsSync(p);
    mkdirSync(dirname(p), { recursive: true });
    this.fd = openSync(p, constants.O_RDWR | constants.O_CREAT, 0o666);
    this.loadBackupSource();
  }

  private closeOut(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.backupRead = false;
    this.backupFile = undefined;
    this.backupText = undefined;
  }

  private lockInfo(): { info?: LockInfo; err?: string } {
    let text: string;
    try {
      text = readFileSync(this.abs(this.lockInfoPath()), 'utf8');
    } catch (e) {
      return { err: goPathError('open', this.lockInfoPath(), e) };
    }
    const info = parseLockInfo(text);
    if (!info) return { err: `state file ${JSON.stringify(this.readPath)} locked, but could not unmarshal lock info: invalid JSON` };
    return { info };
  }

  /** LockProber: the holder recorded in the lock info file, null when there is none. */
  async lockHolder(): Promise<LockHolder | null | undefined> {
    if (!existsSync(this.abs(this.lockInfoPath()))) return null;
    const { info } = this.lockInfo();
    return info ? { id: info.ID, who: info.Who, operation: info.Operation, created: info.Created } : undefined;
  }

  async lock(info: LockInfo): Promise<string> {
    this.openOut();
    if (this.lockID !== '') throw new Error(`state ${JSON.stringify(this.path)} already locked`);
    const infoPath = this.abs(this.lockInfoPath());
    const fresh: LockInfo = { ...info, Path: this.readPath, Created: rfc3339Nano(new Date()) };
    const err = lockFd(this.fd!);
    if (err) {
      const li = this.lockInfo();
      // Unlike Terraform, let go of the descriptor: a retry (-lock-timeout) reopens the path, so it locks the
      // file that is there then, even if the holder replaced it meanwhile.
      this.closeOut();
      throw new LockError(li.err ? [err, li.err] : [err], li.info);
    }
    if (lockingMode() === 'none') {
      // No fcntl available: the exclusive creation of the info file is the lock (Foresight-only exclusion).
      try {
        writeFileSync(infoPath, lockInfoJSON(fresh), { mode: 0o600, flag: 'wx' });
      } catch {
        const li = this.lockInfo();
        this.closeOut();
        throw new LockError(['resource temporarily unavailable', ...(li.err ? [li.err] : [])], li.info);
      }
      this.infoOnlyLock = true;
    } else {
      try {
        writeFileSync(infoPath, lockInfoJSON(fresh), { mode: 0o600 });
      } catch (e) {
        unlockFd(this.fd!);
        this.closeOut();
        throw new Error(`could not write lock info for ${JSON.stringify(this.readPath)}: ${goPathError('open', this.lockInfoPath(), e)}`);
      }
    }
    this.lockID = info.ID;
    return this.lockID;
  }

  /**
   * Releases our lock. Like Terraform's local backend, a manager that does not hold the lock fails with
   * "LocalState not locked", so `force-unlock` against the local backend fails the same way Terraform's does
   * (checked with terraform 1.11.4: "Failed to unlock state: LocalState not locked").
   */
  async unlock(id: string): Promise<void> {
    if (this.lockID === '') throw new Error('LocalState not locked');
    if (id !== this.lockID) {
      const li = this.lockInfo();
      const idErr = `invalid lock id: ${JSON.stringify(id)}. current id: ${JSON.stringify(this.lockID)}`;
      throw new LockError(li.err ? [idErr, li.err] : [idErr], li.info);
    }
    try {
      unlinkSync(this.abs(this.lockInfoPath()));
    } catch {
      // Terraform ignores a missing info file here too.
    }
    // An unfinished journal stays on disk: it is exactly what a crash would have left, and is recovered next time.
    this.journal?.close();
    this.journal = undefined;
    const err = this.infoOnlyLock ? undefined : unlockFd(this.fd!);
    closeSync(this.fd!);
    this.fd = undefined;
    this.lockID = '';
    this.infoOnlyLock = false;
    try {
      const p = this.abs(this.path);
      if (this.created && statSync(p).size === 0) unlinkSync(p);
    } catch {
      // already gone
    }
    if (err) throw new Error(err);
  }
}
