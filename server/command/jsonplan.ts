// The machine-readable plan (`show -json PLANFILE`, Terraform's command/jsonplan and jsonconfig):
// format_version 1.2 with variables, planned_values, resource_drift, resource_changes, output_changes,
// prior_state, configuration, relevant_attributes, checks, timestamp and the applyable/complete/errored flags.
//
// Contract: returns one compact JSON line in Terraform's field order; values are cty JSON with unknown leaves
// left out of objects and null in sequences (after_unknown marks them), sensitive values in plaintext
// (before_sensitive/after_sensitive mark them).

import type { Expression } from '../config/hclbody';
import { jsonConstantValue } from '../config/json';
import type { Module, Resource } from '../config/model';
import { refsOf } from '../config/checks';
import { evalConstant } from '../config/variables';
import { goQuote } from '../lang/format';
import { compareBytes } from '../lang/types';
import type { Value } from '../lang/value';
import type { DriftedResource, Plan, ResourceInstanceChange } from '../plans/plan';
import { actionJSON, actionReasonJSON, providerTypeOf, schemaForChange } from '../plans/plan';
import { instanceAddrString, resourceKey, type InstanceAddr } from '../states/state';
import { providerFqn, resourceProviderLocal } from '../engine/context';
import { builtinSchemas, ctyMarshal, marshalState, sensitiveAsBoolJSON } from './jsonstate';

const q = (s: string) => JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
const obj = (fields: [string, string | undefined][]) => '{' + fields.filter((f) => f[1] !== undefined).map(([k, v]) => `${q(k)}:${v}`).join(',') + '}';
void goQuote;

/** cty JSON with unknowns omitted in objects and null in sequences; undefined for a wholly unknown value. */
function valueJSON(v: Value): string | undefined {
  if (!v.isKnown) return undefined;
  if (v.isNull) return 'null';
  switch (v.type.kind) {
    case 'list':
    case 'set':
    case 'tuple':
      return '[' + v.elems.map((e) => valueJSON(e) ?? 'null').join(',') + ']';
    case 'map':
    case 'object': {
      const parts: string[] = [];
      for (const k of [...v.entries.keys()].sort(compareBytes)) {
        const s = valueJSON(v.entries.get(k)!);
        if (s !== undefined) parts.push(`${q(k)}:${s}`);
      }
      return '{' + parts.join(',') + '}';
    }
    default:
      return ctyMarshal(v.unmarkDeep()[0]);
  }
}

/** after_unknown: true at unknown leaves, objects keep only non-false children, sequences keep every element. */
function unknownJSON(v: Value): string {
  if (!v.isKnown) return 'true';
  if (v.isNull) return 'false';
  switch (v.type.kind) {
    case 'list':
    case 'set':
    case 'tuple':
      return '[' + v.elems.map(unknownJSON).join(',') + ']';
    case 'map':
    case 'object': {
      const parts: string[] = [];
      for (const k of [...v.entries.keys()].sort(compareBytes)) {
        const s = unknownJSON(v.entries.get(k)!);
        if (s !== 'false') parts.push(`${q(k)}:${s}`);
      }
      return '{' + parts.join(',') + '}';
    }
    default:
      return 'false';
  }
}

function sideSensitive(v: Value): string {
  if (v.isKnown && v.isNull && !v.isSensitive) return 'false';
  return sensitiveAsBoolJSON(v);
}

function topUnknown(v: Value): string {
  if (v.isKnown && v.isNull) return '{}';
  const s = unknownJSON(v);
  return s === 'false' ? '{}' : s;
}

function indexJSON(a: InstanceAddr): string | undefined {
  if (a.key === undefined) return undefined;
  return typeof a.key === 'number' ? String(a.key) : q(a.key);
}

