// The scope of `foresight console` in a directory with configuration, as `terraform console` builds it:
// load the root module (and local children), collect input variables (TF_VAR_*, terraform.tfvars,
// *.auto.tfvars, -var, -var-file) with unset required variables stubbed as unknowns, then run the eval walk
// (variable validations, locals, module calls, outputs) and keep its problems as diagnostics.
//
// Contract:
//   consoleScopeFor(cwd, args, env)  → { scope?, diagnostics, rest, sources, contextOf }. `scope` is absent when
//        the configuration or the variable values cannot be used (Terraform exits 1 after printing the
//        diagnostics); when evaluation problems occurred it is present and the diagnostics end with
//        Terraform's "Due to the problems above..." warning. `rest` is `args` without -var/-var-file.
//   runConsoleInDirectory(args, io)  prints those diagnostics as Terraform's console does (sorted; warnings to
//        stdout, errors to stderr) and then runs lang's console loop with the scope.

import { backendOpenErrors } from '../backends/registry';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { hasErrors, warning } from '../diags/diagnostic';
import { renderDiagnostic } from '../diags/render';
import { currentWorkspace, finalizeRootVariables, ModuleEvaluator } from '../config/evaluate';
import { loadModuleTree } from '../config/load';
import { collectVariableValues, parseVariableValues, splitVarFlags } from '../config/variables';
import type { Scope } from '../lang/eval';
import { runConsole } from './console';
import type { CliIO } from './io';
import { resolve } from 'node:path';

export interface ConsoleScope {
  scope?: Scope;
  diagnostics: Diagnostic[];
  /** The arguments other than -var and -var-file. */
  rest: string[];
  /** Source texts by diagnostic file name (configuration and variable files), for snippets. */
  sources: Map<string, string>;
  contextOf: (r: Range) => string | undefined;
}

export async function consoleScopeFor(cwd: string, args: string[], env: Readonly<Record<string, string | undefined>>): Promise<ConsoleScope> {
  const dir = resolve(cwd);
  const split = splitVarFlags(args);
  const loaded = await loadModuleTree(dir);
  const sources = new Map(loaded.sources);
  const contexts = loaded.contexts;
  const contextOf = (r: Range) => {
    const off = r.start.byte - 1;
    if (off < 0) return undefined;
    for (const c of contexts) if (c.range.filename === r.filename && c.range.start.byte <= off && off < c.range.end.byte) return c.text;
    return undefined;
  };
  const out: ConsoleScope = { diagnostics: [...loaded.diagnostics, ...split.diagnostics], rest: split.rest, sources, contextOf };
  if (hasErrors(out.diagnostics)) return out;
  // Terraform's console opens the backend before it reads variables: its errors stop the command.
  out.diagnostics.push(...(await backendOpenErrors(dir, env, loaded.module)));
  if (hasErrors(out.diagnostics)) return out;
  const collected = await collectVariableValues(dir, split.vars, env);
  for (const [k, v] of collected.sources) sources.set(k, v);
  out.diagnostics.push(...collected.diagnostics);
  const parsed = parseVariableValues(collected.raw, loaded.module, { allowUnset: true });
  out.diagnostics.push(...parsed.diagnostics);
  if (hasErrors(out.diagnostics)) return out;
  const fin = finalizeRootVariables(loaded.module, parsed.values);
  const evalDiags: Diagnostic[] = [...fin.diagnostics];
  const ev = new ModuleEvaluator(loaded.module, fin.inputs, { cwd: dir, workspace: currentWorkspace(dir, env), console: true }, evalDiags);
  ev.evaluateAll();
  out.diagnostics.push(...evalDiags);
  if (hasErrors(out.diagnostics)) out.diagnostics.push(warning('Due to the problems above, some expressions may produce unexpected results.'));
  out.scope = ev.scope();
  return out;
}

/** Terraform's tfdiags sort: warnings first, sourceless first, then by file (fewer path segments first) and position. */
export function sortDiagnostics(diags: readonly Diagnostic[]): Diagnostic[] {
  const key = (d: Diagnostic) => d;
  const cmp = (a: Diagnostic, b: Diagnostic): number => {
    if (a.severity !== b.severity) return a.severity === 'warning' ? -1 : 1;
    if (!a.subject !== !b.subject) return a.subject ? 1 : -1;
    if (!a.subject || !b.subject) return 0;
    const as = a.subject;
    const bs = b.subject;
    if (as.filename !== bs.filename) {
      const ac = as.filename.split('/').length;
      const bc = bs.filename.split('/').length;
      if (ac !== bc) return ac - bc;
      return as.filename < bs.filename ? -1 : 1;
    }
    if (as.start.byte !== bs.start.byte) return as.start.byte - bs.start.byte;
    return as.end.byte - bs.end.byte;
  };
  return diags.map(key).slice().sort(cmp);
}

const ESC = '\x1b[';

/** Prints diagnostics as Terraform's Meta.showDiagnostics does through its UI. */
export function showDiagnostics(diags: readonly Diagnostic[], io: Pick<CliIO, 'stdout' | 'stderr'>, opts: { color: boolean; sources: ReadonlyMap<string, string>; contextOf: (r: Range) => string | undefined }): void {
  for (const d of sortDiagnostics(diags)) {
    const body = renderDiagnostic(d, opts);
    if (d.severity === 'error') io.stderr(opts.color ? `${ESC}31m${body}${ESC}0m${ESC}0m\n` : `\n${body}\n`);
    else io.stdout(opts.color ? `${ESC}33m${body}${ESC}0m${ESC}0m\n` : `\n${body}\n`);
  }
}

/** `foresight console` with the configuration in io.cwd. */
export async function runConsoleInDirectory(args: string[], io: CliIO): Promise<number> {
  const color = !args.includes('-no-color');
  const r = await consoleScopeFor(io.cwd, args, io.env);
  showDiagnostics(r.diagnostics, io, { color, sources: r.sources, contextOf: r.contextOf });
  if (!r.scope) return 1;
  return runConsole(r.rest, io, r.scope);
}
