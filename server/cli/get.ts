// `foresight get [-update] [-no-color] [-test-directory=DIR]`: Terraform's get command: (re)records the
// local modules the configuration calls in .terraform/modules/modules.json (server/depsfile/modules.ts) and
// prints "- KEY in DIR" for each one recorded afresh (all of them with -update); nothing when every module
// is already recorded. Errors are diagnostics on stderr, exit status 1.

import type { Diagnostic } from '../diags/diagnostic';
import { error, hasErrors } from '../diags/diagnostic';
import { renderDiagnosticsView, sortDiagnostics } from '../diags/render';
import { loadModuleTree } from '../config/load';
import { HELP } from './help/index';
import { showDiagnostics, uiError } from './providers';
import { consolidateWarnings, contextOfLoad } from './init';
import { providerVersionsFromWarnings, redundantEmptyProviderWarnings } from '../providers/resolve';
import { installLocalModules, readModuleManifest, writeModuleManifest } from '../depsfile/modules';

export interface GetIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
}

export async function runGet(args: string[], io: GetIO): Promise<number> {
  // Meta.process removes -no-color before the flags are parsed.
  const color = !args.some((a) => a === '-no-color' || a === '--no-color');
  const rest = args.filter((a) => a !== '-no-color' && a !== '--no-color');
  let update = false;
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
    const body = a.replace(/^--?/, '');
    const name = body.split('=')[0];
    const value = body.includes('=') ? body.slice(body.indexOf('=') + 1) : undefined;
    if (name === 'update') {
      if (value === undefined || /^(1|t|T|true|TRUE|True)$/.test(value)) update = true;
      else if (/^(0|f|F|false|FALSE|False)$/.test(value)) update = false;
      else return flagError(io, `invalid boolean value ${JSON.stringify(value)} for -update: parse error`, color);
      continue;
    }
    if (name === 'test-directory') {
      if (value === undefined) {
        if (i + 1 >= rest.length) return flagError(io, 'flag needs an argument: -test-directory', color);
        i++;
      }
      continue;
    }
    return flagError(io, `flag provided but not defined: -${name}`, color);
  }
  if (positional.length > 0) {
    io.stderr(uiError('Too many command line arguments. Did you mean to use -chdir?', color));
    return 1;
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
  const inst = installLocalModules(dir, res.module, readModuleManifest(dir, io.env), update);
  for (const line of inst.installed) io.stdout(`- ${line}\n`);
  const diags: Diagnostic[] = [...inst.diagnostics];
  try {
    writeModuleManifest(dir, inst.records.values(), io.env);
  } catch (e) {
    diags.push(error('Failed to update module manifest', `Unable to write the module manifest file: ${(e as Error).message}`));
  }
  if (hasErrors(diags)) {
    io.stderr(renderDiagnosticsView(diags.filter((d) => d.severity === 'error'), opts));
    return 1;
  }
  // Warnings of the configuration the installer built, consolidated, through the older UI.
  const warns = [
    ...res.diagnostics.filter((d) => d.severity === 'warning'),
    ...redundantEmptyProviderWarnings(res.module, providerVersionsFromWarnings(res.diagnostics, res.sources)),
  ];
  if (warns.length) io.stdout(showDiagnostics(consolidateWarnings(sortDiagnostics(warns)), { ...opts, contextOf: contextOfLoad(res) }));
  return 0;
}

/** The usage text then the flag error, both through Ui.Error, as Terraform's get does. */
function flagError(io: GetIO, msg: string, color: boolean): number {
  io.stderr(uiError((HELP['get'] ?? '').replace(/\n$/, ''), color));
  io.stderr(uiError(`Error parsing command-line flags: ${msg}\n`, color));
  return 1;
}