function changeJSON(c: { before: Value; after: Value; action: ResourceInstanceChange['action']; requiredReplace?: ResourceInstanceChange['requiredReplace']; importing?: { id: string } }): string {
  const f: [string, string | undefined][] = [];
  f.push(['actions', '[' + actionJSON(c.action).map(q).join(',') + ']']);
  f.push(['before', valueJSON(c.before) ?? 'null']);
  const after = valueJSON(c.after);
  f.push(['after', after]);
  f.push(['after_unknown', topUnknown(c.after)]);
  f.push(['before_sensitive', sideSensitive(c.before)]);
  f.push(['after_sensitive', sideSensitive(c.after)]);
  if (c.requiredReplace && c.requiredReplace.length) {
    const paths = c.requiredReplace.map((p) => '[' + p.map((s) => (s.kind === 'attr' ? q(s.name) : s.key.type.kind === 'number' ? s.key.num.toString() : q(s.key.str))).join(',') + ']');
    f.push(['replace_paths', '[' + paths.join(',') + ']']);
  }
  if (c.importing) f.push(['importing', obj([['id', q(c.importing.id)]])]);
  return obj(f);
}

function resourceChangeJSON(c: ResourceInstanceChange | (DriftedResource & { actionReason?: string })): string {
  const a = c.addr;
  const prev = instanceAddrString(c.prevRunAddr);
  const addr = instanceAddrString(a);
  const f: [string, string | undefined][] = [
    ['address', q(addr)],
    ['previous_address', prev !== addr ? q(prev) : undefined],
    ['module_address', a.module ? q(a.module) : undefined],
    ['mode', q(a.mode)],
    ['type', q(a.type)],
    ['name', q(a.name)],
    ['index', indexJSON(a)],
    ['deposed', c.deposedKey ? q(c.deposedKey) : undefined],
    ['provider_name', q(providerTypeOf(c.providerAddr))],
    ['change', changeJSON(c as ResourceInstanceChange)],
  ];
  const r = (c as ResourceInstanceChange).actionReason;
  if (r && r !== 'None') f.push(['action_reason', q(actionReasonJSON(r)!)]);
  return obj(f);
}

// ---- planned values -------------------------------------------------------------------------------------------

function plannedValues(plan: Plan): string {
  const f: [string, string | undefined][] = [];
  const outs = plan.outputs.filter((o) => !o.module && o.action !== 'Delete');
  if (outs.length) {
    const parts = [...outs]
      .sort((a, b) => compareBytes(a.name, b.name))
      .map((o) => {
        const v = valueJSON(o.after);
        return `${q(o.name)}:${obj([['sensitive', o.sensitive ? 'true' : 'false'], ['value', o.sensitive ? undefined : v === undefined ? undefined : v]])}`;
      });
    f.push(['outputs', '{' + parts.join(',') + '}']);
  }
  const byModule = new Map<string, string[]>();
  for (const c of plan.changes) {
    if (c.action === 'Delete' || c.action === 'Forget' || c.deposedKey) continue;
    const schema = schemaForChange(plan, c);
    const after = c.after;
    const vals = after.isKnown && !after.isNull ? valueJSON(after) : undefined;
    const r = obj([
      ['address', q(instanceAddrString(c.addr))],
      ['mode', q(c.addr.mode)],
      ['type', q(c.addr.type)],
      ['name', q(c.addr.name)],
      ['index', indexJSON(c.addr)],
      ['provider_name', q(providerTypeOf(c.providerAddr))],
      ['schema_version', String(schema?.version ?? 0)],
      ['values', vals],
      ['sensitive_values', sensitiveAsBoolJSON(after)],
    ]);
    const m = c.addr.module;
    if (!byModule.has(m)) byModule.set(m, []);
    byModule.get(m)!.push(r);
  }
  const mod = (addr: string): string => {
    const res = byModule.get(addr) ?? [];
    const kids = [...byModule.keys()].filter((k) => k !== addr && k.startsWith(addr ? addr + '.' : 'module.') && !k.slice(addr ? addr.length + 1 : 0).includes('.module.')).sort(compareBytes);
    const ff: [string, string | undefined][] = [];
    if (res.length) ff.push(['resources', '[' + res.join(',') + ']']);
    if (addr) ff.push(['address', q(addr)]);
    if (kids.length) ff.push(['child_modules', '[' + kids.map(mod).join(',') + ']']);
    return obj(ff);
  };
  f.push(['root_module', mod('')]);
  return obj(f);
}

