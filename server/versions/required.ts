// The Terraform Core version check (`required_version` in terraform blocks), as Terraform runs it at the
// start of init, plan, apply, validate, ...: every module of the tree, root first then children in call
// order, every constraint; "Unsupported Terraform Core version" with the whole attribute as subject,
// prerelease constraints rejected with "Invalid required_version constraint", unparsable strings with
// "Invalid version constraint" on the value. Contract: pure; returns diagnostics, never throws.

import type { Diagnostic, Range } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type { Expression } from '../config/hclbody';
import type { Module } from '../config/model';
import { SourceText } from '../config/source';
import { TERRAFORM_VERSION } from '../cli/version';
import { checkCore, parseCoreConstraints, parseGoVersion } from './core';

export interface CoreVersionOptions {
  /** Source text by file name (LoadResult.sources), used to compute attribute ranges. */
  sources: ReadonlyMap<string, string>;
  /** The version to check; Terraform's by default. */
  version?: string;
}

/**
 * The range of the attribute `name = <expr>` (name start to expression end), found by scanning back from
 * the expression in its file's text; the expression's own range when the text is not available.
 */
export function attributeRange(expr: Expression, name: string, sources: ReadonlyMap<string, string>): Range {
  const text = sources.get(expr.range.filename);
  if (text === undefined) return expr.range;
  let i = expr.offset;
  while (i > 0 && /[ \t]/.test(text[i - 1])) i--;
  if (text[i - 1] !== '=') return expr.range;
  i--;
  while (i > 0 && /[ \t]/.test(text[i - 1])) i--;
  if (text.slice(i - name.length, i) !== name) return expr.range;
  const src = new SourceText(expr.range.filename, text);
  return src.range(i - name.length, expr.offset + expr.text.length);
}

/** Diagnostics for every unmet or invalid required_version in `root` and its loaded children. */
export function checkCoreVersionRequirements(root: Module, opts: CoreVersionOptions): Diagnostic[] {
  const diags: Diagnostic[] = [];
  const current = parseGoVersion(opts.version ?? TERRAFORM_VERSION)!;
  const shown = opts.version ?? TERRAFORM_VERSION;
  const visit = (mod: Module, source: string | undefined) => {
    for (const tb of mod.terraform) {
      const e = tb.requiredVersion;
      if (!e) continue;
      if (e.shape === 'literal' && e.literal === null) continue;
      if (e.shape !== 'string' || typeof e.literal !== 'string') continue; // non-literal: reported by the loader's checks
      const cs = parseCoreConstraints(e.literal);
      const declRange = attributeRange(e, 'required_version', opts.sources);
      if (!cs) {
        diags.push(error('Invalid version constraint', 'This string does not use correct version constraint syntax.', e.range));
        continue;
      }
      const pre = cs.filter((c) => c.version.pre !== '');
      if (pre.length) {
        for (const c of pre)
          diags.push(
            error(
              'Invalid required_version constraint',
              `Prerelease version constraints are not supported: ${c.text}. Remove the prerelease information from the constraint. Prerelease versions of terraform will match constraints using their version core only.`,
              declRange,
            ),
          );
        continue;
      }
      if (checkCore(current, cs)) continue;
      const tail = `does not support Terraform version ${shown}. To proceed, either choose another supported Terraform version or update this version constraint. Version constraints are normally set for good reason, so updating the constraint may lead to other errors or unexpected behavior.`;
      diags.push(
        error(
          'Unsupported Terraform Core version',
          mod.path === '' ? `This configuration ${tail}` : `Module ${mod.path} (from ${source}) ${tail}`,
          declRange,
        ),
      );
    }
    for (const call of mod.moduleCalls.values()) if (call.module) visit(call.module, call.source);
  };
  visit(root, undefined);
  return diags;
}
