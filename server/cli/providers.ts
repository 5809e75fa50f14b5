// `foresight providers [DIR-less options]`: Terraform's providers command. Prints, to stdout,
// "\nProviders required by configuration:\n" and the module tree of requirements as treeprint draws it
// (per module its providers, sorted by address, with canonical version constraints, then `module.NAME`
// branches sorted by name), then a blank line; when the current workspace's local state has resources,
// "Providers required by state:\n\n" and "    provider[ADDR]\n\n" per provider (sorted). Configuration errors
// are diagnostics (exit 1). Also the list of providers Foresight itself has (`foresightProviders`), used by
// init and by resolution diagnostics.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../diags/diagnostic';
import { error, hasErrors } from '../diags/diagnostic';
import { renderDiagnosticsView } from '../diags/render';
import { loadModuleTree } from '../config/load';
import type { AvailableProvider } from '../providers/resolve';
import { checkRequiredProviderSources, formatRequirementsTree, providerVersionsFromWarnings, requirementsByModule } from '../providers/resolve';
import { BUILTIN_HOST, BUILTIN_NAMESPACE, DEFAULT_REGISTRY_HOST } from '../addrs/provider';

/**
 * The providers Foresight has built in, by source address, with the versions it offers. Mirrors the
 * registry of built-in providers (server/providers/builtin): terraform.io/builtin/terraform (no version of
 * its own), hashicorp/random and hashicorp/null.
 */
export function foresightProviders(): AvailableProvider[] {
  return [
    { addr: { hostname: BUILTIN_HOST, namespace: BUILTIN_NAMESPACE, type: 'terraform' }, versions: [] },
    { addr: { hostname: DEFAULT_REGISTRY_HOST, namespace: 'hashicorp', type: 'null' }, versions: ['3.2.4'] },
    { addr: { hostname: DEFAULT_REGISTRY_HOST, namespace: 'hashicorp', type: 'random' }, versions: ['3.7.2'] },
  ];
}

export interface ProvidersIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
}

function currentWorkspace(dir: string, env: Readonly<Record<string, string | undefined>> | undefined): string {
  if (env?.TF_WORKSPACE) return env.TF_WORKSPACE;
  try {
    return readFileSync(join(dir, env?.TF_DATA_DIR ?? '.terraform', 'environment'), 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}

/** Provider addresses of the resources in the workspace's local state file (sorted, unique). */
export function stateProviders(dir: string, env?: Readonly<Record<string, string | undefined>>): string[] {
  const ws = currentWorkspace(dir, env);
  const path = ws === 'default' ? join(dir, 'terraform.tfstate') : join(dir, 'terraform.tfstate.d', ws, 'terraform.tfstate');
  let doc: { resources?: { provider?: string }[] };
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (const r of doc.resources ?? []) {
    const m = /provider\["([^"]+)"\]/.exec(r.provider ?? '');
    if (m) out.add(m[1]);
  }
  return [...out].sort();
}

export async function runProviders(args: string[], io: ProvidersIO): Promise<number> {
  let color = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-no-color' || a === '--no-color') color = false;
    else if (/^--?test-directory(=|$)/.test(a)) {
      if (!a.includes('=')) i++;
    } else if (a.startsWith('-')) {
      io.stderr(`Error parsing command-line flags: flag provided but not defined: ${a.split('=')[0]}\n\n`);
      return 1;
    } else {
      const d = error('Too many command line arguments', 'Expected no positional arguments. Did you mean to use -chdir?');
      if (['lock', 'mirror', 'schema'].includes(a)) d.detail = `The "providers ${a}" subcommand is not available in Foresight.`;
      io.stderr(renderDiagnosticsView([d], { color }));
      return 1;
    }
  }
  const dir = io.cwd;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    names = [];
  }
  if (!names.some((n) => n.endsWith('.tf') || n.endsWith('.tf.json'))) {
    io.stderr(renderDiagnosticsView([error('No configuration files', `The directory ${dir} contains no Terraform configuration files.`)], { color }));
    return 1;
  }
  const res = await loadModuleTree(dir);
  const diags: Diagnostic[] = [...res.diagnostics, ...checkRequiredProviderSources(res.module)];
  const opts = { color, sources: res.sources };
  if (hasErrors(diags)) {
    io.stderr(renderDiagnosticsView(diags.filter((d) => d.severity === 'error'), opts));
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
  if (warns.length) io.stdout(renderDiagnosticsView(warns, opts));
  return 0;
}