// ---- configuration --------------------------------------------------------------------------------------------

interface RefInfo {
  strings: string[];
  resourceAttrs: { resource: string; attribute: string[] }[];
}

function stepStr(s: { kind: string; name?: string; key?: string | number }): string {
  return s.kind === 'attr' ? `.${s.name}` : typeof s.key === 'number' ? `[${s.key}]` : `[${JSON.stringify(s.key)}]`;
}

function exprRefs(e: Expression): RefInfo {
  const out: string[] = [];
  const attrs: RefInfo['resourceAttrs'] = [];
  for (const r of refsOf(e)) {
    const steps = r.steps as { kind: 'attr' | 'index'; name?: string; key?: string | number }[];
    let subject: string;
    let rest: typeof steps;
    let extra: string | undefined;
    let resource: string | undefined;
    if (['var', 'local', 'count', 'each', 'path', 'terraform', 'self'].includes(r.root)) {
      if (!steps.length || steps[0].kind !== 'attr') continue;
      subject = `${r.root}.${steps[0].name}`;
      rest = steps.slice(1);
      if (r.root === 'self') continue;
    } else if (r.root === 'module') {
      if (!steps.length || steps[0].kind !== 'attr') continue;
      let i = 1;
      let call = `module.${steps[0].name}`;
      let inst = call;
      if (steps[1] && steps[1].kind === 'index') {
        inst += stepStr(steps[1]);
        i = 2;
      }
      if (steps[i] && steps[i].kind === 'attr') {
        subject = `${inst}.${steps[i].name}`;
        extra = call;
        rest = steps.slice(i + 1);
      } else {
        subject = inst;
        extra = inst !== call ? call : undefined;
        rest = steps.slice(i);
      }
      void call;
      call = '';
    } else {
      const isData = r.root === 'data';
      const st = isData ? steps : [{ kind: 'attr' as const, name: r.root }, ...steps];
      if (st.length < 2 || st[0].kind !== 'attr' || st[1].kind !== 'attr') continue;
      const res = `${isData ? 'data.' : ''}${st[0].name}.${st[1].name}`;
      let i = 2;
      let inst = res;
      if (st[2] && st[2].kind === 'index') {
        inst += stepStr(st[2]);
        i = 3;
      }
      subject = inst;
      extra = inst !== res ? res : undefined;
      rest = st.slice(i);
      resource = inst;
    }
    for (let n = rest.length; n > 0; n--) out.push(subject + rest.slice(0, n).map(stepStr).join(''));
    out.push(subject);
    if (extra) out.push(extra);
    if (resource && rest.length && !resource.startsWith('data.')) attrs.push({ resource, attribute: rest.map((s) => (s.kind === 'attr' ? q(s.name!) : typeof s.key === 'number' ? String(s.key) : q(String(s.key)))) });
  }
  return { strings: out, resourceAttrs: attrs };
}

function expressionJSON(e: Expression, collect: RefInfo['resourceAttrs']): string {
  const r = exprRefs(e);
  collect.push(...r.resourceAttrs);
  // A .tf.json expression always has a constant value: its JSON read without a context (HCL's Value(nil)).
  const lit = jsonConstantValue(e);
  if (lit) return obj([['constant_value', valueJSON(lit) ?? 'null'], ['references', r.strings.length ? '[' + r.strings.map(q).join(',') + ']' : undefined]]);
  if (r.strings.length) return obj([['references', '[' + r.strings.map(q).join(',') + ']']]);
  const c = evalConstant(e.ast);
  if (c.diagnostics.some((d) => d.severity === 'error')) return '{}';
  return obj([['constant_value', valueJSON(c.value) ?? 'null']]);
}

