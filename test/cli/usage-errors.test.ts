// Address arguments are checked as Terraform's argument parsers check them, before any work: -target and -replace of
// plan/apply/refresh/destroy (arguments.Operation.Parse: "Invalid target \"x\"", "Invalid force-replace address",
// with addrs.ParseTarget's detail, then the help prompt; in -json mode the JSON view's version line and diagnostic),
// and the resource instance addresses of the state commands and taint (addrs.ParseAbsResourceInstanceStr's details:
// a module path where an instance is required, a key outside square brackets). Before, a bad -target reached the
// engine and failed as "Planning failed" with a different message. The texts asserted are Terraform 1.11.4's; where
// `terraform` is on PATH every case also runs through it live and must print the same bytes (timestamps masked;
// skipped with a printed notice otherwise). Also: -parallelism is an integer flag and a negative one fails as
// terraform.NewContext fails; import's flag errors print its usage only (Terraform 1.11), an import into a module the
// configuration lacks is refused, and an empty -out writes no plan file. -state draws the deprecation warning, Ui
// warnings go to stdout, and `providers mirror` into a directory nothing was mirrored to fails as Terraform's scan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve(process.cwd(), 'dist/cli.js');
const DIR = mkdtempSync(join(tmpdir(), 'foresight-usage-errors-'));
const RC = join(DIR, '..', `${DIR.split('/').pop()}.tfrc`);
writeFileSync(RC, '');
const ENV = { ...process.env, TF_CLI_CONFIG_FILE: RC, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '', TF_LOG: '', TF_DATA_DIR: '', TF_WORKSPACE: '' };
const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8', env: ENV }).status === 0;
if (!hasTerraform) console.log('# terraform is not on PATH: the live comparisons in usage-errors.test.ts are skipped');

writeFileSync(join(DIR, 'main.tf'), 'resource "terraform_data" "a" {\n  count = 2\n  input = "a-${count.index}"\n}\n');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const mask = (s: string) => s.replace(/"@timestamp":"[^"]*"/g, '"@timestamp":"T"');

function run(tool: 'foresight' | 'terraform', args: string[]): Run {
  const r =
    tool === 'foresight'
      ? spawnSync(process.execPath, [CLI, ...args], { cwd: DIR, env: ENV, encoding: 'utf8', input: '' })
      : spawnSync('terraform', args, { cwd: DIR, env: ENV, encoding: 'utf8', input: '' });
  return { status: r.status, stdout: mask(r.stdout), stderr: mask(r.stderr) };
}

const applied = run('foresight', ['apply', '-auto-approve', '-no-color']);
assert.equal(applied.status, 0, applied.stdout + applied.stderr);

const SPEC = 'Resource specification must include a resource type and name.';
const BRACKETS = 'Resource instance key must be given in square brackets.';
const MODULE = 'A resource instance address is required here. The module path must be followed by a resource instance specification.';
const EXTRA = 'Unexpected extra operators after address.';

const CASES: [string[], string, number?][] = [
  [['plan', '-no-color', '-target=nope'], `Error: Invalid target "nope"\n\n${SPEC}\n\nFor more help on using this command, run:\n  terraform plan -help`],
  [['apply', '-no-color', '-target=terraform_data'], `Error: Invalid target "terraform_data"\n\n${SPEC}\n\nFor more help on using this command, run:\n  terraform apply -help`],
  [['refresh', '-no-color', '-target=x.y.z'], `Error: Invalid target "x.y.z"\n\n${BRACKETS}`],
  [['destroy', '-no-color', '-target=x.y[0].z'], `Error: Invalid target "x.y[0].z"\n\n${EXTRA}`],
  [['plan', '-no-color', '-target=a b'], 'Error: Invalid target "a b"\n\nExpected an attribute access or an index operator.'],
  [['plan', '-no-color', '-replace=module.m'], `Error: Invalid force-replace address "module.m"\n\n${MODULE}`],
  [['plan', '-no-color', '-replace=data.x.y'], 'Error: Invalid force-replace address "data.x.y"\n\nOnly managed resources can be used with the -replace=... option.'],
  [['plan', '-json', '-target=nope'], '"summary":"Invalid target \\"nope\\"","detail":"Resource specification must include a resource type and name."'],
  [['state', 'show', 'module.m'], 'Error parsing instance address: module.m'],
  [['state', 'mv', '-no-color', 'x.y.z', 'a.b'], BRACKETS],
  [['taint', '-no-color', 'module.m'], MODULE],
  [['plan', '-no-color', '-parallelism=-1'], 'Error: Invalid parallelism value\n\nThe parallelism must be a positive value. Not -1.'],
  [['apply', '-no-color', '-parallelism=1.5'], 'Error: Failed to parse command-line flags\n\ninvalid value "1.5" for flag -parallelism: parse error'],
  [['import', '-bogus', 'terraform_data.zz', 'x'], '\x1b[31mUsage: terraform [global options] import [options] ADDR ID'],
  [['import', 'terraform_data.zz', 'x'], 'Error:\x1b[0m\x1b[1m resource address "terraform_data.zz" does not exist in the configuration.'],
  [['import', '-no-color', 'module.m.terraform_data.zz', 'x'], 'Error: Import to non-existent module\n\nmodule.m is not defined in the configuration.'],
  // Warnings of the argument parser and of the Ui go to stdout (Terraform's main.go sends Ui.Warn to the output).
  [['plan', '-no-color', '-state=x.tfstate', '-target=nope'], 'Warning: Deprecated flag: -state\n\nUse `path` attribute within the `local` backend instead:'],
  [['taint', '-no-color', '-allow-missing', 'nope.x'], 'Warning: No such resource instance\n\nResource instance nope.x was not found, but this is not an error because -allow-missing was set.', 0],
  [['providers', 'mirror', '-no-color', 'mirror-dir'], 'Could not scan the output directory to get package metadata for the JSON indexes: cannot search mirror-dir: lstat mirror-dir: no such file or directory.'],
];

test('bad -target and -replace arguments and bad instance addresses are usage errors with Terraform\'s texts', () => {
  for (const [args, want, status] of CASES) {
    const f = run('foresight', args);
    assert.equal(f.status, status ?? 1, `${args.join(' ')}: ${f.stdout}${f.stderr}`);
    // Human output wraps long details at 78 columns: compared with whitespace runs folded (terraform judges bytes).
    const fold = (s: string) => s.replace(/\s+/g, ' ');
    assert.ok(fold(f.stdout + f.stderr).includes(fold(want)), `${args.join(' ')}:\n${f.stdout}${f.stderr}`);
    if (!hasTerraform) continue;
    assert.deepEqual(f, run('terraform', args), `${args.join(' ')} differs from terraform`);
  }
});

test('an empty -out is no -out: the plan is shown and no file is written', () => {
  const f = run('foresight', ['plan', '-no-color', '-out=']);
  assert.equal(f.status, 0, f.stdout + f.stderr);
  assert.match(f.stdout, /No changes\. Your infrastructure matches the configuration\./);
  assert.equal(f.stderr, '');
});
