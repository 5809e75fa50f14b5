// V8's initial old generation flag, set for the analysis worker's start (server/lsp/analysisSpawn.ts): V8's flags are
// the process's and a code cache records them, so a cache made while the flag is set is rejected by a fresh process,
// and one made after resetInitialOldSpace is not (the code-cache loader, server/loader.ts, relies on this).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { INITIAL_OLD_GENERATION_MB, resetInitialOldSpace } from '../../server/lsp/analysisSpawn';

const SOURCE = 'function f(a) { return a + 1; }\nf(1);\n'.repeat(20);

/** Whether a fresh Node process rejects `data` as the code cache of SOURCE. */
function rejectedByFreshProcess(dir: string, data: Buffer): boolean {
  const file = join(dir, `cache-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, data);
  const check = `const s = new (require('node:vm').Script)(${JSON.stringify(SOURCE)}, { cachedData: require('node:fs').readFileSync(${JSON.stringify(file)}) }); process.stdout.write(String(s.cachedDataRejected));`;
  const r = spawnSync(process.execPath, ['-e', check], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout === 'true';
}

test('a code cache made under the worker start flag does not match a fresh process; after resetInitialOldSpace it does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-flags-'));
  try {
    assert.ok(INITIAL_OLD_GENERATION_MB > 0);
    setFlagsFromString(`--initial-old-space-size=${INITIAL_OLD_GENERATION_MB}`);
    const under = new Script(SOURCE);
    under.runInThisContext();
    assert.equal(rejectedByFreshProcess(dir, under.createCachedData()), true, 'made under the flag');
    resetInitialOldSpace();
    const after = new Script(SOURCE);
    after.runInThisContext();
    assert.equal(rejectedByFreshProcess(dir, after.createCachedData()), false, 'made after the reset');
  } finally {
    resetInitialOldSpace();
    rmSync(dir, { recursive: true, force: true });
  }
});
