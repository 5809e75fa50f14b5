// Files too large for tree-sitter within the parse budget (server/syntax/large.ts, lang/parse.ts
// parseConfigBody) against the tree-sitter path: wherever the hand-written parser reads a file as complete, its
// generic body equals the tree-sitter body in every field (ranges, texts, references, shapes, literals,
// element expressions and their lazily parsed ASTs) and so do the diagnostic contexts, and the tree-sitter
// path reports no syntax error for that file. Whole module directories loaded through the large-file path
// (a budget so small that every file is predicted over it) give the same diagnostics as without a budget.
// And the 5 MB single-line files of the fuzz test are analysed, not dropped: the same diagnostics as the
// same file with a short line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyFromTree } from '../../server/config/hclbody';
import { SourceText } from '../../server/config/source';
import { validateDirectory } from '../../server/config/validate';
import type { Diagnostic } from '../../server/diags/diagnostic';
import { analyzeSyntax } from '../../server/syntax/errors';
import { largeFile } from '../../server/syntax/large';
import { initParser, newParser } from '../../server/syntax/treesitter';
import { CONFIG_SEEDS } from './seeds';

function walk(dir: string, out: string[]): void {
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
}

/** Every .tf file of the test data and examples, the fuzz seeds, and the console corpus's expressions as attributes, elements, items and arguments. */
function corpus(): string[] {
  const files: string[] = [];
  walk('test/data', files);
  walk('examples', files);
  const texts: string[] = Object.values(CONFIG_SEEDS);
  for (const f of files) if (f.endsWith('.tf')) texts.push(readFileSync(f, 'utf8'));
  const exprs: string[] = [];
  for (const line of readFileSync('test/data/expressions/public.jsonl', 'utf8').split('\n')) {
    if (line.trim()) exprs.push((JSON.parse(line) as { expr: string }).expr);
  }
  for (let i = 0; i < exprs.length; i += 20) {
    const group = exprs.slice(i, i + 20);
    texts.push(group.map((e, k) => `a${k} = ${e}\n`).join(''));
    texts.push(`resource "x" "y" {\n${group.map((e, k) => `  a${k} = ${e}\n`).join('')}}\n`);
    texts.push(`locals {\n  o = {\n${group.map((e, k) => `    k${k} = ${e}\n`).join('')}  }\n  t = [\n${group.map((e) => `    ${e},\n`).join('')}  ]\n  c = f(${group.join(', ')})\n}\n`);
  }
  return texts;
}

/** A JSON view of a body: getters (lazily parsed element ASTs) are read, big integers written as text. */
function plain(x: unknown): unknown {
  return JSON.parse(JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)));
}

