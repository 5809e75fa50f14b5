// A randomized language-server session (issue 7, checks): 10,000 messages in a random order with a fixed seed
// on a generated workspace (a root module calling a child module, built-in providers): incremental edits that
// make and mend syntax, reference and provider errors, arbitrary text, hovers, completions, code lens, inlay
// hints, symbols, formatting, previews, plan runs, run and state listings, closes and re-opens, and requests
// cancelled right after they were sent. Requests go out in overlapping groups, as a busy editor sends them.
// Checks: the server stays alive; every request is answered (a result, or RequestCancelled for a cancelled
// one, never left pending); no request answers another error (a handler bug fails the test with its log);
// no uncaught exception; and the final analysis diagnostics of every open document equal those a fresh server
// gives for the same texts (pulled from it, so they are complete). Run time: 72 s on the shared 2-core machine
// under a load average of 16 (the server's CPU time is a fraction of that).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc/node';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { TestClient } from '../lsp/client';

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

const FILES: Record<string, string> = {
  'variables.tf': `variable "env" {
  type    = string
  default = "dev"
}

variable "n" {
  type    = number
  default = 2
}
`,
  'main.tf': `locals {
  prefix = "app-\${var.env}"
  names  = toset(["a", "b"])
}

resource "terraform_data" "one" {
  input = {
    name = local.prefix
    size = var.n
  }
}

resource "terraform_data" "many" {
  count = var.n
  input = "\${local.prefix}-\${count.index}"
  triggers_replace = [terraform_data.one.output]
}

resource "random_string" "s" {
  for_each = local.names
  length   = 8
  special  = false
}

module "child" {
  source = "./modules/child"
  name   = local.prefix
}
`,
  'outputs.tf': `output "one" {
  value = terraform_data.one.output
}

output "child" {
  value = module.child.id
}
`,
  'modules/child/main.tf': `variable "name" {
  type = string
}

resource "terraform_data" "c" {
  input = var.name
}

output "id" {
  value = terraform_data.c.id
}
`,
};

/** Replacements that make or mend errors of every kind the analysis reports. */
const TOKENS = [
  ['input', 'inputt'],
  ['length', 'lenght'],
  ['var.n', 'var.m'],
  ['local.prefix', 'local.prefx'],
  ['= 8', '= "eight"'],
  ['special  = false', 'special  = false\n  special = true'],
  ['{', '{{'],
  ['"dev"', '"dev'],
  ['terraform_data', 'terraform_dat'],
  ['type    = number', 'type    = numbr'],
];
const PIECES = ['{', '}', '[', ']', '"', '${', '\n', '  ', '=', 'x', 'var.env', '#', 'é', '😀', ',', '.', '1', 'resource "terraform_data" "z" {\n}\n'];

