// OpenDocument (server/lsp/documents.ts): the syntax tree follows the client's changes lazily, when next used. After
// any sequence of ranged and whole-text changes, with the tree read in between or not, the tree and the syntax
// diagnostics are those of a fresh parse of the document's text; a tree left unused through many changes is
// dropped and parsed again from the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver';
import { OpenDocument } from '../../server/lsp/documents';
import { ParsedDocument } from '../../server/syntax/document';
import { initParser } from '../../server/syntax/treesitter';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const BASE = 'variable "a" {\n  default = 1\n}\n\nresource "terraform_data" "x" {\n  input = [var.a, "two"]\n}\n';
const PIECES = ['{', '}', '"', '\n', 'x = 1\n', ' ', 'var.a', '[', ']', '(', ')', '#', 'locals {\n', ''];

function expected(text: string): { tree: string; diags: string } {
  const p = new ParsedDocument('/w/main.tf', text);
  try {
    return { tree: p.tree.rootNode.toString(), diags: JSON.stringify(p.diagnostics()) };
  } finally {
    p.dispose();
  }
}

test('the tree follows ranged and whole-text changes when it is next used', async () => {
  await initParser();
  const next = rng(7);
  const doc = new OpenDocument('file:///w/main.tf', 'terraform', 1, BASE);
  try {
    assert.equal(doc.hasTree, false);
    assert.deepEqual({ tree: doc.tree.rootNode.toString(), diags: JSON.stringify(doc.syntaxDiagnostics()) }, expected(BASE));
    let version = 1;
    for (let round = 0; round < 60; round++) {
      // One to four changes per update, a whole text now and then; the tree is read after some updates only.
      const changes: TextDocumentContentChangeEvent[] = [];
      const n = 1 + Math.floor(next() * 4);
      let text = doc.text;
      for (let k = 0; k < n; k++) {
        if (next() < 0.1) {
          text = next() < 0.5 ? BASE : text.slice(0, Math.floor(next() * text.length));
          changes.push({ text });
          continue;
        }
        const lines = text.split('\n');
        const line = Math.floor(next() * lines.length);
        const a = Math.floor(next() * (lines[line].length + 1));
        const b = Math.min(lines[line].length, a + Math.floor(next() * 3));
        const insert = PIECES[Math.floor(next() * PIECES.length)];
        changes.push({ range: { start: { line, character: a }, end: { line, character: b } }, text: insert });
        lines[line] = lines[line].slice(0, a) + insert + lines[line].slice(b);
        text = lines.join('\n');
      }
      doc.update(changes, ++version);
      assert.equal(doc.text, text);
      if (next() < 0.5) continue;
      assert.deepEqual({ tree: doc.tree.rootNode.toString(), diags: JSON.stringify(doc.syntaxDiagnostics()) }, expected(doc.text), `round ${round}`);
    }
    assert.deepEqual({ tree: doc.tree.rootNode.toString(), diags: JSON.stringify(doc.syntaxDiagnostics()) }, expected(doc.text));
  } finally {
    doc.dispose();
  }
});

test('a tree unused through many changes is dropped, and parsed again from the text', async () => {
  await initParser();
  const doc = new OpenDocument('file:///w/main.tf', 'terraform', 1, BASE);
  try {
    doc.syntaxDiagnostics();
    assert.equal(doc.hasTree, true);
    let version = 1;
    for (let k = 0; k < 300; k++) doc.update([{ range: { start: { line: 1, character: 12 }, end: { line: 1, character: 12 } }, text: 'x' }], ++version);
    assert.equal(doc.hasTree, false, 'dropped rather than kept with 300 pending changes (the limit is 64)');
    assert.deepEqual({ tree: doc.tree.rootNode.toString(), diags: JSON.stringify(doc.syntaxDiagnostics()) }, expected(doc.text));
  } finally {
    doc.dispose();
  }
});
