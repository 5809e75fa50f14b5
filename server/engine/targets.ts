// -target and -replace addresses (Terraform's addrs.ParseTarget): a module (`module.a`, `module.a[0]`), a resource
// (`aws_x.y`, `module.a.data.aws_x.y`) or a resource instance (`aws_x.y[0]`, `aws_x.y["k"]`).
// Contract: parseTargets never throws; unparsable addresses give Terraform's "Invalid target address" diagnostics.

import type { Diagnostic } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type { InstanceAddr, InstanceKey } from '../states/state';
import { instanceKeyString, resourceKey } from '../states/state';
import { staticPath } from './context';

export interface Target {
  /** As written. */
  text: string;
  /** Module instance steps written before the resource, e.g. `module.a[0]` ("" for the root). */
  module: string;
  /** Static config address the target selects: `module.a` or `module.a.terraform_data.x`. */
  configAddr: string;
  /** Empty when the target is the whole configuration (never produced by the parser; kept for completeness). */
  configPrefix: string;
  isModule: boolean;
  resource?: { mode: 'managed' | 'data'; type: string; name: string };
  /** Set when an instance key was written. */
  key?: { value: InstanceKey };
}

const KEY = String.raw`\[(?:(\d+)|"((?:[^"\\]|\\.)*)")\]`;
const IDENT = '[A-Za-z_][A-Za-z0-9_-]*';

export function parseTargets(texts: readonly string[]): { targets: Target[]; diagnostics: Diagnostic[] } {
  const targets: Target[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const text of texts) {
    const t = parseTarget(text);
    if (t) targets.push(t);
    else diagnostics.push(error('Invalid target address', `The given address ${JSON.stringify(text)} is not a valid target address.`));
  }
  return { targets, diagnostics };
}

export function parseTarget(text: string): Target | undefined {
  let rest = text;
  let module = '';
  const modRe = new RegExp(`^module\\.(${IDENT})(?:${KEY})?`);
  for (;;) {
    const m = modRe.exec(rest);
    if (!m) break;
    const key = m[2] !== undefined ? `[${m[2]}]` : m[3] !== undefined ? `["${m[3]}"]` : '';
    module += (module ? '.' : '') + `module.${m[1]}${key}`;
    rest = rest.slice(m[0].length);
    if (rest.startsWith('.')) rest = rest.slice(1);
    else break;
  }
  if (rest === '') {
    if (!module) return undefined;
    return { text, module, configAddr: staticPath(module), configPrefix: staticPath(module), isModule: true };
  }
  const resRe = new RegExp(`^(data\\.)?(${IDENT})\\.(${IDENT})(?:${KEY})?$`);
  const m = resRe.exec(rest);
  if (!m) return undefined;
  const resource = { mode: (m[1] ? 'data' : 'managed') as 'managed' | 'data', type: m[2], name: m[3] };
  const key = m[4] !== undefined ? { value: Number(m[4]) as InstanceKey } : m[5] !== undefined ? { value: JSON.parse(`"${m[5]}"`) as InstanceKey } : undefined;
  const sp = staticPath(module);
  const configAddr = (sp ? sp + '.' : '') + resourceKey(resource);
  return { text, module, configAddr, configPrefix: configAddr, isModule: false, resource, key };
}

/** Whether an instance is selected by any of the targets (`exact`: -replace semantics, the instance itself). */
export function matchesTargets(targets: readonly Target[], addr: InstanceAddr, exact = false): boolean {
  for (const t of targets) {
    if (t.isModule) {
      if (exact) continue;
      if (addr.module === t.module || addr.module.startsWith(t.module + '.') || (staticPath(addr.module) === t.configAddr && !/\[/.test(t.module))) return true;
      continue;
    }
    const r = t.resource!;
    if (r.mode !== addr.mode || r.type !== addr.type || r.name !== addr.name) continue;
    if (t.module !== addr.module && !(t.module === staticPath(t.module) && staticPath(addr.module) === t.module && !exact)) continue;
    if (t.key) {
      if (instanceKeyString(t.key.value) === instanceKeyString(addr.key)) return true;
      continue;
    }
    if (exact && addr.key !== undefined) continue;
    return true;
  }
  return false;
}
