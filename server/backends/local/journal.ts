// The apply journal: crash-safe, linear persistence of state changes for the local backend.
//
// Siblings: see flock.ts. The state manager (filesystem.ts) owns the journal; SyncState (server/states/state.ts)
// feeds it one Change per completed resource operation through the listener the manager hands out.
//
// File: `.<state file name>.journal` beside the state file that is written (`.terraform.tfstate.journal`).
// Format: UTF-8 lines, each `<crc32 of JSON, 8 lowercase hex> <JSON>\n`.
//   line 1, header: {"foresight_journal":1,"lineage":L,"disk_serial":S|null,"base":"<state file text>"}
//           `base` is the complete state the walk started from (serialised with statefile.ts); `disk_serial` is
//           the serial of the state file on disk when the journal began (null: there was none).
//   then    {"seq":n,"change":<Change>}          one per completed change, n = 1, 2, ...
//   and     {"seq":n,"checkpoint":C}             written just BEFORE the state file is rewritten with serial C.
//
// INVARIANTS (ARCHITECTURE.md copies these):
//  J1  Write-ahead: a change is written to the journal (write(2), so it survives the process being killed)
//      before the walk goes on, and made durable by group commit: an fsync runs on the thread pool for every batch
//      of records written while the previous one ran (so the event loop never waits for the disk, and a record
//      is on disk within about two fsync latencies). The header and checkpoint records are fsynced synchronously,
//      and the state file is only rewritten after the journal holds, fsynced, everything that rewrite contains
//      (header + records, and a checkpoint record naming the serial about to be written). Hence at every instant
//      replay(base, valid records) >= what the state file holds.
//  J2  Append-only and linear: records are never rewritten; seq increases by one; replay applies them in order.
//      Only the last lines can be incomplete (lines are appended in order by one writer): replay
//      stops at the first line that lacks its newline, fails its CRC, fails to parse or breaks the seq order, and
//      ignores everything from there (a torn or corrupt tail is reported, never applied).
//  J3  A journal whose header is incomplete is void: the state file was not touched after it was created
//      (J1), so it is simply deleted.
//  J4  The journal is deleted only after the state file containing every record has been fsynced; deletion is
//      made durable with a directory fsync. A journal that exists at lock time is therefore a leftover of a
//      crashed run (the lock excludes live writers).
//  J5  Recovery (under the state lock) replays the journal only when the state file on disk is one this journal
//      produced or started from: it is missing/empty only if the journal started without one, unreadable (a torn
//      in-place rewrite), or has the journal's lineage and a serial equal to disk_serial or to a recorded
//      checkpoint. Anything else means someone wrote the state after the crash (terraform with -lock=false, state
//      push): the journal is stale and is moved aside to `<journal>.stale`, with a warning, never replayed.
//      A replayed state is written with serial (highest of the disk serial and checkpoints) + 1 unless it equals
//      the file on disk, then the journal is deleted (J4). Recovery is idempotent: a crash during recovery
//      leaves the same journal to replay again.
//  J6  Readers without the lock (plan -lock=false, state list) may replay a leftover journal in memory (J5's
//      rules) but never write or delete anything.
//
// The codec functions (encodeLine, decodeJournal, replayJournal) are pure; JournalWriter does the file I/O.

