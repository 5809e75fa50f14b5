// Custom conditions and check results (Terraform's checks package and evalCheckRules): resource preconditions
// and postconditions, output preconditions, check block assertions, and the aggregated results stored in the
// plan and, after apply, in the state's check_results.
//
// Contracts:
// - `evalCondition` evaluates one rule in a scope and returns its status; failures of resource and output
//   conditions are errors with Terraform's summaries, check block assertions are warnings ("Check block assertion
//   failed", "Check block assertion known after apply"). The values section lists the condition's references.
// - `CheckTracker` knows every checkable object of the configuration up front (resources with conditions, outputs
//   with preconditions, check blocks); objects never reported keep `objects: null` and status unknown. Results are
//   sorted by configuration address, as Terraform writes them.

import type { Diagnostic, Range } from '../diags/diagnostic';
import { error, warning } from '../diags/diagnostic';
import type { Module } from '../config/model';
import { resourceKey } from '../config/model';
import { expressionValues } from '../config/variables';
import type { Expr } from '../lang/ast';
import { evaluate, type Scope } from '../lang/eval';
import type { CheckObjectResult, CheckResult, CheckStatus } from '../states/state';

export type ConditionKind = 'resource-pre' | 'resource-post' | 'output-pre' | 'check';

const SUMMARY: Record<ConditionKind, string> = {
  'resource-pre': 'Resource precondition failed',
  'resource-post': 'Resource postcondition failed',
  'output-pre': 'Module output value precondition failed',
  check: 'Check block assertion failed',
};

export interface Rule {
  condition?: { ast: Expr; range: Range };
  errorMessage?: { ast: Expr; range: Range };
}

/** Evaluates one rule; pushes its diagnostics; returns the status and the failure message. */
export function evalCondition(rule: Rule, scope: Scope, kind: ConditionKind, diags: Diagnostic[]): { status: CheckStatus; message?: string } {
  if (!rule.condition) return { status: 'pass' };
  const r = evaluate(rule.condition.ast, scope);
  const asWarning = kind === 'check';
  if (r.diagnostics.some((d) => d.severity === 'error')) {
    for (const d of r.diagnostics) diags.push(asWarning ? { ...d, severity: 'warning' } : d);
    return { status: 'error' };
  }
  const v = r.value;
  const values = () => expressionValues(rule.condition!.ast, scope);
  if (!v.isKnown) {
    if (asWarning) {
      diags.push({
        ...warning('Check block assertion known after apply', 'The condition could not be evaluated at this time, a result will be known when this plan is applied.', rule.condition.range),
        values: values(),
      });
    }
    return { status: 'unknown' };
  }
  const [u] = v.unmarkDeep();
  if (u.isNull) {
    const d = error('Invalid condition result', 'Condition expression must return either true or false, not null.', rule.condition.range);
    diags.push(asWarning ? { ...d, severity: 'warning' } : d);
    return { status: 'error' };
  }
  if (u.type.kind !== 'bool') {
    const d = error('Invalid condition result', 'Invalid condition result value: a bool is required.', rule.condition.range);
    diags.push(asWarning ? { ...d, severity: 'warning' } : d);
    return { status: 'error' };
  }
  if (u.bool) return { status: 'pass' };
  let msg = '';
  if (rule.errorMessage) {
    const m = evaluate(rule.errorMessage.ast, scope);
    const [mv] = m.value.unmarkDeep();
    if (mv.isKnown && !mv.isNull && mv.type.kind === 'string') msg = mv.str;
  }
  const d = (asWarning ? warning : error)(SUMMARY[kind], msg, rule.condition.range);
  diags.push({ ...d, values: values() });
  return { status: 'fail', message: msg };
}

interface Entry {
  kind: 'resource' | 'output' | 'check' | 'var';
  /** `declared`: no rule reported yet (status unknown until one does). */
  objects: Map<string, { status: CheckStatus; messages: string[]; declared?: boolean }> | null;
}

const RANK: Record<CheckStatus, number> = { pass: 0, unknown: 1, error: 3, fail: 2 };

export class CheckTracker {
  private readonly entries = new Map<string, Entry>();

  constructor(root: Module) {
    const visit = (m: Module) => {
      const pre = m.path ? m.path + '.' : '';
      for (const r of m.resources) {
        if ((r.lifecycle?.preconditions.length ?? 0) + (r.lifecycle?.postconditions.length ?? 0) > 0) this.entries.set(pre + resourceKey(r), { kind: 'resource', objects: null });
      }
      for (const o of m.outputs.values()) if (o.preconditions.length) this.entries.set(`${pre}output.${o.name}`, { kind: 'output', objects: null });
      for (const c of m.checks) this.entries.set(`${pre}check.${c.name}`, { kind: 'check', objects: null });
      for (const v of m.variables.values()) if (v.validations.length) this.entries.set(`${pre}var.${v.name}`, { kind: 'var', objects: null });
      for (const c of m.moduleCalls.values()) if (c.module) visit(c.module);
    };
    visit(root);
  }

  has(configAddr: string): boolean {
    return this.entries.has(configAddr);
  }

  /** Records the result of one rule for one object; results of several rules combine (worst wins). */
  report(configAddr: string, objectAddr: string, status: CheckStatus, message?: string): void {
    const e = this.entries.get(configAddr);
    if (!e) return;
    if (!e.objects) e.objects = new Map();
    let o = e.objects.get(objectAddr);
    if (!o || o.declared) o = { status, messages: [] };
    else if (RANK[status] > RANK[o.status]) o.status = status;
    if (message !== undefined && status === 'fail') o.messages.push(message);
    e.objects.set(objectAddr, o);
  }

  /** Declares an object without a result yet (status unknown unless reported later). */
  declare(configAddr: string, objectAddr: string): void {
    const e = this.entries.get(configAddr);
    if (!e) return;
    if (!e.objects) e.objects = new Map();
    if (!e.objects.has(objectAddr)) e.objects.set(objectAddr, { status: 'unknown', messages: [], declared: true });
  }

  /** Forgets earlier results of an object (a re-check during apply replaces the plan's result). */
  reset(configAddr: string, objectAddr: string): void {
    this.entries.get(configAddr)?.objects?.delete(objectAddr);
  }

  results(): CheckResult[] {
    const out: CheckResult[] = [];
    for (const [addr, e] of [...this.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      let objects: CheckObjectResult[] | null = null;
      let status: CheckStatus = 'unknown';
      if (e.objects) {
        objects = [...e.objects]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([oa, o]) => (o.messages.length ? { objectAddr: oa, status: o.status, failureMessages: o.messages } : { objectAddr: oa, status: o.status }));
        status = objects.length === 0 ? 'unknown' : objects.reduce<CheckStatus>((acc, o) => (RANK[o.status] > RANK[acc] ? o.status : acc), 'pass');
        if (objects.some((o) => o.status === 'fail')) status = 'fail';
        else if (objects.some((o) => o.status === 'error')) status = 'error';
        else if (objects.some((o) => o.status === 'unknown')) status = 'unknown';
      }
      out.push({ objectKind: e.kind, configAddr: addr, status, objects });
    }
    return out;
  }
}
