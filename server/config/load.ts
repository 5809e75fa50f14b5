// Reads a module directory as Terraform does (configs.Parser.LoadConfigDir): every *.tf file in lexical
// order, then override files (override.tf, *_override.tf) merged over the primary ones; decodes each file's
// top-level blocks into the model (model.ts) with Terraform's structural diagnostics (unsupported blocks
// and arguments, label counts, duplicates, invalid names). Local module calls are loaded recursively.
// Syntax errors come from syntax/errors.ts; reference checks from checks.ts.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { error, warning } from '../diags/diagnostic';
import * as T from '../lang/types';
import { analyzeSyntax } from '../syntax/errors';
import { largeFile, overBudget } from '../syntax/large';
import { initParser, newParser, ParserNotReady, parserReady, parseWithBudget, type Parser, type Tree } from '../syntax/treesitter';
import type { Attribute, Block, Body, Expression } from './hclbody';
import { bodyFromTree } from './hclbody';
import { jsonConfigFile } from './json';
import { fastBody } from './fastbody';
import type {
  CheckBlock,
  Condition,
  DynamicBlock,
  ImportBlock,
  Lifecycle,
  Local,
  Module,
  MovedBlock,
  ModuleCall,
  Output,
  ProviderConfig,
  RemovedBlock,
  Resource,
  TerraformBlock,
  Variable,
} from './model';
import { primeResourceLookup, resourceKey } from './model';

/**
 * The resources of a module by key while it is being loaded (duplicate detection stays linear in the number of
 * resources), then its lookup (ResourceIndex). Positions in `mod.resources`, not Resource objects, so that a load
 * whose resource keys come in the same order as the previous load of the same module (an edit that renamed,
 * added or removed no resource) shares that load's map, built once: while the keys added follow the previous
 * list, nothing is looked up or stored (at 5,000 resources the map's entries were 1.5-2.5 ms of each edit's
 * analysis, and its 230 KB table went to the old generation on every edit).
 */
class IndexBuilder {
  private n = 0;
  private following: boolean;
  private pos: Map<string, number>;
  private keys: string[];
  constructor(private readonly prev: KeyPositions | undefined) {
    this.following = !!prev;
    this.pos = prev ? prev.pos : new Map();
    this.keys = prev ? prev.keys : [];
  }

  /** The position of the resource added under `key`, if one was. */
  find(key: string): number | undefined {
    // The previous load's next key is not among the keys before it (they are a map's): no lookup.
    if (this.following && this.keys[this.n] === key) return undefined;
    const i = this.pos.get(key);
    return i !== undefined && (!this.following || i < this.n) ? i : undefined;
  }

  /** Records `key` for the next position (a key not added before: find() said so). */
  add(key: string): void {
    if (this.following) {
      if (this.keys[this.n] === key) {
        this.n++;
        return;
      }
      this.diverge();
    }
    this.pos.set(key, this.n++);
    this.keys.push(key);
  }

  /** The finished key positions: the previous load's when they turned out the same. */
  done(): KeyPositions {
    if (this.following && this.n !== this.keys.length) this.diverge();
    return { pos: this.pos, keys: this.keys };
  }

  private diverge(): void {
    this.following = false;
    this.keys = this.keys.slice(0, this.n);
    this.pos = new Map();
    for (let i = 0; i < this.n; i++) this.pos.set(this.keys[i], i);
  }
}

interface KeyPositions {
  pos: Map<string, number>;
  keys: string[];
}

/** The key positions of the last load of each module (by directory and module path); never mutated once done. */
const lastKeyPositions = new Map<string, KeyPositions>();
const indexBuilders = new WeakMap<Module, IndexBuilder>();
function indexBuilder(mod: Module): IndexBuilder {
  let b = indexBuilders.get(mod);
  if (!b) indexBuilders.set(mod, (b = new IndexBuilder(lastKeyPositions.get(`${mod.dir}\u0000${mod.path}`))));
  return b;
}

/** A module's resources by key: key positions (shared between loads) over the module's own resource list. */
class ResourceIndex implements ReadonlyMap<string, Resource> {
  constructor(
    private readonly pos: ReadonlyMap<string, number>,
    private readonly list: readonly Resource[],
  ) {}
  get size(): number {
    return this.pos.size;
  }
  get(key: string): Resource | undefined {
    const i = this.pos.get(key);
    return i === undefined ? undefined : this.list[i];
  }
  has(key: string): boolean {
    return this.pos.has(key);
  }
  *entries(): MapIterator<[string, Resource]> {
    for (const [k, i] of this.pos) yield [k, this.list[i]];
  }
  keys(): MapIterator<string> {
    return this.pos.keys();
  }
  *values(): MapIterator<Resource> {
    for (const i of this.pos.values()) yield this.list[i];
  }
  forEach(cb: (value: Resource, key: string, map: ReadonlyMap<string, Resource>) => void, thisArg?: unknown): void {
    for (const [k, i] of this.pos) cb.call(thisArg, this.list[i], k, this);
  }
  [Symbol.iterator](): MapIterator<[string, Resource]> {
    return this.entries();
  }
}

/** Ends the loading of `mod`'s resources: its lookup, and the key positions the next load of it follows. */
function finishResourceIndex(mod: Module): ReadonlyMap<string, Resource> {
  const kp = indexBuilder(mod).done();
  indexBuilders.delete(mod);
  const slot = `${mod.dir}\u0000${mod.path}`;
  if (!lastKeyPositions.has(slot) && lastKeyPositions.size >= 64) lastKeyPositions.clear();
  lastKeyPositions.set(slot, kp);
  return new ResourceIndex(kp.pos, mod.resources);
}
import { rangeBetween, rangeString, SourceText } from './source';
import { parseTypeConstraint } from './typeexpr';
import { NONE } from '../lang/ast';

export interface LoadOptions {
  /** Unsaved editor text by absolute path, used instead of the file on disk. */
  overlays?: Map<string, string>;
  /** Directory that file names in diagnostics are relative to (Terraform's working directory). */
  baseDir?: string;
  /**
   * Time allowed for each file's tree-sitter parse (the language server passes one; the CLI none). A file
   * over budget gets only the hand-written syntax checker's diagnostics and a "File too large to analyse
   * fully" warning; its body is left empty.
   */
  budgetMs?: number;
  /**
   * Per-file results kept between loads (ModuleAnalysis in analysis.ts): a file whose text, display name and
   * budget are unchanged is neither parsed nor converted again. `trees` supplies already (incrementally)
   * parsed trees by absolute path, used when their text is the file's text; they stay owned by the caller.
   */
  cache?: FileCache;
  trees?: Map<string, { text: string; tree: Tree }>;
  /** Texts of files on disk kept between loads, re-read only when a file's stat changes (DiskTexts). */
  disk?: DiskTexts;
}

/**
 * File texts by absolute path with the stat they were read under (inode, size, modification and change
 * times). A file whose modification time was within RACY_MS of its reading is not kept: a later write in
 * the same timestamp tick would go unseen (git's "racily clean" entries).
 */
export type DiskTexts = Map<string, { stat: string; text: string }>;
const RACY_MS = 2000;

