// The client's view model (client/model.ts) under plain Node: the Resources tree built from a plan and the
// state, the descriptions and context values the views show, the apply confirmation's text, run arguments.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlanSummary, ResourceChangeInfo, StateInstanceInfo } from '../../server/lsp/protocol';
import {
  lockHolderLine,
  buildTree,
  confirmation,
  contextValue,
  duration,
  instanceDescription,
  mergeProgress,
  moduleDescription,
  moduleSteps,
  resourceDescription,
  runArgs,
  runLabel,
  shortSummary,
  soleInstance,
  summaryLine,
} from '../../client/model';

const range = (a: number, b: number) => ({ start: { line: a, character: 0 }, end: { line: b, character: 1 } });
function change(address: string, action: ResourceChangeInfo['action'], extra: Partial<ResourceChangeInfo> = {}): ResourceChangeInfo {
  const m = /^((?:module\.[^.[]+(?:\[[^\]]+\])?\.)*)(data\.)?([^.]+)\.([^.[]+)(?:\[(.+)\])?$/.exec(address)!;
  return {
    address,
    module: m[1].replace(/\.$/, ''),
    mode: m[2] ? 'data' : 'managed',
    type: m[3],
    name: m[4],
    key: m[5],
    action,
    inState: action !== 'create' && action !== 'read',
    ...extra,
  };
}
function stateOf(c: ResourceChangeInfo): StateInstanceInfo {
  return { address: c.address, module: c.module, mode: c.mode, type: c.type, name: c.name, key: c.key, provider: 'provider["terraform.io/builtin/terraform"]', attributes: { id: 'x' } };
}

test('module steps split at module boundaries, not inside keys', () => {
  assert.deepEqual(moduleSteps(''), []);
  assert.deepEqual(moduleSteps('module.a'), ['module.a']);
  assert.deepEqual(moduleSteps('module.a["x.module.y"].module.b[0]'), ['module.a["x.module.y"]', 'module.a["x.module.y"].module.b[0]']);
});

test('the tree groups instances under resources under modules, with state-only instances too', () => {
  const changes = [
    change('terraform_data.server[1]', 'create', { file: '/w/main.tf', range: range(15, 22) }),
    change('terraform_data.server[0]', 'update', { changedAttributes: 2, file: '/w/main.tf', range: range(15, 22) }),
    change('terraform_data.server[10]', 'no-op'),
    change('module.greeting.terraform_data.hello', 'replace', { replacePaths: ['input'] }),
    change('data.terraform_remote_state.x', 'read'),
  ];
  const gone = change('terraform_data.old', 'no-op');
  const diags = [{ severity: 'error' as const, summary: 'Invalid value', file: '/w/main.tf', range: { start: { line: 18, character: 4 }, end: { line: 18, character: 9 } } }];
  const root = buildTree(changes, [stateOf(changes[1]), stateOf(changes[2]), stateOf(gone)], diags);
  assert.deepEqual(root.modules.map((m) => m.label), ['module.greeting']);
  assert.equal(moduleDescription(root.modules[0]), '-/+1');
  assert.equal(moduleDescription(root), '+1 ~1 -/+1 <=1');
  assert.equal(moduleDescription(buildTree([change('a.b', 'no-op')], [])), 'no changes');
  assert.deepEqual(root.resources.map((r) => r.label), ['data.terraform_remote_state.x', 'terraform_data.old', 'terraform_data.server']);
  const server = root.resources[2];
  assert.deepEqual(server.instances.map((i) => i.label), ['[0]', '[1]', '[10]'], 'numeric keys in numeric order');
  assert.equal(server.errors.length, 1, 'the diagnostic inside the block is the resource\'s');
  assert.equal(resourceDescription(server), '3 instances: +1 ~1 =1 · 1 error');
  assert.equal(resourceDescription(buildTree([change('a.b[0]', 'no-op'), change('a.b[1]', 'no-op')], []).resources[0]), '2 instances: no changes');
  assert.equal(instanceDescription(server.instances[0]), '~ 2 attributes · in state');
  assert.equal(instanceDescription(server.instances[1]), '+ create');
  assert.equal(contextValue(server.instances[0]), 'instance managed inState changed');
  assert.equal(contextValue(server.instances[1]), 'instance managed changed');
  assert.equal(contextValue(server.instances[2]), 'instance managed inState');

  const old = root.resources[1];
  assert.ok(soleInstance(old));
  assert.equal(instanceDescription(old.instances[0]), 'in state', 'only in the state: no plan has seen it yet');
  const hello = root.modules[0].resources[0];
  assert.equal(hello.label, 'terraform_data.hello');
  assert.equal(resourceDescription(hello), '-/+ replace (input) · in state');
  assert.equal(contextValue(hello), 'resource instance managed inState changed');
  assert.equal(contextValue(root.resources[0]), 'resource instance data changed');
});

test('descriptions: deletes, drift, imports, moves, taint and deposed objects', () => {
  const c = change('a.b', 'delete', { deposed: '00abcdef' });
  const root = buildTree([change('a.b', 'no-op', { drifted: true, movedFrom: 'a.old' }), c, change('a.c', 'create', { importing: true })], [{ ...stateOf(c), deposed: undefined, tainted: true }]);
  const [b, cc] = root.resources;
  assert.deepEqual(b.instances.map((i) => i.label), ['a.b', 'a.b (deposed 00abcdef)']);
  assert.equal(instanceDescription(b.instances[0]), 'no changes · moved from a.old · drifted · tainted · in state');
  assert.equal(instanceDescription(b.instances[1]), '- destroy · in state');
  assert.equal(instanceDescription(cc.instances[0]), '+ create · import');
});

const sum = (add: number, change: number, destroy: number, replace = 0, imp = 0): PlanSummary => ({ add, change, destroy, replace, import: imp });

test('summaries as the status bar and Terraform say them', () => {
  assert.equal(shortSummary(sum(3, 1, 0)), '+3 ~1 -0');
  assert.equal(shortSummary(undefined), '');
  assert.equal(summaryLine(sum(2, 1, 0)), '2 to add, 1 to change, 0 to destroy');
  assert.equal(summaryLine(sum(2, 1, 0, 0, 1)), '1 to import, 2 to add, 1 to change, 0 to destroy');
  assert.equal(summaryLine(sum(2, 1, 0), 'apply'), '2 added, 1 changed, 0 destroyed');
});

test('the apply confirmation lists each kind of change and calls out destroys and replacements', () => {
  const changes = [
    change('a.new', 'create'),
    change('a.edit', 'update'),
    change('a.swap', 'replace'),
    change('a.gone', 'delete'),
    change('a.same', 'no-op'),
  ];
  const c = confirmation(sum(2, 1, 2, 1), changes);
  assert.equal(c.title, 'Apply this plan? It destroys or replaces 2 objects.');
  assert.equal(c.destructive, true);
  assert.equal(c.action, 'Apply');
  assert.equal(
    c.detail,
    [
      '2 to add, 1 to change, 2 to destroy.',
      '',
      'Destroy (1):',
      '  a.gone',
      '',
      'Replace (destroy and create again) (1):',
      '  a.swap',
      '',
      'Create (1):',
      '  a.new',
      '',
      'Change in place (1):',
      '  a.edit',
      '',
      'Destroyed objects cannot be recovered.',
    ].join('\n'),
  );
  const safe = confirmation(sum(1, 0, 0), [change('a.new', 'create')], { workspace: 'staging' });
  assert.equal(safe.title, 'Apply this plan in workspace "staging"?');
  assert.equal(safe.destructive, false);
  const d = confirmation(sum(0, 0, 1), [change('a.gone', 'delete')], { destroyMode: true });
  assert.equal(d.title, 'Destroy all resources? 1 to destroy.');
  assert.equal(d.action, 'Destroy');
  const many = confirmation(sum(40, 0, 0), Array.from({ length: 40 }, (_, i) => change(`a.n[${i}]`, 'create')));
  assert.match(many.detail, /Create \(40\):\n {2}a\.n\[0\]\n[\s\S]* {2}a\.n\[29\]\n {2}\.\.\. and 10 more$/);
});

test('run arguments: honoured from code, ignored from tree nodes and the palette', () => {
  assert.deepEqual(runArgs(undefined), { args: {}, fromCode: false });
  assert.deepEqual(runArgs({ kind: 'instance', address: 'a.b' }), { args: {}, fromCode: false });
  assert.deepEqual(runArgs({ targets: ['a.b', 3], autoApprove: 'yes' }), {
    args: { targets: ['a.b'], replace: undefined, autoApprove: false, directory: undefined },
    fromCode: true,
  });
  assert.equal(runArgs({ autoApprove: true }).args.autoApprove, true);
});

test('runs: labels, durations and live progress', () => {
  assert.equal(duration(850), '850ms');
  assert.equal(duration(4210), '4.2s');
  assert.equal(duration(125000), '2m 5s');
  const run = { runId: 'r1', kind: 'apply' as const, directory: '/w', status: 'succeeded' as const, startedAt: '2026-11-23T05:00:01.000Z', durationMs: 2300, summary: sum(2, 1, 0), diagnostics: [], resources: [] };
  assert.deepEqual(runLabel(run), { label: 'Apply 05:00:01', description: '2 added, 1 changed, 0 destroyed · succeeded · 2.3s' });
  assert.deepEqual(runLabel({ ...run, kind: 'plan', status: 'running', durationMs: undefined }), { label: 'Plan 05:00:01', description: 'running' });
  const p = (address: string, state: 'started' | 'done') => ({ runId: 'r1', address, operation: 'create', state, elapsedMs: 0, message: `${address}: ${state}` });
  let list = mergeProgress([], p('a.b', 'started'));
  list = mergeProgress(list, p('a.c', 'started'));
  list = mergeProgress(list, p('a.b', 'done'));
  assert.deepEqual(list.map((x) => x.message), ['a.b: done', 'a.c: started']);
});

test('the lock holder line names who holds the state lock, for what, since when', () => {
  assert.equal(
    lockHolderLine({ id: 'c6a4a1f2-0d1e-2f3a-4b5c-6d7e8f901234', who: 'ana@build-7', operation: 'OperationTypeApply', created: '2026-11-23T07:40:01.123456789Z' }),
    'Locked by ana@build-7 for OperationTypeApply since 2026-11-23T07:40:01.123456789Z (lock ID c6a4a1f2-0d1e-2f3a-4b5c-6d7e8f901234)',
  );
});
