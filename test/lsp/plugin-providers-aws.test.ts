// The language server with the real hashicorp/aws provider (test/bench/lsp-aws-bench.ts): the workspace's aws binary
// validates while typing; prints the editor latencies (cold, warm schema cache, p50/p95 after an edit). Skips with a
// printed notice where the aws filesystem mirror is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { awsMirror, measureLspAws, measureLspAwsPreview } from '../bench/lsp-aws-bench';

test('aws: provider diagnostics in the editor, and its latencies', async (t) => {
  if (!awsMirror()) {
    console.log('# SKIP lsp aws test: no filesystem mirror with hashicorp/aws (set FORESIGHT_AWS_MIRROR)');
    t.skip('no aws filesystem mirror');
    return;
  }
  const f = await measureLspAws(50, (s) => console.log(s));
  assert.ok(f);
  console.log(
    `# lsp aws: first diagnostics cold ${f.coldMs.toFixed(0)} ms, warm schema cache ${f.warmMs.toFixed(0)} ms, after an edit p50 ${f.editP50Ms.toFixed(0)} ms / p95 ${f.editP95Ms.toFixed(0)} ms (${f.edits} edits)`,
  );
  assert.equal(f.lastMessages.length, 2, JSON.stringify(f.lastMessages));
  assert.match(f.lastMessages.find((m) => m.includes('visibility_timeout_seconds')) ?? '', /100050/);
  assert.ok(f.lastMessages.some((m) => m.includes('retention_in_days')), JSON.stringify(f.lastMessages));
});

test('aws: the inline preview plans with the real provider: every resource, what is known after apply, and its latencies', async (t) => {
  if (!awsMirror()) {
    console.log('# SKIP lsp aws preview test: no filesystem mirror with hashicorp/aws (set FORESIGHT_AWS_MIRROR)');
    t.skip('no aws filesystem mirror');
    return;
  }
  const f = await measureLspAwsPreview(10, (s) => console.log(s));
  assert.ok(f);
  console.log(`# lsp aws preview: first ${f.firstMs.toFixed(0)} ms, after an edit p50 ${f.editP50Ms.toFixed(0)} ms / p95 ${f.editP95Ms.toFixed(0)} ms (${f.edits} edits)`);
  for (const p of [f.first, f.last]) {
    assert.deepEqual(p.diagnostics, []);
    assert.deepEqual(p.summary, { add: 9, change: 0, destroy: 0, import: 0, replace: 0 });
    assert.equal(p.changes.length, 9);
    assert.ok(p.changes.every((c) => c.action === 'create' && !c.inState), JSON.stringify(p.changes));
  }
  console.log(`# lsp aws preview hints: ${JSON.stringify(f.hints.slice(0, 6))}`);
  assert.ok(f.hints.some((h) => /known after apply/.test(h)), JSON.stringify(f.hints));
});
