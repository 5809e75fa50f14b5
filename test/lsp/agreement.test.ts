// The preview agrees with the engine (issue 7 checks): every recorded scenario (test/data/scenarios, recorded from
// terraform 1.11.4) is replayed in a temporary directory: file steps are applied, run steps other than plans run
// through dist/cli.js (so the state evolves as it did under terraform), and every successful plan step is asked of
// the language server instead, as a PlanRunRequest with the step's options (-target, -replace, -destroy,
// -refresh-only, -refresh=false, -var, -var-file, TF_VAR_ from the step's environment, -chdir as the directory).
// (The CLI steps run in this test's process through the CLI's main(), which is what dist/cli.js runs.)
// The actions the server reports per resource instance must equal the actions of the recorded plan: the JSON
// plan (`recorder_show_plan_json`) where the recorder kept one, the `planned_change` events of -json steps, and
// otherwise the "# ADDR will be created / must be replaced / ..." headings of the recorded human output.
//
// Contract: disagreements are listed in test/lsp/agreement-known-differences.txt ("SCENARIO STEP") with
// the reason; a step not listed must agree, and a listed step that agrees is reported so the list shrinks.

import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import type { PlanRunRequest, RunOptions } from '../../server/lsp/protocol';
import { TestClient } from './client';
import { main } from '../../server/cli/main';
import { initParser } from '../../server/syntax/treesitter';

const DATA = join(process.cwd(), 'test/data/scenarios');

interface Step {
  write?: { path: string; content: string };
  delete?: string;
  run?: string[];
  stdin?: string;
  env?: Record<string, string>;
  lock?: string;
  unlock?: string;
  result?: { exit_code: number; stdout: string; stderr: string; recorder_show_plan_json?: unknown };
}

/** The headings of Terraform's human plan (command/jsonformat), after the address. */
const HEADINGS: [RegExp, string][] = [
  [/ will be created$/, 'create'],
  [/ will be destroyed$/, 'delete'],
  [/ will be updated in-place$/, 'update'],
  [/ (?:is tainted, so )?must be replaced$/, 'replace'],
  [/ will be replaced(?:, as requested| due to changes in replace_triggered_by)$/, 'replace'],
  [/ will be read during apply$/, 'read'],
  [/ will be imported$/, 'import'],
  [/ will no longer be managed by Terraform, but will not be destroyed$/, 'forget'],
];

function jsonActions(a: string[]): string {
  const k = a.join(',');
  if (k === 'create') return 'create';
  if (k === 'delete') return 'delete';
  if (k === 'update') return 'update';
  if (k === 'read') return 'read';
  if (k === 'forget') return 'forget';
  if (k === 'delete,create' || k === 'create,delete' || k === 'create,forget') return 'replace';
  return 'no-op';
}

