// The views of plan/apply/destroy/refresh (Terraform's command/views: plan.go, apply.go, operation.go,
// hook_ui.go, hook_json.go and views/json): the human view prints progress lines, the rendered plan, the
// approval prompt, summaries and outputs; the JSON view prints one Terraform UI event per line.
//
// Contract: an OperationView is the only writer of an operation's stdout/stderr after flag parsing; hooks()
// returns engine hooks that print progress synchronously (the walk's order is the printed order).

import { colorize } from '../../cli/state/meta';
import type { CliIO } from '../../cli/io';
import type { Diagnostic } from '../../diags/diagnostic';
import { renderDiagnosticsView, viewDiagnostics, type RenderOptions } from '../../diags/render';
import type { Hooks } from '../../engine/hooks';
import { formatValue } from '../../lang/format';
import { compareBytes } from '../../lang/types';
import type { Value } from '../../lang/value';
import type { Action, Plan, PlanMode } from '../../plans/plan';
import { hasChanges, planSummary } from '../../plans/plan';
import { outputValue } from '../jsonstate';
import type { InstanceAddr, State } from '../../states/state';
import { instanceAddrString } from '../../states/state';
import { renderHumanPlan } from '../format/plan';
import { JsonStream } from './json';

export type Verb = 'plan' | 'apply' | 'destroy' | 'refresh';

export interface OperationView {
  start(): void;
  hooks(): Hooks;
  plan(plan: Plan, mode: PlanMode): void;
  planFailed(plan: Plan | undefined, mode: PlanMode): void;
  diagnostics(diags: readonly Diagnostic[], render: RenderOptions): void;
  prompt(mode: PlanMode, workspace: string): void;
  answered(): void;
  cancelled(mode: PlanMode): void;
  applySummary(mode: PlanMode, stateOutPath: string): void;
  outputs(state: State): void;
  savedPlan(path: string): void;
  planNextStep(): void;
}

/** format.ObjectValueID: the `id` attribute when it is a known, unmarked, non-empty string. */
export function objectValueID(v: Value | undefined): string {
  if (!v || !v.isKnown || v.isNull || v.type.kind !== 'object') return '';
  const id = v.entries.get('id');
  if (!id || !id.isKnown || id.isNull || id.isMarked || id.type.kind !== 'string') return '';
  return id.str;
}

/** format.ObjectValueIDOrName: id, else name, else tags.Name. */
export function objectValueIDOrName(v: Value | undefined): [string, string] {
  const id = objectValueID(v);
  if (id) return ['id', id];
  if (!v || !v.isKnown || v.isNull || v.type.kind !== 'object') return ['', ''];
  const name = v.entries.get('name');
  if (name && name.isKnown && !name.isNull && !name.isMarked && name.type.kind === 'string' && name.str) return ['name', name.str];
  const tags = v.entries.get('tags');
  if (tags && tags.isKnown && !tags.isNull && !tags.isMarked && (tags.type.kind === 'map' || tags.type.kind === 'object')) {
    const n = tags.entries.get('Name');
    if (n && n.isKnown && !n.isNull && !n.isMarked && n.type.kind === 'string' && n.str) return ['tags.Name', n.str];
  }
  return ['', ''];
}

/** Go's time.Duration.String() truncated to seconds. */
export function goDurationSeconds(ms: number): string {
  let s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}

function dispAddr(addr: InstanceAddr, dk?: string): string {
  const a = instanceAddrString(addr);
  return dk ? `${a} (deposed object ${dk})` : a;
}

