// The V8 code cache of dist/server.js (server/loader.ts): each thread of the language server (main, analysis worker,
// run worker, started here by a state request) writes its own cache a while after its start when it had none (FORESIGHT_CODE_CACHE_WRITE_MS,
// shortened here), a server started with the caches answers as before and does not rewrite them, and a corrupt
// cache is ignored. The command line's cache is test/cli/codecache.test.ts's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TestClient } from './client';
import { StateRequest } from '../../server/lsp/protocol';

const ROOT = mkdtempSync(join(tmpdir(), 'foresight-server-codecache-'));
const CACHE = join(ROOT, 'cache');
const WS = join(ROOT, 'ws');

function files(): string[] {
  try {
    return readdirSync(CACHE).filter((f) => !f.endsWith('.tmp')).sort();
  } catch {
    return [];
  }
}

/**
 * Starts a server with the cache in CACHE, opens main.tf (one unsupported argument), reads the state (which starts the
 * run worker), and returns its diagnostics.
 */
async function session(holdMs: number): Promise<string[]> {
  const saved = { dir: process.env.FORESIGHT_CODE_CACHE_DIR, ms: process.env.FORESIGHT_CODE_CACHE_WRITE_MS, off: process.env.FORESIGHT_CODE_CACHE };
  process.env.FORESIGHT_CODE_CACHE_DIR = CACHE;
  process.env.FORESIGHT_CODE_CACHE_WRITE_MS = '300';
  delete process.env.FORESIGHT_CODE_CACHE;
  const c = new TestClient();
  try {
    await c.initialize({}, { debounceMs: 0 });
    const uri = pathToFileURL(join(WS, 'main.tf')).href;
    await c.open(uri, 'resource "terraform_data" "a" {\n  inputt = 1\n}\n');
    const p = await c.waitFor('diagnostics of main.tf', () => (c.latest(uri)?.diagnostics.length ? c.latest(uri) : undefined), 60_000);
    await c.request(StateRequest.method, { directory: WS });
    await new Promise((r) => setTimeout(r, holdMs));
    return p.diagnostics.map((d) => String(d.message));
  } finally {
    await c.stop();
    for (const [k, v] of [['FORESIGHT_CODE_CACHE_DIR', saved.dir], ['FORESIGHT_CODE_CACHE_WRITE_MS', saved.ms], ['FORESIGHT_CODE_CACHE', saved.off]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

test('each server thread writes its cache once; a server with the caches answers the same and keeps them', async () => {
  mkdirSync(WS, { recursive: true });
  writeFileSync(join(WS, 'main.tf'), 'resource "terraform_data" "a" {\n  inputt = 1\n}\n');
  try {
    const first = await session(2_000);
    assert.ok(first.length > 0);
    const written = files();
    for (const role of ['main', 'foresight-analysis', 'foresight-preview'])
      assert.ok(
        written.some((f) => new RegExp(`^server-[0-9a-f]{16}-${role}-v\\d+\\.\\d+\\.\\d+-[a-z0-9]+\\.v8cache$`).test(f)),
        `${role} cache in ${written.join(', ')}`,
      );
    const mtimes = written.map((f) => statSync(join(CACHE, f)).mtimeMs);
    const second = await session(1_000);
    assert.deepEqual(second, first);
    assert.deepEqual(files(), written);
    assert.deepEqual(written.map((f) => statSync(join(CACHE, f)).mtimeMs), mtimes);

    // A damaged cache is ignored (the server answers the same) and replaced by a good one.
    const main = written.find((f) => f.includes('-main-'))!;
    writeFileSync(join(CACHE, main), 'not a cache');
    const third = await session(1_500);
    assert.deepEqual(third, first);
    assert.ok(statSync(join(CACHE, main)).size > 1000);
  } finally {
    rmSync(ROOT, { recursive: true, force: true });
  }
});
