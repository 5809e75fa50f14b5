// The outer layer of dist/cli.js and dist/server.js: compiles the bundle with a V8 code cache, so a start does not
// pay for parsing and compiling 4 MB of JavaScript again (Node 20 has no module.enableCompileCache). The language
// server pays it once per thread: its main thread and its worker threads (analysis, and runs once one starts) each
// load dist/server.js.
//
// esbuild.mjs builds each bundle (server/cli/bin.ts, server/lsp/main.ts), wraps it in a CommonJS function
// expression and writes the file as a header (`__foresightWrapped`), this file's bundle, and the bundle in a block
// comment. The file stays self-contained: a copy of it (and the .wasm files beside it) runs anywhere.
//
// The cache: <cache dir>/foresight/<kind>-<bundle hash>-<variant>-<node version>-<arch>.v8cache, where kind is `cli`
// or `server`, the variant is the command line's verb or the server thread's role (`main`, or the worker's
// workerData.role), and the cache dir is $XDG_CACHE_HOME or ~/.cache (FORESIGHT_CODE_CACHE_DIR overrides it;
// FORESIGHT_CODE_CACHE=0 turns the cache off). The file is a 16-byte header (magic "FCV2", payload length, the first
// 8 bytes of the payload's SHA-1) and V8's cached data.
//
// Invariants:
// - A missing, stale, truncated or corrupt cache is ignored (our checksum, then V8's own version, flag and length
//   checks); the run compiles from source and behaves exactly as without a cache. No cache error is ever shown.
// - The cache is written only when the run did not use one, to a temporary file renamed into place: readers see a
//   whole file or none. The command line writes it after the command finished (so it holds the functions the
//   command compiled); a server thread, which runs until it is stopped, writes it WRITE_AFTER_MS after its start
//   (FORESIGHT_CODE_CACHE_WRITE_MS overrides it), by when a cold open has compiled the functions an analysis
//   needs. Caches of other builds unused for an hour are removed then.
// - The bundle has no dynamic import(): a vm.Script has no module loader for them on Node 20 without
//   --experimental-vm-modules, so esbuild.mjs rewrites web-tree-sitter's two imports of Node built-ins to
//   __foresightImport, a require that resolves asynchronously as import() does, defined inside the wrapper.
// - V8's flags are the process's, and a code cache records them: the initial old generation flag that the language
//   server sets for its analysis worker's start (lsp/analysisSpawn.ts) is put back before the worker compiles and
//   before any server thread makes its cache, so that every cache matches a fresh process.
// - Nothing of this file outlives the load but the cache write (a server thread's timer, until it fires) and, on
//   the server's main thread, the early analysis worker's listeners (until the worker is online and taken at
//   initialize, lsp/analysisSpawn.ts): this script's source is the whole 4 MB file, and a loader function still
//   referenced would keep it in memory beside the bundle's own source (once per server thread).
// - The bundle's behaviour does not depend on the loader: it gets the same require, module, __filename and
//   __dirname it had as a plain CommonJS module.

import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { isMainThread, workerData } from 'node:worker_threads';
import { ANALYSIS_WORKER_ROLE, resetInitialOldSpace, spawnEarlyAnalysisWorker } from './lsp/analysisSpawn';

/** When a server thread writes its cache (see the invariants). */
const WRITE_AFTER_MS = 20_000;

/**
 * Written by esbuild.mjs at the top of dist/cli.js and dist/server.js. The bundle is the block comment that is the
 * whole body of `__foresightBundle` (a function that never runs, last in the file): characters [start, end) of that
 * function's source text (all ASCII: non-ASCII characters, which esbuild leaves only in comments, are written as \u
 * escapes), with each comment terminator written as `close` (a sequence the bundle does not contain). A comment
 * costs V8 a scan, not a parse, when the file is loaded, and the function's source text comes from the script V8
 * already holds, so the file is read once.
 */
declare const __foresightWrapped: { kind: 'cli' | 'server'; hash: string; close: string; start: number; end: number };
declare function __foresightBundle(): void;

const MAGIC = 0x46435632; // "FCV2"

/** The first 8 bytes of the payload's SHA-1 (native: a JavaScript checksum loop cost more than the cache saved). */
function checksum(payload: Uint8Array): Buffer {
  return createHash('sha1').update(payload).digest().subarray(0, 8);
}

