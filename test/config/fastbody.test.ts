// The fast lane of loading (server/config/fastbody.ts: bodies from the hand-written syntax check's structure,
// no tree-sitter) against the tree-sitter path (hclbody.ts bodyFromTree): wherever the fast lane builds a
// body, it equals the tree-sitter body in every field (ranges, texts, references, shapes, literals, element
// expressions and their lazily parsed ASTs), and the tree-sitter path reports no diagnostic for that file
// (so the fast lane never hides one). Inputs: every .tf file in the repository (test data, examples), every
// configuration embedded in the test data's JSON files, every expression of the console corpus as an
// attribute, and seeded mutations of all of them (deletions, insertions of syntax fragments).
// FASTBODY_MUTATIONS (mutations per input, default 4) and FASTBODY_SEED widen the search when the lane changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fastBody } from '../../server/config/fastbody';
import { evalConstant } from '../../server/config/variables';
import { marshal } from '../../server/engine/ctyjson';
import { bodyFromTree } from '../../server/config/hclbody';
import { SourceText } from '../../server/config/source';
import { OffsetRange, plainRange, type Diagnostic } from '../../server/diags/diagnostic';
import { analyzeSyntax } from '../../server/syntax/errors';
import { initParser, newParser } from '../../server/syntax/treesitter';

function walk(dir: string, out: string[]): void {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
}

/** .tf texts embedded in JSON test data (scenario steps, validate cases). */
function embedded(o: unknown, out: string[]): void {
  if (Array.isArray(o)) for (const x of o) embedded(x, out);
  else if (o && typeof o === 'object')
    for (const [k, v] of Object.entries(o)) {
      if (typeof v === 'string' && (k.endsWith('.tf') || /^(resource|variable|locals|output|module|data|terraform|provider) /m.test(v))) out.push(v);
      else embedded(v, out);
    }
}

function corpus(): string[] {
  const files: string[] = [];
  walk('test/data', files);
  walk('examples', files);
  const texts: string[] = [];
  for (const f of files) {
    if (f.endsWith('.tf')) texts.push(readFileSync(f, 'utf8'));
    else if (f.endsWith('.json')) {
      try {
        embedded(JSON.parse(readFileSync(f, 'utf8')), texts);
      } catch {
        // not JSON test data
      }
    } else if (f.endsWith('.jsonl')) {
      const exprs: string[] = [];
      for (const line of readFileSync(f, 'utf8').split('\n')) {
        try {
          const o = JSON.parse(line) as { expr?: unknown };
          if (typeof o.expr === 'string') exprs.push(o.expr);
        } catch {
          // not a case line
        }
      }
      // Each expression as an attribute, in groups, inside blocks and objects too.
      for (let i = 0; i < exprs.length; i += 20) {
        const group = exprs.slice(i, i + 20);
        texts.push(group.map((e, k) => `a${k} = ${e}\n`).join(''));
        texts.push(`resource "x" "y" {\n${group.map((e, k) => `  a${k} = ${e}\n`).join('')}}\n`);
        texts.push(`locals {\n  o = {\n${group.map((e, k) => `    k${k} = ${e}\n`).join('')}  }\n  t = [\n${group.map((e) => `    ${e},\n`).join('')}  ]\n  c = f(${group.join(', ')})\n}\n`);
      }
    }
  }
  return texts;
}

/**
 * A deep copy without memo fields (a number's cached decimal string and bit length are filled in on first use, so an AST the
 * fast lane shares with its parent expression may hold one where a freshly parsed one does not), with ranges as their
 * positions.
 */
function plain(v: unknown, seen = new Map<object, unknown>()): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (seen.has(v)) return seen.get(v);
  // A range as its positions (an OffsetRange's fields are its text and offsets).
  if (v instanceof OffsetRange) return plain(plainRange(v), seen);
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    seen.set(v, out);
    for (const x of v) out.push(plain(x, seen));
    return out;
  }
  const out: Record<string, unknown> = Object.create(Object.getPrototypeOf(v));
  seen.set(v, out);
  for (const k of Object.keys(v)) if (k !== 'cachedString' && k !== 'cachedBits') out[k] = plain((v as Record<string, unknown>)[k], seen);
  return out;
}

