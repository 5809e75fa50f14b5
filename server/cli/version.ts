// `foresight version [-json]`: Terraform's version command. The Terraform version whose behaviour Foresight follows
// and the platform, then one "+ provider <address> v<version>" line per provider of the working directory's
// dependency lock file (sorted as text; "(unversioned)" for 0.0.0), as Terraform lists the locked providers; with
// -json the same as {"terraform_version", "platform", "provider_selections", "terraform_outdated"}. A lock file
// that gives any diagnostic lists nothing (Terraform's lockedDependencies returning diagnostics). No network:
// the outdated check never runs (terraform_outdated is false, as with CHECKPOINT_DISABLE).

import { readLockFile } from '../depsfile/locks';

// The Terraform version whose behaviour Foresight follows; printed by `version` and checked against required_version.
export const TERRAFORM_VERSION = '1.11.4';
export const VERSION_TEXT = `Terraform v${TERRAFORM_VERSION}\non linux_amd64\n`;

const HELP = `
Usage: terraform [global options] version [options]

  Displays the version of Terraform and all installed plugins

Options:

  -json       Output the version information as a JSON object.
`;

export async function runVersion(args: string[], io: { stdout(s: string): void; stderr(s: string): void; cwd: string }): Promise<number> {
  let json = false;
  for (const a of args) {
    if (a === '-no-color' || a === '--no-color') continue;
    const m = /^--?([^=]+)(?:=(.*))?$/.exec(a);
    const bool = (v: string | undefined) => v === undefined || ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v);
    if (m && m[1] === 'json') json = bool(m[2]);
    else if (m && (m[1] === 'v' || m[1] === 'version')) continue;
    else if (m) {
      // Ui.Error: red text and two resets in colour (-no-color is removed before the flags are parsed).
      const color = !args.some((x) => x === '-no-color' || x === '--no-color');
      const err = (t: string) => io.stderr(color ? `\x1b[31m${t}\x1b[0m\x1b[0m\n` : `${t}\n`);
      err(HELP.trim());
      err(`Error parsing command-line flags: flag provided but not defined: -${m[1]}\n`);
      return 1;
    } else break;
  }
  const locks = await readLockFile(io.cwd);
  const selections = locks.diagnostics.length ? [] : [...locks.providers].map(([addr, l]) => ({ addr, version: l.version }));
  if (json) {
    const sel: Record<string, string> = {};
    for (const s of [...selections].sort((a, b) => (a.addr < b.addr ? -1 : a.addr > b.addr ? 1 : 0))) sel[s.addr] = s.version;
    io.stdout(JSON.stringify({ terraform_version: TERRAFORM_VERSION, platform: 'linux_amd64', provider_selections: sel, terraform_outdated: false }, null, 2) + '\n');
    return 0;
  }
  const lines = selections.map((s) => (s.version === '0.0.0' ? `+ provider ${s.addr} (unversioned)` : `+ provider ${s.addr} v${s.version}`)).sort();
  io.stdout(VERSION_TEXT + lines.map((l) => l + '\n').join(''));
  return 0;
}
