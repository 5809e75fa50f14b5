// Provider binaries in the language server (server/lsp/providers.ts), over stdio to dist/server.js: a resource of a
// provider Foresight does not carry (the scripted test provider serving `random` as example.com/test/random, found
// through dev_overrides) gets the provider's own ValidateResourceConfig diagnostic at the attribute, exactly as the
// built-in hashicorp/random gives it; later edits reuse the same provider process (one pid in the provider's RPC
// log); the process ends when the server shuts down; an untrusted workspace starts no process and says why.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { TestClient, type Published } from './client';
import { writeTestProvider } from '../plugin/client-harness';
import { PreviewClient } from './preview-client';
import type { PreviewResult } from '../../server/lsp/protocol';

const FQN = 'example.com/test/random';
const root = mkdtempSync(join(tmpdir(), 'fs-lsp-plugin-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));

const NO_PREVIEW = { debounceMs: 10, preview: false };

/** A provider wrapper, CLI configuration and schema cache for one test; the server inherits the environment. */
async function setup(name: string, settings: Record<string, string> = {}): Promise<{ log: string; dir(files: Record<string, string>, sub: string): string }> {
  const bin = join(root, name, 'bin');
  const log = join(root, name, 'rpc.log');
  await writeTestProvider(bin, 'random', { FAKE_LOG: log, ...settings });
  const rc = join(root, name, 'cli.tfrc');
  writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "${FQN}" = "${bin}"\n  }\n  direct {}\n}\n`);
  process.env.TF_CLI_CONFIG_FILE = rc;
  process.env.FORESIGHT_SCHEMA_CACHE_DIR = join(root, name, 'schemas');
  return {
    log,
    dir(files, sub) {
      const d = join(root, name, sub);
      mkdirSync(d, { recursive: true });
      for (const [n, t] of Object.entries(files)) writeFileSync(join(d, n), t);
      return d;
    },
  };
}

const rpcs = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => l.split(' ')) : []);

const config = (source: string, length: string) => `terraform {
  required_providers {
    random = {
      source = "${source}"
    }
  }
}

resource "random_password" "p" {
  length = ${length}
}
`;

type Want = [[number, number, number, number], string, string?];
const simplify = (ds: Diagnostic[]): Want[] =>
  ds.map((d): Want => [[d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character], String(d.message), String(d.code)]);

/** The latest diagnostics of `uri` when there are some (of document version `version`, if given). */
const nonEmpty = (c: TestClient, uri: string, version?: number): Published | undefined => {
  const p = c.latest(uri);
  return p && p.diagnostics.length && (version === undefined || p.version === version) ? p : undefined;
};

/** Whether `pid` is a zombie (killed, not yet reaped: a child of a terminated worker thread is reaped at exit). */
const zombie = (pid: number): boolean => {
  try {
    return / Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\)/, ''));
  } catch {
    return false;
  }
};

/** The live (not zombie) child processes of `pid` (every thread's), from /proc. */
const children = (pid: number): number[] => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((t) => readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number).filter((c) => !zombie(c)));
  } catch {
    return [];
  }
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !zombie(pid);
  } catch {
    return false;
  }
};

test('a plugin provider validates while typing, one process for every edit, stopped at shutdown', async () => {
  const w = await setup('trusted');
  const plugin = w.dir({ 'main.tf': config(FQN, '0') }, 'plugin');
  const builtin = w.dir({ 'main.tf': config('hashicorp/random', '0') }, 'builtin');
  const c = new TestClient();
  try {
    await c.initialize({}, { ...NO_PREVIEW, trusted: true });
    const uri = pathToFileURL(join(plugin, 'main.tf')).href;
    const bUri = pathToFileURL(join(builtin, 'main.tf')).href;
    const want: Want[] = [[[9, 11, 9, 12], 'Invalid Attribute Value\n\nAttribute length value must be at least 1, got: 0', 'provider']];
    const t0 = performance.now();
    await c.open(uri, config(FQN, '0'));
    const first = await c.waitFor('plugin diagnostics', () => nonEmpty(c, uri), 60_000);
    console.log(`first diagnostics through the plugin: ${(performance.now() - t0).toFixed(0)} ms`);
    assert.deepEqual(simplify(first.diagnostics), want);
    // The same diagnostic the built-in provider gives for the same text.
    await c.open(bUri, config('hashicorp/random', '0'));
    const b = await c.waitFor('built-in diagnostics', () => nonEmpty(c, bUri), 30_000);
    assert.deepEqual(simplify(b.diagnostics), want);

    // Two edits: fixed (no diagnostics), broken again with another value; both answered by the same process.
    await c.change(uri, 2, [{ text: config(FQN, '12') }]);
    await c.waitFor('fixed', () => c.latest(uri)?.version === 2 && c.latest(uri)!.diagnostics.length === 0, 30_000);
    await c.change(uri, 3, [{ text: config(FQN, '-3') }]);
    const third = await c.waitFor('broken again', () => nonEmpty(c, uri, 3), 30_000);
    assert.deepEqual(simplify(third.diagnostics), [[[9, 11, 9, 13], 'Invalid Attribute Value\n\nAttribute length value must be at least 1, got: -3', 'provider'],
      [[9, 11, 9, 13], 'Invalid Attribute Value\n\nAttribute length value must be at least sum of min_upper + min_lower + min_numeric + min_special, got: -3', 'provider'],
    ]);

    const log = rpcs(w.log);
    const pids = [...new Set(log.map(([pid]) => pid))];
    assert.equal(pids.length, 1, `one provider process for every analysis: ${JSON.stringify(log)}`);
    assert.ok(log.filter(([, r]) => r === 'ValidateResourceConfig').length >= 3, JSON.stringify(log));
    assert.equal(log.filter(([, r]) => r === 'GetProviderSchema').length, 1, 'schema asked once');
    assert.ok(alive(Number(pids[0])));
    await c.stop();
    const deadline = Date.now() + 5000;
    while (alive(Number(pids[0])) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(alive(Number(pids[0])), false, 'the provider process ends with the server');
  } finally {
    await c.stop();
  }
});

test('a second server answers the schema from the disk cache: the new process is not asked GetProviderSchema', async () => {
  const w = await setup('cached');
  const plugin = w.dir({ 'main.tf': config(FQN, '0') }, 'plugin');
  const uri = pathToFileURL(join(plugin, 'main.tf')).href;
  for (let round = 0; round < 2; round++) {
    const c = new TestClient();
    try {
      await c.initialize({}, { ...NO_PREVIEW, trusted: true });
      await c.open(uri, config(FQN, '0'));
      const d = await c.waitFor('plugin diagnostics', () => nonEmpty(c, uri), 60_000);
      assert.equal(d.diagnostics[0].message, 'Invalid Attribute Value\n\nAttribute length value must be at least 1, got: 0');
    } finally {
      await c.stop();
    }
  }
  const log = rpcs(w.log);
  assert.equal(new Set(log.map(([pid]) => pid)).size, 2, 'one process per server');
  assert.equal(log.filter(([, r]) => r === 'GetProviderSchema').length, 1, 'the second process answered from the cache');
});

test('untrusted workspace: no provider process, a diagnostic says why', async () => {
  const w = await setup('untrusted');
  const plugin = w.dir({ 'main.tf': config(FQN, '0') }, 'plugin');
  const c = new TestClient();
  try {
    await c.initialize({}, { ...NO_PREVIEW, trusted: false });
    const uri = pathToFileURL(join(plugin, 'main.tf')).href;
    await c.open(uri, config(FQN, '0'));
    const d = await c.waitFor('untrusted notice', () => nonEmpty(c, uri), 30_000);
    assert.equal(d.diagnostics.length, 1);
    assert.match(String(d.diagnostics[0].message), /^Provider not started in an untrusted workspace\n\nForesight does not run provider binaries in a workspace you have not trusted, so example\.com\/test\/random \(.*terraform-provider-random\) was not started\./);
    assert.deepEqual(rpcs(w.log), [], 'no provider process was started');
    // Trusting the workspace: the next analysis starts the provider.
    await c.conn.sendNotification('foresight/trust', { trusted: true });
    await c.change(uri, 2, [{ text: config(FQN, '-1') }]);
    const t = await c.waitFor('trusted diagnostics', () => (c.latest(uri)?.version === 2 ? c.latest(uri) : undefined), 60_000);
    assert.deepEqual(simplify(t.diagnostics), [[[9, 11, 9, 13], 'Invalid Attribute Value\n\nAttribute length value must be at least 1, got: -1', 'provider'],
      [[9, 11, 9, 13], 'Invalid Attribute Value\n\nAttribute length value must be at least sum of min_upper + min_lower + min_numeric + min_special, got: -1', 'provider'],
    ]);
  } finally {
    await c.stop();
  }
});

test('a provider neither built in nor installed: a warning at the requirement naming the available providers, no error, nothing started', async () => {
  const w = await setup('missing');
  const text = 'terraform {\n  required_providers {\n    acme = {\n      source = "acme/acme"\n    }\n  }\n}\n\nresource "acme_thing" "t" {}\n\nresource "gizmo_widget" "w" {\n  size = 2\n}\n\nresource "terraform_data" "ok" {}\n';
  const dir = w.dir({ 'main.tf': text }, 'ws');
  const c = new TestClient();
  try {
    await c.initialize({}, { ...NO_PREVIEW, trusted: true });
    const uri = pathToFileURL(join(dir, 'main.tf')).href;
    await c.open(uri, text);
    const d = await c.waitFor('missing-provider warnings', () => (c.latest(uri)?.diagnostics.length === 2 ? c.latest(uri) : undefined), 60_000);
    const got = d.diagnostics.map((x) => [x.severity, x.range.start.line, x.range.start.character, x.range.end.line, x.range.end.character, String(x.message).split('\n')[0]]);
    // At the required_providers entry of acme/acme (lines 3-5), and at the type label of the first gizmo resource.
    assert.deepEqual(got, [
      [2, 2, 4, 4, 5, 'Provider not available'],
      [2, 10, 9, 10, 23, 'Provider not available'],
    ]);
    const msg = String(d.diagnostics[0].message);
    assert.match(msg, /requires provider acme\/acme, which is neither built into Foresight nor installed in this workspace/);
    assert.match(msg, /run "foresight init"/);
    for (const p of ['hashicorp/random', 'hashicorp/null', 'hashicorp/tls', 'terraform.io/builtin/terraform']) assert.ok(msg.includes(`  - ${p}`), p);
    assert.match(String(d.diagnostics[1].message), /requires provider hashicorp\/gizmo,/);
  } finally {
    await c.stop();
  }
});

test('the preview plans with the plugin provider (its pooled process, not "Provider not started")', async () => {
  const w = await setup('preview');
  const plugin = w.dir({ 'main.tf': config(FQN, '12') }, 'plugin');
  const c = new PreviewClient();
  try {
    await c.initialize({}, { debounceMs: 10, trusted: true });
    await c.open(pathToFileURL(join(plugin, 'main.tf')).href, config(FQN, '12'));
    const p = await c.request<PreviewResult>('foresight/preview', { directory: plugin });
    assert.deepEqual(p.diagnostics, []);
    assert.equal(p.complete, true);
    assert.equal(p.summary.add, 1);
    assert.deepEqual(p.changes.map((ch) => ch.address), ['random_password.p']);
    assert.ok(rpcs(w.log).some(([, r]) => r === 'PlanResourceChange'), JSON.stringify(rpcs(w.log)));
  } finally {
    await c.stop();
  }
});

test('a provider that hangs: "Provider did not answer" at the resource within half the analysis limit, the hung process is killed, the server goes on', async () => {
  const w = await setup('hang', { FAKE_MODE: 'hang-on:ValidateResourceConfig' });
  const plugin = w.dir({ 'main.tf': config(FQN, '0') }, 'plugin');
  const c = new TestClient();
  try {
    await c.initialize({}, { ...NO_PREVIEW, trusted: true, analysisTimeoutMs: 6000 });
    const uri = pathToFileURL(join(plugin, 'main.tf')).href;
    await c.open(uri, config(FQN, '0'));
    const d = await c.waitFor('the hung-provider diagnostic', () => nonEmpty(c, uri), 30_000).catch((e) => {
      throw new Error(`${e}\n${c.logs.join('\n')}`);
    });
    assert.deepEqual(
      d.diagnostics.map((x) => [x.range.start.line, String(x.message).replace(/\(.*?\)/, '(EXE)')]),
      [[10, `Provider did not answer\n\n${FQN} (EXE) did not answer ValidateResourceConfig within 3 s, so Foresight stopped the provider process; it starts again for the next request.`]],
    );
    assert.equal(c.logs.some((l) => l.includes('was abandoned')), false, 'the analysis itself finished');
    const deadline = Date.now() + 8000;
    while (children(c.proc.pid!).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(children(c.proc.pid!), [], 'the hung provider process was killed');
    for (const [pid] of rpcs(w.log)) assert.equal(alive(Number(pid)), false);
    assert.equal(c.alive, true, 'the server goes on');
  } finally {
    await c.stop();
  }
});

test('an analysis that outlives its time limit is abandoned and its worker\'s provider processes are killed', async () => {
  // A provider slower than the analysis limit at start-up (its handshake comes only after the limit).
  const w = await setup('slow', { FAKE_MODE: 'slow-handshake:8000' });
  const plugin = w.dir({ 'main.tf': config(FQN, '0') }, 'plugin');
  const c = new TestClient();
  try {
    await c.initialize({}, { ...NO_PREVIEW, trusted: true, analysisTimeoutMs: 4000 });
    await c.open(pathToFileURL(join(plugin, 'main.tf')).href, config(FQN, '0'));
    await c.waitFor('the provider process', () => children(c.proc.pid!).length > 0, 30_000);
    const started = children(c.proc.pid!);
    await c.waitFor('the abandoned analysis', () => c.logs.some((l) => l.includes('was abandoned')), 30_000);
    // The processes of the terminated worker, by pid: the analysis is retried with a doubled limit in a new worker,
    // which may start the provider again (a process that must not be mistaken for a survivor).
    const deadline = Date.now() + 8000;
    while (started.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(started.filter(alive), [], "the terminated worker's provider process was killed");
    assert.equal(c.alive, true, 'the server goes on');
  } finally {
    await c.stop();
  }
});

test('an idle provider process is stopped (FORESIGHT_PROVIDER_IDLE_MS) and started again by the next edit', async () => {
  const w = await setup('idle');
  const plugin = w.dir({ 'main.tf': config(FQN, '0') }, 'plugin');
  process.env.FORESIGHT_PROVIDER_IDLE_MS = '1000';
  const c = new TestClient();
  delete process.env.FORESIGHT_PROVIDER_IDLE_MS;
  try {
    await c.initialize({}, { ...NO_PREVIEW, trusted: true });
    const uri = pathToFileURL(join(plugin, 'main.tf')).href;
    await c.open(uri, config(FQN, '0'));
    await c.waitFor('plugin diagnostics', () => nonEmpty(c, uri), 60_000);
    const [first] = rpcs(w.log)[0];
    const deadline = Date.now() + 10_000;
    while (alive(Number(first)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(alive(Number(first)), false, 'stopped when idle');
    await c.change(uri, 2, [{ text: config(FQN, '-2') }]);
    const d = await c.waitFor('diagnostics after the restart', () => nonEmpty(c, uri, 2), 60_000);
    assert.equal(d.diagnostics.length, 2);
    assert.equal(new Set(rpcs(w.log).map(([pid]) => pid)).size, 2, 'a new process after the idle stop');
  } finally {
    await c.stop();
  }
});

test('validation and the preview share one provider process: started once by the main thread, stopped at shutdown', async () => {
  const w = await setup('shared');
  const plugin = w.dir({ 'main.tf': config(FQN, '12') }, 'plugin');
  const c = new PreviewClient();
  let pids: string[] = [];
  try {
    await c.initialize({}, { debounceMs: 10, trusted: true });
    const uri = pathToFileURL(join(plugin, 'main.tf')).href;
    await c.open(uri, config(FQN, '12'));
    const p = await c.request<PreviewResult>('foresight/preview', { directory: plugin });
    assert.equal(p.summary.add, 1);
    await c.change(uri, 2, [{ text: config(FQN, '-2') }]);
    await c.waitFor('plugin diagnostics', () => nonEmpty(c, uri, 2), 60_000);
    const calls = rpcs(w.log);
    assert.ok(calls.some(([, r]) => r === 'ValidateResourceConfig'), JSON.stringify(calls));
    assert.ok(calls.some(([, r]) => r === 'PlanResourceChange'), JSON.stringify(calls));
    pids = [...new Set(calls.map(([pid]) => pid))];
    assert.equal(pids.length, 1, `one process answered validation and planning: ${JSON.stringify(calls)}`);
    assert.equal(calls.filter(([, r]) => r === 'ConfigureProvider').length, 1, 'configured once');
    // The process is the server's own child (the main thread's), not a worker thread's.
    assert.ok(readFileSync(`/proc/${c.proc.pid}/task/${c.proc.pid}/children`, 'utf8').split(/\s+/).includes(pids[0]), 'a child of the main thread');
  } finally {
    await c.stop();
  }
  for (const pid of pids) assert.equal(alive(Number(pid)), false, 'stopped at shutdown');
});
