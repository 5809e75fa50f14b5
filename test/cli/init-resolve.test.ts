// Provider resolution (server/providers/resolve.ts): the provider configuration each resource uses, compared
// with the state Terraform 1.11.4 wrote for test/data/init/provider-resolution (aliases, `provider =`,
// `providers = {}` passed into modules, inheritance, module-local blocks); requirements per module and the
// `terraform providers` tree; selection among available providers and its diagnostics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadModuleTree } from '../../server/config/load';
import {
  absProviderConfigString,
  foresightProviders,
  formatRequirementsTree,
  providerAvailabilityDiagnostics,
  requirementsByModule,
  resolveResourceProviders,
  selectProviders,
  treeRequirements,
} from '../../server/providers/resolve';

const DATA = join(__dirname, '..', '..', '..', 'test', 'data', 'init');

async function load(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'fs-resolve-'));
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  try {
    return await loadModuleTree(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('resources use the provider configurations Terraform recorded in state', async () => {
  const res = await loadModuleTree(join(DATA, 'provider-resolution'));
  assert.deepEqual(res.diagnostics.filter((d) => d.severity === 'error'), []);
  const got = Object.fromEntries([...resolveResourceProviders(res.module)].map(([k, v]) => [k, absProviderConfigString(v)]));
  const want = JSON.parse(readFileSync(join(DATA, 'provider-resolution.expected.json'), 'utf8')) as Record<string, string>;
  assert.deepEqual(got, want);
});

// [files, providers tree]
const TREES: [Record<string, string>, string][] = [
  [{ 'main.tf': 'resource "terraform_data" "a" {}\n' }, '.\n└── provider[terraform.io/builtin/terraform]\n'],
  [
    {
      'main.tf':
        'terraform {\n  required_providers {\n    random = {\n      source  = "hashicorp/random"\n      version = "~> 3.0, >= 3.1"\n    }\n  }\n}\n\nresource "null_resource" "n" {}\n\nmodule "m" {\n  source = "./m"\n}\n',
      'm/main.tf': 'resource "random_id" "x" {\n  byte_length = 2\n}\n\ndata "terraform_remote_state" "s" {\n  backend = "local"\n}\n',
    },
    '.\n├── provider[registry.terraform.io/hashicorp/null]\n├── provider[registry.terraform.io/hashicorp/random] ~> 3.0, >= 3.1.0\n└── module.m\n    ├── provider[registry.terraform.io/hashicorp/random]\n    └── provider[terraform.io/builtin/terraform]\n',
  ],
  [
    // Recorded from `terraform providers`: sorted by boundary, then operator.
    { 'main.tf': 'terraform {\n  required_providers {\n    random = {\n      source  = "hashicorp/random"\n      version = "~> 3.0, >= 3.1, != 3.5.0, < 4.0, 3.6.0, ~> 3.6.0, > 2.0, <= 5"\n    }\n  }\n}\n' },
    '.\n└── provider[registry.terraform.io/hashicorp/random] > 2.0.0, ~> 3.0, >= 3.1.0, != 3.5.0, 3.6.0, ~> 3.6.0, < 4.0.0, <= 5.0.0\n',
  ],
  [{ 'main.tf': 'terraform {\n  required_providers {\n    r = {\n      source = "hashicorp/random"\n    }\n  }\n}\n\nresource "random_id" "x" {\n  provider    = r\n  byte_length = 2\n}\n' }, '.\n└── provider[registry.terraform.io/hashicorp/random]\n'],
];
for (const [files, want] of TREES)
  test(`providers tree: ${Object.values(files)[0].split('\n')[0]}`, async () => {
    const res = await load(files);
    assert.equal(formatRequirementsTree(requirementsByModule(res.module)), want);
  });

// [files, selected "fqn@version" or diagnostic summaries]
const SELECTIONS: [string, Record<string, string>, string[]][] = [
  ['builtin and implied registry providers', { 'main.tf': 'resource "terraform_data" "a" {}\nresource "random_id" "b" {\n  byte_length = 2\n}\nresource "null_resource" "c" {}\n' }, [
    'registry.terraform.io/hashicorp/null@3.2.4',
    'registry.terraform.io/hashicorp/random@3.7.2',
    'terraform.io/builtin/terraform@-',
  ]],
  ['a provider Foresight does not have', { 'main.tf': 'resource "aws_instance" "a" {}\n' }, ['Provider not available in Foresight @ main.tf:1']],
  ['an unmet version constraint', { 'main.tf': 'terraform {\n  required_providers {\n    random = {\n      source  = "hashicorp/random"\n      version = "~> 2.0"\n    }\n  }\n}\n' }, ['Failed to query available provider packages @ main.tf:3']],
  ['a version constraint on the built-in provider', { 'main.tf': 'provider "terraform" {\n  version = "1.0"\n}\n' }, ['Invalid dependency on built-in provider @ -']],
];
for (const [name, files, want] of SELECTIONS)
  test(`selection: ${name}`, async () => {
    const res = await load(files);
    const blockVersions = (p: { declRange: { filename: string } }) => (files[p.declRange.filename]?.includes('version = "1.0"') ? '1.0' : undefined);
    const sel = selectProviders(treeRequirements(res.module, blockVersions), foresightProviders(), new Map(), false);
    const got = sel.diagnostics.length
      ? sel.diagnostics.map((d) => `${d.summary} @ ${d.subject ? `${d.subject.filename}:${d.subject.start.line}` : '-'}`)
      : sel.selections.map((s) => `${s.addr.hostname}/${s.addr.namespace}/${s.addr.type}@${s.version ?? '-'}`).sort();
    assert.deepEqual(got, want);
  });

test('the unavailable-provider diagnostic lists what Foresight has', async () => {
  const res = await load({ 'main.tf': 'resource "aws_instance" "a" {}\n' });
  const sel = selectProviders(treeRequirements(res.module), foresightProviders(), new Map(), false);
  const have = foresightProviders()
    .map((p) => (p.addr.hostname === 'registry.terraform.io' ? `${p.addr.namespace}/${p.addr.type}` : `${p.addr.hostname}/${p.addr.namespace}/${p.addr.type}`) + (p.versions.length ? ' ' + p.versions.join(', ') : ''))
    .sort((a, b) => (a.startsWith('terraform.io') ? 1 : 0) - (b.startsWith('terraform.io') ? 1 : 0) || (a < b ? -1 : 1));
  assert.ok(have.includes('hashicorp/random 3.7.2') && have.includes('terraform.io/builtin/terraform'));
  assert.equal(
    sel.diagnostics[0].detail,
    'This configuration requires provider hashicorp/aws, which Foresight does not have. Foresight does not download providers; it can use only the providers built into it:\n' +
      have.map((h) => '  - ' + h).join('\n'),
  );
});

test('availability diagnostics for editors: located at the requirement, none when everything is built in', async () => {
  const bad = await load({ 'main.tf': 'resource "terraform_data" "ok" {}\n\nresource "google_storage_bucket" "b" {}\n' });
  assert.deepEqual(
    providerAvailabilityDiagnostics(bad.module).map((d) => [d.summary, d.subject?.start.line, d.subject?.start.column, d.subject?.end.column]),
    [['Provider not available in Foresight', 3, 10, 33]],
  );
  const good = await load({ 'main.tf': 'resource "terraform_data" "ok" {}\nresource "random_id" "r" {\n  byte_length = 2\n}\n' });
  assert.deepEqual(providerAvailabilityDiagnostics(good.module), []);
});
