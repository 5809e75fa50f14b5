// State managers: the small capability interfaces through which commands obtain and store state (Terraform's
// internal/states/statemgr), plus LockInfo and the lock error texts, which are part of the CLI contract.
//
// Siblings: state.ts (model), statefile.ts (codec). Implementations live with the backends
// (server/backends/local/filesystem.ts for the local backend). A command typically does:
//   lock (Locker) -> refresh (Refresher) -> read (Reader) -> ... -> write (Writer) -> persist (Persister) -> unlock.
// Contracts shared by every implementation:
// - read() returns a copy the caller owns; write() takes a copy, so later mutations by the caller are not seen.
// - write() only updates the manager's in-memory "transient" snapshot; persist() makes it durable. A manager
//   may persist more often than asked (the local backend journals every change of an apply).
// - Lock/unlock never block: lock() fails at once when the lock is held; retries (-lock-timeout) are done by
//   lockWithTimeout below, which the CLI uses.
// Pure apart from the timers in lockWithTimeout; no file I/O here.

import { error, type Diagnostic } from '../diags/diagnostic';
import type { State } from './state';

export interface Reader {
  /** The latest state snapshot (a copy), or null when there is none (no file yet). */
  read(): State | null;
}
export interface Writer {
  /** Replaces the transient snapshot with a copy of `state`. */
  write(state: State): void;
}
export interface Refresher {
  /** Loads the persistent snapshot into the transient one (discarding unpersisted writes). */
  refresh(): Promise<Diagnostic[]>;
}
export interface Persister {
  /** Makes the transient snapshot durable. */
  persist(): Promise<Diagnostic[]>;
}
export interface Locker {
  /** Takes the lock or fails at once with a LockError; returns the lock ID. */
  lock(info: LockInfo): Promise<string>;
  /** Releases the lock `id`; fails with a LockError when `id` does not match the current lock. */
  unlock(id: string): Promise<void>;
}
/** Who holds a state's lock, as the editor shows it (Terraform's lock info fields where the storage keeps them). */
export interface LockHolder {
  id: string;
  who: string;
  operation: string;
  created: string;
}
/**
 * Optional capability: tells who holds the lock without taking it (so asking never races a run that is starting).
 * null: not locked; undefined: this storage cannot tell.
 */
export interface LockProber {
  lockHolder(): Promise<LockHolder | null | undefined>;
}
/** Serial and lineage of the transient snapshot (what saved plans are checked against). */
export interface SnapshotMeta {
  serial: number;
  lineage: string;
}
export interface Full extends Reader, Writer, Refresher, Persister, Locker {
  meta(): SnapshotMeta;
}

/** A backend's workspaces (Terraform's Backend.Workspaces / DeleteWorkspace / StateMgr). */
export interface Workspaces {
  /** Every workspace, "default" first, then the others sorted. */
  workspaces(): Promise<string[]>;
  stateMgr(workspace: string): Promise<Full>;
  deleteWorkspace(workspace: string, force: boolean): Promise<Diagnostic[]>;
}

/** The lock metadata Terraform stores beside the state (`.terraform.tfstate.lock.info`). Field names are Go's. */
export interface LockInfo {
  ID: string;
  /** OperationTypePlan, OperationTypeApply, OperationTypeRefresh or a command name (state-mv, taint, ...). */
  Operation: string;
  Info: string;
  /** user@hostname */
  Who: string;
  Version: string;
  /** RFC 3339 with nanoseconds, UTC ("2026-11-22T17:52:25.913379805Z"). */
  Created: string;
  Path: string;
}

/** The lock info file's content: compact JSON, Go's field order, no trailing newline. */
export function lockInfoJSON(i: LockInfo): string {
  const q = (s: string) => JSON.stringify(s).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
  return `{"ID":${q(i.ID)},"Operation":${q(i.Operation)},"Info":${q(i.Info)},"Who":${q(i.Who)},"Version":${q(i.Version)},"Created":${q(i.Created)},"Path":${q(i.Path)}}`;
}

/** Parses a lock info file; undefined when it is not a JSON object. Missing fields read as "". */
export function parseLockInfo(text: string): LockInfo | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const s = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : '');
  return { ID: s('ID'), Operation: s('Operation'), Info: s('Info'), Who: s('Who'), Version: s('Version'), Created: s('Created'), Path: s('Path') };
}

/** Go's time.Time.String() for a UTC RFC 3339 timestamp: "2026-11-22 17:52:25.913379805 +0000 UTC". */
export function goTimeString(rfc3339: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/.exec(rfc3339);
  if (!m) return rfc3339;
  return `${m[1]} ${m[2]}${m[3] ?? ''} +0000 UTC`;
}

