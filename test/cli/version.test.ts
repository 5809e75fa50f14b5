// `foresight version [-json]` lists the providers of the dependency lock file as `terraform version` does,
// compared byte for byte with terraform (skipped with a printed notice where it is not installed), and checked
// against the expected text without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../server/cli/main';

const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
// An empty CLI configuration, so neither tool warns about a missing ~/.terraformrc.
const RC = join(mkdtempSync(join(tmpdir(), 'fs-version-rc-')), 'empty.tfrc');
writeFileSync(RC, '');
const ENV = { ...process.env, CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: RC };

const LOCK =
  '# This file is maintained automatically by "terraform init".\n# Manual edits may be lost in future updates.\n\n' +
  'provider "registry.terraform.io/hashicorp/random" {\n  version = "3.7.2"\n}\n\n' +
  'provider "registry.terraform.io/hashicorp/aws" {\n  version     = "5.100.0"\n  constraints = "~> 5.0"\n  hashes = [\n    "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",\n  ]\n}\n\n' +
  'provider "example.com/test/thing" {\n  version = "0.0.0"\n}\n';

async function foresight(cwd: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdin: async () => '', stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), cwd, env: ENV });
  return { code, stdout, stderr };
}

const CASES: { name: string; lock?: string; argv: string[]; stdout: string }[] = [
  { name: 'no lock file', argv: ['version'], stdout: 'Terraform v1.11.4\non linux_amd64\n' },
  {
    name: 'locked providers',
    lock: LOCK,
    argv: ['version'],
    stdout:
      'Terraform v1.11.4\non linux_amd64\n+ provider example.com/test/thing (unversioned)\n+ provider registry.terraform.io/hashicorp/aws v5.100.0\n+ provider registry.terraform.io/hashicorp/random v3.7.2\n',
  },
  {
    name: 'locked providers, -json',
    lock: LOCK,
    argv: ['version', '-json'],
    stdout:
      '{\n  "terraform_version": "1.11.4",\n  "platform": "linux_amd64",\n  "provider_selections": {\n    "example.com/test/thing": "0.0.0",\n    "registry.terraform.io/hashicorp/aws": "5.100.0",\n    "registry.terraform.io/hashicorp/random": "3.7.2"\n  },\n  "terraform_outdated": false\n}\n',
  },
  { name: '-v through the global flag', lock: LOCK, argv: ['-v'], stdout: 'Terraform v1.11.4\non linux_amd64\n+ provider example.com/test/thing (unversioned)\n+ provider registry.terraform.io/hashicorp/aws v5.100.0\n+ provider registry.terraform.io/hashicorp/random v3.7.2\n' },
  { name: 'a lock file with an error lists nothing', lock: 'provider "hashicorp/aws" {\n  version = "5.100.0"\n}\n', argv: ['version'], stdout: 'Terraform v1.11.4\non linux_amd64\n' },
  {
    name: '-json without providers',
    argv: ['version', '-json'],
    stdout: '{\n  "terraform_version": "1.11.4",\n  "platform": "linux_amd64",\n  "provider_selections": {},\n  "terraform_outdated": false\n}\n',
  },
];

test('version lists the locked providers (text and -json) as terraform does', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fs-version-'));
  try {
    for (const c of CASES) {
      const dir = join(root, c.name.replace(/[^a-z]+/gi, '-'));
      mkdirSync(dir);
      if (c.lock) writeFileSync(join(dir, '.terraform.lock.hcl'), c.lock);
      const f = await foresight(dir, c.argv);
      assert.equal(f.stdout, c.stdout, c.name);
      assert.equal(f.code, 0, c.name);
      assert.equal(f.stderr, '', c.name);
      if (!hasTerraform) continue;
      const t = spawnSync('terraform', c.argv, { cwd: dir, encoding: 'utf8', env: ENV });
      assert.equal(f.stdout, t.stdout, `${c.name}: terraform`);
      assert.equal(f.stderr, t.stderr, `${c.name}: terraform stderr`);
      assert.equal(f.code, t.status, `${c.name}: terraform status`);
    }
    // -chdir reads the lock file of that directory; an unknown flag prints the help and the flag error.
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', '.terraform.lock.hcl'), LOCK);
    for (const argv of [['-chdir=sub', 'version'], ['version', '-bogus'], ['version', '-no-color', '-bogus']]) {
      const f = await foresight(root, argv);
      if (argv[0].startsWith('-chdir')) assert.match(f.stdout, /\+ provider registry\.terraform\.io\/hashicorp\/aws v5\.100\.0\n/);
      else assert.equal(f.code, 1);
      if (!hasTerraform) continue;
      const t = spawnSync('terraform', argv, { cwd: root, encoding: 'utf8', env: ENV });
      assert.deepEqual([f.code, f.stdout, f.stderr], [t.status, t.stdout, t.stderr], argv.join(' '));
    }
    if (!hasTerraform) console.log('# SKIP: terraform is not on PATH; version is checked against the expected text only');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
