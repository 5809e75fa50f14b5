import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParsedDocument } from '../../server/syntax/document';
import { initParser } from '../../server/syntax/treesitter';

function check(initial: string, edits: { line: number; from: number; to: number; text: string }[], wantText: string, wantErrors: string[]) {
  const doc = new ParsedDocument('main.tf', initial);
  try {
    doc.applyChanges(
      edits.map((e) => ({ range: { start: { line: e.line, character: e.from }, end: { line: e.line, character: e.to } }, text: e.text })),
    );
    assert.equal(doc.text, wantText);
    assert.equal(doc.tree.rootNode.text, wantText);
    // an incremental parse must equal a fresh one
    const fresh = new ParsedDocument('main.tf', wantText);
    assert.equal(doc.tree.rootNode.toString(), fresh.tree.rootNode.toString());
    fresh.dispose();
    assert.deepEqual(doc.diagnostics().map((d) => d.summary), wantErrors);
  } finally {
    doc.dispose();
    doc.dispose();
  }
}

test('incremental edits re-parse like a fresh parse', async () => {
  await initParser();
  check('locals {\n  a = 1\n}\n', [{ line: 1, from: 6, to: 7, text: '"two"' }], 'locals {\n  a = "two"\n}\n', []);
  check('locals {\n  a = 1\n}\n', [{ line: 2, from: 0, to: 1, text: '' }], 'locals {\n  a = 1\n\n', ['Unclosed configuration block']);
  check('locals {\n  a = 1\n}\n', [{ line: 1, from: 7, to: 7, text: ' b = 2' }], 'locals {\n  a = 1 b = 2\n}\n', ['Missing newline after argument']);
});