test('10,000 random requests, edits and cancellations: the server survives and ends with a fresh server’s diagnostics', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-lsp-session-'));
  for (const [n, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, n)), { recursive: true });
    writeFileSync(join(dir, n), text);
  }
  const uriOf = (n: string) => pathToFileURL(join(dir, n)).href;
  const g = rng(20261123);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(g() * xs.length)];
  const c = new TestClient();
  const docs = new Map<string, TextDocument>();
  const counts = new Map<string, number>();
  const failures = new Map<string, number>();
  let cancelled = 0;
  const TOTAL = 10_000;
  try {
    await c.initialize({ textDocument: { inlayHint: {}, hover: {}, completion: {}, codeLens: {} } }, { debounceMs: 20, previewDebounceMs: 50 });
    for (const [n, text] of Object.entries(FILES)) {
      const doc = TextDocument.create(uriOf(n), 'terraform', 1, text);
      docs.set(n, doc);
      await c.open(doc.uri, text);
    }
    const names = Object.keys(FILES);
    let inflight: Promise<unknown>[] = [];
    const request = (method: string, params: object, cancel: boolean) => {
      counts.set(method, (counts.get(method) ?? 0) + 1);
      const src = new CancellationTokenSource();
      const p = c.conn.sendRequest(method, params, src.token).then(
        () => undefined,
        (e: unknown) => {
          if (e instanceof ResponseError && (e.code === -32800 || e.code === -32802)) cancelled++;
          else failures.set(method, (failures.get(method) ?? 0) + 1);
        },
      );
      if (cancel) src.cancel();
      inflight.push(p);
    };
    const randomPosition = (doc: TextDocument) => doc.positionAt(Math.floor(g() * (doc.getText().length + 1)));
    for (let k = 0; k < TOTAL; k++) {
      const name = pick(names);
      let doc = docs.get(name);
      const r = g();
      if (!doc) {
        // Closed earlier: re-open it with its text on disk (what the fresh server will see too).
        doc = TextDocument.create(uriOf(name), 'terraform', 1, FILES[name]);
        docs.set(name, doc);
        await c.open(doc.uri, doc.getText());
        counts.set('didOpen', (counts.get('didOpen') ?? 0) + 1);
        continue;
      }
      const cancel = g() < 0.1;
      const textDocument = { uri: doc.uri };
      if (r < 0.4) {
        // An edit: a token swap (makes or mends an error) or random pieces at a random place.
        const text = doc.getText();
        let change: { range: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string };
        const [from, to] = pick(TOKENS);
        const swap = g() < 0.5 ? [from, to] : [to, from];
        const at = text.indexOf(swap[0]);
        if (g() < 0.7 && at >= 0) change = { range: { start: doc.positionAt(at), end: doc.positionAt(at + swap[0].length) }, text: swap[1] };
        else {
          const a = Math.floor(g() * (text.length + 1));
          const b = Math.min(text.length, a + Math.floor(g() * 3));
          let insert = '';
          for (let n = Math.floor(g() * 3); n > 0; n--) insert += pick(PIECES);
          change = { range: { start: doc.positionAt(a), end: doc.positionAt(b) }, text: insert };
        }
        doc = TextDocument.update(doc, [change], doc.version + 1);
        docs.set(name, doc);
        await c.change(doc.uri, doc.version, [change]);
        counts.set('didChange', (counts.get('didChange') ?? 0) + 1);
      } else if (r < 0.55) request('textDocument/hover', { textDocument, position: randomPosition(doc) }, cancel);
      else if (r < 0.7) request('textDocument/completion', { textDocument, position: randomPosition(doc) }, cancel);
      else if (r < 0.78) request('textDocument/codeLens', { textDocument }, cancel);
      else if (r < 0.86) request('textDocument/inlayHint', { textDocument, range: { start: { line: 0, character: 0 }, end: { line: doc.lineCount, character: 0 } } }, cancel);
      else if (r < 0.9) request('textDocument/documentSymbol', { textDocument }, cancel);
      else if (r < 0.92) request('textDocument/formatting', { textDocument, options: { tabSize: 2, insertSpaces: true } }, cancel);
      else if (r < 0.94) request('textDocument/definition', { textDocument, position: randomPosition(doc) }, cancel);
      else if (r < 0.955) request('foresight/preview', { directory: dir }, cancel);
      else if (r < 0.96) request('foresight/runs', {}, cancel);
      else if (r < 0.965) request('foresight/state', { directory: dir }, cancel);
      else if (r < 0.967) request('foresight/plan', { directory: dir, refresh: false }, cancel);
      else if (r < 0.975 && name !== 'main.tf') {
        // Close (its diagnostics are cleared; its file reverts to the text on disk for its siblings).
        await c.close(doc.uri);
        docs.delete(name);
        counts.set('didClose', (counts.get('didClose') ?? 0) + 1);
      } else request('textDocument/semanticTokens/full', { textDocument }, cancel);
      // Overlapping groups of requests, as a busy editor sends them.
      if (inflight.length >= 16) {
        await Promise.all(inflight);
        inflight = [];
      }
      if (!c.alive) break;
    }
    await Promise.all(inflight);
    assert.ok(c.alive, 'the server is alive');
    const summary = [...counts].map(([m, n]) => `${m} ${n}${failures.get(m) ? ` (${failures.get(m)} failed)` : ''}`).join(', ');
    t.diagnostic(`messages: ${summary}; ${cancelled} answered as cancelled`);
    assert.deepEqual(Object.fromEntries(failures), {}, `requests answered with an error other than cancellation; logs:\n${c.logs.filter((l) => / failed: /.test(l)).slice(0, 5).join('\n')}`);
    const bugs = c.logs.filter((l) => /uncaught|unhandled/.test(l));
    assert.deepEqual(bugs, [], 'no uncaught exception or unhandled rejection');

    // The final diagnostics: a fresh server with the same open texts is the reference.
    const fresh = new TestClient();
    let want: Map<string, Diagnostic[]>;
    try {
      // Pull mode: each answer waits for the analysis of the current texts (a pushed list could be the fast
      // syntax-only one that precedes it).
      await fresh.initialize({ textDocument: { diagnostic: {} } }, { debounceMs: 0, preview: false });
      for (const d of docs.values()) await fresh.open(d.uri, d.getText());
      want = new Map();
      for (const d of docs.values()) {
        const r = await fresh.request<{ items: Diagnostic[] }>('textDocument/diagnostic', { textDocument: { uri: d.uri } });
        want.set(d.uri, r.items);
      }
    } finally {
      await fresh.stop();
    }
    const analysisOnly = (ds: Diagnostic[]) => ds.filter((d) => d.source === 'foresight');
    const got = await c
      .waitFor('the session’s diagnostics to equal the fresh server’s', () => {
        for (const d of docs.values()) {
          const p = c.latest(d.uri);
          if (!p || JSON.stringify(analysisOnly(p.diagnostics)) !== JSON.stringify(want.get(d.uri))) return undefined;
        }
        return true;
      }, 60_000)
      .catch(() => false);
    if (!got) {
      for (const d of docs.values()) assert.deepEqual(analysisOnly(c.latest(d.uri)?.diagnostics ?? []), want.get(d.uri), d.uri);
    }
    const total = [...want.values()].reduce((n, l) => n + l.length, 0);
    t.diagnostic(`final: ${docs.size} open documents, ${total} diagnostics`);
    assert.ok(c.alive);
  } finally {
    await c.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
