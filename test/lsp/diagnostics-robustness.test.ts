// Robustness of the diagnostics path (issue 7 §5) over a real stdio connection to dist/server.js: a cancelled
// pull answers RequestCancelled at once; a request whose handler fails answers InternalError and the cause is
// logged; newer edits supersede older analyses (results of overtaken analyses are never published, the last
// published list is the last version's); only the directories of open documents are analysed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc/node';
import { TestClient } from './client';

function workspace(files: Record<string, string> = {}): { dir: string; uri(name: string): string; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-lsp-robust-'));
  for (const [n, t] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, n)), { recursive: true });
    writeFileSync(join(dir, n), t);
  }
  return { dir, uri: (n) => pathToFileURL(join(dir, n)).href, done: () => rmSync(dir, { recursive: true, force: true }) };
}

const MAIN = 'resource "terraform_data" "a" {\n  inputt = 1\n}\n';

test('a cancelled pull answers RequestCancelled at once; the next pull answers', async () => {
  const ws = workspace({ 'main.tf': MAIN });
  const c = new TestClient();
  try {
    // A long debounce keeps the pull waiting, so the cancellation is what ends it.
    await c.initialize({ textDocument: { diagnostic: {} } }, { debounceMs: 3_000, preview: false });
    await c.open(ws.uri('main.tf'), MAIN);
    const src = new CancellationTokenSource();
    const t0 = performance.now();
    const pending = c.conn.sendRequest('textDocument/diagnostic', { textDocument: { uri: ws.uri('main.tf') } }, src.token);
    setTimeout(() => src.cancel(), 50);
    const err = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ResponseError, `answered with an error, got ${String(err)}`);
    assert.equal(err.code, -32800);
    assert.ok(performance.now() - t0 < 2_000, 'answered before the debounce expired');
    const r = await c.request<{ items: { message: string }[] }>('textDocument/diagnostic', { textDocument: { uri: ws.uri('main.tf') } });
    assert.deepEqual(
      r.items.map((d) => d.message),
      ['Unsupported argument\n\nAn argument named "inputt" is not expected here. Did you mean "input"?'],
    );
  } finally {
    await c.stop();
    ws.done();
  }
});

