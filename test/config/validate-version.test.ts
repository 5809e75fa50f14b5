// terraform validate checks required_version (Context.Validate) after loading and before the reference
// checks, and stops there when the constraint is not met (recorded: scenario init-and-version step 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runValidate } from '../../server/cli/validate';

async function validate(main: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'fs-validate-version-'));
  writeFileSync(join(dir, 'main.tf'), main);
  let stdout = '';
  let stderr = '';
  const code = await runValidate(['-no-color'], { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), cwd: dir });
  return { code, stdout, stderr };
}

const unsupported = `
Error: Unsupported Terraform Core version

  on main.tf line 2, in terraform:
   2:   required_version = "< 1.0.0"

This configuration does not support Terraform version 1.11.4. To proceed,
either choose another supported Terraform version or update this version
constraint. Version constraints are normally set for good reason, so updating
the constraint may lead to other errors or unexpected behavior.
`;

test('validate reports an unmet required_version', async () => {
  const got = await validate('terraform {\n  required_version = "< 1.0.0"\n}\n');
  assert.deepEqual(got, { code: 1, stdout: '', stderr: unsupported });
});

test('an unmet required_version stops validate before the reference checks', async () => {
  const got = await validate('terraform {\n  required_version = "< 1.0.0"\n}\n\noutput "x" {\n  value = var.nope\n}\n');
  assert.deepEqual(got, { code: 1, stdout: '', stderr: unsupported });
});

test('a met required_version validates clean', async () => {
  const got = await validate('terraform {\n  required_version = ">= 1.0.0"\n}\n');
  assert.deepEqual(got, { code: 0, stdout: 'Success! The configuration is valid.\n\n', stderr: '' });
});
