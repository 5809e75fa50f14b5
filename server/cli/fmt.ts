// `foresight fmt`: Terraform's `fmt` command (same flags, file selection, output and exit statuses).
//
// Exit statuses: 0 success; 1 bad command-line flags; 2 syntax errors or unusable paths (diagnostics on
// stderr); 3 with -check when some input is not canonical. Paths are printed relative to the working
// directory. Directories contribute their .tf, .tfvars, .tftest.hcl and .tfmock.hcl files, skipping names that
// Terraform ignores (leading ".", trailing "~", "#...#"), and subdirectories only with -recursive.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { renderDiagnostic, renderDiagnostics } from '../diags/render';
import { format } from '../fmt/format';
import { unifiedDiff } from '../fmt/udiff';

export interface FmtIO {
  stdin: () => Promise<string>;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
}

const SUPPORTED_EXTS = ['.tf', '.tfvars', '.tftest.hcl', '.tfmock.hcl'];

const HELP = `Usage: terraform [global options] fmt [options] [target...]

  Rewrites all Terraform configuration files to a canonical format. All
  configuration files (.tf), variables files (.tfvars), and testing files 
  (.tftest.hcl) are updated. JSON files (.tf.json, .tfvars.json, or 
  .tftest.json) are not modified.

  By default, fmt scans the current directory for configuration files. If you
  provide a directory for the target argument, then fmt will scan that
  directory instead. If you provide a file, then fmt will process just that
  file. If you provide a single dash ("-"), then fmt will read from standard
  input (STDIN).

  The content must be in the Terraform language native syntax; JSON is not
  supported.

Options:

  -list=false    Don't list files whose formatting differs
                 (always disabled if using STDIN)

  -write=false   Don't write to source files
                 (always disabled if using STDIN or -check)

  -diff          Display diffs of formatting changes

  -check         Check if the input is formatted. Exit status will be 0 if all
                 input is properly formatted and non-zero otherwise.

  -no-color      If specified, output won't contain any color.

  -recursive     Also process files in subdirectories. By default, only the
                 given directory (or current directory) is processed.`;

/** Terraform's configs.IsIgnoredFile: editor backups and hidden files. */
function isIgnoredFile(name: string): boolean {
  return name.startsWith('.') || name.endsWith('~') || (name.startsWith('#') && name.endsWith('#'));
}

interface Opts {
  list: boolean;
  write: boolean;
  diff: boolean;
  check: boolean;
  recursive: boolean;
  color: boolean;
}

/** Parses Go-style flags: "-name", "--name", "-name=value"; stops at the first non-flag or "--". */
function parseFlags(args: string[], opts: Opts): { rest: string[]; error?: string } {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    const body = a.startsWith('--') ? a.slice(2) : a.slice(1);
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const value = eq < 0 ? undefined : body.slice(eq + 1);
    if (!['list', 'write', 'diff', 'check', 'recursive'].includes(name)) {
      return { rest: [], error: `flag provided but not defined: -${name}` };
    }
    let v = true;
    if (value !== undefined) {
      const parsed = parseGoBool(value);
      if (parsed === undefined) return { rest: [], error: `invalid boolean value "${value}" for -${name}: parse error` };
      v = parsed;
    }
    (opts as unknown as Record<string, boolean>)[name] = v;
  }
  return { rest: args.slice(i) };
}

function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/** A writer that behaves like Terraform's UI writer: every write is emitted as a line (a final newline is ensured). */
function uiWriter(emit: (s: string) => void): (s: string) => void {
  return (s: string) => emit(s.endsWith('\n') ? s : s + '\n');
}

/**
 * Terraform's diagnostic order (a stable sort): warnings first, then those without a source location, then by
 * file name, start byte and end byte.
 */
function sortDiagnostics(diags: Diagnostic[]): Diagnostic[] {
  const rank = (d: Diagnostic) => (d.severity === 'warning' ? 0 : 1);
  return diags
    .map((d, i) => ({ d, i }))
    .sort((x, y) => {
      const a = x.d;
      const b = y.d;
      if (rank(a) !== rank(b)) return rank(a) - rank(b);
      if (!a.subject !== !b.subject) return a.subject ? 1 : -1;
      if (a.subject && b.subject) {
        if (a.subject.filename !== b.subject.filename) return a.subject.filename < b.subject.filename ? -1 : 1;
        if (a.subject.start.byte !== b.subject.start.byte) return a.subject.start.byte - b.subject.start.byte;
        if (a.subject.end.byte !== b.subject.end.byte) return a.subject.end.byte - b.subject.end.byte;
      }
      return x.i - y.i;
    })
    .map((x) => x.d);
}

