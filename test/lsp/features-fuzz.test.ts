// Robustness of the editing features' syntax-level parts on mangled text (in-process, seeded): 2,000 random
// edits of a configuration that uses every construct; after each, the file index, folding ranges, semantic
// tokens (full and ranged), the cursor context at random offsets and the enclosing call never throw, and
// their results keep their invariants (tokens sorted, non-overlapping and inside their line; folding ranges
// inside the text; index ranges inside the text).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initParser, newParser } from '../../server/syntax/treesitter';
import { indexTree } from '../../server/lsp/features/fileIndex';
import { foldingRanges, semanticTokens } from '../../server/lsp/features/syntaxFeatures';
import { cursorContext, enclosingCall } from '../../server/lsp/features/context';

const SEED_TEXT = `# comment
variable "region" {
  type        = string
  description = "Where"
  validation {
    condition     = length(var.region) > 2
    error_message = "Too short: \${var.region}."
  }
}

locals {
  names = [for k, v in var.map : upper(k) if v != null]
  obj   = { a = 1, "b" = [1, 2.5e3], c = { d = true } }
  doc   = <<-EOT
    Hello \${local.names[0]}
    %{ for n in local.names }\${n}%{ endfor }
  EOT
}

resource "random_string" "s" {
  count  = 2
  length = join(",", [var.region, "x"]) == "" ? 8 : 16
  dynamic "keepers" {
    for_each = toset(["a"])
    content { k = keepers.value }
  }
  lifecycle {
    ignore_changes = [length]
  }
}

module "m" {
  source = "./m"
  x      = random_string.s[0].result
}

output "o" {
  value = module.m.out /* block
  comment */
}
`;

const ALPHABET = ['{', '}', '"', '(', ')', '[', ']', '=', '.', ',', '\n', ' ', '${', '%{', '<<EOT\n', '#', '/*', '*/', 'var.', 'x', '1', '?', ':', 'for ', '\\', '~', '€', '😀'];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('syntax-level editing features keep their invariants on 2,000 random edits', async () => {
  await initParser();
  const parser = newParser();
  const rand = rng(7);
  let text = SEED_TEXT;
  try {
    for (let i = 0; i < 2000; i++) {
      // Every 200 edits start again from the seed, so that the text stays a mangled configuration.
      if (i % 200 === 0) text = SEED_TEXT;
      const at = Math.floor(rand() * (text.length + 1));
      const del = rand() < 0.5 ? Math.floor(rand() * 4) : 0;
      const ins = rand() < 0.7 ? ALPHABET[Math.floor(rand() * ALPHABET.length)] : '';
      text = text.slice(0, at) + ins + text.slice(Math.min(text.length, at + del));
      const tree = parser.parse(text);
      assert.ok(tree);
      try {
        const lines = text.split('\n');
        const index = indexTree(tree);
        for (const d of index.decls) assert.ok(d.nameRange.start.line < lines.length && d.range.end.line < lines.length);
        for (const r of index.refs) assert.ok(r.root.name.length > 0);
        for (const f of foldingRanges(tree, text)) assert.ok(f.startLine < f.endLine && f.endLine < lines.length, JSON.stringify(f));
        const checkTokens = (data: number[]) => {
          assert.equal(data.length % 5, 0);
          let line = 0;
          let ch = 0;
          let prevEnd = -1;
          for (let k = 0; k < data.length; k += 5) {
            const [dl, dc, len] = data.slice(k, k + 3);
            assert.ok(dl >= 0 && len > 0);
            if (dl > 0) {
              line += dl;
              ch = dc;
              prevEnd = -1;
            } else ch += dc;
            assert.ok(ch >= prevEnd, `tokens overlap at ${line}:${ch}`);
            assert.ok(ch + len <= lines[line].length, `token past the end of line ${line}`);
            prevEnd = ch + len;
          }
        };
        checkTokens(semanticTokens(tree, text).data);
        const l1 = Math.floor(rand() * lines.length);
        checkTokens(semanticTokens(tree, text, { start: { line: l1, character: 0 }, end: { line: l1 + 3, character: 0 } }).data);
        for (let k = 0; k < 3; k++) {
          const off = Math.floor(rand() * (text.length + 1));
          const ctx = cursorContext(text, off);
          assert.ok(['name', 'label', 'expr', 'string', 'none'].includes(ctx.kind));
          const call = enclosingCall(text.slice(0, off));
          if (call) assert.ok(call.argument >= 0 && call.nameStart < off);
        }
      } finally {
        tree.delete();
      }
    }
  } finally {
    parser.delete();
  }
});
