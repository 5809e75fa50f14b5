// A small zip reader and writer for provider packages (packed mirrors, `providers mirror`), with what Terraform
// needs from archive/zip, go-getter's ZipDecompressor and golang.org/x/mod's dirhash.HashZip:
//
//   reading: the end-of-central-directory record (zip64 locator and record when present), every central directory
//     entry (name, method, CRC-32, sizes, local header offset, zip64 extra field, Unix mode from the external
//     attributes when "made by" Unix, else MS-DOS's 0666/0777 with the read-only bit), entries stored (0) or
//     deflated (8) streamed through zlib's inflateRaw with the CRC-32 and size checked at the end;
//   extracting (extractZip): go-getter's rules: an empty archive is an error, an entry whose name has a ".."
//     path element is refused ("entry contains '..'") and names are joined below the destination (a leading "/" or
//     "\\" cannot escape: zip-slip), directories are created 0755, files written with the entry's permission bits;
//     symlink entries are written as regular files holding the link text (as go-getter's copyReader does);
//   hashing (hashZipH1): dirhash.Hash1 over the archive's entries (every entry name, directories too, sorted);
//   writing (writeZip): deflated entries with Unix modes ("made by" Unix 3.0 as Go's zip writer), streamed so a
//     700 MB provider binary never sits in memory; archives past 4 GiB are refused (no zip64 writing).
//
// Contract: every problem with an archive is an Error with a message naming the archive; nothing is written
// outside the destination directory.

import { createHash } from 'node:crypto';
import { chmodSync, closeSync, createReadStream, createWriteStream, fstatSync, lstatSync, mkdirSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { PassThrough, Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDeflateRaw, createInflateRaw, crc32 } from 'node:zlib';

export interface ZipEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  /** Permission and type bits as Go's (*zip.FileHeader).Mode gives them (Unix st_mode layout). */
  mode: number;
  isDir: boolean;
  isSymlink: boolean;
}

export interface ZipArchive {
  file: string;
  entries: ZipEntry[];
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

function readAt(fd: number, pos: number, len: number): Buffer {
  const b = Buffer.alloc(len);
  let got = 0;
  while (got < len) {
    const n = readSync(fd, b, got, len - got, pos + got);
    if (n === 0) break;
    got += n;
  }
  return got === len ? b : b.subarray(0, got);
}

function u64(b: Buffer, off: number): number {
  const v = b.readBigUInt64LE(off);
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('zip: 64-bit size out of range');
  return Number(v);
}

/** Reads the central directory of a zip archive. Throws an Error ("zip: not a valid zip file") for bad input. */
export function readZip(file: string): ZipArchive {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const tailLen = Math.min(size, 65535 + 22);
    const tail = readAt(fd, size - tailLen, tailLen);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === 0x06054b50 && i + 22 + tail.readUInt16LE(i + 20) <= tail.length) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new Error('zip: not a valid zip file');
    let count = tail.readUInt16LE(eocd + 10);
    let cdSize = tail.readUInt32LE(eocd + 12);
    let cdOffset = tail.readUInt32LE(eocd + 16);
    const eocdPos = size - tailLen + eocd;
    // zip64: the locator sits right before the end record.
    if (eocdPos >= 20) {
      const loc = readAt(fd, eocdPos - 20, 20);
      if (loc.readUInt32LE(0) === 0x07064b50) {
        const recPos = u64(loc, 8);
        const rec = readAt(fd, recPos, 56);
        if (rec.length < 56 || rec.readUInt32LE(0) !== 0x06064b50) throw new Error('zip: not a valid zip file');
        count = u64(rec, 32);
        cdSize = u64(rec, 40);
        cdOffset = u64(rec, 48);
      }
    }
    if (cdOffset + cdSize > size) throw new Error('zip: not a valid zip file');
    const cd = readAt(fd, cdOffset, cdSize);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let n = 0; n < count; n++) {
      if (p + 46 > cd.length || cd.readUInt32LE(p) !== 0x02014b50) throw new Error('zip: not a valid zip file');
      const madeBy = cd.readUInt16LE(p + 4);
      const flags = cd.readUInt16LE(p + 8);
      const method = cd.readUInt16LE(p + 10);
      const crc = cd.readUInt32LE(p + 16);
      let compressedSize = cd.readUInt32LE(p + 20);
      let uncompressed = cd.readUInt32LE(p + 24);
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const external = cd.readUInt32LE(p + 38);
      let localOffset = cd.readUInt32LE(p + 42);
      const nameBytes = cd.subarray(p + 46, p + 46 + nameLen);
      const name = flags & 0x800 ? nameBytes.toString('utf8') : nameBytes.toString('latin1');
      const extra = cd.subarray(p + 46 + nameLen, p + 46 + nameLen + extraLen);
      for (let e = 0; e + 4 <= extra.length; ) {
        const id = extra.readUInt16LE(e);
        const len = extra.readUInt16LE(e + 2);
        if (id === 0x0001) {
          let q = e + 4;
          if (uncompressed === 0xffffffff && q + 8 <= e + 4 + len) (uncompressed = u64(extra, q)), (q += 8);
          if (compressedSize === 0xffffffff && q + 8 <= e + 4 + len) (compressedSize = u64(extra, q)), (q += 8);
          if (localOffset === 0xffffffff && q + 8 <= e + 4 + len) localOffset = u64(extra, q);
        }
        e += 4 + len;
      }
      p += 46 + nameLen + extraLen + commentLen;
      // (*zip.FileHeader).Mode: Unix modes from "made by" Unix/Darwin, else MS-DOS attributes.
      let mode: number;
      const host = madeBy >> 8;
      if (host === 3 || host === 19) mode = external >>> 16;
      else {
        mode = external & 0x10 ? S_IFDIR | 0o777 : 0o666;
        if (external & 0x01) mode &= ~0o222;
      }
      const isDir = name.endsWith('/') || (mode & S_IFMT) === S_IFDIR;
      if (isDir) mode = (mode & ~S_IFMT) | S_IFDIR;
      entries.push({ name, method, crc, compressedSize, size: uncompressed, localOffset, mode, isDir, isSymlink: (mode & S_IFMT) === S_IFLNK });
    }
    return { file, entries };
  } finally {
    closeSync(fd);
  }
}

