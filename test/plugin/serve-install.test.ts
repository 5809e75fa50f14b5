// Tests for serving providers to real Terraform beyond dev_overrides (skipped with a notice without terraform):
// a served built-in provider installed by `terraform init` from a filesystem mirror (lock file written), and a
// provider written with the TypeScript SDK, bundled to one JavaScript file and served by path
// (`foresight provider serve ./terraform-provider-echo.js`), planned and applied by Terraform.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { writeWrapper } from '../../server/cli/provider';
import { CLI, harness, hasTerraform, REPO, terraform, workspace } from './_served';

test('real terraform installs a served provider from a filesystem mirror (terraform init, lock file) and applies with it', { skip: !hasTerraform && 'terraform not installed' }, () => {
  if (!hasTerraform) return void console.log('# SKIP: terraform is not on PATH');
  const h = harness({ providers: [] });
  try {
    const mirror = join(h.root, 'mirror');
    writeWrapper('random', join(mirror, 'registry.terraform.io/hashicorp/random/3.7.2/linux_amd64'), 'random', { cliPath: CLI });
    writeFileSync(h.rc, `provider_installation {\n  filesystem_mirror {\n    path = ${JSON.stringify(mirror)}\n  }\n}\n`);
    const dir = workspace(h, 'wsm', { 'main.tf': 'terraform {\n  required_providers {\n    random = {\n      source  = "hashicorp/random"\n      version = "3.7.2"\n    }\n  }\n}\nresource "random_pet" "p" {}\n' });
    const init = terraform(h, dir, ['init', '-no-color']);
    assert.equal(init.status, 0, init.stdout + init.stderr);
    assert.match(init.stdout, /- Installing hashicorp\/random v3\.7\.2\.\.\.\n- Installed hashicorp\/random v3\.7\.2 \(unauthenticated\)/);
    assert.match(readFileSync(join(dir, '.terraform.lock.hcl'), 'utf8'), /provider "registry\.terraform\.io\/hashicorp\/random" \{\n  version     = "3\.7\.2"\n  constraints = "3\.7\.2"\n  hashes = \[\n    "h1:/);
    const a = terraform(h, dir, ['apply', '-auto-approve', '-no-color']);
    assert.equal(a.status, 0, a.stdout + a.stderr);
    assert.match(a.stdout, /Apply complete! Resources: 1 added, 0 changed, 0 destroyed\./);
    assert.equal(terraform(h, dir, ['plan', '-detailed-exitcode', '-no-color']).status, 0);
  } finally {
    h.dispose();
  }
});

const ECHO_PROVIDER = `
import { attr, defineProvider, get, requiresReplace, S, str, withAttrs } from ${JSON.stringify(resolve(REPO, 'server/providers/sdk/index'))};
export const provider = () =>
  defineProvider({
    name: 'echo',
    resources: {
      echo_thing: {
        attributes: {
          input: attr.string({ required: true, planModifiers: [requiresReplace()] }),
          output: attr.string({ computed: true }),
          id: attr.string({ computed: true }),
        },
        create: ({ planned }) => ({ state: withAttrs(planned, { output: S('echo: ' + str(get(planned, 'input'))), id: S('e-' + str(get(planned, 'input'))) }) }),
      },
    },
  });
`;

test('a provider written with the TypeScript SDK, bundled and served by path, works under real Terraform', { skip: !hasTerraform && 'terraform not installed' }, () => {
  if (!hasTerraform) return void console.log('# SKIP: terraform is not on PATH');
  const h = harness({ providers: [] });
  try {
    const src = join(h.root, 'echo.ts');
    writeFileSync(src, ECHO_PROVIDER);
    const js = join(h.root, 'terraform-provider-echo.js');
    // (esbuild's command line: its JavaScript API cannot run inside the bundled test.)
    const b = spawnSync(join(REPO, 'node_modules/.bin/esbuild'), [src, '--bundle', '--platform=node', '--format=cjs', `--outfile=${js}`, '--log-level=error'], { encoding: 'utf8' });
    assert.equal(b.status, 0, b.stderr);
    writeWrapper(js, h.bin, 'echo', { cliPath: CLI });
    writeFileSync(h.rc, `provider_installation {\n  dev_overrides {\n    "example.com/test/echo" = ${JSON.stringify(h.bin)}\n  }\n  direct {}\n}\n`);
    const dir = workspace(h, 'wse', {
      'main.tf': 'terraform {\n  required_providers {\n    echo = {\n      source = "example.com/test/echo"\n    }\n  }\n}\nresource "echo_thing" "a" {\n  input = "hi"\n}\noutput "o" {\n  value = echo_thing.a.output\n}\n',
    });
    const a = terraform(h, dir, ['apply', '-auto-approve', '-no-color']);
    assert.equal(a.status, 0, a.stdout + a.stderr);
    assert.match(a.stdout, /echo_thing\.a: Creation complete after \d+s \[id=e-hi\]/);
    assert.match(a.stdout, /\nOutputs:\n\no = "echo: hi"\n$/);
    writeFileSync(join(dir, 'main.tf'), readFileSync(join(dir, 'main.tf'), 'utf8').replace('"hi"', '"ho"'));
    const p = terraform(h, dir, ['apply', '-auto-approve', '-no-color']);
    assert.equal(p.status, 0, p.stdout + p.stderr);
    assert.match(p.stdout, /# echo_thing\.a must be replaced/);
    assert.match(p.stdout, /Apply complete! Resources: 1 added, 0 changed, 1 destroyed\./);
  } finally {
    h.dispose();
  }
});
