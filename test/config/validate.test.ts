// foresight validate against terraform validate: recorded expectations (test/data/config/validate-*.json,
// produced by Terraform 1.11.4), the shared conformance recordings, and a live comparison when
// `terraform` is installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runValidate } from '../../server/cli/validate';

const cases: Record<string, string> = JSON.parse(readFileSync('test/data/config/validate-cases.json', 'utf8'));
const expected: Record<string, { exit_code: number; stdout: string }> = JSON.parse(
  readFileSync('test/data/config/validate-expected.json', 'utf8'),
);

/** Terraform reports the members of a cycle in an unspecified order: compare them as sets. */
function normaliseCycle(s: string): string {
  return s.replace(/"Cycle: ([^"]*)"/g, (_m, list: string) => `"Cycle: ${list.split(', ').sort().join(', ')}"`);
}

async function run(files: Record<string, string>, args: string[]): Promise<{ code: number; stdout: string; stderr: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'fs-validate-'));
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  let stdout = '';
  let stderr = '';
  const code = await runValidate(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), cwd: dir });
  return { code, stdout, stderr, dir };
}

async function check(name: string, files: Record<string, string>, args: string[], want: { exit_code: number; stdout?: string; stderr?: string }) {
  const got = await run(files, args);
  assert.equal(got.code, want.exit_code, `${name}: exit code`);
  if (want.stdout !== undefined) assert.equal(normaliseCycle(got.stdout), normaliseCycle(want.stdout), `${name}: stdout`);
  if (want.stderr !== undefined) assert.equal(got.stderr, want.stderr, `${name}: stderr`);
}

for (const [name, src] of Object.entries(cases)) {
  test(`validate -json matches Terraform: ${name}`, async () => {
    await check(name, { 'main.tf': src }, ['-json'], expected[name]);
  });
}

for (const scenario of ['validate-json', 'config-errors']) {
  const rec = JSON.parse(readFileSync(`test/data/config/${scenario}.json`, 'utf8'));
  test(`conformance recording: ${scenario}`, async () => {
    const files: Record<string, string> = { ...rec.files };
    for (const step of rec.steps) {
      if (step.write) files[step.write.path] = step.write.content;
      else if (step.delete) delete files[step.delete];
      // Coloured steps exercise diags/render.ts's box layout, which is tested with the renderer.
      else if (step.run && step.run[0] === 'validate' && (step.run.includes('-json') || step.run.includes('-no-color'))) {
        await check(`${scenario} ${step.run.join(' ')}`, files, step.run.slice(1), {
          exit_code: step.result.exit_code,
          stdout: step.result.stdout,
          stderr: step.result.stderr,
        });
      }
    }
  });
}

test('a missing module directory is reported as Terraform does', async () => {
  await check('missing', {}, ['-json', 'nosuch'], {
    exit_code: 1,
    stdout:
      '{\n  "format_version": "1.0",\n  "valid": false,\n  "error_count": 1,\n  "warning_count": 0,\n  "diagnostics": [\n    {\n      "severity": "error",\n      "summary": "Failed to read module directory",\n      "detail": "Module directory nosuch does not exist or cannot be read."\n    }\n  ]\n}\n',
  });
});

test('the examples workspace validates clean', async () => {
  let out = '';
  const code = await runValidate(['-no-color'], { stdout: (s) => (out += s), stderr: (s) => (out += s), cwd: 'examples' });
  assert.equal(out, 'Success! The configuration is valid.\n\n');
  assert.equal(code, 0);
});

const hasTerraform = spawnSync('terraform', ['version'], { stdio: 'ignore' }).status === 0;
test('live comparison with terraform validate -json', { skip: !hasTerraform && 'terraform is not installed' }, async () => {
  const tfrc = join(mkdtempSync(join(tmpdir(), 'fs-tfrc-')), 'empty.tfrc');
  writeFileSync(tfrc, '');
  const live: Record<string, string> = {
    'unknown-var': 'output "x" {\n  value = var.missing\n}\n',
    'count-index': 'resource "terraform_data" "a" {\n  input = count.index\n}\n',
    'dup-var': 'variable "a" {}\nvariable "a" {}\n',
    'bad-type': 'variable "a" {\n  type = lisst(string)\n}\n',
    'labels': 'data "a" {\n}\n',
  };
  for (const [name, src] of Object.entries(live)) {
    const got = await run({ 'main.tf': src }, ['-json']);
    let theirs = '';
    try {
      theirs = execFileSync('terraform', ['validate', '-json'], {
        cwd: got.dir,
        env: { ...process.env, TF_CLI_CONFIG_FILE: tfrc, CHECKPOINT_DISABLE: '1' },
      }).toString();
    } catch (e) {
      theirs = String((e as { stdout: Buffer }).stdout);
    }
    assert.equal(got.stdout, theirs, name);
  }
});
if (!hasTerraform) console.log('# terraform not found: live comparison skipped');
