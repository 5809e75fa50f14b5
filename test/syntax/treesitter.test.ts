import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initParser, newParser } from '../../server/syntax/treesitter';

test('the Terraform grammar loads and parses a block', async () => {
  await initParser();
  const p = newParser();
  const tree = p.parse('resource "a" "b" {\n  x = 1\n}\n')!;
  try {
    assert.equal(tree.rootNode.hasError, false);
    assert.equal(tree.rootNode.child(0)?.type, 'body');
  } finally {
    tree.delete();
    p.delete();
  }
});
