// The editing features' own view of module directories: each `.tf` (and `.tfvars`) file's FileIndex, taken from the open
// document's tree when the file is open (re-indexed only when its version changes) and from disk otherwise
// (parsed with a private parser, indexed, and the tree deleted at once; re-read only when the file's mtime
// or size changes). Directory listings and files on disk are re-checked at most once per second, and
// asynchronously, so that a request makes no system calls once a module has been read.
//
// Called modules are found by local source or, for others, in the module manifest `terraform init` wrote.
//
// This runs on the language server's main thread and never waits for the directory analysis (which runs in
// a worker): after an edit only the edited file is re-indexed, so completion and navigation stay fast on
// large workspaces.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OpenDocument } from '../documents';
import type { Session } from '../session';
import { newParser, type Parser } from '../../syntax/treesitter';
import { readModuleManifest } from '../../depsfile/modules';
import { indexTree, type Decl, type FileIndex, type Ref } from './fileIndex';

function isConfigName(n: string): boolean {
  return n.endsWith('.tf') || n.endsWith('.tfvars');
}

export interface IndexedFile {
  path: string;
  uri: string;
  index: FileIndex;
  /** The text the index was built from. */
  text: string;
  open?: OpenDocument;
}

/**
 * The entries of a module's files, file after file, read in place and paired with their file as they are read: a
 * module index is rebuilt after every edit, and flat arrays of 5,000 resources' declarations and references were
 * copied each time (large arrays the main thread then had to collect); pairs made once per entry and kept were
 * another object per reference.
 */
export class Segments<X, T> implements Iterable<T> {
  constructor(
    private readonly files: readonly IndexedFile[],
    private readonly items: (f: IndexedFile) => readonly X[],
    private readonly pair: (file: IndexedFile, x: X) => T,
  ) {}

  *[Symbol.iterator](): Iterator<T> {
    for (const f of this.files) for (const x of this.items(f)) yield this.pair(f, x);
  }

  find(f: (x: T) => boolean): T | undefined {
    for (const file of this.files)
      for (const x of this.items(file)) {
        const p = this.pair(file, x);
        if (f(p)) return p;
      }
    return undefined;
  }

  filter(f: (x: T) => boolean): T[] {
    const out: T[] = [];
    for (const p of this) if (f(p)) out.push(p);
    return out;
  }

  map<U>(f: (x: T) => U): U[] {
    const out: U[] = [];
    for (const p of this) out.push(f(p));
    return out;
  }
}

const declsOf = (f: IndexedFile): readonly Decl[] => f.index.decls;
const refsOf = (f: IndexedFile): readonly Ref[] => f.index.refs;
const declEntry = (file: IndexedFile, decl: Decl) => ({ file, decl });
const refEntry = (file: IndexedFile, ref: Ref) => ({ file, ref });

export interface ModuleIndex {
  dir: string;
  files: IndexedFile[];
  decls: Segments<Decl, { file: IndexedFile; decl: Decl }>;
  refs: Segments<Ref, { file: IndexedFile; ref: Ref }>;
  /** The managed resource types the module declares (reference roots that name resources). */
  resourceTypes: Set<string>;
}

interface DiskEntry {
  mtimeMs: number;
  size: number;
  file: IndexedFile;
  /** When the file was last stat'ed (Date.now()). */
  checked: number;
  /** An asynchronous re-check is under way. */
  checking?: boolean;
  /** The re-check found the file changed or gone: read it again on next use. */
  stale?: boolean;
}

interface OpenEntry {
  version: number;
  file: IndexedFile;
}

