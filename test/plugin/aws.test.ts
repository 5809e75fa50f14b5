// The real hashicorp/aws provider (5.100.0, protocol 5, a 700 MB Go binary) from the machine's filesystem mirror, as
// a user would use it (issue 10 §3), compared live with terraform 1.11.4 on copies of the same workspace
// (test/data/aws, see its README): `init` installs from the mirror and writes the same lock file; `validate` reports
// the provider's own validation errors at the attribute; `plan` renders the same plan and `show -json` of a saved
// plan has the same resource_changes. Fake credentials and skip_* flags: nothing touches the network.
// Skips with a printed notice where terraform or the mirror is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../../server/cli/main';

const DATA = resolve(process.cwd(), 'test/data/aws');

function findMirror(): string | undefined {
  const candidates = [process.env.FORESIGHT_AWS_MIRROR, '/opt/tf-plugins'].filter((x): x is string => !!x);
  for (const c of candidates) {
    const d = join(c, 'registry.terraform.io/hashicorp/aws');
    if (existsSync(d) && readdirSync(d).length) return c;
  }
  return undefined;
}

const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
const mirror = findMirror();
const skipReason = !hasTerraform ? 'terraform is not on PATH' : !mirror ? 'no filesystem mirror with hashicorp/aws (set FORESIGHT_AWS_MIRROR)' : undefined;

const root = mkdtempSync(join(tmpdir(), 'fs-aws-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const rc = join(root, 'cli.tfrc');
writeFileSync(rc, `provider_installation {\n  filesystem_mirror {\n    path = "${mirror}"\n  }\n}\n`);
const env: Record<string, string> = { TF_CLI_CONFIG_FILE: rc, HOME: root, FORESIGHT_SCHEMA_CACHE_DIR: join(root, 'schemas') };

async function foresight(dir: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdin: async () => '', stdout: (x) => (stdout += x), stderr: (x) => (stderr += x), cwd: dir, env: { ...process.env, ...env } });
  return { code, stdout, stderr };
}

function terraform(dir: string, argv: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('terraform', argv, { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, maxBuffer: 1 << 28 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function copies(name: string): { tf: string; fs: string } {
  const tf = join(root, `${name}-tf`);
  const fs = join(root, `${name}-fs`);
  cpSync(join(DATA, name), tf, { recursive: true });
  cpSync(join(DATA, name), fs, { recursive: true });
  return { tf, fs };
}

function skipped(t: { skip: (m: string) => void }): boolean {
  if (!skipReason) return false;
  t.skip(skipReason);
  console.log(`# SKIP aws provider tests: ${skipReason}`);
  return true;
}

let valid: { tf: string; fs: string } | undefined;

test('aws: init installs from the mirror and writes the lock file terraform writes', async (t) => {
  if (skipped(t)) return;
  valid = copies('valid');
  const want = terraform(valid.tf, ['init', '-no-color']);
  const got = await foresight(valid.fs, ['init', '-no-color']);
  assert.equal(got.stdout + got.stderr, want.stdout + want.stderr);
  assert.equal(got.code, want.code);
  assert.equal(readFileSync(join(valid.fs, '.terraform.lock.hcl'), 'utf8'), readFileSync(join(valid.tf, '.terraform.lock.hcl'), 'utf8'));
  assert.match(readFileSync(join(valid.fs, '.terraform.lock.hcl'), 'utf8'), /version     = "5\.100\.0"\n  constraints = "~> 5\.0"\n  hashes = \[\n    "h1:/);
});

test('aws: plan renders the same plan as terraform (nested blocks, JSON policies, tags, computed attributes)', async (t) => {
  if (skipped(t)) return;
  assert.ok(valid, 'init ran');
  const want = terraform(valid.tf, ['plan', '-no-color']);
  const got = await foresight(valid.fs, ['plan', '-no-color']);
  assert.equal(got.code, want.code, got.stderr);
  assert.equal(got.stdout, want.stdout);
  assert.equal(got.stderr, want.stderr);
  assert.match(got.stdout, /Plan: 9 to add, 0 to change, 0 to destroy\./);
});

test('aws: show -json of a saved plan has the same resource_changes', async (t) => {
  if (skipped(t)) return;
  assert.ok(valid, 'init ran');
  assert.equal(terraform(valid.tf, ['plan', '-no-color', '-out=p.tfplan']).code, 0);
  const r = await foresight(valid.fs, ['plan', '-no-color', '-out=p.tfplan']);
  assert.equal(r.code, 0, r.stderr);
  const want = JSON.parse(terraform(valid.tf, ['show', '-json', 'p.tfplan']).stdout);
  const got = JSON.parse((await foresight(valid.fs, ['show', '-json', 'p.tfplan'])).stdout);
  assert.deepEqual(got.resource_changes, want.resource_changes);
  assert.equal(got.resource_changes.length, 9);
});

test("aws: validate reports the provider's own validation errors at the attribute", async (t) => {
  if (skipped(t)) return;
  const inv = copies('invalid');
  assert.equal(terraform(inv.tf, ['init', '-no-color']).code, 0);
  assert.equal((await foresight(inv.fs, ['init', '-no-color'])).code, 0);
  const want = JSON.parse(terraform(inv.tf, ['validate', '-json']).stdout);
  const got = JSON.parse((await foresight(inv.fs, ['validate', '-json'])).stdout);
  // Terraform's walk is concurrent: its diagnostics come in either order. `address` ("with aws_sqs_queue.bad") is
  // compared too.
  const norm = (ds: { range?: { start: { byte: number } }; address?: string }[]) => [...ds].sort((a, b) => (a.range?.start.byte ?? 0) - (b.range?.start.byte ?? 0));
  assert.deepEqual(norm(got.diagnostics), norm(want.diagnostics));
  assert.equal(got.error_count, 2);
  assert.deepEqual(
    got.diagnostics.map((d: { range: { start: { line: number; column: number } } }) => `main.tf:${d.range.start.line}:${d.range.start.column}`).sort(),
    ['main.tf:21:23', 'main.tf:26:32'],
  );
});
