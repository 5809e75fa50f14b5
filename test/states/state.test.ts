// The state model and SyncState (server/states/state.ts): the Change vocabulary, pruning, copies, and the
// ordering/failure contract of the persistence listener.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyChange, instanceAddrString, newDeposedKey, State, SyncState, type Change, type ObjectSrc } from '../../server/states/state';

const P = 'provider["registry.terraform.io/hashicorp/null"]';
const o = (id: string, extra: Partial<ObjectSrc> = {}): ObjectSrc => ({
  schemaVersion: 0,
  attrsJSON: JSON.stringify({ id }),
  sensitivePaths: [],
  status: 'ready',
  dependencies: [],
  createBeforeDestroy: false,
  ...extra,
});
const a = (name: string, key?: number | string, module = '') => ({ module, mode: 'managed' as const, type: 'null_resource', name, key });

test('addresses print as Terraform prints them', () => {
  assert.equal(instanceAddrString(a('x')), 'null_resource.x');
  assert.equal(instanceAddrString(a('x', 0, 'module.m["k"]')), 'module.m["k"].null_resource.x[0]');
  assert.equal(instanceAddrString({ ...a('x', 'a"b'), mode: 'data' }), 'data.null_resource.x["a\\"b"]');
});

test('changes build and prune the tree', () => {
  const s = new State();
  applyChange(s, { op: 'current', addr: a('x', 0, 'module.m'), provider: P, obj: o('1') });
  applyChange(s, { op: 'depose', addr: a('x', 0, 'module.m'), deposedKey: 'abcdef01' });
  assert.equal(s.object(a('x', 0, 'module.m')), undefined);
  assert.equal(s.object(a('x', 0, 'module.m'), 'abcdef01')!.attrsJSON, '{"id":"1"}');
  applyChange(s, { op: 'current', addr: a('x', 0, 'module.m'), provider: P, obj: o('2') });
  applyChange(s, { op: 'deposed', addr: a('x', 0, 'module.m'), deposedKey: 'abcdef01', provider: P, obj: null });
  assert.deepEqual([...s.instance(a('x', 0, 'module.m'))!.deposed.keys()], []);
  applyChange(s, { op: 'current', addr: a('x', 0, 'module.m'), provider: P, obj: null });
  assert.equal(s.resource(a('x', 0, 'module.m')), undefined, 'resource without instances is removed');
  s.pruneModules();
  assert.deepEqual([...s.modules.keys()], ['']);
  assert.ok(s.empty());
  assert.throws(() => applyChange(s, { op: 'depose', addr: a('x'), deposedKey: 'short' }));
});

test('moves keep objects and providers', () => {
  const s = new State();
  applyChange(s, { op: 'current', addr: a('x', 0), provider: P, obj: o('0') });
  applyChange(s, { op: 'current', addr: a('x', 1), provider: P, obj: o('1') });
  applyChange(s, { op: 'move-instance', from: a('x', 1), to: a('y', 'one', 'module.n') });
  assert.equal(s.object(a('y', 'one', 'module.n'))!.attrsJSON, '{"id":"1"}');
  assert.equal(s.resource(a('y', undefined, 'module.n'))!.provider, P);
  applyChange(s, { op: 'move-resource', from: a('x'), to: a('z') });
  assert.equal(s.object(a('z', 0))!.attrsJSON, '{"id":"0"}');
  assert.equal(s.resource(a('x')), undefined);
  assert.throws(() => applyChange(s, { op: 'move-resource', from: a('z'), to: a('y', undefined, 'module.n') }));
});

test('deepCopy is independent; empty and managed-object checks', () => {
  const s = new State();
  applyChange(s, { op: 'current', addr: { ...a('d'), mode: 'data' }, provider: P, obj: o('d') });
  assert.ok(!s.empty());
  assert.ok(!s.hasManagedResourceInstanceObjects());
  const c = s.deepCopy();
  applyChange(c, { op: 'current', addr: a('x'), provider: P, obj: o('x') });
  assert.ok(c.hasManagedResourceInstanceObjects());
  assert.equal(s.resource(a('x')), undefined);
});

