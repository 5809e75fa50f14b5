// Test harness for the engine: writes a configuration to a temporary directory, loads it, and runs plan/apply
// with a recording provider (every call logged, optional per-call overrides such as planResourceChangeFn), by
// default wrapping the built-in `terraform` provider (terraform_data).

import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadModuleTree } from '../../server/config/load';
import type { Module } from '../../server/config/model';
import { collectVariableValues, parseVariableValues } from '../../server/config/variables';
import type { Diagnostic } from '../../server/diags/diagnostic';
import { apply, plan } from '../../server/engine';
import type { Hooks } from '../../server/engine/hooks';
import type { Plan } from '../../server/plans/plan';
import { startBuiltinProvider } from '../../server/providers/builtin';
import type { Provider } from '../../server/providers/provider';
import { State } from '../../server/states/state';
import { writeStateFile } from '../../server/states/statefile';

export const TF = 'terraform.io/builtin/terraform';

export interface Call {
  method: string;
  req: unknown;
}

/** A provider that records every call and lets a test replace any method (e.g. planResourceChangeFn). */
export class RecordingProvider {
  calls: Call[] = [];
  fns: Partial<Record<keyof Provider, (req: never, inner: Provider) => Promise<unknown>>> = {};
  delayMs = 0;
  active = 0;
  maxActive = 0;
  constructor(readonly inner: Provider) {}

  called(method: string): Call[] {
    return this.calls.filter((c) => c.method === method);
  }
  get planResourceChangeCalled(): boolean {
    return this.called('planResourceChange').length > 0;
  }
  get applyResourceChangeCalled(): boolean {
    return this.called('applyResourceChange').length > 0;
  }

  provider(): Provider {
    const methods = [
      'getProviderSchema', 'validateProviderConfig', 'validateResourceConfig', 'validateDataResourceConfig', 'configureProvider',
      'upgradeResourceState', 'readResource', 'planResourceChange', 'applyResourceChange', 'importResourceState', 'moveResourceState',
      'readDataSource', 'stopProvider', 'close',
    ] as const;
    const out: Record<string, unknown> = {};
    for (const m of methods) {
      out[m] = async (req: unknown) => {
        this.calls.push({ method: m, req });
        const slow = m === 'applyResourceChange' && this.delayMs > 0;
        if (slow) {
          this.active++;
          this.maxActive = Math.max(this.maxActive, this.active);
          await new Promise((r) => setTimeout(r, this.delayMs));
          this.active--;
        }
        const f = this.fns[m];
        if (f) return f(req as never, this.inner);
        return (this.inner[m] as (r: unknown) => Promise<unknown>).call(this.inner, req);
      };
    }
    return out as unknown as Provider;
  }
}

export function writeConfig(files: Record<string, string>, dir?: string): string {
  const d = dir ?? mkdtempSync(join(tmpdir(), 'fs-engine-'));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(d, p)), { recursive: true });
    writeFileSync(join(d, p), text);
  }
  return d;
}

export async function load(dir: string): Promise<Module> {
  const r = await loadModuleTree(dir, { baseDir: dir });
  const errs = r.diagnostics.filter((d) => d.severity === 'error');
  if (errs.length) throw new Error('config errors: ' + errs.map((d) => d.summary).join('; '));
  return r.module;
}

export interface Env {
  dir: string;
  rec: RecordingProvider;
  state: State;
  hooks: Hooks;
  events: string[];
  /** Further providers recorded (by source address), for tests that override their calls too. */
  recs: Map<string, RecordingProvider>;
}

export function newEnv(files: Record<string, string>): Env {
  const dir = writeConfig(files);
  const rec = new RecordingProvider(startBuiltinProvider(TF, { workingDir: dir })!);
  const events: string[] = [];
  const hooks: Hooks = {
    preApply: (a, dk, action) => events.push(`pre ${action} ${fmt(a)}${dk ? ' deposed' : ''}`),
    postApply: (a, dk, action, _v, failed) => events.push(`post ${action} ${fmt(a)}${dk ? ' deposed' : ''}${failed ? ' failed' : ''}`),
  };
  return { dir, rec, state: new State(), hooks, events, recs: new Map() };
}

function fmt(a: { module: string; mode: string; type: string; name: string; key: unknown }): string {
  const k = a.key === undefined ? '' : typeof a.key === 'number' ? `[${a.key}]` : `[${JSON.stringify(a.key)}]`;
  return `${a.module ? a.module + '.' : ''}${a.mode === 'data' ? 'data.' : ''}${a.type}.${a.name}${k}`;
}

/** The provider a run gets for `fqn`: the recorded ones, else the built-in provider. */
function providerOf(env: Env, fqn: string): Provider | undefined {
  if (fqn === TF) return env.rec.provider();
  return env.recs.get(fqn)?.provider() ?? startBuiltinProvider(fqn);
}

/** Records (and lets a test override) the calls to one more built-in provider. */
export function recordProvider(env: Env, fqn: string): RecordingProvider {
  const r = new RecordingProvider(startBuiltinProvider(fqn, { workingDir: env.dir })!);
  env.recs.set(fqn, r);
  return r;
}

export async function doPlan(
  env: Env,
  extra: { vars?: Record<string, string>; mode?: 'normal' | 'destroy' | 'refresh-only'; targets?: string[]; replace?: string[]; refresh?: boolean; parallelism?: number } = {},
): Promise<{ plan: Plan; diagnostics: Diagnostic[] }> {
  const config = await load(env.dir);
  const flags = Object.entries(extra.vars ?? {}).map(([k, v]) => ({ flag: '-var' as const, value: `${k}=${v}` }));
  const raw = (await collectVariableValues(env.dir, flags, {})).raw;
  const parsed = parseVariableValues(raw, config).values;
  return plan({
    config,
    state: env.state,
    providers: (fqn) => providerOf(env, fqn),
    inputs: parsed,
    mode: extra.mode,
    targets: extra.targets,
    forceReplace: extra.replace,
    refresh: extra.refresh,
    parallelism: extra.parallelism,
    cwd: env.dir,
    hooks: env.hooks,
  });
}

export async function doApply(env: Env, p: Plan, parallelism?: number): Promise<{ state: State; diagnostics: Diagnostic[] }> {
  const config = await load(env.dir);
  const r = await apply(p, { config, providers: (fqn) => providerOf(env, fqn), cwd: env.dir, hooks: env.hooks, parallelism });
  env.state = r.state;
  return r;
}

/** plan + apply; throws on error diagnostics. */
export async function planApply(env: Env, extra: Parameters<typeof doPlan>[1] = {}): Promise<{ plan: Plan; state: State }> {
  const p = await doPlan(env, extra);
  const pe = p.diagnostics.filter((d) => d.severity === 'error');
  if (pe.length) throw new Error('plan errors: ' + pe.map((d) => `${d.summary}: ${d.detail}`).join('; '));
  const a = await doApply(env, p.plan, extra.parallelism);
  const ae = a.diagnostics.filter((d) => d.severity === 'error');
  if (ae.length) throw new Error('apply errors: ' + ae.map((d) => `${d.summary}: ${d.detail}`).join('; '));
  return { plan: p.plan, state: a.state };
}

export function stateJSON(s: State): Record<string, unknown> {
  return JSON.parse(writeStateFile({ terraformVersion: '1.11.4', serial: 1, lineage: 'x', state: s })) as Record<string, unknown>;
}

export function actions(p: Plan): string[] {
  return p.changes.map((c) => `${fmt(c.addr)}${c.deposedKey ? ' (deposed)' : ''}: ${c.action}${c.actionReason !== 'None' ? ' ' + c.actionReason : ''}`);
}
