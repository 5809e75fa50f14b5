// Failure paths of the walk with a recording provider whose calls a test overrides: a failed create leaves a
// tainted object and skips dependents, a failed create_before_destroy replacement restores the deposed object,
// invalid provider plans and inconsistent apply results are reported, -parallelism bounds concurrent provider
// calls, cancellation stops new work, and configuration cycles are reported with their addresses.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Value } from '../../server/lang/value';
import type { ApplyResourceChangeRequest, PlanResourceChangeRequest, Provider } from '../../server/providers/provider';
import { actions, doApply, doPlan, load, newEnv, planApply, stateJSON, TF, writeConfig } from './harness';
import { apply, plan } from '../../server/engine';
import { Graph, walk } from '../../server/graph/graph';

const input = (req: { config: Value }) => {
  const v = req.config.entries.get('input');
  return v && v.isKnown && !v.isNull && v.type.kind === 'string' ? v.str : undefined;
};

test('A create that fails with a partial object leaves it tainted, and its dependent is skipped', async () => {
  const env = newEnv({ 'main.tf': 'resource "terraform_data" "a" {\n  input = "boom"\n}\nresource "terraform_data" "b" {\n  input = terraform_data.a.output\n}\n' });
  env.rec.fns.applyResourceChange = async (req: ApplyResourceChangeRequest, inner: Provider) => {
    const r = await inner.applyResourceChange(req);
    if (input(req as never) === 'boom') return { ...r, diagnostics: [{ severity: 'error', summary: 'Failed', detail: 'boom' }] };
    return r;
  };
  const p = await doPlan(env);
  const a = await doApply(env, p.plan);
  assert.deepEqual(a.diagnostics.map((d) => d.summary), ['Failed']);
  const sj = stateJSON(a.state) as { resources: { name: string; instances: { status?: string }[] }[] };
  assert.deepEqual(sj.resources.map((r) => [r.name, r.instances[0].status]), [['a', 'tainted']]);
  assert.equal(env.rec.called('applyResourceChange').length, 1, 'b was never applied');
  // The next plan replaces the tainted object.
  env.rec.fns = {};
  const p2 = await doPlan(env);
  assert.deepEqual(actions(p2.plan), ['terraform_data.a: DeleteThenCreate ReplaceBecauseTainted', 'terraform_data.b: Create']);
});

test('A failed create_before_destroy replacement restores the deposed object as current', async () => {
  const files = (rev: number) => ({ 'main.tf': `resource "terraform_data" "x" {\n  triggers_replace = [${rev}]\n  lifecycle {\n    create_before_destroy = true\n  }\n}\n` });
  const env = newEnv(files(1));
  const first = await planApply(env);
  const oldId = (stateJSON(first.state) as { resources: { instances: { attributes: { id: string } }[] }[] }).resources[0].instances[0].attributes.id;
  writeConfig(files(2), env.dir);
  env.rec.fns.applyResourceChange = async () => ({ newState: Value.null(), private: new Uint8Array(), diagnostics: [{ severity: 'error', summary: 'Create failed' }] });
  const p = await doPlan(env);
  assert.deepEqual(actions(p.plan), ['terraform_data.x: CreateThenDelete ReplaceBecauseCannotUpdate']);
  const a = await doApply(env, p.plan);
  assert.deepEqual(a.diagnostics.map((d) => d.summary), ['Create failed']);
  const sj = stateJSON(a.state) as { resources: { instances: { deposed?: string; attributes: { id: string } }[] }[] };
  assert.equal(sj.resources[0].instances.length, 1);
  assert.equal(sj.resources[0].instances[0].deposed, undefined);
  assert.equal(sj.resources[0].instances[0].attributes.id, oldId);
});

test('A provider plan that changes a configured value is reported as an invalid plan', async () => {
  const env = newEnv({ 'main.tf': 'resource "terraform_data" "a" {\n  input = "x"\n}\n' });
  env.rec.fns.planResourceChange = async (req: PlanResourceChangeRequest, inner: Provider) => {
    const r = await inner.planResourceChange(req);
    const m = new Map(r.plannedState.entries);
    m.set('input', Value.string('changed'));
    return { ...r, plannedState: Value.object(m) };
  };
  const p = await doPlan(env);
  assert.equal(p.diagnostics[0]?.summary, 'Provider produced invalid plan');
  assert.match(p.diagnostics[0]?.detail ?? '', /terraform_data\.a\.input/);
  assert.ok(p.plan.errored);
});

test('An apply result that differs from the plan is reported as an inconsistent result', async () => {
  const env = newEnv({ 'main.tf': 'resource "terraform_data" "a" {\n  input = "x"\n}\n' });
  env.rec.fns.applyResourceChange = async (req: ApplyResourceChangeRequest, inner: Provider) => {
    const r = await inner.applyResourceChange(req);
    const m = new Map(r.newState.entries);
    m.set('input', Value.string('other'));
    return { ...r, newState: Value.object(m) };
  };
  const p = await doPlan(env);
  const a = await doApply(env, p.plan);
  assert.equal(a.diagnostics[0]?.summary, 'Provider produced inconsistent result after apply');
});

