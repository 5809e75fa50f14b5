// The misbehaving-provider suite's "exits" case (issue 5 checks): a provider process that dies in the middle of
// ApplyResourceChange. Our random provider is served as a plugin (`foresight provider wrapper ... -misbehave=
// exit-apply`, dev_overrides, source example.com/test/random so the built-in copy is not used) and dies on the
// third create of a chain of five resources. Foresight must report the crash, keep exactly the two resources that
// completed (no half-written state, no zombie of the third), and converge on the next apply with a healthy
// provider. Where terraform is installed, terraform drives the same plugin on a copy of the workspace and both
// must give the same exit status, the same diagnostics and the same state shape. Without terraform, the
// Foresight-only assertions still run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeWrapper } from '../../server/cli/provider';
import { CLI, copyWorkspace, foresight, harness, hasTerraform, terraform, workspace } from '../plugin/_served';

let config = 'terraform {\n  required_providers {\n    random = {\n      source = "example.com/test/random"\n    }\n  }\n}\n';
config += 'resource "random_pet" "s1" {\n  prefix = "x"\n}\n';
for (let i = 2; i <= 5; i++) config += `resource "random_pet" "s${i}" {\n  prefix = random_pet.s${i - 1}.id\n}\n`;

/** The error block of a crashed plugin call; either of go-plugin's two reports of a vanished plugin. */
const crashed = /Error: (Plugin did not respond|Request cancelled)/;

function stateAddrs(dir: string): string[] {
  const p = join(dir, 'terraform.tfstate');
  if (!existsSync(p)) return [];
  const s = JSON.parse(readFileSync(p, 'utf8')) as { resources: { type: string; name: string; instances: { status?: string }[] }[] };
  return s.resources.flatMap((r) => r.instances.map((i) => `${r.type}.${r.name}${i.status ? ` (${i.status})` : ''}`)).sort();
}

test('a provider that exits during ApplyResourceChange: the crash is reported, completed resources are kept, the next apply converges', async () => {
  const h = harness({ providers: [] });
  try {
    writeWrapper('random', h.bin, 'random', { cliPath: CLI, misbehave: 'exit-apply' });
    writeFileSync(h.rc, `provider_installation {\n  dev_overrides {\n    "example.com/test/random" = ${JSON.stringify(h.bin)}\n  }\n  direct {}\n}\n`);
    const dir = workspace(h, 'fs', { 'main.tf': config });
    const tfDir = copyWorkspace(dir, join(h.root, 'tf'));

    const f = foresight(dir, ['apply', '-auto-approve', '-no-color', '-parallelism=1'], h.env);
    assert.equal(f.status, 1, f.stdout + f.stderr);
    assert.match(f.stderr, crashed);
    assert.match(f.stdout, /random_pet\.s2: Creation complete/);
    assert.doesNotMatch(f.stdout, /random_pet\.s3: Creation complete/);
    assert.deepEqual(stateAddrs(dir), ['random_pet.s1', 'random_pet.s2']);

    if (hasTerraform) {
      const t = terraform(h, tfDir, ['apply', '-auto-approve', '-no-color', '-parallelism=1']);
      assert.equal(t.status, f.status, t.stdout + t.stderr);
      assert.match(t.stderr, crashed);
      assert.deepEqual(stateAddrs(tfDir), stateAddrs(dir));
      const summaries = (s: string) => [...s.matchAll(/^Error: (.*)$/gm)].map((m) => m[1].replace('Request cancelled', 'Plugin did not respond'));
      assert.deepEqual(summaries(f.stderr), summaries(t.stderr));
    } else {
      console.log('# SKIP: terraform is not on PATH; the exit-apply case is not compared with terraform');
    }

    // A healthy provider again: the next apply creates exactly the three that are missing.
    writeWrapper('random', h.bin, 'random', { cliPath: CLI });
    const again = foresight(dir, ['apply', '-auto-approve', '-no-color'], h.env);
    assert.equal(again.status, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /Apply complete! Resources: 3 added, 0 changed, 0 destroyed\./);
    assert.deepEqual(stateAddrs(dir), ['random_pet.s1', 'random_pet.s2', 'random_pet.s3', 'random_pet.s4', 'random_pet.s5']);
    const noop = foresight(dir, ['plan', '-no-color', '-detailed-exitcode'], h.env);
    assert.equal(noop.status, 0, noop.stdout + noop.stderr);
  } finally {
    h.dispose();
  }
});
