// The plugin client (server/plugin/client/) against real provider processes: the scripted test provider
// (test/plugin/client-testprovider.ts, Foresight's built-in providers served over go-plugin) on tfplugin6 and
// tfplugin5, with AutoMTLS and without; every answer equals the same built-in provider's in-process answer. Then the
// failures, each with Terraform's diagnostic text: a binary that is not a plugin (go-plugin's "Unrecognized remote
// plugin message" with the notes about the file), a crash during a call ("Plugin did not respond"), a gRPC error, a
// hang bounded by a deadline, an undecodable answer; graceful Shutdown and SIGKILL after the grace period; provider
// stderr to TF_LOG_PATH.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginProcess } from '../../server/plugin/client/process';
import { GrpcProvider } from '../../server/plugin/client/provider';
import { startBuiltinProvider } from '../../server/providers/builtin';
import { emptyValue, impliedType } from '../../server/providers/schema';
import { Value, rawEquals } from '../../server/lang/value';
import { typeEquals } from '../../server/lang/types';
import { DEFAULT_CLIENT_CAPABILITIES, type Provider } from '../../server/providers/provider';
import { writeTestProvider } from './client-harness';
import { decodeDynamicValue } from '../../server/plugin/msgpack';

const RANDOM = 'registry.terraform.io/hashicorp/random';
const root = mkdtempSync(join(tmpdir(), 'fs-client-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

function remote(exe: string, env: Record<string, string | undefined> = process.env, extra: Partial<ConstructorParameters<typeof GrpcProvider>[0]> = {}): GrpcProvider {
  return new GrpcProvider({ fqn: RANDOM, start: () => PluginProcess.start({ executable: exe, env }), ...extra });
}

function withAttrs(block: Parameters<typeof emptyValue>[0], attrs: Record<string, Value>): Value {
  const base = emptyValue(block);
  const out = new Map<string, Value>();
  for (const [k, v] of base.entries) out.set(k, attrs[k] ?? v);
  return Value.object(out);
}

async function roundTrip(p: Provider, local: Provider): Promise<void> {
  const rs = await p.getProviderSchema();
  const ls = await local.getProviderSchema();
  assert.deepEqual(rs.diagnostics, []);
  assert.deepEqual(Object.keys(rs.resourceTypes).sort(), Object.keys(ls.resourceTypes).sort());
  for (const k of Object.keys(ls.resourceTypes)) assert.ok(typeEquals(impliedType(rs.resourceTypes[k].block), impliedType(ls.resourceTypes[k].block)), `schema of ${k}`);
  const block = ls.resourceTypes.random_string.block;
  // Validation error at the attribute, from the provider's own validator.
  const bad = withAttrs(block, { length: Value.number(0) });
  const rv = await p.validateResourceConfig({ typeName: 'random_string', config: bad, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  const lv = await local.validateResourceConfig({ typeName: 'random_string', config: bad, clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  assert.ok(rv.diagnostics.length > 0);
  const plain = (x: unknown) => JSON.parse(JSON.stringify(x));
  assert.deepEqual(plain(rv.diagnostics), plain(lv.diagnostics));
  // Configure, plan and apply a random_integer: the same planned and applied objects (seeded, deterministic).
  const cfgBlock = ls.provider.block;
  for (const q of [p, local]) assert.deepEqual((await q.configureProvider({ terraformVersion: '1.11.4', config: emptyValue(cfgBlock), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES })).diagnostics, []);
  const ib = ls.resourceTypes.random_integer.block;
  const config = withAttrs(ib, { min: Value.number(1), max: Value.number(1000), seed: Value.string('s') });
  const prior = Value.null(impliedType(ib));
  const req = { typeName: 'random_integer', priorState: prior, proposedNewState: config, config, priorPrivate: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES };
  const rp = await p.planResourceChange(req);
  const lp = await local.planResourceChange(req);
  assert.deepEqual(rp.diagnostics, []);
  assert.ok(rawEquals(rp.plannedState, lp.plannedState), `planned: ${rp.plannedState} vs ${lp.plannedState}`);
  assert.ok(!rp.plannedState.isWhollyKnown, 'id and result are unknown until apply');
  const areq = { typeName: 'random_integer', priorState: prior, plannedState: rp.plannedState, config, plannedPrivate: rp.plannedPrivate };
  const ra = await p.applyResourceChange(areq);
  const la = await local.applyResourceChange(areq);
  assert.deepEqual(ra.diagnostics, []);
  assert.ok(rawEquals(ra.newState, la.newState), `applied: ${ra.newState} vs ${la.newState}`);
}

for (const proto of ['6', '5']) {
  for (const tls of [true, false]) {
    test(`tfplugin${proto}${tls ? ' with AutoMTLS' : ', TF_DISABLE_PLUGIN_TLS'}: schema, validation, configure, plan and apply equal the in-process provider`, async () => {
      const exe = await writeTestProvider(join(root, `p${proto}${tls}`), 'random', { FAKE_PROTOCOLS: proto === '5' ? '5' : '5,6' });
      const env = { ...process.env, TF_DISABLE_PLUGIN_TLS: tls ? undefined : '1' };
      const p = remote(exe, env);
      try {
        await roundTrip(p, startBuiltinProvider(RANDOM)!);
        const proc = (await p.process()) as PluginProcess;
        assert.equal(proc.protocol, Number(proto));
        assert.equal(proc.handshake.network, 'unix');
        assert.equal(!!proc.handshake.serverCertDer, tls, 'the plugin serves TLS exactly when the client sent its certificate');
      } finally {
        await p.close();
      }
      const proc = (await p.process())!;
      assert.equal(proc.alive, false);
      assert.equal(await proc.exited, 0, 'graceful Shutdown: the plugin exits by itself');
      // Nothing of the shutdown is left pending (a leftover grace timer held every command open for 2 s).
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(process.getActiveResourcesInfo().filter((x) => x === 'Timeout'), [], 'no timer left by the shutdown');
    });
  }
}

test('a binary that is not a plugin: go-plugin\'s message inside "Failed to load plugin schemas", and nothing left running', async () => {
  const exe = await writeTestProvider(join(root, 'nohs'), 'random', { FAKE_MODE: 'no-handshake' });
  const p = new GrpcProvider({ fqn: RANDOM, start: () => PluginProcess.start({ executable: exe, displayPath: 'bin/terraform-provider-random' }) });
  const s = await p.getProviderSchema();
  assert.equal(s.diagnostics.length, 1);
  assert.equal(s.diagnostics[0].summary, 'Failed to load plugin schemas');
  const uid = process.getuid!();
  assert.match(
    s.diagnostics[0].detail!,
    new RegExp(
      '^Error while loading schemas for plugin components: Failed to obtain provider schema: Could not load the schema for provider registry.terraform.io/hashicorp/random: failed to instantiate provider "registry.terraform.io/hashicorp/random" to obtain schema: Unrecognized remote plugin message: \\n' +
        "Failed to read any lines from plugin's stdout\\nThis usually means\\n  the plugin was not compiled for this architecture,\\n  the plugin is missing dynamic-link libraries necessary to run,\\n  the plugin is not executable by this process due to file permissions, or\\n  the plugin failed to negotiate the initial go-plugin protocol handshake\\n\\n" +
        `Additional notes about plugin:\\n  Path: bin/terraform-provider-random\\n  Mode: -rwxr-xr-x\\n  Owner: ${uid} \\[[^\\]]+\\] \\(current: ${uid} \\[[^\\]]+\\]\\)\\n  Group: \\d+ \\[[^\\]]+\\] \\(current: \\d+ \\[[^\\]]+\\]\\)\\n\\.\\.$`,
    ),
  );
  // Later calls report the same failure instead of throwing.
  const v = await p.validateProviderConfig({ config: Value.null() });
  assert.equal(v.diagnostics[0].summary, 'Failed to load plugin schemas');
  await p.close();
});

test('a crash during PlanResourceChange: "Plugin did not respond" naming plugin6.(*GRPCProvider).PlanResourceChange; the process is gone', async () => {
  const exe = await writeTestProvider(join(root, 'crash'), 'random', { FAKE_MODE: 'crash-on:PlanResourceChange' });
  const p = remote(exe);
  const s = await p.getProviderSchema();
  const ib = s.resourceTypes.random_integer.block;
  const config = withAttrs(ib, { min: Value.number(1), max: Value.number(2) });
  const r = await p.planResourceChange({ typeName: 'random_integer', priorState: Value.null(impliedType(ib)), proposedNewState: config, config, priorPrivate: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  assert.deepEqual(
    r.diagnostics.map((d) => [d.severity, d.summary, d.detail]),
    [['error', 'Plugin did not respond', 'The plugin encountered an error, and failed to respond to the plugin6.(*GRPCProvider).PlanResourceChange call. The plugin logs may contain more details.']],
  );
  assert.equal(r.plannedState.isNull, true);
  assert.equal(await p.dead(), true);
  const again = await p.validateProviderConfig({ config: emptyValue(s.provider.block) });
  assert.equal(again.diagnostics[0].summary, 'Plugin did not respond');
  await p.close();
});

test('protocol 5 names the call plugin.(*GRPCProvider).X; other gRPC errors are "Plugin error"; a hang ends at the deadline, a slow ApplyResourceChange does not', async () => {
  const exe5 = await writeTestProvider(join(root, 'crash5'), 'random', { FAKE_MODE: 'crash-on:Configure', FAKE_PROTOCOLS: '5' });
  const p5 = remote(exe5);
  const s5 = await p5.getProviderSchema();
  const c5 = await p5.configureProvider({ terraformVersion: '1.11.4', config: emptyValue(s5.provider.block), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  assert.equal(c5.diagnostics[0].detail, 'The plugin encountered an error, and failed to respond to the plugin.(*GRPCProvider).ConfigureProvider call. The plugin logs may contain more details.');
  await p5.close();

  const exeE = await writeTestProvider(join(root, 'err'), 'random', { FAKE_MODE: 'error-on:ValidateProviderConfig' });
  const pe = remote(exeE);
  const se = await pe.getProviderSchema();
  const e = await pe.validateProviderConfig({ config: emptyValue(se.provider.block) });
  assert.deepEqual(
    e.diagnostics.map((d) => [d.summary, d.detail]),
    [['Plugin error', 'The plugin returned an unexpected error from plugin6.(*GRPCProvider).ValidateProviderConfig: rpc error: code = Internal desc = fake failure in ValidateProviderConfig']],
  );
  await pe.close();

  const exeH = await writeTestProvider(join(root, 'hang'), 'random', { FAKE_MODE: 'hang-on:ValidateProviderConfig' });
  const ph = remote(exeH, process.env, { callTimeoutMs: 300 });
  const sh = await ph.getProviderSchema();
  const h = await ph.validateProviderConfig({ config: emptyValue(sh.provider.block) });
  assert.deepEqual(
    h.diagnostics.map((d) => [d.summary, d.detail]),
    [['Plugin error', 'The plugin returned an unexpected error from plugin6.(*GRPCProvider).ValidateProviderConfig: rpc error: code = DeadlineExceeded desc = context deadline exceeded']],
  );
  await ph.close();

  // ApplyResourceChange is not cut short by the deadline: a real create may take many minutes (Terraform waits).
  const exeS = await writeTestProvider(join(root, 'slow'), 'random', { FAKE_MODE: 'slow-on:ApplyResourceChange:900' });
  const ps = remote(exeS, process.env, { callTimeoutMs: 300 });
  const ss = await ps.getProviderSchema();
  const ib = ss.resourceTypes.random_integer.block;
  const config = withAttrs(ib, { min: Value.number(1), max: Value.number(2) });
  const planned = await ps.planResourceChange({ typeName: 'random_integer', priorState: Value.null(impliedType(ib)), proposedNewState: config, config, priorPrivate: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  assert.deepEqual(planned.diagnostics, []);
  const t0 = performance.now();
  const applied = await ps.applyResourceChange({ typeName: 'random_integer', priorState: Value.null(impliedType(ib)), plannedState: planned.plannedState, config, plannedPrivate: planned.plannedPrivate });
  assert.ok(performance.now() - t0 >= 850, 'the apply waited for the slow answer');
  assert.deepEqual(applied.diagnostics, []);
  assert.ok([1, 2].includes(applied.newState.entries.get('result')!.num.toNumber()), 'applied result in range');
  await ps.close();
});

test('an answer that does not decode against the schema is an error diagnostic, not a crash', async () => {
  const exe = await writeTestProvider(join(root, 'nonsense'), 'random', { FAKE_MODE: 'nonsense-on:PlanResourceChange' });
  const p = remote(exe);
  const s = await p.getProviderSchema();
  const ib = s.resourceTypes.random_integer.block;
  const config = withAttrs(ib, { min: Value.number(1), max: Value.number(2) });
  const r = await p.planResourceChange({ typeName: 'random_integer', priorState: Value.null(impliedType(ib)), proposedNewState: config, config, priorPrivate: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES });
  assert.equal(r.diagnostics.length, 1);
  assert.equal(r.diagnostics[0].severity, 'error');
  // The message is the decoder's own (cty's), as Terraform appends the decode error.
  let expected = '';
  try {
    decodeDynamicValue({ msgpack: Buffer.from([0xc1, 0xc1]), json: Buffer.alloc(0) }, impliedType(ib));
  } catch (e) {
    expected = (e as Error).message;
  }
  assert.ok(expected.length > 0);
  assert.equal(r.diagnostics[0].summary, expected);
  assert.equal(await p.dead(), false, 'the provider itself is still running');
  await p.close();
});

test('kill: SIGKILL after the grace period when Shutdown gets no answer; provider stderr goes to TF_LOG_PATH', async () => {
  const logFile = join(root, 'tf.log');
  const exe = await writeTestProvider(join(root, 'stuck'), 'random', { FAKE_MODE: 'hang-on:GetProviderSchema' });
  const proc = await PluginProcess.start({ executable: exe, env: { ...process.env, TF_LOG: 'debug', TF_LOG_PATH: logFile } });
  // The test provider answers Shutdown; make it unresponsive by stopping it (SIGSTOP) first.
  process.kill(proc.pid!, 'SIGSTOP');
  const t0 = Date.now();
  await proc.kill(300);
  assert.equal(proc.alive, false);
  assert.ok(Date.now() - t0 >= 300, 'waited for the grace period');
  assert.ok(existsSync(logFile));
  assert.match(readFileSync(logFile, 'utf8'), /\[DEBUG\] provider\.terraform-provider-random: fake provider random serving protocol 6\n/);
});

test('CLI with a tfplugin6 binary (foresight provider serve random, from a mirror): init, apply and a no-op plan equal terraform\'s', async (t) => {
  const { spawnSync } = await import('node:child_process');
  const { chmodSync, mkdirSync, writeFileSync } = await import('node:fs');
  const { main } = await import('../../server/cli/main');
  const { currentPlatform } = await import('../../server/plugin/discovery');
  if (spawnSync('terraform', ['version'], { encoding: 'utf8' }).status !== 0) {
    t.skip('terraform not on PATH');
    console.log('# SKIP: terraform not on PATH; the CLI is not compared with terraform on a tfplugin6 binary');
    return;
  }
  const base = join(root, 'cli6');
  const pkg = join(base, 'mirror/registry.terraform.io/acme/random/1.0.0', currentPlatform());
  mkdirSync(pkg, { recursive: true });
  const exe = join(pkg, 'terraform-provider-random_v1.0.0');
  writeFileSync(exe, `#!/bin/sh\nexec ${process.execPath} ${join(process.cwd(), 'dist/cli.js')} provider serve random\n`);
  chmodSync(exe, 0o755);
  const rc = join(base, 'cli.tfrc');
  writeFileSync(rc, `provider_installation {\n  filesystem_mirror {\n    path = "${join(base, 'mirror')}"\n  }\n}\n`);
  const env = { TF_CLI_CONFIG_FILE: rc, HOME: base, FORESIGHT_SCHEMA_CACHE_DIR: join(base, 'schemas'), TF_IN_AUTOMATION: '1' };
  const tf =
    'terraform {\n  required_providers {\n    random = {\n      source = "acme/random"\n    }\n  }\n}\n\n' +
    'resource "random_integer" "n" {\n  min  = 1\n  max  = 1000\n  seed = "foresight"\n}\n\n' +
    'resource "random_shuffle" "s" {\n  input        = ["a", "b", "c", "d"]\n  result_count = 2\n  seed         = "x${random_integer.n.result}"\n}\n\n' +
    'output "picked" {\n  value = random_shuffle.s.result\n}\n';
  const dirs = { tf: join(base, 'tf'), fs: join(base, 'fs') };
  for (const d of Object.values(dirs)) {
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'main.tf'), tf);
  }
  const runTf = (argv: string[]) => {
    const r = spawnSync('terraform', argv, { cwd: dirs.tf, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } });
    return { code: r.status, out: r.stdout + r.stderr };
  };
  const runFs = async (argv: string[]) => {
    let out = '';
    const code = await main(argv, { stdin: async () => '', stdout: (x) => (out += x), stderr: (x) => (out += x), cwd: dirs.fs, env: { ...process.env, ...env } });
    return { code, out };
  };
  for (const argv of [['init', '-no-color'], ['apply', '-auto-approve', '-no-color'], ['plan', '-no-color', '-detailed-exitcode']]) {
    const want = runTf(argv);
    const got = await runFs(argv);
    // Elapsed whole seconds ("Creation complete after 0s") depend on the machine's load, in either tool.
    const elapsed = (s: string) => s.replace(/ after \d+s \[id=/g, ' after Ns [id=');
    assert.equal(elapsed(got.out), elapsed(want.out), argv.join(' '));
    assert.equal(got.code, want.code, argv.join(' '));
  }
  const state = (d: string) => {
    const s = JSON.parse(readFileSync(join(d, 'terraform.tfstate'), 'utf8'));
    return { outputs: s.outputs, resources: s.resources };
  };
  assert.deepEqual(state(dirs.fs), state(dirs.tf));
  assert.equal(readFileSync(join(dirs.fs, '.terraform.lock.hcl'), 'utf8'), readFileSync(join(dirs.tf, '.terraform.lock.hcl'), 'utf8'));
});