test('a request whose handler fails answers InternalError and logs the cause; the server goes on', async () => {
  const ws = workspace({ 'main.tf': MAIN });
  const c = new TestClient();
  try {
    await c.initialize({}, { debounceMs: 10, preview: false });
    // No textDocument: the handler throws on reading its uri.
    const err = await c.conn.sendRequest('textDocument/documentSymbol', {}).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ResponseError);
    assert.equal(err.code, -32603);
    assert.match(err.message, /^documentSymbol failed: /);
    await c.waitFor('the logged cause', () => c.logs.find((l) => l.startsWith('documentSymbol failed: ') && l.includes('TypeError')));
    // A notification with bad parameters is logged and dropped.
    await c.conn.sendNotification('textDocument/didChange', { textDocument: { uri: ws.uri('nope.tf'), version: 2 }, contentChanges: [{ text: 'x' }] });
    await c.waitFor('the logged notification', () => c.logs.find((l) => l.startsWith('didChange for a document that is not open')));
    await c.open(ws.uri('main.tf'), MAIN);
    const p = await c.waitFor('diagnostics', () => c.latest(ws.uri('main.tf')));
    assert.equal(p.diagnostics.length, 1);
    assert.ok(c.alive);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('newer edits supersede older analyses: only the final version’s diagnostics, far fewer analyses than edits', async () => {
  const ws = workspace({ 'main.tf': MAIN });
  const c = new TestClient();
  try {
    await c.initialize({}, { debounceMs: 0, preview: false });
    const uri = ws.uri('main.tf');
    await c.open(uri, MAIN);
    await c.waitFor('first diagnostics', () => c.latest(uri));
    const statusesBefore = c.statuses.length;
    // 200 edits as fast as the connection takes them: toggle "inputt" ↔ "input", ending on "inputt".
    const at = { line: 1, character: 7 };
    for (let v = 2; v <= 201; v++) {
      const change = v % 2 === 0 ? { range: { start: at, end: { line: 1, character: 8 } }, text: '' } : { range: { start: at, end: at }, text: 't' };
      await c.change(uri, v, [change]);
    }
    // A last edit whose diagnostics were never seen before, so it must be published (unchanged lists are not).
    await c.change(uri, 202, [{ range: { start: at, end: at }, text: 'tt' }]);
    const last = await c.waitFor('diagnostics of version 202', () => (c.latest(uri)?.version === 202 ? c.latest(uri) : undefined), 30_000);
    assert.deepEqual(last.diagnostics.map((d) => d.message), ['Unsupported argument\n\nAn argument named "inputttt" is not expected here.']);
    // Versions only grow; every list published is right for its version (odd: "inputt", even: "input").
    const mine = c.published.filter((p) => p.uri === uri);
    for (let i = 1; i < mine.length; i++) assert.ok((mine[i].version ?? 0) >= (mine[i - 1].version ?? 0));
    for (const p of mine) if (p.version && p.version > 1 && p.version < 202) assert.equal(p.diagnostics.length, p.version % 2, `version ${p.version}`);
    const analyses = c.statuses.length - statusesBefore;
    assert.ok(analyses < 200, `${analyses} analyses for 200 edits`);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('only the directories of open documents are analysed, lazily', async () => {
  const ws = workspace({
    'a/main.tf': MAIN,
    'b/main.tf': MAIN,
    'c/main.tf': MAIN,
  });
  const c = new TestClient();
  try {
    await c.initialize({}, { debounceMs: 0, preview: false });
    const analysed = (d: string) => (c.statuses as { directory: string }[]).some((s) => s.directory === join(ws.dir, d));
    await c.open(ws.uri('b/main.tf'), MAIN);
    await c.waitFor('b analysed', () => analysed('b'));
    await c.open(ws.uri('a/main.tf'), MAIN);
    await c.waitFor('a analysed', () => analysed('a'));
    const dirs = new Set((c.statuses as { directory: string }[]).map((s) => s.directory));
    assert.deepEqual([...dirs].sort(), [join(ws.dir, 'a'), join(ws.dir, 'b')]);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('cold open: the first opened file gets its own file’s diagnostics before the module’s analysis, a subset of it', async () => {
  // A module whose analysis is slow to arrive: many files. The first pass checks the opened file alone.
  const files: Record<string, string> = {};
  for (let i = 0; i < 60; i++) files[`f${i}.tf`] = `resource "terraform_data" "r${i}" {\n  input = var.v\n}\n`;
  files['variables.tf'] = 'variable "v" {\n  default = 1\n}\n';
  const active = 'resource "terraform_data" "a" {\n  inputt = 1\n  input  = var.v\n}\n\nresource "random_string" "s" {\n  length = 3\n  lenght = 2\n}\n';
  files['active.tf'] = active;
  const ws = workspace(files);
  const c = new TestClient();
  try {
    await c.initialize({}, { debounceMs: 0, preview: false });
    const uri = ws.uri('active.tf');
    await c.open(uri, active);
    const first = await c.waitFor('first diagnostics', () => c.latest(uri));
    const msgs = (p: typeof first) => p.diagnostics.map((d) => `${d.range.start.line}:${d.range.start.character} ${String(d.message).split('\n')[0]}`);
    const full = await c.waitFor('the module analysis', () => (msgs(c.latest(uri)!).length === 2 ? c.latest(uri) : undefined), 30_000);
    // The resource reading var.v (declared in another file) is left out of the first pass; the analysis
    // reports its misspelt argument too.
    assert.deepEqual(msgs(full), ['1:2 Unsupported argument', '7:2 Unsupported argument']);
    assert.deepEqual(msgs(first), ['7:2 Unsupported argument']);
    assert.equal(c.published.filter((p) => p.uri === uri).length, 2, 'the first pass, then the analysis');
  } finally {
    await c.stop();
    ws.done();
  }
});

test('odd request orders: change before open, open twice, close twice, untitled documents, pulls of closed documents', async () => {
  const ws = workspace({ 'main.tf': MAIN });
  const c = new TestClient();
  try {
    await c.initialize({ textDocument: { diagnostic: {} } }, { debounceMs: 0, preview: false });
    const uri = ws.uri('main.tf');
    await c.change(uri, 5, [{ text: 'x' }]);
    await c.close(uri);
    await c.open(uri, 'resource "terraform_data" "a" {\n  bogus = 1\n}\n');
    await c.open(uri, MAIN); // opened again: the second text wins
    const r = await c.request<{ items: { message: string }[] }>('textDocument/diagnostic', { textDocument: { uri } });
    assert.deepEqual(r.items.map((d) => d.message.split('\n')[0]), ['Unsupported argument']);
    assert.match(r.items[0].message, /"inputt"/);
    await c.open('untitled:Untitled-1', MAIN);
    const u = await c.request<{ items: unknown[] }>('textDocument/diagnostic', { textDocument: { uri: 'untitled:Untitled-1' } });
    assert.deepEqual(u.items, [], 'a document without a directory gets no module analysis');
    const syms = await c.request<unknown[]>('textDocument/documentSymbol', { textDocument: { uri: 'untitled:Untitled-1' } });
    assert.equal(syms.length, 1);
    await c.close(uri);
    await c.close(uri);
    const closed = await c.request<{ items: unknown[] }>('textDocument/diagnostic', { textDocument: { uri } });
    assert.deepEqual(closed.items, []);
    assert.ok(c.alive);
    assert.deepEqual(c.logs.filter((l) => /uncaught|unhandled| failed: /.test(l)), []);
  } finally {
    await c.stop();
    ws.done();
  }
});
