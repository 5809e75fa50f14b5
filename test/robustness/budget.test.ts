// A tree-sitter time budget: with `budgetMs`, a file whose parse takes longer is abandoned for the
// hand-written syntax checker's diagnostics plus one warning; without a budget nothing changes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateDirectory } from '../../server/config/validate';
import { messageDiagnostic } from '../../server/diags/diagnostic';

const LONG = 5 * 1024 * 1024;

test('a 5 MB string over the parse budget ends in the syntax diagnostics and a "too large" warning', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-budget-'));
  try {
    await validateDirectory(dir, {});
    writeFileSync(join(dir, 'main.tf'), `x = "${'a'.repeat(LONG)}`);
    const t0 = performance.now();
    const r = await validateDirectory(dir, { budgetMs: 200 });
    const ms = performance.now() - t0;
    assert.ok(ms < 5000, `${ms} ms`);
    const warn = r.diagnostics.find((d) => d.summary === 'File too large to analyse fully');
    assert.ok(warn, JSON.stringify(r.diagnostics.map((d) => d.summary)));
    assert.equal(warn.severity, 'warning');
    assert.match(warn.detail ?? '', /main\.tf \(5\.0 MB\).*200 ms/);
    const unterminated = r.diagnostics.find((d) => d.summary === 'Unterminated template string');
    assert.ok(unterminated, JSON.stringify(r.diagnostics.map((d) => d.summary)));
    assert.equal(unterminated.severity, 'error');
    assert.equal(unterminated.subject?.start.line, 1);

    // Small files parse within the budget: the same diagnostics as without one.
    writeFileSync(join(dir, 'main.tf'), 'variable "a" {\n  type = string\n}\nx = 1\n');
    const a = await validateDirectory(dir, { budgetMs: 200 });
    const b = await validateDirectory(dir, {});
    // Compared as they are sent to the editor (ranges as positions: each run has its own source texts).
    assert.deepEqual(a.diagnostics.map(messageDiagnostic), b.diagnostics.map(messageDiagnostic));
    assert.ok(!a.diagnostics.some((d) => d.summary === 'File too large to analyse fully'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
