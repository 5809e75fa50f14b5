// The editing features' per-file index (server/lsp/features/fileIndex.ts): which traversals count as references.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initParser, newParser } from '../../server/syntax/treesitter';
import { indexTree } from '../../server/lsp/features/fileIndex';

test('a bare identifier object key is a literal name, not a reference; keys with steps or in parentheses are', async () => {
  await initParser();
  const parser = newParser();
  const text = 'locals {\n  m = { env = var.env, (local.k) = 1, a.b = 2, "q" = prev }\n}\n';
  const tree = parser.parse(text);
  assert.ok(tree);
  try {
    const refs = indexTree(tree).refs.map((r) => [r.root.name, ...r.parts.map((p) => p.name)].join('.'));
    assert.deepEqual(refs, ['var.env', 'local.k', 'a.b', 'prev']);
  } finally {
    tree.delete();
    parser.delete();
  }
});