/** Where two bodies first differ (a path and both values), for the failure message. */
function firstDiff(a: unknown, b: unknown, path: string): string | undefined {
  if (a === b) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return `${path}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`;
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

const EXPONENT_WITHOUT_FRACTION = /(^|[^A-Za-z0-9_.])[0-9]+[eE]/;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const FRAGMENTS = ['(', ')', '[', ']', '{', '}', '"', ',', '\n', ' = ', ':', '...', '.*', '[*]', '.0', '$${', '%{', '${x}', '<<EOT\nx\nEOT\n', '# c\n', '/* c */', '\\"', 'for ', '?', 'true', 'null', '1.5', '-', '::'];

function mutate(text: string, g: () => number): string {
  const at = Math.floor(g() * (text.length + 1));
  const del = g() < 0.5 ? Math.floor(g() * 6) : 0;
  const ins = g() < 0.8 ? FRAGMENTS[Math.floor(g() * FRAGMENTS.length)] : '';
  return text.slice(0, at) + ins + text.slice(at + del);
}

test('the fast lane builds exactly the tree-sitter body wherever it builds one', async () => {
  await initParser();
  const parser = newParser();
  const base = corpus();
  const g = rng(Number(process.env.FASTBODY_SEED ?? 7));
  const inputs = [...base];
  for (const t of base) for (let k = 0; k < Number(process.env.FASTBODY_MUTATIONS ?? 4); k++) inputs.push(mutate(t, g));
  let fast = 0;
  let compared = 0;
  let exponents = 0;
  try {
    for (const text of inputs) {
      const src = new SourceText('main.tf', text);
      const syn = analyzeSyntax(text, 'main.tf', undefined, { structure: true, src });
      if (!syn.structure || syn.diagnostics.length > 0) continue;
      compared++;
      const fb = fastBody(syn.structure, src);
      if (!fb) continue;
      fast++;
      // tree-sitter's grammar has no exponent without a fraction (`1e30`): its path reports an error where HCL and
      // Terraform read a number, so it is no reference for such files (the next test checks the values instead).
      if (EXPONENT_WITHOUT_FRACTION.test(text)) {
        exponents++;
        continue;
      }
      const tree = parser.parse(text)!;
      try {
        const treeDiags: Diagnostic[] = [...analyzeSyntax(text, 'main.tf', tree).diagnostics];
        const tb = bodyFromTree(tree.rootNode, new SourceText('main.tf', text), treeDiags);
        assert.deepEqual(treeDiags, [], `the tree-sitter path reports diagnostics for a file the fast lane accepts:\n${text}`);
        const [x, y] = [plain(fb), plain(tb)];
        assert.deepEqual(x, y, `bodies differ at ${firstDiff(x, y, 'body')} for:\n${text}`);
      } finally {
        tree.delete();
      }
    }
  } finally {
    parser.delete();
  }
  console.log(`# ${inputs.length} inputs, ${compared} without syntax errors, ${fast} built by the fast lane (${exponents} with an exponent number not compared)`);
  // The lane is taken for the great majority of clean inputs (else the comparison proves little).
  assert.ok(fast > 0.7 * compared, `fast lane taken for ${fast} of ${compared}`);
});

test('numbers with an exponent and no fraction are read as HCL reads them (tree-sitter\'s grammar rejects them)', () => {
  const text = 'a = 3e20\nb = -1E-5\nc = [1, 2.5, 1e+3]\n';
  const src = new SourceText('main.tf', text);
  const syn = analyzeSyntax(text, 'main.tf', undefined, { structure: true, src });
  assert.deepEqual(syn.diagnostics, []);
  const body = fastBody(syn.structure!, src);
  assert.ok(body, 'the fast lane builds the file');
  const v = (name: string) => {
    const a = body.attributes.find((x) => x.name === name)!;
    const r = evalConstant(a.expr.ast!);
    assert.deepEqual(r.diagnostics, []);
    return marshal(r.value);
  };
  assert.equal(v('a'), '300000000000000000000');
  assert.equal(v('b'), '-0.00001');
  assert.equal(v('c'), '[1,2.5,1000]');
});

test('the syntax check with a tree-sitter tree (the editor\'s quick pass) reports no error for such numbers', async () => {
  await initParser();
  const parser = newParser();
  try {
    for (const text of ['a = 3e20\n', 'a = [1, 2.5, -3e20]\n', 'a = x * 1e3\n', 'a = 1E-5\n']) {
      const tree = parser.parse(text)!;
      try {
        assert.ok(tree.rootNode.hasError, 'tree-sitter still rejects it (else this test proves nothing)');
        assert.deepEqual(analyzeSyntax(text, 'main.tf', tree).diagnostics, [], text);
      } finally {
        tree.delete();
      }
    }
    // A real error after such a number is still reported.
    const bad = 'a = 1e3\nb = 1 +\n';
    const tree = parser.parse(bad)!;
    try {
      assert.equal(analyzeSyntax(bad, 'main.tf', tree).diagnostics.length, 1);
    } finally {
      tree.delete();
    }
  } finally {
    parser.delete();
  }
});