const LIST_TTL_MS = 1000;
/** How long the list of module directories under the workspace roots is reused (workspace symbols). */
const ROOTS_TTL_MS = 5000;
/** Quiet time after the last document opened in a directory before its files are indexed in the background. */
const PREFETCH_DELAY_MS = 300;
/** Open documents longer than this are not indexed in the background (a parse would hold the thread). */
const MAX_BACKGROUND_CHARS = 256 * 1024;
/** Longest stretch of indexing work before yielding to other requests. */
const SLICE_MS = 8;
/** Files larger than this are not indexed from disk (generated files of many megabytes). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export class Workspace {
  private readonly disk = new Map<string, DiskEntry>();
  private readonly opened = new Map<string, OpenEntry>();
  private readonly listings = new Map<string, { at: number; files: string[]; reading?: boolean }>();
  /** Per directory, the last index and the files it was built from. */
  private readonly modules = new Map<string, { key: IndexedFile[]; index: ModuleIndex }>();
  private parser: Parser | undefined;
  /** Workspace folders from initialize (for workspace symbols). */
  roots: string[] = [];

  constructor(readonly session: Session) {
    // Documents opened in a burst (a client restoring its tabs) are indexed once the burst is over and the
    // directory's analysis is done, in slices, so that the first completion does not parse the whole module.
    session.documents.onOpen((doc) => {
      const dir = doc.dir;
      if (dir === undefined) return;
      clearTimeout(this.prefetch.get(dir));
      const t = setTimeout(() => {
        // After the directory's analysis (diagnostics first): on two cores, the parse of a large module here and
        // the analysis in its worker slowed each other down. A request that needs the index meanwhile indexes
        // what it needs itself (ready without `background`).
        void this.session.diagnostics.settled(dir).then(() => {
          if (this.prefetch.get(dir) !== t) return; // documents opened since: a newer prefetch is scheduled
          this.prefetch.delete(dir);
          void this.ready(dir, true);
        });
      }, PREFETCH_DELAY_MS);
      t.unref();
      this.prefetch.set(dir, t);
    });
  }

  /** Directories whose indexing is scheduled after documents were opened there. */
  private readonly prefetch = new Map<string, NodeJS.Timeout>();

  /** The `.tf` files of `dir`: those on disk plus open documents not yet saved there. */
  filesOf(dir: string): string[] {
    const now = Date.now();
    let l = this.listings.get(dir);
    if (!l) {
      let names: string[] = [];
      try {
        names = readdirSync(dir).filter(isConfigName);
      } catch {
        names = [];
      }
      l = { at: now, files: names.sort().map((n) => join(dir, n)) };
      this.listings.set(dir, l);
    } else if (now - l.at > LIST_TTL_MS && !l.reading) {
      // Re-read asynchronously, off the request path; the next request sees the new listing.
      const entry = l;
      entry.reading = true;
      readdir(dir).then(
        (names) => {
          entry.files = names.filter(isConfigName).sort().map((n) => join(dir, n));
          entry.at = Date.now();
          entry.reading = false;
        },
        () => {
          entry.files = [];
          entry.at = Date.now();
          entry.reading = false;
        },
      );
    }
    const out = new Set(l.files.filter((f) => f.endsWith('.tf')));
    for (const d of this.session.documents.inDirectory(dir)) if (d.path?.endsWith('.tf')) out.add(d.path);
    return [...out].sort();
  }

  /** The `.tfvars` files of `dir` (on disk and open), whose arguments set the module's variables. */
  tfvarsOf(dir: string): string[] {
    this.filesOf(dir);
    const out = new Set(this.listings.get(dir)?.files.filter((f) => f.endsWith('.tfvars')) ?? []);
    for (const d of this.session.documents.inDirectory(dir)) if (d.path?.endsWith('.tfvars')) out.add(d.path);
    return [...out].sort();
  }

  /** The index of one file (open document or disk), or undefined when it cannot be read. */
  file(path: string): IndexedFile | undefined {
    const doc = this.openDoc(path);
    if (doc) {
      const e = this.opened.get(doc.uri);
      if (e && e.version === doc.version && e.file.open === doc) return e.file;
      // An edited document keeps its tree (re-parsed incrementally); one opened and never edited is indexed
      // from a private parse whose tree is deleted at once, so hundreds of restored tabs hold no trees.
      const file: IndexedFile = { path, uri: doc.uri, index: doc.hasTree || doc.edited ? indexTree(doc.tree) : (this.indexText(doc.text) ?? indexTree(doc.tree)), text: doc.text, open: doc };
      this.opened.set(doc.uri, { version: doc.version, file });
      // Forget documents closed since (their file is read from disk again).
      for (const [uri, o] of this.opened) if (this.session.documents.get(uri) !== o.file.open) this.opened.delete(uri);
      return file;
    }
    const now = Date.now();
    const e = this.disk.get(path);
    // A file read before is served from the cache; when its last check is older than LIST_TTL_MS it is
    // re-stat'ed asynchronously (off the request path), and a change is picked up by the next request.
    if (e && !e.stale) {
      if (now - e.checked > LIST_TTL_MS && !e.checking) this.revalidate(path, e);
      return e.file;
    }
    let st;
    try {
      st = statSync(path);
    } catch {
      this.disk.delete(path);
      return undefined;
    }
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return undefined;
    if (e && e.mtimeMs === st.mtimeMs && e.size === st.size) {
      e.checked = now;
      e.stale = false;
      return e.file;
    }
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const index = this.indexText(text);
    if (!index) return undefined;
    const file: IndexedFile = { path, uri: pathToFileURL(path).href, index, text };
    this.disk.set(path, { mtimeMs: st.mtimeMs, size: st.size, file, checked: now });
    return file;
  }

  /** The index of `text`, parsed with the private parser (the tree is deleted at once). */
  private indexText(text: string): FileIndex | undefined {
    this.parser ??= newParser();
    const tree = this.parser.parse(text);
    if (!tree) return undefined;
    try {
      return indexTree(tree);
    } finally {
      tree.delete();
    }
  }

  /**
   * Reads and indexes the files of `dir` not read yet (and open documents not indexed at their current
   * version), yielding to other work every few milliseconds, so that the first request on a large module
   * does not hold the server's thread for the whole parse. Undefined (nothing to wait for) when every file is
   * indexed already. `background`: the indexing after documents were opened, which leaves huge ones out.
   */
  ready(dir: string, background = false): Promise<void> | undefined {
    const missing = this.filesOf(dir).filter((p) => {
      const doc = this.openDoc(p);
      if (!doc) return !this.disk.has(p);
      // In the background, a huge document (one parse of seconds) waits until a request needs it.
      if (background && doc.text.length > MAX_BACKGROUND_CHARS) return false;
      const e = this.opened.get(doc.uri);
      return !(e && e.version === doc.version && e.file.open === doc);
    });
    if (missing.length === 0) return undefined;
    return (async () => {
      let t = performance.now();
      for (const p of missing) {
        this.file(p);
        if (performance.now() - t > SLICE_MS) {
          await new Promise<void>((r) => setImmediate(r));
          t = performance.now();
        }
      }
    })();
  }

  /** The index of the module in `dir` (all its `.tf` files). */
  module(dir: string): ModuleIndex {
    const files: IndexedFile[] = [];
    for (const p of this.filesOf(dir)) {
      const f = this.file(p);
      if (f) files.push(f);
    }
    const cached = this.modules.get(dir);
    if (cached && cached.key.length === files.length && cached.key.every((f, i) => f === files[i])) return cached.index;
    const resourceTypes = new Set<string>();
    for (const file of files) for (const decl of file.index.decls) if (decl.kind === 'resource' && decl.type !== undefined) resourceTypes.add(decl.type);
    const index: ModuleIndex = { dir, files, decls: new Segments(files, declsOf, declEntry), refs: new Segments(files, refsOf, refEntry), resourceTypes };
    this.modules.set(dir, { key: files, index });
    return index;
  }

  /** The module directory a file belongs to. */
  dirOf(path: string): string {
    return dirname(path);
  }

  /**
   * The absolute directory of a called module: a local source (`./x`, `../x`) resolved against `dir`; for
   * another source, the directory `terraform init` installed it in, from `dir`'s module manifest
   * (`.terraform/modules/modules.json`, key = the call's name). Undefined when neither applies.
   */
  moduleDir(dir: string, decl: Decl): string | undefined {
    const src = decl.block.attrs.find((a) => a.name === 'source');
    const m = src?.valueText?.match(/^"((?:\.\.?)(?:\/[^"]*)?)"$/);
    if (m) return resolve(dir, m[1]);
    if (!src) return undefined;
    const now = Date.now();
    let man = this.manifests.get(dir);
    if (!man || now - man.at > LIST_TTL_MS) {
      man = { at: now, records: readModuleManifest(dir, process.env) };
      this.manifests.set(dir, man);
    }
    const rec = man.records?.get(decl.name);
    return rec && rec.Dir ? resolve(dir, rec.Dir) : undefined;
  }

  private readonly manifests = new Map<string, { at: number; records: ReturnType<typeof readModuleManifest> }>();

  /**
   * Directories that may call the module in `dir`: the directories indexed so far, those of open documents and
   * the parent directories of `dir` up to two levels. Callers check each for a module call whose source is `dir`.
   */
  candidateParents(dir: string): string[] {
    const out = new Set<string>();
    for (const d of this.modules.keys()) out.add(d);
    for (const d of this.session.documents.all()) if (d.dir) out.add(d.dir);
    let p = dir;
    for (let i = 0; i < 2; i++) {
      const up = dirname(p);
      if (up === p) break;
      out.add(up);
      p = up;
    }
    out.delete(dir);
    return [...out].sort();
  }

  /** The module calls (in other directories) whose local source resolves to `dir`. */
  callersOf(dir: string): { module: ModuleIndex; file: IndexedFile; decl: Decl }[] {
    const out: { module: ModuleIndex; file: IndexedFile; decl: Decl }[] = [];
    for (const p of this.candidateParents(dir)) {
      if (this.filesOf(p).length === 0) continue;
      const m = this.module(p);
      for (const { file, decl } of m.decls) if (decl.kind === 'module' && this.moduleDir(p, decl) === dir) out.push({ module: m, file, decl });
    }
    return out;
  }

  private revalidate(path: string, e: DiskEntry): void {
    e.checking = true;
    stat(path).then(
      (st) => {
        e.checking = false;
        e.checked = Date.now();
        if (st.mtimeMs !== e.mtimeMs || st.size !== e.size) e.stale = true;
      },
      () => {
        e.checking = false;
        e.stale = true;
      },
    );
  }

  private openDoc(path: string): OpenDocument | undefined {
    return this.session.documents.byPath(path);
  }

  /** Directories to search for workspace symbols: workspace roots (recursively, bounded) and open documents'. */
  symbolDirs(limit = 500): string[] {
    const now = Date.now();
    const key = this.roots.join('\0');
    if (!this.rootDirs || this.rootDirs.key !== key || now - this.rootDirs.at > ROOTS_TTL_MS) {
      this.rootDirs = { key, at: now, dirs: this.walkRoots(limit) };
    }
    const out = new Set(this.rootDirs.dirs);
    for (const d of this.session.documents.all()) if (d.dir) out.add(d.dir);
    return [...out].sort();
  }

  private rootDirs: { key: string; at: number; dirs: string[] } | undefined;

  /** Directories holding `.tf` files under the workspace roots (breadth first, hidden and node_modules skipped). */
  private walkRoots(limit: number): string[] {
    const out = new Set<string>();
    const queue = [...this.roots];
    while (queue.length && out.size < limit) {
      const d = queue.shift()!;
      let entries;
      try {
        entries = readdirSync(d, { withFileTypes: true });
      } catch {
        continue;
      }
      if (entries.some((e) => e.isFile() && e.name.endsWith('.tf'))) out.add(d);
      for (const e of entries) {
        if (e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules') queue.push(join(d, e.name));
      }
    }
    return [...out];
  }

  dispose(): void {
    for (const t of this.prefetch.values()) clearTimeout(t);
    this.prefetch.clear();
    this.parser?.delete();
    this.parser = undefined;
    this.disk.clear();
    this.opened.clear();
    this.modules.clear();
  }
}
