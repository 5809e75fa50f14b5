// The engine operations the language server consumes, declared here by the consumer so that handlers and
// tests depend on this small surface, not on the engine's module layout. `defaultEngine` wires the real
// engine modules; main.ts runs its analyses in a worker thread (analysisWorker.ts), and tests may pass
// their own Engine to startServer().

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import { ModuleAnalysis } from '../config/analysis';
import { validateDirectory, type ValidateResult } from '../config/validate';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { hasErrors, plainRange } from '../diags/diagnostic';
import { providerValidationDiagnostics, referenceErrorSkip } from '../engine/validate';
import { startBuiltinProvider } from '../providers/builtin';
import { missingProviderWarnings } from '../providers/resolve';
import type { Provider } from '../providers/provider';
import { format } from '../fmt/format';
import { syntaxDiagnostics } from '../syntax/errors';
import { initParser } from '../syntax/treesitter';
import type { Logger } from './log';
import { analysisProviders } from './providers';
import { answerPreviewCall, primePreview, type PreviewCall, type SharedAnalysis } from './preview/worker';

/** The analysis of one module directory: its diagnostics, by the absolute path of the file they concern. */
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
  /**
   * A first, partial check of one file on its own, for a directory not analysed yet (cold open): the file's
   * syntax errors and the provider diagnostics of its resources that depend on nothing outside it. Always a
   * subset of what the directory's analysis reports for the same text (see fileLocalDiagnostics).
   */
  analyzeFile?(path: string, text: string): Promise<Diagnostic[]>;
  /**
   * Idle-time work after the first analysis of `dir` (ModuleAnalysis.prime: the incremental path run without
   * changing anything, so that the first edits find its code optimised). Asks `stop` before each step.
   */
  prime?(dir: string, stop: () => boolean): Promise<void>;
  /**
   * The preview plans of the language server, their lazy hovers and planned diffs (preview/worker.ts
   * answerPreviewCall), made where the analysis keeps the module's model so that it is held once: the analysis
   * worker, where they wait for analyses and are interrupted by them ("interrupted" refusal). An engine without it
   * leaves them to the preview worker.
   */
  preview?(call: PreviewCall): Promise<unknown>;
  /**
   * Idle-time work after the first preview of `dir` (preview/worker.ts primePreview: the patch path of an edit run on
   * the unchanged configuration, so that the first edits find its code optimised). Asks `stop` before each step.
   */
  primePreview?(dir: string, stop: () => boolean): Promise<void>;
  /** Formats one file as `terraform fmt` would; undefined when the formatter is not available. */
  format(text: string, filename: string): FormatResult | undefined;
  /** Applies client options (and the server's logger, for tracing); engines without such limits may omit it. */
  configure?(options: { analysisTimeoutMs?: number; log?: Logger }): void;
  /** Releases threads or memory the engine holds; the engine is unusable afterwards. */
  dispose?(): void;
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
    const abs = isAbsolute(f) ? f : join(dir, f);
    let list = out.diagnostics.get(abs);
    if (!list) out.diagnostics.set(abs, (list = []));
    list.push(d);
  }
  return out;
}

/**
 * Time each file's tree-sitter parse may take in the language server. A file over it (megabytes) gets only
 * the hand-written syntax checker's diagnostics and a "File too large to analyse fully" warning, so one huge
 * file cannot hold up the diagnostics of its module.
 */
export const PARSE_BUDGET_MS = 500;

/**
 * Incremental analyses (config/analysis.ts) of the directories analysed most recently: a re-analysis after
 * an edit re-parses and re-converts only the files whose text changed. Results equal validateDirectory's.
 */
const analyses = new Map<string, ModuleAnalysis>();
/** ModuleAnalysis.prime's rounds after a directory's first analysis (the bench workspace: 3 rounds, about 0.2 s). */
export const PRIME_ROUNDS = 3;
const MAX_ANALYSES = 8;
/** primePreview's rounds after a directory's first preview (the bench workspace: 5 rounds of 20 resources). */
export const PREVIEW_PRIME_ROUNDS = 5;

/** What a preview beside the analysis takes from the directory's analysis (preview/worker.ts SharedAnalysis). */
function sharedAnalysis(dir: string): SharedAnalysis | undefined {
  const a = analyses.get(dir);
  return a && { cache: a.fileCache, budgetMs: PARSE_BUDGET_MS, result: (overlays) => a.resultFor(overlays) };
}

