// Replays the conformance scenarios' state-changing steps (apply, destroy, taint, untaint) through the engine API
// with the built-in terraform provider, and compares the state after every step with the state Terraform 1.11.4
// recorded (ids and serial/lineage normalised). Steps the engine API does not cover (state mv/rm, import, saved
// plans) end the comparison of that scenario. A scenario listed in EXPECTED must match at every compared step.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { doApply, doPlan, newEnv, stateJSON, writeConfig, type Env } from './harness';
import { applyChange } from '../../server/states/state';
import { parseTarget } from '../../server/engine/targets';

const DIR = join(__dirname, '..', '..', '..', 'test', 'data', 'engine', 'scenarios');

interface Step {
  run?: string[];
  write?: { path: string; content: string };
  delete?: string;
  result?: { exit_code: number; state: unknown };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
function norm(state: unknown): string {
  if (!state) return 'null';
  const s = JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
  delete s.serial;
  delete s.lineage;
  delete s.terraform_version;
  return JSON.stringify(s, null, 1).replace(UUID, '<UUID>').replace(/<UUID-\d+>/g, '<UUID>').replace(/"[0-9a-f]{8}"/g, (m) => m).replace(/"deposed": "[^"]+"/g, '"deposed": "<DEPOSED>"');
}

async function replay(name: string): Promise<{ compared: number; mismatches: string[] }> {
  const rec = JSON.parse(readFileSync(join(DIR, name + '.json'), 'utf8')) as { files: Record<string, string>; steps: Step[] };
  const env: Env = newEnv(rec.files);
  let compared = 0;
  let planSteps = 0;
  let initDone = false; // before `terraform init`, plans fail in the CLI (modules not installed)
  const mismatches: string[] = [];
  // Object identity: each recorded <UUID-n> must correspond to one engine id throughout the scenario, and back.
  const fwd = new Map<string, string>();
  const back = new Map<string, string>();
  const identity = (i: number, want: unknown, got: unknown) => {
    const w = JSON.stringify(want ?? null).match(/<UUID-\d+>/g) ?? [];
    const g = JSON.stringify(got ?? null).match(UUID) ?? [];
    if (w.length !== g.length) return;
    w.forEach((x, j) => {
      const y = g[j];
      if ((fwd.has(x) && fwd.get(x) !== y) || (back.has(y) && back.get(y) !== x)) mismatches.push(`step ${i}: object identity differs (${x} was ${fwd.get(x) ?? back.get(y)}, now ${y})`);
      fwd.set(x, y);
      back.set(y, x);
    });
  };
  for (const [i, st] of rec.steps.entries()) {
    if (st.write) {
      writeConfig({ [st.write.path]: st.write.content }, env.dir);
      continue;
    }
    if (st.delete) {
      rmSync(join(env.dir, st.delete), { recursive: true, force: true });
      continue;
    }
    const args = (st.run ?? []).filter((a) => !['-input=false', '-no-color', '-auto-approve', '-json'].includes(a));
    const verb = args[0];
    if (verb === 'init') initDone = true;
    if (verb === 'plan' && initDone && !(st.run ?? []).some((a) => a.startsWith('-chdir'))) {
      const o = parsePlanFlags(args.slice(1), verb);
      if (o && !o.unsupported) {
        const p = await doPlan(env, o);
        const errs = p.diagnostics.filter((d) => d.severity === 'error');
        const want = st.result!.exit_code === 1;
        if (want !== errs.length > 0) {
          mismatches.push(errs.length ? `step ${i} (${args.join(' ')}): plan failed: ${errs.map((d) => d.summary + ': ' + d.detail).join('; ')}` : `step ${i} (${args.join(' ')}): expected plan failure`);
        }
        planSteps++;
      }
      continue;
    }
    if (['init', 'validate', 'plan', 'show', 'output', 'version', 'graph', 'providers', 'get'].includes(verb) || (verb === 'state' && ['list', 'show', 'pull'].includes(args[1]))) continue;
    if (verb === 'taint' || verb === 'untaint') {
      const t = parseTarget(args[1]);
      const addr = t?.resource ? { module: t.module, ...t.resource, key: t.key?.value } : undefined;
      const o = addr ? env.state.object(addr) : undefined;
      if (addr && o) {
        const rs = env.state.resource(addr)!;
        applyChange(env.state, { op: 'current', addr, provider: rs.provider, obj: { ...o, status: verb === 'taint' ? 'tainted' : 'ready' } });
      }
    } else if (verb === 'apply' || verb === 'destroy') {
      if (!(st.run ?? []).includes('-auto-approve')) break; // prompts: CLI territory
      if (args.slice(1).some((a) => !a.startsWith('-'))) break; // saved plan files: CLI territory
      const vars: Record<string, string> = {};
      const targets: string[] = [];
      const replace: string[] = [];
      let refresh = true;
      let mode: 'normal' | 'destroy' | 'refresh-only' = verb === 'destroy' ? 'destroy' : 'normal';
      let parallelism: number | undefined;
      for (const a of args.slice(1)) {
        let m: RegExpExecArray | null;
        if ((m = /^-var=([^=]+)=(.*)$/.exec(a))) vars[m[1]] = m[2];
        else if ((m = /^-target=(.*)$/.exec(a))) targets.push(m[1]);
        else if ((m = /^-replace=(.*)$/.exec(a))) replace.push(m[1]);
        else if (a === '-refresh=false') refresh = false;
        else if (a === '-refresh-only') mode = 'refresh-only';
        else if (a === '-destroy') mode = 'destroy';
        else if ((m = /^-parallelism=(\d+)$/.exec(a))) parallelism = Number(m[1]);
        else return { compared, mismatches: [...mismatches, `step ${i}: unsupported flag ${a}`] };
      }
      const p = await doPlan(env, { vars, targets, replace, refresh, mode, parallelism });
      const perr = p.diagnostics.some((d) => d.severity === 'error');
      const errs = p.diagnostics.filter((d) => d.severity === 'error');
      if (!perr) errs.push(...(await doApply(env, p.plan, parallelism)).diagnostics.filter((d) => d.severity === 'error'));
      if ((st.result!.exit_code !== 0) !== errs.length > 0) {
        mismatches.push(
          errs.length
            ? `step ${i} (${args.join(' ')}): engine failed: ${errs.map((d) => d.summary + ': ' + d.detail).join('; ')}`
            : `step ${i} (${args.join(' ')}): expected failure, engine succeeded`,
        );
      }
    } else break;
    compared++;
    const want = norm(st.result!.state);
    const gotJSON = env.state.empty() && want === 'null' ? null : stateJSON(env.state);
    const got = norm(gotJSON);
    identity(i, st.result!.state, gotJSON);
    if (want !== got) mismatches.push(`step ${i} (${args.join(' ')}):\n--- want\n${want}\n--- got\n${got}`);
  }
  return { compared: compared + planSteps, mismatches };
}

function parsePlanFlags(args: string[], verb: string) {
  const vars: Record<string, string> = {};
  const targets: string[] = [];
  const replace: string[] = [];
  let refresh = true;
  let mode: 'normal' | 'destroy' | 'refresh-only' = verb === 'destroy' ? 'destroy' : 'normal';
  let parallelism: number | undefined;
  let unsupported: string | undefined;
  for (const a of args) {
    let m: RegExpExecArray | null;
    if ((m = /^-var=([^=]+)=(.*)$/.exec(a))) vars[m[1]] = m[2];
    else if ((m = /^-target=(.*)$/.exec(a))) targets.push(m[1]);
    else if ((m = /^-replace=(.*)$/.exec(a))) replace.push(m[1]);
    else if (a === '-refresh=false') refresh = false;
    else if (a === '-refresh-only') mode = 'refresh-only';
    else if (a === '-destroy') mode = 'destroy';
    else if ((m = /^-parallelism=(\d+)$/.exec(a))) parallelism = Number(m[1]);
    else if (a === '-detailed-exitcode' || a.startsWith('-out=') || a === '-lock=false') continue;
    else unsupported = a;
  }
  return { vars, targets, replace, refresh, mode, parallelism, unsupported };
}

/** The mismatch header and the first differing lines. */
function firstDiff(m: string): string {
  const [head, rest] = m.split('\n--- want\n');
  if (!rest) return head;
  const [want, got] = rest.split('\n--- got\n');
  const a = want.split('\n');
  const b = got.split('\n');
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `${head}\n  want: ${a.slice(Math.max(0, i - 3), i + 4).join('\n        ')}\n  got:  ${b.slice(Math.max(0, i - 3), i + 4).join('\n        ')}`;
}

const EXPECTED = [
  'basic-lifecycle', 'check-blocks', 'conditions', 'count-orphans', 'create-before-destroy', 'for-each-map', 'ignore-changes-prevent-destroy',
  'import-block-and-cli', 'moved-blocks', 'nested-modules', 'removed-blocks', 'replace-triggered-by', 'sensitive-values', 'taint-untaint', 'target-replace-refresh', 'unknown-values',
];

for (const f of readdirSync(DIR).filter((x) => x.endsWith('.json')).sort()) {
  const name = f.slice(0, -5);
  test(`Scenario ${name}: each apply/destroy step through the engine leaves the state Terraform left`, async (t) => {
    const r = await replay(name);
    t.diagnostic(`${name}: ${r.compared} step(s) compared, ${r.mismatches.length} mismatching`);
    if (!EXPECTED.includes(name)) {
      if (r.mismatches.length) t.diagnostic(`${name}: ${r.mismatches.length} mismatching step(s) of ${r.compared}\n${firstDiff(r.mismatches[0])}`);
      return;
    }
    assert.deepEqual(r.mismatches, []);
    assert.ok(r.compared > 0);
  });
}
