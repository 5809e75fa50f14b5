// `foresight providers lock` (-fs-mirror with unpacked and packed packages, -net-mirror over HTTPS, -platform,
// named providers, the option errors) compared with `terraform providers lock` on copies of the same workspace:
// stdout, stderr, exit status and the lock file, byte for byte. The network mirror is a loopback HTTPS server in
// this process whose self-signed CA both tools trust through SSL_CERT_FILE (Go reads it on Linux; Foresight does
// the same). `providers mirror` (Foresight takes packages from the CLI configuration's mirrors, Terraform only from
// registries, so it is checked on its own) writes the packed layout and JSON indexes that terraform then installs
// from, as a filesystem mirror and as a network mirror. Comparisons with terraform skip with a printed notice
// where it is not installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { extname, join, normalize } from 'node:path';
import { generateCertificate } from '../../server/plugin/tls';
import { hashPackageDir } from '../../server/plugin/discovery';
import { hashZipH1, readZip, writeZip } from '../../server/plugin/zip';
import { lstatSync, readlinkSync } from 'node:fs';
import { relative } from 'node:path';

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
import { CLI, copyWorkspace, harness, hasTerraform, workspace, type Harness } from './_served';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command without blocking this process's event loop (the HTTPS mirror is served from here). */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((res) => {
    const c = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => c.kill('SIGKILL'), 120_000);
    c.on('close', (status) => {
      clearTimeout(t);
      res({ status, stdout, stderr });
    });
  });
}
const tf = (dir: string, args: string[], env: NodeJS.ProcessEnv) => run('terraform', args, dir, env);
const fs = (dir: string, args: string[], env: NodeJS.ProcessEnv) => run(process.execPath, [CLI, ...args], dir, env);

function wrapper(dir: string, type: string, served: string): void {
  mkdirSync(dir, { recursive: true });
  const f = join(dir, `terraform-provider-${type}`);
  writeFileSync(f, `#!/bin/sh\nexec '${process.execPath}' '${CLI}' provider serve ${served}\n`);
  chmodSync(f, 0o755);
}

/**
 * A filesystem mirror with example.com/test/random 1.0.0 (unpacked, linux_amd64 and darwin_arm64) and
 * example.com/test/null 2.0.0 (packed, linux_amd64 only).
 */
async function mirror(h: Harness): Promise<string> {
  const m = join(h.root, 'mirror');
  wrapper(join(m, 'example.com/test/random/1.0.0/linux_amd64'), 'random', 'random');
  wrapper(join(m, 'example.com/test/random/1.0.0/darwin_arm64'), 'random', 'random');
  writeFileSync(join(m, 'example.com/test/random/1.0.0/darwin_arm64/README'), 'darwin build\n');
  const pkg = join(h.root, 'nullpkg');
  wrapper(pkg, 'null', 'null');
  mkdirSync(join(m, 'example.com/test/null'), { recursive: true });
  await writeZip(join(m, 'example.com/test/null/terraform-provider-null_2.0.0_linux_amd64.zip'), [{ name: 'terraform-provider-null', path: join(pkg, 'terraform-provider-null') }]);
  return m;
}

const MAIN =
  'terraform {\n  required_providers {\n    random = {\n      source  = "example.com/test/random"\n      version = "~> 1.0"\n    }\n    null = {\n      source = "example.com/test/null"\n    }\n  }\n}\n';

/** A regular expression for a phrase that Terraform's 78-column wrapping may break at any space. */
function words(phrase: string): RegExp {
  return new RegExp(phrase.split(' ').map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('\\s+'));
}

function lockOf(d: string): string | null {
  return existsSync(join(d, '.terraform.lock.hcl')) ? readFileSync(join(d, '.terraform.lock.hcl'), 'utf8') : null;
}

async function compare(a: string, b: string, args: string[], env: NodeJS.ProcessEnv, what: string, sortLines = false): Promise<Run> {
  const [t, f] = await Promise.all([tf(a, args, env), fs(b, args, env)]);
  const norm = (s: string) => (sortLines ? s.split('\n').sort().join('\n') : s);
  assert.equal(norm(f.stdout), norm(t.stdout), `${what}: stdout`);
  assert.equal(f.stderr, t.stderr, `${what}: stderr`);
  assert.equal(f.status, t.status, `${what}: exit status`);
  assert.equal(lockOf(b), lockOf(a), `${what}: lock file`);
  return t;
}

