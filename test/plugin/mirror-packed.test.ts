// Packed provider packages (issue 10 §1): server/plugin/zip.ts (reading Info-ZIP's and our own archives, zip64,
// CRC-32 checks, zip-slip refusal, dirhash.HashZip) and `foresight init` installing from a packed filesystem mirror
// and through the plugin cache, compared byte for byte with `terraform init` on copies of the same workspace
// (output, exit status, lock file, the unpacked files and their modes). The terraform comparisons skip with a
// printed notice where terraform is not installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { randomBytes } from 'node:crypto';
import { extractZip, hashZipH1, readZip, writeZip } from '../../server/plugin/zip';
import { hashPackageDir } from '../../server/plugin/discovery';
import { CLI, copyWorkspace, foresight, harness, hasTerraform, terraform, workspace, type Harness } from './_served';

const hasZip = spawnSync('zip', ['-v'], { encoding: 'utf8' }).status === 0;

function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = lstatSync(p);
      const rel = relative(dir, p);
      if (st.isSymbolicLink()) out.push(`${rel} -> ${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.push(`${rel}/ ${(st.mode & 0o7777).toString(8)}`);
        walk(p);
      } else out.push(`${rel} ${(st.mode & 0o7777).toString(8)} ${readFileSync(p).toString('base64')}`);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

test('zip: our archives round-trip (modes, nested names, a 3 MB file) and hash as dirhash does for the unpacked tree', async () => {
  const h = harness({ providers: [] });
  try {
    const src = join(h.root, 'src');
    mkdirSync(join(src, 'docs'), { recursive: true });
    writeFileSync(join(src, 'terraform-provider-x'), randomBytes(3 << 20));
    chmodSync(join(src, 'terraform-provider-x'), 0o755);
    writeFileSync(join(src, 'docs', 'README.md'), 'hello\n'.repeat(1000));
    chmodSync(join(src, 'docs', 'README.md'), 0o640);
    writeFileSync(join(src, 'empty'), '');
    const zip = join(h.root, 'x.zip');
    await writeZip(zip, [
      { name: 'terraform-provider-x', path: join(src, 'terraform-provider-x') },
      { name: 'docs/README.md', path: join(src, 'docs', 'README.md') },
      { name: 'empty', path: join(src, 'empty') },
    ]);
    const z = readZip(zip);
    assert.deepEqual(
      z.entries.map((e) => [e.name, e.size, (e.mode & 0o7777).toString(8), e.method]),
      [
        ['terraform-provider-x', 3 << 20, '755', 8],
        ['docs/README.md', 6000, '640', 8],
        ['empty', 0, '644', 8],
      ],
    );
    const out = join(h.root, 'out');
    await extractZip(zip, out);
    assert.deepEqual(tree(out), tree(src));
    assert.equal(await hashZipH1(zip), await hashPackageDir(out));
    if (hasZip) {
      // Info-ZIP's unzip accepts our archive and reproduces the files.
      const u = spawnSync('unzip', ['-q', zip, '-d', join(h.root, 'un')], { encoding: 'utf8' });
      assert.equal(u.status, 0, u.stderr);
      assert.deepEqual(tree(join(h.root, 'un')), tree(src));
    }
  } finally {
    h.dispose();
  }
});

test('zip: archives written by Info-ZIP, with directory entries, stored and deflated data and zip64 records, are read', { skip: !hasZip && 'zip not installed' }, async () => {
  if (!hasZip) return void console.log('# SKIP: zip is not on PATH');
  const h = harness({ providers: [] });
  try {
    const src = join(h.root, 'pkg');
    mkdirSync(join(src, 'sub'), { recursive: true });
    writeFileSync(join(src, 'a.txt'), 'aaaa'.repeat(5000));
    writeFileSync(join(src, 'sub', 'b.bin'), randomBytes(70000));
    chmodSync(join(src, 'sub', 'b.bin'), 0o700);
    const zip = join(h.root, 'info.zip');
    assert.equal(spawnSync('zip', ['-q', '-r', zip, '.'], { cwd: src }).status, 0);
    const z = readZip(zip);
    assert.deepEqual(z.entries.map((e) => e.name).sort(), ['a.txt', 'sub/', 'sub/b.bin']);
    const out = join(h.root, 'out');
    await extractZip(zip, out);
    assert.deepEqual(tree(out), tree(src));
    // dirhash.HashZip counts the directory entry "sub/" (an empty file's sha256), so it differs from HashDir.
    assert.notEqual(await hashZipH1(zip), await hashPackageDir(out));
    // zip -0 stores; streaming from stdin makes zip64 records (entry "-").
    const stored = join(h.root, 'stored.zip');
    assert.equal(spawnSync('zip', ['-q', '-0', stored, 'a.txt'], { cwd: src }).status, 0);
    assert.equal(readZip(stored).entries[0].method, 0);
    await extractZip(stored, join(h.root, 'st'));
    assert.equal(readFileSync(join(h.root, 'st', 'a.txt'), 'utf8'), 'aaaa'.repeat(5000));
    const z64 = join(h.root, 'z64.zip');
    const r = spawnSync('sh', ['-c', `cat sub/b.bin | zip -q ${z64} -`], { cwd: src });
    assert.equal(r.status, 0);
    const raw = readFileSync(z64);
    assert.ok(raw.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06])), 'zip64 end record present');
    await extractZip(z64, join(h.root, 'z64'));
    assert.deepEqual(readFileSync(join(h.root, 'z64', '-')), readFileSync(join(src, 'sub', 'b.bin')));
  } finally {
    h.dispose();
  }
});

test('zip: entries escaping the destination are refused before anything is written; corrupt data fails its CRC-32', async () => {
  const h = harness({ providers: [] });
  try {
    const f = join(h.root, 'f');
    writeFileSync(f, 'payload');
    for (const bad of ['../evil', 'a/../../evil', 'a\\..\\..\\evil']) {
      const zip = join(h.root, 'bad.zip');
      await writeZip(zip, [
        { name: 'ok', path: f },
        { name: bad, path: f },
      ]);
      const dest = join(h.root, 'dest', 'x');
      await assert.rejects(extractZip(zip, dest), { message: `entry contains '..': ${bad}` });
      assert.equal(existsSync(join(h.root, 'dest')), false);
      assert.equal(existsSync(join(h.root, 'evil')), false);
    }
    // A leading slash is joined below the destination, as filepath.Join does.
    const abs = join(h.root, 'abs.zip');
    await writeZip(abs, [{ name: '/etc/foresight-zip-test', path: f }]);
    await extractZip(abs, join(h.root, 'a'));
    assert.equal(readFileSync(join(h.root, 'a', 'etc', 'foresight-zip-test'), 'utf8'), 'payload');
    assert.equal(existsSync('/etc/foresight-zip-test'), false);
    // Flip one byte of the deflated data.
    const big = join(h.root, 'big');
    writeFileSync(big, randomBytes(5000));
    const cz = join(h.root, 'corrupt.zip');
    await writeZip(cz, [{ name: 'big', path: big }]);
    const bytes = readFileSync(cz);
    bytes[30 + 3 + 100] ^= 0xff;
    writeFileSync(cz, bytes);
    await assert.rejects(extractZip(cz, join(h.root, 'c')), /zip: big: checksum error|invalid/);
    writeFileSync(join(h.root, 'notzip.zip'), 'not a zip at all');
    assert.throws(() => readZip(join(h.root, 'notzip.zip')), { message: 'zip: not a valid zip file' });
    const empty = join(h.root, 'empty.zip');
    await writeZip(empty, []);
    await assert.rejects(extractZip(empty, join(h.root, 'e')), { message: `empty archive: ${empty}` });
  } finally {
    h.dispose();
  }
});

// ---- init from a packed mirror, against terraform ------------------------------------------------------------

const MAIN = 'terraform {\n  required_providers {\n    random = {\n      source  = "example.com/test/random"\n      version = ">= 1.0.0"\n    }\n  }\n}\nresource "random_pet" "p" {}\n';

/** A packed mirror holding example.com/test/random 1.0.0 and 1.1.0: a wrapper serving Foresight's random, zipped. */
async function packedMirror(h: Harness): Promise<string> {
  const pkg = join(h.root, 'pkg');
  mkdirSync(pkg, { recursive: true });
  const exe = join(pkg, 'terraform-provider-random');
  writeFileSync(exe, `#!/bin/sh\nexec '${process.execPath}' '${CLI}' provider serve random\n`);
  chmodSync(exe, 0o755);
  writeFileSync(join(pkg, 'CHANGELOG.md'), '# 1.1.0\n');
  const mirror = join(h.root, 'mirror');
  const dir = join(mirror, 'example.com/test/random');
  mkdirSync(dir, { recursive: true });
  await writeZip(join(dir, 'terraform-provider-random_1.0.0_linux_amd64.zip'), [{ name: 'terraform-provider-random', path: exe }]);
  await writeZip(join(dir, 'terraform-provider-random_1.1.0_linux_amd64.zip'), [
    { name: 'terraform-provider-random', path: exe },
    { name: 'CHANGELOG.md', path: join(pkg, 'CHANGELOG.md') },
  ]);
  await writeZip(join(dir, 'terraform-provider-random_1.2.0_darwin_arm64.zip'), [{ name: 'terraform-provider-random', path: exe }]);
  return mirror;
}

