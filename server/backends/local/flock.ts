// File locks compatible with Terraform's local backend, on an open file descriptor.
//
// Folder server/backends/local (the local backend; the only code here that touches the disk):
//   flock.ts       (this file) the fcntl/LockFileEx lock through the native addon in native/fcntl.
//   atomic.ts      durable file writes (write temp + fsync + rename; in-place rewrite + fsync).
//   journal.ts     the apply journal: crash-safe linear persistence of state changes.
//   filesystem.ts  FilesystemStateManager, Terraform's statemgr.Filesystem (state, backup, lock info, journal).
//   backend.ts     LocalBackend: state paths, workspaces, `.terraform/environment`.
//
// Terraform takes a non-blocking POSIX record lock (fcntl F_SETLK, F_WRLCK, whole file) on the state file it
// writes (Windows: LockFileEx exclusive). Node has no fcntl, so the addon native/fcntl (built by `npm ci`)
// provides it; on Linux it uses open-file-description locks, which conflict with Terraform's process locks and
// stay held until the descriptor they were taken on is closed (see native/fcntl/fcntl_lock.c).
// Where F_OFD_SETLK is missing (macOS, BSDs) the lock is a classic per-process POSIX lock, which the kernel drops
// as soon as the process closes ANY descriptor of that file: while a state is locked, code must read and write
// the state file only through the state manager (which uses the locked descriptor), never with fs.readFileSync.
// When the addon is missing (no compiler at install time), lockFd falls back to "always succeeds" and
// `lockingMode()` reports 'none': Foresight processes still exclude each other through the lock info file
// (filesystem.ts creates it exclusively), but a running terraform is not excluded. That fallback is reported to
// the user once by the caller.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

interface Addon {
  lock(fd: number): number;
  unlock(fd: number): number;
  kind(): string;
}

let addon: Addon | null | undefined;

/** Finds native/fcntl/build/Release/fcntl_lock.node above this bundle (dist/, .test-out/...) or the cwd. */
function loadAddon(): Addon | null {
  if (addon !== undefined) return addon;
  addon = null;
  const override = process.env.FORESIGHT_FCNTL_ADDON;
  const starts = [typeof __dirname === 'string' ? __dirname : '', process.argv[1] ? dirname(process.argv[1]) : '', process.cwd()];
  const candidates: string[] = override ? [override] : [];
  for (const s of starts) {
    if (!s) continue;
    let d = s;
    for (let i = 0; i < 8; i++) {
      candidates.push(join(d, 'native', 'fcntl', 'build', 'Release', 'fcntl_lock.node'));
      const up = dirname(d);
      if (up === d) break;
      d = up;
    }
  }
  const req = createRequire(typeof __filename === 'string' ? __filename : join(process.cwd(), 'x.js'));
  for (const c of candidates) {
    if (!existsSync(c)) continue;
    try {
      addon = req(c) as Addon;
      break;
    } catch {
      // A stale build for another Node ABI: keep looking.
    }
  }
  return addon;
}

/** 'ofd' | 'posix' | 'windows' when Terraform-compatible locks are available, else 'none'. */
export function lockingMode(): string {
  return loadAddon()?.kind() ?? 'none';
}

const EAGAIN = process.platform === 'darwin' ? 35 : 11;
const EACCES = 13;

/** Go's error text for an errno, as Terraform prints it in "Error message: ...". */
function errnoText(code: number): string {
  if (code === EAGAIN || code === EACCES) return 'resource temporarily unavailable';
  if (code === 9) return 'bad file descriptor';
  if (code === 37 || code === 77) return 'no locks available';
  return `errno ${code}`;
}

/** Takes the write lock on `fd` without blocking. Returns undefined on success, else Go's error text. */
export function lockFd(fd: number): string | undefined {
  const a = loadAddon();
  if (!a) return undefined;
  const code = a.lock(fd);
  return code === 0 ? undefined : errnoText(code);
}

/** Releases the lock on `fd` (closing the descriptor releases it too). Returns Go's error text on failure. */
export function unlockFd(fd: number): string | undefined {
  const a = loadAddon();
  if (!a) return undefined;
  const code = a.unlock(fd);
  return code === 0 ? undefined : errnoText(code);
}
