// Provider discovery and installation (server/plugin/discovery.ts, the provider part of server/cli/init.ts):
// the CLI configuration (quoted dev_overrides keys, mirrors with include/exclude, plugin_cache_dir), dirhash h1
// hashes, and `foresight init` against a filesystem mirror compared with real `terraform init` on copies of the same
// workspace: output (human and -json), the lock file, the links it makes in .terraform/providers and the plugin
// cache, reuse, constraint and lock errors. The mirror holds a fake provider (a shell script): init never runs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../server/cli/main';
import { currentPlatform, hashPackageDir, locateProvider, matchesPattern, parseCliConfig } from '../../server/plugin/discovery';

const hasTerraform = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
const PLATFORM = currentPlatform();

function fakeMirror(root: string): string {
  const mirror = join(root, 'mirror');
  for (const v of ['1.0.0', '1.2.0']) {
    const d = join(mirror, 'registry.terraform.io', 'acme', 'fake', v, PLATFORM);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `terraform-provider-fake_v${v}`), `#!/bin/sh\necho "fake provider ${v}" >&2\nexit 1\n`);
    chmodSync(join(d, `terraform-provider-fake_v${v}`), 0o755);
    writeFileSync(join(d, 'README.md'), `fake ${v}\n`);
  }
  return mirror;
}

function workspace(root: string, name: string, tf: string): string {
  const d = join(root, name);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, 'main.tf'), tf);
  return d;
}

async function runForesight(dir: string, argv: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await main(argv, { stdin: async () => '', stdout: (x) => (out += x), stderr: (x) => (out += x), cwd: dir, env });
  return { code, out };
}

function runTerraform(dir: string, argv: string[], env: Record<string, string>): { code: number; out: string } {
  const r = spawnSync('terraform', argv, { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: env.HOME ?? process.env.HOME ?? '', ...env } });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

const normJson = (s: string) => s.replace(/"@timestamp":"[^"]*"/g, '"@timestamp":"T"');

const REQ = (constraint?: string) =>
  `terraform {\n  required_providers {\n    fake = {\n      source = "acme/fake"\n${constraint ? `      version = "${constraint}"\n` : ''}    }\n  }\n}\n`;

test('CLI configuration: quoted dev_overrides keys, mirrors with include/exclude, plugin_cache_dir', async () => {
  const text =
    'plugin_cache_dir = "~/cache"\nprovider_installation {\n  dev_overrides {\n    "example.com/test/echo" = "/tmp/d"\n    "hashicorp/null" = "~/n"\n  }\n' +
    '  filesystem_mirror {\n    path    = "/opt/m"\n    include = ["hashicorp/*"]\n  }\n  direct {\n    exclude = ["hashicorp/aws"]\n  }\n}\n';
  const c = await parseCliConfig(text, 'rc', { HOME: '/h' });
  assert.deepEqual(c.diagnostics, []);
  assert.equal(c.pluginCacheDir, '/h/cache');
  assert.deepEqual([...c.devOverrides], [
    ['example.com/test/echo', '/tmp/d'],
    ['registry.terraform.io/hashicorp/null', '/h/n'],
  ]);
  assert.deepEqual(c.methods, [
    { kind: 'filesystem_mirror', location: '/opt/m', include: ['hashicorp/*'], exclude: [] },
    { kind: 'direct', include: [], exclude: ['hashicorp/aws'] },
  ]);
  assert.equal(matchesPattern('registry.terraform.io/hashicorp/aws', 'hashicorp/*'), true);
  assert.equal(matchesPattern('registry.terraform.io/acme/aws', 'hashicorp/*'), false);
  assert.equal(matchesPattern('example.com/x/y', '*/*/*'), true);
  const bad = await parseCliConfig('provider_installation {\n  magic {}\n}\n', 'rc', { HOME: '/h' });
  assert.deepEqual(
    bad.diagnostics.map((d) => [d.summary, d.subject?.start.line]),
    [['Invalid provider_installation method block', 2]],
  );
});

