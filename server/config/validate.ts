// The single entry point for syntax + static diagnostics of a module directory, used by the language
// server and the CLI (`foresight validate`). Mirrors `terraform validate`: loading errors (syntax,
// structure) first; reference checks and cycles only when the configuration loaded without errors; then
// count/for_each values that are invalid for any variable values.
// Siblings: load.ts (reading and decoding), checks.ts (references, cycles), model.ts (the result).

import { statSync } from 'node:fs';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { error, hasErrors } from '../diags/diagnostic';
import { resolve } from 'node:path';
import { checkModule } from './checks';
import { checkRepetition } from './evaluate';
import { loadModuleTree, type FileCache, type LoadOptions } from './load';
import type { Module } from './model';
import { checkCoreVersionRequirements } from '../versions/required';

export interface ValidateResult {
  diagnostics: Diagnostic[];
  /** Source text by the file name used in diagnostics (relative to the validated directory). */
  sources: Map<string, string>;
  /** Context of a range for snippets: the top-level block containing it (`resource "a" "b"`). */
  contextOf(r: Range): string | undefined;
  module?: Module;
  /**
   * The errors come only from the checks of the validate walk (references, count/for_each), not from loading,
   * the version check or a cycle: Terraform's walk would find the provider-schema errors alongside them.
   */
  walkErrorsOnly?: boolean;
}

/**
 * `budgetMs` bounds each file's tree-sitter parse (see LoadOptions.budgetMs): the language server passes
 * one so that a huge file cannot stall it; without it (the CLI) parsing is unlimited.
 */
export async function validateDirectory(
  dir: string,
  opts?: {
    overlays?: Map<string, string>;
    budgetMs?: number;
    cache?: FileCache;
    trees?: LoadOptions['trees'];
    disk?: LoadOptions['disk'];
    /** Check required_version (Terraform's Context.Validate does, before anything else): `terraform validate` only. */
    coreVersion?: boolean;
  },
): Promise<ValidateResult> {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir)
    return {
      diagnostics: [error('Failed to read module directory', `Module directory ${dir} does not exist or cannot be read.`)],
      sources: new Map(),
      contextOf: () => undefined,
    };
  const res = await loadModuleTree(dir, { overlays: opts?.overlays, budgetMs: opts?.budgetMs, cache: opts?.cache, trees: opts?.trees, disk: opts?.disk });
  const diagnostics = [...res.diagnostics];
  // Context.Validate checks the Terraform Core version first and stops there when it is not met.
  if (opts?.coreVersion && !hasErrors(diagnostics)) diagnostics.push(...checkCoreVersionRequirements(res.module, { sources: res.sources }));
  const loaded = !hasErrors(diagnostics);
  if (!hasErrors(diagnostics)) diagnostics.push(...checkModule(res.module));
  // count and for_each values that are invalid whatever the variables are (evaluate.ts).
  if (!hasErrors(diagnostics)) diagnostics.push(...checkRepetition(res.module, resolve(dir)));
  const walkErrorsOnly = loaded && hasErrors(diagnostics) && !diagnostics.some((d) => d.summary.startsWith('Cycle: '));
  const contexts = res.contexts;
  return {
    diagnostics,
    sources: res.sources,
    module: res.module,
    walkErrorsOnly,
    contextOf(r: Range) {
      // HCL's ContextString looks at the byte before the range start.
      const off = r.start.byte - 1;
      if (off < 0) return undefined;
      for (const c of contexts) {
        if (c.range.filename === r.filename && c.range.start.byte <= off && off < c.range.end.byte) return c.text;
      }
      return undefined;
    },
  };
}