/** Counts of completed changes (Terraform's countHook). */
export class CountHook {
  added = 0;
  changed = 0;
  removed = 0;
  imported = 0;
  private pending = new Map<string, Action>();
  hooks(): Hooks {
    return {
      preApply: (addr, dk, action) => {
        this.pending.set(dispAddr(addr, dk), action);
      },
      postApply: (addr, dk, _action, _nv, failed) => {
        const k = dispAddr(addr, dk);
        const a = this.pending.get(k);
        this.pending.delete(k);
        if (failed || a === undefined) return;
        if (addr.mode === 'data') return;
        switch (a) {
          case 'Create':
            this.added++;
            break;
          case 'Delete':
            this.removed++;
            break;
          case 'Update':
            this.changed++;
            break;
          default:
            break;
        }
      },
      postApplyImport: () => {
        this.imported++;
      },
    } as Hooks;
  }
}

function mergeHooks(...hs: Hooks[]): Hooks {
  const out: Record<string, (...a: unknown[]) => void> = {};
  for (const h of hs) {
    for (const [k, fn] of Object.entries(h)) {
      if (typeof fn !== 'function') continue;
      const prev = out[k];
      out[k] = prev
        ? (...a: unknown[]) => {
            prev(...a);
            (fn as (...x: unknown[]) => void)(...a);
          }
        : (fn as (...x: unknown[]) => void);
    }
  }
  return out as Hooks;
}

export function stateOutputs(state: State): [string, { value: Value; sensitive: boolean }][] {
  const out: [string, { value: Value; sensitive: boolean }][] = [];
  for (const k of [...state.outputs.keys()].sort(compareBytes)) {
    const o = state.outputs.get(k)!;
    out.push([k, { value: outputValue(o), sensitive: o.sensitive }]);
  }
  return out;
}

export class HumanView implements OperationView {
  readonly counts = new CountHook();
  constructor(
    readonly io: CliIO,
    readonly color: boolean,
    readonly verb: Verb,
  ) {}

  private c(s: string): string {
    return colorize(s, this.color);
  }

  start(): void {}

  hooks(): Hooks {
    const started = new Map<string, { t: number; action: Action }>();
    const ui: Hooks = {
      preRefresh: (addr, dk, prior) => {
        const id = objectValueID(prior);
        const suffix = id ? ` [id=${id}]` : '';
        this.io.stdout(`${this.c(`[reset][bold]${dispAddr(addr, dk)}: Refreshing state...${suffix}`)}\n`);
      },
      preApply: (addr, dk, action, prior) => {
        const a = dispAddr(addr, dk);
        let op = '';
        switch (action) {
          case 'Delete':
            op = 'Destroying...';
            break;
          case 'Create':
            op = 'Creating...';
            break;
          case 'Update':
            op = 'Modifying...';
            break;
          case 'Read':
            op = 'Reading...';
            break;
          case 'NoOp':
            break;
          default:
            this.io.stdout(`(Unknown action ${action} for ${a})\n`);
            return;
        }
        const [k, v] = objectValueIDOrName(prior);
        const suffix = k && v ? ` [${k}=${v}]` : '';
        started.set(a, { t: Date.now(), action });
        if (action !== 'NoOp') this.io.stdout(this.c(`[reset][bold]${a}: ${op}${suffix}[reset]`) + '\n');
      },
      postApply: (addr, dk, _action, newState, failed) => {
        const a = dispAddr(addr, dk);
        const st = started.get(a);
        started.delete(a);
        // hook_ui.go PostApply: a failed apply prints nothing here (its errors are printed with the diagnostics).
        if (!st || st.action === 'NoOp' || failed) return;
        let msg = '';
        switch (st.action) {
          case 'Update':
            msg = failed ? 'Modifications errored' : 'Modifications complete';
            break;
          case 'Delete':
            msg = failed ? 'Destruction errored' : 'Destruction complete';
            break;
          case 'Create':
            msg = failed ? 'Creation errored' : 'Creation complete';
            break;
          case 'Read':
            msg = failed ? 'Read errored' : 'Read complete';
            break;
          default:
            return;
        }
        const id = failed ? '' : objectValueID(newState);
        const suffix = id ? ` [id=${id}]` : '';
        this.io.stdout(this.c(`[reset][bold]${instanceAddrString(addr)}: ${msg} after ${goDurationSeconds(Date.now() - st.t)}${suffix}`) + '\n');
      },
      prePlanImport: (addr, id) => {
        this.io.stdout(this.c(`[reset][bold]${instanceAddrString(addr)}: Preparing import... [id=${id}]`) + '\n');
      },
      preApplyImport: (addr, id) => {
        this.io.stdout(this.c(`[reset][bold]${instanceAddrString(addr)}: Importing... [id=${id}]`) + '\n');
      },
      postApplyImport: (addr, id) => {
        this.io.stdout(this.c(`[reset][bold]${instanceAddrString(addr)}: Import complete [id=${id}]`) + '\n');
      },
      preReadData: (addr) => {
        this.io.stdout(this.c(`[reset][bold]${dispAddr(addr)}: Reading...`) + '\n');
        started.set('read ' + dispAddr(addr), { t: Date.now(), action: 'Read' });
      },
      postReadData: (addr, failed) => {
        if (failed) return;
        const st = started.get('read ' + dispAddr(addr));
        this.io.stdout(this.c(`[reset][bold]${dispAddr(addr)}: Read complete after ${goDurationSeconds(Date.now() - (st?.t ?? Date.now()))}`) + '\n');
      },
    };
    return mergeHooks(ui, this.counts.hooks());
  }