function analysisOf(dir: string): ModuleAnalysis {
  let a = analyses.get(dir);
  if (a) analyses.delete(dir);
  else a = new ModuleAnalysis(dir, { budgetMs: PARSE_BUDGET_MS });
  analyses.set(dir, a); // most recently used last
  for (const [d, old] of analyses) {
    if (analyses.size <= MAX_ANALYSES) break;
    old.dispose();
    analyses.delete(d);
  }
  return a;
}

/**
 * The providers whose validation runs while the user types: Foresight's built-in providers (our own code,
 * allowed in untrusted workspaces too), one unconfigured instance each for the server's lifetime (validation
 * needs no configuration). Third-party provider binaries are not started by the analysis.
 */
const builtinInstances = new Map<string, Provider | undefined>();
export function builtinProviders(fqn: string): Provider | undefined {
  if (!builtinInstances.has(fqn)) builtinInstances.set(fqn, startBuiltinProvider(fqn));
  return builtinInstances.get(fqn);
}

/**
 * The diagnostics `terraform validate` gives for the module: the static ones of `result`, plus, when the
 * configuration loaded (no loading error, no cycle), the provider part of the validate walk
 * (engine/validate.ts): schema errors and the providers' own Validate*Config diagnostics at the attribute
 * they concern. As in Terraform's walk, a body whose references failed is not decoded.
 */
export async function withProviderDiagnostics(dir: string, result: ValidateResult, contextFree = false): Promise<Diagnostic[]> {
  const mod = result.module;
  if (!mod || (hasErrors(result.diagnostics) && !result.walkErrorsOnly)) return result.diagnostics;
  const skip = referenceErrorSkip(result.diagnostics);
  // Provider binaries (worker threads with a pool, providers.ts) only for a real directory, not the single-file pass.
  const ps = analysisProviders(dir, builtinProviders, contextFree);
  const extra = await providerValidationDiagnostics(mod, { providers: ps.providers, cwd: dir, skip, throughDynamic: true, contextFree });
  extra.push(...ps.diagnostics(), ...missingProviderWarnings(mod, ps.missing()));
  return extra.length ? [...result.diagnostics, ...extra] : result.diagnostics;
}

/** An empty directory the single-file check loads its one file "into" (removed when the process exits). */
let soloDir: string | undefined;

/**
 * The file-local first pass (Engine.analyzeFile): the file loaded alone, as if it were its module's only file,
 * keeping only its syntax diagnostics and the provider diagnostics of resources whose bodies read nothing
 * from other files (references to declarations elsewhere fail there, so such bodies are left out, as the
 * validate walk leaves out bodies with reference errors; module outputs and file or clock functions are left
 * out too). Static diagnostics are dropped: they depend on the other files.
 */
export async function fileLocalDiagnostics(path: string, text: string): Promise<Diagnostic[]> {
  if (soloDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'foresight-file-'));
    soloDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const virtual = join(soloDir, basename(path));
  const res = await validateDirectory(soloDir, { overlays: new Map([[virtual, text]]), budgetMs: PARSE_BUDGET_MS });
  const all = await withProviderDiagnostics(soloDir, res, true);
  const retarget = (r: Range | undefined): Range | undefined => (r ? { ...plainRange(r), filename: path } : r);
  return all
    .filter((d) => (d.source === 'syntax' || d.source === 'provider') && (d.subject ?? d.context))
    .map((d) => ({ ...d, subject: retarget(d.subject), context: retarget(d.context) }));
}

export const defaultEngine: Engine = {
  init: initParser,
  async analyzeDirectory(dir, overlays) {
    const result = await analysisOf(dir).analyze(overlays);
    const grouped = groupByFile(dir, await withProviderDiagnostics(dir, result));
    // The module loader reads only .tf files; open .tfvars files still get their syntax checked.
    for (const [path, text] of overlays) {
      if (path.endsWith('.tfvars')) grouped.diagnostics.set(path, syntaxDiagnostics(text, path));
    }
    return grouped;
  },
  analyzeFile: fileLocalDiagnostics,
  async prime(dir, stop) {
    await analyses.get(dir)?.prime(PRIME_ROUNDS, stop);
  },
  preview(call) {
    return answerPreviewCall(call, sharedAnalysis);
  },
  async primePreview(dir, stop) {
    await primePreview(dir, PREVIEW_PRIME_ROUNDS, stop, sharedAnalysis(dir));
  },
  format(text, filename) {
    return format(text, filename);
  },
};
