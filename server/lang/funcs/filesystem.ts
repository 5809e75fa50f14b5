// Built-in filesystem functions of Terraform 1.11: abspath, basename, dirname, pathexpand, file, fileexists,
// fileset (doublestar v1 glob semantics), filebase64, filemd5, filesha1, filesha256, filesha512,
// filebase64sha256, filebase64sha512 and templatefile. Relative paths resolve against ctx.baseDir the way
// Terraform joins them (Go's filepath.Join), so messages show the same paths the console shows when
// baseDir is ".". Messages carry no trailing period: the call wrapper appends one (see crypto.ts).

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as T from '../types';
import { Value, type Mark } from '../value';
import { goQuote } from './crypto';
import { FuncArgError, FuncError, type FuncContext, type FuncSpec } from './function';

// ---- Go path helpers ------------------------------------------------------------------------------

/** Go's filepath.Clean (Unix). */
export function goClean(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const s = (rooted ? '/' : '') + out.join('/');
  return s === '' ? '.' : s;
}

/** Go's filepath.Join: joins non-empty elements and cleans. */
export function goJoin(...parts: string[]): string {
  const nonEmpty = parts.filter((p) => p !== '');
  return nonEmpty.length === 0 ? '' : goClean(nonEmpty.join('/'));
}

export function goBase(p: string): string {
  if (p === '') return '.';
  p = p.replace(/\/+$/, '');
  if (p === '') return '/';
  const i = p.lastIndexOf('/');
  return i >= 0 ? p.slice(i + 1) : p;
}

export function goDir(p: string): string {
  const i = p.lastIndexOf('/');
  return goClean(p.slice(0, i + 1));
}

/** go-homedir's Expand. */
export function homeExpand(p: string): string {
  if (p === '' || p[0] !== '~') return p;
  if (p.length > 1 && p[1] !== '/' && p[1] !== '\\') throw new FuncError('cannot expand user-specific home dir');
  const home = process.env.HOME || os.homedir();
  return goJoin(home, p.slice(1));
}

/** The path Terraform opens for `p` (openFile): ~ expanded, joined with baseDir when relative, cleaned. */
function resolvePath(ctx: FuncContext, p: string): string {
  let q: string;
  try {
    q = homeExpand(p);
  } catch (e) {
    throw new FuncError(`failed to expand ~: ${(e as Error).message}`);
  }
  if (!q.startsWith('/')) q = goJoin(ctx.baseDir, q);
  return goClean(q);
}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EPERM: 'operation not permitted',
};
function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  return ERRNO_TEXT[code] ?? (e as Error).message;
}

export function redact(s: string, marks: ReadonlySet<Mark>): string {
  return marks.has('sensitive') ? '(sensitive value)' : goQuote(s);
}

/** Opens and reads the file as Go's openFile + io.ReadAll; errors are Go-shaped texts (kind tells which step failed). */
function readRaw(ctx: FuncContext, p: string): { data?: Buffer; err?: { kind: 'open' | 'read'; code: string; text: string } } {
  const full = resolvePath(ctx, p);
  let fd: number;
  try {
    fd = fs.openSync(full, 'r');
  } catch (e) {
    return { err: { kind: 'open', code: (e as NodeJS.ErrnoException).code ?? '', text: `open ${full}: ${errnoText(e)}` } };
  }
  try {
    return { data: fs.readFileSync(fd) };
  } catch (e) {
    return { err: { kind: 'read', code: (e as NodeJS.ErrnoException).code ?? '', text: `read ${full}: ${errnoText(e)}` } };
  } finally {
    fs.closeSync(fd);
  }
}