function cacheFile(env: NodeJS.ProcessEnv): string | undefined {
  if (env.FORESIGHT_CODE_CACHE === '0') return undefined;
  let dir = env.FORESIGHT_CODE_CACHE_DIR;
  if (!dir) {
    const base = env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : '');
    if (!base) return undefined;
    dir = join(base, 'foresight');
  }
  // One cache per verb or thread: a cache holds the functions its run compiled, and `version` compiles few of plan's.
  const w = __foresightWrapped;
  const variant = w.kind === 'cli' ? (process.argv.slice(2).find((a) => !a.startsWith('-')) ?? '') : isMainThread ? 'main' : String((workerData as { role?: unknown } | null)?.role ?? 'worker');
  const v = /^[a-z][a-z-]{0,19}$/.test(variant) ? variant : 'other';
  return join(dir, `${w.kind}-${w.hash}-${v}-${process.version}-${process.arch}.v8cache`);
}

function readCache(file: string): Buffer | undefined {
  try {
    const b = readFileSync(file);
    if (b.length <= 16 || b.readUInt32LE(0) !== MAGIC || b.readUInt32LE(4) !== b.length - 16) return undefined;
    const payload = b.subarray(16);
    if (!checksum(payload).equals(b.subarray(8, 16))) return undefined;
    return payload;
  } catch {
    return undefined;
  }
}

function writeCache(file: string, data: Buffer): void {
  const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    const head = Buffer.alloc(16);
    head.writeUInt32LE(MAGIC, 0);
    head.writeUInt32LE(data.length, 4);
    checksum(data).copy(head, 8);
    const fd = openSync(tmp, 'w', 0o644);
    try {
      writeSync(fd, head);
      writeSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    removeStale(file);
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing was written
    }
  }
}

function bundleSource(): string {
  const w = __foresightWrapped;
  return Function.prototype.toString.call(__foresightBundle).slice(w.start, w.end).replaceAll(w.close, '*/');
}

/** Removes caches of other builds not used for an hour (each build leaves its own; this bounds the directory). */
function removeStale(file: string): void {
  const dir = dirname(file);
  const now = Date.now();
  for (const f of readdirSync(dir)) {
    const own = `${__foresightWrapped.kind}-`;
    if (!f.startsWith(own) || !/^[a-z]+-[0-9a-f]{16}-.*\.v8cache(\..*\.tmp)?$/.test(f) || f.startsWith(`${own}${__foresightWrapped.hash}-`)) continue;
    try {
      if (now - statSync(join(dir, f)).mtimeMs > 3_600_000) unlinkSync(join(dir, f));
    } catch {
      // removed by another run
    }
  }
}

// The analysis worker was started with V8's initial old generation flag set for it: put back before this thread
// compiles with its cache (lsp/analysisSpawn.ts resetInitialOldSpace).
const server = __foresightWrapped.kind === 'server';
if (server && !isMainThread && (workerData as { role?: unknown } | null)?.role === ANALYSIS_WORKER_ROLE) resetInitialOldSpace();

const source = bundleSource();
const file = cacheFile(process.env);
const cached = file ? readCache(file) : undefined;
let script: Script;
try {
  script = new Script(source, { filename: __filename, cachedData: cached });
} catch (e) {
  // Cached data V8 cannot even start to read: compile from source.
  if (!cached) throw e;
  script = new Script(source, { filename: __filename });
}
if (file && (!cached || script.cachedDataRejected)) {
  const write = () => {
    try {
      // Made under the flags a fresh process has (a worker's start may have set one).
      if (server) resetInitialOldSpace();
      writeCache(file, script.createCachedData());
    } catch {
      // a cache is an optimisation only
    }
  };
  if (server) {
    const ms = Number(process.env.FORESIGHT_CODE_CACHE_WRITE_MS);
    setTimeout(write, Number.isFinite(ms) && ms >= 0 ? ms : WRITE_AFTER_MS).unref();
  } else process.once('exit', write);
}
// The language server's analysis worker starts now, beside the main thread's start-up (analysisSpawn.ts), and after
// the cache above was read: V8 checks a cache against its flags, and the worker's start sets one until it is online.
if (server && isMainThread) spawnEarlyAnalysisWorker(__filename);
(script.runInThisContext() as (e: unknown, r: NodeRequire, m: NodeModule, f: string, d: string) => void)(module.exports, require, module, __filename, __dirname);
