// `foresight init` with the registry providers Foresight has built in (hashicorp/random, hashicorp/null), where
// there is no Terraform recording to compare with: the lines Foresight prints instead of Terraform's
// "Installing"/"Installed" (it never downloads), the lock file it writes (version and constraints, no
// hashes), reuse of locked versions, -upgrade, constraint mismatches, -lockfile=readonly, and providers it
// does not have. Expected texts are Foresight's documented design (server/cli/init.ts header).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../server/cli/main';

const MAIN = 'terraform {\n  required_providers {\n    random = {\n      source  = "hashicorp/random"\n      version = "~> 3.0"\n    }\n  }\n}\n\nresource "null_resource" "n" {}\n';
const LOCK =
  '# This file is maintained automatically by "terraform init".\n# Manual edits may be lost in future updates.\n\n' +
  'provider "registry.terraform.io/hashicorp/null" {\n  version = "3.2.4"\n}\n\n' +
  'provider "registry.terraform.io/hashicorp/random" {\n  version     = "3.7.2"\n  constraints = "~> 3.0"\n}\n';
const LOCK_INFO =
  'Terraform has created a lock file .terraform.lock.hcl to record the provider\nselections it made above. Include this file in your version control repository\nso that Terraform can guarantee to make the same selections by default when\nyou run "terraform init" in the future.\n';

interface Step {
  write?: Record<string, string>;
  remove?: string[];
  argv: string[];
  exit: number;
  stdout: string;
  stderr?: string;
  lock: string | null;
}

