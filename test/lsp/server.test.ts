// Language-server tests over a real connection: dist/server.js over stdio, driven by TestClient.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DocumentSymbol, TextEdit } from 'vscode-languageserver-protocol';
import { TestClient } from './client';

function workspace(files: Record<string, string> = {}): { dir: string; uri(name: string): string; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-lsp-'));
  for (const [n, t] of Object.entries(files)) writeFileSync(join(dir, n), t);
  return { dir, uri: (n) => pathToFileURL(join(dir, n)).href, done: () => rmSync(dir, { recursive: true, force: true }) };
}

const BROKEN = 'variable "x" {\n  default = "😀" +\n}\n';

test('a syntax error is published with its range, and cleared when the edit fixes it', async () => {
  const ws = workspace();
  const c = new TestClient();
  try {
    const init = await c.initialize();
    assert.equal(init.capabilities.diagnosticProvider, undefined, 'a client without pull support gets pushed diagnostics');
    const uri = ws.uri('main.tf');
    await c.open(uri, BROKEN);
    const first = await c.waitFor('diagnostics for main.tf', () => {
      const p = c.latest(uri);
      return p && p.diagnostics.length > 0 ? p : undefined;
    });
    assert.equal(first.version, 1);
    const d = first.diagnostics[0];
    assert.equal(d.severity, 1);
    assert.equal(d.source, 'foresight');
    assert.equal(d.message, 'Invalid expression\n\nExpected the start of an expression, but found an invalid expression token.');
    assert.equal(d.code, 'syntax');
    // Terraform's range is line 2 column 18 (code points) to line 3 column 1: the newline after `+`. In
    // UTF-16 the emoji counts twice, so LSP's start character is 18, not 17.
    assert.deepEqual(d.range, { start: { line: 1, character: 18 }, end: { line: 2, character: 0 } });
    assert.equal(first.diagnostics.length, 1);

    // Replace `+` (0-based line 1, UTF-16 columns 17..18 after the two-unit emoji) with nothing.
    assert.equal(BROKEN.split('\n')[1].indexOf('+'), 17);
    await c.change(uri, 2, [{ range: { start: { line: 1, character: 16 }, end: { line: 1, character: 18 } }, text: '' }]);
    const cleared = await c.waitFor('cleared diagnostics', () => {
      const p = c.latest(uri);
      return p && p.version === 2 ? p : undefined;
    });
    assert.deepEqual(cleared.diagnostics, []);
    assert.ok(c.alive);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('only documents whose diagnostics changed are republished', async () => {
  const ws = workspace();
  const c = new TestClient();
  try {
    await c.initialize();
    const a = ws.uri('a.tf');
    const b = ws.uri('b.tf');
    await c.open(a, 'locals {\n  a = 1\n}\n');
    await c.open(b, BROKEN);
    await c.waitFor('b has diagnostics', () => (c.latest(b)?.diagnostics.length ?? 0) > 0);
    await c.waitFor('a published', () => c.latest(a));
    const before = c.published.filter((p) => p.uri === b).length;
    const statuses = c.statuses.length;
    await c.change(a, 2, [{ range: { start: { line: 1, character: 6 }, end: { line: 1, character: 7 } }, text: '2' }]);
    await c.waitFor('the edit was analysed', () => c.statuses.length > statuses);
    assert.equal(c.published.filter((p) => p.uri === b).length, before, 'b is not republished');
  } finally {
    await c.stop();
    ws.done();
  }
});

test('pull diagnostics answer textDocument/diagnostic when the client supports them', async () => {
  const ws = workspace();
  const c = new TestClient();
  try {
    const init = await c.initialize({ textDocument: { diagnostic: {} }, workspace: { diagnostics: { refreshSupport: true } } });
    assert.ok(init.capabilities.diagnosticProvider);
    const uri = ws.uri('main.tf');
    await c.open(uri, BROKEN);
    const r = await c.request<{ kind: string; items: { message: string }[] }>('textDocument/diagnostic', { textDocument: { uri } });
    assert.equal(r.kind, 'full');
    assert.ok(r.items.length > 0);
    await c.change(uri, 2, [{ text: 'variable "x" {}\n' }]);
    const r2 = await c.request<{ items: unknown[] }>('textDocument/diagnostic', { textDocument: { uri } });
    assert.deepEqual(r2.items, []);
    assert.equal(c.published.length, 0, 'nothing is pushed in pull mode');
  } finally {
    await c.stop();
    ws.done();
  }
});

test('document symbols outline the blocks with their labels', async () => {
  const ws = workspace();
  const c = new TestClient();
  try {
    await c.initialize();
    const uri = ws.uri('main.tf');
    await c.open(uri, 'resource "terraform_data" "x" {\n  input = 1\n  lifecycle {\n  }\n}\n\nvariable "v" {}\n');
    const syms = await c.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
    assert.deepEqual(
      syms.map((s) => [s.name, s.range.start.line, s.range.end.line]),
      [
        ['resource "terraform_data" "x"', 0, 4],
        ['variable "v"', 6, 6],
      ],
    );
    assert.deepEqual(
      syms[0].children?.map((s) => s.name),
      ['input', 'lifecycle'],
    );
    assert.deepEqual(syms[0].selectionRange, { start: { line: 0, character: 0 }, end: { line: 0, character: 29 } });

    // After incremental edits (the tree is re-parsed incrementally), the outline follows the text.
    await c.change(uri, 2, [
      { range: { start: { line: 7, character: 0 }, end: { line: 7, character: 0 } }, text: 'output "o" {\n  value = 1\n}\n' },
      { range: { start: { line: 0, character: 27 }, end: { line: 0, character: 28 } }, text: 'renamed' },
    ]);
    const after = await c.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
    assert.deepEqual(
      after.map((s) => [s.name, s.range.start.line, s.range.end.line]),
      [
        ['resource "terraform_data" "renamed"', 0, 4],
        ['variable "v"', 6, 6],
        ['output "o"', 7, 9],
      ],
    );
  } finally {
    await c.stop();
    ws.done();
  }
});

test('the server survives bad input and keeps answering', async () => {
  const ws = workspace({ 'disk.tf': 'locals {\n' });
  const c = new TestClient();
  try {
    await c.initialize();
    const uri = ws.uri('main.tf');
    await c.change(ws.uri('never-opened.tf'), 5, [{ text: 'x' }]);
    await c.open(uri, '\u0000\uffff\ud800{{{{ "${' + '['.repeat(5000));
    await c.change(uri, 2, [{ range: { start: { line: 99, character: 99 }, end: { line: 120, character: 0 } }, text: '}}}' }]);
    await c.open('untitled:Untitled-1', 'resource "a" {');
    const syms = await c.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
    assert.ok(Array.isArray(syms));
    await c.waitFor('diagnostics for the garbage document', () => c.latest(uri));
    const edits = await c.request<TextEdit[] | null>('textDocument/formatting', {
      textDocument: { uri },
      options: { tabSize: 2, insertSpaces: true },
    });
    assert.ok(edits === null || Array.isArray(edits));
    assert.ok(c.alive);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('formatting returns what terraform fmt writes, as one whole-document edit', async () => {
  const ws = workspace();
  const c = new TestClient();
  try {
    await c.initialize();
    const uri = ws.uri('main.tf');
    const text = 'resource "terraform_data" "x" {\ninput=1\n    long_name = "y"\n  tags = {a=1,\n  bb="x"}\n}\n';
    await c.open(uri, text);
    const edits = await c.request<TextEdit[]>('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } });
    // Recorded from `terraform fmt -` (Terraform 1.11.4).
    const expected = 'resource "terraform_data" "x" {\n  input     = 1\n  long_name = "y"\n  tags = { a = 1,\n  bb = "x" }\n}\n';
    assert.deepEqual(edits, [{ range: { start: { line: 0, character: 0 }, end: { line: 6, character: 0 } }, newText: expected }]);

    await c.change(uri, 2, [{ text: expected }]);
    assert.deepEqual(await c.request('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } }), []);

    await c.change(uri, 3, [{ text: 'resource "a" {\n' }]);
    assert.deepEqual(await c.request('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } }), [], 'no edit for a file with syntax errors');
  } finally {
    await c.stop();
    ws.done();
  }
});

test('static diagnostics see the other open documents of the module directory', async () => {
  const ws = workspace();
  const c = new TestClient();
  try {
    await c.initialize();
    const a = ws.uri('a.tf');
    await c.open(a, 'locals {\n  x = var.v\n}\n');
    const first = await c.waitFor('undeclared variable', () => {
      const p = c.latest(a);
      return p && p.diagnostics.length > 0 ? p.diagnostics : undefined;
    });
    assert.equal(first.length, 1);
    assert.match(String(first[0].message), /^Reference to undeclared input variable\n\nAn input variable with the name "v" has not been declared/);
    // Terraform: line 2, columns 7 to 12.
    assert.deepEqual(first[0].range, { start: { line: 1, character: 6 }, end: { line: 1, character: 11 } });

    // Declaring the variable in another, unsaved document clears the diagnostic.
    await c.open(ws.uri('b.tf'), 'variable "v" {}\n');
    await c.waitFor('a cleared', () => c.latest(a)?.diagnostics.length === 0);

    // Closing b.tf (never saved) brings the error back, and clears b.tf's own diagnostics.
    await c.close(ws.uri('b.tf'));
    await c.waitFor('a errs again', () => (c.latest(a)?.diagnostics.length ?? 0) > 0);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('an analysis over its time limit is abandoned, and the server keeps answering and analysing', async () => {
  const ws = workspace();
  const other = workspace();
  const c = new TestClient();
  try {
    await c.initialize({}, { debounceMs: 10, analysisTimeoutMs: 300 });
    const slow = ws.uri('slow.tf');
    // 100,000 local values take seconds to check and evaluate (a 5 MB string literal no longer does: files too
    // large for tree-sitter are read by the linear hand-written parser in about 0.1 s).
    await c.open(slow, `locals {\n${Array.from({ length: 100_000 }, (_, i) => `  l${i} = ${i}\n`).join('')}}\n`);
    const b = other.uri('b.tf');
    await c.open(b, 'variable "v" {}\n');
    const syms = await c.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: b } });
    assert.deepEqual(syms.map((s) => s.name), ['variable "v"'], 'answered while the analysis runs in its worker');
    const failed = await c.waitFor('the abandoned analysis', () =>
      (c.statuses as { directory: string; failure?: string }[]).find((s) => s.directory === ws.dir && s.failure),
    );
    assert.match(failed.failure ?? '', /took longer than 300 ms and was abandoned/);

    await c.change(slow, 2, [{ text: BROKEN }]);
    const p = await c.waitFor('diagnostics after the restart', () => {
      const l = c.latest(slow);
      return l && l.version === 2 ? l : undefined;
    });
    assert.equal(p.diagnostics.length, 1);
    assert.ok(c.alive);
  } finally {
    await c.stop();
    ws.done();
    other.done();
  }
});

test('a .tfvars document gets its syntax checked', async () => {
  const ws = workspace();
  const c = new TestClient();
  try {
    await c.initialize();
    const uri = ws.uri('dev.tfvars');
    await c.open(uri, 'region = "eu"\nzones = [\n');
    const p = await c.waitFor('tfvars diagnostics', () => {
      const l = c.latest(uri);
      return l && l.diagnostics.length > 0 ? l : undefined;
    });
    assert.equal(p.diagnostics[0].severity, 1);
    await c.change(uri, 2, [{ text: 'region = "eu"\nzones = ["a"]\n' }]);
    await c.waitFor('tfvars cleared', () => c.latest(uri)?.version === 2 && c.latest(uri)?.diagnostics.length === 0);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('in pull mode, a change that alters another pulled document asks the client to pull again', async () => {
  const ws = workspace();
  const c = new TestClient();
  try {
    await c.initialize({ textDocument: { diagnostic: {} }, workspace: { diagnostics: { refreshSupport: true } } });
    const a = ws.uri('a.tf');
    const b = ws.uri('b.tf');
    await c.open(a, 'locals {\n  x = var.v\n}\n');
    await c.open(b, '\n');
    const pull = (uri: string) => c.request<{ items: { message: string }[] }>('textDocument/diagnostic', { textDocument: { uri } });
    assert.equal((await pull(a)).items.length, 1);
    assert.equal((await pull(b)).items.length, 0);
    const before = c.refreshes;
    await c.change(b, 2, [{ text: 'variable "v" {}\n' }]);
    assert.equal((await pull(b)).items.length, 0);
    await c.waitFor('a refresh request', () => c.refreshes > before);
    assert.equal((await pull(a)).items.length, 0);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('a file changed on disk re-analyses the open documents of its module', async () => {
  const ws = workspace();
  const c = new TestClient();
  try {
    await c.initialize();
    const a = ws.uri('a.tf');
    await c.open(a, 'locals {\n  x = var.v\n}\n');
    await c.waitFor('undeclared variable', () => (c.latest(a)?.diagnostics.length ?? 0) > 0);
    writeFileSync(join(ws.dir, 'vars.tf'), 'variable "v" {}\n');
    await c.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: ws.uri('vars.tf'), type: 1 }] });
    await c.waitFor('cleared by the new file', () => c.latest(a)?.diagnostics.length === 0);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('syntax errors of an edited document are published before a slow module analysis ends', async () => {
  // A 3 MB string literal in a sibling file makes the directory analysis take seconds.
  const ws = workspace({ 'big.tf': `locals {\n  big = "${'b'.repeat(3 * 1024 * 1024)}"\n}\n` });
  const c = new TestClient();
  try {
    await c.initialize();
    const uri = ws.uri('main.tf');
    await c.open(uri, BROKEN);
    const fast = await c.waitFor('fast syntax diagnostics', () => c.latest(uri));
    const analysed = () => (c.statuses as { directory: string }[]).some((s) => s.directory === ws.dir);
    assert.equal(analysed(), false, 'published while the directory analysis still runs');
    assert.equal(fast.diagnostics[0].message.toString().split('\n')[0], 'Invalid expression');
    assert.deepEqual(fast.diagnostics[0].range, { start: { line: 1, character: 18 }, end: { line: 2, character: 0 } });
    await c.waitFor('the directory analysis', analysed, 60_000);
    assert.deepEqual(c.latest(uri)?.diagnostics, fast.diagnostics, 'the analysis agrees');

    // Fixing the error clears it at once, again before the (slow) analysis of the edit ends.
    const statuses = c.statuses.length;
    await c.change(uri, 2, [{ range: { start: { line: 1, character: 16 }, end: { line: 1, character: 18 } }, text: '' }]);
    const cleared = await c.waitFor('fast clear', () => (c.latest(uri)?.version === 2 ? c.latest(uri) : undefined));
    assert.deepEqual(cleared.diagnostics, []);
    assert.equal(c.statuses.length, statuses, 'cleared while the analysis of the edit still runs');
  } finally {
    await c.stop();
    ws.done();
  }
});
