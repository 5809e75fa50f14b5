// Three CLI differences from Terraform 1.11.4 first found by the plugin differential tests (test/plugin/
// differential*.test.ts), checked here with the built-in terraform provider only (terraform_data,
// terraform_remote_state), so they need no plugin: the expected outputs are Terraform's, recorded; where `terraform`
// is on PATH the same workspace is also run through it live and must print the same (skipped with a printed notice
// otherwise).
//   1. A plan that is not applyable (no changes) prints no "-out" note, and with -out no "Saved the plan to"
//      (backend_plan.go calls PlanNextStep only when !PlanEmpty); the plan file is still written.
//   2. An import whose plan replaces the object is marked "# Warning: this will destroy the imported resource".
//   3. A provider's validation diagnostic carries the resource's address: "  with ADDR," (and JSON "address").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** A private copy of dist/cli.js: other work in the same tree may rebuild dist/ while these tests run. */
const CLI = (() => {
  const to = join(mkdtempSync(join(tmpdir(), 'foresight-cli-')), 'cli.js');
  for (let i = 0; i < 5; i++) {
    copyFileSync(resolve(process.cwd(), 'dist/cli.js'), to);
    for (const w of ['web-tree-sitter.wasm', 'tree-sitter-terraform.wasm']) copyFileSync(resolve(process.cwd(), 'dist', w), join(to, '..', w));
    if (spawnSync(process.execPath, [to, 'version'], { encoding: 'utf8' }).status === 0) break;
    spawnSync('sleep', ['2']);
  }
  return to;
})();
const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function env(root: string): NodeJS.ProcessEnv {
  const rc = join(root, 'empty.tfrc');
  if (!existsSync(rc)) writeFileSync(rc, '');
  return { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '', TF_LOG: '' };
}