function firstDiff(a: unknown, b: unknown, path: string): string | undefined {
  if (a === b) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return `${path}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).sort();
  const kb = Object.keys(rb).sort();
  if (ka.join() !== kb.join()) return `${path}: keys ${ka.join()} vs ${kb.join()}`;
  for (const k of ka) {
    const d = firstDiff(ra[k], rb[k], `${path}.${k}`);
    if (d) return d;
  }
  return undefined;
}

test('the large-file parser builds exactly the tree-sitter body wherever it reads a file as complete', async (t) => {
  await initParser();
  const parser = newParser();
  let complete = 0;
  let partial = 0;
  const diffs: string[] = [];
  const hidden: string[] = [];
  for (const text of corpus()) {
    const src = new SourceText('main.tf', text);
    const large = largeFile(text, 'main.tf', src, 500);
    if (!large.complete) {
      partial++;
      // A partial file reports its syntax errors and the warning, and never an empty list.
      assert.ok(large.diagnostics.some((d) => d.severity === 'error'), text.slice(0, 200));
      continue;
    }
    complete++;
    const tree = parser.parse(text)!;
    try {
      const syn = analyzeSyntax(text, 'main.tf', tree);
      // A tree with errors is no reference: either the path reports a syntax error, or (an exponent number without
      // a fraction, which its grammar lacks) the syntax check discounts tree-sitter's error. terraform judges these.
      if (syn.diagnostics.length > 0 || tree.rootNode.hasError) {
        hidden.push(text);
        continue;
      }
      const body = bodyFromTree(tree.rootNode, src, []);
      const d = firstDiff(plain(large.body), plain(body), 'body') ?? firstDiff(plain(large.contexts), plain(syn.blocks), 'contexts');
      if (d) diffs.push(`${d}\n  in: ${text.slice(0, 300)}`);
    } finally {
      tree.delete();
    }
  }
  parser.delete();
  t.diagnostic(`${complete} complete, ${partial} partial; ${hidden.length} complete where tree-sitter reports an error`);
  assert.ok(complete > 300, `${complete} files compared`);
  assert.deepEqual(diffs.slice(0, 5), []);
  // Where the tree-sitter path reports a syntax error but the hand-written parser reads the file, HCL must
  // accept it: tree-sitter's grammar and the structural checker reject some valid HCL (exponent numbers,
  // `provider::` function names, `~` strip markers, `.0.name`, `[ * ]`). terraform itself is the judge.
  const tf = spawnSync('terraform', ['version'], { encoding: 'utf8' });
  if (tf.status !== 0) {
    t.diagnostic(`NOTICE: terraform is not on PATH: the ${hidden.length} files only the hand-written parser accepts were not checked`);
    return;
  }
  const rejected = hidden.filter((h) => spawnSync('terraform', ['fmt', '-'], { input: h, encoding: 'utf8' }).status !== 0);
  assert.deepEqual(rejected.map((h) => h.slice(0, 200)), [], 'files terraform rejects');
});

test('module directories read through the large-file path give the diagnostics of the tree-sitter path', async (t) => {
  const dirs = new Set<string>();
  const files: string[] = [];
  walk('examples', files);
  walk('test/data', files);
  for (const f of files) if (f.endsWith('.tf')) dirs.add(f.slice(0, f.lastIndexOf('/')));
  let compared = 0;
  const diffs: string[] = [];
  for (const dir of dirs) {
    // A budget so small that every file is predicted over it: every file takes the large-file path.
    const large = await validateDirectory(dir, { budgetMs: 1e-9 });
    if (large.diagnostics.some((d) => d.summary === 'File too large to analyse fully')) continue;
    const tree = await validateDirectory(dir, {});
    // Syntax errors only the tree-sitter path reports are the first test's business (terraform judges them).
    if (tree.diagnostics.some((d) => d.source === 'syntax')) continue;
    compared++;
    const strip = (ds: readonly Diagnostic[]) => plain(ds);
    const d = firstDiff(strip(large.diagnostics), strip(tree.diagnostics), dir);
    if (d) diffs.push(d);
  }
  t.diagnostic(`${compared} of ${dirs.size} directories compared`);
  assert.ok(compared > 100, `${compared} directories compared`);
  assert.deepEqual(diffs, []);
});

test('5 MB single-line files are analysed like the same file with a short line', async () => {
  const LONG = 5 * 1024 * 1024;
  const dir = mkdtempSync(join(tmpdir(), 'foresight-large-'));
  try {
    const shapes: [string, (n: number) => string][] = [
      ['string', (n) => `x = "${'a'.repeat(n)}"\n`],
      ['identifier', (n) => `locals {\n  x = ${'a'.repeat(n)}\n}\n`],
      ['attribute chain', (n) => `variable "v" {}\nlocals {\n  x = var.v${'.a'.repeat(n / 2)}\n  y = var.w${'.a'.repeat(n / 2)}\n}\n`],
    ];
    for (const [name, make] of shapes) {
      writeFileSync(join(dir, 'main.tf'), make(16));
      const small = await validateDirectory(dir, { budgetMs: 500 });
      writeFileSync(join(dir, 'main.tf'), make(LONG));
      const big = await validateDirectory(dir, { budgetMs: 500 });
      const brief = (ds: readonly Diagnostic[]) => ds.map((d) => `${d.severity} ${d.summary} ${d.subject?.start.line}:${d.subject?.start.column}`);
      assert.deepEqual(brief(big.diagnostics), brief(small.diagnostics), name);
      assert.ok(!big.diagnostics.some((d) => d.summary === 'File too large to analyse fully'), name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
