// Renders diagnostics exactly as Terraform's CLI prints them (its `format.Diagnostic` and
// `format.DiagnosticPlain` layouts): the coloured form in a ╷ │ ╵ box, the -no-color form without it,
// a source snippet with the subject underlined, the expression values, and detail paragraphs word-wrapped.

import type { Diagnostic, Range } from './diagnostic';

export interface RenderOptions {
  color: boolean;
  /** Terminal width; Terraform uses 78 when output is not a terminal. */
  width?: number;
  /** File contents by filename, for snippets. Absent files print "(source code not available)". */
  sources?: ReadonlyMap<string, string>;
  /** Context string for a range ("resource \"a\" \"b\""): the innermost enclosing block header. */
  contextOf?: (r: Range) => string | undefined;
}

const ESC = '\x1b[';
const C = {
  reset: `${ESC}0m`,
  bold: `${ESC}1m`,
  underline: `${ESC}4m`,
  red: `${ESC}31m`,
  yellow: `${ESC}33m`,
  darkGray: `${ESC}90m`,
};

/** One diagnostic, ending in a newline, as Terraform writes it to its streams (caller adds the blank line between). */
export function renderDiagnostic(d: Diagnostic, opts: RenderOptions): string {
  const width = opts.width ?? 78;
  const color = opts.color;
  const col = (s: string) => (color ? s : '');
  let buf = '';
  if (color) {
    buf += d.severity === 'error' ? `${C.bold}${C.red}Error: ${C.reset}` : `${C.bold}${C.yellow}Warning: ${C.reset}`;
    buf += `${C.reset}${C.bold}${d.summary}${C.reset}\n\n`;
  } else {
    buf += `${d.severity === 'error' ? 'Error' : 'Warning'}: ${d.summary}\n\n`;
  }
  const snippet = renderSnippet(d, opts, col);
  // Terraform's colour formatter ends the summary line with a reset; the snippet starts with it, and without a
  // snippet it stands at the start of the next line.
  // The "with ADDR," line (appendSourceSnippets) comes right after that reset, before the snippet.
  const withLine = d.address ? `  with ${d.address},\n` : '';
  buf += snippet === '' ? col(C.reset) + withLine : col(C.reset) + withLine + snippet.slice(col(C.reset).length);
  if (d.detail) {
    const paraWidth = color ? width - 2 - 1 : width - 1;
    for (const line of d.detail.split('\n')) {
      buf += (line.startsWith(' ') ? line : wordWrap(line, paraWidth)) + '\n';
    }
  }
  if (!color) return buf;
  const rule = d.severity === 'error' ? C.red : C.yellow;
  // Lines as bufio.ScanLines yields them: a final segment without a newline is still a line.
  const lines = buf.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let out = `${rule}╷${C.reset}${C.reset}\n`;
  for (const l of lines) out += `${rule}│${C.reset} ${C.reset}${l}\n`;
  out += `${rule}╵${C.reset}${C.reset}\n`;
  return out;
}

/**
 * Diagnostics as Terraform's command views print them (validate, plan, apply, flag errors): coloured, the
 * boxes follow one another; plain, each diagnostic is preceded by a blank line.
 */
export function renderDiagnosticsView(diags: readonly Diagnostic[], opts: RenderOptions): string {
  let out = '';
  for (const d of diags) out += opts.color ? renderDiagnostic(d, opts) : '\n' + renderDiagnostic(d, opts);
  return out;
}

/**
 * tfdiags' Diagnostics.Sort (a stable sort): warnings before errors, then sourceless before placed, then by file
 * (fewer path segments first, then name), start byte and end byte.
 */