  plan(plan: Plan): void {
    this.io.stdout(renderHumanPlan(plan, { color: this.color }));
  }

  /**
   * An errored plan with changes is rendered ("planned the following actions, but then encountered a problem");
   * otherwise only the "Planning failed." banner. The caller skips this for validate-time errors.
   */
  planFailed(plan: Plan | undefined): void {
    if (plan && (plan.changes.some((c) => c.action !== 'NoOp') || plan.outputs.some((o) => o.action !== 'NoOp'))) this.io.stdout(renderHumanPlan(plan, { color: this.color, errored: true }));
    else this.io.stdout(this.c('\n[reset][bold][red]Planning failed.[reset][bold] Terraform encountered an error while generating this plan.[reset]\n\n'));
  }

  diagnostics(diags: readonly Diagnostic[], render: RenderOptions): void {
    for (const d of viewDiagnostics(diags)) {
      const text = renderDiagnosticsView([d], { ...render, color: this.color });
      if (d.severity === 'error') this.io.stderr(text);
      else this.io.stdout(text);
    }
  }

  prompt(mode: PlanMode, workspace: string): void {
    let query = 'Do you want to perform these actions?';
    let desc = "Terraform will perform the actions described above.\nOnly 'yes' will be accepted to approve.";
    if (mode === 'destroy') {
      query = 'Do you really want to destroy all resources?';
      desc = "Terraform will destroy all your managed infrastructure, as shown above.\nThere is no undo. Only 'yes' will be accepted to confirm.";
      if (workspace !== 'default') query = `Do you really want to destroy all resources in workspace "${workspace}"?`;
    } else if (mode === 'refresh-only') {
      query = 'Would you like to update the Terraform state to reflect these detected changes?';
      desc = "Terraform will write these changes to the state without modifying any real infrastructure.\nThere is no undo. Only 'yes' will be accepted to confirm.";
    } else if (workspace !== 'default') {
      query = `Do you want to perform these actions in workspace "${workspace}"?`;
    }
    let buf = '[reset]';
    buf += `[bold]\n${query}[reset]\n`;
    for (const l of desc.split('\n')) buf += `  ${l}\n`;
    buf += '\n';
    buf += '  [bold]Enter a value:[reset] ';
    this.io.stdout(this.c(buf));
  }

  answered(): void {
    this.io.stdout('\n');
  }

  cancelled(mode: PlanMode): void {
    this.io.stdout(mode === 'destroy' ? 'Destroy cancelled.\n' : 'Apply cancelled.\n');
  }

