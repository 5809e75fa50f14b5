// Differential tests against Terraform 1.11.4 (issue 10 §4), skipped with a printed notice where `terraform` is
// absent. Terraform runs with our built-in providers served as plugins (dev_overrides; every call recorded by
// the recording wrapper inside the plugin process); Foresight runs on a copy of the same workspace.
//  - For each configuration: the saved plan's `show -json` resource_changes are identical; the
//    PlanResourceChange requests Terraform sent (config, prior state, proposed new state) are exactly the ones
//    Foresight's engine sends (and were answered the same), its ValidateResourceConfig requests are among Terraform's, and (where resources do
//    not depend on each other's random results) so are the ApplyResourceChange requests; after each tool applies, the states have the same resources, attributes and
//    sensitive paths; and each tool plans no changes on the other's state.
//  - A provider that misbehaves on purpose (invalid plan, inconsistent result after apply, wrong types on the wire,
//    a panic): Terraform and Foresight's engine drive the same served plugin and report the same diagnostics
//    (summary and detail) and keep the same state; the faults expressible in process are checked there too.
//    Hangs are compared command line to command line in hang.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadModuleTree } from '../../server/config/load';
import { apply, plan } from '../../server/engine';
import { misbehavingProvider, type Misbehaviour } from '../../server/plugin/misbehaving';
import { readRecording, recordingProvider, type RecordEntry } from '../../server/plugin/recording';
import { startBuiltinProvider } from '../../server/providers/builtin/index';
import { GrpcProvider } from '../../server/plugin/client/provider';
import { PluginProcess } from '../../server/plugin/client/process';
import type { Provider } from '../../server/providers/provider';
import { State } from '../../server/states/state';
import { writeStateFile } from '../../server/states/statefile';
import { copyWorkspace, foresight, harness, hasTerraform, terraform, workspace, type Harness } from './_served';

const CONFIGS: Record<string, string> = {
  random: `resource "random_string" "s" {
  length  = 12
  special = false
  keepers = { k = "v" }
}
resource "random_pet" "p" {
  length    = 3
  separator = "_"
}
resource "random_integer" "i" {
  min = 1
  max = 6
}
resource "random_id" "id" {
  byte_length = 4
  prefix      = "pre-"
}
resource "random_password" "pw" {
  length = 10
}
output "pet" {
  value = random_pet.p.id
}
`,
  counted: `resource "random_pet" "p" {
  count  = 2
  prefix = "n\${count.index}"
}
resource "null_resource" "n" {
  for_each = { a = 1, b = 2 }
  triggers = { pet = random_pet.p[each.value - 1].id, k = each.key }
}
data "null_data_source" "d" {
  inputs = { x = "y" }
}
`,
  files: `resource "local_file" "f" {
  filename             = "\${path.module}/out/a.txt"
  content              = "hello"
  file_permission      = "0640"
}
resource "local_sensitive_file" "s" {
  filename = "\${path.module}/out/s.txt"
  content  = "secret"
}
resource "time_static" "t" {
  triggers = { a = "b" }
}
resource "time_offset" "o" {
  offset_hours = 3
}
resource "tls_private_key" "k" {
  algorithm   = "ECDSA"
  ecdsa_curve = "P256"
}
resource "tls_self_signed_cert" "c" {
  private_key_pem       = tls_private_key.k.private_key_pem
  validity_period_hours = 24
  allowed_uses          = ["digital_signature"]
  subject {
    common_name = "example.com"
  }
}
`,
};

const sortKeys = (x: unknown): unknown =>
  Array.isArray(x) ? x.map(sortKeys) : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortKeys(v)])) : x;
const canon = (x: unknown) => JSON.stringify(sortKeys(x));

/** The requests of one method in a recording, without client capabilities, canonical and sorted. */
function requests(entries: readonly RecordEntry[], method = 'planResourceChange'): string[] {
  return entries
    .filter((e) => e.method === method)
    .map((e) => {
      const { clientCapabilities: _c, ...rest } = e.request as Record<string, unknown>;
      return canon(rest).replace(/,"\$p":\d+/g, '');
    })
    .sort();
}
const planRequests = (entries: readonly RecordEntry[]) => requests(entries);
/** Request and response pairs of one method in a recording, canonical and sorted. */
function exchanges(entries: readonly RecordEntry[], method: string): string[] {
  return entries
    .filter((e) => e.method === method)
    .map((e) => {
      const { clientCapabilities: _c, ...rest } = e.request as Record<string, unknown>;
      return canon({ request: rest, response: e.response ?? null, error: e.error ?? null }).replace(/,"\$p":\d+/g, '');
    })
    .sort();
}