function both(h: Harness, a: string, b: string, args: string[], env: NodeJS.ProcessEnv) {
  const t = terraform({ ...h, env }, a, args);
  const f = foresight(b, args, env);
  return { t, f };
}

test('init installs from a packed filesystem mirror exactly as terraform does (output, lock file, unpacked files; reuse; lock mismatch)', { skip: !hasTerraform && 'terraform not installed' }, async () => {
  if (!hasTerraform) return void console.log('# SKIP: terraform is not on PATH');
  const h = harness({ providers: [] });
  try {
    const mirror = await packedMirror(h);
    writeFileSync(h.rc, `provider_installation {\n  filesystem_mirror {\n    path = ${JSON.stringify(mirror)}\n  }\n}\n`);
    const env = { ...h.env };
    const a = workspace(h, 'tf', { 'main.tf': MAIN });
    const b = copyWorkspace(a, join(h.root, 'fs'));
    // The newest version (1.2.0) exists only for darwin_arm64: both stop with "Incompatible provider version".
    let r = both(h, a, b, ['init', '-no-color'], env);
    assert.equal(r.t.status, 1, r.t.stdout + r.t.stderr);
    assert.equal(r.f.status, 1);
    assert.equal(r.f.stdout, r.t.stdout);
    assert.equal(r.f.stderr, r.t.stderr);
    assert.match(r.f.stderr, /Provider example\.com\/test\/random v1\.2\.0 does not have a package available for\nyour current platform, linux_amd64\./);
    for (const d of [a, b]) writeFileSync(join(d, 'main.tf'), MAIN.replace('>= 1.0.0', '< 1.2.0'));
    r = both(h, a, b, ['init', '-no-color'], env);
    assert.equal(r.t.status, 0, r.t.stdout + r.t.stderr);
    assert.equal(r.f.stdout, r.t.stdout);
    assert.equal(r.f.stderr, r.t.stderr);
    assert.equal(r.f.status, r.t.status);
    assert.match(r.f.stdout, /- Installing example\.com\/test\/random v1\.1\.0\.\.\.\n- Installed example\.com\/test\/random v1\.1\.0 \(unauthenticated\)\n/);
    const lockT = readFileSync(join(a, '.terraform.lock.hcl'), 'utf8');
    assert.equal(readFileSync(join(b, '.terraform.lock.hcl'), 'utf8'), lockT);
    assert.match(lockT, /version     = "1\.1\.0"\n  constraints = "< 1\.2\.0"\n  hashes = \[\n    "h1:[^"]+",\n  \]/);
    assert.deepEqual(tree(join(b, '.terraform')), tree(join(a, '.terraform')));
    // The installed provider is the real thing: foresight plans with it.
    const p = foresight(b, ['plan', '-no-color'], env);
    assert.equal(p.status, 0, p.stdout + p.stderr);
    assert.match(p.stdout, /# random_pet\.p will be created/);
    // Second init: the installed package matches the lock.
    r = both(h, a, b, ['init', '-no-color'], env);
    assert.equal(r.t.status, 0, r.t.stderr);
    assert.equal(r.f.stdout, r.t.stdout);
    assert.match(r.f.stdout, /- Using previously-installed example\.com\/test\/random v1\.1\.0\n/);
    // A lock hash that matches neither the installed copy nor the archive.
    const bad = lockT.replace(/"h1:[^"]+"/, '"h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="');
    for (const d of [a, b]) writeFileSync(join(d, '.terraform.lock.hcl'), bad);
    r = both(h, a, b, ['init', '-no-color'], env);
    assert.equal(r.t.status, 1);
    assert.equal(r.f.status, 1);
    assert.equal(r.f.stdout, r.t.stdout);
    assert.equal(r.f.stderr, r.t.stderr);
    assert.match(r.f.stderr, /the current package\nfor example\.com\/test\/random 1\.1\.0 doesn't match any of the checksums/);
    // The archive's zh: hash (sha256 of the .zip) is accepted for the packed package.
    const zh = 'zh:' + spawnSync('sha256sum', [join(mirror, 'example.com/test/random/terraform-provider-random_1.1.0_linux_amd64.zip')], { encoding: 'utf8' }).stdout.split(' ')[0];
    const withZh = lockT.replace(/"h1:[^"]+"/, JSON.stringify(zh));
    for (const d of [a, b]) {
      writeFileSync(join(d, '.terraform.lock.hcl'), withZh);
      spawnSync('rm', ['-rf', join(d, '.terraform')]);
    }
    r = both(h, a, b, ['init', '-no-color'], env);
    assert.equal(r.t.status, 0, r.t.stderr);
    assert.equal(r.f.stdout, r.t.stdout);
    assert.equal(r.f.stderr, r.t.stderr);
    assert.equal(readFileSync(join(b, '.terraform.lock.hcl'), 'utf8'), readFileSync(join(a, '.terraform.lock.hcl'), 'utf8'));
    assert.match(readFileSync(join(b, '.terraform.lock.hcl'), 'utf8'), /"h1:[^"]+",\n    "zh:[0-9a-f]{64}",\n/);
  } finally {
    h.dispose();
  }
});

test('init from a packed mirror through the plugin cache: unpacked into the cache, linked into .terraform, as terraform does', { skip: !hasTerraform && 'terraform not installed' }, async () => {
  if (!hasTerraform) return void console.log('# SKIP: terraform is not on PATH');
  const h = harness({ providers: [] });
  try {
    const mirror = await packedMirror(h);
    writeFileSync(h.rc, `provider_installation {\n  filesystem_mirror {\n    path = ${JSON.stringify(mirror)}\n  }\n}\n`);
    const a = workspace(h, 'tf', { 'main.tf': MAIN.replace('>= 1.0.0', '1.0.0') });
    const b = copyWorkspace(a, join(h.root, 'fs'));
    const cacheT = join(h.root, 'cache-tf');
    const cacheF = join(h.root, 'cache-fs');
    mkdirSync(cacheT);
    mkdirSync(cacheF);
    const t = terraform({ ...h, env: { ...h.env, TF_PLUGIN_CACHE_DIR: cacheT } }, a, ['init', '-no-color']);
    const f = foresight(b, ['init', '-no-color'], { ...h.env, TF_PLUGIN_CACHE_DIR: cacheF });
    assert.equal(t.status, 0, t.stderr);
    assert.equal(f.stdout, t.stdout);
    assert.equal(f.stderr, t.stderr);
    assert.equal(readFileSync(join(b, '.terraform.lock.hcl'), 'utf8'), readFileSync(join(a, '.terraform.lock.hcl'), 'utf8'));
    assert.deepEqual(tree(cacheF), tree(cacheT));
    const link = join('.terraform/providers/example.com/test/random/1.0.0/linux_amd64');
    assert.equal(readlinkSync(join(b, link)), join(cacheF, 'example.com/test/random/1.0.0/linux_amd64'));
    assert.equal(readlinkSync(join(a, link)), join(cacheT, 'example.com/test/random/1.0.0/linux_amd64'));
    assert.equal(statSync(join(b, link, 'terraform-provider-random')).mode & 0o777, 0o755);
  } finally {
    h.dispose();
  }
});