test('deposed keys are 8 lowercase hex characters and avoid existing ones', () => {
  let n = 0;
  const seq = [0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
  const s = new State();
  applyChange(s, { op: 'deposed', addr: a('x'), deposedKey: '00000000', provider: P, obj: o('x') });
  assert.equal(newDeposedKey(s.instance(a('x')), () => seq[n++]), '88888888');
  assert.match(newDeposedKey(undefined), /^[0-9a-f]{8}$/);
});

test('SyncState notifies the listener of each change in order, even with a slow async listener', async () => {
  const seen: string[] = [];
  const sync = new SyncState(new State(), async (c: Change) => {
    await new Promise((r) => setTimeout(r, c.op === 'current' ? 20 : 1));
    seen.push(c.op === 'current' ? instanceAddrString(c.addr) : c.op);
  });
  sync.setResourceInstanceCurrent(a('x', 0), o('0'), P);
  sync.setResourceInstanceCurrent(a('x', 1), o('1'), P);
  const dk = sync.deposeResourceInstanceObject(a('x', 0))!;
  assert.match(dk, /^[0-9a-f]{8}$/);
  assert.equal(sync.deposeResourceInstanceObject(a('nothing')), undefined);
  sync.setOutputValue('o', { valueJSON: '1', typeJSON: '"number"', sensitive: false });
  sync.setCheckResults([]);
  assert.equal(sync.object(a('x', 0), dk)!.attrsJSON, '{"id":"0"}', 'mutations are visible at once');
  await sync.flush();
  assert.deepEqual(seen, ['null_resource.x[0]', 'null_resource.x[1]', 'depose', 'output', 'checks']);
  const st = await sync.close();
  assert.equal(st.outputs.size, 1);
  assert.throws(() => sync.setOutputValue('p', null), /after close/);
});

test('a failing listener fails flush and receives nothing more', async () => {
  const seen: string[] = [];
  const sync = new SyncState(new State(), (c: Change) => {
    if (c.op === 'output' && c.name === 'bad') throw new Error('disk full');
    if (c.op === 'output') seen.push(c.name);
  });
  sync.setOutputValue('a', null);
  sync.setOutputValue('bad', null);
  sync.setOutputValue('c', null);
  await assert.rejects(sync.flush(), /disk full/);
  assert.deepEqual(seen, ['a']);
});

test('a synchronous listener has run when apply returns', () => {
  const seen: string[] = [];
  const sync = new SyncState(new State(), (c: Change) => {
    if (c.op === 'output') seen.push(c.name);
  });
  sync.setOutputValue('a', null);
  assert.deepEqual(seen, ['a']);
  sync.setOutputValue('b', null);
  assert.deepEqual(seen, ['a', 'b']);
  assert.equal(sync.persistenceFailure, undefined);
});

test('instance addresses sort as terraform state list prints them', async () => {
  const { instanceAddrs, parseModuleInstance } = await import('../../server/states/state');
  assert.deepEqual(parseModuleInstance('module.a["x.y"].module.b[10].module.c'), [['a', 'x.y'], ['b', 10], ['c', undefined]]);
  const s = new State();
  const add = (module: string, name: string, key?: number | string, mode: 'managed' | 'data' = 'managed') =>
    applyChange(s, { op: 'current', addr: { module, mode, type: 'terraform_data', name, key }, provider: P, obj: o(name) });
  add('module.child', 'c');
  add('', 'root');
  add('', 'leaf');
  add('', 'many', 10);
  add('', 'many', 2);
  add('', 'many', 'a');
  add('', 'd', undefined, 'data');
  add('module.m[10]', 'x');
  add('module.m[2]', 'x');
  add('module.a.module.b', 'x');
  assert.deepEqual(instanceAddrs(s).map(instanceAddrString), [
    'data.terraform_data.d',
    'terraform_data.leaf',
    'terraform_data.many[2]',
    'terraform_data.many[10]',
    'terraform_data.many["a"]',
    'terraform_data.root',
    'module.child.terraform_data.c',
    'module.m[2].terraform_data.x',
    'module.m[10].terraform_data.x',
    'module.a.module.b.terraform_data.x',
  ]);
});