import { closeSync, constants, fsync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { applyChange, type Change, type State } from '../../states/state';
import { readStateFile } from '../../states/statefile';
import { fsyncDir } from './atomic';

export interface JournalHeader {
  foresight_journal: 1;
  lineage: string;
  disk_serial: number | null;
  base: string;
}
type JournalRecord = { seq: number; change: Change } | { seq: number; checkpoint: number };

export interface DecodedJournal {
  /** undefined when the header line is incomplete or invalid (J3: the journal is void). */
  header?: JournalHeader;
  changes: Change[];
  checkpoints: number[];
  /** Why replay stopped early (a torn or corrupt tail), or undefined when every line was valid. */
  tail?: string;
}

/** Path of the journal belonging to the state file at `statePath`. */
export function journalPath(statePath: string): string {
  return join(dirname(statePath), `.${basename(statePath).replace(/^\./, '')}.journal`);
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One journal line for a JSON-serialisable record. */
export function encodeLine(record: unknown): string {
  const json = JSON.stringify(record);
  return `${crc32(Buffer.from(json, 'utf8')).toString(16).padStart(8, '0')} ${json}\n`;
}

function decodeLine(line: string): unknown {
  const m = /^([0-9a-f]{8}) (.*)$/s.exec(line);
  if (!m) throw new Error('malformed line');
  if (parseInt(m[1], 16) !== crc32(Buffer.from(m[2], 'utf8'))) throw new Error('checksum mismatch');
  return JSON.parse(m[2]);
}

/** Decodes a journal's text following J2/J3. Pure. */
export function decodeJournal(text: string): DecodedJournal {
  const out: DecodedJournal = { changes: [], checkpoints: [] };
  const lines = text.split('\n');
  // The element after the last '\n' is an incomplete line (or '' when the text ends with a newline).
  const complete = lines.slice(0, -1);
  const incomplete = lines[lines.length - 1];
  if (complete.length === 0) return out;
  try {
    const h = decodeLine(complete[0]) as JournalHeader;
    if (h.foresight_journal !== 1 || typeof h.base !== 'string' || typeof h.lineage !== 'string') throw new Error('bad header');
    out.header = h;
  } catch {
    return out;
  }
  let seq = 1;
  for (let i = 1; i < complete.length; i++) {
    let r: JournalRecord;
    try {
      r = decodeLine(complete[i]) as JournalRecord;
    } catch (e) {
      out.tail = `record ${i}: ${(e as Error).message}`;
      return out;
    }
    if (r.seq !== seq) {
      out.tail = `record ${i}: sequence ${r.seq}, expected ${seq}`;
      return out;
    }
    seq++;
    if ('change' in r) out.changes.push(r.change);
    else out.checkpoints.push(r.checkpoint);
  }
  if (incomplete !== '') out.tail = `record ${complete.length}: incomplete`;
  return out;
}

/** The state a journal describes: its base with every valid change applied. Pure; undefined for a void journal. */
export function replayJournal(j: DecodedJournal): State | undefined {
  if (!j.header) return undefined;
  const base = readStateFile(j.header.base).file;
  if (!base) return undefined;
  const st = base.state;
  for (const c of j.changes) applyChange(st, c);
  return st;
}

/**
 * Whether the journal may be replayed over the state file currently on disk (J5). `disk` is undefined when the
 * file is missing, 'empty' when it exists without content, 'unreadable' when it does not parse, else its lineage and serial.
 */
export function journalApplies(j: DecodedJournal, disk: undefined | 'empty' | 'unreadable' | { lineage: string; serial: number }): boolean {
  if (!j.header) return false;
  // An existing but empty file is an in-place rewrite cut short after its truncation (or lock() created it).
  if (disk === 'unreadable' || disk === 'empty') return true;
  if (disk === undefined) return j.header.disk_serial === null;
  if (disk.lineage !== j.header.lineage) return false;
  return disk.serial === j.header.disk_serial || j.checkpoints.includes(disk.serial);
}

/**
 * Appends records to a new journal file (J1): every call returns once the data is written; changes are fsynced by
 * group commit on the thread pool, the header and checkpoints synchronously (with everything before them).
 */
export class JournalWriter {
  private seq = 1;
  private fd: number | undefined;
  /** An asynchronous fsync is running / records were written since it started. */
  private syncing = false;
  private dirty = false;
  /** close() was called while an fsync ran: the descriptor is closed when it ends. */
  private closeWhenSynced: number | undefined;
  /** A failed asynchronous fsync, reported by the next write. */
  private failure: Error | undefined;

  /** Creates the journal (failing if one exists) with its header, fsynced together with its directory. */
  constructor(
    readonly path: string,
    header: Omit<JournalHeader, 'foresight_journal'>,
  ) {
    this.fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND, 0o600);
    this.write(encodeLine({ foresight_journal: 1, ...header }));
    fsyncDir(dirname(path));
  }

  private write(line: string, durable = true): void {
    if (this.fd === undefined) throw new Error('journal closed');
    if (this.failure) throw this.failure;
    const buf = Buffer.from(line, 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    if (durable) fsyncSync(this.fd);
    else this.syncSoon();
  }

  /** Group commit: one fsync at a time; records written meanwhile are covered by the next one. */
  private syncSoon(): void {
    if (this.syncing) {
      this.dirty = true;
      return;
    }
    const fd = this.fd;
    if (fd === undefined) return;
    this.syncing = true;
    this.dirty = false;
    fsync(fd, (err) => {
      this.syncing = false;
      if (err && !this.failure) this.failure = err;
      if (this.closeWhenSynced !== undefined) {
        closeSync(this.closeWhenSynced);
        this.closeWhenSynced = undefined;
      } else if (this.dirty) this.syncSoon();
    });
  }

  append(change: Change): void {
    this.write(encodeLine({ seq: this.seq++, change }), false);
  }

  /** Records that the state file is about to be rewritten with `serial` (J1, J5). */
  checkpoint(serial: number): void {
    this.write(encodeLine({ seq: this.seq++, checkpoint: serial }));
  }

  /** Closes and deletes the journal; call only once the state file holds every record (J4). */
  remove(): void {
    this.close();
    unlinkSync(this.path);
    fsyncDir(dirname(this.path));
  }

  close(): void {
    if (this.fd !== undefined) {
      if (this.dirty) {
        try {
          fsyncSync(this.fd);
        } catch {
          // closing after a failure: the journal stays as written
        }
        this.dirty = false;
      }
      // A running fsync keeps the descriptor until it ends (its number must not be reused under it).
      if (this.syncing) this.closeWhenSynced = this.fd;
      else closeSync(this.fd);
    }
    this.fd = undefined;
  }
}