/** readFileBytes of Terraform: argument errors for file/filebase64/templatefile. */
export function readFileBytes(ctx: FuncContext, p: string, marks: ReadonlySet<Mark>): Buffer {
  const r = readRaw(ctx, p);
  if (r.err) {
    if (r.err.kind === 'open' && r.err.code === 'ENOENT')
      throw new FuncArgError(
        0,
        `no file exists at ${redact(p, marks)}; this function works only with files that are distributed as part of the configuration source code, so if this file will be created by a resource in this configuration you must instead obtain this result from an attribute of that resource`,
      );
    if (r.err.kind === 'open') throw new FuncArgError(0, r.err.text);
    throw new FuncArgError(0, `failed to read file: ${r.err.text}`);
  }
  return r.data!;
}

function isValidUTF8(b: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

/** file(): the contents as a string, marked like the path. */
export function readFileString(ctx: FuncContext, pathVal: Value): string {
  const [pv, marks] = pathVal.unmark();
  const src = readFileBytes(ctx, pv.str, marks);
  if (!isValidUTF8(src))
    throw new FuncError(
      `contents of ${redact(pv.str, marks)} are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead`,
    );
  return src.toString('utf8');
}

function fileHash(algo: string, enc: 'hex' | 'base64'): FuncSpec {
  return {
    params: [{ name: 'path', type: T.String }],
    returns: T.String,
    impl: (args, ctx) => {
      const r = readRaw(ctx, args[0].str);
      if (r.err) throw new FuncError(r.err.text);
      return Value.string(createHash(algo).update(r.data!).digest(enc));
    },
  };
}

// ---- doublestar (v1) glob ---------------------------------------------------------------------------

class BadPattern extends Error {}

/** Translates one path component of a doublestar pattern to an anchored RegExp source; throws BadPattern. */
function componentRegex(pat: string): string {
  let out = '';
  let i = 0;
  let braceDepth = 0;
  while (i < pat.length) {
    const c = pat[i];
    if (c === '\\') {
      i++;
      if (i >= pat.length) throw new BadPattern();
      out += escapeRe(pat[i++]);
    } else if (c === '*') {
      out += '[^/]*';
      i++;
    } else if (c === '?') {
      out += '[^/]';
      i++;
    } else if (c === '[') {
      i++;
      let neg = false;
      if (pat[i] === '^' || pat[i] === '!') {
        neg = true;
        i++;
      }
      let cls = '';
      let first = true;
      while (true) {
        if (i >= pat.length) throw new BadPattern();
        let ch = pat[i];
        if (ch === ']' && !first) {
          i++;
          break;
        }
        first = false;
        if (ch === '\\') {
          i++;
          if (i >= pat.length) throw new BadPattern();
          ch = pat[i];
        }
        i++;
        let lo = ch;
        if (pat[i] === '-' && i + 1 < pat.length && pat[i + 1] !== ']') {
          i++;
          let hi = pat[i++];
          if (hi === '\\') {
            if (i >= pat.length) throw new BadPattern();
            hi = pat[i++];
          }
          if (hi < lo) throw new BadPattern();
          cls += escapeCls(lo) + '-' + escapeCls(hi);
        } else cls += escapeCls(lo);
      }
      if (cls === '') throw new BadPattern();
      out += neg ? `[^/${cls}]` : `[${cls}]`;
    } else if (c === '{') {
      braceDepth++;
      out += '(?:';
      i++;
    } else if (c === '}' && braceDepth > 0) {
      braceDepth--;
      out += ')';
      i++;
    } else if (c === ',' && braceDepth > 0) {
      out += '|';
      i++;
    } else {
      out += escapeRe(c);
      i++;
    }
  }
  if (braceDepth > 0) throw new BadPattern();
  return out;
}
function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
function escapeCls(c: string): string {
  return c.replace(/[\]\\^-]/g, '\\$&');
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
function readDirNames(p: string): string[] {
  try {
    return fs.readdirSync(p).sort();
  } catch {
    return [];
  }
}

/** doublestar.Glob: all existing paths matching the (cleaned) pattern. */
export function doublestarGlob(pattern: string): string[] {
  const rooted = pattern.startsWith('/');
  const comps = (rooted ? pattern.slice(1) : pattern).split('/');
  const regs = comps.map((c) => (c === '**' ? null : new RegExp(`^(?:${componentRegex(c)})$`, 's')));
  const hasMeta = (c: string) => /[*?[{\\]/.test(c);
  const results: string[] = [];
  const join = (base: string, name: string) => (base === '' ? name : base === '/' ? '/' + name : base + '/' + name);
  const fsPath = (base: string) => (base === '' ? '.' : base);
  const walk = (base: string, idx: number) => {
    if (idx === comps.length) {
      results.push(base);
      return;
    }
    const comp = comps[idx];
    const re = regs[idx];
    if (re === null) {
      starStar(base, idx);
      return;
    }
    const last = idx === comps.length - 1;
    if (!hasMeta(comp)) {
      const child = join(base, comp);
      if (last ? fs.existsSync(child) : isDir(child)) walk(child, idx + 1);
      return;
    }
    for (const name of readDirNames(fsPath(base))) {
      if (!re.test(name)) continue;
      const child = join(base, name);
      if (last || isDir(child)) walk(child, idx + 1);
    }
  };
  // ** matches zero or more path components; as the last component it matches files too.
  const starStar = (dir: string, idx: number) => {
    walk(dir, idx + 1);
    for (const name of readDirNames(fsPath(dir))) {
      const child = join(dir, name);
      if (isDir(child)) starStar(child, idx);
      else if (idx === comps.length - 1) results.push(child);
    }
  };
  walk(rooted ? '/' : '', 0);
  return [...new Set(results)];
}

/** Go's filepath.Rel for two cleaned paths where target is under base. */
function goRel(base: string, target: string): string {
  if (base === '.') return target;
  if (target === base) return '.';
  if (base === '/') return target.slice(1);
  return target.startsWith(base + '/') ? target.slice(base.length + 1) : target;
}

// ---- templatefile -----------------------------------------------------------------------------------

/**
 * templatefile needs the template parser/evaluator (lang/parse.ts, lang/eval.ts), which register themselves
 * here so this module does not import them (and so keeps no dependency cycle with the function table).
 */
/**
 * Renders template text with the given variables: parses (syntax errors → FuncError "<file>:<range>: <summary>;
 * <detail>"), checks variable names and that every reference is in vars (FuncArgError(1, …)), evaluates.
 */
export type TemplateRenderer = (src: string, filename: string, vars: ReadonlyMap<string, Value>, ctx: FuncContext) => Value;
let templateRenderer: TemplateRenderer | undefined;
let templateDepth = 0;
export function setTemplateRenderer(r: TemplateRenderer): void {
  templateRenderer = r;
}

// ---- the functions ----------------------------------------------------------------------------------

export const functions: Record<string, FuncSpec> = {
  abspath: {
    params: [{ name: 'path', type: T.String }],
    returns: T.String,
    impl: (args) => {
      const p = args[0].str;
      return Value.string(p.startsWith('/') ? goClean(p) : goJoin(process.cwd(), p));
    },
  },
  basename: {
    params: [{ name: 'path', type: T.String }],
    returns: T.String,
    impl: (args) => Value.string(goBase(args[0].str)),
  },
  dirname: {
    params: [{ name: 'path', type: T.String }],
    returns: T.String,
    impl: (args) => Value.string(goDir(args[0].str)),
  },
  pathexpand: {
    params: [{ name: 'path', type: T.String }],
    returns: T.String,
    impl: (args) => Value.string(homeExpand(args[0].str)),
  },

  file: {
    params: [{ name: 'path', type: T.String, allowMarked: true }],
    returns: T.String,
    impl: (args, ctx) => Value.string(readFileString(ctx, args[0])).markWith(args[0].marks),
  },
  filebase64: {
    params: [{ name: 'path', type: T.String, allowMarked: true }],
    returns: T.String,
    impl: (args, ctx) => {
      const [pv, marks] = args[0].unmark();
      return Value.string(readFileBytes(ctx, pv.str, marks).toString('base64')).markWith(marks);
    },
  },
  fileexists: {
    params: [{ name: 'path', type: T.String, allowMarked: true }],
    returns: T.Bool,
    impl: (args, ctx) => {
      const [pv, marks] = args[0].unmark();
      const full = resolvePath(ctx, pv.str);
      let st: fs.Stats;
      try {
        st = fs.statSync(full);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return Value.bool(false).markWith(marks);
        throw new FuncError(`failed to stat ${redact(full, marks)}`);
      }
      if (st.isFile()) return Value.bool(true).markWith(marks);
      const name = redact(full, marks);
      // Terraform reports these as an argument error for index 1, which does not exist: shown as a call error.
      if (st.isDirectory()) throw new FuncError(`${name} is a directory, not a file`);
      if (st.isCharacterDevice() || st.isBlockDevice()) throw new FuncError(`${name} is a device node, not a regular file`);
      if (st.isFIFO()) throw new FuncError(`${name} is a named pipe, not a regular file`);
      if (st.isSocket()) throw new FuncError(`${name} is a unix domain socket, not a regular file`);
      throw new FuncError(`${name} is not a regular file`);
    },
  },
  fileset: {
    params: [
      { name: 'path', type: T.String, allowMarked: true },
      { name: 'pattern', type: T.String, allowMarked: true },
    ],
    returns: T.Set(T.String),
    impl: (args, ctx) => {
      const [pv, pmarks] = args[0].unmark();
      const [patv, patmarks] = args[1].unmark();
      const marks = new Set<Mark>([...pmarks, ...patmarks]);
      let base = pv.str;
      if (!base.startsWith('/')) base = goJoin(ctx.baseDir, base);
      const pattern = goJoin(base, patv.str);
      let matches: string[];
      try {
        matches = doublestarGlob(pattern);
      } catch (e) {
        if (e instanceof BadPattern) throw new FuncError(`failed to glob pattern ${redact(pattern, marks)}: syntax error in pattern`);
        throw e;
      }
      const out: Value[] = [];
      const cleanBase = goClean(base);
      for (const m of matches) {
        let st: fs.Stats;
        try {
          st = fs.statSync(m);
        } catch (e) {
          throw new FuncError(`failed to stat ${redact(m, marks)}: stat ${m}: ${errnoText(e)}`);
        }
        if (!st.isFile()) continue;
        out.push(Value.string(goRel(cleanBase, goClean(m))));
      }
      return Value.set(out, T.String).markWith(marks);
    },
  },

  filemd5: fileHash('md5', 'hex'),
  filesha1: fileHash('sha1', 'hex'),
  filesha256: fileHash('sha256', 'hex'),
  filesha512: fileHash('sha512', 'hex'),
  filebase64sha256: fileHash('sha256', 'base64'),
  filebase64sha512: fileHash('sha512', 'base64'),

  templatefile: {
    params: [
      { name: 'path', type: T.String, allowMarked: true },
      { name: 'vars', type: T.Dynamic },
    ],
    type: (args, ctx) => {
      if (!args[0].isKnown || !args[1].isWhollyKnown) return T.Dynamic;
      return renderTemplateFile(args, ctx).type;
    },
    impl: (args, ctx) => renderTemplateFile(args, ctx),
  },
};

function renderTemplateFile(args: readonly Value[], ctx: FuncContext): Value {
  const [pv, marks] = args[0].unmark();
  const src = readFileString(ctx, args[0]);
  const vars = args[1];
  const k = vars.type.kind;
  if (k !== 'map' && k !== 'object') throw new FuncArgError(1, 'invalid vars value: must be a map');
  if (!templateRenderer) throw new FuncError('templatefile is not available: no template evaluator is registered');
  const m = vars.isKnown && !vars.isNull ? vars.entries : new Map<string, Value>();
  // The renderer parses first, then checks variable names and references (Terraform's order).
  if (templateDepth > 0) throw new FuncError('cannot recursively call templatefile from inside templatefile call');
  templateDepth++;
  try {
    return templateRenderer(src, pv.str, m, ctx).markWith(marks);
  } finally {
    templateDepth--;
  }
}
