// `foresight providers [DIR-less options]`: Terraform's providers command. Prints, to stdout,
// "\nProviders required by configuration:\n" and the module tree of requirements as treeprint draws it
// (per module its providers, sorted by address, with canonical version constraints, then `module.NAME`
// branches sorted by name), then a blank line; when the current workspace's local state has resources,
// "Providers required by state:\n\n" and "    provider[ADDR]\n\n" per provider (sorted). Configuration errors
// are diagnostics (exit 1), printed by the older UI path (renderDiagnostics) as Terraform's showDiagnostics
// does; child modules must be recorded in .terraform/modules/modules.json ("Module not installed").

import { existsSync, readdirSync } from 'node:fs';
import type { Diagnostic } from '../diags/diagnostic';
import { error, hasErrors } from '../diags/diagnostic';
import type { RenderOptions } from '../diags/render';
import { renderDiagnostic, renderDiagnostics } from '../diags/render';
import { attachInstalledModules, contextOfLoad, sortDiagnostics } from './init';
import { loadModuleTree } from '../config/load';
import { stateProviders } from '../providers/resolve';
import { checkRequiredProviderSources, formatRequirementsTree, providerVersionsFromWarnings, redundantEmptyProviderWarnings, requirementsByModule } from '../providers/resolve';
import { HELP } from './help/index';
import { checkModulesInstalled, readModuleManifest } from '../depsfile/modules';

export interface ProvidersIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Meta.showDiagnostics: coloured, the older UI's wrapped boxes (renderDiagnostics); plain, each diagnostic
 * preceded by a blank line and followed by one more line break (Ui.Error's newline).
 */
export function showDiagnostics(diags: readonly Diagnostic[], opts: RenderOptions): string {
  if (opts.color) return renderDiagnostics(diags, opts);
  return diags.map((d) => '\n' + renderDiagnostic(d, opts) + '\n').join('');
}

/** hashicorp/cli's ColoredUi.Error: red text and two resets in colour, the text alone without. */
export function uiError(msg: string, color: boolean): string {
  return color ? `\x1b[31m${msg}\x1b[0m\x1b[0m\n` : `${msg}\n`;
}

export async function runProviders(args: string[], io: ProvidersIO): Promise<number> {
  // Meta.process removes -no-color before the flags are parsed.
  const color = !args.some((a) => a === '-no-color' || a === '--no-color');
  const rest = args.filter((a) => a !== '-no-color' && a !== '--no-color');
  if (rest.length > 0 && ['lock', 'mirror', 'schema'].includes(rest[0])) {
    io.stderr(uiError(`The "terraform providers ${rest[0]}" command is not available in Foresight.`, color));
    return 1;
  }
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '--') {
      positional.push(...rest.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      positional.push(...rest.slice(i));
      break;
    }
    const name = a.replace(/^--?/, '').split('=')[0];
    if (name === 'test-directory') {
      if (!a.includes('=')) i++;
      continue;
    }
    const help = HELP['providers'] ?? '';
    const cut = help.indexOf('\n\nSubcommands:');
    io.stderr(uiError(cut >= 0 ? help.slice(0, cut) : help, color));
    io.stderr(uiError(`Error parsing command-line flags: flag provided but not defined: -${name}\n`, color));
    return 1;
  }
  if (positional.length > 0) {
    io.stderr(uiError('Too many command line arguments. Did you mean to use -chdir?', color));
    return 1;
  }
  const dir = io.cwd;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    names = [];
  }
  if (!names.some((n) => n.endsWith('.tf') || n.endsWith('.tf.json'))) {
    io.stderr(showDiagnostics([error('No configuration files', `The directory ${dir} contains no Terraform configuration files.`)], { color }));
    return 1;
  }
  const res = await loadModuleTree(dir);
  const manifest = readModuleManifest(dir, io.env);
  await attachInstalledModules(res, dir, manifest);
  const loadDiags = res.diagnostics.filter((d) => d.summary !== 'Module not installed');
  const diags: Diagnostic[] = [
    ...loadDiags,
    ...checkModulesInstalled(res.module, manifest),
    ...checkRequiredProviderSources(res.module, res.sources),
    ...redundantEmptyProviderWarnings(res.module, providerVersionsFromWarnings(res.diagnostics, res.sources)),
  ];
  const opts = { color, sources: res.sources, contextOf: contextOfLoad(res) };
  if (hasErrors(diags)) {
    io.stderr(showDiagnostics(sortDiagnostics(diags.filter((d) => d.severity === 'error')), opts));
    return 1;
  }
  let out = '\nProviders required by configuration:\n';
  out += formatRequirementsTree(requirementsByModule(res.module, providerVersionsFromWarnings(res.diagnostics, res.sources))) + '\n';
  const fromState = existsSync(dir) ? stateProviders(dir, io.env) : [];
  if (fromState.length) {
    out += 'Providers required by state:\n\n';
    for (const p of fromState) out += `    provider[${p}]\n\n`;
  }
  io.stdout(out);
  const warns = diags.filter((d) => d.severity === 'warning');
  if (warns.length) io.stdout(showDiagnostics(warns, opts));
  return 0;
}
export { foresightProviders } from '../providers/resolve';
