// Provider-schema errors of resource bodies belong to Terraform's validate walk, together with the count/for_each
// and reference errors: when those stop a plan before the engine runs, the CLI still reports the schema errors,
// sorted by position as tfdiags sorts them (scenario config-errors step 13).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../server/cli/plan';
import { resourceSchemaDiagnostics } from '../../server/engine';
import { startBuiltinProvider } from '../../server/providers/builtin';
import { load, writeConfig } from './harness';

const main = 'resource "terraform_data" "b" {\n  nonsense {\n  }\n  count = "two"\n  bogus = 1\n}\n';

test('resourceSchemaDiagnostics finds unsupported blocks and arguments without evaluating', async () => {
  const dir = writeConfig({ 'block.tf': main });
  const diags = await resourceSchemaDiagnostics(await load(dir), (fqn) => startBuiltinProvider(fqn));
  assert.deepEqual(
    diags.map((d) => [d.summary, d.detail, d.subject?.start.line]),
    [
      ['Unsupported argument', 'An argument named "bogus" is not expected here.', 5],
      ['Unsupported block type', 'Blocks of type "nonsense" are not expected here.', 2],
    ],
  );
});

test('a plan stopped by a count error also reports the schema errors, in source order', async () => {
  const dir = writeConfig({ 'block.tf': main });
  const io = { stdin: async () => '', stdout: () => {}, stderr: () => {}, cwd: dir, env: {} };
  const cfg = await loadConfig(io, false);
  assert.ok(!('module' in cfg));
  assert.deepEqual(
    cfg.diags.map((d) => [d.summary, d.subject?.start.line]),
    [
      ['Unsupported block type', 2],
      ['Incorrect value type', 4],
      ['Unsupported argument', 5],
    ],
  );
});