function run(cmd: 'foresight' | 'terraform', dir: string, args: string[]): Run {
  const r =
    cmd === 'foresight'
      ? spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env: env(join(dir, '..')), encoding: 'utf8' })
      : spawnSync('terraform', args, { cwd: dir, env: env(join(dir, '..')), encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function workspace(root: string, name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
  return dir;
}

const maskIds = (s: string) => s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID');

/** Runs `args` in a fresh workspace per command line (foresight, and terraform when installed) after `setup`. */
function both(name: string, files: Record<string, string>, setup: string[][], args: string[]): { f: Run; t?: Run; dir: string; tdir?: string } {
  const root = mkdtempSync(join(tmpdir(), `foresight-compat-${name}-`));
  const go = (cmd: 'foresight' | 'terraform') => {
    const dir = workspace(root, cmd, files);
    for (const s of setup) {
      const r = run(cmd, dir, s);
      assert.equal(r.status, 0, `${cmd} ${s.join(' ')}: ${r.stdout}${r.stderr}`);
    }
    return { r: run(cmd, dir, args), dir };
  };
  const f = go('foresight');
  if (!hasTerraform) {
    console.log(`# SKIP live comparison (${name}): terraform is not on PATH; compared with the recorded output only`);
    return { f: f.r, dir: f.dir };
  }
  const t = go('terraform');
  return { f: f.r, t: t.r, dir: f.dir, tdir: t.dir };
}

const NO_CHANGES = `terraform_data.a: Refreshing state... [id=UUID]

No changes. Your infrastructure matches the configuration.

Terraform has compared your real infrastructure against your configuration
and found no differences, so no changes are needed.
`;

const DATA_CONFIG = 'resource "terraform_data" "a" {\n  input = "x"\n}\n';

test('no-op plan: no "-out" note (terraform prints none for a plan that is not applyable)', () => {
  const { f, t } = both('noop', { 'main.tf': DATA_CONFIG }, [['apply', '-auto-approve', '-no-color']], ['plan', '-no-color']);
  assert.equal(f.status, 0, f.stderr);
  assert.equal(f.stderr, '');
  assert.equal(maskIds(f.stdout), NO_CHANGES);
  if (t) {
    assert.equal(t.status, 0, t.stderr);
    assert.equal(maskIds(t.stdout), maskIds(f.stdout));
    assert.equal(t.stderr, f.stderr);
  }
});

test('no-op plan with -out: the plan file is written, "Saved the plan to" is not printed', () => {
  const { f, t, dir, tdir } = both('noop-out', { 'main.tf': DATA_CONFIG }, [['apply', '-auto-approve', '-no-color']], ['plan', '-no-color', '-out=p.tfplan']);
  assert.equal(f.status, 0, f.stderr);
  assert.equal(maskIds(f.stdout), NO_CHANGES);
  assert.equal(existsSync(join(dir, 'p.tfplan')), true);
  if (t) {
    assert.equal(maskIds(t.stdout), maskIds(f.stdout));
    assert.equal(existsSync(join(tdir!, 'p.tfplan')), true);
  }
  rmSync(join(dir, '..'), { recursive: true, force: true });
});

test('a plan with changes still ends with the "-out" note', () => {
  const { f, t } = both('changes', { 'main.tf': DATA_CONFIG }, [], ['plan', '-no-color']);
  assert.equal(f.status, 0, f.stderr);
  assert.match(f.stdout, /\n\nNote: You didn't use the -out option to save this plan, so Terraform can't\nguarantee to take exactly these actions if you run "terraform apply" now\.\n$/);
  if (t) assert.equal(t.stdout, f.stdout);
});

const IMPORT_REPLACE = `terraform_data.a: Preparing import... [id=abc]
terraform_data.a: Refreshing state... [id=abc]

Terraform used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
-/+ destroy and then create replacement

Terraform will perform the following actions:

  # terraform_data.a must be replaced
  # (imported from "abc")
  # Warning: this will destroy the imported resource
-/+ resource "terraform_data" "a" {
      ~ id               = "abc" -> (known after apply)
      + triggers_replace = "y"
    }

Plan: 1 to import, 1 to add, 0 to change, 1 to destroy.

─────────────────────────────────────────────────────────────────────────────

Note: You didn't use the -out option to save this plan, so Terraform can't
guarantee to take exactly these actions if you run "terraform apply" now.
`;

test('import that forces replacement: "# Warning: this will destroy the imported resource"', () => {
  const files = { 'main.tf': 'import {\n  to = terraform_data.a\n  id = "abc"\n}\nresource "terraform_data" "a" {\n  triggers_replace = "y"\n}\n' };
  const { f, t } = both('import-replace', files, [], ['plan', '-no-color']);
  assert.equal(f.status, 0, f.stderr);
  assert.equal(f.stdout, IMPORT_REPLACE);
  if (t) assert.equal(t.stdout, f.stdout);
  // Coloured: yellow, as Terraform's renderer writes it.
  const c = both('import-replace-color', files, [], ['plan']);
  assert.match(c.f.stdout, /\x1b\[0m\x1b\[33mWarning: this will destroy the imported resource\x1b\[0m\n/);
  if (c.t) assert.equal(c.t.stdout, c.f.stdout);
});

const VALIDATE_ERROR = `
Error: Invalid backend configuration

  with module.m.data.terraform_remote_state.bad,
  on m/main.tf line 2, in data "terraform_remote_state" "bad":
   2:   backend = "nope"

There is no backend type named "nope".
`;

test('validate: a provider validation diagnostic names the resource ("  with ADDR,", JSON "address")', () => {
  const files = { 'main.tf': 'module "m" {\n  source = "./m"\n}\n', 'm/main.tf': 'data "terraform_remote_state" "bad" {\n  backend = "nope"\n}\n' };
  const { f, t } = both('validate-with', files, [['init', '-no-color']], ['validate', '-no-color']);
  assert.equal(f.status, 1);
  assert.equal(f.stdout, '');
  assert.equal(f.stderr, VALIDATE_ERROR);
  if (t) {
    assert.equal(t.status, 1);
    assert.equal(t.stderr, f.stderr);
  }
  const j = both('validate-with-json', files, [['init', '-no-color']], ['validate', '-json']);
  const diags = JSON.parse(j.f.stdout).diagnostics as { address?: string }[];
  assert.deepEqual(
    diags.map((d) => d.address),
    ['module.m.data.terraform_remote_state.bad'],
  );
  if (j.t) assert.equal(j.t.stdout, j.f.stdout);
  // plan validates first and reports the same diagnostic.
  const p = both('plan-with', files, [['init', '-no-color']], ['plan', '-no-color']);
  assert.equal(p.f.status, 1);
  assert.match(p.f.stderr, /\n {2}with module\.m\.data\.terraform_remote_state\.bad,\n {2}on m\/main\.tf line 2/);
  if (p.t) assert.equal(p.t.stderr, p.f.stderr);
});
