// Static checks whose ranges and ordering follow Terraform's: a module call's missing argument is reported at
// the call body's opening brace (HCL's MissingItemRange, so the snippet gets the `in module "x"` context, also in
// child modules: scenario nested-modules step 9), and a for_each set with unknown elements is treated as wholly
// unknown before its element type is looked at (scenario unknown-values step 4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateDirectory } from '../../server/config/validate';
import { forEachValue } from '../../server/config/evaluate';
import { Value } from '../../server/lang/value';
import * as T from '../../server/lang/types';

function write(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fs-module-call-checks-'));
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

test('a missing module argument in a child module is reported at the call body with its block context', async () => {
  const dir = write({
    'main.tf': 'module "app" {\n  source = "./modules/app"\n}\n',
    'modules/app/main.tf': '\n\n\n\n\n\n\n\nmodule "db" {\n  source = "../db"\n}\n',
    'modules/db/main.tf': 'variable "size" {\n  type = number\n}\n',
  });
  const res = await validateDirectory(dir);
  assert.equal(res.diagnostics.length, 1);
  const d = res.diagnostics[0];
  assert.equal(d.summary, 'Missing required argument');
  assert.equal(d.detail, 'The argument "size" is required, but no definition was found.');
  assert.equal(d.subject!.filename, 'modules/app/main.tf');
  assert.deepEqual([d.subject!.start.line, d.subject!.start.column, d.subject!.end.column], [9, 13, 13]);
  assert.equal(res.contextOf(d.subject!), 'module "db"');
});

test('for_each = toset([unknown]) passes validate and fails as an unknown set at plan', async () => {
  const dir = write({
    'main.tf': 'resource "terraform_data" "seed" {\n}\nresource "terraform_data" "fan" {\n  for_each = toset([terraform_data.seed.id])\n}\n',
  });
  const res = await validateDirectory(dir);
  assert.deepEqual(res.diagnostics, []);
  const set = Value.set([Value.unknown(T.Dynamic)], T.Dynamic);
  const range = { filename: 'main.tf', start: { line: 4, column: 14, byte: 0 }, end: { line: 4, column: 20, byte: 6 } };
  assert.deepEqual(forEachValue(set, range, { allowUnknown: true }).diagnostics, []);
  const planned = forEachValue(set, range).diagnostics;
  assert.equal(planned.length, 1);
  assert.equal(planned[0].summary, 'Invalid for_each argument');
  assert.match(planned[0].detail!, /^The "for_each" set includes values derived from resource attributes that cannot be determined until apply/);
});