test('With -parallelism=3, twelve independent creates never run more than three provider applies at once', async () => {
  let cfg = '';
  for (let i = 0; i < 12; i++) cfg += `resource "terraform_data" "r${i}" {\n  input = "${i}"\n}\n`;
  const env = newEnv({ 'main.tf': cfg });
  env.rec.delayMs = 20;
  const p = await doPlan(env);
  const a = await doApply(env, p.plan, 3);
  assert.deepEqual(a.diagnostics, []);
  assert.equal(env.rec.maxActive, 3);
  assert.equal(env.rec.called('applyResourceChange').length, 12);
});

test('Aborting the walk lets running applies finish, persists them, and starts nothing new', async () => {
  let cfg = '';
  for (let i = 0; i < 6; i++) cfg += `resource "terraform_data" "r${i}" {\n  input = "${i}"\n}\n`;
  const env = newEnv({ 'main.tf': cfg });
  const p = await doPlan(env);
  const ac = new AbortController();
  env.rec.delayMs = 30;
  const config = await load(env.dir);
  const persisted: string[] = [];
  const pr = apply(p.plan, {
    config,
    providers: (fqn) => (fqn === TF ? env.rec.provider() : undefined),
    cwd: env.dir,
    parallelism: 2,
    signal: ac.signal,
    listener: (c) => {
      if (c.op === 'current') persisted.push(c.addr.name);
    },
    hooks: { preApply: () => ac.abort() },
  });
  const r = await pr;
  const created = (stateJSON(r.state) as { resources: unknown[] }).resources.length;
  assert.ok(created >= 1 && created <= 2, `only the running applies completed (${created})`);
  assert.equal(persisted.length, created);
});

test('A reference cycle between resources is reported as "Cycle: a, b"', async () => {
  const env = newEnv({ 'main.tf': 'resource "terraform_data" "a" {\n  input = terraform_data.b.output\n}\nresource "terraform_data" "b" {\n  input = terraform_data.a.output\n}\n' });
  const config = await load(env.dir).catch(() => undefined);
  if (!config) return; // the static checks already reject it
  const r = await plan({ config, state: env.state, providers: () => env.rec.provider(), cwd: env.dir });
  assert.ok(r.diagnostics.some((d) => /^Cycle: terraform_data\.a, terraform_data\.b$/.test(d.summary)), JSON.stringify(r.diagnostics.map((d) => d.summary)));
});

test('The graph walk skips the transitive dependents of a failed node and runs independent ones', async () => {
  const g = new Graph<string>();
  for (const k of ['a', 'b', 'c', 'd']) g.add(k, k);
  g.connect('b', 'a');
  g.connect('c', 'b');
  const ran: string[] = [];
  const out = await walk(g, async (k) => {
    ran.push(k);
    return k !== 'a';
  });
  assert.deepEqual(Object.fromEntries(out), { a: 'failed', b: 'skipped', c: 'skipped', d: 'ok' });
  assert.deepEqual(ran.sort(), ['a', 'd']);
  g.connect('a', 'c');
  assert.deepEqual(g.cycles(), [['a', 'b', 'c']]);
});

test('A deposed object left by an earlier run is planned for deletion (deposed Delete) and removed by apply', async () => {
  const env = newEnv({ 'main.tf': 'resource "terraform_data" "x" {\n  input = "v"\n}\n' });
  await planApply(env);
  const { applyChange } = await import('../../server/states/state');
  const addr = { module: '', mode: 'managed' as const, type: 'terraform_data', name: 'x', key: undefined };
  const cur = env.state.object(addr)!;
  applyChange(env.state, { op: 'depose', addr, deposedKey: '0badcafe' });
  applyChange(env.state, { op: 'current', addr, provider: 'provider["terraform.io/builtin/terraform"]', obj: cur });
  const p = await doPlan(env);
  assert.deepEqual(actions(p.plan), ['terraform_data.x: NoOp', 'terraform_data.x (deposed): Delete']);
  assert.equal(p.plan.changes[1].deposedKey, '0badcafe');
  const a = await doApply(env, p.plan);
  assert.deepEqual(a.diagnostics, []);
  assert.equal(a.state.instance(addr)!.deposed.size, 0);
  assert.ok(a.state.object(addr));
  assert.deepEqual(env.events.slice(-2), ['pre Delete terraform_data.x deposed', 'post Delete terraform_data.x deposed']);
});

test('-target on a module instance plans only that instance and what it depends on', async () => {
  const env = newEnv({
    'main.tf': 'resource "terraform_data" "base" {\n  input = "b"\n}\nmodule "m" {\n  for_each = toset(["a", "b"])\n  source   = "./m"\n  v        = terraform_data.base.output\n}\nresource "terraform_data" "other" {\n  input = "o"\n}\n',
    'm/main.tf': 'variable "v" {}\nresource "terraform_data" "x" {\n  input = var.v\n}\n',
  });
  const p = await doPlan(env, { targets: ['module.m["a"]'] });
  assert.deepEqual(actions(p.plan), ['terraform_data.base: Create', 'module.m["a"].terraform_data.x: Create']);
  assert.equal(p.diagnostics.find((d) => d.severity === 'warning')?.summary, 'Resource targeting is in effect');
});