/** What loading extracted from one file (never mutated once stored). */
export interface FileEntry {
  text: string;
  display: string;
  budgetMs?: number;
  /** Syntax diagnostics and "too deeply nested" errors, in the order loading reports them. */
  diagnostics: Diagnostic[];
  contexts: { range: Range; text: string }[];
  src: SourceText;
  body: Body;
  /** Built from a tree-sitter tree (not by the fast lane, fastbody.ts, nor as JSON or a too-large file). */
  fromTree?: boolean;
}

export type FileCache = Map<string, FileEntry>;

export interface LoadResult {
  module: Module;
  diagnostics: Diagnostic[];
  /** Source text by the file name used in diagnostics. */
  sources: Map<string, string>;
  /** Block header ranges, for diagnostic contexts ("resource \"a\" \"b\""). */
  contexts: { range: Range; text: string }[];
}

// ---- generic schema decoding (HCL Body.Content / PartialContent) --------------------------------------

interface Schema {
  attributes: { name: string; required?: boolean }[];
  blocks: { type: string; labels?: string[] }[];
}

interface Content {
  attrs: Map<string, Attribute>;
  blocks: Block[];
}

export function nameSuggestion(given: string, candidates: readonly string[]): string | undefined {
  for (const c of candidates) if (levenshtein(given, c) < 3) return c;
  return undefined;
}

export function levenshtein(a: string, b: string): number {
  const s = [...a];
  const t = [...b];
  let prev = Array.from({ length: t.length + 1 }, (_, i) => i);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[t.length];
}

function content(body: Body, schema: Schema, partial: boolean, diags: Diagnostic[]): Content & { rest: Body } {
  const attrs = new Map<string, Attribute>();
  const blocks: Block[] = [];
  const restAttrs: Attribute[] = [];
  const restBlocks: Block[] = [];
  for (const a of schema.attributes) {
    const found = body.attributes.find((x) => x.name === a.name);
    if (found) attrs.set(a.name, found);
    else if (a.required)
      diags.push(error('Missing required argument', `The argument "${a.name}" is required, but no definition was found.`, body.endRange));
  }
  for (const at of body.attributes) {
    if (attrs.get(at.name) === at) continue;
    if (schema.attributes.some((s) => s.name === at.name)) continue; // a redefinition; reported by the syntax check
    if (partial) {
      restAttrs.push(at);
      continue;
    }
    const cands = schema.attributes.filter((s) => !attrs.has(s.name)).map((s) => s.name);
    let sugg = nameSuggestion(at.name, cands);
    let suffix = sugg ? ` Did you mean "${sugg}"?` : '';
    if (!sugg && schema.blocks.some((b) => b.type === at.name)) suffix = ` Did you mean to define a block of type "${at.name}"?`;
    diags.push(error('Unsupported argument', `An argument named "${at.name}" is not expected here.${suffix}`, at.nameRange));
  }
  for (const b of body.blocks) {
    const s = schema.blocks.find((x) => x.type === b.type);
    if (!s) {
      if (partial) {
        restBlocks.push(b);
        continue;
      }
      const sugg = nameSuggestion(
        b.type,
        schema.blocks.map((x) => x.type),
      );
      let suffix = sugg ? ` Did you mean "${sugg}"?` : '';
      if (!sugg && schema.attributes.some((a) => a.name === b.type))
        suffix = ` Did you mean to define argument "${b.type}"? If so, use the equals sign to assign it a value.`;
      diags.push(error('Unsupported block type', `Blocks of type "${b.type}" are not expected here.${suffix}`, b.typeRange));
      continue;
    }
    const want = s.labels ?? [];
    const ctx = rangeBetween(b.typeRange, b.openBraceRange);
    if (b.labels.length > want.length) {
      if (want.length === 0)
        diags.push(error(`Extraneous label for ${b.type}`, `No labels are expected for ${b.type} blocks.`, b.labelRanges[0], { context: ctx }));
      else
        diags.push(
          error(
            `Extraneous label for ${b.type}`,
            `Only ${want.length} labels (${want.join(', ')}) are expected for ${b.type} blocks.`,
            b.labelRanges[want.length],
            { context: ctx },
          ),
        );
      continue;
    }
    if (b.labels.length < want.length) {
      diags.push(
        error(
          `Missing ${want[b.labels.length]} for ${b.type}`,
          `All ${b.type} blocks must have ${want.length} labels (${want.join(', ')}).`,
          b.openBraceRange,
          { context: ctx },
        ),
      );
      continue;
    }
    blocks.push(b);
  }
  return { attrs, blocks, rest: { attributes: restAttrs, blocks: restBlocks, range: body.range, endRange: body.endRange } };
}

function justAttributes(body: Body, diags: Diagnostic[]): Attribute[] {
  if (body.blocks.length > 0) {
    const b = body.blocks[0];
    diags.push(error(`Unexpected "${b.type}" block`, 'Blocks are not allowed here.', b.typeRange));
  }
  return body.attributes;
}

// ---- helpers for static values --------------------------------------------------------------------------

function staticString(e: Expression | undefined, diags: Diagnostic[], what = 'A string value is required.'): string | undefined {
  if (!e) return undefined;
  if (e.shape === 'string' && typeof e.literal === 'string') return e.literal;
  diags.push(error('Invalid expression', what, e.range));
  return undefined;
}

function staticBool(e: Expression | undefined, diags: Diagnostic[]): boolean | undefined {
  if (!e) return undefined;
  if (e.shape === 'literal' && typeof e.literal === 'boolean') return e.literal;
  if (e.shape === 'string' && (e.literal === 'true' || e.literal === 'false')) return e.literal === 'true';
  if (e.shape === 'literal' && e.literal === null) return undefined;
  diags.push(error('Unsuitable value type', 'Unsuitable value: a bool is required', e.range));
  return undefined;
}

/** Validates a name as hclsyntax.ValidIdentifier does. */
export function validIdentifier(s: string): boolean {
  // ASCII letters, digits, "_" and "-" are all the ASCII of ID_Start/ID_Continue: decide those without \p{}.
  if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(s)) return true;
  if (/^[\x00-\x7f]*$/.test(s)) return false;
  return /^[\p{ID_Start}_][\p{ID_Continue}-]*$/u.test(s);
}

const BAD_NAME = 'A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.';

// ---- top level -----------------------------------------------------------------------------------------

const fileSchema: Schema = {
  attributes: [],
  blocks: [
    { type: 'terraform' },
    { type: 'required_providers' },
    { type: 'provider', labels: ['name'] },
    { type: 'variable', labels: ['name'] },
    { type: 'locals' },
    { type: 'output', labels: ['name'] },
    { type: 'module', labels: ['name'] },
    { type: 'resource', labels: ['type', 'name'] },
    { type: 'data', labels: ['type', 'name'] },
    { type: 'ephemeral', labels: ['type', 'name'] },
    { type: 'moved' },
    { type: 'import' },
    { type: 'check', labels: ['name'] },
    { type: 'removed' },
  ],
};

interface ParsedFile {
  name: string; // display name
  src: SourceText;
  body: Body;
  override: boolean;
}

function isOverride(base: string): boolean {
  const stem = base.endsWith('.tf.json') ? base.slice(0, -8) : base.slice(0, -3);
  return stem === 'override' || stem.endsWith('_override');
}