/** The uncompressed bytes of one entry as a stream; the stream fails on a bad method, size or CRC-32. */
export function entryStream(zip: ZipArchive, e: ZipEntry): Readable {
  if (e.isDir || e.compressedSize === 0) {
    const out = new PassThrough();
    if (e.size !== 0 && !e.isDir) out.destroy(new Error(`zip: ${e.name}: checksum error`));
    else out.end();
    return out;
  }
  const fd = openSync(zip.file, 'r');
  let start: number;
  try {
    const lh = readAt(fd, e.localOffset, 30);
    if (lh.length < 30 || lh.readUInt32LE(0) !== 0x04034b50) throw new Error(`zip: ${e.name}: not a valid zip file`);
    start = e.localOffset + 30 + lh.readUInt16LE(26) + lh.readUInt16LE(28);
  } finally {
    closeSync(fd);
  }
  if (e.method !== 0 && e.method !== 8) throw new Error(`zip: ${e.name}: unsupported compression algorithm`);
  const raw = createReadStream(zip.file, { start, end: start + e.compressedSize - 1, highWaterMark: 1 << 20 });
  let crc = 0;
  let n = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      crc = crc32(chunk, crc);
      n += chunk.length;
      if (n > e.size) return cb(new Error(`zip: ${e.name}: checksum error`));
      cb(null, chunk);
    },
    flush(cb) {
      cb(n !== e.size || crc >>> 0 !== e.crc >>> 0 ? new Error(`zip: ${e.name}: checksum error`) : null);
    },
  });
  const out = new PassThrough();
  (e.method === 8 ? pipeline(raw, createInflateRaw(), check, out) : pipeline(raw, check, out)).catch((err: Error) => out.destroy(err));
  return out;
}

/** go-getter's containsDotDot: a ".." element between slashes (either kind). */
export function containsDotDot(name: string): boolean {
  return name.includes('..') && name.split(/[/\\]/).some((p) => p === '..');
}

/**
 * Unpacks an archive into `dest` as go-getter's ZipDecompressor(dir=true, umask 0) does, with the zip-slip checks
 * described at the top. Rejects before writing anything when an entry name is unsafe.
 */
