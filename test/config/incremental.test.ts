// ModuleAnalysis (server/config/analysis.ts) against a fresh validateDirectory: after every edit of a random
// sequence (text inserted or deleted anywhere, declarations renamed, added and removed, syntax broken and
// mended, applied as LSP text changes or whole texts), the incremental analysis reports exactly the
// diagnostics that a full analysis of the same texts reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
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
  '\nresource "terraform_data" "y" {\n  count = local.double_0 - 20\n}\n',
  '\nresource "terraform_data" "w" {\n  for_each = local.names_1\n}\n',
  '\nlocals {\n  names_1 = [1, 2]\n}\n',
  '\nvariable "size_1" {\n  type = string\n}\n',
  '"s"',
  '-30',
];

function toPos(text: string, off: number): { line: number; character: number } {
  const before = text.slice(0, off);
  const line = before.split('\n').length - 1;
  return { line, character: off - (before.lastIndexOf('\n') + 1) };
}

const norm = (r: { diagnostics: unknown[] }) => JSON.stringify(r.diagnostics);

test('incremental analysis equals a full analysis after each of 200 random edits', async () => {
  await initParser();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-incr-'));
  const n = 2;
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
    let repetition = 0;
    let undeclared = 0;
    let cycles = 0;
    for (let e = 0; e < 200; e++) {
      let p = join(dir, `f${Math.floor(g() * n)}.tf`);
      const kind = g();
      if (kind < 0.3) {
        // Revert one of the edited files (so that configurations without syntax errors come back).
        const edited = [...texts].filter(([q, t]) => t !== fileText(Number(q.slice(-4, -3)))).map(([q]) => q);
        if (edited.length) p = edited[Math.floor(g() * edited.length)];
      }
      const old = texts.get(p)!;
      let next: string;
      let r;
      let start: number;
      let end: number;
      let ins: string;
      if (kind < 0.3) {
        // Revert the file to its original text.
        next = fileText(Number(p.slice(-4, -3)));
        r = await a.update(p, next);
        texts.set(p, next);
        const full = await validateDirectory(dir, { overlays: new Map(texts) });
        assert.equal(norm(r), norm(full), `edit ${e} of ${p}`);
        if (full.diagnostics.length) withDiags++;
        continue;
      } else if (kind < 0.5) {
        // A whole block at a block boundary (keeps the syntax valid).
        const blocks = SNIPPETS.filter((x) => x.startsWith('\n') && x.length > 2);
        const bounds = [...old.matchAll(/\n\n/g)].map((m) => m.index! + 1);
        start = end = bounds.length ? bounds[Math.floor(g() * bounds.length)] : old.length;
        ins = blocks[Math.floor(g() * blocks.length)];
      } else if (kind < 0.9) {
        // One reference replaced by another (declared or not, counted or not).
        const refs = [...old.matchAll(/(var|local|terraform_data)\.[a-z_0-9]+/g)];
        const m = refs[Math.floor(g() * refs.length)];
        start = m ? m.index! : 0;
        end = m ? start + m[0].length : 0;
        const repl = ['var.size_0', 'var.size_7', 'local.double_1', 'local.names_0', 'local.nope', 'terraform_data.a0', 'terraform_data.b1', 'terraform_data.zz', '"s"', '-1'];
        ins = repl[Math.floor(g() * repl.length)];
      } else {
        start = Math.floor(g() * (old.length + 1));
        const del = g() < 0.4 ? Math.floor(g() * 12) : 0;
        end = Math.min(old.length, start + del);
        ins = g() < 0.8 ? SNIPPETS[Math.floor(g() * SNIPPETS.length)] : '';
      }
      next = old.slice(0, start) + ins + old.slice(end);
      if (g() < 0.7) {
        const ch: TextChange = { range: { start: toPos(old, start), end: toPos(old, end) }, text: ins };
        r = await a.update(p, [ch]);
      } else r = await a.update(p, next);
      texts.set(p, next);
      const full = await validateDirectory(dir, { overlays: new Map(texts) });
      assert.equal(norm(r), norm(full), `edit ${e} of ${p}`);
      assert.deepEqual([...r.sources], [...full.sources]);
      if (full.diagnostics.length) withDiags++;
      if (full.diagnostics.some((d) => /^(Invalid count|Invalid for_each|Incorrect value type)/.test(d.summary))) repetition++;
      if (full.diagnostics.some((d) => d.summary.startsWith('Reference to undeclared'))) undeclared++;
      if (full.diagnostics.some((d) => d.summary.startsWith('Cycle: '))) cycles++;
    }
    // The sequence exercises both clean and broken configurations.
    assert.ok(withDiags > 10 && withDiags < 200, `${withDiags} edits with diagnostics`);
    assert.ok(repetition > 0 && undeclared > 0, `${repetition} edits with count/for_each errors, ${undeclared} with undeclared references`);
    assert.ok(cycles > 0, `${cycles} edits with a reference cycle`);
  } finally {
    a.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('files on disk are read again when their stat changes, and a cycle appears and goes with edits', async () => {
  await initParser();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-incr-disk-'));
  const p = join(dir, 'main.tf');
  const old = new Date(Date.now() - 60_000);
  try {
    writeFileSync(p, 'locals {\n  a = 1\n  b = local.a\n}\n');
    // Old enough to be kept by its stat (load.ts DiskTexts: a racily modified file is not kept).
    utimesSync(p, old, old);
    const a = new ModuleAnalysis(dir);
    assert.deepEqual((await a.analyze()).diagnostics, []);
    assert.deepEqual((await a.analyze()).diagnostics, []);
    // Rewritten on disk (no overlay), with an older modification time still: the stat differs, so it is read.
    writeFileSync(p, 'locals {\n  a = local.b\n  b = local.a\n}\n');
    utimesSync(p, new Date(old.getTime() - 5000), new Date(old.getTime() - 5000));
    assert.deepEqual((await a.analyze()).diagnostics.map((d) => d.summary), ['Cycle: local.a (expand), local.b (expand)']);
    // Mended through an edit: the same graph nodes, one edge fewer.
    const r = await a.update(p, 'locals {\n  a = 2\n  b = local.a\n}\n');
    assert.deepEqual(r.diagnostics, []);
    // And broken again: the cycle is found again, not taken from the graph before.
    const r2 = await a.update(p, [{ range: { start: { line: 1, character: 6 }, end: { line: 1, character: 7 } }, text: 'local.b' }]);
    assert.deepEqual(r2.diagnostics.map((d) => d.summary), ['Cycle: local.a (expand), local.b (expand)']);
    a.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('priming runs the edit path and leaves overlays, documents and results as they were', async () => {
  await initParser();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-incr-prime-'));
  const paths = [0, 1, 2].map((i) => join(dir, `f${i}.tf`));
  paths.forEach((p, i) => writeFileSync(p, fileText(i)));
  const a = new ModuleAnalysis(dir);
  try {
    await a.analyze();
    // f1 broken through text changes (it keeps an incrementally parsed document), f2 with an unsaved edit.
    await a.update(paths[1], [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '{' }]);
    const edited = fileText(2).replace('default = 3', 'default = 4');
    const before = await a.update(paths[2], edited);
    assert.ok(before.diagnostics.length > 0, 'f1 has a syntax error');
    const texts = paths.map((p) => a.currentText(p));

    let asked = 0;
    await a.prime(2, () => {
      asked++;
      return false;
    });
    assert.equal(asked, 2);
    assert.deepEqual(paths.map((p) => a.currentText(p)), texts);
    const after = await a.analyze();
    assert.equal(norm(after), norm(before));
    const full = await validateDirectory(dir, { overlays: new Map([[paths[1], texts[1]], [paths[2], texts[2]]]) });
    assert.equal(norm(after), norm(full));
    // The document of f1 is still the incrementally parsed one: a further change to it applies to its text.
    const r = await a.update(paths[1], [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, text: '' }]);
    assert.equal(norm(r), norm(await validateDirectory(dir, { overlays: new Map([[paths[2], texts[2]]]) })));

    // A stop that says so after the first round: one round runs, and the texts are still as they were.
    let rounds = 0;
    await a.prime(5, () => rounds++ > 0);
    assert.equal(rounds, 2);
    assert.deepEqual(paths.map((p) => a.currentText(p)), [fileText(0), fileText(1), texts[2]]);
  } finally {
    a.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
