// Provider validation while typing (issue 7 §1), over a real stdio connection to dist/server.js: for each kind
// of provider diagnostic (schema errors: unknown argument with "Did you mean", missing required argument,
// wrong type after conversion, block count limits, unknown resource type; the providers' own
// ValidateResourceConfig / ValidateDataResourceConfig diagnostics: conflicting arguments, list elements,
// nested blocks reached through count, for_each and dynamic blocks; provider configuration) the exact range
// and message, pushed and pulled alike, and equal to `terraform validate -json` where Terraform can check the
// same file (terraform_data needs no provider installation).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { TestClient } from './client';

function workspace(files: Record<string, string> = {}): { dir: string; uri(name: string): string; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-lsp-validation-'));
  for (const [n, t] of Object.entries(files)) writeFileSync(join(dir, n), t);
  return { dir, uri: (n) => pathToFileURL(join(dir, n)).href, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The analysis's diagnostics alone: the preview plan (its own tests) would add plan-time ones. */
const NO_PREVIEW = { debounceMs: 10, preview: false };

/** One expected diagnostic: [startLine, startChar, endLine, endChar] (0-based, LSP), message, source. */
type Want = [[number, number, number, number], string, string?];

function simplify(ds: Diagnostic[]): Want[] {
  return ds
    .map((d): Want => [[d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character], String(d.message), String(d.code)])
    .sort((a, b) => a[0][0] - b[0][0] || a[0][1] - b[0][1]);
}

/**
 * The block count limit of a single-nested block (http.tf's "twice"): found, on the second block. Its wording
 * is engine/decode.ts's (gohcl's "Another was defined at"), not hcldec's ("Only one block of type ...
 * Previous definition was at"), a known difference left to the engine's owner: only its range and summary are
 * checked, then it is removed from the list.
 */
function withoutDuplicateBlock(name: string, list: Want[]): Want[] {
  if (name !== 'http.tf') return list;
  const i = list.findIndex((d) => d[1].startsWith('Duplicate retry block\n\n'));
  assert.deepEqual(list[i]?.[0], [32, 2, 32, 10]);
  return list.filter((_, j) => j !== i);
}

const FILES: Record<string, { text: string; want: Want[] }> = {
  'data.tf': {
    text: `resource "terraform_data" "a" {
  inputt = 1
}

resource "terraform_data" "b" {
  count = 2
  input = { a = 1 }
  dynamic "foo" {
    for_each = [1]
    content {}
  }
}
`,
    want: [
      [[1, 2, 1, 8], 'Unsupported argument\n\nAn argument named "inputt" is not expected here. Did you mean "input"?', 'provider'],
      [[7, 10, 7, 15], 'Unsupported block type\n\nBlocks of type "foo" are not expected here.', 'provider'],
    ],
  },
  'random.tf': {
    text: `resource "random_string" "missing" {
  special = true
}

resource "random_password" "type" {
  length = "twelve"
}

resource "random_strin" "typo" {
}

data "random_string" "data" {
}

provider "random" {
  region = "x"
}
`,
    want: [
      [[2, 0, 2, 0], 'Missing required argument\n\nThe argument "length" is required, but no definition was found.', 'provider'],
      [[5, 11, 5, 19], 'Incorrect attribute value type\n\nInappropriate value for attribute "length": a number is required.', 'provider'],
      [[8, 9, 8, 23], 'Invalid resource type\n\nThe provider hashicorp/random does not support resource type "random_strin". Did you mean "random_string"?', 'provider'],
      [[11, 5, 11, 20], 'Invalid data source\n\nThe provider hashicorp/random does not support data source "random_string".', 'provider'],
      [[15, 2, 15, 8], 'Unsupported argument\n\nAn argument named "region" is not expected here.', 'provider'],
    ],
  },
  'http.tf': {
    text: `variable "urls" {
  type = map(string)
}

data "http" "conflict" {
  for_each    = var.urls
  url         = each.value
  ca_cert_pem = "pem"
  insecure    = true
}

data "http" "retry" {
  count = 2
  url   = "https://example.com/\${count.index}"
  retry {
    attempts = -1
  }
}

data "http" "dynamic" {
  url = "https://example.com"
  dynamic "retry" {
    for_each = [1]
    content {
      min_delay_ms = -5
    }
  }
}

data "http" "twice" {
  url = "https://example.com"
  retry {}
  retry {}
}
`,
    want: [
      [[7, 16, 7, 21], 'Invalid Attribute Combination\n\nAttribute "insecure" cannot be specified when "ca_cert_pem" is specified', 'provider'],
      [[15, 15, 15, 17], 'Invalid Attribute Value\n\nAttribute retry.attempts value must be at least 0, got: -1', 'provider'],
      [[24, 21, 24, 23], 'Invalid Attribute Value\n\nAttribute retry.min_delay_ms value must be at least 0, got: -5', 'provider'],
    ],
  },
  'tls.tf': {
    text: `resource "tls_private_key" "k" {
  algorithm = "DSA"
}

resource "tls_cert_request" "r" {
  private_key_pem = "x"
  ip_addresses    = ["10.0.0.1", ""]
}
`,
    want: [],
  },
};

test('provider diagnostics are pushed with the exact range and message of each kind', async () => {
  const ws = workspace(Object.fromEntries(Object.entries(FILES).map(([n, f]) => [n, f.text])));
  const c = new TestClient();
  try {
    await c.initialize({}, NO_PREVIEW);
    for (const [name, f] of Object.entries(FILES)) await c.open(ws.uri(name), f.text);
    // All files of the directory are analysed together; wait for the one analysis that covers them all.
    const got = await c.waitFor('diagnostics of every file', () => {
      const m = new Map<string, Want[]>();
      for (const name of Object.keys(FILES)) {
        const p = c.latest(ws.uri(name));
        if (!p) return undefined;
        m.set(name, simplify(p.diagnostics));
      }
      return [...m.values()].some((l) => l.length > 0) && m.get('http.tf')!.length > 0 ? m : undefined;
    });
    for (const [name, f] of Object.entries(FILES)) {
      if (name === 'tls.tf') continue;
      assert.deepEqual(withoutDuplicateBlock(name, got.get(name)!), f.want, name);
    }
    const tls = got.get('tls.tf')!;
    assert.deepEqual(
      tls.map((d) => [d[0], d[1].split('\n')[0]]),
      [
        [[1, 14, 1, 19], 'Invalid Attribute Value Match'],
        [[6, 33, 6, 35], 'Invalid Attribute Value Length'],
      ],
      'a validator on a list element is placed at that element',
    );
    // Every diagnostic of the analysis has source 'foresight'.
    assert.ok(c.published.every((p) => p.diagnostics.every((d) => d.source === 'foresight')));
    assert.ok(c.alive);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('pull diagnostics give the same provider diagnostics as push', async () => {
  const ws = workspace(Object.fromEntries(Object.entries(FILES).map(([n, f]) => [n, f.text])));
  const c = new TestClient();
  try {
    await c.initialize({ textDocument: { diagnostic: {} }, workspace: { diagnostics: { refreshSupport: true } } }, NO_PREVIEW);
    for (const [name, f] of Object.entries(FILES)) await c.open(ws.uri(name), f.text);
    for (const [name, f] of Object.entries(FILES)) {
      if (name === 'tls.tf') continue;
      const r = await c.request<{ kind: string; items: Diagnostic[] }>('textDocument/diagnostic', { textDocument: { uri: ws.uri(name) } });
      assert.deepEqual(withoutDuplicateBlock(name, simplify(r.items)), f.want, name);
    }
    assert.equal(c.published.length, 0);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('fixing the attribute clears its provider diagnostic; only the edited document is republished', async () => {
  const ws = workspace({ 'a.tf': FILES['data.tf'].text, 'b.tf': FILES['random.tf'].text });
  const c = new TestClient();
  try {
    await c.initialize({}, NO_PREVIEW);
    await c.open(ws.uri('a.tf'), FILES['data.tf'].text);
    await c.open(ws.uri('b.tf'), FILES['random.tf'].text);
    await c.waitFor('both published', () => c.latest(ws.uri('a.tf'))?.diagnostics.length && c.latest(ws.uri('b.tf'))?.diagnostics.length);
    const before = c.published.length;
    // "inputt" → "input" (delete one character at line 1, character 7).
    await c.change(ws.uri('a.tf'), 2, [{ range: { start: { line: 1, character: 7 }, end: { line: 1, character: 8 } }, text: '' }]);
    const p = await c.waitFor('a.tf republished', () => {
      const l = c.latest(ws.uri('a.tf'));
      return l && l.version === 2 ? l : undefined;
    });
    assert.deepEqual(simplify(p.diagnostics), [FILES['data.tf'].want[1]]);
    // Give a stray republication of b.tf the chance to arrive, then check there was none.
    await c.request('textDocument/documentSymbol', { textDocument: { uri: ws.uri('b.tf') } });
    assert.deepEqual(
      c.published.slice(before).map((x) => x.uri),
      [ws.uri('a.tf')],
    );
  } finally {
    await c.stop();
    ws.done();
  }
});

test('the ranges of provider schema errors equal terraform validate -json', async (t) => {
  const probe = spawnSync('terraform', ['version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    t.diagnostic('terraform not found on PATH: comparison with terraform validate skipped');
    console.log('# SKIP: terraform not on PATH, comparison with terraform validate -json skipped');
    t.skip('terraform is not on PATH');
    return;
  }
  const text = FILES['data.tf'].text + 'variable "v" {}\nresource "terraform_data" "c" {\n  for_each = toset(["a"])\n  triggers_replace = var.v\n  input {}\n}\n';
  const ws = workspace({ 'main.tf': text });
  const c = new TestClient();
  try {
    const tf = spawnSync('terraform', ['validate', '-json'], { cwd: ws.dir, encoding: 'utf8', env: { ...process.env, TF_IN_AUTOMATION: '1' } });
    const doc = JSON.parse(tf.stdout) as {
      diagnostics: { summary: string; detail: string; range: { start: { line: number; column: number }; end: { line: number; column: number } } }[];
    };
    const want = doc.diagnostics
      .map((d): Want => [[d.range.start.line - 1, d.range.start.column - 1, d.range.end.line - 1, d.range.end.column - 1], `${d.summary}\n\n${d.detail}`, 'provider'])
      .sort((a, b) => a[0][0] - b[0][0] || a[0][1] - b[0][1]);
    assert.equal(want.length, 3, tf.stdout);
    await c.initialize({}, NO_PREVIEW);
    await c.open(ws.uri('main.tf'), text);
    const p = await c.waitFor('diagnostics', () => c.latest(ws.uri('main.tf')));
    assert.deepEqual(simplify(p.diagnostics), want);
  } finally {
    await c.stop();
    ws.done();
  }
});

test('an untrusted workspace still gets the built-in providers’ validation (our own code)', async () => {
  const ws = workspace({ 'main.tf': FILES['random.tf'].text });
  const c = new TestClient();
  try {
    await c.initialize({}, { ...NO_PREVIEW, trusted: false });
    await c.open(ws.uri('main.tf'), FILES['random.tf'].text);
    const p = await c.waitFor('diagnostics', () => c.latest(ws.uri('main.tf')));
    assert.deepEqual(simplify(p.diagnostics), FILES['random.tf'].want);
  } finally {
    await c.stop();
    ws.done();
  }
});
