// `foresight validate [-json] [-no-color] [-chdir=DIR] [DIR]`: Terraform's validate command. Human output
// ("Success! The configuration is valid.", diagnostics rendered by diags/render.ts, exit 1 on errors) and
// the -json document (format_version "1.0", valid, error_count, warning_count, diagnostics with range and
// snippet objects laid out as Terraform's views/json diagnostics). Siblings: main.ts dispatches commands.

import { isAbsolute, resolve } from 'node:path';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { error, hasErrors } from '../diags/diagnostic';
import { renderDiagnosticsView as renderDiagnostics, viewDiagnostics } from '../diags/render';
import { validateDirectory } from '../config/validate';
import { providerValidationDiagnostics } from '../engine/validate';
import { providerFactory } from './plan';
import { treeRequirements } from '../providers/resolve';
import { devOverrideWarnings } from '../plugin/discovery';
import { readLockFileError } from '../depsfile/locks';

export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
}

export async function runValidate(args: string[], io: CliIO): Promise<number> {
  let json = false;
  let color = true;
  let cwd = io.cwd;
  const positional: string[] = [];
  for (const a of args) {
    if (a === '-json' || a === '--json') json = true;
    else if (a === '-no-color' || a === '--no-color') color = false;
    else if (a.startsWith('-chdir=')) cwd = resolve(cwd, a.slice('-chdir='.length));
    else if (a === '-no-tests' || a.startsWith('-test-directory=')) continue;
    else if (a.startsWith('-') && a !== '-') {
      const d = error('Failed to parse command-line flags', `flag provided but not defined: ${a.split('=')[0]}`);
      io.stderr(renderDiagnostics([d], { color }));
      io.stderr('\nFor more help on using this command, run:\n  terraform validate -help\n');
      return 1;
    } else positional.push(a);
  }
  if (json) color = false;
  if (positional.length > 1) {
    const d = error('Too many command line arguments', 'Expected at most one positional argument.');
    if (json) io.stdout(jsonOutput([d], new Map(), () => undefined));
    else io.stderr(renderDiagnostics([d], { color }) + '\nFor more help on using this command, run:\n  terraform validate -help\n');
    return 1;
  }
  const rel = positional[0] ?? '.';
  const dir = isAbsolute(rel) ? rel : resolve(cwd, rel);
  const res = await validateDirectory(dir, { coreVersion: true });
  // The provider part of Terraform's validate walk (engine/validate.ts) with the working directory's providers: the
  // built-in ones and the binaries `init` installed (server/plugin/client/factory.ts), located from `cwd`.
  // Terraform warns first when dev_overrides are in effect (Meta.providerDevOverrideRuntimeWarnings).
  res.diagnostics.unshift(...(await devOverrideWarnings(cwd, (io as { env?: Readonly<Record<string, string | undefined>> }).env)));
  // As Terraform (contextOpts after a clean configuration), a lock file with errors stops validation with its error.
  const lockError = res.module && !hasErrors(res.diagnostics) ? await readLockFileError(cwd) : undefined;
  if (lockError) res.diagnostics.push(lockError);
  else if (res.module && !hasErrors(res.diagnostics)) {
    const env = (io as { env?: Readonly<Record<string, string | undefined>> }).env;
    const providers = providerFactory({ cwd, env });
    // As Terraform, a provider whose schema cannot be loaded (not installed, not a plugin, crashed) stops validation
    // before the walk, with that error.
    const loadErrors: Diagnostic[] = [];
    for (const fqn of treeRequirements(res.module).keys()) {
      const s = await providers(fqn)?.getProviderSchema();
      for (const d of s?.diagnostics ?? []) if (d.severity === 'error' && !loadErrors.some((x) => x.summary === d.summary && x.detail === d.detail)) loadErrors.push(d);
    }
    res.diagnostics.push(...(loadErrors.length ? loadErrors : await providerValidationDiagnostics(res.module, { providers, cwd: dir })));
  }
  // Diagnostics name the directory as the user wrote it.
  const diags = res.diagnostics.map((d) =>
    d.summary === 'Failed to read module directory' ? { ...d, detail: `Module directory ${rel} does not exist or cannot be read.` } : d,
  );
  if (json) {
    io.stdout(jsonOutput(diags, res.sources, res.contextOf));
    return hasErrors(diags) ? 1 : 0;
  }
  const green = color ? '\x1b[32m\x1b[1m' : '';
  const reset = color ? '\x1b[0m' : '';
  if (diags.length === 0) {
    io.stdout(`${green}Success!${reset} The configuration is valid.\n${reset}\n`);
    return 0;
  }
  // views.View.Diagnostics: sorted, similar warnings consolidated (the -json document above keeps them all).
  const shown = viewDiagnostics(diags);
  const errs = shown.filter((d) => d.severity === 'error');
  const warns = shown.filter((d) => d.severity === 'warning');
  const opts = { color, sources: res.sources, contextOf: res.contextOf };
  if (errs.length) io.stderr(renderDiagnostics(errs, opts));
  if (warns.length) io.stdout(renderDiagnostics(warns, opts));
  if (errs.length === 0) {
    // Terraform word-wraps the colourised text at 78 columns, so the escape codes move the break.
    const rest = color ? ' The configuration is valid, but there were some\nvalidation warnings as shown above.' : ' The configuration is valid, but there were some validation warnings\nas shown above.';
    io.stdout(`${green}Success!${reset}${rest}\n${reset}\n`);
    return 0;
  }
  return 1;
}

