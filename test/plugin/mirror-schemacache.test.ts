// The disk schema cache's lazy reading (server/plugin/schemacache.ts): for every built-in provider, in protocol 5
// and 6 form, the schemas read back from a cache entry equal the eager decoding of the same message, and only the
// types that are read get decoded (the others stay unevaluated getters until used). And the package hashes
// remembered on disk (server/plugin/discovery.ts hashPackageDir), which spare a new language server the rehash of
// a 700 MB provider binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_PROVIDERS } from '../../server/providers/builtin/index';
import { codecs, type Msg } from '../../server/plugin/convert';
import { SchemaCache } from '../../server/plugin/schemacache';
import { dropHashMemory, hashPackageDir } from '../../server/plugin/discovery';

function isLazy(obj: object, key: string): boolean {
  return typeof Object.getOwnPropertyDescriptor(obj, key)?.get === 'function';
}

test('schema cache: lazily decoded entries equal the eager decoding, per type and on demand (protocols 5 and 6)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fs-schemacache-'));
  try {
    let checked = 0;
    for (const b of BUILTIN_PROVIDERS) {
      const schemas = await b.factory({}).getProviderSchema();
      for (const v of [5, 6] as const) {
        const c = codecs(v).getProviderSchema;
        const msg = c.responseToProto(schemas, undefined as never, undefined as never) as Msg;
        const eager = c.responseFromProto(msg, undefined as never, undefined);
        const key = `h1:${b.name}-${v}`;
        new SchemaCache(dir).put(key, v, msg, eager);
        const fresh = new SchemaCache(dir);
        const lazy = fresh.get(key)!;
        assert.equal(fresh.stats.diskHits, 1);
        const names = Object.keys(eager.resourceTypes);
        assert.deepEqual(Object.keys(lazy.resourceTypes), names, `${b.name} v${v}: resource type names`);
        assert.deepEqual(Object.keys(lazy.dataSources), Object.keys(eager.dataSources), `${b.name} v${v}: data source names`);
        if (names.length > 1) {
          // Reading one type decodes that one only.
          assert.deepEqual(lazy.resourceTypes[names[0]], eager.resourceTypes[names[0]]);
          assert.equal(isLazy(lazy.resourceTypes, names[0]), false);
          assert.equal(isLazy(lazy.resourceTypes, names[1]), true, `${b.name} v${v}: ${names[1]} not decoded yet`);
        }
        // Everything else equals the eager form (deepEqual reads every getter).
        assert.deepEqual({ ...lazy, resourceTypes: { ...lazy.resourceTypes }, dataSources: { ...lazy.dataSources } }, eager, `${b.name} v${v}`);
        checked++;
      }
    }
    assert.equal(checked, BUILTIN_PROVIDERS.length * 2);
    // A corrupt entry is a miss, never an exception.
    writeFileSync(join(dir, 'x'), '');
    const bad = new SchemaCache(dir);
    const f = (bad as unknown as { file(k: string): string }).file('h1:bad');
    writeFileSync(f, Buffer.from([6, 0x12, 0x50, 0x01]));
    assert.equal(bad.get('h1:bad'), undefined);
    assert.equal(bad.stats.misses, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('package hashes are remembered on disk by file identity: a new process reuses them, any change to a file is rehashed', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fs-hashcache-'));
  const saved = process.env.FORESIGHT_HASH_CACHE_DIR;
  process.env.FORESIGHT_HASH_CACHE_DIR = join(root, 'hashes');
  try {
    const pkg = join(root, 'pkg');
    mkdirSync(pkg);
    const exe = join(pkg, 'terraform-provider-x');
    writeFileSync(exe, 'one');
    const h1 = await hashPackageDir(pkg);
    assert.equal(readdirSync(join(root, 'hashes')).length, 1);
    // A new process (memory forgotten) takes the remembered hash: prove it by planting a different one under the same key.
    const entry = join(root, 'hashes', readdirSync(join(root, 'hashes'))[0]);
    const j = JSON.parse(readFileSync(entry, 'utf8'));
    writeFileSync(entry, JSON.stringify({ ...j, hash: 'h1:remembered=' }));
    dropHashMemory();
    assert.equal(await hashPackageDir(pkg), 'h1:remembered=');
    // Same size, mtime set back: the ctime still changes, so the file is hashed again.
    const st = statSync(exe);
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(exe, 'two');
    utimesSync(exe, st.atime, st.mtime);
    dropHashMemory();
    const h2 = await hashPackageDir(pkg);
    assert.notEqual(h2, 'h1:remembered=');
    assert.notEqual(h2, h1);
    writeFileSync(exe, 'one');
    dropHashMemory();
    assert.equal(await hashPackageDir(pkg), h1);
    // "off" keeps nothing on disk.
    process.env.FORESIGHT_HASH_CACHE_DIR = 'off';
    dropHashMemory();
    rmSync(join(root, 'hashes'), { recursive: true });
    assert.equal(await hashPackageDir(pkg), h1);
    assert.equal(existsSync(join(root, 'hashes')), false);
  } finally {
    if (saved === undefined) delete process.env.FORESIGHT_HASH_CACHE_DIR;
    else process.env.FORESIGHT_HASH_CACHE_DIR = saved;
    rmSync(root, { recursive: true, force: true });
  }
});