export function sortDiagnostics(diags: readonly Diagnostic[]): Diagnostic[] {
  const depth = (f: string) => f.split('/').length - 1;
  return diags
    .map((d, i) => ({ d, i }))
    .sort((x, y) => {
      const a = x.d;
      const b = y.d;
      if (a.severity !== b.severity) return a.severity === 'warning' ? -1 : 1;
      if (!a.subject !== !b.subject) return a.subject ? 1 : -1;
      if (a.subject && b.subject) {
        const s = a.subject;
        const t = b.subject;
        if (s.filename !== t.filename) {
          if (depth(s.filename) !== depth(t.filename)) return depth(s.filename) - depth(t.filename);
          return s.filename < t.filename ? -1 : 1;
        }
        if (s.start.byte !== t.start.byte) return s.start.byte - t.start.byte;
        if (s.end.byte !== t.end.byte) return s.end.byte - t.end.byte;
      }
      return x.i - y.i;
    })
    .map((x) => x.d);
}

/**
 * Warnings tfdiags never consolidates: those carrying a CheckRuleDiagnosticExtra of a `check` block (its
 * assertions, and the diagnostics of a data source scoped to it, which the planner marks `noConsolidate`).
 */
function keptWhole(d: Diagnostic): boolean {
  return d.summary === 'Check block assertion failed' || d.summary === 'Check block assertion known after apply' || d.noConsolidate === true;
}

/**
 * tfdiags' ConsolidateWarnings(1), as every human command view applies it after sorting: the first warning with a
 * source location of each summary stays where it is; later ones with the same summary are folded into it, and its
 * detail gains "(and one more similar warning elsewhere)" / "(and N more similar warnings elsewhere)" after a blank
 * line. Errors, sourceless warnings and check-block warnings pass through. The JSON views never consolidate.
 */
