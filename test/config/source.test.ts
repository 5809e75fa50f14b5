// Positions and ranges of loaded files (server/config/source.ts SourceText, server/diags/diagnostic.ts
// OffsetRange): a range is its text and two offsets, read as HCL positions; the helpers that join and compare
// ranges give on offsets what they give on positions; a range goes to another thread only as a plain object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rangeBetween, SourceText } from '../../server/config/source';
import { messageDiagnostic, OffsetRange, plainRange, posAt, rangeSpan, rangeWithin, type Range } from '../../server/diags/diagnostic';

const TEXT = 'a = "é"\nb = "😀" # x\r\nc = 1\n';

test('an OffsetRange reads as the positions of its offsets (lines, code-point columns, UTF-8 bytes)', () => {
  const src = new SourceText('main.tf', TEXT);
  for (let from = 0; from <= TEXT.length; from++)
    for (const to of [from, Math.min(TEXT.length, from + 3), TEXT.length]) {
      // Offsets inside a surrogate pair have no position of their own.
      if (/[\udc00-\udfff]/.test(TEXT[from] ?? '') || /[\udc00-\udfff]/.test(TEXT[to] ?? '')) continue;
      const r = src.range(from, to);
      assert.ok(r instanceof OffsetRange);
      assert.equal(r.filename, 'main.tf');
      assert.deepEqual(r.start, posAt(TEXT, from), `start of ${from}`);
      assert.deepEqual(r.end, posAt(TEXT, to), `end of ${to}`);
      assert.deepEqual(JSON.parse(JSON.stringify(r)), { filename: 'main.tf', start: posAt(TEXT, from), end: posAt(TEXT, to) });
      assert.deepEqual(plainRange(r), { filename: 'main.tf', start: posAt(TEXT, from), end: posAt(TEXT, to) });
    }
});

test('joining and comparing ranges gives the same on offsets as on positions', () => {
  const src = new SourceText('main.tf', TEXT);
  const offsets = [0, 1, 4, 7, 8, 12, 16, 20, TEXT.length];
  for (const a0 of offsets)
    for (const a1 of offsets.filter((o) => o >= a0))
      for (const b0 of offsets)
        for (const b1 of offsets.filter((o) => o >= b0)) {
          const a = src.range(a0, a1);
          const b = src.range(b0, b1);
          const pa: Range = plainRange(a);
          const pb: Range = plainRange(b);
          assert.deepEqual(plainRange(rangeSpan(a, b)), plainRange(rangeSpan(pa, pb)));
          assert.deepEqual(plainRange(rangeBetween(a, b)), plainRange(rangeBetween(pa, pb)));
          assert.equal(rangeWithin(a, b), rangeWithin(pa, pb));
        }
});

test('a range is posted to another thread as a plain object, never as its text', () => {
  const src = new SourceText('main.tf', TEXT);
  const r = src.range(4, 7);
  assert.throws(() => structuredClone(r), { name: 'DataCloneError' });
  const d = messageDiagnostic({ severity: 'error', summary: 's', subject: r, context: src.range(0, 7) });
  const copy = structuredClone(d);
  assert.deepEqual(copy, { severity: 'error', summary: 's', subject: plainRange(r), context: plainRange(src.range(0, 7)) });
  const plain = { severity: 'warning' as const, summary: 'p', subject: plainRange(r) };
  assert.equal(messageDiagnostic(plain), plain);
});
