// Deeply nested inputs end in a clear diagnostic with the exact range of the too-deep construct, never in a
// stack overflow, through the expression parser (and evaluator) and the directory validator. Time bounds are
// generous: these are correctness tests (no crash, diagnostic present), the fuzz test measures speed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_EXPR_DEPTH, parseExpression } from '../../server/lang/parse';
import { evalExpr } from '../../server/lang/eval';
import { validateDirectory } from '../../server/config/validate';
import { plainRange } from '../../server/diags/diagnostic';
import { MAX_BLOCK_DEPTH } from '../../server/syntax/errors';

const DEEP = 10_000;
const r = (s: string, n = DEEP) => s.repeat(n);
const col = (n: number) => ({ line: 1, column: n + 1, byte: n });

function parse(text: string) {
  const t0 = performance.now();
  const res = parseExpression(text, 'x.tf');
  return { ...res, ms: performance.now() - t0 };
}

test('10,000-deep expressions report "Expression too deeply nested" on the first too-deep construct', () => {
  // [open, close] per level; the construct at level MAX+1 starts after MAX openers and ends at its closer.
  const cases: { name: string; open: string; inner: string; close: string }[] = [
    { name: 'brackets', open: '[', inner: '1', close: ']' },
    { name: 'parens', open: '(', inner: '1', close: ')' },
    { name: 'objects', open: '{a=', inner: '1', close: '}' },
    { name: 'calls', open: 'max(', inner: '1', close: ')' },
    { name: 'interpolations', open: '"${', inner: '1', close: '}"' },
  ];
  for (const c of cases) {
    const text = r(c.open) + c.inner + r(c.close);
    const res = parse(text);
    assert.equal(res.expr, undefined, c.name);
    assert.equal(res.diagnostics.length, 1, c.name);
    const d = res.diagnostics[0];
    assert.equal(d.severity, 'error');
    assert.equal(d.summary, 'Expression too deeply nested', c.name);
    assert.match(d.detail ?? '', new RegExp(`${MAX_EXPR_DEPTH} levels`));
    const start = MAX_EXPR_DEPTH * c.open.length;
    const end = text.length - MAX_EXPR_DEPTH * c.close.length;
    assert.deepEqual(d.subject, { filename: 'x.tf', start: col(start), end: col(end) }, c.name);
    assert.ok(res.ms < 5000, `${c.name}: ${res.ms} ms`);
  }
});

test('deep unary operators, conditionals, for expressions, operator chains and unclosed brackets', () => {
  const unary = parse(`${r('!')}true`);
  assert.equal(unary.diagnostics[0].summary, 'Expression too deeply nested');
  assert.deepEqual(unary.diagnostics[0].subject, { filename: 'x.tf', start: col(MAX_EXPR_DEPTH), end: col(DEEP + 4) });
  assert.ok(unary.ms < 5000);

  const unclosed = parse(r('['));
  assert.equal(unclosed.diagnostics[0].summary, 'Expression too deeply nested');
  assert.deepEqual(unclosed.diagnostics[0].subject, { filename: 'x.tf', start: col(MAX_EXPR_DEPTH), end: col(MAX_EXPR_DEPTH + 1) });

  const cond = parse(`${r('true ? 1 : ')}0`);
  assert.equal(cond.diagnostics[0].summary, 'Expression too deeply nested');
  // The first expression at level MAX+1 is the true branch (`1`) of the MAX-th conditional.
  const at = (MAX_EXPR_DEPTH - 1) * 'true ? 1 : '.length + 'true ? '.length;
  assert.deepEqual(cond.diagnostics[0].subject, { filename: 'x.tf', start: col(at), end: col(at + 1) });

  const forExpr = parse(`${r('[for a in ')}[1]${r(' : a]')}`);
  assert.equal(forExpr.diagnostics.length, 1);
  assert.equal(forExpr.diagnostics[0].summary, 'Expression too deeply nested');

  // Operator chains are built by a loop: the AST height check reports the first node past the limit.
  const chain = parse(`1${r('+1')}`);
  assert.equal(chain.diagnostics.length, 1);
  assert.equal(chain.diagnostics[0].summary, 'Expression too deeply nested');
  assert.deepEqual(chain.diagnostics[0].subject?.start, col(0));

  // Within the limit, nesting parses and evaluates.
  const ok = parseExpression(`${r('[', MAX_EXPR_DEPTH - 1)}1${r(']', MAX_EXPR_DEPTH - 1)}`, 'x.tf');
  assert.deepEqual(ok.diagnostics, []);
  const v = evalExpr(ok.expr!, { variables: new Map(), funcCtx: { baseDir: tmpdir(), planning: true, console: false } });
  assert.deepEqual(v.diagnostics, []);
  const okUnary = parseExpression(`${r('!', MAX_EXPR_DEPTH - 1)}true`, 'x.tf');
  assert.deepEqual(okUnary.diagnostics, []);
  assert.equal(evalExpr(okUnary.expr!, { variables: new Map(), funcCtx: { baseDir: tmpdir(), planning: true, console: false } }).value.bool, false);
});

