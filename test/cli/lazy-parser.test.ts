// The command line loads tree-sitter only when a file needs it (syntax/treesitter.ts): files without syntax errors
// are read by the fast lane (configuration, lock file, .tfvars, CLI configuration), so a clean workspace never
// compiles the WebAssembly (which costs a run about 35 ms and holds its exit back by 100-200 ms more). A file with a
// syntax error still gets tree-sitter's recovery and the same diagnostics. A preload counts WebAssembly
// compilations and prints the count on stderr at exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = mkdtempSync(join(tmpdir(), 'foresight-lazy-parser-'));
const CLI = resolve(process.cwd(), 'dist/cli.js');
const PRELOAD = join(ROOT, 'count-wasm.cjs');
writeFileSync(
  PRELOAD,
  `'use strict';
let n = 0;
for (const k of ['compile', 'instantiate', 'compileStreaming', 'instantiateStreaming']) {
  const f = WebAssembly[k];
  if (typeof f === 'function') WebAssembly[k] = function (...a) { n++; return f.apply(this, a); };
}
process.on('exit', () => process.stderr.write('\\n@@WASM ' + n + '\\n'));
`,
);

const LOCK = `# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/time" {
  version = "0.12.1"
  hashes = [
    "h1:JzYsPugN8Fb7C4NlfLoFu7BBPuRVT4/fCT1+LS0Rt2E=",
  ]
}
`;

function workspace(name: string, files: Record<string, string>): string {
  const dir = join(ROOT, name);
  mkdirSync(dir);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  return dir;
}

function run(dir: string, args: string[]): { status: number | null; out: string; wasm: number } {
  const r = spawnSync(process.execPath, ['-r', PRELOAD, CLI, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' } });
  const m = /\n@@WASM (\d+)\n/.exec(r.stderr);
  assert.ok(m, `no count from the preload: ${r.stderr}`);
  return { status: r.status, out: r.stdout + r.stderr.replace(m[0], ''), wasm: Number(m[1]) };
}

const MAIN = 'variable "n" {\n  type = number\n}\n\nresource "terraform_data" "a" {\n  count = var.n\n  input = "x"\n}\n';

test('a clean workspace is validated and planned without compiling tree-sitter', () => {
  const dir = workspace('clean', { 'main.tf': MAIN, 'terraform.tfvars': 'n = 2\n', '.terraform.lock.hcl': LOCK });
  const v = run(dir, ['validate', '-no-color']);
  assert.equal(v.status, 0, v.out);
  assert.match(v.out, /Success! The configuration is valid\./);
  assert.equal(v.wasm, 0);
  const p = run(dir, ['plan', '-input=false', '-no-color']);
  assert.equal(p.status, 0, p.out);
  assert.match(p.out, /Plan: 2 to add, 0 to change, 0 to destroy\./);
  assert.equal(p.wasm, 0);
});

test('a syntax error loads tree-sitter and is reported with its position', () => {
  const dir = workspace('broken', { 'main.tf': MAIN, 'extra.tf': 'resource "terraform_data" "b" {\n  input = \n}\n' });
  const v = run(dir, ['validate', '-no-color']);
  assert.equal(v.status, 1, v.out);
  assert.match(v.out, /Error: Invalid expression\n\n  on extra\.tf line 2, in resource "terraform_data" "b":/);
  assert.ok(v.wasm > 0, 'tree-sitter was not loaded for a file with a syntax error');
});

test('a .tfvars file and a lock file with syntax errors are read through tree-sitter', () => {
  const vars = workspace('broken-tfvars', { 'main.tf': MAIN, 'terraform.tfvars': 'n = \n' });
  const p = run(vars, ['plan', '-input=false', '-no-color']);
  assert.equal(p.status, 1, p.out);
  assert.equal(
    p.out,
    '\nError: Invalid expression\n\n  on terraform.tfvars line 1:\n   1: n = \n\nExpected the start of an expression, but found an invalid expression token.\n',
  );
  assert.ok(p.wasm > 0);
  const lock = workspace('broken-lock', { 'main.tf': MAIN, '.terraform.lock.hcl': 'provider "x" {\n' });
  const i = run(lock, ['init', '-input=false', '-no-color']);
  assert.equal(i.status, 1, i.out);
  assert.match(i.out, /Error: failed to read dependency lock file: Unclosed configuration block: There is no closing brace for this block before the end of the file\./);
  assert.ok(i.wasm > 0);
});
