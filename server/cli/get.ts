// `foresight get [-update] [-no-color] [-test-directory=DIR]`: Terraform's get command: (re)records the
// local modules the configuration calls in .terraform/modules/modules.json (server/depsfile/modules.ts) and
// prints "- KEY in DIR" for each one recorded afresh (all of them with -update); nothing when every module
// is already recorded. Errors are diagnostics on stderr, exit status 1.

import type { Diagnostic } from '../diags/diagnostic';
import { error, hasErrors } from '../diags/diagnostic';
import { renderDiagnosticsView } from '../diags/render';
import { loadModuleTree } from '../config/load';
import { installLocalModules, readModuleManifest, writeModuleManifest } from '../depsfile/modules';

export interface GetIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
}

export async function runGet(args: string[], io: GetIO): Promise<number> {
  let color = true;
  let update = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const name = a.replace(/^--?/, '').split('=')[0];
    if (name === 'no-color') color = false;
    else if (name === 'update') update = !a.includes('=') || /^(1|t|T|true|TRUE|True)$/.test(a.split('=')[1]);
    else if (name === 'test-directory') {
      if (!a.includes('=')) i++;
    } else if (a.startsWith('-')) {
      io.stderr(`Error parsing command-line flags: flag provided but not defined: -${name}\n\n`);
      return 1;
    } else {
      io.stderr(renderDiagnosticsView([error('Too many command line arguments. Did you mean to use -chdir?')], { color }));
      return 1;
    }
  }
  const dir = io.cwd;
  const res = await loadModuleTree(dir);
  const rootFiles = new Set(res.module.files);
  const rootDiags = res.diagnostics.filter((d) => !d.subject || rootFiles.has(d.subject.filename));
  const opts = { color, sources: res.sources };
  if (hasErrors(rootDiags)) {
    io.stderr(renderDiagnosticsView(rootDiags.filter((d) => d.severity === 'error'), opts));
    return 1;
  }
  if (res.module.moduleCalls.size === 0) return 0;
  const inst = installLocalModules(dir, res.module, readModuleManifest(dir), update);
  for (const line of inst.installed) io.stdout(`- ${line}\n`);
  const diags: Diagnostic[] = [...inst.diagnostics];
  try {
    writeModuleManifest(dir, inst.records.values());
  } catch (e) {
    diags.push(error('Failed to update module manifest', `Unable to write the module manifest file: ${(e as Error).message}`));
  }
  if (hasErrors(diags)) {
    io.stderr(renderDiagnosticsView(diags.filter((d) => d.severity === 'error'), opts));
    return 1;
  }
  return 0;
}