test('providers lock -fs-mirror: the same lines, errors and lock file as terraform (unpacked and packed packages, platforms, named providers)', { skip: !hasTerraform && 'terraform not installed' }, async () => {
  if (!hasTerraform) return void console.log('# SKIP: terraform is not on PATH');
  const h = harness({ providers: [] });
  try {
    const m = await mirror(h);
    writeFileSync(h.rc, '');
    const env = { ...h.env };
    const a = workspace(h, 'tf', { 'main.tf': MAIN });
    const b = copyWorkspace(a, join(h.root, 'fs'));
    // Option errors first (nothing written).
    await compare(a, b, ['providers', 'lock', '-fs-mirror', m, '-net-mirror=https://example.com/'], env, 'both mirrors');
    await compare(a, b, ['providers', 'lock', '-no-color', '-net-mirror=http://example.com/'], env, 'http net mirror');
    await compare(a, b, ['providers', 'lock', '-no-color', `-fs-mirror=${m}`, '-platform=linux'], env, 'bad platform');
    await compare(a, b, ['providers', 'lock', '-no-color', `-fs-mirror=${m}`, 'example.com/test/other'], env, 'provider not required');
    await compare(a, b, ['providers', 'lock', '-no-color', '-bogus'], env, 'unknown flag');
    // One provider named: random from the unpacked mirror.
    let t = await compare(a, b, ['providers', 'lock', '-no-color', `-fs-mirror=${m}`, 'example.com/test/random'], env, 'random alone');
    assert.match(t.stdout, /^- Fetching example\.com\/test\/random 1\.0\.0 for linux_amd64\.\.\.\n- Retrieved example\.com\/test\/random 1\.0\.0 for linux_amd64 \(unauthenticated\)\n- Obtained example\.com\/test\/random checksums for linux_amd64; This was a new provider/);
    // Colour codes too, and again: nothing new.
    t = await compare(a, b, ['providers', 'lock', `-fs-mirror=${m}`, 'example.com/test/random'], env, 'random again');
    assert.match(t.stdout, /Terraform has validated the lock file and found no need for changes\./);
    // Another platform: an additional checksum for random.
    t = await compare(a, b, ['providers', 'lock', '-no-color', `-fs-mirror=${m}`, '-platform=darwin_arm64', 'example.com/test/random'], env, 'darwin');
    assert.match(t.stdout, /Additional checksums for this platform are now tracked/);
    assert.equal((lockOf(b)!.match(/"h1:/g) ?? []).length, 2);
    // null is packed and exists only for linux_amd64: asking for darwin_arm64 fails for it.
    t = await compare(a, b, ['providers', 'lock', '-no-color', `-fs-mirror=${m}`, '-platform=darwin_arm64', 'example.com/test/null'], env, 'null on darwin');
    assert.match(t.stderr, words('provider example.com/test/null 2.0.0 is not available for darwin_arm64'));
    t = await compare(a, b, ['providers', 'lock', '-no-color', `-fs-mirror=${m}`, 'example.com/test/null'], env, 'null');
    assert.equal(t.status, 0, t.stderr);
    // The h1: hash of the packed package is the unpacked tree's, the same one init records.
    assert.match(lockOf(b)!, /provider "example\.com\/test\/null" \{\n  version = "2\.0\.0"\n  hashes = \[\n    "h1:/);
    // A provider the mirror lacks, with constraints.
    writeFileSync(join(a, 'main.tf'), MAIN.replace('example.com/test/null"', 'example.com/test/null"\n      version = ">= 3.0"'));
    writeFileSync(join(b, 'main.tf'), readFileSync(join(a, 'main.tf')));
    writeFileSync(join(a, '.terraform.lock.hcl'), '');
    writeFileSync(join(b, '.terraform.lock.hcl'), '');
    t = await compare(a, b, ['providers', 'lock', '-no-color', `-fs-mirror=${m}`, 'example.com/test/null'], env, 'no release matches');
    assert.match(t.stderr, words('no available releases match the given constraints >= 3.0.0'));
  } finally {
    h.dispose();
  }
});

// ---- network mirror -------------------------------------------------------------------------------------------

interface Mirror {
  url: string;
  requests: { path: string; version: string | undefined }[];
  close(): Promise<void>;
}

/** Serves a directory over HTTPS on 127.0.0.1 (JSON as application/json). */
async function serve(root: string, certPem: string, keyPem: string): Promise<Mirror> {
  const requests: Mirror['requests'] = [];
  const server: Server = createServer({ cert: certPem, key: keyPem }, (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'https://x').pathname);
    requests.push({ path, version: req.headers['x-terraform-version'] as string | undefined });
    const file = join(root, normalize(path));
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': extname(file) === '.json' ? 'application/json' : 'application/zip' }).end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `https://localhost:${port}/`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

test('providers mirror writes the packed layout and JSON indexes; terraform init installs from it as a filesystem mirror; served over HTTPS, providers lock -net-mirror and init through a network_mirror agree with terraform', async () => {
  const h = harness({ providers: [] });
  let srv: Mirror | undefined;
  try {
    const m = await mirror(h);
    writeFileSync(h.rc, `provider_installation {\n  filesystem_mirror {\n    path = ${JSON.stringify(m)}\n  }\n}\n`);
    const a = workspace(h, 'tf', { 'main.tf': MAIN });
    const out = join(h.root, 'packed');
    const r = await fs(a, ['providers', 'mirror', '-no-color', '-platform=linux_amd64', '-platform=darwin_arm64', out], h.env);
    assert.equal(
      r.stdout,
      '- Mirroring example.com/test/null...\n  - Selected v2.0.0 with no constraints\n  - Downloading package for linux_amd64...\n  - Downloading package for darwin_arm64...\n' +
        '- Mirroring example.com/test/random...\n  - Selected v1.0.0 to meet constraints ~> 1.0\n  - Downloading package for linux_amd64...\n  - Downloading package for darwin_arm64...\n',
    );
    assert.equal(r.status, 1);
    assert.match(r.stderr, /Error: Provider release not available\n\nFailed to download example\.com\/test\/null v2\.0\.0 for darwin_arm64: provider\nexample\.com\/test\/null 2\.0\.0 is not available for darwin_arm64\.\n/);
    const rdir = join(out, 'example.com/test/random');
    assert.deepEqual(readdirSync(rdir).sort(), ['1.0.0.json', 'index.json', 'terraform-provider-random_1.0.0_darwin_arm64.zip', 'terraform-provider-random_1.0.0_linux_amd64.zip']);
    assert.equal(readFileSync(join(rdir, 'index.json'), 'utf8'), '{\n  "versions": {\n    "1.0.0": {}\n  }\n}');
    const linuxZip = join(rdir, 'terraform-provider-random_1.0.0_linux_amd64.zip');
    const h1 = await hashZipH1(linuxZip);
    assert.equal(h1, await hashPackageDir(join(m, 'example.com/test/random/1.0.0/linux_amd64')));
    const idx = JSON.parse(readFileSync(join(rdir, '1.0.0.json'), 'utf8'));
    assert.deepEqual(idx.archives['linux_amd64'], { url: 'terraform-provider-random_1.0.0_linux_amd64.zip', hashes: [h1] });
    assert.deepEqual(readZip(join(rdir, 'terraform-provider-random_1.0.0_darwin_arm64.zip')).entries.map((e) => [e.name, (e.mode & 0o777).toString(8)]), [
      ['README', '644'],
      ['terraform-provider-random', '755'],
    ]);
    // The packed null archive was copied as it is.
    assert.deepEqual(readFileSync(join(out, 'example.com/test/null/terraform-provider-null_2.0.0_linux_amd64.zip')), readFileSync(join(m, 'example.com/test/null/terraform-provider-null_2.0.0_linux_amd64.zip')));

    if (!hasTerraform) return void console.log('# SKIP: terraform is not on PATH; the mirror is not installed by terraform');
    // terraform init from the packed directory as a filesystem mirror.
    const rc2 = join(h.root, 'packed.rc');
    writeFileSync(rc2, `provider_installation {\n  filesystem_mirror {\n    path = ${JSON.stringify(out)}\n  }\n}\n`);
    const w = workspace(h, 'w1', { 'main.tf': MAIN });
    const i1 = await tf(w, ['init', '-no-color'], { ...h.env, TF_CLI_CONFIG_FILE: rc2 });
    assert.equal(i1.status, 0, i1.stdout + i1.stderr);
    assert.match(i1.stdout, /- Installed example\.com\/test\/random v1\.0\.0 \(unauthenticated\)/);
    assert.ok(lockOf(w)!.includes(JSON.stringify(h1)));

    // Served over HTTPS: providers lock -net-mirror from both tools; terraform init through a network_mirror.
    const cert = generateCertificate();
    const ca = join(h.root, 'ca.pem');
    writeFileSync(ca, cert.certPem);
    srv = await serve(out, cert.certPem, cert.keyPem);
    const env = { ...h.env, SSL_CERT_FILE: ca, TF_CLI_CONFIG_FILE: rc2 };
    const x = workspace(h, 'x-tf', { 'main.tf': MAIN });
    const y = copyWorkspace(x, join(h.root, 'x-fs'));
    let t = await compare(x, y, ['providers', 'lock', '-no-color', `-net-mirror=${srv.url}`, 'example.com/test/random'], env, 'net mirror');
    assert.match(t.stdout, /- Retrieved example\.com\/test\/random 1\.0\.0 for linux_amd64 \(verified checksum\)\n/);
    assert.ok(lockOf(y)!.includes(JSON.stringify(h1)));
    t = await compare(x, y, ['providers', 'lock', '-no-color', `-net-mirror=${srv.url}`, '-platform=windows_amd64', 'example.com/test/random'], env, 'net mirror, missing platform');
    assert.match(t.stderr, words('does not have a package of example.com/test/random 1.0.0 for windows_amd64'));
    t = await compare(x, y, ['providers', 'lock', '-no-color', `-net-mirror=${srv.url}nothing/`, 'example.com/test/random'], env, 'net mirror, not found');
    assert.match(t.stderr, words('provider example.com/test/random was not found in any of the search locations'));
    const seen = srv.requests.filter((q) => q.path.endsWith('index.json'));
    assert.ok(seen.length >= 2 && seen.every((q) => q.version === '1.11.4'), JSON.stringify(seen));
    // init through a network_mirror block: the same output ("verified checksum"), lock file and installed files.
    const rc3 = join(h.root, 'net.rc');
    writeFileSync(rc3, `provider_installation {\n  network_mirror {\n    url = ${JSON.stringify(srv.url)}\n  }\n}\n`);
    const netEnv = { ...env, TF_CLI_CONFIG_FILE: rc3 };
    const n1 = workspace(h, 'n-tf', { 'main.tf': MAIN });
    const n2 = copyWorkspace(n1, join(h.root, 'n-fs'));
    t = await compare(n1, n2, ['init', '-no-color'], netEnv, 'init from a network mirror', true);
    assert.equal(t.status, 0, t.stdout + t.stderr);
    assert.match(t.stdout, /- Installed example\.com\/test\/random v1\.0\.0 \(verified checksum\)\n/);
    assert.deepEqual(tree(join(n2, '.terraform')), tree(join(n1, '.terraform')));
    t = await compare(n1, n2, ['init', '-no-color'], netEnv, 'init again from a network mirror', true);
    assert.match(t.stdout, /- Using previously-installed example\.com\/test\/random v1\.0\.0\n/);
    // A version whose document lacks this platform.
    writeFileSync(join(out, 'example.com/test/null/index.json'), JSON.stringify({ versions: { '2.0.0': {}, '2.1.0': {} } }));
    writeFileSync(join(out, 'example.com/test/null/2.1.0.json'), JSON.stringify({ archives: { darwin_arm64: { url: 'x.zip', hashes: [] } } }));
    for (const d of [n1, n2]) writeFileSync(join(d, 'main.tf'), MAIN.replace('example.com/test/null"', 'example.com/test/null"\n      version = "2.1.0"'));
    t = await compare(n1, n2, ['init', '-no-color', '-upgrade'], netEnv, 'init, mirror lacks the platform', true);
    assert.equal(t.status, 1);
    assert.match(t.stderr, words('Provider example.com/test/null v2.1.0 does not have a package available for your current platform, linux_amd64.'));
    // A wrong hash in the index: both refuse the package.
    writeFileSync(join(rdir, '1.0.0.json'), JSON.stringify({ archives: { linux_amd64: { url: 'terraform-provider-random_1.0.0_linux_amd64.zip', hashes: ['h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='] } } }));
    writeFileSync(join(x, '.terraform.lock.hcl'), '');
    writeFileSync(join(y, '.terraform.lock.hcl'), '');
    t = await compare(x, y, ['providers', 'lock', '-no-color', `-net-mirror=${srv.url}`, 'example.com/test/random'], env, 'net mirror, bad hash');
    assert.match(t.stderr, words('provider package doesn\'t match the expected checksum "h1:AAAA'));
  } finally {
    await srv?.close();
    h.dispose();
  }
});
