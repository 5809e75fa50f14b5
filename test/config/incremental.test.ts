// ModuleAnalysis (server/config/analysis.ts) against a fresh validateDirectory: after every edit of a random
// sequence (text inserted or deleted anywhere, declarations renamed, added and removed, syntax broken and
// mended, applied as LSP text changes or whole texts), the incremental analysis reports exactly the
// diagnostics that a full analysis of the same texts reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModuleAnalysis } from '../../server/config/analysis';
import { validateDirectory } from '../../server/config/validate';
import type { TextChange } from '../../server/syntax/document';
import { initParser } from '../../server/syntax/treesitter';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function fileText(i: number): string {
  return [
    `variable "size_${i}" {\n  type    = number\n  default = ${i + 1}\n}\n`,
    `locals {\n  names_${i} = toset(["a", "b"])\n  double_${i} = var.size_${i} * 2\n}\n`,
    `resource "terraform_data" "a${i}" {\n  count = local.double_${i}\n  input = "\${var.size_${i}}-\${count.index}"\n}\n`,
    `resource "terraform_data" "b${i}" {\n  for_each = local.names_${i}\n  input = {\n    k    = each.key\n    prev = terraform_data.a${i}[0].output\n    n    = [for n in local.names_${i} : upper(n)]\n  }\n}\n`,
    `output "o${i}" {\n  value = terraform_data.b${i}["a"].output\n}\n`,
  ].join('\n');
}

/** Snippets an edit inserts: references that may or may not resolve, declarations, broken syntax. */
const SNIPPETS = [
  'x',
  '_1',
  '"',
  '{',
  '}',
  ' = ',
  '\n',
  'var.size_0',
  'local.double_1',
  'terraform_data.a0[0].id',
  'terraform_data.a1.id',
  'each.key',
  'count.index',
  '\nlocals {\n  extra = local.double_0\n}\n',
  '\nvariable "size_9" {}\n',
  '\nresource "terraform_data" "a0" {}\n',
  '\nlocals {\n  c1 = local.c2\n  c2 = local.c1\n}\n',
  '\noutput "p" {\n  value = var.nope\n}\n',
  '\nresource "terraform_data" "z" {\n  count = "many"\n}\n',
];

function toPos(text: string, off: number): { line: number; character: number } {
  const before = text.slice(0, off);
  const line = before.split('\n').length - 1;
  return { line, character: off - (before.lastIndexOf('\n') + 1) };
}

const norm = (r: { diagnostics: unknown[] }) => JSON.stringify(r.diagnostics);

test('incremental analysis equals a full analysis after each of 120 random edits', async () => {
  await initParser();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-incr-'));
  const n = 4;
  const texts = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const p = join(dir, `f${i}.tf`);
    writeFileSync(p, fileText(i));
    texts.set(p, fileText(i));
  }
  const a = new ModuleAnalysis(dir);
  try {
    assert.equal(norm(await a.analyze()), norm(await validateDirectory(dir, { overlays: new Map() })));
    const g = rng(42);
    let withDiags = 0;
    for (let e = 0; e < 120; e++) {
      const p = join(dir, `f${Math.floor(g() * n)}.tf`);
      const old = texts.get(p)!;
      let next: string;
      let r;
      const kind = g();
      if (kind < 0.15) {
        // Revert the file to its original text.
        next = fileText(Number(p.slice(-4, -3)));
        r = await a.update(p, next);
      } else {
        const start = Math.floor(g() * (old.length + 1));
        const del = g() < 0.4 ? Math.floor(g() * 12) : 0;
        const end = Math.min(old.length, start + del);
        const ins = g() < 0.8 ? SNIPPETS[Math.floor(g() * SNIPPETS.length)] : '';
        next = old.slice(0, start) + ins + old.slice(end);
        if (g() < 0.7) {
          const ch: TextChange = { range: { start: toPos(old, start), end: toPos(old, end) }, text: ins };
          r = await a.update(p, [ch]);
        } else r = await a.update(p, next);
      }
      texts.set(p, next);
      const full = await validateDirectory(dir, { overlays: new Map(texts) });
      assert.equal(norm(r), norm(full), `edit ${e} of ${p}`);
      assert.deepEqual([...r.sources], [...full.sources]);
      if (full.diagnostics.length) withDiags++;
    }
    // The sequence exercises both clean and broken configurations.
    assert.ok(withDiags > 10 && withDiags < 120, `${withDiags} edits with diagnostics`);
  } finally {
    a.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
