// Durable file writes for the local backend (siblings: see flock.ts).
//
// writeFileAtomic: for files nobody holds a lock on (backups, `.terraform/environment`, state files written with
// locking disabled): the content goes to a temporary file in the same directory, is fsynced, renamed over the
// target, and the directory is fsynced, so a reader (or a crash) sees either the old or the new file, never a
// mix. rewriteInPlace: for the locked state file, whose inode carries Terraform's fcntl lock and therefore must
// not be replaced: truncate, write at offset 0, fsync (what Terraform does); crash safety for that write comes
// from the apply journal (journal.ts), which still holds everything needed to redo it.

import { closeSync, fsyncSync, ftruncateSync, openSync, renameSync, unlinkSync, writeSync, constants } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** fsyncs a directory so a rename or unlink in it is durable; ignored where directories cannot be opened (Windows). */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch {
    // Not supported on this platform: the rename is still atomic, only its durability is weaker.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function writeAll(fd: number, data: Buffer, position: number): void {
  let off = 0;
  while (off < data.length) off += writeSync(fd, data, off, data.length - off, position + off);
}

/** Replaces `path` atomically with `data` (see the header). Throws the fs error on failure, leaving `path` intact. */
export function writeFileAtomic(path: string, data: string | Buffer, mode = 0o666): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const tmp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${Date.now().toString(36)}`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    writeAll(fd, buf, 0);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // best effort
    }
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // best effort
    }
    throw e;
  }
  fsyncDir(dirname(path));
}

/** Rewrites the whole content of the open file `fd` (truncate, write from offset 0, fsync). */
export function rewriteInPlace(fd: number, data: string | Buffer): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  ftruncateSync(fd, 0);
  writeAll(fd, buf, 0);
  fsyncSync(fd);
}