export function consolidateWarnings(diags: readonly Diagnostic[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const groups = new Map<string, { index: number; more: number }>();
  for (const d of diags) {
    if (d.severity !== 'warning' || !d.subject || keptWhole(d)) {
      out.push(d);
      continue;
    }
    const g = groups.get(d.summary);
    if (g) g.more++;
    else {
      groups.set(d.summary, { index: out.length, more: 0 });
      out.push(d);
    }
  }
  for (const g of groups.values()) {
    if (g.more === 0) continue;
    const d = out[g.index];
    const msg = g.more === 1 ? '(and one more similar warning elsewhere)' : `(and ${g.more} more similar warnings elsewhere)`;
    out[g.index] = { ...d, detail: d.detail ? `${d.detail}\n\n${msg}` : msg };
  }
  return out;
}

/** The diagnostics a human command view prints, in its order: views.View.Diagnostics' Sort then ConsolidateWarnings(1). */
export function viewDiagnostics(diags: readonly Diagnostic[]): Diagnostic[] {
  return consolidateWarnings(sortDiagnostics(diags));
}

/**
 * Diagnostics as the older commands that write through Terraform's coloured UI print them (console, fmt):
 * coloured, each box is wrapped in one more red/reset pair and followed by a reset line.
 */
export function renderDiagnostics(diags: readonly Diagnostic[], opts: RenderOptions): string {
  let out = '';
  for (const d of diags) {
    if (opts.color) out += `${C.red}${renderDiagnostic(d, opts)}${C.reset}${C.reset}\n`;
    else out += '\n' + renderDiagnostic(d, opts);
  }
  return out;
}

function renderSnippet(d: Diagnostic, opts: RenderOptions, col: (s: string) => string): string {
  const r = d.subject;
  if (!r) return '';
  const src = opts.sources?.get(r.filename);
  const ctx = opts.contextOf?.(r);
  const ctxStr = ctx ? `, in ${ctx}` : '';
  if (src === undefined) {
    return `${col(C.reset)}  on ${r.filename} line ${r.start.line}${ctxStr}:\n  (source code not available)\n\n`;
  }
  let buf = `${col(C.reset)}  on ${r.filename} line ${r.start.line}${ctxStr}:\n`;
  // As Terraform does: the snippet is every source line (split like bufio.ScanLines, which drops a "\r"
  // before "\n") that overlaps the context range widened to cover the subject; empty ranges are widened by
  // one byte first, and empty lines never overlap. The highlight is placed by byte offsets and clamped.
  const srcBytes = Buffer.from(src, 'utf8');
  const hlStart = r.start.byte;
  let hlEnd = r.end.byte;
  const ctxRange = d.context && d.context.filename === r.filename ? d.context : r;
  let snipStart = Math.min(ctxRange.start.byte, r.start.byte);
  let snipEnd = Math.max(ctxRange.end.byte, r.end.byte);
  const snipLine = ctxRange.start.byte <= r.start.byte ? ctxRange.start.line : r.start.line;
  if (snipStart === snipEnd) snipEnd++;
  if (hlStart === hlEnd) hlEnd++;
  const contains = (s: number, e: number, o: number) => o >= s && o < e;
  const codeLines: Buffer[] = [];
  let codeStartByte = 0;
  for (let pos = 0; pos < srcBytes.length; ) {
    let nl = srcBytes.indexOf(10, pos);
    const next = nl < 0 ? srcBytes.length : nl + 1;
    if (nl < 0) nl = srcBytes.length;
    let lineEnd = nl;
    if (nl < srcBytes.length && lineEnd > pos && srcBytes[lineEnd - 1] === 13) lineEnd--;
    const overlaps =
      lineEnd > pos &&
      snipEnd > snipStart &&
      (contains(pos, lineEnd, snipStart) || contains(pos, lineEnd, snipEnd) || contains(snipStart, snipEnd, pos) || contains(snipStart, snipEnd, lineEnd));
    if (overlaps) {
      if (codeStartByte === 0 && codeLines.length === 0) codeStartByte = pos;
      codeLines.push(srcBytes.subarray(pos, lineEnd));
    }
    pos = next;
  }
  const codeBytes = Buffer.concat(codeLines.flatMap((l, i) => (i === 0 ? [l] : [Buffer.from('\n'), l])));
  const clamp = (n: number) => Math.max(0, Math.min(codeBytes.length, n));
  const start = clamp(hlStart - codeStartByte);
  const end = clamp(hlStart - codeStartByte + (hlEnd - hlStart));
  const dec = new TextDecoder();
  const before = dec.decode(codeBytes.subarray(0, start));
  const hl = dec.decode(codeBytes.subarray(start, Math.max(start, end)));
  const after = dec.decode(codeBytes.subarray(Math.max(start, end)));
  // Terraform's colour formatter appends a reset after the whole coloured snippet.
  const marked = `${before}${col(C.underline)}${hl}${col(C.reset)}${after}${col(C.reset)}`;
  marked.split('\n').forEach((line, i) => {
    buf += `${String(snipLine + i).padStart(4, ' ')}: ${line}\n`;
  });
  if (d.values && d.values.length > 0) {
    const values = [...d.values].sort((a, b) => (a.traversal < b.traversal ? -1 : a.traversal > b.traversal ? 1 : 0));
    buf += `    ${col(C.darkGray)}├────────────────${col(C.reset)}\n`;
    // Terraform's colour formatter starts each value line, and the blank line after them, with a reset.
    for (const v of values) buf += `${col(C.reset)}    ${col(C.darkGray)}│${col(C.reset)} ${col(C.bold)}${v.traversal}${col(C.reset)} ${v.statement}\n`;
    return buf + col(C.reset) + '\n';
  }
  return buf + '\n';
}

/**
 * Greedy word wrap on spaces, as go-wordwrap's WrapString does: a line is broken at the last space
 * that keeps it within `limit` characters; words longer than the limit stay whole on their own line.
 */
export function wordWrap(s: string, limit: number): string {
  if ([...s].length <= limit) return s;
  const words = s.split(' ');
  const lines: string[] = [];
  let cur = '';
  let curLen = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const wl = [...w].length;
    if (i === 0) {
      cur = w;
      curLen = wl;
      continue;
    }
    if (curLen + 1 + wl > limit && curLen > 0) {
      lines.push(cur);
      cur = w;
      curLen = wl;
    } else {
      cur += ' ' + w;
      curLen += 1 + wl;
    }
  }
  lines.push(cur);
  return lines.join('\n');
}
