// The recorded terraform 1.11.4 CLI scenarios (test/data/scenarios, a copy of the shared conformance corpus with
// its README and tools) replayed against dist/cli.js with the corpus's own comparer
// (tools/scenario-steps-json.py wraps tools/scenario-compare.py and reports every run step's failing fields).
//
// Contract: every step that differs from the recording is listed in test/data/scenarios/known-differences.txt
// ("SCENARIO STEP FIELDS"), so a step that passes today cannot silently start failing; and the number of passing
// steps never drops below FLOOR, the count measured when the list was last regenerated. When steps start to pass,
// remove their lines and raise FLOOR (the test prints them). Skipped with a notice when python3 is missing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = process.cwd();
const DATA = join(ROOT, 'test/data/scenarios');
/** Passing run steps measured when known-differences.txt was last regenerated. */
const FLOOR = 300;

interface Result {
  scenario: string;
  steps: [number, string[]][];
}

test('recorded CLI scenarios: no regressions, passing steps never below the floor', { timeout: 15 * 60 * 1000 }, (t) => {
  const py = spawnSync('python3', ['--version']);
  if (py.error || py.status !== 0) {
    t.skip('python3 is not installed; the scenario replay needs it');
    return;
  }
  const cli = join(ROOT, 'dist/cli.js');
  assert.ok(existsSync(cli), 'dist/cli.js missing: run `node esbuild.mjs` first (scripts/test.mjs does)');
  const r = spawnSync('python3', [join(DATA, 'tools/scenario-steps-json.py'), DATA, 'node', cli], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, TF_LOG: '' },
  });
  assert.equal(r.status, 0, `replay failed: ${r.stderr}`);
  const results = JSON.parse(r.stdout) as Result[];
  const known = new Map<string, string>();
  for (const line of readFileSync(join(DATA, 'known-differences.txt'), 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [sc, step, fields] = line.split(/\s+/);
    known.set(`${sc} ${step}`, fields ?? '');
  }
  let passed = 0;
  const regressions: string[] = [];
  const nowPassing: string[] = [];
  const report: string[] = [];
  for (const res of results) {
    let ok = 0;
    for (const [i, bad] of res.steps) {
      const key = `${res.scenario} ${i}`;
      if (bad.length === 0) {
        ok++;
        if (known.has(key)) nowPassing.push(key);
      } else if (!known.has(key)) regressions.push(`${key} ${bad.join(',')}`);
    }
    passed += ok;
    report.push(`${res.scenario.padEnd(34)} ${String(ok).padStart(3)}/${res.steps.length}`);
  }
  t.diagnostic(`scenario steps passing: ${passed}\n${report.join('\n')}`);
  if (nowPassing.length) t.diagnostic(`now passing (remove from known-differences.txt, raise FLOOR): ${nowPassing.join('; ')}`);
  assert.deepEqual(regressions, [], 'steps that used to pass now fail');
  assert.ok(passed >= FLOOR, `${passed} scenario steps pass, floor is ${FLOOR}`);
});