  applySummary(mode: PlanMode, stateOutPath: string): void {
    const c = this.counts;
    if (mode === 'destroy') this.io.stdout(this.c(`[reset][bold][green]\nDestroy complete! Resources: ${c.removed} destroyed.\n`));
    else if (c.imported > 0)
      this.io.stdout(this.c(`[reset][bold][green]\nApply complete! Resources: ${c.imported} imported, ${c.added} added, ${c.changed} changed, ${c.removed} destroyed.\n`));
    else this.io.stdout(this.c(`[reset][bold][green]\nApply complete! Resources: ${c.added} added, ${c.changed} changed, ${c.removed} destroyed.\n`));
    if ((c.added > 0 || c.changed > 0) && stateOutPath) {
      this.io.stdout(
        '\nThe state of your infrastructure has been saved to the path\nbelow. This state is required to modify and destroy your\ninfrastructure, so keep it safe. To inspect the complete state\nuse the `terraform show` command.\n\n',
      );
      this.io.stdout(`State path: ${stateOutPath}\n`);
    }
  }

  outputs(state: State): void {
    const outs = stateOutputs(state);
    if (outs.length === 0) return;
    this.io.stdout(this.c('[reset][bold][green]\nOutputs:\n\n'));
    let buf = '';
    for (const [k, o] of outs) {
      if (o.sensitive) buf += `${k} = <sensitive>\n`;
      else buf += `${k} = ${formatValue(o.value, 0)}\n`;
    }
    this.io.stdout(buf.trim() + '\n');
  }

  savedPlan(path: string): void {
    if (this.io.env.TF_IN_AUTOMATION) return;
    this.io.stdout(`${this.c(`[dark_gray]\n${'─'.repeat(77)}`)}\n\nSaved the plan to: ${path}\n\nTo perform exactly these actions, run the following command to apply:\n    terraform apply ${JSON.stringify(path)}\n`);
  }

  planNextStep(): void {
    if (this.io.env.TF_IN_AUTOMATION) return;
    this.io.stdout(
      // format.HorizontalRule: dark grey when coloured.
      `${this.c(`[dark_gray]\n${'─'.repeat(77)}`)}\n\nNote: You didn't use the -out option to save this plan, so Terraform can't\nguarantee to take exactly these actions if you run "terraform apply" now.\n`,
    );
  }
}

export class JsonView implements OperationView {
  readonly counts = new CountHook();
  readonly stream: JsonStream;
  constructor(
    readonly io: CliIO,
    readonly verb: Verb,
  ) {
    this.stream = new JsonStream(io);
  }
  start(): void {
    this.stream.version();
  }
  hooks(): Hooks {
    return mergeHooks(this.stream.hooks(), this.counts.hooks());
  }
  plan(plan: Plan, mode: PlanMode): void {
    this.stream.plannedChanges(plan);
    const s = planSummary(plan);
    this.stream.changeSummary('plan', { add: s.add, change: s.change, import: s.import, remove: s.destroy });
    void mode;
    this.stream.outputsFromPlan(plan);
    void hasChanges;
  }
  planFailed(plan: Plan | undefined, mode: PlanMode): void {
    // The JSON view renders every errored plan it is given (a change summary of zeros when nothing was planned),
    // where the human view says "Planning failed." instead.
    if (plan) this.plan(plan, mode);
  }
  diagnostics(diags: readonly Diagnostic[], render: RenderOptions): void {
    for (const d of diags) this.stream.diagnostic(d, render);
  }
  prompt(): void {}
  answered(): void {}
  cancelled(): void {}
  applySummary(mode: PlanMode): void {
    const c = this.counts;
    this.stream.changeSummary(mode === 'destroy' ? 'destroy' : 'apply', { add: c.added, change: c.changed, import: c.imported, remove: c.removed });
  }
  outputs(state: State): void {
    this.stream.outputsFromState(stateOutputs(state));
  }
  savedPlan(): void {}
  planNextStep(): void {}
}