interface JsonPos {
  line: number;
  column: number;
  byte: number;
}

/** The -json document, as Terraform's json.MarshalIndent prints it (two-space indent, trailing newline). */
export function jsonOutput(diags: readonly Diagnostic[], sources: ReadonlyMap<string, string>, contextOf: (r: Range) => string | undefined): string {
  const out = {
    format_version: '1.0',
    valid: !hasErrors(diags),
    error_count: diags.filter((d) => d.severity === 'error').length,
    warning_count: diags.filter((d) => d.severity === 'warning').length,
    diagnostics: diags.map((d) => jsonDiagnostic(d, sources, contextOf)),
  };
  return goJson(out) + '\n';
}

export function jsonDiagnostic(d: Diagnostic, sources: ReadonlyMap<string, string>, contextOf: (r: Range) => string | undefined): object {
  const o: Record<string, unknown> = { severity: d.severity, summary: d.summary, detail: d.detail ?? '' };
  if (d.address) o.address = d.address;
  if (!d.subject) return o;
  const hl = { filename: d.subject.filename, start: { ...d.subject.start }, end: { ...d.subject.end } };
  let snip: Range = d.context && d.context.filename === hl.filename ? d.context : hl;
  snip = {
    filename: snip.filename,
    start: snip.start.byte <= hl.start.byte ? snip.start : hl.start,
    end: snip.end.byte >= hl.end.byte ? snip.end : hl.end,
  };
  if (hl.start.byte === hl.end.byte) {
    hl.end = { ...hl.end, byte: hl.end.byte + 1, column: hl.end.column + 1 };
  }
  const pos = (p: JsonPos) => ({ line: p.line, column: p.column, byte: p.byte });
  o.range = { filename: hl.filename, start: pos(hl.start), end: pos(hl.end) };
  const src = sources.get(hl.filename);
  if (src === undefined) return o;
  const { code, codeStart } = snippetCode(Buffer.from(src, 'utf8'), snip);
  const codeLen = Buffer.byteLength(code, 'utf8');
  const start = hl.start.byte - codeStart;
  const end = start + (hl.end.byte - hl.start.byte);
  const clamp = (n: number) => Math.min(Math.max(0, n), codeLen);
  const ctx = contextOf(d.subject);
  o.snippet = {
    context: ctx ?? null,
    code,
    start_line: snip.start.line,
    highlight_start_offset: clamp(start),
    highlight_end_offset: clamp(end),
    values: d.values ?? [],
  };
  return o;
}

/**
 * The source lines a snippet shows, as Terraform computes them: every line (its range excluding the line
 * break) that overlaps the snippet range by HCL's Range.Overlaps, joined with newlines.
 */
function snippetCode(bytes: Buffer, snip: Range): { code: string; codeStart: number } {
  const parts: Buffer[] = [];
  let codeStart = 0;
  const contains = (a: number, b: number, off: number) => off >= a && off < b;
  const s0 = snip.start.byte;
  const s1 = snip.end.byte;
  let i = 0;
  while (i < bytes.length) {
    let j = bytes.indexOf(10, i);
    const next = j < 0 ? bytes.length : j + 1;
    if (j < 0) j = bytes.length;
    let e = j;
    if (e > i && bytes[e - 1] === 13) e--;
    const overlaps =
      e > i && s1 > s0 && (contains(i, e, s0) || contains(i, e, s1) || contains(s0, s1, i) || contains(s0, s1, e));
    if (overlaps) {
      if (parts.length === 0) codeStart = i;
      parts.push(bytes.subarray(i, e));
    }
    i = next;
  }
  return { code: parts.map((p) => p.toString('utf8')).join('\n'), codeStart };
}

/** JSON.stringify with two-space indentation and Go's escaping of <, >, & (json.Marshal's HTML-safe form). */
export function goJson(v: unknown): string {
  return JSON.stringify(v, null, 2).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}
