// The provider validation's per-body cache (server/engine/validate.ts): after an edit, only the bodies that can read
// something different are validated again. An edit of one resource's attribute re-validates that file's resources
// only, also when the module has local values and typed variables in every file (their expressions are re-parsed
// with the file: the cache compares their texts); an edit of a local value's text re-validates the bodies again,
// and their diagnostics follow the new value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModuleAnalysis } from '../../server/config/analysis';
import { providerValidationDiagnostics } from '../../server/engine/validate';
import { startBuiltinProvider } from '../../server/providers/builtin';
import type { Provider } from '../../server/providers/provider';
import { initParser } from '../../server/syntax/treesitter';

const RANDOM = 'registry.terraform.io/hashicorp/random';

function fileText(i: number, length: string): string {
  return [
    `variable "v${i}" {\n  type    = number\n  default = ${i}\n}\n`,
    `locals {\n  n${i} = ${length}\n}\n`,
    `resource "random_string" "a${i}" {\n  length  = local.n${i}\n  special = false\n}\n`,
    `resource "random_string" "b${i}" {\n  length = var.v${i} + 3\n}\n`,
  ].join('\n');
}

/** The built-in random provider, counting its ValidateResourceConfig calls. */
function countingRandom(): { provider: Provider; calls: number } {
  const real = startBuiltinProvider(RANDOM)!;
  const out = { provider: undefined as unknown as Provider, calls: 0 };
  out.provider = Object.create(real, {
    validateResourceConfig: {
      value: (req: Parameters<Provider['validateResourceConfig']>[0]) => {
        out.calls++;
        return real.validateResourceConfig(req);
      },
    },
  });
  return out;
}

/** The analysis of `a` (without static errors) and the provider walk over its module: the walk's calls and diagnostics. */
async function walk(a: ModuleAnalysis, counting: { calls: number }, providers: (fqn: string) => Provider | undefined, dir: string) {
  const r = await a.analyze();
  assert.deepEqual(r.diagnostics, []);
  counting.calls = 0;
  const diags = await providerValidationDiagnostics(r.module!, { providers, cwd: dir });
  return { calls: counting.calls, diags };
}

test('an edit re-validates only the bodies that can read something different', async () => {
  await initParser();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-validate-cache-'));
  const counting = countingRandom();
  const providers = (fqn: string) => (fqn === RANDOM ? counting.provider : undefined);
  const paths = [0, 1, 2].map((i) => join(dir, `f${i}.tf`));
  paths.forEach((p, i) => writeFileSync(p, fileText(i, '8')));
  const a = new ModuleAnalysis(dir);
  const validate = async () => {
    const w = await walk(a, counting, providers, dir);
    return { calls: w.calls, summaries: w.diags.map((d) => `${d.subject?.filename}: ${d.summary}`) };
  };
  try {
    assert.deepEqual(await validate(), { calls: 6, summaries: [] });
    assert.deepEqual(await validate(), { calls: 0, summaries: [] }, 'nothing changed');

    // One attribute of one resource: that file's two resources (its bodies are new objects), not the others.
    await a.update(paths[1], fileText(1, '8').replace('special = false', 'special = true'));
    assert.deepEqual(await validate(), { calls: 2, summaries: [] });

    // A local value's text: every body may read it.
    await a.update(paths[2], fileText(2, '"eight"'));
    const changed = await validate();
    assert.equal(changed.calls, 5, 'f0 and f1 again, and f2 (new bodies) but for a2, which does not decode');
    assert.deepEqual(changed.summaries, ['f2.tf: Incorrect attribute value type']);

    // Back: the error goes.
    await a.update(paths[2], fileText(2, '8'));
    assert.deepEqual(await validate(), { calls: 6, summaries: [] });
  } finally {
    a.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

// The walk also reuses results by resource position (ValidateRun): a variable that becomes sensitive in another
// file, or a local name that comes to mean another provider, must still validate the bodies again.
test('results reused by position follow sensitivity and provider changes made in other files', async () => {
  await initParser();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-validate-run-'));
  const counting = countingRandom();
  // The same provider under a second address: a local name that comes to mean it is another provider to the walk.
  const OTHER = 'registry.terraform.io/example/random';
  const providers = (fqn: string) => (fqn === RANDOM || fqn === OTHER ? counting.provider : undefined);
  const vars = join(dir, 'vars.tf');
  const main = join(dir, 'main.tf');
  const varsText = (sensitive: boolean) => `variable "n" {\n  type    = number\n  default = 8\n${sensitive ? '  sensitive = true\n' : ''}}\n`;
  const providerText = (source: string) => `terraform {\n  required_providers {\n    random = {\n      source = "${source}"\n    }\n  }\n}\n`;
  writeFileSync(vars, varsText(false));
  writeFileSync(main, `resource "random_string" "a" {\n  length = var.n\n}\n\nresource "random_string" "b" {\n  length = 4\n}\n`);
  writeFileSync(join(dir, 'providers.tf'), providerText('hashicorp/random'));
  const a = new ModuleAnalysis(dir);
  const validate = async () => {
    const w = await walk(a, counting, providers, dir);
    return { calls: w.calls, diags: w.diags.length };
  };
  try {
    assert.deepEqual(await validate(), { calls: 2, diags: 0 });
    assert.deepEqual(await validate(), { calls: 0, diags: 0 }, 'nothing changed');
    // var.n becomes sensitive: the body reading it has another cache key; the other body does not read it.
    await a.update(vars, varsText(true));
    assert.deepEqual(await validate(), { calls: 1, diags: 0 });
    assert.deepEqual(await validate(), { calls: 0, diags: 0 }, 'nothing changed');
    // `random` now names another provider address: both bodies are validated by it.
    await a.update(join(dir, 'providers.tf'), providerText('example/random'));
    assert.deepEqual(await validate(), { calls: 2, diags: 0 });
    assert.deepEqual(await validate(), { calls: 0, diags: 0 }, 'nothing changed');
    // And back.
    await a.update(join(dir, 'providers.tf'), providerText('hashicorp/random'));
    assert.deepEqual(await validate(), { calls: 2, diags: 0 });
  } finally {
    a.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