const STEPS: Step[] = [
  {
    argv: ['init', '-no-color'],
    exit: 0,
    stdout:
      'Initializing the backend...\nInitializing provider plugins...\n' +
      '- Finding latest version of hashicorp/null...\n- Using hashicorp/null v3.2.4 built in to Foresight\n' +
      '- Finding hashicorp/random versions matching "~> 3.0"...\n- Using hashicorp/random v3.7.2 built in to Foresight\n' +
      LOCK_INFO +
      '\nTerraform has been successfully initialized!\n',
    lock: LOCK,
  },
  {
    argv: ['init', '-no-color'],
    exit: 0,
    stdout:
      'Initializing the backend...\nInitializing provider plugins...\n' +
      '- Reusing previous version of hashicorp/null from the dependency lock file\n- Using hashicorp/null v3.2.4 built in to Foresight\n' +
      '- Reusing previous version of hashicorp/random from the dependency lock file\n- Using hashicorp/random v3.7.2 built in to Foresight\n' +
      '\nTerraform has been successfully initialized!\n',
    lock: LOCK,
  },
  {
    argv: ['init', '-json'],
    exit: 0,
    stdout: [
      '{"@level":"info","@message":"Terraform 1.11.4","@module":"terraform.ui","@timestamp":"T","terraform":"1.11.4","type":"version","ui":"1.2"}',
      '{"@level":"info","@message":"Initializing the backend...","@module":"terraform.ui","@timestamp":"T","message_code":"initializing_backend_message","type":"init_output"}',
      '{"@level":"info","@message":"Initializing provider plugins...","@module":"terraform.ui","@timestamp":"T","message_code":"initializing_provider_plugin_message","type":"init_output"}',
      '{"@level":"info","@message":"hashicorp/null: Reusing previous version from the dependency lock file","@module":"terraform.ui","@timestamp":"T","type":"log"}',
      '{"@level":"info","@message":"hashicorp/null v3.2.4: Using the version built in to Foresight","@module":"terraform.ui","@timestamp":"T","type":"log"}',
      '{"@level":"info","@message":"hashicorp/random: Reusing previous version from the dependency lock file","@module":"terraform.ui","@timestamp":"T","type":"log"}',
      '{"@level":"info","@message":"hashicorp/random v3.7.2: Using the version built in to Foresight","@module":"terraform.ui","@timestamp":"T","type":"log"}',
      '{"@level":"info","@message":"Terraform has been successfully initialized!","@module":"terraform.ui","@timestamp":"T","message_code":"output_init_success_message","type":"init_output"}',
      '',
    ].join('\n'),
    lock: LOCK,
  },
  {
    argv: ['init', '-no-color', '-upgrade'],
    exit: 0,
    stdout:
      'Initializing the backend...\nInitializing provider plugins...\n' +
      '- Finding latest version of hashicorp/null...\n- Using hashicorp/null v3.2.4 built in to Foresight\n' +
      '- Finding hashicorp/random versions matching "~> 3.0"...\n- Using hashicorp/random v3.7.2 built in to Foresight\n' +
      '\nTerraform has been successfully initialized!\n',
    lock: LOCK,
  },
  {
    write: { 'main.tf': MAIN.replace('~> 3.0', '~> 2.0') },
    argv: ['init', '-no-color'],
    exit: 1,
    stdout:
      'Initializing the backend...\nInitializing provider plugins...\n' +
      '- Reusing previous version of hashicorp/null from the dependency lock file\n- Using hashicorp/null v3.2.4 built in to Foresight\n' +
      '- Reusing previous version of hashicorp/random from the dependency lock file\n',
    stderr:
      '\nError: Failed to query available provider packages\n\n  on main.tf line 3, in terraform:\n   3:     random = {\n   4:       source  = "hashicorp/random"\n   5:       version = "~> 2.0"\n   6:     }\n\n' +
      'Could not retrieve the list of available versions for provider\nhashicorp/random: locked provider registry.terraform.io/hashicorp/random\n3.7.2 does not match configured version constraint ~> 2.0; must use terraform\ninit -upgrade to allow selection of new versions\n',
    lock: LOCK,
  },
  {
    argv: ['init', '-no-color', '-upgrade'],
    exit: 1,
    stdout:
      'Initializing the backend...\nInitializing provider plugins...\n' +
      '- Finding latest version of hashicorp/null...\n- Using hashicorp/null v3.2.4 built in to Foresight\n' +
      '- Finding hashicorp/random versions matching "~> 2.0"...\n',
    stderr:
      '\nError: Failed to query available provider packages\n\n  on main.tf line 3, in terraform:\n   3:     random = {\n   4:       source  = "hashicorp/random"\n   5:       version = "~> 2.0"\n   6:     }\n\n' +
      'Could not retrieve the list of available versions for provider\nhashicorp/random: no available releases match the given constraints ~> 2.0\n\nForesight has hashicorp/random version(s) 3.7.2 built in.\n',
    lock: LOCK,
  },
  {
    write: { 'main.tf': MAIN },
    remove: ['.terraform.lock.hcl'],
    argv: ['init', '-no-color', '-lockfile=readonly'],
    exit: 1,
    stdout:
      'Initializing the backend...\nInitializing provider plugins...\n' +
      '- Finding latest version of hashicorp/null...\n- Using hashicorp/null v3.2.4 built in to Foresight\n' +
      '- Finding hashicorp/random versions matching "~> 3.0"...\n- Using hashicorp/random v3.7.2 built in to Foresight\n',
    stderr:
      '\nError: Provider dependency changes detected\n\nChanges to the required provider dependencies were detected, but the lock\nfile is read-only. To use and record these requirements, run "terraform init"\nwithout the "-lockfile=readonly" flag.\n',
    lock: null,
  },
  {
    write: { 'extra.tf': 'resource "aws_instance" "a" {}\n' },
    argv: ['init', '-no-color'],
    exit: 1,
    stdout:
      'Initializing the backend...\nInitializing provider plugins...\n' +
      '- Finding latest version of hashicorp/aws...\n' +
      '- Finding latest version of hashicorp/null...\n- Using hashicorp/null v3.2.4 built in to Foresight\n' +
      '- Finding hashicorp/random versions matching "~> 3.0"...\n- Using hashicorp/random v3.7.2 built in to Foresight\n',
    lock: null,
  },
];

test('init with built-in registry providers: messages, lock file, reuse, upgrade, mismatches', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fs-init-fs-'));
  try {
    writeFileSync(join(dir, 'main.tf'), MAIN);
    for (const [i, s] of STEPS.entries()) {
      for (const [p, c] of Object.entries(s.write ?? {})) writeFileSync(join(dir, p), c);
      for (const p of s.remove ?? []) rmSync(join(dir, p), { force: true });
      let stdout = '';
      let stderr = '';
      const code = await main(s.argv, {
        stdin: async () => '',
        stdout: (x) => (stdout += x),
        stderr: (x) => (stderr += x),
        cwd: dir,
        env: { TF_IN_AUTOMATION: '1' },
      });
      const lockPath = join(dir, '.terraform.lock.hcl');
      const got = { exit: code, stdout: stdout.replace(/"@timestamp":"[^"]*"/g, '"@timestamp":"T"'), lock: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null };
      assert.deepEqual(got, { exit: s.exit, stdout: s.stdout, lock: s.lock }, `step ${i} (${s.argv.join(' ')})`);
      if (s.stderr !== undefined) assert.equal(stderr, s.stderr, `step ${i} stderr`);
      if (s.exit === 0) assert.equal(stderr, '', `step ${i} stderr`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
