// The preview notification's changes as edits of the previous list (protocol.ts changesDelta, applyChangesDelta,
// resolveChanges): applying the edits to the base gives the new list, whatever was added, removed or reordered, and
// a client without the base, or with another version, is told to ask for the whole preview.

import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { applyChangesDelta, changesDelta, resolveChanges, type PreviewChangedNotification, type ResourceChangeInfo } from '../../server/lsp/protocol';

const info = (name: string, action: ResourceChangeInfo['action'] = 'no-op'): ResourceChangeInfo => ({
  address: `terraform_data.${name}`,
  module: '',
  mode: 'managed',
  type: 'terraform_data',
  name,
  action,
  inState: true,
});

test('changes delta: runs of the base and new entries rebuild the new list', () => {
  const base = Array.from({ length: 40 }, (_, i) => info(`r${i}`));
  const cases: [string, ResourceChangeInfo[], number | undefined][] = [
    ['unchanged', [...base], 1],
    ['one entry replaced', [...base.slice(0, 7), info('r7', 'update'), ...base.slice(8)], 3],
    ['one added in the middle, one removed at the end', [...base.slice(0, 20), info('new', 'create'), ...base.slice(20, 39)], 3],
    ['first and last removed', base.slice(1, 39), 1],
    ['two runs swapped', [...base.slice(20), ...base.slice(0, 20)], 2],
    ['everything new: no delta', base.map((c) => info(c.name, 'update')), undefined],
  ];
  for (const [what, next, ops] of cases) {
    const d = changesDelta(base, 7, next);
    assert.equal(d?.ops.length, ops, what);
    if (!d) continue;
    assert.equal(d.base, 7);
    const rebuilt = applyChangesDelta(base, d)!;
    assert.equal(rebuilt.length, next.length, what);
    rebuilt.forEach((c, i) => assert.equal(c, next[i], `${what}: entry ${i}`));
    // Over the wire: the same list by value.
    assert.deepEqual(applyChangesDelta(JSON.parse(JSON.stringify(base)), JSON.parse(JSON.stringify(d))), JSON.parse(JSON.stringify(next)), what);
  }
});

test('changes delta: a run outside the base, a missing or other base version: the client asks for the preview', () => {
  const base = [info('a'), info('b')];
  assert.equal(applyChangesDelta(base, { base: 1, ops: [[1, 2]] }), undefined);
  assert.equal(applyChangesDelta(base, { base: 1, ops: [[-1, 1]] }), undefined);
  const n = (d: PreviewChangedNotification.Params['changesDelta'], changes?: ResourceChangeInfo[]): PreviewChangedNotification.Params => ({
    directory: '/w',
    version: 5,
    complete: true,
    summary: { add: 0, change: 0, destroy: 0, import: 0, replace: 0 },
    diagnostics: [],
    workspace: 'default',
    ...(changes ? { changes } : {}),
    ...(d ? { changesDelta: d } : {}),
  });
  assert.deepEqual(resolveChanges(n(undefined, [info('c')]), undefined), [info('c')]);
  assert.equal(resolveChanges(n({ base: 4, ops: [[0, 2]] }), undefined), undefined);
  assert.equal(resolveChanges(n({ base: 4, ops: [[0, 2]] }), { version: 3, changes: base }), undefined);
  assert.deepEqual(resolveChanges(n({ base: 4, ops: [[1, 1], info('c')] }), { version: 4, changes: base }), [info('b'), info('c')]);
});