/** Go's LockInfo.String(): the "Lock Info:" block (ends with a newline). */
export function lockInfoString(i: LockInfo): string {
  return (
    'Lock Info:\n' +
    `  ID:        ${i.ID}\n` +
    `  Path:      ${i.Path}\n` +
    `  Operation: ${i.Operation}\n` +
    `  Who:       ${i.Who}\n` +
    `  Version:   ${i.Version}\n` +
    `  Created:   ${goTimeString(i.Created)}\n` +
    `  Info:      ${i.Info}\n`
  );
}

/** A failed lock or unlock: the underlying error text(s) and, when readable, the holder's lock info. */
export class LockError extends Error {
  constructor(
    /** Error texts, Go style ("resource temporarily unavailable", "open X: no such file or directory"). */
    readonly errors: string[],
    readonly info?: LockInfo,
  ) {
    super([...errors, ...(info ? [lockInfoString(info)] : [])].join('\n'));
  }
}

const LOCK_HELP =
  'Terraform acquires a state lock to protect the state from being written\n' +
  'by multiple users at the same time. Please resolve the issue above and try\n' +
  'again. For most commands, you can disable locking with the "-lock=false"\n' +
  'flag, but this is not recommended.';

/** Terraform's "Error acquiring the state lock" diagnostic for a failed lock. */
export function lockAcquireDiagnostic(e: Error): Diagnostic {
  return error('Error acquiring the state lock', `Error message: ${e.message}\n\n${LOCK_HELP}`);
}

/** Terraform's diagnostic for a failed unlock at the end of an operation. */
export function lockReleaseDiagnostic(e: Error): Diagnostic {
  return error(
    'Error releasing the state lock',
    `Error message: ${e.message}\n\nTerraform acquires a lock when accessing your state to prevent others\n` +
      'running Terraform to potentially modify the state at the same time. An\n' +
      'error occurred while releasing this lock. This could mean that the lock\n' +
      'did or did not release properly. If the lock didn\'t release properly,\n' +
      'Terraform may not be able to run future commands since it\'ll appear as if\n' +
      'the lock is held.\n\n' +
      'In this scenario, please call the "force-unlock" command to unlock the\n' +
      'state manually. This is a very dangerous operation since if it is done\n' +
      'erroneously it could result in two people modifying state at the same time.\n' +
      'Only call this command if you\'re certain that the unlock above failed and\n' +
      'that no one else is holding a lock.',
  );
}

/**
 * Tries `locker.lock` until it succeeds or `timeoutMs` has passed (Terraform's LockWithContext): one attempt when
 * the timeout is 0, else retries after 1 s, doubling up to 16 s between attempts. `onSlow` is called once when
 * the lock was not obtained within 400 ms (the CLI prints "Acquiring state lock. This may take a few moments...").
 * Rejects with the last LockError.
 */
export async function lockWithTimeout(
  locker: Locker,
  info: LockInfo,
  timeoutMs: number,
  opts: { onSlow?: () => void; sleep?: (ms: number) => Promise<void> } = {},
): Promise<string> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + timeoutMs;
  let delay = 1000;
  let slowTimer: ReturnType<typeof setTimeout> | undefined;
  if (opts.onSlow) slowTimer = setTimeout(opts.onSlow, 400);
  try {
    for (;;) {
      try {
        return await locker.lock(info);
      } catch (e) {
        if (!(e instanceof LockError)) throw e;
        const left = deadline - Date.now();
        if (left <= 0) throw e;
        await sleep(Math.min(delay, left));
        delay = Math.min(delay * 2, 16000);
      }
    }
  } finally {
    if (slowTimer) clearTimeout(slowTimer);
  }
}

/**
 * What a command does before touching state (Terraform's clistate locker): lockWithTimeout, with any failure
 * turned into the "Error acquiring the state lock" diagnostic. Returns the lock ID on success.
 */
export async function acquireLock(
  locker: Locker,
  info: LockInfo,
  timeoutMs: number,
  onSlow?: () => void,
): Promise<{ id?: string; diags: Diagnostic[] }> {
  try {
    return { id: await lockWithTimeout(locker, info, timeoutMs, { onSlow }), diags: [] };
  } catch (e) {
    return { diags: [lockAcquireDiagnostic(e as Error)] };
  }
}

/** The companion of acquireLock: unlocks, turning a failure into "Error releasing the state lock". */
export async function releaseLock(locker: Locker, id: string): Promise<Diagnostic[]> {
  try {
    await locker.unlock(id);
    return [];
  } catch (e) {
    return [lockReleaseDiagnostic(e as Error)];
  }
}
