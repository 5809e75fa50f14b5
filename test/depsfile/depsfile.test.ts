// The dependency lock file and the module manifest: a lock file Terraform wrote (with hashes) reads and
// re-formats byte for byte; Foresight's entries for its built-in providers (version and constraints, no
// hashes); Terraform's diagnostics for bad lock files; modules.json as Terraform writes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatLockFile, parseLockFile } from '../../server/depsfile/locks';
import { formatModuleManifest, normaliseLocalSource } from '../../server/depsfile/modules';
import { parseProviderConstraints } from '../../server/versions/provider';

const DATA = join(__dirname, '..', '..', '..', 'test', 'data', 'init');

test('a lock file written by Terraform round-trips byte for byte', async () => {
  const text = readFileSync(join(DATA, 'terraform-written.lock.hcl'), 'utf8');
  const r = await parseLockFile(text);
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual([...r.providers.keys()], ['registry.terraform.io/hashicorp/null', 'registry.terraform.io/hashicorp/random']);
  assert.equal(formatLockFile(r.providers.values()), text);
});

test("Foresight's entries for built-in providers: version, canonical constraints, no hashes, sorted", () => {
  const cs = parseProviderConstraints('>= 3.0, ~> 3.1');
  assert.ok(!('error' in cs));
  const text = formatLockFile([
    { addr: { hostname: 'registry.terraform.io', namespace: 'hashicorp', type: 'random' }, version: '3.7.2', constraints: cs, hashes: [] },
    { addr: { hostname: 'registry.terraform.io', namespace: 'hashicorp', type: 'null' }, version: '3.2.4', constraints: [], hashes: [] },
  ]);
  assert.equal(
    text,
    '# This file is maintained automatically by "terraform init".\n# Manual edits may be lost in future updates.\n\n' +
      'provider "registry.terraform.io/hashicorp/null" {\n  version = "3.2.4"\n}\n\n' +
      'provider "registry.terraform.io/hashicorp/random" {\n  version     = "3.7.2"\n  constraints = ">= 3.0.0, ~> 3.1"\n}\n',
  );
});

// [lock file body, [summary, detail] of the first diagnostic]
const BAD: [string, [string, string]][] = [
  ['provider "a/b/c/d" {\n  version = "3.7.2"\n}\n', ['Invalid provider source address', 'The provider source address for a provider lock must be a valid, fully-qualified address of the form "hostname/namespace/type".']],
  [
    'provider "hashicorp/random" {\n  version = "3.7.2"\n}\n',
    ['Non-normalized provider source address', 'The provider source address for this provider lock must be written as "registry.terraform.io/hashicorp/random", the fully-qualified and normalized form.'],
  ],
  [
    'provider "registry.terraform.io/HashiCorp/random" {\n  version = "3.7.2"\n}\n',
    ['Non-normalized provider source address', 'The provider source address for this provider lock must be written as "registry.terraform.io/hashicorp/random", the fully-qualified and normalized form.'],
  ],
  [
    'provider "terraform.io/builtin/terraform" {\n  version = "1.0.0"\n}\n',
    [
      'Invalid provider source address',
      "Cannot lock a version for built-in provider terraform.io/builtin/terraform. Built-in providers are bundled inside Terraform itself, so you can't select a version for them independently of the Terraform release you are currently running.",
    ],
  ],
  [
    'provider "registry.terraform.io/hashicorp/random" {\n  version     = "3.7.2"\n  constraints = "~>3.0"\n}\n',
    ['Invalid provider version constraints', 'The recorded version constraints for provider registry.terraform.io/hashicorp/random must be written in normalized form: "~> 3.0".'],
  ],
  [
    'provider "registry.terraform.io/hashicorp/random" {\n  version = "3.7.2"\n  hashes  = []\n}\n',
    ['Invalid provider hash set', 'The "hashes" argument must either be omitted or contain at least one hash value.'],
  ],
  [
    'provider "registry.terraform.io/hashicorp/random" {\n  version = "3.7.2"\n}\nprovider "registry.terraform.io/hashicorp/random" {\n  version = "3.7.2"\n}\n',
    ['Duplicate provider lock', 'This lockfile already declared a lock for provider registry.terraform.io/hashicorp/random at .terraform.lock.hcl:1,1-50.'],
  ],
  ['provider "registry.terraform.io/hashicorp/random" {\n}\n', ['Missing required argument', 'The argument "version" is required, but no definition was found.']],
];
for (const [text, want] of BAD)
  test(`bad lock file: ${want[0]}`, async () => {
    const r = await parseLockFile(text);
    assert.ok(r.diagnostics.length > 0, 'expected a diagnostic');
    assert.deepEqual([r.diagnostics[0].summary, r.diagnostics[0].detail], want);
  });

test('modules.json as Terraform writes it: compact, sorted by key, Version only when set', () => {
  assert.equal(
    formatModuleManifest([
      { Key: 'b', Source: './modules/db', Dir: 'modules/db' },
      { Key: '', Source: '', Dir: '.' },
      { Key: 'app.db', Source: '../db', Dir: 'modules/db' },
      { Key: 'app', Source: './modules/app', Dir: 'modules/app' },
    ]),
    '{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"app","Source":"./modules/app","Dir":"modules/app"},{"Key":"app.db","Source":"../db","Dir":"modules/db"},{"Key":"b","Source":"./modules/db","Dir":"modules/db"}]}',
  );
});

test('local module sources are normalised as Terraform prints them', () => {
  assert.deepEqual(['./a/', './a/../b', '../x/./y', './a//b'].map(normaliseLocalSource), ['./a', './b', '../x/y', './a/b']);
});