function resourceConfigJSON(r: Resource, collect: RefInfo['resourceAttrs'], plan: Plan, prefix: string, mod: Module): string {
  const exprs: string[] = [];
  for (const a of [...r.config.attributes].sort((x, y) => compareBytes(x.name, y.name))) exprs.push(`${q(a.name)}:${expressionJSON(a.expr, collect)}`);
  const local = resourceProviderLocal(r);
  const fqn = providerFqn(mod, local.local);
  let version = 0;
  const p = plan.schemas.get(fqn);
  const s = p ? (r.mode === 'managed' ? p.resourceTypes[r.type] : p.dataSources[r.type]) : undefined;
  if (s) version = s.version;
  const f: [string, string | undefined][] = [
    ['address', q(resourceKey(r))],
    ['mode', q(r.mode)],
    ['type', q(r.type)],
    ['name', q(r.name)],
    ['provider_config_key', q((prefix ? prefix + ':' : '') + local.local + (local.alias ? '.' + local.alias : ''))],
    ['expressions', exprs.length ? '{' + exprs.join(',') + '}' : undefined],
    ['schema_version', String(version)],
    ['count_expression', r.count ? expressionJSON(r.count, collect) : undefined],
    ['for_each_expression', r.forEach ? expressionJSON(r.forEach, collect) : undefined],
  ];
  if (r.dependsOn) {
    const refs = exprRefs(r.dependsOn).strings.filter((_, i, a) => a.indexOf(_) === i);
    if (refs.length) f.push(['depends_on', '[' + refsOf(r.dependsOn).map((x) => q([x.root, ...x.steps.map((s) => ('name' in s ? s.name : ''))].filter(Boolean).join('.'))).join(',') + ']']);
  }
  return obj(f);
}

function moduleConfigJSON(mod: Module, plan: Plan, collect: RefInfo['resourceAttrs'], providers: Map<string, string>, prefix: string): string {
  const f: [string, string | undefined][] = [];
  if (mod.outputs.size) {
    const parts: string[] = [];
    for (const name of [...mod.outputs.keys()].sort(compareBytes)) {
      const o = mod.outputs.get(name)!;
      parts.push(
        `${q(name)}:${obj([
          ['sensitive', o.sensitive ? 'true' : undefined],
          ['expression', o.value ? expressionJSON(o.value, prefix ? [] : collect) : '{}'],
          ['description', o.description ? q(o.description) : undefined],
        ])}`,
      );
    }
    f.push(['outputs', '{' + parts.join(',') + '}']);
  }
  const managed = mod.resources.filter((r) => r.mode === 'managed');
  const data = mod.resources.filter((r) => r.mode === 'data');
  const all = [...managed, ...data];
  for (const r of all) {
    const local = resourceProviderLocal(r);
    const key = (prefix ? prefix + ':' : '') + local.local;
    if (!providers.has(key)) providers.set(key, obj([['name', q(local.local)], ['full_name', q(providerFqn(mod, local.local))], ['module_address', prefix ? q(prefix) : undefined]]));
  }
  if (all.length) f.push(['resources', '[' + all.map((r) => resourceConfigJSON(r, prefix ? [] : collect, plan, prefix, mod)).join(',') + ']']);
  if (mod.moduleCalls.size) {
    const parts: string[] = [];
    for (const name of [...mod.moduleCalls.keys()].sort(compareBytes)) {
      const call = mod.moduleCalls.get(name)!;
      const child = call.module;
      const exprs: string[] = [];
      for (const k of [...call.arguments.keys()].sort(compareBytes)) exprs.push(`${q(k)}:${expressionJSON(call.arguments.get(k)!, [])}`);
      parts.push(
        `${q(name)}:${obj([
          ['source', call.source !== undefined ? q(call.source) : undefined],
          ['expressions', exprs.length ? '{' + exprs.join(',') + '}' : undefined],
          ['module', child ? moduleConfigJSON(child, plan, [], providers, (prefix ? prefix + '.' : '') + 'module.' + name) : '{}'],
        ])}`,
      );
    }
    f.push(['module_calls', '{' + parts.join(',') + '}']);
  }
  if (mod.variables.size) {
    const parts: string[] = [];
    for (const name of [...mod.variables.keys()].sort(compareBytes)) {
      const v = mod.variables.get(name)! as unknown as { default?: Expression; description?: string; sensitive?: boolean };
      let def: string | undefined;
      if (v.default) {
        const c = evalConstant(v.default.ast);
        def = valueJSON(c.value) ?? 'null';
      }
      parts.push(`${q(name)}:${obj([['default', def], ['description', v.description ? q(v.description) : undefined], ['sensitive', v.sensitive ? 'true' : undefined]])}`);
    }
    f.push(['variables', '{' + parts.join(',') + '}']);
  }
  return obj(f);
}