/** ADDR → action of the recorded plan (no-op changes left out, imports without changes as "import"). */
function recordedActions(step: Step): Map<string, string> | undefined {
  const out = new Map<string, string>();
  const r = step.result!;
  const shown = r.recorder_show_plan_json as { stdout?: unknown } | undefined;
  const pj = shown?.stdout as { resource_changes?: { address: string; deposed?: string; change: { actions: string[]; importing?: unknown } }[] } | undefined;
  if (pj && typeof pj === 'object') {
    for (const rc of pj.resource_changes ?? []) {
      let a = jsonActions(rc.change.actions);
      if (a === 'no-op' && rc.change.importing) a = 'import';
      if (a !== 'no-op') out.set(rc.address + (rc.deposed ? ` (deposed object ${rc.deposed})` : ''), a);
    }
    return out;
  }
  if (step.run!.includes('-json')) {
    for (const line of r.stdout.split('\n')) {
      if (!line.trim()) continue;
      const ev = JSON.parse(line) as { type: string; change?: { resource: { addr: string }; action: string } };
      if (ev.type !== 'planned_change' || !ev.change) continue;
      const a = ev.change.action;
      if (a === 'noop' || a === 'move') continue;
      out.set(ev.change.resource.addr, a === 'remove' ? 'forget' : a);
    }
    return out;
  }
  for (const line of r.stdout.replace(/\x1b\[[0-9;]*m/g, '').split('\n')) {
    const m = /^ {1,2}# ([^(].*)$/.exec(line);
    if (!m) continue;
    for (const [re, a] of HEADINGS) {
      if (!re.test(m[1])) continue;
      out.set(m[1].replace(re, ''), a);
      break;
    }
  }
  return out;
}

/** The RunOptions of a plan step, or undefined when a flag has no counterpart in the protocol. */
function planOptions(dir: string, step: Step): RunOptions | undefined {
  const o: RunOptions = { directory: dir, targets: [], replace: [], vars: {}, varFiles: [] };
  for (const [k, v] of Object.entries(step.env ?? {})) {
    if (!k.startsWith('TF_VAR_')) return undefined;
    o.vars![k.slice('TF_VAR_'.length)] = v;
  }
  for (const a of step.run!) {
    let m: RegExpExecArray | null;
    if (a === 'plan' || a === '-input=false' || a === '-no-color' || a === '-json' || a === '-detailed-exitcode' || /^-out=/.test(a) || /^-lock-timeout=/.test(a) || /^-parallelism=/.test(a)) continue;
    else if ((m = /^-chdir=(.*)$/.exec(a))) o.directory = join(dir, m[1]);
    else if ((m = /^-var=([^=]*)=(.*)$/s.exec(a))) o.vars![m[1]] = m[2];
    else if ((m = /^-var-file=(.*)$/.exec(a))) o.varFiles!.push(m[1]);
    else if ((m = /^-target=(.*)$/.exec(a))) o.targets!.push(m[1]);
    else if ((m = /^-replace=(.*)$/.exec(a))) o.replace!.push(m[1]);
    else if (a === '-destroy') o.mode = 'destroy';
    else if (a === '-refresh-only') o.mode = 'refresh-only';
    else if (a === '-refresh=false') o.refresh = false;
    else return undefined;
  }
  if (o.directory !== dir) o.varFiles = o.varFiles!.map((f) => join(o.directory, f));
  return o;
}

/** A process holding an fcntl write lock on `path` (as the recorder's lock steps), until killed. */
function holdLock(path: string): Promise<ChildProcess> {
  const py = 'import fcntl, sys\nf = open(sys.argv[1], "a")\nfcntl.lockf(f, fcntl.LOCK_EX)\nprint("locked", flush=True)\nsys.stdin.read()\n';
  const p = spawn('python3', ['-c', py, path], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    p.stdout!.once('data', () => resolve(p));
    p.once('error', reject);
  });
}

/** Kills a lock holder and resolves once it has exited (its lock released). */
function release(p: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (p.exitCode !== null || p.signalCode !== null) return resolve();
    p.once('exit', () => resolve());
    p.kill();
  });
}

