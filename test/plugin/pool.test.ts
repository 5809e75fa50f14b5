// The provider pool (server/plugin/pool.ts) and the on-disk schema cache (server/plugin/schemacache.ts) with real
// plugin processes (the scripted test provider, found through dev_overrides): one process per workspace and address
// reused by every caller, restarted after a crash, stopped when idle and by stopAll; no process at all in an
// untrusted workspace; a second pool answers GetProviderSchema from the disk cache without asking the provider.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderPool } from '../../server/plugin/pool';
import type { Provider } from '../../server/providers/provider';
import { DEFAULT_CLIENT_CAPABILITIES } from '../../server/providers/provider';
import type { Diagnostic } from '../../server/diags/diagnostic';
import { emptyValue, impliedType } from '../../server/providers/schema';
import { Value } from '../../server/lang/value';
import { writeTestProvider } from './client-harness';
import { hostLauncher, serveProcessHost } from '../../server/plugin/client/shared';

const FQN = 'example.com/test/random';
const root = mkdtempSync(join(tmpdir(), 'fs-pool-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

async function setup(name: string, settings: Record<string, string> = {}): Promise<{ work: string; env: Record<string, string | undefined>; log: string }> {
  const bin = join(root, name, 'bin');
  const log = join(root, name, 'rpc.log');
  await writeTestProvider(bin, 'random', { FAKE_LOG: log, ...settings });
  const rc = join(root, name, 'cli.tfrc');
  writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "${FQN}" = "${bin}"\n  }\n  direct {}\n}\n`);
  const work = join(root, name, 'work');
  mkdirSync(work, { recursive: true });
  return { work, log, env: { ...process.env, TF_CLI_CONFIG_FILE: rc, FORESIGHT_SCHEMA_CACHE_DIR: join(root, name, 'schemas') } };
}

const rpcs = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => l.split(' ')) : []);

function asProvider(p: Provider | Diagnostic): Provider {
  assert.ok(!('summary' in p), 'summary' in p ? `${p.summary}: ${p.detail}` : '');
  return p as Provider;
}

async function planOnce(p: Provider): Promise<readonly Diagnostic[]> {
  const s = await p.getProviderSchema();
  const ib = s.resourceTypes.random_integer.block;
  const cfg = new Map(emptyValue(ib).entries);
  cfg.set('min', Value.number(1));
  cfg.set('max', Value.number(9));
  const config = Value.object(cfg);
  const r = await p.planResourceChange({ typeName: 'random_integer', priorState: Value.null(impliedType(ib)), proposedNewState: config, config, priorPrivate: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  return r.diagnostics;
}

test('untrusted workspace: no binary is started, the caller gets a diagnostic', async () => {
  const { work, env, log } = await setup('untrusted');
  let trusted = false;
  const pool = new ProviderPool({ trusted: () => trusted, env });
  const r = await pool.provider(work, FQN);
  assert.ok('summary' in r);
  assert.equal((r as Diagnostic).summary, 'Provider not started in an untrusted workspace');
  assert.equal(pool.starts(work, FQN), 0);
  assert.deepEqual(rpcs(log), []);
  trusted = true;
  const p = asProvider(await pool.provider(work, FQN));
  assert.deepEqual(await planOnce(p), []);
  assert.equal(pool.starts(work, FQN), 1);
  await pool.stopAll();
});

test('one process per workspace and address, reused by every caller; restarted after a crash; stopped when idle', async () => {
  const { work, env, log } = await setup('reuse');
  const pool = new ProviderPool({ trusted: true, env, idleMs: 1500 });
  for (let i = 0; i < 3; i++) {
    const p = asProvider(await pool.provider(work, FQN));
    assert.deepEqual(await planOnce(p), []);
    await p.close(); // releases the handle only
  }
  assert.equal(pool.starts(work, FQN), 1);
  const pids = new Set(rpcs(log).map(([pid]) => pid));
  assert.equal(pids.size, 1, 'every call went to the same process');
  assert.deepEqual(rpcs(log).filter(([, r]) => r === 'GetProviderSchema').length, 1, 'schema fetched once');
  assert.equal(await pool.running(work, FQN), true);
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(await pool.running(work, FQN), false, 'stopped when idle');
  const p = asProvider(await pool.provider(work, FQN));
  assert.deepEqual(await planOnce(p), []);
  assert.equal(pool.starts(work, FQN), 2, 'started again after the idle stop');
  await pool.stopAll();
  assert.equal(await pool.running(work, FQN), false);
  const after = await pool.provider(work, FQN);
  assert.ok('summary' in after, 'a stopped pool starts nothing');
});

test('a crashed provider gives "Plugin did not respond" once and the next call runs on a fresh process', async () => {
  const { work, env, log } = await setup('crash', { FAKE_MODE: 'crash-on:PlanResourceChange' });
  const pool = new ProviderPool({ trusted: true, env });
  const p = asProvider(await pool.provider(work, FQN));
  const d = await planOnce(p);
  assert.deepEqual(
    d.map((x) => x.summary),
    ['Plugin did not respond'],
  );
  const v = await p.validateResourceConfig({ typeName: 'random_integer', config: emptyValue((await p.getProviderSchema()).resourceTypes.random_integer.block), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  assert.deepEqual(v.diagnostics, [], 'the next call is answered by a new process');
  assert.equal(pool.starts(work, FQN), 2);
  assert.equal(new Set(rpcs(log).map(([pid]) => pid)).size, 2);
  await pool.stopAll();
});

test('schema cache: a second pool gets the schema from disk without GetProviderSchema', async () => {
  const { work, env, log } = await setup('cache');
  const a = new ProviderPool({ trusted: true, env });
  const pa = asProvider(await a.provider(work, FQN));
  const sa = await pa.getProviderSchema();
  await a.stopAll();
  assert.equal(rpcs(log).filter(([, r]) => r === 'GetProviderSchema').length, 1);
  assert.equal(readFileSync(log, 'utf8').length > 0, true);
  const b = new ProviderPool({ trusted: true, env });
  const pb = asProvider(await b.provider(work, FQN));
  const sb = await pb.getProviderSchema();
  assert.deepEqual(Object.keys(sb.resourceTypes).sort(), Object.keys(sa.resourceTypes).sort());
  assert.equal(await b.running(work, FQN), false, 'the schema came from the cache: no process yet');
  assert.deepEqual(await planOnce(pb), []);
  assert.equal(rpcs(log).filter(([, r]) => r === 'GetProviderSchema').length, 1, 'the second process was never asked for its schema');
  await b.stopAll();
});

test('pools sharing processes through the process host: one process for both, configured once across them, a different configuration gets a fresh process, the last release ends it', async () => {
  const { work, env, log } = await setup('shared');
  // The host and both pools in one thread: BroadcastChannel delivers between distinct instances in a thread too.
  const host = serveProcessHost({ sweepMs: 100 });
  try {
    const a = new ProviderPool({ trusted: true, env, launch: hostLauncher() });
    const b = new ProviderPool({ trusted: true, env, launch: hostLauncher() });
    const pa = asProvider(await a.provider(work, FQN));
    const pb = asProvider(await b.provider(work, FQN));
    const [da, db] = await Promise.all([planOnce(pa), planOnce(pb)]);
    assert.deepEqual([da, db], [[], []]);
    assert.equal(new Set(rpcs(log).map(([pid]) => pid)).size, 1, 'both pools use one process');
    assert.equal((await host.pids()).length, 1);
    const block = (await pa.getProviderSchema()).provider.block;
    const configure = (p: Provider, version: string) => p.configureProvider({ terraformVersion: version, config: emptyValue(block), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
    const [ca, cb] = await Promise.all([configure(pa, '1.11.4'), configure(pb, '1.11.4')]);
    assert.deepEqual([ca.diagnostics, cb.diagnostics], [[], []]);
    assert.equal(rpcs(log).filter(([, r]) => r === 'ConfigureProvider').length, 1, 'the same configuration is sent once, whichever pool asks');
    const [before] = await host.pids();
    // A different configuration (here: another core version): a process is configured once, so the pool that needs
    // it gets a fresh process, while the first one goes on serving the other pool (whose calls are not cut short).
    assert.deepEqual((await configure(pb, '1.11.5')).diagnostics, []);
    const after = await host.pids();
    assert.equal(after.length, 2, 'the configured process and a fresh one');
    assert.ok(after.includes(before), 'the first process still serves the other pool');
    const fresh = after.find((p) => p !== before)!;
    assert.equal(rpcs(log).filter(([, r]) => r === 'ConfigureProvider').length, 2);
    const planned = rpcs(log).length;
    assert.deepEqual(await planOnce(pa), [], 'the other pool goes on with its process');
    assert.deepEqual(
      rpcs(log).slice(planned).map(([pid]) => Number(pid)),
      [before],
      'answered by the first process',
    );
    await a.stopAll();
    const gone = Date.now() + 5000;
    while ((await host.pids()).length > 1 && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await host.pids(), [fresh], 'the first process ended with its last user; the fresh one is still used');
    await b.stopAll();
    const deadline = Date.now() + 5000;
    while ((await host.pids()).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await host.pids(), [], 'ended with its last user');
  } finally {
    await host.stop();
  }
});
