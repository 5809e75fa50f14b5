// Terraform's target addresses as the state commands parse them (addrs.ParseTargetStr,
// addrs.ParseAbsResourceInstanceStr): `module.a["x"].module.b`, `aws_x.y`, `data.aws_x.y[0]`, with the
// diagnostics Terraform gives for malformed ones (sourceless ranges, so they print "on  line 1:").
//
// Module instance addresses are returned in the state model's string form (state.ts): `module.a["x"].module.b`,
// "" for the root module.

import { error, type Diagnostic, type Range } from '../../diags/diagnostic';
import { instanceKeySuffix, type InstanceAddr, type InstanceKey, type ResourceAddr, type ResourceMode } from '../../states/state';

export type Target =
  | { kind: 'module'; module: string; steps: [string, InstanceKey][] }
  | { kind: 'resource'; addr: ResourceAddr }
  | { kind: 'instance'; addr: InstanceAddr };

const RANGE: Range = { filename: '', start: { line: 1, column: 1, byte: 0 }, end: { line: 1, column: 1, byte: 0 } };

type Tok = { t: 'name'; v: string } | { t: 'index'; v: number | string };

function diag(summary: string, detail: string): Diagnostic {
  return error(summary, detail, RANGE);
}

/** Splits a traversal into names and index keys, with HCL's syntax errors. */
function tokenize(s: string): { toks: Tok[]; diags: Diagnostic[] } {
  const toks: Tok[] = [];
  let i = 0;
  const ident = /[A-Za-z_][A-Za-z0-9_-]*/y;
  ident.lastIndex = 0;
  const m0 = ident.exec(s);
  if (!m0) return { toks, diags: [diag('Invalid address', 'A resource or module address is required.')] };
  if (s.trim() === '') return { toks, diags: [diag('Invalid address', 'A resource or module address is required.')] };
  toks.push({ t: 'name', v: m0[0] });
  i = ident.lastIndex;
  while (i < s.length) {
    const c = s[i];
    if (c === '.') {
      ident.lastIndex = i + 1;
      const m = ident.exec(s);
      if (!m) return { toks, diags: [diag('Attribute name required', 'Dot must be followed by attribute name.')] };
      toks.push({ t: 'name', v: m[0] });
      i = ident.lastIndex;
      continue;
    }
    if (c === '[') {
      const rest = s.slice(i + 1);
      const num = /^(\d+)\]/.exec(rest);
      if (num) {
        toks.push({ t: 'index', v: Number(num[1]) });
        i += 1 + num[0].length;
        continue;
      }
      const str = /^"((?:[^"\\]|\\.)*)"\]/.exec(rest);
      if (str) {
        let v: string;
        try {
          v = JSON.parse(`"${str[1]}"`) as string;
        } catch {
          v = str[1];
        }
        toks.push({ t: 'index', v });
        i += 1 + str[0].length;
        continue;
      }
      return { toks, diags: [diag('Index value required', 'Index brackets must contain either a literal number or a literal string.')] };
    }
    return { toks, diags: [diag('Invalid character', 'Expected an attribute access or an index operator.')] };
  }
  return { toks, diags: [] };
}

export function moduleString(steps: readonly [string, InstanceKey][]): string {
  return steps.map(([n, k]) => `module.${n}${instanceKeySuffix(k)}`).join('.');
}

/** addrs.ParseTargetStr. */
export function parseTarget(s: string): { target?: Target; diags: Diagnostic[] } {
  const { toks, diags } = tokenize(s);
  if (diags.length) return { diags };
  const steps: [string, InstanceKey][] = [];
  let i = 0;
  while (i < toks.length) {
    const t = toks[i];
    if (t.t !== 'name' || t.v !== 'module') break;
    const n = toks[i + 1];
    if (!n || n.t !== 'name') {
      if (!n) return { diags: [diag('Invalid address', 'Prefix "module." must be followed by a module name.')] };
      return { diags: [diag('Invalid address', 'Module name required.')] };
    }
    const k = toks[i + 2];
    if (k && k.t === 'index') {
      steps.push([n.v, k.v]);
      i += 3;
    } else {
      steps.push([n.v, undefined]);
      i += 2;
    }
  }
  const module = moduleString(steps);
  if (i >= toks.length) return { target: { kind: 'module', module, steps }, diags: [] };
  let mode: ResourceMode = 'managed';
  const first = toks[i];
  if (first.t === 'name' && first.v === 'data') {
    mode = 'data';
    i++;
  }
  const ty = toks[i];
  const nm = toks[i + 1];
  if (!ty || ty.t !== 'name' || !nm || nm.t !== 'name') {
    if (mode === 'data' && ty && ty.t === 'name' && !nm) return { diags: [diag('Invalid address', 'Resource specification must include a resource type and name.')] };
    return { diags: [diag('Invalid address', 'Resource specification must include a resource type and name.')] };
  }
  i += 2;
  const addr: ResourceAddr = { module, mode, type: ty.v, name: nm.v };
  if (i >= toks.length) return { target: { kind: 'resource', addr }, diags: [] };
  const k = toks[i];
  if (i + 1 < toks.length) return { diags: [diag('Invalid address', 'Unexpected extra operators after address.')] };
  if (k.t === 'index') return { target: { kind: 'instance', addr: { ...addr, key: k.v } }, diags: [] };
  return { diags: [diag('Invalid address', 'Resource instance key must be given in square brackets.')] };
}

/** addrs.ParseAbsResourceInstanceStr: a resource instance (a resource address means its no-key instance). */
export function parseInstance(s: string): { addr?: InstanceAddr; diags: Diagnostic[] } {
  const r = parseTarget(s);
  if (!r.target) return { diags: r.diags };
  if (r.target.kind === 'module')
    return { diags: [diag('Invalid address', 'A resource instance address is required here. The module path must be followed by a resource instance specification.')] };
  if (r.target.kind === 'resource') return { addr: { ...r.target.addr, key: undefined }, diags: [] };
  return { addr: r.target.addr, diags: [] };
}