function emptyModule(dir: string, path: string): Module {
  return {
    dir,
    path,
    terraform: [],
    providers: [],
    resources: [],
    variables: new Map(),
    outputs: new Map(),
    locals: new Map(),
    moduleCalls: new Map(),
    imports: [],
    moved: [],
    removed: [],
    checks: [],
    files: [],
  };
}

/** Loads the module in `dir` and its local child modules. */
export async function loadModuleTree(dir: string, opts: LoadOptions = {}): Promise<LoadResult> {
  // tree-sitter is loaded only when a file needs it (a syntax error, or a parse budget the fast lane cannot
  // promise): a first load without it stops at that file (ParserNotReady), and the load starts again with it.
  // What the first load cached (opts.cache, opts.disk) is valid for the second.
  if (!parserReady()) {
    try {
      return loadModuleTreeNow(dir, opts);
    } catch (e) {
      if (!(e instanceof ParserNotReady)) throw e;
    }
    await initParser();
  }
  return loadModuleTreeNow(dir, opts);
}

function loadModuleTreeNow(dir: string, opts: LoadOptions): LoadResult {
  const result: LoadResult = { module: emptyModule(resolve(dir), ''), diagnostics: [], sources: new Map(), contexts: [] };
  result.module = loadDir(resolve(dir), '', opts, result, new Set());
  return result;
}

/**
 * A file's stat as DiskTexts compares it (inode, size, modification and change times) and the later of its two
 * times. Kept instead of the Stats object: the listing lives through the whole load, and under a language server's
 * small young generation its 250 Stats objects (about 0.9 KB each) outlived two scavenges and were promoted on every
 * edit, a sixth of what an edit left to the next full collection (the preview bench).
 */
interface FileStamp {
  key: string;
  changedMs: number;
}

/** The configuration files of a directory, sorted, with the stamp of each one read from disk. */
function listConfigFiles(dir: string, opts: LoadOptions): { name: string; stamp?: FileStamp }[] | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const set = new Set(names.filter((n) => (n.endsWith('.tf') || n.endsWith('.tf.json')) && !n.startsWith('.') && !n.startsWith('#') && !n.endsWith('~')));
  if (opts.overlays)
    for (const p of opts.overlays.keys()) {
      const r = relative(dir, p);
      if (!r.includes('/') && !r.startsWith('..') && (r.endsWith('.tf') || r.endsWith('.tf.json'))) set.add(r);
    }
  const out: { name: string; stamp?: FileStamp }[] = [];
  for (const name of [...set].sort()) {
    const abs = inDir(dir, name);
    if (opts.overlays?.has(abs)) {
      out.push({ name });
      continue;
    }
    try {
      const stat = statSync(abs);
      if (stat.isFile()) out.push({ name, stamp: { key: `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`, changedMs: Math.max(stat.mtimeMs, stat.ctimeMs) } });
    } catch {
      // gone since the listing
    }
  }
  return out;
}

