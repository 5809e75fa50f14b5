// The engine operations the language server consumes, declared here by the consumer so that handlers and
// tests depend on this small surface, not on the engine's module layout. `defaultEngine` wires the real
// engine modules; tests may pass their own Engine to startServer().

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../diags/diagnostic';
import { initParser, newParser, type SyntaxNode } from '../syntax/treesitter';

/** The analysis of one module directory: diagnostics per absolute file path and the texts they refer to. */
export interface DirectoryAnalysis {
  /** Diagnostics keyed by the absolute path of the file their subject lies in. */
  diagnostics: Map<string, Diagnostic[]>;
  /** Diagnostics with no file (directory-wide problems). */
  general: Diagnostic[];
}

export interface FormatResult {
  /** The formatted text, or undefined when the source could not be formatted (syntax errors). */
  output?: string;
  diagnostics: Diagnostic[];
}

export interface Engine {
  /** Must complete before any other call. */
  init(): Promise<void>;
  /**
   * Analyses the module in `dir`, reading files from disk except those in `overlays` (absolute path → text),
   * which are used instead (unsaved editor contents). Never rejects for user errors; those are diagnostics.
   */
  analyzeDirectory(dir: string, overlays: Map<string, string>): Promise<DirectoryAnalysis>;
  /** Formats one file as `terraform fmt` would; undefined when the formatter is not available. */
  format(text: string, filename: string): FormatResult | undefined;
}

/** Sorts engine diagnostics into per-file lists, resolving relative filenames against `dir`. */
export function groupByFile(dir: string, diags: readonly Diagnostic[]): DirectoryAnalysis {
  const out: DirectoryAnalysis = { diagnostics: new Map(), general: [] };
  for (const d of diags) {
    const f = (d.subject ?? d.context)?.filename;
    if (!f) {
      out.general.push(d);
      continue;
    }
    const abs = f.startsWith('/') ? f : join(dir, f);
    let list = out.diagnostics.get(abs);
    if (!list) out.diagnostics.set(abs, (list = []));
    list.push(d);
  }
  return out;
}

// Until server/config/validate.ts lands, syntax errors come straight from the tree-sitter tree.
function syntaxDiagnostics(text: string, filename: string): Diagnostic[] {
  const parser = newParser();
  const tree = parser.parse(text);
  const out: Diagnostic[] = [];
  try {
    if (!tree) return out;
    const lines = text.split('\n');
    const pos = (p: { row: number; column: number }) => {
      const prefix = (lines[p.row] ?? '').slice(0, p.column);
      return { line: p.row + 1, column: [...prefix].length + 1, byte: 0 };
    };
    const visit = (n: SyntaxNode) => {
      if (out.length >= 20) return;
      if (n.isError || n.isMissing) {
        out.push({
          severity: 'error',
          summary: n.isMissing ? `Missing ${n.type}` : 'Invalid syntax',
          subject: { filename, start: pos(n.startPosition), end: pos(n.endPosition) },
          source: 'syntax',
        });
        return;
      }
      if (n.hasError) for (const c of n.children) if (c) visit(c);
    };
    visit(tree.rootNode);
    return out;
  } finally {
    tree?.delete();
    parser.delete();
  }
}

export const defaultEngine: Engine = {
  init: initParser,
  async analyzeDirectory(dir, overlays) {
    const files = new Map(overlays);
    try {
      for (const e of readdirSync(dir)) {
        const p = join(dir, e);
        if (!files.has(p) && (e.endsWith('.tf') || e.endsWith('.tfvars'))) files.set(p, readFileSync(p, 'utf8'));
      }
    } catch {
      // An unreadable directory leaves just the overlays to analyse.
    }
    const diags: Diagnostic[] = [];
    for (const [p, text] of files) diags.push(...syntaxDiagnostics(text, p));
    return groupByFile(dir, diags);
  },
  format() {
    return undefined;
  },
};