export async function extractZip(file: string, dest: string): Promise<void> {
  const zip = readZip(file);
  if (zip.entries.length === 0) throw new Error(`empty archive: ${file}`);
  const root = resolve(dest);
  const targets = zip.entries.map((e) => {
    if (containsDotDot(e.name)) throw new Error(`entry contains '..': ${e.name}`);
    const t = resolve(join(root, e.name));
    if (t !== root && !t.startsWith(root + sep)) throw new Error(`entry contains '..': ${e.name}`);
    return t;
  });
  mkdirSync(root, { recursive: true, mode: 0o755 });
  for (let i = 0; i < zip.entries.length; i++) {
    const e = zip.entries[i];
    const t = targets[i];
    if (e.isDir) {
      mkdirSync(t, { recursive: true, mode: 0o755 });
      continue;
    }
    mkdirSync(dirname(t), { recursive: true, mode: 0o755 });
    // Never write through a symlink that is already there.
    try {
      if (lstatSync(t).isSymbolicLink()) throw new Error(`zip: ${e.name}: refusing to write through a symbolic link`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const perm = e.mode & 0o7777;
    await pipeline(entryStream(zip, e), createWriteStream(t, { mode: perm }));
    chmodSync(t, perm);
  }
}

/** dirhash.HashZip with Hash1: "h1:" + base64 sha256 of "<sha256 hex>  <name>\n" per entry, sorted by name. */
export async function hashZipH1(file: string): Promise<string> {
  const zip = readZip(file);
  const byName = new Map<string, ZipEntry>();
  for (const e of zip.entries) {
    if (e.name.includes('\n')) throw new Error('dirhash: filenames with newlines are not supported');
    byName.set(e.name, e);
  }
  const names = zip.entries.map((e) => e.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const h = createHash('sha256');
  for (const n of names) {
    const fh = createHash('sha256');
    for await (const chunk of entryStream(zip, byName.get(n)!)) fh.update(chunk as Buffer);
    h.update(`${fh.digest('hex')}  ${n}\n`);
  }
  return 'h1:' + h.digest('base64');
}

/** One file to put in an archive: its name inside the archive and the file on disk (its mode is kept). */
export interface ZipInput {
  name: string;
  path: string;
}

const LIMIT = 0xffffffff;

/** Writes a deflated zip archive of the given files, streaming each one. */
export async function writeZip(file: string, inputs: readonly ZipInput[]): Promise<void> {
  const fd = openSync(file, 'w', 0o644);
  try {
    let pos = 0;
    const write = (b: Buffer) => {
      let off = 0;
      while (off < b.length) off += writeSync(fd, b, off, b.length - off, pos + off);
      pos += b.length;
    };
    const central: Buffer[] = [];
    for (const inp of inputs) {
      const st = statSync(inp.path);
      const nb = Buffer.from(inp.name, 'utf8');
      const headerAt = pos;
      const lh = Buffer.alloc(30);
      lh.writeUInt32LE(0x04034b50, 0);
      lh.writeUInt16LE(20, 4);
      lh.writeUInt16LE(0x800, 6);
      lh.writeUInt16LE(8, 8);
      lh.writeUInt16LE(0, 10); // time
      lh.writeUInt16LE(0x21, 12); // date: 1980-01-01
      lh.writeUInt16LE(nb.length, 26);
      write(lh);
      write(nb);
      let crc = 0;
      let size = 0;
      let csize = 0;
      const deflate = createDeflateRaw();
      const sink = new Transform({
        transform(chunk: Buffer, _e, cb) {
          csize += chunk.length;
          if (pos + chunk.length > LIMIT) return cb(new Error(`zip: ${file}: archives over 4 GiB are not supported`));
          write(chunk);
          cb();
        },
      });
      const count = new Transform({
        transform(chunk: Buffer, _e, cb) {
          crc = crc32(chunk, crc);
          size += chunk.length;
          cb(null, chunk);
        },
      });
      await pipeline(createReadStream(inp.path, { highWaterMark: 1 << 20 }), count, deflate, sink);
      if (size > LIMIT) throw new Error(`zip: ${file}: files over 4 GiB are not supported`);
      const fix = Buffer.alloc(12);
      fix.writeUInt32LE(crc >>> 0, 0);
      fix.writeUInt32LE(csize, 4);
      fix.writeUInt32LE(size, 8);
      writeSync(fd, fix, 0, 12, headerAt + 14);
      const ch = Buffer.alloc(46);
      ch.writeUInt32LE(0x02014b50, 0);
      ch.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, zip 2.0
      ch.writeUInt16LE(20, 6);
      ch.writeUInt16LE(0x800, 8);
      ch.writeUInt16LE(8, 10);
      ch.writeUInt16LE(0, 12);
      ch.writeUInt16LE(0x21, 14);
      ch.writeUInt32LE(crc >>> 0, 16);
      ch.writeUInt32LE(csize, 20);
      ch.writeUInt32LE(size, 24);
      ch.writeUInt16LE(nb.length, 28);
      ch.writeUInt32LE((((0o100000 | (st.mode & 0o7777)) << 16) >>> 0) as number, 38);
      ch.writeUInt32LE(headerAt, 42);
      central.push(ch, nb);
    }
    const cdStart = pos;
    for (const b of central) write(b);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(inputs.length, 8);
    end.writeUInt16LE(inputs.length, 10);
    end.writeUInt32LE(pos - cdStart, 12);
    end.writeUInt32LE(cdStart, 16);
    write(end);
  } finally {
    closeSync(fd);
  }
}