test('a 2.5-million-step attribute chain parses in linear time', () => {
  const small = parse(`var${'.a'.repeat(100_000)}`);
  const big = parse(`var${'.a'.repeat(1_000_000)}`);
  assert.deepEqual(big.diagnostics, []);
  assert.ok(big.expr?.kind === 'scopeTraversal' && big.expr.traversal.steps.length === 1_000_000);
  // Linear: 10x the input costs far less than 100x the time (generous for a loaded machine).
  assert.ok(big.ms < Math.max(50 * small.ms, 2000), `100k steps ${small.ms} ms, 1M steps ${big.ms} ms`);
});

test('the directory validator reports deep expressions and blocks with their ranges', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-deep-'));
  try {
    await validateDirectory(dir, { overlays: new Map() });
    const run = async (text: string) => {
      const file = join(dir, 'main.tf');
      const t0 = performance.now();
      const res = await validateDirectory(dir, { overlays: new Map([[file, text]]) });
      const ms = performance.now() - t0;
      assert.ok(ms < 10_000, `${ms} ms`);
      return res.diagnostics;
    };
    const brackets = await run(`x = ${r('[')}1${r(']')}\n`);
    const b = brackets.find((d) => d.summary === 'Expression too deeply nested');
    assert.ok(b, JSON.stringify(brackets.map((d) => d.summary)));
    assert.deepEqual(plainRange(b.subject!), { filename: 'main.tf', start: col(4 + MAX_EXPR_DEPTH), end: col(4 + 2 * DEEP + 1 - MAX_EXPR_DEPTH) });

    for (const text of [`x = ${r('!')}true\n`, `x = ${r('max(')}1${r(')')}\n`, `x = ${r('true ? 1 : ')}0\n`, `x = ${r('[for a in ')}[1]${r(' : a]')}\n`]) {
      const ds = await run(text);
      assert.ok(ds.some((d) => d.summary === 'Expression too deeply nested'), JSON.stringify(ds.map((d) => d.summary)));
    }

    const blocks = await run(`${r('a {\n')}${r('}\n')}`);
    const k = blocks.find((d) => d.summary === 'Blocks too deeply nested');
    assert.ok(k, JSON.stringify(blocks.map((d) => d.summary)));
    assert.match(k.detail ?? '', new RegExp(`${MAX_BLOCK_DEPTH} levels`));
    // From the type name of block MAX+1 to its closing brace.
    assert.deepEqual(k.subject?.start, { line: MAX_BLOCK_DEPTH + 1, column: 1, byte: 4 * MAX_BLOCK_DEPTH });
    assert.deepEqual(k.subject?.end.line, 2 * DEEP - MAX_BLOCK_DEPTH);
    assert.equal(k.subject?.end.column, 2);

    const unclosed = await run(r('a {\n'));
    const u = unclosed.find((d) => d.summary === 'Blocks too deeply nested');
    assert.ok(u);
    assert.deepEqual(plainRange(u.subject!), { filename: 'main.tf', start: { line: MAX_BLOCK_DEPTH + 1, column: 1, byte: 4 * MAX_BLOCK_DEPTH }, end: { line: MAX_BLOCK_DEPTH + 1, column: 2, byte: 4 * MAX_BLOCK_DEPTH + 1 } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
