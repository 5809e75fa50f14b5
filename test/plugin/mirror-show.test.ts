// `foresight show` and `state show` with a provider binary installed from a filesystem mirror (issue 10: show needs the schemas of
// binary providers, as terraform loads them): the state's map attribute renders as the schema says (`"a" = "b"`,
// a map, not an inferred object), and the text and -json output equal terraform's on the same directory; the
// schema comes from the disk schema cache on the next run. Skips with a notice without terraform.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, foresight, harness, hasTerraform, terraform, workspace } from './_served';

test('show, show -json and state show of a state written with a provider binary equal terraform\'s', { skip: !hasTerraform && 'terraform not installed' }, () => {
  if (!hasTerraform) return void console.log('# SKIP: terraform is not on PATH');
  const h = harness({ providers: [] });
  try {
    const pkg = join(h.root, 'mirror/example.com/test/random/1.0.0/linux_amd64');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'terraform-provider-random'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' provider serve random\n`);
    chmodSync(join(pkg, 'terraform-provider-random'), 0o755);
    writeFileSync(h.rc, `provider_installation {\n  filesystem_mirror {\n    path = ${JSON.stringify(join(h.root, 'mirror'))}\n  }\n}\n`);
    const env = { ...h.env, FORESIGHT_SCHEMA_CACHE_DIR: join(h.root, 'schemas') };
    const dir = workspace(h, 'ws', {
      'main.tf':
        'terraform {\n  required_providers {\n    random = {\n      source = "example.com/test/random"\n    }\n  }\n}\nresource "random_password" "p" {\n  length = 12\n}\nresource "random_pet" "q" {\n  keepers = { a = "b" }\n}\n',
    });
    assert.equal(foresight(dir, ['init', '-no-color'], env).status, 0);
    const a = foresight(dir, ['apply', '-auto-approve', '-no-color'], env);
    assert.equal(a.status, 0, a.stdout + a.stderr);
    for (const args of [['show', '-no-color'], ['show', '-json'], ['state', 'show', '-no-color', 'random_pet.q'], ['state', 'show', '-no-color', 'random_password.p']]) {
      const f = foresight(dir, args, env);
      const t = terraform({ ...h, env }, dir, args);
      assert.equal(t.status, 0, t.stderr);
      assert.equal(f.stdout, t.stdout, args.join(' '));
      assert.equal(f.status, 0);
    }
    assert.match(foresight(dir, ['show', '-no-color'], env).stdout, /keepers += \{\n {8}"a" = "b"\n {4}\}/);
    assert.match(foresight(dir, ['state', 'show', '-no-color', 'random_pet.q'], env).stdout, /keepers += \{\n {8}"a" = "b"\n {4}\}/);
    assert.match(foresight(dir, ['state', 'show', '-no-color', 'random_password.p'], env).stdout, /result += \(sensitive value\)/);
    assert.equal(readdirSync(join(h.root, 'schemas')).length, 1, 'the schema was cached by package hash');
  } finally {
    h.dispose();
  }
});
