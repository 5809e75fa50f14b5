// Tests of the expression parser (server/lang/parse.ts): AST shapes and ranges, references, templates,
// heredocs (checked against `terraform console` output for test/data/expressions/config/heredoc.tf),
// exprFromNode on tree-sitter trees, and HCL's syntax-error messages.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initParser, newParser, type SyntaxNode } from '../../server/syntax/treesitter';
import { exprFromNode, parseExpression, references, traversalString } from '../../server/lang/parse';
import { evaluate } from '../../server/lang/eval';
import { formatValue } from '../../server/lang/format';
import { emptyConsoleScope } from '../../server/cli/console';

const DATA = join(__dirname, '..', '..', '..', 'test', 'data', 'expressions');

function parseOk(text: string) {
  const r = parseExpression(text, 'x.tf');
  assert.deepEqual(r.diagnostics, [], `diagnostics for ${text}`);
  assert.ok(r.expr);
  return r.expr;
}

test('binary operators follow HCL precedence and associativity', () => {
  const e = parseOk('1 + 2 * 3 - 4');
  assert.equal(e.kind, 'binary');
  if (e.kind !== 'binary') return;
  assert.equal(e.op, '-');
  assert.equal(e.lhs.kind, 'binary');
  const c = parseOk('a || b && c == d');
  assert.ok(c.kind === 'binary' && c.op === '||');
});

test('scope traversals merge literal steps and carry ranges', () => {
  const e = parseOk('aws_instance.web[0].id');
  assert.equal(e.kind, 'scopeTraversal');
  if (e.kind !== 'scopeTraversal') return;
  assert.equal(traversalString(e.traversal), 'aws_instance.web[0].id');
  assert.deepEqual(e.range.start, { line: 1, column: 1, byte: 0 });
  assert.deepEqual(e.range.end, { line: 1, column: 23, byte: 22 });
  assert.equal(e.traversal.rootRange.end.column, 13);
});

test('references exclude for-expression variables and bare object keys', () => {
  const e = parseOk('{ for k, v in var.m : k => "${v}-${local.suffix}" if v != each.key } ');
  assert.deepEqual(references(e).map(traversalString), ['var.m', 'local.suffix', 'each.key']);
  const o = parseOk('{ a = var.x, (local.k) = 1, null = 2 }');
  assert.deepEqual(references(o).map(traversalString), ['var.x', 'local.k']);
  const s = parseOk('module.m.out[*].id');
  assert.deepEqual(references(s).map(traversalString), ['module.m.out']);
});

test('splat, index and provider function calls parse into their nodes', () => {
  assert.equal(parseOk('a.b[*].c').kind, 'splat');
  assert.equal(parseOk('x[var.i]').kind, 'index');
  const c = parseOk('provider::aws::arn_parse("x")');
  assert.ok(c.kind === 'call' && c.name === 'provider::aws::arn_parse');
  const d = parseOk('max([1, 2]...)');
  assert.ok(d.kind === 'call' && d.expandFinal);
});

test('syntax errors carry HCL summaries', () => {
  const cases: [string, string][] = [
    ['1 +', 'Missing expression'],
    ['(1', 'Unbalanced parentheses'],
    ['"abc', 'Unterminated template string'],
    ['[1 2]', 'Missing item separator'],
    ['{a = 1 b = 2}', 'Missing attribute separator'],
    ['1 2', 'Extra characters after expression'],
    ['true ? 1', 'Missing false expression in conditional'],
    ['"%{if true}x"', 'Unexpected end of template'],
    ['"\\q"', 'Invalid escape sequence'],
    ['[for x in y]', "Invalid 'for' expression"],
  ];
  for (const [src, summary] of cases) {
    const r = parseExpression(src, 'x.tf');
    assert.equal(r.expr, undefined, src);
    assert.equal(r.diagnostics[0]?.summary, summary, src);
  }
});

test('heredocs, flush heredocs and strip markers evaluate as terraform does', async () => {
  await initParser();
  const p = newParser();
  const file = join(DATA, 'config', 'heredoc.tf');
  const src = readFileSync(file, 'utf8');
  const expected = new Map(
    readFileSync(join(DATA, 'config', 'heredoc.expected.tsv'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [k, v] = l.split('\t');
        return [k, JSON.parse(v) as string];
      }),
  );
  const tree = p.parse(src)!;
  const seen: string[] = [];
  try {
    const walk = (n: SyntaxNode) => {
      if (n.type === 'attribute') {
        const name = n.child(0)!.text;
        const ex = n.children.find((c) => c?.type === 'expression')!;
        const r = exprFromNode(ex, 'heredoc.tf', src);
        assert.deepEqual(r.diagnostics, [], name);
        assert.equal(r.expr.range.start.line, ex.startPosition.row + 1);
        const v = evaluate(r.expr, emptyConsoleScope('.'));
        assert.deepEqual(v.diagnostics, [], name);
        assert.equal(formatValue(v.value) + '\n', expected.get(name), name);
        seen.push(name);
        return;
      }
      for (const c of n.children) if (c) walk(c);
    };
    walk(tree.rootNode);
  } finally {
    tree.delete();
    p.delete();
  }
  assert.deepEqual(seen, [...expected.keys()]);
});

test('exprFromNode ranges count code points for columns and UTF-8 for bytes', async () => {
  await initParser();
  const p = newParser();
  const src = 'a = "é😀"\nb = x + 1\n';
  const tree = p.parse(src)!;
  try {
    const attr = tree.rootNode.child(0)!.child(1)!;
    const ex = attr.children.find((c) => c?.type === 'expression')!;
    const r = exprFromNode(ex, 'm.tf', src);
    assert.deepEqual(r.expr.range.start, { line: 2, column: 5, byte: 17 });
    assert.deepEqual(references(r.expr)[0].range.start, { line: 2, column: 5, byte: 17 });
    assert.deepEqual(r.expr.range.end, { line: 2, column: 10, byte: 22 });
  } finally {
    tree.delete();
    p.delete();
  }
});
