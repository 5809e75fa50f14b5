// attributeRange (server/engine/validate.ts): where a provider diagnostic's attribute path points in the source,
// as Terraform 1.11.4's tfdiags ElaborateFromConfigBody places it, plus the language server's extension into the
// `content` of a lone `dynamic` block. In-process, on bodies loaded from a real file.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateDirectory } from '../../server/config/validate';
import type { Range } from '../../server/diags/diagnostic';
import { attributeRange } from '../../server/engine/validate';
import { path } from '../../server/providers/path';
import { initParser } from '../../server/syntax/treesitter';

const SRC = `resource "x_thing" "a" {
  tags  = { env = "dev", "team" = "ops" }
  list  = ["a", "b"]
  other = var.list
  blk {
    x = 1
  }
  blk {
    x = 2
  }
  labeled "k" {
    y = 3
  }
  one {
    z = 4
  }
  dynamic "dyn" {
    for_each = [1]
    content {
      w = 5
    }
  }
}
`;

/** "line:col-line:col" of a range (1-based, as Terraform prints them). */
const at = (r: Range) => `${r.start.line}:${r.start.column}-${r.end.line}:${r.end.column}`;

test('attribute paths resolve to the attribute, element, map value or nested block they name', async () => {
  await initParser();
  const dir = mkdtempSync(join(tmpdir(), 'foresight-ranges-'));
  try {
    writeFileSync(join(dir, 'main.tf'), SRC + 'variable "list" {}\n');
    const res = await validateDirectory(dir);
    const body = res.module!.resources[0].config;
    const end = at(body.endRange);
    assert.equal(end, '23:1-23:1', 'the body end (missing item range) is before the closing brace');
    const cases: [ReturnType<typeof path>, string, boolean?][] = [
      [path(), end],
      [path(0), end],
      [path('tags'), '2:11-2:42'],
      // A map value is pointed at by its start (HCL's StartRange: a quoted string's text inside the quotes).
      [path('tags', { key: 'env' }), '2:20-2:23'],
      [path('tags', { key: 'team' }), '2:36-2:39'],
      [path('tags', { key: 'nope' }), '2:3-2:7'],
      [path('list', 1), '3:17-3:20'],
      [path('list', 5), '3:3-3:7'],
      [path('other', 0), '4:11-4:19'],
      [path('blk', 1, 'x'), '9:9-9:10'],
      [path('blk', 0, 'x'), '6:9-6:10'],
      [path('blk', 'x'), end],
      [path('blk', 7, 'x'), end],
      [path('labeled', { key: 'k' }, 'y'), '12:9-12:10'],
      [path('labeled', { key: 'other' }, 'y'), end],
      [path('one', 'z'), '15:9-15:10'],
      [path('one', 'missing'), '16:3-16:3'],
      [path('dyn', 0, 'w'), end],
      [path('dyn', 0, 'w'), '20:11-20:12', true],
      [path('missing'), end],
    ];
    for (const [p, want, dyn] of cases) assert.equal(at(attributeRange(body, p, dyn)), want, JSON.stringify(p.map((s) => (s.kind === 'attr' ? s.name : s.key.toString?.() ?? '?'))) + (dyn ? ' (through dynamic)' : ''));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
