// The V8 code cache of dist/cli.js (server/cli/loader.ts): a run writes the cache only when it had none, a run with
// the cache prints the same bytes, and a stale, truncated, corrupt or unwritable cache is ignored (the run behaves as
// without one and a good cache replaces the bad one). Each test uses its own cache directory
// (FORESIGHT_CODE_CACHE_DIR) and a private copy of dist/cli.js (other work may rebuild dist/ meanwhile).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = mkdtempSync(join(tmpdir(), 'foresight-codecache-'));
const CLI = (() => {
  const to = join(ROOT, 'bin', 'cli.js');
  mkdirSync(join(ROOT, 'bin'));
  for (let i = 0; i < 5; i++) {
    copyFileSync(resolve(process.cwd(), 'dist/cli.js'), to);
    for (const w of ['web-tree-sitter.wasm', 'tree-sitter-terraform.wasm']) copyFileSync(resolve(process.cwd(), 'dist', w), join(to, '..', w));
    if (spawnSync(process.execPath, [to, 'version'], { encoding: 'utf8', env: { ...process.env, FORESIGHT_CODE_CACHE: '0' } }).status === 0) break;
    spawnSync('sleep', ['2']);
  }
  return to;
})();

const WS = join(ROOT, 'ws');
mkdirSync(WS);
writeFileSync(join(WS, 'main.tf'), 'resource "terraform_data" "a" {\n  input = "x"\n}\n\noutput "o" {\n  value = terraform_data.a.input\n}\n');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(cacheDir: string | undefined, args: string[], extra: NodeJS.ProcessEnv = {}): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', FORESIGHT_CODE_CACHE: '', ...extra };
  if (cacheDir !== undefined) env.FORESIGHT_CODE_CACHE_DIR = cacheDir;
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: WS, encoding: 'utf8', env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const PLAN = ['plan', '-input=false', '-no-color'];
// The reference: the same command with the cache turned off.
const reference = run(undefined, PLAN, { FORESIGHT_CODE_CACHE: '0' });

function cacheFiles(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** The loader's checksum: the first 8 bytes of the payload's SHA-1. */
function checksum(b: Uint8Array): Buffer {
  return createHash('sha1').update(b).digest().subarray(0, 8);
}
const MAGIC = 0x46435632;

test('the reference plan (cache off) succeeds and writes no cache', () => {
  assert.equal(reference.status, 0, reference.stderr);
  assert.match(reference.stdout, /Plan: 1 to add, 0 to change, 0 to destroy\./);
  const dir = join(ROOT, 'off');
  const r = run(dir, PLAN, { FORESIGHT_CODE_CACHE: '0' });
  assert.deepEqual(r, reference);
  assert.deepEqual(cacheFiles(dir), []);
});

test('a first run writes one cache file per verb; a second run uses it, prints the same and does not rewrite it', () => {
  const dir = join(ROOT, 'fresh');
  const first = run(dir, PLAN);
  assert.deepEqual(first, reference);
  const files = cacheFiles(dir);
  assert.equal(files.length, 1);
  assert.match(files[0], /^cli-[0-9a-f]{16}-plan-v\d+\.\d+\.\d+-[a-z0-9]+\.v8cache$/);
  const p = join(dir, files[0]);
  const buf = readFileSync(p);
  assert.equal(buf.readUInt32LE(0), MAGIC);
  assert.equal(buf.readUInt32LE(4), buf.length - 16);
  assert.deepEqual(buf.subarray(8, 16), checksum(buf.subarray(16)));
  const mtime = statSync(p).mtimeMs;
  const second = run(dir, PLAN);
  assert.deepEqual(second, reference);
  assert.equal(statSync(p).mtimeMs, mtime);
  assert.deepEqual(readFileSync(p), buf);
  // Another verb gets its own file.
  const v = run(dir, ['version']);
  assert.equal(v.status, 0);
  assert.equal(cacheFiles(dir).length, 2);
});

for (const [name, damage] of [
  ['truncated', (b: Buffer) => b.subarray(0, Math.floor(b.length / 2))],
  ['a flipped payload byte', (b: Buffer) => Buffer.from(b).fill(0x5a, 1000, 1001)],
  ['a wrong magic number', (b: Buffer) => Buffer.from(b).fill(0, 0, 4)],
  ['empty', () => Buffer.alloc(0)],
  [
    // A header that checks out around bytes that are not V8's: V8's own checks reject them.
    'garbage with a valid header',
    (b: Buffer) => {
      const payload = Buffer.alloc(b.length - 16, 0x41);
      const head = Buffer.alloc(16);
      head.writeUInt32LE(MAGIC, 0);
      head.writeUInt32LE(payload.length, 4);
      checksum(payload).copy(head, 8);
      return Buffer.concat([head, payload]);
    },
  ],
] as const) {
  test(`a cache that is ${name} is ignored and replaced by a good one`, () => {
    const dir = join(ROOT, `bad-${name.replace(/\W+/g, '-')}`);
    assert.deepEqual(run(dir, PLAN), reference);
    const [f] = cacheFiles(dir);
    const p = join(dir, f);
    const good = readFileSync(p);
    writeFileSync(p, damage(good));
    assert.deepEqual(run(dir, PLAN), reference);
    const after = readFileSync(p);
    assert.equal(after.readUInt32LE(4), after.length - 16);
    assert.deepEqual(after.subarray(8, 16), checksum(after.subarray(16)));
    assert.deepEqual(cacheFiles(dir), [f]);
    assert.deepEqual(run(dir, PLAN), reference);
  });
}

test('a cache of another build (same name pattern, other hash) is not read, and is removed once an hour old', () => {
  const dir = join(ROOT, 'stale');
  mkdirSync(dir);
  const other = 'cli-0123456789abcdef-plan-v20.0.0-x64.v8cache';
  const recent = 'cli-fedcba9876543210-plan-v20.0.0-x64.v8cache';
  writeFileSync(join(dir, other), 'old');
  writeFileSync(join(dir, recent), 'recent');
  const old = new Date(Date.now() - 2 * 3_600_000);
  spawnSync('touch', ['-d', old.toISOString(), join(dir, other)]);
  assert.deepEqual(run(dir, PLAN), reference);
  const files = cacheFiles(dir);
  assert.ok(!files.includes(other), files.join());
  assert.ok(files.includes(recent), files.join());
  assert.equal(files.length, 2);
});

test('an unusable cache directory does not break a run', () => {
  const blocker = join(ROOT, 'not-a-dir');
  writeFileSync(blocker, 'x');
  assert.deepEqual(run(join(blocker, 'cache'), PLAN), reference);
});
