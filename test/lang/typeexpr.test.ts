// Type constraints (convert.ts typeFromExpr with Terraform's variable rules): the diagnostics for
// test/data/expressions/config/types.tf, rendered, must equal `terraform validate -no-color` output
// recorded from terraform 1.11.4 in types.validate.txt.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initParser, newParser, type SyntaxNode } from '../../server/syntax/treesitter';
import { exprFromNode } from '../../server/lang/parse';
import { typeFromExpr } from '../../server/lang/convert';
import { renderDiagnostics } from '../../server/diags/render';
import type { Diagnostic } from '../../server/diags/diagnostic';
import * as T from '../../server/lang/types';
import { parseExpression } from '../../server/lang/parse';

const DATA = join(__dirname, '..', '..', '..', 'test', 'data', 'expressions', 'config');

test('invalid variable types are reported exactly as terraform validate does', async () => {
  await initParser();
  const p = newParser();
  const src = readFileSync(join(DATA, 'types.tf'), 'utf8');
  const tree = p.parse(src)!;
  const diags: Diagnostic[] = [];
  try {
    const walk = (n: SyntaxNode) => {
      if (n.type === 'attribute' && n.child(0)!.text === 'type') {
        const ex = n.children.find((c) => c?.type === 'expression')!;
        diags.push(...typeFromExpr(exprFromNode(ex, 'main.tf', src).expr, { variable: true }).diagnostics);
        return;
      }
      for (const c of n.children) if (c) walk(c);
    };
    walk(tree.rootNode);
  } finally {
    tree.delete();
    p.delete();
  }
  const lines = src.split('\n');
  const contextOf = (r: { start: { line: number } }) => /^(variable "[^"]*")/.exec(lines[r.start.line - 1])?.[1];
  const out = renderDiagnostics(diags, { color: false, sources: new Map([['main.tf', src]]), contextOf });
  assert.equal(out, readFileSync(join(DATA, 'types.validate.txt'), 'utf8'));
});

test('valid constraints produce their types', () => {
  const ty = (s: string) => {
    const r = typeFromExpr(parseExpression(s, 't.tf').expr!, { variable: true });
    assert.deepEqual(r.diagnostics, [], s);
    return T.typeString(r.type);
  };
  assert.equal(ty('list'), 'list(dynamic)');
  assert.equal(ty('map(any)'), 'map(dynamic)');
  assert.equal(ty('tuple([string, number])'), 'tuple([\n    string,\n    number,\n])');
  assert.equal(ty('set(object({ a = bool }))'), 'set(object({\n    a: bool,\n}))');
});
