// The language server under random editing: hundreds of random incremental edits (random ranges, random
// text with brackets, quotes, template markers and arbitrary characters) go to a real server over stdio.
// The server must stay up, answer every request, publish diagnostics for the final version, and its
// incrementally re-parsed tree must give the same outline as a fresh parse of the same text.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentSymbol } from 'vscode-languageserver-protocol';
import { TestClient } from '../lsp/client';
import { CONFIG_SEEDS } from './seeds';

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['{', '}', '[', ']', '(', ')', '"', '${', '%{', '}', '\n', '  ', '=', 'x', 'var.a', '<<EOT\n', 'EOT\n', '#', '/*', '*/', 'é', '😀', '\\', ',', '.', '1.5', 'resource "a" "b" {\n', 'for x in y :'];

test('hundreds of random incremental edits: the server stays up and its tree stays consistent', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-lsp-fuzz-'));
  const c = new TestClient();
  const g = rng(4242);
  try {
    await c.initialize({}, { debounceMs: 5 });
    const uri = pathToFileURL(join(dir, 'main.tf')).href;
    const fresh = pathToFileURL(join(dir, 'fresh')).href;
    let doc = TextDocument.create(uri, 'terraform', 1, CONFIG_SEEDS['resources.tf']);
    await c.open(uri, doc.getText());
    const EDITS = 400;
    for (let v = 2; v <= EDITS + 1; v++) {
      const text = doc.getText();
      const a = Math.floor(g() * (text.length + 1));
      const b = Math.min(text.length, a + (g() < 0.25 ? 1 + Math.floor(g() * 4) : 0));
      let insert = '';
      for (let n = Math.floor(g() * 3); n > 0; n--) insert += PIECES[Math.floor(g() * PIECES.length)];
      if (g() < 0.05) insert += String.fromCharCode(Math.floor(g() * 0xffff));
      // Some edits end past the end of their line, as buggy clients send them (the rest of the line goes).
      const start = doc.positionAt(a);
      const range = g() < 0.03 ? { start, end: { line: start.line, character: 10_000 } } : { start, end: doc.positionAt(b) };
      doc = TextDocument.update(doc, [{ range, text: insert }], v);
      await c.change(uri, v, [{ range, text: insert }]);
      if (v % 50 === 0) {
        const syms = await c.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
        const check = `${fresh}-${v}.tf`;
        await c.open(check, doc.getText());
        const want = await c.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: check } });
        await c.close(check);
        assert.deepEqual(syms, want, `outline after edit ${v}`);
      }
    }
    const final = doc.getText();
    const last = await c.waitFor('diagnostics for the last version', () => (c.latest(uri)?.version === EDITS + 1 ? c.latest(uri) : undefined), 30_000);
    assert.ok(Array.isArray(last.diagnostics));

    const incremental = await c.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
    await c.open(`${fresh}.tf`, final);
    const reparsed = await c.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: `${fresh}.tf` } });
    assert.deepEqual(incremental, reparsed, 'the incremental tree and a fresh parse give the same outline');
    const count = (xs: DocumentSymbol[]): number => xs.reduce((n, s) => n + 1 + count(s.children ?? []), 0);
    t.diagnostic(`final text ${final.length} characters, ${count(incremental)} symbols, ${last.diagnostics.length} diagnostics`);
    await c.request('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } });
    assert.ok(c.alive);
    assert.deepEqual(c.logs.filter((l) => /failed|uncaught|unhandled/.test(l)), [], 'no handler failed');
  } finally {
    await c.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