function cleanEnv(extra: Record<string, string> | undefined, home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TF_') && k !== 'LC_ALL') env[k] = v;
  return { ...env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', LANG: 'C.UTF-8', HOME: home, ...(extra ?? {}) };
}

test('the server plan agrees with the recorded plan of every scenario plan step', { timeout: 20 * 60 * 1000 }, async (t) => {
  const known = new Map<string, string>();
  for (const line of readFileSync(join(process.cwd(), 'test/lsp/agreement-known-differences.txt'), 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [sc, step, ...why] = line.split(/\s+/);
    known.set(`${sc} ${step}`, why.join(' '));
  }
  if (spawnSync('python3', ['--version']).status !== 0) {
    t.skip('python3 is not installed; the lock steps of the scenarios need it');
    return;
  }
  await initParser();
  const c = new TestClient();
  let compared = 0;
  let skipped = 0;
  let withChanges = 0;
  const disagreements: string[] = [];
  const nowAgreeing: string[] = [];
  try {
    await c.initialize({}, { debounceMs: 10, preview: false });
    for (const f of readdirSync(join(DATA, 'recorded')).filter((x) => x.endsWith('.json')).sort()) {
      const rec = JSON.parse(readFileSync(join(DATA, 'recorded', f), 'utf8')) as { scenario: string; files: Record<string, string>; steps: Step[] };
      const home = mkdtempSync(join(tmpdir(), 'foresight-agree-'));
      const dir = join(home, 'work');
      mkdirSync(dir);
      writeFileSync(join(home, 'empty.tfrc'), '');
      const locks = new Map<string, ChildProcess>();
      try {
        for (const [p, text] of Object.entries(rec.files)) {
          mkdirSync(dirname(join(dir, p)), { recursive: true });
          writeFileSync(join(dir, p), text);
        }
        for (const [i, st] of rec.steps.entries()) {
          if (st.write) {
            mkdirSync(dirname(join(dir, st.write.path)), { recursive: true });
            writeFileSync(join(dir, st.write.path), st.write.content);
            continue;
          }
          if (st.delete) {
            rmSync(join(dir, st.delete), { recursive: true, force: true });
            continue;
          }
          if (st.lock) {
            locks.set(st.lock, await holdLock(join(dir, st.lock)));
            continue;
          }
          if (st.unlock) {
            // The lock is released when the holder has exited, not when it is sent the signal: the next step
            // must not find it held (it did once, under load: "resource temporarily unavailable").
            const holder = locks.get(st.unlock);
            if (holder) await release(holder);
            locks.delete(st.unlock);
            continue;
          }
          if (!st.run) continue;
          const verb = st.run.find((a) => !a.startsWith('-'));
          const ok = st.result!.exit_code === 0 || st.result!.exit_code === 2;
          const opts = verb === 'plan' && ok ? planOptions(dir, st) : undefined;
          if (verb === 'plan' && ok && !opts) skipped++;
          if (opts) {
            const want = recordedActions(st)!;
            const got = new Map<string, string>();
            const res = await c.request<PlanRunRequest.Result>('foresight/plan', opts);
            for (const ch of res.changes) {
              const a = ch.importing && ch.action === 'no-op' ? 'import' : ch.action;
              if (a !== 'no-op') got.set(ch.address + (ch.deposed ? ` (deposed object ${ch.deposed})` : ''), a);
            }
            compared++;
            if (want.size) withChanges++;
            const key = `${rec.scenario} ${i}`;
            const fmt = (m: Map<string, string>) => [...m].map(([k, v]) => `${k}=${v}`).sort().join(' ');
            const same = fmt(want) === fmt(got) && res.status === 'succeeded';
            if (!same && !known.has(key)) disagreements.push(`${key}: recorded [${fmt(want)}] server [${fmt(got)}] (${res.status})`);
            if (same && known.has(key)) nowAgreeing.push(key);
          }
          // Every run step also runs through the CLI, so the state evolves as it did under terraform.
          await main([...st.run], { cwd: dir, env: cleanEnv(st.env, home), stdin: async () => st.stdin ?? '', stdout: () => undefined, stderr: () => undefined });
        }
      } finally {
        for (const l of locks.values()) l.kill();
        rmSync(home, { recursive: true, force: true });
      }
    }
  } finally {
    await c.stop();
  }
  t.diagnostic(`plan steps compared: ${compared} (${withChanges} with changes); skipped (flags without a protocol counterpart): ${skipped}; known differences: ${known.size}`);
  if (nowAgreeing.length) t.diagnostic(`now agreeing (remove from agreement-known-differences.txt): ${nowAgreeing.join('; ')}`);
  assert.deepEqual(disagreements, []);
  assert.ok(compared >= 55, `only ${compared} plan steps were compared`);
  assert.ok(withChanges >= 30, `only ${withChanges} compared plan steps had changes`);
});