function configurationJSON(plan: Plan, config: Module, collect: RefInfo['resourceAttrs']): string {
  const providers = new Map<string, string>();
  const root = moduleConfigJSON(config, plan, collect, providers, '');
  const pc = [...providers.entries()].sort((a, b) => compareBytes(a[0], b[0])).map(([k, v]) => `${q(k)}:${v}`);
  return obj([
    ['provider_config', pc.length ? '{' + pc.join(',') + '}' : undefined],
    ['root_module', root],
  ]);
}

/** `terraform show -json PLANFILE`. */
export function marshalPlan(plan: Plan, config: Module): string {
  const f: [string, string | undefined][] = [];
  f.push(['format_version', q('1.2')]);
  f.push(['terraform_version', q('1.11.4')]);
  if (plan.variableValues.size) {
    const parts = [...plan.variableValues.keys()].sort(compareBytes).map((k) => `${q(k)}:${obj([['value', valueJSON(plan.variableValues.get(k)!) ?? 'null']])}`);
    f.push(['variables', '{' + parts.join(',') + '}']);
  }
  f.push(['planned_values', plannedValues(plan)]);
  const drift = plan.driftedResources.filter((d) => d.action !== 'NoOp');
  if (drift.length) f.push(['resource_drift', '[' + drift.map((d) => resourceChangeJSON(d)).join(',') + ']']);
  if (plan.changes.length) f.push(['resource_changes', '[' + plan.changes.map((c) => resourceChangeJSON(c)).join(',') + ']']);
  const outs = plan.outputs.filter((o) => !o.module);
  if (outs.length) {
    const parts = [...outs]
      .sort((a, b) => compareBytes(a.name, b.name))
      .map((o) => {
        const after = valueJSON(o.after);
        return `${q(o.name)}:${obj([
          ['actions', '[' + actionJSON(o.action).map(q).join(',') + ']'],
          ['before', valueJSON(o.before) ?? 'null'],
          ['after', after],
          ['after_unknown', o.after.isKnown ? 'false' : 'true'],
          ['before_sensitive', o.sensitive ? 'true' : 'false'],
          ['after_sensitive', o.sensitive ? 'true' : 'false'],
        ])}`;
      });
    f.push(['output_changes', '{' + parts.join(',') + '}']);
  }
  if (!plan.priorState.empty()) f.push(['prior_state', marshalState({ terraformVersion: '1.11.4', state: plan.priorState }, builtinSchemas)]);
  const collect: RefInfo['resourceAttrs'] = [];
  f.push(['configuration', configurationJSON(plan, config, collect)]);
  const seen = new Set<string>();
  const rel: string[] = [];
  const sortedAttrs = [...collect].sort((x, y) => compareBytes(x.resource, y.resource) || compareBytes(x.attribute.join(','), y.attribute.join(',')));
  for (const r of sortedAttrs) {
    const t = obj([['resource', q(r.resource)], ['attribute', '[' + r.attribute.join(',') + ']']]);
    if (seen.has(t)) continue;
    seen.add(t);
    rel.push(t);
  }
  if (rel.length) f.push(['relevant_attributes', '[' + rel.join(',') + ']']);
  f.push(['timestamp', q(plan.timestamp)]);
  f.push(['applyable', plan.applyable ? 'true' : 'false']);
  f.push(['complete', plan.complete ? 'true' : 'false']);
  f.push(['errored', plan.errored ? 'true' : 'false']);
  return obj(f);
}