/** Configurations whose resources do not depend on each other's (random) results: their apply requests agree too. */
const INDEPENDENT = new Set(['random']);

/**
 * Foresight's engine planning (and applying) the workspace, with recording providers: in process (built-in
 * providers, optionally wrapped by misbehavingProvider), or, with `plugins`, out of process through the plugin
 * client (server/plugin/client) launching the same terraform-provider-* wrappers Terraform runs.
 */
async function foresightEngine(dir: string, opts: { misbehave?: Misbehaviour; apply?: boolean; plugins?: Harness } = {}) {
  const entries: RecordEntry[] = [];
  const made = new Map<string, Provider | undefined>();
  const grpc: GrpcProvider[] = [];
  const providers = (fqn: string) => {
    if (!made.has(fqn)) {
      const type = fqn.replace(/^.*\//, '');
      const wrapper = opts.plugins && join(opts.plugins.bin, `terraform-provider-${type}`);
      if (wrapper && existsSync(wrapper)) {
        const g = new GrpcProvider({ fqn, start: () => PluginProcess.start({ executable: wrapper, cwd: dir, env: opts.plugins!.env }) });
        grpc.push(g);
        made.set(fqn, recordingProvider(g, (e) => entries.push(e)));
      } else {
        const p = startBuiltinProvider(fqn, { workingDir: dir });
        made.set(fqn, p && recordingProvider(opts.misbehave ? misbehavingProvider(p, opts.misbehave) : p, (e) => entries.push(e)));
      }
    }
    return made.get(fqn);
  };
  try {
    return await runEngine(dir, providers, entries, opts.apply);
  } finally {
    await Promise.all(grpc.map((g) => g.close()));
  }
}

async function runEngine(dir: string, providers: (fqn: string) => Provider | undefined, entries: RecordEntry[], doApply?: boolean) {
  const loaded = await loadModuleTree(dir, { baseDir: dir });
  assert.deepEqual(loaded.diagnostics.filter((d) => d.severity === 'error'), []);
  const p = await plan({ config: loaded.module, state: new State(), providers, cwd: dir });
  const planEntries = entries.slice();
  let state: State | undefined;
  let applyDiags: typeof p.diagnostics = [];
  if (doApply && !p.diagnostics.some((d) => d.severity === 'error')) {
    const a = await apply(p.plan, { config: loaded.module, providers, cwd: dir });
    state = a.state;
    applyDiags = a.diagnostics;
  }
  return { entries, planEntries, planDiags: p.diagnostics, applyDiags, state };
}

/** Resources, instances, attribute names and sensitive paths of a state file (values differ: they are random). */
function stateShape(stateJson: { resources: { mode: string; type: string; name: string; instances: { index_key?: unknown; schema_version: number; attributes: Record<string, unknown>; sensitive_attributes: unknown; status?: string }[] }[] }): unknown {
  return stateJson.resources.map((r) => ({
    addr: `${r.mode}.${r.type}.${r.name}`,
    // Terraform lists sensitive paths in Go map order (schema attributes), which varies from run to run: sorted here.
    instances: r.instances.map((i) => ({ key: i.index_key ?? null, schema: i.schema_version, attrs: Object.keys(i.attributes).sort(), sensitive: ((i.sensitive_attributes ?? []) as unknown[]).map((x) => JSON.stringify(x)).sort(), status: i.status ?? null })),
  }));
}

/** Terraform's diagnostics for the misbehaving plugin, recorded (test/data/plugin/README.md). */
const RECORDED = JSON.parse(readFileSync(join(process.cwd(), 'test/data/plugin/terraform-misbehaving.json'), 'utf8')) as Record<string, { severity: string; summary: string; detail: string }[]>;

/**
 * Diagnostics as (summary, detail). When a plugin dies mid-call, go-plugin's client reports either UNAVAILABLE
 * ("Plugin did not respond") or CANCELLED ("Request cancelled", when its exit watcher closes the connection
 * first) — a race inside Terraform itself — so the cancelled form is mapped to the other.
 */
const diagPairs = (ds: readonly { summary: string; detail?: string }[]) =>
  ds.map((d) => {
    const m = d.summary === 'Request cancelled' && /^The (plugin6?\.\(\*GRPCProvider\)\.\w+) request was cancelled\.$/.exec(d.detail ?? '');
    if (m) return { summary: 'Plugin did not respond', detail: `The plugin encountered an error, and failed to respond to the ${m[1]} call. The plugin logs may contain more details.` };
    return { summary: d.summary, detail: d.detail ?? '' };
  });
/** Diagnostics of a `terraform … -json` run. */
function jsonDiagnostics(stdout: string): { severity: string; summary: string; detail: string }[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
    .filter((m) => m.type === 'diagnostic')
    .map((m) => ({ severity: m.diagnostic.severity, summary: m.diagnostic.summary, detail: m.diagnostic.detail ?? '' }));
}

function skipNotice(): boolean {
  if (hasTerraform) return false;
  console.log('# SKIP: terraform is not on PATH; differential tests against Terraform not run');
  return true;
}

for (const [name, config] of Object.entries(CONFIGS)) {
  test(`differential "${name}": same plan JSON, same provider requests, same state shape, each plans no changes on the other's state`, { skip: !hasTerraform && 'terraform not installed' }, async () => {
    if (skipNotice()) return;
    let h: Harness | undefined;
    try {
      h = harness({ record: true });
      const record = h.record!;
      const tfDir = workspace(h, 'tf', { 'main.tf': config });
      const fsDir = copyWorkspace(tfDir, join(h.root, 'fs'));
      // Plans, saved and shown as JSON by each tool.
      const tp = terraform(h, tfDir, ['plan', '-out=tfplan', '-no-color']);
      assert.equal(tp.status, 0, tp.stdout + tp.stderr);
      const fp = foresight(fsDir, ['plan', '-out=tfplan', '-no-color']);
      assert.equal(fp.status, 0, fp.stdout + fp.stderr);
      const tShow = JSON.parse(terraform(h, tfDir, ['show', '-json', 'tfplan']).stdout);
      const fShow = JSON.parse(foresight(fsDir, ['show', '-json', 'tfplan']).stdout);
      assert.equal(canon(fShow.resource_changes), canon(tShow.resource_changes));
      assert.equal(canon(fShow.output_changes ?? null), canon(tShow.output_changes ?? null));
      // The requests Terraform made through the plugin are the ones Foresight's engine makes.
      const tfCalls = readRecording(record);
      const engine = await foresightEngine(copyWorkspace(tfDir, join(h.root, 'engine')), { apply: INDEPENDENT.has(name) });
      assert.deepEqual(engine.planDiags.filter((d) => d.severity === 'error'), []);
      assert.deepEqual(planRequests(engine.planEntries), planRequests(tfCalls));
      assert.ok(planRequests(tfCalls).length >= 3, 'PlanResourceChange calls were recorded');
      // And the provider answered each of them the same (planned state, requires-replace paths, private data).
      assert.deepEqual(exchanges(engine.planEntries, 'planResourceChange'), exchanges(tfCalls, 'planResourceChange'));
      // Terraform validates each resource in several walks (with unknown repetition values in the first);
      // every ValidateResourceConfig request Foresight makes is one Terraform made.
      const tfValidate = new Set(requests(tfCalls, 'validateResourceConfig'));
      for (const v of new Set(requests(engine.planEntries, 'validateResourceConfig'))) assert.ok(tfValidate.has(v), `validate request not made by terraform: ${v}`);
      // Apply each tool's saved plan; compare the states' shapes.
      const ta = terraform(h, tfDir, ['apply', '-no-color', 'tfplan']);
      assert.equal(ta.status, 0, ta.stdout + ta.stderr);
      const fa = foresight(fsDir, ['apply', '-no-color', 'tfplan']);
      assert.equal(fa.status, 0, fa.stdout + fa.stderr);
      if (INDEPENDENT.has(name)) {
        assert.deepEqual(engine.applyDiags.filter((d) => d.severity === 'error'), []);
        const tfApply = requests(readRecording(record), 'applyResourceChange');
        assert.equal(tfApply.length, 5);
        assert.deepEqual(requests(engine.entries, 'applyResourceChange'), tfApply);
        // Both re-plan each instance during apply: the plan requests of the whole run agree as well.
        assert.deepEqual(planRequests(engine.entries), planRequests(readRecording(record)));
      }
      const tState = JSON.parse(readFileSync(join(tfDir, 'terraform.tfstate'), 'utf8'));
      const fState = JSON.parse(readFileSync(join(fsDir, 'terraform.tfstate'), 'utf8'));
      assert.equal(canon(stateShape(fState)), canon(stateShape(tState)));
      // Swap states: each tool plans no changes on the other's.
      const tfOnFs = copyWorkspace(fsDir, join(h.root, 'tf-on-fs'));
      const fsOnTf = copyWorkspace(tfDir, join(h.root, 'fs-on-tf'));
      rmSync(join(tfOnFs, 'tfplan'), { force: true });
      const r1 = terraform(h, tfOnFs, ['plan', '-detailed-exitcode', '-no-color']);
      assert.equal(r1.status, 0, r1.stdout + r1.stderr);
      const r2 = foresight(fsOnTf, ['plan', '-detailed-exitcode', '-no-color']);
      assert.equal(r2.status, 0, r2.stdout + r2.stderr);
    } finally {
      h?.dispose();
    }
  });
}

/** random_pet has an optional string (prefix) for the misbehaving provider to tamper with. */
const MISBEHAVING_CONFIG = 'resource "random_pet" "s" {\n  prefix = "x"\n}\n';

const EXPECTED_SUMMARY: Record<string, RegExp> = {
  'invalid-plan': /^Provider produced invalid plan$/,
  'inconsistent-apply': /^Provider produced inconsistent result after apply$/,
  'wrong-type': /^\["prefix"\]: string is required$/,
  panic: /^Plugin did not respond$/,
};

/** Differences the tests found in the engine (not in the plugin layer); reported, kept visible as TODO tests. */
const KNOWN: Partial<Record<string, string>> = {};

for (const kind of ['invalid-plan', 'inconsistent-apply', 'wrong-type', 'panic'] as const) {
  test(`misbehaving provider (${kind}): Terraform and Foresight (driving the same plugin) report the same diagnostics and keep the same state`, { todo: KNOWN[kind] }, async () => {
    const h = harness({ misbehave: kind, providers: ['random'] });
    try {
      const dir = workspace(h, 'ws', { 'main.tf': MISBEHAVING_CONFIG });
      const fsDir = copyWorkspace(dir, join(h.root, 'engine'));
      // Terraform's diagnostics: live where terraform is installed (and then equal to the recording), else recorded.
      let tDiags = RECORDED[kind];
      let tRes: unknown[] | undefined;
      if (hasTerraform) {
        const t = terraform(h, dir, ['apply', '-auto-approve', '-json']);
        assert.equal(t.status, 1, t.stdout + t.stderr);
        tDiags = jsonDiagnostics(t.stdout).filter((d) => d.severity === 'error');
        assert.deepEqual(diagPairs(tDiags), diagPairs(RECORDED[kind]));
        tRes = existsSync(join(dir, 'terraform.tfstate')) ? JSON.parse(readFileSync(join(dir, 'terraform.tfstate'), 'utf8')).resources : [];
      } else console.log('# terraform is not on PATH: Foresight compared with test/data/plugin/terraform-misbehaving.json');
      assert.equal(tDiags.length, 1);
      assert.match(diagPairs(tDiags)[0].summary, EXPECTED_SUMMARY[kind]);
      const eng = await foresightEngine(fsDir, { plugins: h, apply: true });
      const fDiags = [...eng.planDiags, ...eng.applyDiags].filter((d) => d.severity === 'error');
      assert.deepEqual(diagPairs(fDiags), diagPairs(tDiags));
      // In process (the misbehaving wrapper around the built-in provider), where the fault is expressible there.
      if (kind === 'invalid-plan' || kind === 'inconsistent-apply') {
        const inproc = await foresightEngine(copyWorkspace(dir, join(h.root, 'inproc')), { misbehave: kind, apply: true });
        assert.deepEqual(diagPairs([...inproc.planDiags, ...inproc.applyDiags].filter((d) => d.severity === 'error')), diagPairs(tDiags));
      }
      // State: only an inconsistent apply result is saved (by both, tainted); every other fault saves nothing.
      const fRes = eng.state ? JSON.parse(writeStateFile({ terraformVersion: '1.11.4', serial: 1, lineage: 'x', state: eng.state })).resources : [];
      if (tRes) assert.equal(canon(stateShape({ resources: fRes })), canon(stateShape({ resources: tRes as never })));
      assert.equal(fRes.length, kind === 'inconsistent-apply' ? 1 : 0);
      if (kind === 'inconsistent-apply') assert.equal(fRes[0].instances[0].status, 'tainted');
    } finally {
      h.dispose();
    }
  });
}

test('misbehaving provider (panic): Terraform prints the plugin\'s crash', { skip: !hasTerraform && 'terraform not installed' }, () => {
  if (skipNotice()) return;
  const h = harness({ misbehave: 'panic', providers: ['random'] });
  try {
    const dir = workspace(h, 'ws', { 'main.tf': MISBEHAVING_CONFIG });
    const t = terraform(h, dir, ['plan', '-no-color']);
    assert.equal(t.status, 1, t.stdout + t.stderr);
    // (UNAVAILABLE or CANCELLED, depending on a race inside Terraform's plugin client; see diagPairs.)
    assert.match(t.stderr, /Error: Plugin did not respond\n\nThe plugin encountered an error, and failed to respond to the\s+plugin6\.\(\*GRPCProvider\)\.PlanResourceChange call|Error: Request cancelled\n\nThe plugin6\.\(\*GRPCProvider\)\.PlanResourceChange request was cancelled\./);
    assert.match(t.stdout + t.stderr, /The terraform-provider-random plugin crashed!/);
    assert.match(t.stdout + t.stderr, /panic: misbehaving provider: PlanResourceChange/);
  } finally {
    h.dispose();
  }
});

test('misbehaving provider (hang): Terraform cannot stop a hung PlanResourceChange gracefully; a second interrupt exits, nothing is saved, no process is left', { skip: !hasTerraform && 'terraform not installed' }, async () => {
  if (skipNotice()) return;
  const h = harness({ misbehave: 'hang', providers: ['random'], record: true });
  // Terraform and its plugins in a process group of their own, so everything can be ended at once.
  let child: ReturnType<typeof spawn> | undefined;
  try {
    const dir = workspace(h, 'ws', { 'main.tf': MISBEHAVING_CONFIG });
    child = spawn('terraform', ['apply', '-auto-approve', '-no-color'], { cwd: dir, env: h.env, detached: true });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    let code: number | null | undefined;
    const exited = new Promise<void>((r) => child!.on('exit', (c) => ((code = c), r())));
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // Wait until the planning process has configured the provider (its PlanResourceChange then hangs).
    const t0 = Date.now();
    while (!readRecording(h.record!).some((e) => e.method === 'configureProvider') && Date.now() - t0 < 90_000) await sleep(250);
    await sleep(2000);
    child.kill('SIGINT');
    await sleep(8000);
    assert.equal(code, undefined, 'still waiting for the hung provider after one interrupt');
    assert.match(out, /Interrupt received\.\nPlease wait for Terraform to exit or data loss may occur\.\nGracefully shutting down\.\.\./);
    // Terraform 1.11 does not send StopProvider to a provider that is planning.
    assert.deepEqual(readRecording(h.record!).filter((e) => e.method === 'stopProvider'), []);
    child.kill('SIGINT');
    await Promise.race([exited, sleep(60_000)]);
    assert.equal(code, 1, out);
    assert.match(out, /Two interrupts received\. Exiting immediately\./);
    assert.match(out, /Error: Plugin did not respond|Error: Request cancelled/);
    assert.equal(existsSync(join(dir, 'terraform.tfstate')), false);
  } finally {
    if (child?.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    }
    h.dispose();
  }
});
