// Terraform's machine-readable UI stream (command/views/json, hook_json.go): one JSON object per line with
// @level, @message, @module ("terraform.ui"), @timestamp and a typed payload (version, planned_change,
// change_summary, outputs, refresh_start/complete, apply_start/complete/errored, diagnostic).
//
// Contract: every line is a compact JSON object with its top-level keys sorted (hclog's JSON format) and
// Go's HTML escaping of <, >, &; payload objects keep Terraform's struct field order.

import type { CliIO } from '../../cli/io';
import { jsonDiagnostic } from '../../cli/validate';
import type { Diagnostic } from '../../diags/diagnostic';
import type { RenderOptions } from '../../diags/render';
import type { Hooks } from '../../engine/hooks';
import { ctyMarshal, ctyMarshalType } from '../jsonstate';
import type { Value } from '../../lang/value';
import type { Action, ActionReason, Plan } from '../../plans/plan';
import { instanceAddrString, resourceKey, type InstanceAddr } from '../../states/state';
import { objectValueID, objectValueIDOrName } from './operation';

/** Go's json.Marshal: compact, with <, >, & escaped. */
export function goCompact(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function ts(): string {
  const d = new Date();
  const iso = d.toISOString();
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const hh = String(Math.floor(Math.abs(off) / 60)).padStart(2, '0');
  const mm = String(Math.abs(off) % 60).padStart(2, '0');
  return iso.slice(0, 23) + '000' + (off === 0 ? 'Z' : `${sign}${hh}:${mm}`);
}

function resourceJSON(addr: InstanceAddr): Record<string, unknown> {
  const local = resourceKey(addr) + (addr.key === undefined ? '' : typeof addr.key === 'number' ? `[${addr.key}]` : `[${JSON.stringify(addr.key)}]`);
  const i = addr.type.indexOf('_');
  return {
    addr: instanceAddrString(addr),
    module: addr.module,
    resource: local,
    implied_provider: i < 0 ? addr.type : addr.type.slice(0, i),
    resource_type: addr.type,
    resource_name: addr.name,
    resource_key: addr.key === undefined ? null : addr.key,
  };
}

function changeAction(a: Action): string {
  switch (a) {
    case 'NoOp':
      return 'noop';
    case 'Create':
      return 'create';
    case 'Read':
      return 'read';
    case 'Update':
      return 'update';
    case 'DeleteThenCreate':
    case 'CreateThenDelete':
      return 'replace';
    case 'Delete':
      return 'delete';
    case 'Forget':
      return 'remove';
    default:
      return 'replace';
  }
}

function changeReason(r: ActionReason): string | undefined {
  switch (r) {
    case 'None':
      return undefined;
    case 'ReplaceBecauseTainted':
      return 'tainted';
    case 'ReplaceByRequest':
      return 'requested';
    case 'ReplaceByTriggers':
      return 'replace_triggered_by';
    case 'ReplaceBecauseCannotUpdate':
      return 'cannot_update';
    default:
      return r.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
  }
}

function hookVerb(a: Action): [string, string] {
  switch (a) {
    case 'Create':
      return ['Creating...', 'Creation'];
    case 'Update':
      return ['Modifying...', 'Modifications'];
    case 'Delete':
      return ['Destroying...', 'Destruction'];
    case 'Read':
      return ['Reading...', 'Read'];
    default:
      return ['Applying...', 'Apply'];
  }
}

export class JsonStream {
  constructor(readonly io: CliIO) {}

  emit(level: string, message: string, payload: Record<string, unknown>): void {
    const all: Record<string, unknown> = { '@level': level, '@message': message, '@module': 'terraform.ui', '@timestamp': ts(), ...payload };
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(all).sort()) sorted[k] = all[k];
    this.io.stdout(goCompact(sorted) + '\n');
  }

  version(): void {
    this.emit('info', 'Terraform 1.11.4', { terraform: '1.11.4', type: 'version', ui: '1.2' });
  }

  plannedChanges(plan: Plan): void {
    for (const c of plan.changes) {
      const moved = instanceAddrString(c.prevRunAddr) !== instanceAddrString(c.addr);
      if (c.action === 'NoOp' && !moved && !c.importing) continue;
      if (c.action === 'Delete' && c.addr.mode === 'data') continue;
      const change: Record<string, unknown> = { resource: resourceJSON(c.addr) };
      if (moved) change.previous_resource = resourceJSON(c.prevRunAddr);
      const action = c.action === 'NoOp' ? (moved ? 'move' : 'import') : changeAction(c.action);
      change.action = action;
      const reason = changeReason(c.actionReason);
      if (reason) change.reason = reason;
      const addr = instanceAddrString(c.addr) + (c.deposedKey ? ` (deposed object ${c.deposedKey})` : '');
      this.emit('info', `${addr}: Plan to ${action}`, { change, type: 'planned_change' });
    }
  }

  changeSummary(operation: 'plan' | 'apply' | 'destroy', c: { add: number; change: number; import: number; remove: number }): void {
    let msg: string;
    if (operation === 'plan') msg = c.import > 0 ? `Plan: ${c.import} to import, ${c.add} to add, ${c.change} to change, ${c.remove} to destroy.` : `Plan: ${c.add} to add, ${c.change} to change, ${c.remove} to destroy.`;
    else if (operation === 'destroy') msg = `Destroy complete! Resources: ${c.remove} destroyed.`;
    else msg = c.import > 0 ? `Apply complete! Resources: ${c.import} imported, ${c.add} added, ${c.change} changed, ${c.remove} destroyed.` : `Apply complete! Resources: ${c.add} added, ${c.change} changed, ${c.remove} destroyed.`;
    this.emit('info', msg, { changes: { add: c.add, change: c.change, import: c.import, remove: c.remove, operation }, type: 'change_summary' });
  }

  outputsFromPlan(plan: Plan): void {
    const outs = plan.outputs.filter((o) => !o.module);
    if (outs.length === 0) return;
    const m: Record<string, unknown> = {};
    for (const o of [...outs].sort((a, b) => (a.name < b.name ? -1 : 1))) m[o.name] = { sensitive: o.sensitive, action: changeAction(o.action) };
    this.emit('info', `Outputs: ${outs.length}`, { outputs: m, type: 'outputs' });
  }

  outputsFromState(outs: [string, { value: Value; sensitive: boolean }][]): void {
    const m: Record<string, unknown> = {};
    for (const [k, o] of outs) m[k] = { sensitive: o.sensitive, type: JSON.parse(ctyMarshalType(o.value.type)) as unknown, value: JSON.parse(ctyMarshal(o.value)) as unknown };
    this.emit('info', `Outputs: ${outs.length}`, { outputs: m, type: 'outputs' });
  }

  diagnostic(d: Diagnostic, render: RenderOptions): void {
    const j = jsonDiagnostic(d, render.sources ?? new Map(), render.contextOf ?? (() => undefined));
    const level = d.severity === 'error' ? 'error' : 'warn';
    this.emit(level, `${d.severity === 'error' ? 'Error' : 'Warning'}: ${d.summary}`, { diagnostic: j, type: 'diagnostic' });
  }

  hooks(): Hooks {
    const started = new Map<string, { t: number; action: Action; idKey: string; idValue: string }>();
    return {
      preRefresh: (addr, _dk, prior) => {
        const id = objectValueID(prior);
        const hook: Record<string, unknown> = { resource: resourceJSON(addr) };
        if (id) {
          hook.id_key = 'id';
          hook.id_value = id;
        }
        this.emit('info', `${instanceAddrString(addr)}: Refreshing state...${id ? ` [id=${id}]` : ''}`, { hook, type: 'refresh_start' });
      },
      postRefresh: (addr, _dk, _prior, nv) => {
        const id = objectValueID(nv);
        const hook: Record<string, unknown> = { resource: resourceJSON(addr) };
        if (id) {
          hook.id_key = 'id';
          hook.id_value = id;
        }
        this.emit('info', `${instanceAddrString(addr)}: Refresh complete${id ? ` [id=${id}]` : ''}`, { hook, type: 'refresh_complete' });
      },
      preApply: (addr, dk, action, prior) => {
        if (action === 'NoOp') return;
        const [k, v] = objectValueIDOrName(prior);
        const key = instanceAddrString(addr) + (dk ?? '');
        started.set(key, { t: Date.now(), action, idKey: k, idValue: v });
        const hook: Record<string, unknown> = { resource: resourceJSON(addr), action: changeAction(action) };
        if (k && v) {
          hook.id_key = k;
          hook.id_value = v;
        }
        this.emit('info', `${instanceAddrString(addr)}: ${hookVerb(action)[0]}${k && v ? ` [${k}=${v}]` : ''}`, { hook, type: 'apply_start' });
      },
      postApply: (addr, dk, _action, nv, failed) => {
        const key = instanceAddrString(addr) + (dk ?? '');
        const st = started.get(key);
        if (!st) return;
        const secs = Math.floor((Date.now() - st.t) / 1000);
        const hook: Record<string, unknown> = { resource: resourceJSON(addr), action: changeAction(st.action) };
        if (failed) {
          hook.elapsed_seconds = secs;
          this.emit('error', `${instanceAddrString(addr)}: ${hookVerb(st.action)[1]} errored after ${secs}s`, { hook, type: 'apply_errored' });
          return;
        }
        const id = objectValueID(nv);
        if (id) {
          hook.id_key = 'id';
          hook.id_value = id;
        }
        hook.elapsed_seconds = secs;
        this.emit('info', `${instanceAddrString(addr)}: ${hookVerb(st.action)[1]} complete after ${secs}s${id ? ` [id=${id}]` : ''}`, { hook, type: 'apply_complete' });
      },
    };
  }
}
