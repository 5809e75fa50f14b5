// The resource index of a loaded module (config/load.ts IndexBuilder, ResourceIndex): a load follows the key
// positions of the previous load of the same module and shares them while its keys come in the same order. After
// every step of a random sequence of edits (resources renamed, added, removed, duplicated across files, data and
// managed alike, with a cache of parsed files as the language server keeps), the diagnostics and the lookup of
// the module are those of a load of the same files in a directory never loaded before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resourceLookup } from '../../server/config/model';
import { validateDirectory } from '../../server/config/validate';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];

function fileText(blocks: string[]): string {
  return blocks
    .map((k) => {
      const [mode, name] = k.split(':');
      return mode === 'data' ? `data "terraform_data" "${name}" {\n}\n` : `resource "terraform_data" "${name}" {\n  input = "${name}"\n}\n`;
    })
    .join('\n');
}

test('a load that follows the previous key positions equals a load in a fresh directory', async () => {
  const next = rng(11);
  const root = mkdtempSync(join(tmpdir(), 'foresight-resource-index-'));
  const dir = join(root, 'followed');
  const files: string[][] = [['managed:a', 'managed:b'], ['managed:c', 'data:a'], ['managed:d']];
  const cache = new Map();
  try {
    mkdirSync(dir);
    let duplicates = 0;
    for (let step = 0; step < 80; step++) {
      // One edit: rename, add, remove, or copy a block from another file (a duplicate), in one file.
      const f = Math.floor(next() * files.length);
      const list = files[f];
      const r = next();
      const block = `${next() < 0.2 ? 'data' : 'managed'}:${NAMES[Math.floor(next() * NAMES.length)]}`;
      if (r < 0.3 && list.length) list[Math.floor(next() * list.length)] = block;
      else if (r < 0.55) list.splice(Math.floor(next() * (list.length + 1)), 0, block);
      else if (r < 0.75 && list.length > 1) list.splice(Math.floor(next() * list.length), 1);
      else if (r < 0.85) {
        const other = files[Math.floor(next() * files.length)];
        if (other.length) list.push(other[Math.floor(next() * other.length)]);
      } // else: nothing changes (the keys come in the same order)
      files.forEach((l, i) => writeFileSync(join(dir, `f${i}.tf`), fileText(l)));
      const fresh = join(root, `fresh${step}`);
      mkdirSync(fresh);
      files.forEach((l, i) => writeFileSync(join(fresh, `f${i}.tf`), fileText(l)));
      const a = await validateDirectory(dir, { cache });
      const b = await validateDirectory(fresh);
      const show = (d: { summary: string; detail?: string; subject?: { filename: string; start: { line: number; column: number } } }) =>
        `${d.subject?.filename}:${d.subject?.start.line}:${d.subject?.start.column} ${d.summary} ${d.detail ?? ''}`;
      assert.deepEqual(a.diagnostics.map(show), b.diagnostics.map(show), `step ${step}`);
      if (b.diagnostics.some((d) => d.summary.startsWith('Duplicate'))) duplicates++;
      const lookup = (v: typeof a) => {
        const l = resourceLookup(v.module!);
        return [...l.all].map(([k, r]) => `${k} ${r.mode} ${r.type}.${r.name} ${r.declRange.filename}:${r.declRange.start.line}`);
      };
      assert.deepEqual(lookup(a), lookup(b), `step ${step}: lookup`);
      assert.equal(resourceLookup(a.module!).resources.size, resourceLookup(b.module!).resources.size);
      for (const [k, r] of resourceLookup(b.module!).resources) assert.equal(resourceLookup(a.module!).resources.get(k)?.declRange.start.line, r.declRange.start.line, k);
      rmSync(fresh, { recursive: true, force: true });
    }
    assert.ok(duplicates > 5, `${duplicates} steps with duplicates`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