/** join(dir, name) for an absolute, normalised `dir` (loadDir's) and a plain file name: no normalisation. */
function inDir(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

/** A file's text from disk, or from `disk` when its stamp is the one it was read under. */
function readConfigFile(abs: string, stamp: FileStamp | undefined, disk: DiskTexts | undefined): string {
  if (!disk || !stamp) return readFileSync(abs, 'utf8');
  const kept = disk.get(abs);
  if (kept && kept.stat === stamp.key) return kept.text;
  const text = readFileSync(abs, 'utf8');
  if (Date.now() - stamp.changedMs > RACY_MS) disk.set(abs, { stat: stamp.key, text });
  else disk.delete(abs);
  return text;
}

function loadDir(dir: string, path: string, opts: LoadOptions, res: LoadResult, seen: Set<string>): Module {
  const mod = emptyModule(dir, path);
  const base = opts.baseDir ?? dir;
  const baseAbs = resolve(base);
  const listed = listConfigFiles(dir, opts) ?? [];
  const files = listed.map((f) => f.name);
  // Created when a file is not read by the fast lane (and throws ParserNotReady before initParser()).
  let parser: Parser | undefined;
  const getParser = (): Parser => (parser ??= newParser());
  const parsed: ParsedFile[] = [];
  // Overrides merge into (mutate) the bodies of primary files: a directory with override files is loaded
  // without the cache, and its files leave it.
  const fopts = files.some(isOverride) && opts.cache ? { ...opts, cache: undefined } : opts;
  if (fopts !== opts) for (const f of files) opts.cache!.delete(join(dir, f));
  try {
    for (const { name: f, stamp } of listed) {
      const abs = inDir(dir, f);
      let text: string;
      try {
        text = opts.overlays?.get(abs) ?? readConfigFile(abs, stamp, opts.disk);
      } catch {
        continue;
      }
      const display = dir === baseAbs ? f : relative(baseAbs, abs) || f;
      res.sources.set(display, text);
      const entry = fileEntry(abs, display, text, getParser, fopts);
      if (!entry) continue;
      res.diagnostics.push(...entry.diagnostics);
      for (const b of entry.contexts) res.contexts.push(b);
      parsed.push({ name: display, src: entry.src, body: entry.body, override: isOverride(f) });
    }
  } finally {
    parser?.delete();
  }
  const primary = parsed.filter((p) => !p.override);
  const overrides = parsed.filter((p) => p.override);
  mod.files = [...primary, ...overrides].map((p) => p.name);
  // Without override files nothing mutates decoded declarations: resources of unchanged blocks are reused.
  const reuse = overrides.length === 0 && !!opts.cache;
  for (const f of primary) decodeFile(f, mod, res, false, reuse);
  for (const f of overrides) decodeFile(f, mod, res, true, false);
  primeResourceLookup(mod, finishResourceIndex(mod));
  // child modules
  for (const call of mod.moduleCalls.values()) {
    if (call.source === undefined) continue;
    if (call.source.startsWith('./') || call.source.startsWith('../')) {
      const childDir = resolve(dir, call.source);
      call.dir = childDir;
      if (seen.has(childDir)) continue;
      let ok = false;
      try {
        ok = statSync(childDir).isDirectory();
      } catch {
        ok = false;
      }
      if (!ok) {
        res.diagnostics.push(
          error(
            'Unreadable module directory',
            `The directory ${relative(resolve(base), childDir) || '.'} does not exist or cannot be read.`,
            call.sourceRange,
          ),
        );
        continue;
      }
      const s2 = new Set(seen);
      s2.add(dir);
      call.module = loadDir(childDir, `${path ? path + '.' : ''}module.${call.name}`, { ...opts, baseDir: base }, res, s2);
    } else {
      res.diagnostics.push(
        error(
          'Module not installed',
          'This module is not yet installed. Run "terraform init" to install all modules required by this configuration.',
          call.declRange,
        ),
      );
    }
  }
  return mod;
}


/**
 * Characters per millisecond of parse budget below which a file certainly parses within the budget (tree-sitter
 * reads about 600 per ms; a fifth of that leaves room for a loaded machine).
 */
const FAST_CHARS_PER_MS = 120;

/** A `.tf.json` file in Terraform's JSON syntax (json.ts), cached like the others. */
function jsonFileEntry(abs: string, display: string, text: string, opts: LoadOptions): FileEntry {
  const j = jsonConfigFile(text, display);
  const entry: FileEntry = { text, display, budgetMs: opts.budgetMs, diagnostics: j.diagnostics, contexts: j.contexts, src: new SourceText(display, text), body: j.body };
  opts.cache?.set(abs, entry);
  return entry;
}

/** Parses and converts one file, or returns the cached result for the same text. */
function fileEntry(abs: string, display: string, text: string, parser: () => Parser, opts: LoadOptions): FileEntry | undefined {
  const cached = opts.cache?.get(abs);
  if (cached && cached.text === text && cached.display === display && cached.budgetMs === opts.budgetMs) return cached;
  if (abs.endsWith('.tf.json')) return jsonFileEntry(abs, display, text, opts);
  const src = new SourceText(display, text);
  const diagnostics: Diagnostic[] = [];
  const contexts: { range: Range; text: string }[] = [];
  // Fast lane (fastbody.ts): a file without syntax errors is built from the syntax check's structure, without
  // tree-sitter. Under a parse budget only files tree-sitter would certainly parse within it take this lane,
  // so that larger ones keep the budget's behaviour.
  if (opts.budgetMs === undefined || text.length <= opts.budgetMs * FAST_CHARS_PER_MS) {
    const syn = analyzeSyntax(text, display, undefined, { structure: true, src });
    const body = syn.structure && syn.diagnostics.length === 0 ? fastBody(syn.structure, src) : undefined;
    if (body) {
      const entry: FileEntry = { text, display, budgetMs: opts.budgetMs, diagnostics, contexts: syn.blocks, src, body };
      opts.cache?.set(abs, entry);
      return entry;
    }
  }
  const given = opts.trees?.get(abs);
  const tree =
    given && given.text === text ? given.tree : overBudget(text, opts.budgetMs) ? 'timeout' : parseWithBudget(parser(), text, { budgetMs: opts.budgetMs });
  let body: Body;
  let complete = tree !== 'timeout';
  if (tree === 'timeout') {
    // Too large for tree-sitter within the budget (predicted from its size, or the parse was abandoned): the
    // linear hand-written parser reads it (syntax/large.ts); only a file with syntax errors stays partial.
    const large = largeFile(text, display, src, opts.budgetMs!);
    diagnostics.push(...large.diagnostics);
    for (const b of large.contexts) contexts.push(b);
    body = large.body;
    complete = large.complete;
  } else if (!tree) {
    return undefined;
  } else {
    try {
      const syn = analyzeSyntax(text, display, tree);
      diagnostics.push(...syn.diagnostics);
      for (const b of syn.blocks) contexts.push(b);
      body = bodyFromTree(tree.rootNode, src, diagnostics);
    } finally {
      if (tree !== given?.tree) tree.delete();
    }
  }
  const entry: FileEntry = { text, display, budgetMs: opts.budgetMs, diagnostics, contexts, src, body, fromTree: tree !== 'timeout' };
  if (complete) opts.cache?.set(abs, entry);
  return entry;
}

/**
 * One top-level item of a file as decodeBlocks reads it: its own diagnostics (in the order loading reports
 * them) and the decoded declaration, which mergeDecoded adds to the module with the duplicate checks.
 */
type Decoded = { diags: Diagnostic[] } & (
  | { kind: 'terraform'; v: TerraformBlock }
  | { kind: 'diagnostics' }
  | { kind: 'provider'; v: ProviderConfig }
  | { kind: 'variable'; v: Variable; block: Block }
  | { kind: 'local'; v: Local; nameDiags: Diagnostic[] }
  | { kind: 'output'; v: Output; block: Block }
  | { kind: 'module'; v: ModuleCall; block: Block }
  | { kind: 'resource'; v: Resource; key: string }
  | { kind: 'moved'; v: MovedBlock }
  | { kind: 'import'; v: ImportBlock }
  | { kind: 'removed'; v: RemovedBlock }
  | { kind: 'check'; v: CheckBlock }
);

/**
 * decodeBlocks results by file body, for loads that reuse them (no override files: nothing mutates a decoded
 * declaration, and bodies of unchanged files are the same objects, FileCache). The file's display name is
 * part of the key: it appears in the declarations.
 */
const fileDecodes = new WeakMap<Body, { file: string; items: Decoded[] }>();

function decodeFile(f: ParsedFile, mod: Module, res: LoadResult, override: boolean, reuse = false): void {
  let items: Decoded[];
  if (reuse) {
    const c = fileDecodes.get(f.body);
    if (c && c.file === f.name) items = c.items;
    else fileDecodes.set(f.body, { file: f.name, items: (items = decodeBlocks(f)) });
  } else items = decodeBlocks(f);
  mergeDecoded(items, mod, res.diagnostics, override);
}

/** Decodes every top-level block of a file, without looking at the rest of the module. */
function decodeBlocks(f: ParsedFile): Decoded[] {
  const out: Decoded[] = [];
  const top: Diagnostic[] = [];
  const c = content(f.body, fileSchema, false, top);
  if (top.length) out.push({ kind: 'diagnostics', diags: top });
  for (const b of c.blocks) {
    const diags: Diagnostic[] = [];
    switch (b.type) {
      case 'terraform':
        out.push({ kind: 'terraform', v: decodeTerraform(b, diags), diags });
        break;
      case 'required_providers':
        diags.push(
          error(
            'Invalid required_providers block',
            'A "required_providers" block must be nested inside a "terraform" block.',
            b.typeRange,
          ),
        );
        out.push({ kind: 'diagnostics', diags });
        break;
      case 'provider':
        out.push({ kind: 'provider', v: decodeProvider(b, diags), diags });
        break;
      case 'variable':
        out.push({ kind: 'variable', v: decodeVariable(b, diags, f.src), block: b, diags });
        break;
      case 'locals': {
        const attrs = justAttributes(b.body, diags);
        if (diags.length) out.push({ kind: 'diagnostics', diags });
        for (const a of attrs) {
          const nameDiags: Diagnostic[] = [];
          if (!validIdentifier(a.name)) nameDiags.push(error('Invalid local value name', BAD_NAME, a.nameRange));
          out.push({ kind: 'local', v: { name: a.name, nameRange: a.nameRange, expr: a.expr, range: a.range }, nameDiags, diags: [] });
        }
        break;
      }
      case 'output':
        out.push({ kind: 'output', v: decodeOutput(b, diags), block: b, diags });
        break;
      case 'module':
        out.push({ kind: 'module', v: decodeModuleCall(b, diags), block: b, diags });
        break;
      case 'resource':
      case 'data': {
        const r = decodeResource(b, b.type === 'data' ? 'data' : 'managed', diags, f.name);
        out.push({ kind: 'resource', v: r, key: resourceKey(r), diags });
        break;
      }
      case 'ephemeral':
        break;
      case 'moved': {
        const cc = content(b.body, { attributes: [{ name: 'from', required: true }, { name: 'to', required: true }], blocks: [] }, false, diags);
        out.push({ kind: 'moved', v: { from: cc.attrs.get('from')?.expr, to: cc.attrs.get('to')?.expr, range: b.defRange }, diags });
        break;
      }
      case 'import': {
        const cc = content(
          b.body,
          {
            attributes: [{ name: 'to', required: true }, { name: 'id' }, { name: 'identity' }, { name: 'for_each' }, { name: 'provider' }],
            blocks: [],
          },
          false,
          diags,
        );
        if (!cc.attrs.has('id') && !cc.attrs.has('identity'))
          diags.push(error('Invalid import block', 'At least one of "id" or "identity" must be set.', b.defRange));
        out.push({
          kind: 'import',
          v: {
            to: cc.attrs.get('to')?.expr,
            id: cc.attrs.get('id')?.expr,
            identity: cc.attrs.get('identity')?.expr,
            forEach: cc.attrs.get('for_each')?.expr,
            provider: cc.attrs.get('provider')?.expr,
            range: b.defRange,
          },
          diags,
        });
        break;
      }
      case 'removed': {
        const cc = content(
          b.body,
          { attributes: [{ name: 'from', required: true }], blocks: [{ type: 'lifecycle' }, { type: 'provisioner', labels: ['type'] }, { type: 'connection' }] },
          false,
          diags,
        );
        const lc = cc.blocks.find((x) => x.type === 'lifecycle');
        if (lc) content(lc.body, { attributes: [{ name: 'destroy' }], blocks: [] }, false, diags);
        out.push({ kind: 'removed', v: { from: cc.attrs.get('from')?.expr, lifecycle: lc?.body, range: b.defRange }, diags });
        break;
      }
      case 'check':
        out.push({ kind: 'check', v: decodeCheck(b, diags, f.name), diags });
        break;
    }
  }
  return out;
}

/**
 * Adds a file's decoded declarations to the module in order, with Terraform's duplicate checks (an override
 * file's declarations merge into the primary ones instead). Module calls are added as copies: loading
 * attaches the child module to the call, and decoded items may be shared with earlier loads.
 */
function mergeDecoded(items: readonly Decoded[], mod: Module, diags: Diagnostic[], override: boolean): void {
  for (const it of items) {
    for (const d of it.diags) diags.push(d);
    switch (it.kind) {
      case 'diagnostics':
        break;
      case 'terraform':
        mod.terraform.push(it.v);
        break;
      case 'provider': {
        const p = it.v;
        const existing = mod.providers.find((x) => x.name === p.name && x.alias === p.alias);
        if (existing && !override) {
          diags.push(
            error(
              'Duplicate provider configuration',
              p.alias === undefined
                ? `A default (non-aliased) provider configuration for "${p.name}" was already given at ${rangeString(existing.declRange)}. If multiple configurations are required, set the "alias" argument for alternative configurations.`
                : `A provider configuration for "${p.name}" with alias "${p.alias}" was already given at ${rangeString(existing.declRange)}. Each configuration for the same provider must have a distinct alias.`,
              p.declRange,
            ),
          );
        } else if (existing) mergeBody(existing.body, p.body);
        else mod.providers.push(p);
        break;
      }
      case 'variable': {
        const v = it.v;
        const existing = mod.variables.get(v.name);
        if (existing && !override)
          diags.push(
            error(
              'Duplicate variable declaration',
              `A variable named "${v.name}" was already declared at ${rangeString(existing.declRange)}. Variable names must be unique within a module.`,
              v.declRange,
            ),
          );
        else if (existing) overrideVariable(existing, v, it.block);
        else if (override) missingBase(diags, 'variable', v.name, v.declRange);
        else mod.variables.set(v.name, v);
        break;
      }
      case 'local': {
        const a = it.v;
        for (const d of it.nameDiags) diags.push(d);
        const existing = mod.locals.get(a.name);
        if (existing && !override)
          diags.push(
            error(
              'Duplicate local value definition',
              `A local value named "${a.name}" was already defined at ${rangeString(existing.range)}. Local value names must be unique within a module.`,
              a.range,
            ),
          );
        else if (existing) existing.expr = a.expr;
        else if (override) missingBase(diags, 'local value', a.name, a.range);
        else mod.locals.set(a.name, a);
        break;
      }
      case 'output': {
        const o = it.v;
        const b = it.block;
        const existing = mod.outputs.get(o.name);
        if (existing && !override)
          diags.push(
            error(
              'Duplicate output definition',
              `An output named "${o.name}" was already defined at ${rangeString(existing.declRange)}. Output names must be unique within a module.`,
              o.declRange,
            ),
          );
        else if (existing) {
          if (o.value) existing.value = o.value;
          if (b.body.attributes.some((a) => a.name === 'sensitive')) existing.sensitive = o.sensitive;
          if (o.description !== undefined) existing.description = o.description;
          if (o.dependsOn) existing.dependsOn = o.dependsOn;
        } else if (override) missingBase(diags, 'output', o.name, o.declRange);
        else mod.outputs.set(o.name, o);
        break;
      }
      case 'module': {
        const m = it.v;
        const b = it.block;
        const existing = mod.moduleCalls.get(m.name);
        if (existing && !override)
          diags.push(
            error(
              'Duplicate module call',
              `A module call named "${m.name}" was already defined at ${rangeString(existing.declRange)}. Module calls must have unique names within a module.`,
              m.declRange,
            ),
          );
        else if (existing) {
          if (m.source !== undefined && b.body.attributes.some((a) => a.name === 'source')) {
            existing.source = m.source;
            existing.sourceRange = m.sourceRange;
          }
          for (const [k, v] of m.arguments) existing.arguments.set(k, v);
          for (const [k, v] of m.argumentRanges) existing.argumentRanges.set(k, v);
          existing.count = m.count ?? existing.count;
          existing.forEach = m.forEach ?? existing.forEach;
        } else if (override) missingBase(diags, 'module call', m.name, m.declRange);
        else mod.moduleCalls.set(m.name, { ...m, arguments: new Map(m.arguments), argumentRanges: new Map(m.argumentRanges) });
        break;
      }
      case 'resource': {
        const r = it.v;
        const index = indexBuilder(mod);
        // The same string object on every load of an unchanged file: later maps and comparisons of keys
        // (checks.ts) find it by identity and its hash computed.
        const key = it.key;
        const at = index.find(key);
        const existing = at === undefined ? undefined : mod.resources[at];
        if (existing && !override) {
          diags.push(
            r.mode === 'managed'
              ? error(
                  `Duplicate resource "${existing.type}" configuration`,
                  `A ${existing.type} resource named "${existing.name}" was already declared at ${rangeString(existing.declRange)}. Resource names must be unique per type in each module.`,
                  r.declRange,
                )
              : error(
                  `Duplicate data "${existing.type}" configuration`,
                  `A ${existing.type} data resource named "${existing.name}" was already declared at ${rangeString(existing.declRange)}. Resource names must be unique per type in each module.`,
                  r.declRange,
                ),
          );
        } else if (existing) overrideResource(existing, r);
        else if (override) missingBase(diags, r.mode === 'data' ? 'data resource' : 'resource', `${r.type}.${r.name}`, r.declRange);
        else {
          mod.resources.push(r);
          index.add(key);
        }
        break;
      }
      case 'moved':
        mod.moved.push(it.v);
        break;
      case 'import':
        mod.imports.push(it.v);
        break;
      case 'removed':
        mod.removed.push(it.v);
        break;
      case 'check': {
        const ch = it.v;
        const existing = mod.checks.find((x) => x.name === ch.name);
        if (existing)
          diags.push(
            error(
              `Duplicate check "${ch.name}" configuration`,
              `A check block named "${ch.name}" was already declared at ${rangeString(existing.declRange)}. Check blocks must be unique within each module.`,
              ch.declRange,
            ),
          );
        else mod.checks.push(ch);
        break;
      }
    }
  }
}

function missingBase(diags: Diagnostic[], what: string, name: string, range: Range): void {
  diags.push(
    error(
      `Missing base ${what} declaration to override`,
      `There is no ${what} named "${name}". An override file can only override a ${what} that was already declared in a primary configuration file.`,
      range,
    ),
  );
}

function mergeBody(base: Body, over: Body): void {
  // New lists: a body's own may be the model's shared empty one (lang/ast.ts NONE).
  const attributes = base.attributes.slice();
  for (const a of over.attributes) {
    const i = attributes.findIndex((x) => x.name === a.name);
    if (i >= 0) attributes[i] = a;
    else attributes.push(a);
  }
  base.attributes = attributes;
  const types = new Set(over.blocks.map((b) => b.type));
  if (types.size) base.blocks = [...base.blocks.filter((b) => !types.has(b.type)), ...over.blocks];
}

function overrideVariable(base: Variable, o: Variable, b: Block): void {
  const has = (n: string) => b.body.attributes.some((a) => a.name === n);
  if (has('type')) {
    base.type = o.type;
    base.typeExpr = o.typeExpr;
  }
  if (has('default')) base.default = o.default;
  if (has('description')) base.description = o.description;
  if (has('sensitive')) base.sensitive = o.sensitive;
  if (has('nullable')) base.nullable = o.nullable;
  if (o.validations.length) base.validations = o.validations;
}

function overrideResource(base: Resource, o: Resource): void {
  base.count = o.count ?? base.count;
  base.forEach = o.forEach ?? base.forEach;
  base.dependsOn = o.dependsOn ?? base.dependsOn;
  base.provider = o.provider ?? base.provider;
  base.lifecycle = o.lifecycle ?? base.lifecycle;
  mergeBody(base.config, o.config);
  if (o.dynamic.length) base.dynamic = o.dynamic;
}

// ---- block decoders ------------------------------------------------------------------------------------

function decodeTerraform(b: Block, diags: Diagnostic[]): TerraformBlock {
  const c = content(
    b.body,
    {
      attributes: [{ name: 'required_version' }, { name: 'experiments' }, { name: 'language' }],
      blocks: [
        { type: 'required_providers' },
        { type: 'backend', labels: ['type'] },
        { type: 'cloud' },
        { type: 'provider_meta', labels: ['provider'] },
      ],
    },
    false,
    diags,
  );
  const tb: TerraformBlock = { requiredVersion: c.attrs.get('required_version')?.expr, requiredProviders: [], other: [], range: b.defRange };
  for (const blk of c.blocks) {
    if (blk.type === 'required_providers') {
      for (const a of justAttributes(blk.body, diags)) {
        const rp = { name: a.name, range: a.range } as TerraformBlock['requiredProviders'][number];
        if (a.expr.shape === 'string') rp.version = String(a.expr.literal);
        else if (a.expr.shape === 'object') {
          for (const it of a.expr.items ?? []) {
            const k = it.key.shape === 'traversal' ? it.key.text : it.key.literal;
            if (k === 'source') rp.source = staticString(it.value, diags, 'Source must be specified as a string.');
            else if (k === 'version') rp.version = staticString(it.value, diags, 'Version must be specified as a string.');
            else if (k !== 'configuration_aliases')
              diags.push(
                error(
                  'Invalid required_providers object',
                  'required_providers objects can only contain "version", "source" and "configuration_aliases" attributes. To configure a provider, use a "provider" block.',
                  it.key.range,
                ),
              );
          }
        } else
          diags.push(
            error(
              'Invalid required_providers object',
              'required_providers objects can only contain "version", "source" and "configuration_aliases" attributes. To configure a provider, use a "provider" block.',
              a.expr.range,
            ),
          );
        tb.requiredProviders.push(rp);
      }
    } else if (blk.type === 'backend') {
      if (tb.backend)
        diags.push(
          error(
            "Duplicate 'backend' configuration block",
            `A module may have only one 'backend' configuration block. The backend was previously configured at ${rangeString(tb.backend.range)}.`,
            blk.defRange,
          ),
        );
      else
        tb.backend = {
          type: blk.labels[0],
          typeRange: blk.labelRanges[0],
          attributes: new Map(blk.body.attributes.map((a) => [a.name, a.expr])),
          range: blk.defRange,
        };
    } else tb.other.push(blk);
  }
  return tb;
}

function decodeProvider(b: Block, diags: Diagnostic[]): ProviderConfig {
  const c = content(b.body, { attributes: [{ name: 'alias' }, { name: 'version' }], blocks: [] }, true, diags);
  const name = b.labels[0];
  if (!validIdentifier(name)) diags.push(error('Invalid provider local name', `${name} is an invalid provider local name: must contain only letters, digits, underscores and dashes, and must start with a letter.`, b.labelRanges[0]));
  const aliasAttr = c.attrs.get('alias');
  let alias: string | undefined;
  if (aliasAttr) {
    if (aliasAttr.expr.shape === 'traversal' && aliasAttr.expr.refs.length === 1 && aliasAttr.expr.refs[0].steps.length === 0) alias = aliasAttr.expr.text;
    else alias = staticString(aliasAttr.expr, diags);
    if (alias !== undefined && !validIdentifier(alias)) diags.push(error('Invalid provider configuration alias', `An alias must be a valid name. ${BAD_NAME}`, aliasAttr.expr.range));
  }
  const ver = c.attrs.get('version');
  if (ver)
    diags.push(
      warning(
        'Version constraints inside provider configuration blocks are deprecated',
        'Terraform 0.13 and earlier allowed provider version constraints inside the provider configuration block, but that is now deprecated and will be removed in a future version of Terraform. To silence this warning, move the provider version constraint into the required_providers block.',
        ver.expr.range,
      ),
    );
  return { name, alias, aliasRange: aliasAttr?.expr.range, nameRange: b.labelRanges[0], declRange: b.defRange, body: c.rest };
}

/** The condition blocks of one kind; a check's assert with errors is left out, as Terraform leaves it out. */
function decodeConditions(blocks: Block[], kind: Condition['kind'], outDiags: Diagnostic[]): Condition[] {
  const out: Condition[] = [];
  for (const x of blocks) {
    if (x.type !== kind) continue;
    const diags: Diagnostic[] = [];
    const c = decodeCondition(x, kind, diags);
    outDiags.push(...diags);
    if (kind !== 'assert' || !diags.some((d) => d.severity === 'error')) out.push(c);
  }
  return out;
}

function decodeCondition(x: Block, kind: Condition['kind'], diags: Diagnostic[]): Condition {
  const cc = content(x.body, { attributes: [{ name: 'condition', required: true }, { name: 'error_message', required: true }], blocks: [] }, false, diags);
  const condition = cc.attrs.get('condition')?.expr;
  // A condition that refers to nothing would always give the same answer (configs.decodeCheckRuleBlock).
  if (condition && condition.refs.length === 0) {
    diags.push(
      error(
        `Invalid ${kind} expression`,
        'The condition expression must refer to at least one object from elsewhere in the configuration, or else its result would not be checking anything.',
        condition.range,
      ),
    );
  }
  return { kind, condition, errorMessage: cc.attrs.get('error_message')?.expr, range: x.defRange };
}

function decodeVariable(b: Block, diags: Diagnostic[], src: SourceText): Variable {
  const name = b.labels[0];
  if (!validIdentifier(name)) diags.push(error('Invalid variable name', BAD_NAME, b.labelRanges[0]));
  else if (['source', 'version', 'providers', 'count', 'for_each', 'lifecycle', 'depends_on', 'locals'].includes(name))
    diags.push(
      error(
        'Invalid variable name',
        `The variable name "${name}" is reserved due to its special meaning inside module blocks.`,
        b.labelRanges[0],
      ),
    );
  const c = content(
    b.body,
    {
      attributes: [{ name: 'description' }, { name: 'default' }, { name: 'type' }, { name: 'sensitive' }, { name: 'nullable' }, { name: 'ephemeral' }],
      blocks: [{ type: 'validation' }],
    },
    false,
    diags,
  );
  const v: Variable = {
    name,
    nameRange: b.labelRanges[0],
    declRange: b.defRange,
    type: T.Dynamic,
    sensitive: false,
    nullable: true,
    ephemeral: false,
    validations: decodeConditions(c.blocks, 'validation', diags),
  };
  const ty = c.attrs.get('type');
  if (ty) {
    v.typeExpr = ty.expr;
    if (ty.expr.shape === 'string') {
      const lit = String(ty.expr.literal);
      const detail: Record<string, string> = {
        string: 'When declaring a variable, the type keyword must not be quoted. To declare a string variable, write type = string.',
        list: 'When declaring a variable, the type keyword must not be quoted. To declare a list variable, write type = list(string).',
        map: 'When declaring a variable, the type keyword must not be quoted. To declare a map variable, write type = map(string).',
      };
      diags.push(
        detail[lit]
          ? error('Invalid quoted type constraints', `Terraform 0.11 and earlier required type constraints to be given in quotes, but that form is now deprecated and will be removed in a future version of Terraform. Remove the quotes around "${lit}".`, ty.expr.range)
          : error('Invalid legacy variable type hint', 'To provide a full type expression, remove the surrounding quotes and give the type expression directly.', ty.expr.range),
      );
    } else {
      const r = parseTypeConstraint(ty.expr, src);
      v.type = r.type;
      diags.push(...r.diags);
    }
  }
  const d = c.attrs.get('description');
  if (d) v.description = staticString(d.expr, diags);
  v.default = c.attrs.get('default')?.expr;
  const s = staticBool(c.attrs.get('sensitive')?.expr, diags);
  if (s !== undefined) v.sensitive = s;
  const n = staticBool(c.attrs.get('nullable')?.expr, diags);
  if (n !== undefined) v.nullable = n;
  const e = staticBool(c.attrs.get('ephemeral')?.expr, diags);
  if (e !== undefined) v.ephemeral = e;
  for (const val of v.validations) {
    if (val.condition && !val.condition.refs.some((r) => r.root === 'var' && r.steps[0]?.kind === 'attr'))
      diags.push(
        error(
          'Invalid variable validation condition',
          `The condition for variable "${name}" must refer to var.${name} in order to test incoming values.`,
          val.condition.range,
        ),
      );
  }
  return v;
}

function decodeOutput(b: Block, diags: Diagnostic[]): Output {
  const name = b.labels[0];
  if (!validIdentifier(name)) diags.push(error('Invalid output name', BAD_NAME, b.labelRanges[0]));
  const c = content(
    b.body,
    {
      attributes: [{ name: 'description' }, { name: 'value', required: true }, { name: 'sensitive' }, { name: 'depends_on' }, { name: 'ephemeral' }],
      blocks: [{ type: 'precondition' }, { type: 'postcondition' }],
    },
    false,
    diags,
  );
  for (const pc of c.blocks.filter((x) => x.type === 'postcondition'))
    diags.push(
      error(
        'Postconditions are not allowed',
        'Output values can only have preconditions, not postconditions.',
        pc.typeRange,
      ),
    );
  const o: Output = {
    name,
    nameRange: b.labelRanges[0],
    declRange: b.defRange,
    value: c.attrs.get('value')?.expr,
    sensitive: staticBool(c.attrs.get('sensitive')?.expr, diags) ?? false,
    ephemeral: staticBool(c.attrs.get('ephemeral')?.expr, diags) ?? false,
    dependsOn: c.attrs.get('depends_on')?.expr,
    preconditions: decodeConditions(c.blocks, 'precondition', diags),
  };
  const d = c.attrs.get('description');
  if (d) o.description = staticString(d.expr, diags);
  return o;
}

function decodeModuleCall(b: Block, diags: Diagnostic[]): ModuleCall {
  const name = b.labels[0];
  if (!validIdentifier(name)) diags.push(error('Invalid module instance name', BAD_NAME, b.labelRanges[0]));
  const c = content(
    b.body,
    {
      attributes: [
        { name: 'source', required: true },
        { name: 'version' },
        { name: 'count' },
        { name: 'for_each' },
        { name: 'depends_on' },
        { name: 'providers' },
      ],
      blocks: [{ type: '_' }, { type: 'lifecycle' }, { type: 'locals' }, { type: 'provider', labels: ['type'] }],
    },
    true,
    diags,
  );
  for (const blk of c.blocks)
    diags.push(error('Unsupported block type', `Blocks of type "${blk.type}" are not expected here.`, blk.typeRange));
  for (const blk of c.rest.blocks)
    diags.push(error('Unsupported block type', `Blocks of type "${blk.type}" are not expected here.`, blk.typeRange));
  const src = c.attrs.get('source');
  const m: ModuleCall = {
    name,
    nameRange: b.labelRanges[0],
    declRange: b.defRange,
    missingItemRange: { filename: b.openBraceRange.filename, start: b.openBraceRange.start, end: b.openBraceRange.start },
    source: src ? staticString(src.expr, diags, 'A static string value is required for the module source.') : undefined,
    sourceRange: src?.expr.range,
    version: c.attrs.get('version')?.expr,
    count: c.attrs.get('count')?.expr,
    forEach: c.attrs.get('for_each')?.expr,
    dependsOn: c.attrs.get('depends_on')?.expr,
    providers: c.attrs.get('providers')?.expr,
    arguments: new Map(c.rest.attributes.map((a) => [a.name, a.expr])),
    argumentRanges: new Map(c.rest.attributes.map((a) => [a.name, a.nameRange])),
  };
  if (m.count && m.forEach)
    diags.push(
      error(
        'Invalid combination of "count" and "for_each"',
        'The "count" and "for_each" arguments are mutually-exclusive, only one should be used.',
        c.attrs.get('for_each')!.nameRange,
      ),
    );
  return m;
}

const resourceSchema: Schema = {
  attributes: [{ name: 'count' }, { name: 'for_each' }, { name: 'provider' }, { name: 'depends_on' }],
  blocks: [
    { type: 'locals' },
    { type: 'lifecycle' },
    { type: 'connection' },
    { type: 'provisioner', labels: ['type'] },
    { type: '_' },
  ],
};

function decodeResource(b: Block, mode: 'managed' | 'data', diags: Diagnostic[], file: string): Resource {
  const [type, name] = b.labels;
  if (!validIdentifier(type)) diags.push(error('Invalid resource type name', BAD_NAME, b.labelRanges[0]));
  if (!validIdentifier(name)) diags.push(error('Invalid resource name', BAD_NAME, b.labelRanges[1]));
  const c = content(b.body, resourceSchema, true, diags);
  const r: Resource = {
    mode,
    type,
    name,
    typeRange: b.labelRanges[0],
    nameRange: b.labelRanges[1],
    declRange: b.defRange,
    count: c.attrs.get('count')?.expr,
    forEach: c.attrs.get('for_each')?.expr,
    dependsOn: c.attrs.get('depends_on')?.expr,
    config: c.rest,
    dynamic: NONE,
    file,
  };
  if (r.count && r.forEach)
    diags.push(
      error(
        'Invalid combination of "count" and "for_each"',
        'The "count" and "for_each" meta-arguments are mutually-exclusive, only one should be used to be explicit about the number of resources to be created.',
        c.attrs.get('for_each')!.nameRange,
      ),
    );
  const prov = c.attrs.get('provider');
  if (prov) {
    const ref = prov.expr.refs[0];
    if (prov.expr.shape === 'traversal' && ref && ref.range.end.byte === prov.expr.range.end.byte && ref.steps.length <= 1 && ref.steps.every((s) => s.kind === 'attr'))
      r.provider = { name: ref.root, alias: ref.steps[0]?.kind === 'attr' ? ref.steps[0].name : undefined, range: prov.expr.range };
    else
      diags.push(
        error(
          'Invalid provider configuration reference',
          'The provider argument requires a provider type name, optionally followed by a period and then a configuration alias.',
          prov.expr.range,
        ),
      );
  }
  for (const blk of c.blocks) {
    if (blk.type === 'lifecycle') {
      if (r.lifecycle) {
        diags.push(error('Duplicate lifecycle block', `This resource already has a lifecycle block at ${rangeString(r.lifecycle.range)}.`, blk.defRange));
        continue;
      }
      r.lifecycle = decodeLifecycle(blk, mode, diags);
    } else if (blk.type === 'locals' || blk.type === '_')
      diags.push(
        error(
          'Reserved block type name in resource block',
          `The block type name "${blk.type}" is reserved for use by Terraform in a future version.`,
          blk.typeRange,
        ),
      );
    else if (mode === 'data' && (blk.type === 'connection' || blk.type === 'provisioner'))
      diags.push(error('Unsupported block type', `Blocks of type "${blk.type}" are not expected here.`, blk.typeRange));
  }
  const dynamic = c.rest.blocks.filter((blk) => blk.type === 'dynamic').map((blk) => decodeDynamic(blk, diags));
  if (dynamic.length) r.dynamic = dynamic;
  return r;
}

function decodeDynamic(blk: Block, diags: Diagnostic[]): DynamicBlock {
  if (blk.labels.length !== 1) {
    diags.push(
      blk.labels.length === 0
        ? error('Missing name for dynamic', 'All dynamic blocks must have 1 labels (name).', blk.openBraceRange)
        : error('Extraneous label for dynamic', 'Only 1 labels (name) are expected for dynamic blocks.', blk.labelRanges[1]),
    );
  }
  const c = content(
    blk.body,
    { attributes: [{ name: 'for_each', required: true }, { name: 'iterator' }, { name: 'labels' }], blocks: [{ type: 'content' }] },
    false,
    diags,
  );
  const contents = c.blocks.filter((x) => x.type === 'content');
  if (contents.length === 0)
    diags.push(error('Missing content block', 'A dynamic block must have a nested block of type "content" to describe the body of each generated block.', blk.body.endRange));
  else if (contents.length > 1)
    diags.push(error('Extraneous content block', 'Only one nested content block is allowed for each dynamic block.', contents[1].typeRange));
  const it = c.attrs.get('iterator');
  return {
    blockType: blk.labels[0] ?? '',
    iterator: it ? it.expr.text.trim() : undefined,
    forEach: c.attrs.get('for_each')?.expr,
    labels: c.attrs.get('labels')?.expr,
    content: contents[0]?.body,
    range: blk.defRange,
  };
}

function decodeLifecycle(blk: Block, mode: 'managed' | 'data', diags: Diagnostic[]): Lifecycle {
  const managed = mode === 'managed';
  const c = content(
    blk.body,
    managed
      ? {
          attributes: [{ name: 'create_before_destroy' }, { name: 'prevent_destroy' }, { name: 'ignore_changes' }, { name: 'replace_triggered_by' }],
          blocks: [{ type: 'precondition' }, { type: 'postcondition' }],
        }
      : { attributes: [], blocks: [{ type: 'precondition' }, { type: 'postcondition' }] },
    false,
    diags,
  );
  const lc: Lifecycle = {
    createBeforeDestroy: c.attrs.get('create_before_destroy')?.expr,
    preventDestroy: c.attrs.get('prevent_destroy')?.expr,
    preconditions: decodeConditions(c.blocks, 'precondition', diags),
    postconditions: decodeConditions(c.blocks, 'postcondition', diags),
    range: blk.defRange,
  };
  staticBool(lc.createBeforeDestroy, diags);
  staticBool(lc.preventDestroy, diags);
  const ic = c.attrs.get('ignore_changes');
  if (ic) {
    const e = ic.expr;
    if (e.shape === 'traversal' && e.text.trim() === 'all') {
      lc.ignoreChanges = 'all';
      lc.ignoreAllRange = e.range;
    } else if (e.shape === 'tuple') lc.ignoreChanges = e.elems ?? [];
    else if (e.shape === 'string' && e.literal === '*') {
      diags.push(error('Invalid ignore_changes wildcard', 'The ["*"] form of ignore_changes wildcard is was deprecated and is now invalid. Use "ignore_changes = all" to ignore changes to all attributes.', e.range));
    } else
      diags.push(error('Invalid ignore_changes wildcard', 'The ["*"] form of ignore_changes wildcard is was deprecated and is now invalid. Use "ignore_changes = all" to ignore changes to all attributes.', e.range));
  }
  const rt = c.attrs.get('replace_triggered_by');
  if (rt) {
    if (rt.expr.shape === 'tuple') lc.replaceTriggeredBy = rt.expr.elems ?? [];
    else diags.push(error('Invalid replace_triggered_by expression', 'A static list expression is required.', rt.expr.range));
  }
  return lc;
}

function decodeCheck(b: Block, diags: Diagnostic[], file: string): CheckBlock {
  const name = b.labels[0];
  if (!validIdentifier(name)) diags.push(error('Invalid check block name', BAD_NAME, b.labelRanges[0]));
  const c = content(b.body, { attributes: [], blocks: [{ type: 'data', labels: ['type', 'name'] }, { type: 'assert' }] }, false, diags);
  const data: Resource[] = [];
  for (const d of c.blocks.filter((x) => x.type === 'data')) {
    data.push(decodeResource(d, 'data', diags, file));
  }
  const asserts = decodeConditions(c.blocks, 'assert', diags);
  if (asserts.length === 0)
    diags.push(error('Zero assert blocks', 'Check blocks must have at least one assert block.', b.defRange));
  return { name, declRange: b.defRange, asserts, data };
}
