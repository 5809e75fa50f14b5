// Every command that opens the working directory's backend stops on what opening reports, as Terraform's
// Backend() does, even when the command then needs no state or provider: "Backend initialization required" for a
// backend block `init` never recorded, and "failed to read dependency lock file" for a lock file with errors
// (Terraform builds its provider factories while it wraps the backend for local operations; validate builds them
// directly). Before, console, graph, providers, output, the state commands and force-unlock carried on (output even
// warned "No outputs found"). The expected texts are Terraform 1.11.4's; where `terraform` is on PATH each case also
// runs through it live and must print the same bytes (skipped with a printed notice otherwise).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve(process.cwd(), 'dist/cli.js');
const ROOT = mkdtempSync(join(tmpdir(), 'foresight-backend-errors-'));
const RC = join(ROOT, 'empty.tfrc');
writeFileSync(RC, '');
const ENV = { ...process.env, TF_CLI_CONFIG_FILE: RC, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '', TF_LOG: '', TF_DATA_DIR: '', TF_WORKSPACE: '' };
const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8', env: ENV }).status === 0;
if (!hasTerraform) console.log('# terraform is not on PATH: the live comparisons in backend-errors.test.ts are skipped');

function workspace(name: string, files: Record<string, string>): string {
  const dir = join(ROOT, name);
  mkdirSync(dir);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  return dir;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(tool: 'foresight' | 'terraform', dir: string, args: string[]): Run {
  const r =
    tool === 'foresight'
      ? spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env: ENV, encoding: 'utf8', input: '1\n' })
      : spawnSync('terraform', args, { cwd: dir, env: ENV, encoding: 'utf8', input: '1\n' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const COMMANDS = [['console'], ['graph'], ['providers', '-no-color'], ['output', '-no-color'], ['state', 'list'], ['state', 'pull'], ['workspace', 'list'], ['force-unlock', '-force', '123'], ['show', '-no-color'], ['plan', '-no-color', '-input=false']];

const uninit = workspace('uninitialised', { 'main.tf': 'terraform {\n  backend "pg" {}\n}\n\nresource "terraform_data" "a" {}\n' });
const badLock = workspace('bad-lock', {
  'main.tf': 'resource "terraform_data" "a" {\n  input = "x"\n}\n',
  '.terraform.lock.hcl': 'provider "x" {\n  version = "1.0.0"\n}\n',
});

const INIT_REQUIRED = 'Backend initialization required, please run "terraform init"';
const LOCK_ERROR =
  'failed to read dependency lock file: Non-normalized provider source address: The provider source address for this provider lock must be written as "registry.terraform.io/hashicorp/x", the fully-qualified and normalized form.';

for (const [what, dir, message, commands] of [
  ['an uninitialised backend', uninit, INIT_REQUIRED, COMMANDS],
  ['a lock file with errors', badLock, LOCK_ERROR, [...COMMANDS, ['validate', '-no-color'], ['refresh', '-no-color', '-input=false']]],
] as const) {
  test(`${what}: every command that opens the backend stops with its error`, () => {
    for (const args of commands) {
      const f = run('foresight', dir, [...args]);
      assert.equal(f.status, 1, `${args.join(' ')}: ${f.stdout}${f.stderr}`);
      assert.equal(f.stdout, '', `${args.join(' ')} printed on stdout`);
      assert.ok(f.stderr.includes(message), `${args.join(' ')}: ${f.stderr}`);
      if (!hasTerraform) continue;
      const t = run('terraform', dir, [...args]);
      assert.deepEqual(f, t, `${args.join(' ')} differs from terraform`);
    }
  });
}
