// Position and diagnostic conversion from the engine (1-based lines, code-point columns) to LSP (0-based
// lines, UTF-16 columns). Data-driven: each case is a text, an engine position and the LSP position.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineIndex, toLspDiagnostic } from '../../server/lsp/convert';
import { posAt, type Pos } from '../../server/diags/diagnostic';

function check(text: string, line: number, column: number, expected: [number, number]): void {
  const pos: Pos = { line, column, byte: 0 };
  const got = new LineIndex(text).toPosition(pos);
  assert.deepEqual([got.line, got.character], expected, `${JSON.stringify(text)} ${line}:${column}`);
}

test('ASCII positions shift to 0-based', () => {
  check('abc\ndef\n', 1, 1, [0, 0]);
  check('abc\ndef\n', 2, 3, [1, 2]);
  check('abc\ndef\n', 3, 1, [2, 0]);
});

test('characters outside the BMP count once in columns and twice in UTF-16', () => {
  check('a😀b\n', 1, 3, [0, 3]);
  check('😀😀x', 1, 3, [0, 4]);
  check('é€😀', 1, 4, [0, 4]);
});

test('columns past the end of a line clamp to it, lines past the end clamp to the end of the text', () => {
  check('ab\ncd', 1, 10, [0, 2]);
  check('ab\ncd', 9, 1, [1, 2]);
  check('', 1, 1, [0, 0]);
  check('x', 0, 0, [0, 0]);
});

test('a carriage return stays on its line (positions before it are exact)', () => {
  check('ab\r\ncd\r\n', 2, 2, [1, 1]);
  check('ab\r\ncd\r\n', 1, 3, [0, 2]);
});

test('engine positions computed by posAt round-trip through offsets', () => {
  const text = 'x = "😀"\n  y = "é" # ü\n\tz\n';
  const index = new LineIndex(text);
  for (let i = 0; i <= text.length; i++) {
    if (i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff) continue; // inside a pair
    assert.deepEqual(index.toPosition(posAt(text, i)), index.positionAt(i), `offset ${i}`);
  }
});

test('a diagnostic converts with its range, severity, message, detail and origin', () => {
  const text = 'locals {\n  a = "😀" + 1\n}\n';
  const d = toLspDiagnostic(
    {
      severity: 'warning',
      summary: 'Something odd',
      detail: 'Because.',
      subject: { filename: 'main.tf', start: { line: 2, column: 11, byte: 0 }, end: { line: 2, column: 14, byte: 0 } },
      values: [{ traversal: 'var.x', statement: 'is "a"' }],
      source: 'eval',
    },
    new LineIndex(text),
  );
  assert.deepEqual(d, {
    range: { start: { line: 1, character: 11 }, end: { line: 1, character: 14 } },
    severity: 2,
    message: 'Something odd\n\nBecause.\n\nvar.x is "a"',
    source: 'foresight',
    code: 'eval',
  });
});

test('a diagnostic without a range sits at the start; an inverted range collapses onto its start', () => {
  const index = new LineIndex('a\nb\n');
  assert.deepEqual(toLspDiagnostic({ severity: 'error', summary: 'No range' }, index).range, {
    start: { line: 0, character: 0 },
    end: { line: 0, character: 0 },
  });
  const inverted = toLspDiagnostic(
    { severity: 'error', summary: 'x', subject: { filename: 'f', start: { line: 2, column: 2, byte: 0 }, end: { line: 1, column: 1, byte: 0 } } },
    index,
  );
  assert.deepEqual(inverted.range, { start: { line: 1, character: 1 }, end: { line: 1, character: 1 } });
});