test('h1: dirhash of a package directory (sha256 of "hex  path" lines, sorted)', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fs-h1-'));
  try {
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'b.txt'), 'b\n');
    writeFileSync(join(root, 'a.txt'), 'a\n');
    writeFileSync(join(root, 'sub', 'c'), '');
    // sha256("a\n") = 87428fc5..., sha256("b\n") = 0263829989..., sha256("") = e3b0c442...
    const lines =
      '87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7  a.txt\n' +
      '0263829989b6fd954f72baaf2fc64bc2e2f01d692d4de72986ea808f6e99813f  b.txt\n' +
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  sub/c\n';
    const { createHash } = await import('node:crypto');
    assert.equal(await hashPackageDir(root), 'h1:' + createHash('sha256').update(lines).digest('base64'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('init from a filesystem mirror: same output, lock file and links as terraform init', async (t) => {
  if (!hasTerraform) {
    t.skip('terraform not installed: skipping the comparison with terraform init');
    console.log('# SKIP: terraform not on PATH; init is not compared with terraform');
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'fs-init-'));
  try {
    const mirror = fakeMirror(root);
    const rc = join(root, 'cli.tfrc');
    writeFileSync(rc, `provider_installation {\n  filesystem_mirror {\n    path = "${mirror}"\n  }\n}\n`);
    const env = { TF_CLI_CONFIG_FILE: rc, HOME: root };
    const steps: { name: string; tf?: string; lock?: string | null; rmData?: boolean; argv: string[] }[] = [
      { name: 'fresh', tf: REQ(), argv: ['init', '-no-color'] },
      { name: 'again (previously installed)', argv: ['init', '-no-color'] },
      { name: 'json, reinstall from the lock', rmData: true, argv: ['init', '-json'] },
      { name: 'constraint pins the older version (-upgrade)', tf: REQ('~> 1.0.0'), argv: ['init', '-no-color', '-upgrade'] },
      { name: 'locked version outside constraints', tf: REQ('>= 1.1'), argv: ['init', '-no-color'] },
      { name: 'no release matches', tf: REQ('>= 2.0'), lock: null, argv: ['init', '-no-color'] },
      { name: 'locked version gone', tf: REQ(), lock: 'provider "registry.terraform.io/acme/fake" {\n  version = "1.1.0"\n}\n', argv: ['init', '-no-color'] },
      { name: 'lock hash mismatch', lock: 'provider "registry.terraform.io/acme/fake" {\n  version = "1.2.0"\n  hashes = [\n    "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",\n  ]\n}\n', rmData: true, argv: ['init', '-no-color'] },
      // One provider only: Terraform lists several providers in map order (random).
      { name: 'provider not in the mirror', tf: 'resource "other_thing" "x" {}\n', lock: null, argv: ['init', '-no-color'] },
    ];
    const tfDir = workspace(root, 'tf', '');
    const fsDir = workspace(root, 'fs', '');
    for (const s of steps) {
      for (const d of [tfDir, fsDir]) {
        if (s.tf !== undefined) writeFileSync(join(d, 'main.tf'), s.tf);
        if (s.lock === null) rmSync(join(d, '.terraform.lock.hcl'), { force: true });
        else if (s.lock !== undefined) writeFileSync(join(d, '.terraform.lock.hcl'), s.lock);
        if (s.rmData) rmSync(join(d, '.terraform'), { recursive: true, force: true });
      }
      const want = runTerraform(tfDir, s.argv, env);
      const got = await runForesight(fsDir, s.argv, env);
      assert.equal(normJson(got.out), normJson(want.out), `${s.name}: output`);
      assert.equal(got.code, want.code, `${s.name}: exit status`);
      const lock = (d: string) => (existsSync(join(d, '.terraform.lock.hcl')) ? readFileSync(join(d, '.terraform.lock.hcl'), 'utf8') : null);
      assert.equal(lock(fsDir), lock(tfDir), `${s.name}: lock file`);
      for (const v of ['1.0.0', '1.2.0']) {
        const link = (d: string) => {
          const p = join(d, '.terraform/providers/registry.terraform.io/acme/fake', v, PLATFORM);
          return existsSync(p) ? readlinkSync(p) : null;
        };
        assert.equal(link(fsDir), link(tfDir), `${s.name}: .terraform/providers link for ${v}`);
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('init through the plugin cache: the mirror package is linked into the cache, the workspace links the cache', async (t) => {
  if (!hasTerraform) {
    t.skip('terraform not installed: skipping the comparison with terraform init');
    console.log('# SKIP: terraform not on PATH; init with a plugin cache is not compared with terraform');
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'fs-cache-'));
  try {
    const mirror = fakeMirror(root);
    const results: string[][] = [];
    for (const who of ['tf', 'fs']) {
      const cache = join(root, `cache-${who}`);
      mkdirSync(cache);
      const rc = join(root, `cli-${who}.tfrc`);
      writeFileSync(rc, `plugin_cache_dir = "${cache}"\nprovider_installation {\n  filesystem_mirror {\n    path = "${mirror}"\n  }\n}\n`);
      const d = workspace(root, who, REQ());
      const env = { TF_CLI_CONFIG_FILE: rc, HOME: root };
      const r = who === 'tf' ? runTerraform(d, ['init', '-no-color'], env) : await runForesight(d, ['init', '-no-color'], env);
      const cached = join(cache, 'registry.terraform.io/acme/fake/1.2.0', PLATFORM);
      const installed = join(d, '.terraform/providers/registry.terraform.io/acme/fake/1.2.0', PLATFORM);
      results.push([String(r.code), r.out, readlinkSync(cached), readlinkSync(installed).replace(cache, 'CACHE'), readFileSync(join(d, '.terraform.lock.hcl'), 'utf8')]);
    }
    assert.deepEqual(results[1], results[0]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('init without a mirror says that Foresight has no network; plan finds binaries or gives Terraform\'s errors', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fs-nonet-'));
  try {
    const rc = join(root, 'cli.tfrc');
    writeFileSync(rc, 'provider_installation {\n  direct {}\n}\n');
    const d = workspace(root, 'w', REQ());
    const r = await runForesight(d, ['init', '-no-color'], { TF_CLI_CONFIG_FILE: rc, HOME: root });
    assert.equal(r.code, 1);
    assert.match(r.out, /Error: Failed to query available provider packages\n\nCould not retrieve the list of available versions for provider acme\/fake:\nForesight does not download providers: it has no network access/);
    assert.match(r.out, /filesystem_mirror \{\n\s+path = "\/path\/to\/mirror"/);

    // locateProvider: not locked → missing; locked but not installed / hash mismatch → Terraform's texts.
    const env = { TF_CLI_CONFIG_FILE: rc, HOME: root };
    assert.deepEqual(await locateProvider(d, 'registry.terraform.io/acme/fake', undefined, env), { kind: 'missing' });
    const notThere = await locateProvider(d, 'registry.terraform.io/acme/fake', { version: '1.2.0', hashes: [] }, env);
    assert.equal(notThere.kind, 'error');
    assert.equal(
      notThere.kind === 'error' && notThere.diagnostic.detail,
      'The installed provider plugins are not consistent with the packages selected in the dependency lock file:\n  - registry.terraform.io/acme/fake: there is no package for registry.terraform.io/acme/fake 1.2.0 cached in .terraform/providers\n\nTerraform uses external plugins to integrate with a variety of different infrastructure services. To download the plugins required for this configuration, run:\n  terraform init',
    );
    const mirror = fakeMirror(root);
    cpSync(join(mirror, 'registry.terraform.io'), join(d, '.terraform/providers/registry.terraform.io'), { recursive: true });
    const bad = await locateProvider(d, 'registry.terraform.io/acme/fake', { version: '1.2.0', hashes: ['h1:AAAA='] }, env);
    assert.equal(bad.kind === 'error' && bad.diagnostic.summary, 'Required plugins are not installed');
    assert.match(bad.kind === 'error' ? bad.diagnostic.detail ?? '' : '', /the cached package for registry.terraform.io\/acme\/fake 1.2.0 \(in .terraform\/providers\) does not match any of the checksums recorded in the dependency lock file/);
    const pkg = join(d, '.terraform/providers/registry.terraform.io/acme/fake/1.2.0', PLATFORM);
    const good = await locateProvider(d, 'registry.terraform.io/acme/fake', { version: '1.2.0', hashes: [await hashPackageDir(pkg)] }, env);
    assert.deepEqual(good, { kind: 'binary', fqn: 'registry.terraform.io/acme/fake', version: '1.2.0', executable: join(pkg, 'terraform-provider-fake_v1.2.0'), packageDir: pkg, devOverride: false });
    // dev_overrides win and need no lock.
    writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "acme/fake" = "${pkg}"\n  }\n  direct {}\n}\n`);
    const dev = await locateProvider(d, 'registry.terraform.io/acme/fake', undefined, env);
    assert.equal(dev.kind === 'binary' && dev.devOverride, true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('validate: a provider not installed, or a binary that is not a plugin, gives terraform validate\'s errors', async (t) => {
  if (!hasTerraform) {
    t.skip('terraform not installed');
    console.log('# SKIP: terraform not on PATH; validate is not compared with terraform');
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'fs-validate-'));
  try {
    const mirror = fakeMirror(root);
    const rc = join(root, 'cli.tfrc');
    writeFileSync(rc, `provider_installation {\n  filesystem_mirror {\n    path = "${mirror}"\n  }\n}\n`);
    const env = { TF_CLI_CONFIG_FILE: rc, HOME: root };
    const tf = REQ() + '\nresource "fake_thing" "a" {}\n';
    const tfDir = workspace(root, 'tf', tf);
    const fsDir = workspace(root, 'fs', tf);
    for (const step of ['not installed', 'installed, not a plugin']) {
      if (step !== 'not installed') {
        assert.equal(runTerraform(tfDir, ['init'], env).code, 0);
        assert.equal((await runForesight(fsDir, ['init'], env)).code, 0);
      }
      for (const argv of [['validate', '-json'], ['validate', '-no-color']]) {
        const want = runTerraform(tfDir, argv, env);
        const got = await runForesight(fsDir, argv, env);
        assert.equal(got.out, want.out, `${step}: ${argv.join(' ')}`);
        assert.equal(got.code, want.code, `${step}: ${argv.join(' ')}`);
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/**
 * Two copies of a workspace using example.com/x/null, which the CLI configuration in `root` points at our null
 * provider served as a plugin (dev_overrides): one for terraform, one for foresight.
 */
function devOverrideWorkspaces(root: string): { env: Record<string, string>; tfDir: string; fsDir: string } {
  const bin = join(root, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'terraform-provider-null'), `#!/bin/sh\nexec ${process.execPath} ${join(process.cwd(), 'dist/cli.js')} provider serve null\n`);
  chmodSync(join(bin, 'terraform-provider-null'), 0o755);
  const rc = join(root, 'cli.tfrc');
  writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "example.com/x/null" = "${bin}"\n  }\n  direct {}\n}\n`);
  const tf = 'terraform {\n  required_providers {\n    null = {\n      source = "example.com/x/null"\n    }\n  }\n}\n\nresource "null_resource" "a" {}\n';
  return { env: { TF_CLI_CONFIG_FILE: rc, HOME: root }, tfDir: workspace(root, 'tf', tf), fsDir: workspace(root, 'fs', tf) };
}

test('validate with dev_overrides: Terraform\'s "Provider development overrides are in effect" warning first', async (t) => {
  if (!hasTerraform) {
    t.skip('terraform not installed');
    console.log('# SKIP: terraform not on PATH; the dev_overrides warning is not compared with terraform');
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'fs-validate-dev-'));
  try {
    const { env, tfDir, fsDir } = devOverrideWorkspaces(root);
    // -json, -no-color and colour (where the "Success!" line wraps differently, as Terraform wraps colourised text).
    for (const argv of [['validate', '-json'], ['validate', '-no-color'], ['validate']]) {
      const want = runTerraform(tfDir, argv, env);
      const got = await runForesight(fsDir, argv, env);
      assert.equal(got.out, want.out, argv.join(' '));
      assert.equal(got.code, want.code, argv.join(' '));
    }
    assert.match((await runForesight(fsDir, ['validate', '-json'], env)).out, /"warning_count": 1/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('plan, apply, a saved plan, destroy and refresh with dev_overrides: the warning where Terraform prints it (refresh: none)', async (t) => {
  if (!hasTerraform) {
    t.skip('terraform not installed');
    console.log('# SKIP: terraform not on PATH; the dev_overrides warning of plan/apply is not compared with terraform');
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'fs-ops-dev-'));
  try {
    const { env, tfDir, fsDir } = devOverrideWorkspaces(root);
    // null_resource ids are random; -json lines carry timestamps; elapsed time is wall-clock (1 s on a loaded machine).
    const mask = (s: string) => normJson(s).replace(/\b\d{15,20}\b/g, 'ID').replace(/after \d+s/g, 'after Ns').replace(/"elapsed_seconds":\d+/g, '"elapsed_seconds":N');
    const steps: { argv: string[]; before?: (dir: string) => void; after?: (dir: string) => void }[] = [
      { argv: ['plan', '-no-color'] },
      { argv: ['plan', '-json'] },
      { argv: ['plan'] },
      { argv: ['plan', '-no-color'], before: (d) => writeFileSync(join(d, 'bad.tf'), 'resource "null_resource" "b" {\n'), after: (d) => rmSync(join(d, 'bad.tf')) },
      { argv: ['apply', '-auto-approve', '-no-color'] },
      { argv: ['refresh', '-no-color'] },
      { argv: ['plan', '-destroy', '-out=d.tfplan', '-no-color'] },
      { argv: ['apply', '-no-color', 'd.tfplan'] },
      { argv: ['apply', '-auto-approve', '-json'] },
      { argv: ['destroy', '-auto-approve', '-no-color'] },
    ];
    for (const s of steps) {
      s.before?.(tfDir);
      s.before?.(fsDir);
      const want = runTerraform(tfDir, s.argv, env);
      const got = await runForesight(fsDir, s.argv, env);
      s.after?.(tfDir);
      s.after?.(fsDir);
      assert.equal(mask(got.out), mask(want.out), s.argv.join(' '));
      assert.equal(got.code, want.code, s.argv.join(' '));
      const warned = /Provider development overrides are in effect/.test(got.out);
      assert.equal(warned, s.argv[0] !== 'refresh', `${s.argv.join(' ')}: the warning ${warned ? 'printed' : 'missing'}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
