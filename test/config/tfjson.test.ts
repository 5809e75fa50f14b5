// Terraform's JSON configuration syntax (`*.tf.json`, server/config/json.ts), against what Terraform 1.11.4 printed
// (test/data/tfjson, see its README):
//   - errors/: mistaken .tf.json files give terraform's diagnostics, human and -json, byte for byte;
//   - equivalent/: one module written as .tf (hcl/), as .tf.json (json/), and as both (mixed/) validates and plans as
//     terraform does, and the saved plan's JSON is the same for all three apart from the constant values terraform's
//     plan JSON gives .tf.json expressions (their JSON read without a context), which equal terraform's;
//   - nested/: nested blocks and dynamic blocks of a provider's schema (tls_cert_request's subject) in JSON;
//   - tfvars/: values from terraform.tfvars.json with their own ranges, and a variables file with a syntax error
//     (JSON or native) ending the command before any plan.
// Where terraform is on PATH the same cases are run live against it too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { harness, hasTerraform, terraform } from '../plugin/_served';

const DATA = join(__dirname, '..', '..', '..', 'test', 'data', 'tfjson');
const ERRORS = readdirSync(join(DATA, 'errors')).sort();

/** A private copy of the CLI bundle and its wasm files: other work in the tree may rebuild dist/ meanwhile. */
const CLI_DIR = mkdtempSync(join(tmpdir(), 'fs-tfjson-cli-'));
for (const f of ['cli.js', 'web-tree-sitter.wasm', 'tree-sitter-terraform.wasm']) copyFileSync(resolve('dist', f), join(CLI_DIR, f));
process.on('exit', () => rmSync(CLI_DIR, { recursive: true, force: true }));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function foresight(dir: string, args: string[]): Run {
  const r = spawnSync(process.execPath, [join(CLI_DIR, 'cli.js'), ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, TF_CLI_CONFIG_FILE: '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function copyCase(...parts: string[]): { dir: string; dispose(): void } {
  const root = mkdtempSync(join(tmpdir(), 'fs-tfjson-'));
  const dir = join(root, parts[parts.length - 1]);
  cpSync(join(DATA, ...parts), dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.includes('.expected.')) rmSync(join(dir, f));
  return { dir, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

const read = (...p: string[]) => readFileSync(join(DATA, ...p), 'utf8');

for (const name of ERRORS) {
  test(`errors/${name}: validate prints terraform's diagnostics (human and -json)`, () => {
    const c = copyCase('errors', name);
    try {
      const h = foresight(c.dir, ['validate', '-no-color']);
      assert.equal(h.stdout + h.stderr, read('errors', name, 'validate.expected.txt'));
      assert.equal(h.status, 1);
      const j = foresight(c.dir, ['validate', '-json']);
      assert.equal(j.stdout, read('errors', name, 'validate.expected.json'));
      assert.equal(j.status, 1);
    } finally {
      c.dispose();
    }
  });
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * The expressions of a plan JSON's configuration that carry both a constant value and references (only .tf.json
 * expressions do), by path (list elements named by their address); with `strip`, those constant values are removed.
 */
function jsonConstants(o: Json, strip: boolean, path = '', out: Record<string, Json> = {}): Record<string, Json> {
  if (Array.isArray(o)) o.forEach((v, i) => jsonConstants(v, strip, `${path}[${v && typeof v === 'object' && !Array.isArray(v) && typeof v.address === 'string' ? v.address : i}]`, out));
  else if (o && typeof o === 'object') {
    if ('constant_value' in o && 'references' in o) {
      out[path] = o.constant_value;
      if (strip) delete o.constant_value;
    }
    for (const [k, v] of Object.entries(o)) jsonConstants(v, strip, `${path}/${k}`, out);
  }
  return out;
}

function savedPlanJson(dir: string): { [k: string]: Json } {
  const p = foresight(dir, ['plan', '-no-color', '-out=tfplan']);
  assert.equal(p.status, 0, p.stdout + p.stderr);
  const s = foresight(dir, ['show', '-json', 'tfplan']);
  assert.equal(s.status, 0, s.stderr);
  const d = JSON.parse(s.stdout) as { [k: string]: Json };
  delete d.timestamp;
  return d;
}

test('equivalent: the same module as .tf, .tf.json and both validates and plans as terraform does, with the same plan JSON', () => {
  const plans: Record<string, { [k: string]: Json }> = {};
  for (const v of ['hcl', 'json', 'mixed']) {
    const c = copyCase('equivalent', v);
    try {
      const i = foresight(c.dir, ['init', '-no-color']);
      assert.equal(i.status, 0, i.stdout + i.stderr);
      const val = foresight(c.dir, ['validate', '-json']);
      assert.equal(val.stdout, read('equivalent', 'validate.expected.json'), `${v}: validate -json`);
      const p = foresight(c.dir, ['plan', '-no-color']);
      assert.equal(p.stdout + p.stderr, read('equivalent', 'plan.expected.txt'), `${v}: plan`);
      plans[v] = savedPlanJson(c.dir);
    } finally {
      c.dispose();
    }
  }
  assert.deepEqual(jsonConstants(plans.hcl.configuration, false), {});
  const expected = JSON.parse(read('equivalent', 'constant-values.expected.json')) as Record<string, Json>;
  for (const v of ['json', 'mixed']) {
    assert.deepEqual(jsonConstants(plans[v].configuration, true), expected, `${v}: constant values of .tf.json expressions`);
    assert.deepEqual(plans[v], plans.hcl, `${v}: plan JSON`);
  }
});

test('nested: nested and dynamic blocks of a provider schema written in JSON plan as in .tf', () => {
  const out: Record<string, string> = {};
  for (const v of ['hcl', 'json']) {
    const c = copyCase('nested', v);
    try {
      const i = foresight(c.dir, ['init', '-no-color']);
      assert.equal(i.status, 0, i.stdout + i.stderr);
      const val = foresight(c.dir, ['validate', '-no-color']);
      assert.equal(val.stdout, 'Success! The configuration is valid.\n\n');
      const p = foresight(c.dir, ['plan', '-no-color']);
      assert.equal(p.status, 0, p.stderr);
      out[v] = p.stdout;
    } finally {
      c.dispose();
    }
  }
  assert.equal(out.json, read('nested', 'plan.expected.txt'));
  assert.equal(out.hcl, out.json);
});

test('override.tf.json merges into a .tf resource as override.tf does', () => {
  const c = copyCase('equivalent', 'hcl');
  try {
    const i = foresight(c.dir, ['init', '-no-color']);
    assert.equal(i.status, 0, i.stdout + i.stderr);
    const o = join(c.dir, 'override.tf.json');
    writeFileSync(o, JSON.stringify({ resource: { terraform_data: { renamed: { input: 7 } } } }));
    const p = foresight(c.dir, ['plan', '-no-color']);
    assert.equal(p.status, 0, p.stderr);
    assert.match(p.stdout, /# terraform_data\.renamed will be created\n {2}\+ resource "terraform_data" "renamed" \{\n(?:.*\n)*? {6}\+ input {2}= 7\n/);
  } finally {
    c.dispose();
  }
});

function stateProviders(dir: string): unknown {
  const s = JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')) as { resources: { module?: string; name: string; provider: string }[] };
  const rows = s.resources.map((r) => ({ module: r.module ?? '', name: r.name, provider: r.provider }));
  return rows.sort((a, b) => (a.module + '\u0000' + a.name < b.module + '\u0000' + b.name ? -1 : 1));
}

test('providers: provider blocks as an array, `providers` maps and configuration_aliases in JSON reach the configurations terraform uses', () => {
  const c = copyCase('providers');
  try {
    const i = foresight(c.dir, ['init', '-no-color']);
    assert.equal(i.status, 0, i.stdout + i.stderr);
    const v = foresight(c.dir, ['validate', '-no-color']);
    assert.equal(v.stdout + v.stderr, read('providers', 'validate.expected.txt'));
    const a = foresight(c.dir, ['apply', '-auto-approve', '-no-color']);
    assert.equal(a.status, 0, a.stdout + a.stderr);
    assert.deepEqual(stateProviders(c.dir), JSON.parse(read('providers', 'state-providers.expected.json')));
  } finally {
    c.dispose();
  }
});

const TFVARS = ['type-error', 'syntax-error', 'native-syntax-error'];
for (const name of TFVARS) {
  test(`tfvars/${name}: plan reports a variables file as terraform does (value ranges, JSON syntax errors, no plan)`, () => {
    const c = copyCase('tfvars', name);
    try {
      const p = foresight(c.dir, ['plan', '-no-color']);
      assert.equal(p.stdout + p.stderr, read('tfvars', name, 'plan.expected.txt'));
      assert.equal(p.status, 1);
    } finally {
      c.dispose();
    }
  });
}

test('live: terraform prints the recorded diagnostics and plans', { skip: !hasTerraform && 'terraform not installed', timeout: 900_000 }, () => {
  if (!hasTerraform) return void console.log('# SKIP: terraform is not on PATH; .tf.json cases not compared live');
  const h = harness({ providers: ['tls', 'random'] });
  try {
    for (const name of ERRORS) {
      const c = copyCase('errors', name);
      try {
        const hv = terraform(h, c.dir, ['validate', '-no-color']);
        assert.equal((hv.stdout + hv.stderr).replace(/^\n+/, '\n'), read('errors', name, 'validate.expected.txt'), `errors/${name}`);
      } finally {
        c.dispose();
      }
    }
    for (const v of ['hcl', 'json', 'mixed']) {
      const c = copyCase('equivalent', v);
      try {
        assert.equal(terraform(h, c.dir, ['get', '-no-color']).status, 0);
        const tp = terraform(h, c.dir, ['plan', '-no-color']);
        assert.equal((tp.stdout + tp.stderr).replace(/^\n+/, '\n'), read('equivalent', 'plan.expected.txt'), `equivalent/${v}`);
      } finally {
        c.dispose();
      }
    }
    {
      const c = copyCase('providers');
      try {
        assert.equal(terraform(h, c.dir, ['get', '-no-color']).status, 0);
        const tv = terraform(h, c.dir, ['validate', '-no-color']);
        assert.equal(tv.stdout + tv.stderr, read('providers', 'validate.expected.txt'), 'providers: validate');
        const ta = terraform(h, c.dir, ['apply', '-auto-approve', '-no-color']);
        assert.equal(ta.status, 0, ta.stdout + ta.stderr);
        assert.deepEqual(stateProviders(c.dir), JSON.parse(read('providers', 'state-providers.expected.json')), 'providers: state');
      } finally {
        c.dispose();
      }
    }
    for (const name of TFVARS) {
      const c = copyCase('tfvars', name);
      try {
        const tp = terraform(h, c.dir, ['plan', '-no-color']);
        assert.equal((tp.stdout + tp.stderr).replace(/^\n+/, '\n'), read('tfvars', name, 'plan.expected.txt'), `tfvars/${name}`);
      } finally {
        c.dispose();
      }
    }
    for (const v of ['hcl', 'json']) {
      const c = copyCase('nested', v);
      try {
        const tp = terraform(h, c.dir, ['plan', '-no-color']);
        assert.equal(tp.stdout, read('nested', 'plan.expected.txt'), `nested/${v}`);
      } finally {
        c.dispose();
      }
    }
  } finally {
    h.dispose();
  }
});