export async function runFmt(args: string[], io: FmtIO): Promise<number> {
  const opts: Opts = { list: true, write: true, diff: false, check: false, recursive: false, color: true };
  // Terraform strips -no-color before the command's own flag parsing.
  const filtered = args.filter((a) => {
    if (a === '-no-color' || a === '--no-color') {
      opts.color = false;
      return false;
    }
    return true;
  });
  const parsed = parseFlags(filtered, opts);
  const red = (s: string) => (opts.color ? `\x1b[31m${s}\x1b[0m\x1b[0m\n` : `${s}\n`);
  if (parsed.error !== undefined) {
    io.stderr(red(HELP));
    io.stderr(red(`Error parsing command-line flags: ${parsed.error}\n`));
    return 1;
  }

  const rest = parsed.rest;
  let paths: string[] = [];
  if (rest.length === 0) paths = ['.'];
  else if (rest[0] === '-') {
    opts.list = false;
    opts.write = false;
  } else paths = rest;

  const listRequested = opts.list;
  let buffer = '';
  let out: (s: string) => void;
  if (opts.check) {
    opts.list = true;
    opts.write = false;
    out = (s) => {
      buffer += s;
    };
  } else {
    out = uiWriter(io.stdout);
  }

  const diags: Diagnostic[] = [];
  const sources = new Map<string, string>();
  const contexts = new Map<string, (r: Range) => string | undefined>();
  const plain = (summary: string): Diagnostic => ({ severity: 'error', summary });
  const normalize = (p: string) => {
    const abs = isAbsolute(p) ? p : join(resolve(io.cwd), p);
    return relative(resolve(io.cwd), abs) || '.';
  };

  const processFile = (path: string, src: string) => {
    sources.set(path, src);
    const r = format(src, path);
    if (r.output === undefined) {
      diags.push(...r.diagnostics);
      if (r.contextOf) contexts.set(path, r.contextOf);
      return;
    }
    const result = r.output;
    if (src !== result) {
      if (opts.list) out(path + '\n');
      if (opts.write) {
        try {
          writeFileSync(resolve(io.cwd, path), result);
        } catch {
          diags.push(plain(`Failed to write ${path}`));
          return;
        }
      }
      if (opts.diff) out(unifiedDiff(src, result, `old/${path}`, `new/${path}`));
    }
    if (!opts.list && !opts.write && !opts.diff) out(result);
  };

  const readFile = (path: string): string | undefined => {
    try {
      return readFileSync(resolve(io.cwd, path), 'utf8');
    } catch {
      diags.push(plain(`Failed to read file ${path}`));
      return undefined;
    }
  };

  const processDir = (dir: string) => {
    let entries: string[];
    try {
      entries = readdirSync(resolve(io.cwd, dir)).sort();
    } catch {
      diags.push(plain(existsSync(resolve(io.cwd, dir)) ? `Cannot read directory ${dir}` : `There is no configuration directory at ${dir}`));
      return;
    }
    for (const name of entries) {
      if (isIgnoredFile(name)) continue;
      const sub = join(dir, name);
      let isDir = false;
      try {
        isDir = statSync(resolve(io.cwd, sub)).isDirectory();
      } catch {
        isDir = false;
      }
      if (isDir) {
        if (opts.recursive) processDir(sub);
        continue;
      }
      if (SUPPORTED_EXTS.some((e) => name.endsWith(e))) {
        const src = readFile(sub);
        if (src !== undefined) processFile(normalize(sub), src);
      }
    }
  };

  if (paths.length === 0) {
    processFile('<stdin>', await io.stdin());
  } else {
    for (const given of paths) {
      const path = normalize(given);
      let isDir: boolean;
      try {
        isDir = statSync(resolve(io.cwd, path)).isDirectory();
      } catch {
        diags.push(plain(`No file or directory at ${path}`));
        break;
      }
      if (isDir) {
        processDir(path);
        continue;
      }
      if (!SUPPORTED_EXTS.some((e) => path.endsWith(e))) {
        diags.push(plain('Only .tf, .tfvars, and .tftest.hcl files can be processed with terraform fmt'));
        continue;
      }
      const src = readFile(path);
      if (src !== undefined) processFile(path, src);
    }
  }

  if (diags.length > 0) {
    const renderOpts = { color: opts.color, sources, contextOf: (r: Range) => contexts.get(r.filename)?.(r) };
    const sorted = sortDiagnostics(diags);
    // Terraform prints each diagnostic of a non-view command as one UI error line: in -no-color mode that is a
    // blank line, the diagnostic, and the newline the UI adds after it.
    if (opts.color) io.stderr(renderDiagnostics(sorted, renderOpts));
    else for (const d of sorted) io.stderr('\n' + renderDiagnostic(d, renderOpts) + '\n');
    return 2;
  }
  if (opts.check) {
    if (listRequested && buffer.length > 0) uiWriter(io.stdout)(buffer);
    return buffer.length === 0 ? 0 : 3;
  }
  return 0;
}
