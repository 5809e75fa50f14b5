// The machine-readable plan (`show -json PLANFILE`, Terraform's command/jsonplan and jsonconfig):
// format_version 1.2 with variables, planned_values, resource_drift, resource_changes, output_changes,
// prior_state, configuration, relevant_attributes, checks, timestamp and the applyable/complete/errored flags.
//
// Contract: returns one compact JSON line in Terraform's field order; values are cty JSON with unknown leaves
// left out of objects and null in sequences (after_unknown marks them), sensitive values in plaintext
// (before_sensitive/after_sensitive mark them).

import type { Expression } from '../config/hclbody';
import { jsonConstantValue } from '../config/json';
import type { Module, ModuleCall, Resource } from '../config/model';
import { refsOf } from '../config/checks';
import { evalConstant, variableType } from '../config/variables';
import { convert } from '../lang/convert';
import { goQuote } from '../lang/format';
import { compareBytes } from '../lang/types';
import type { Value } from '../lang/value';
import type { DriftedResource, Plan, ResourceInstanceChange } from '../plans/plan';
import { actionJSON, actionReasonJSON, providerTypeOf, schemaForChange } from '../plans/plan';
import { instanceAddrString, resourceKey, type InstanceAddr } from '../states/state';
import { providerFqn, resourceProviderLocal, staticPath } from '../engine/context';
import { builtinSchemas, checksJSON, ctyMarshal, ctyMarshalType, marshalState, sensitiveAsBoolJSON } from './jsonstate';

const q = (s: string) => JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
const obj = (fields: [string, string | undefined][]) => '{' + fields.filter((f) => f[1] !== undefined).map(([k, v]) => `${q(k)}:${v}`).join(',') + '}';
void goQuote;

/** cty JSON with unknowns omitted in objects and null in sequences; undefined for a wholly unknown value. */
function repetitionJSON(count: string | undefined, forEach: string | undefined): [string, string | undefined][] {
  const nonEmpty = (e: string | undefined) => (e === '{}' ? undefined : e);
  const c = nonEmpty(count);
  return [
    ['count_expression', c],
    ['for_each_expression', c === undefined ? nonEmpty(forEach) : undefined],
  ];
}

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
  // jsonplan: a wholly known planned object has an empty after_unknown; only a partly unknown one is mapped.
  if (v.isKnown && v.isNull) return '{}';
  if (v.unmarkDeep()[0].isWhollyKnown) return '{}';
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
        // marshalPlannedOutputs: the type and value of a wholly known planned value (sensitive ones too: the JSON
        // plan is not redacted), neither otherwise.
        const [u] = o.after.unmarkDeep();
        const known = u.isWhollyKnown;
        return `${q(o.name)}:${obj([
          ['sensitive', o.sensitive ? 'true' : 'false'],
          ['type', known ? ctyMarshalType(u.type) : undefined],
          ['value', known ? ctyMarshal(u) : undefined],
        ])}`;
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
    // Reference.ResourceAttr: any reference to a managed resource, a whole one included (an empty path).
    if (resource && !resource.startsWith('data.')) attrs.push({ resource, attribute: rest.map((s) => (s.kind === 'attr' ? q(s.name!) : typeof s.key === 'number' ? String(s.key) : q(String(s.key)))) });
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

function resourceConfigJSON(r: Resource, collect: RefInfo['resourceAttrs'], plan: Plan, providerKey: string, mod: Module): string {
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
    ['provider_config_key', q(providerKey)],
    ['expressions', exprs.length ? '{' + exprs.join(',') + '}' : undefined],
    ['schema_version', String(version)],
    // jsonconfig: an expression with neither a constant value nor references is omitted, and for_each is looked at
    // only when count is omitted.
    ...repetitionJSON(r.count ? expressionJSON(r.count, collect) : undefined, r.forEach ? expressionJSON(r.forEach, collect) : undefined),
  ];
  if (r.dependsOn) f.push(['depends_on', dependsOnJSON(r.dependsOn)]);
  return obj(f);
}

/** depends_on as jsonconfig gives it: each reference's subject; undefined when there is none. */
function dependsOnJSON(e: Expression): string | undefined {
  const refs = exprRefs(e).strings.filter((_, i, a) => a.indexOf(_) === i);
  if (!refs.length) return undefined;
  return '[' + refsOf(e).map((x) => q([x.root, ...x.steps.map((s) => ('name' in s ? s.name : ''))].filter(Boolean).join('.'))).join(',') + ']';
}

// relevant_attributes (Context.relevantResourceAttrsForPlan) come from the references of the resource instances and
// root outputs that have a change other than no-op; here, of the root module's resources and outputs. The sets are
// built once per plan (a lookup per resource over every change would be quadratic).
const changedRoot = new WeakMap<Plan, { resources: Set<string>; outputs: Set<string> }>();
function changedInRoot(plan: Plan): { resources: Set<string>; outputs: Set<string> } {
  let c = changedRoot.get(plan);
  if (!c) {
    c = { resources: new Set(), outputs: new Set() };
    for (const ch of plan.changes) if (ch.addr.module === '' && ch.action !== 'NoOp') c.resources.add(`${ch.addr.mode}\0${ch.addr.type}\0${ch.addr.name}`);
    for (const o of plan.outputs) if (!o.module && o.action !== 'NoOp') c.outputs.add(o.name);
    changedRoot.set(plan, c);
  }
  return c;
}
function resourceChanged(plan: Plan, r: Resource): boolean {
  return changedInRoot(plan).resources.has(`${r.mode}\0${r.type}\0${r.name}`);
}
function outputChanged(plan: Plan, name: string): boolean {
  return changedInRoot(plan).outputs.has(name);
}

/** The key of a provider configuration a parent module offers to a child (by name in the parent), if it has one. */
type InheritProvider = (name: string, fqn: string) => string | undefined;

/**
 * jsonconfig's provider configuration keys for one module: `module.a:name` for a configuration of its own (a
 * provider block, or a requirement nothing above it satisfies), else the key of the parent's configuration it
 * inherits (implicitly by the same name, or passed in the module call's `providers`), found by walking up as
 * findSourceProviderKey does; only configurations of their own are listed in provider_config.
 */
function moduleProviderKeys(mod: Module, prefix: string, inherit: InheritProvider | undefined, passed: ReadonlyMap<string, string>, providers: Map<string, string>): { key: (name: string) => string; inherit: InheritProvider } {
  const names = new Map<string, { base: string; alias?: string; block: boolean }>();
  const add = (base: string, alias: string | undefined, block: boolean) => {
    const n = alias ? `${base}.${alias}` : base;
    const had = names.get(n);
    names.set(n, { base, alias, block: block || !!had?.block });
  };
  for (const p of mod.providers) add(p.name, p.alias, true);
  for (const tb of mod.terraform) for (const rp of tb.requiredProviders) add(rp.name, undefined, false);
  for (const r of mod.resources) {
    const l = resourceProviderLocal(r);
    add(l.local, l.alias, false);
  }
  for (const c of passed.keys()) {
    const [base, alias] = c.split('.');
    add(base, alias, false);
  }
  const resolved = new Map<string, string>();
  for (const n of [...names.keys()].sort(compareBytes)) {
    const e = names.get(n)!;
    const fqn = providerFqn(mod, e.base);
    const own = (prefix ? prefix + ':' : '') + n;
    let parentKey: string | undefined;
    if (!e.block && inherit) {
      const inParent = passed.get(n) ?? (e.alias ? undefined : n);
      if (inParent !== undefined) parentKey = inherit(inParent, fqn);
    }
    resolved.set(n, parentKey ?? own);
    if (parentKey === undefined)
      providers.set(own, obj([['name', q(e.base)], ['full_name', q(fqn)], ['alias', e.alias ? q(e.alias) : undefined], ['module_address', prefix ? q(prefix) : undefined]]));
  }
  return {
    key: (n) => resolved.get(n) ?? (prefix ? prefix + ':' : '') + n,
    inherit: (n, fqn) => (resolved.has(n) && providerFqn(mod, names.get(n)!.base) === fqn ? resolved.get(n) : undefined),
  };
}

/** A module call's `providers` map: child name (with alias) -> parent name (with alias). */
function passedProviders(call: ModuleCall): Map<string, string> {
  const out = new Map<string, string>();
  const e = call.providers;
  if (e && e.shape === 'object') for (const it of e.items ?? []) out.set(it.key.text.trim(), it.value.text.trim());
  return out;
}

function moduleConfigJSON(
  mod: Module,
  plan: Plan,
  collect: RefInfo['resourceAttrs'],
  providers: Map<string, string>,
  prefix: string,
  inherit?: InheritProvider,
  passed: ReadonlyMap<string, string> = new Map(),
): string {
  const keys = moduleProviderKeys(mod, prefix, inherit, passed, providers);
  const f: [string, string | undefined][] = [];
  if (mod.outputs.size) {
    const parts: string[] = [];
    for (const name of [...mod.outputs.keys()].sort(compareBytes)) {
      const o = mod.outputs.get(name)!;
      parts.push(
        `${q(name)}:${obj([
          ['sensitive', o.sensitive ? 'true' : undefined],
          ['expression', o.value ? expressionJSON(o.value, prefix || !outputChanged(plan, name) ? [] : collect) : '{}'],
          ['description', o.description ? q(o.description) : undefined],
        ])}`,
      );
    }
    f.push(['outputs', '{' + parts.join(',') + '}']);
  }
  // marshalResources sorts each mode's resources by address; managed ones come first.
  const byAddress = (x: Resource, y: Resource) => compareBytes(resourceKey(x), resourceKey(y));
  const managed = mod.resources.filter((r) => r.mode === 'managed').sort(byAddress);
  const data = mod.resources.filter((r) => r.mode === 'data').sort(byAddress);
  const all = [...managed, ...data];
  const keyOf = (r: Resource) => {
    const l = resourceProviderLocal(r);
    return keys.key(l.alias ? `${l.local}.${l.alias}` : l.local);
  };
  if (all.length) f.push(['resources', '[' + all.map((r) => resourceConfigJSON(r, prefix || !resourceChanged(plan, r) ? [] : collect, plan, keyOf(r), mod)).join(',') + ']']);
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
          ...repetitionJSON(call.count ? expressionJSON(call.count, []) : undefined, call.forEach ? expressionJSON(call.forEach, []) : undefined),
          ['module', child ? moduleConfigJSON(child, plan, [], providers, (prefix ? prefix + '.' : '') + 'module.' + name, keys.inherit, passedProviders(call)) : '{}'],
          ['depends_on', call.dependsOn ? dependsOnJSON(call.dependsOn) : undefined],
        ])}`,
      );
    }
    f.push(['module_calls', '{' + parts.join(',') + '}']);
  }
  if (mod.variables.size) {
    const parts: string[] = [];
    for (const name of [...mod.variables.keys()].sort(compareBytes)) {
      const v = mod.variables.get(name)!;
      let def: string | undefined;
      if (v.default) {
        // As configs decodes it: converted to the type constraint, optional attributes' defaults applied.
        const c = evalConstant(v.default.ast!);
        const converted = c.diagnostics.some((d) => d.severity === 'error') ? undefined : convert(c.value, variableType(v));
        def = valueJSON(converted && converted.error === undefined ? converted.value : c.value) ?? 'null';
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

/**
 * The resource attributes the outputs of child module instances refer to: module outputs are never in state, so
 * every one is planned as created and its references count for relevant_attributes. Instances are those the plan
 * or the prior state holds resources in (and the modules above them).
 */
function moduleOutputAttrs(plan: Plan, config: Module): RefInfo['resourceAttrs'] {
  const paths = new Set<string>();
  const addPath = (p: string) => {
    // module.a["x"].module.b -> module.a["x"], module.a["x"].module.b
    const re = /(?:^|\.)module\.[A-Za-z0-9_-]+(?:\[(?:\d+|"(?:[^"\\]|\\.)*")\])?/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(p))) paths.add(p.slice(0, m.index + m[0].length));
  };
  for (const c of plan.changes) if (c.addr.module) addPath(c.addr.module);
  for (const [m] of plan.priorState.modules) if (m) addPath(m);
  const out: RefInfo['resourceAttrs'] = [];
  for (const p of [...paths].sort(compareBytes)) {
    let mod: Module | undefined = config;
    for (const name of staticPath(p).split('.').filter((x, i) => i % 2 === 1)) mod = mod?.moduleCalls.get(name)?.module;
    if (!mod) continue;
    for (const o of mod.outputs.values()) if (o.value) for (const ra of exprRefs(o.value).resourceAttrs) out.push({ resource: `${p}.${ra.resource}`, attribute: ra.attribute });
  }
  return out;
}

/** `terraform show -json PLANFILE`. */
export function marshalPlan(plan: Plan, config: Module): string {
  const f: [string, string | undefined][] = [];
  f.push(['format_version', q('1.2')]);
  f.push(['terraform_version', q('1.11.4')]);
  // marshalPlanVariables: the values the caller set, as given, then the declared defaults of the others.
  const vars = new Map<string, string>();
  for (const [k, v] of plan.setVariables ?? []) vars.set(k, ctyMarshal(v.unmarkDeep()[0]));
  for (const [k, v] of plan.variableValues) if (!vars.has(k) && (!plan.setVariables || config.variables.get(k)?.default)) vars.set(k, valueJSON(v) ?? 'null');
  if (vars.size) {
    const parts = [...vars.keys()].sort(compareBytes).map((k) => `${q(k)}:${obj([['value', vars.get(k)!]])}`);
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
          // false for a wholly known planned value, else unknownAsBool of it: true at its unknown parts, in its shape.
          ['after_unknown', ((u) => (u.isWhollyKnown ? 'false' : unknownJSON(u)))(o.after.unmarkDeep()[0])],
          ['before_sensitive', o.sensitive ? 'true' : 'false'],
          ['after_sensitive', o.sensitive ? 'true' : 'false'],
        ])}`;
      });
    f.push(['output_changes', '{' + parts.join(',') + '}']);
  }
  if (!plan.priorState.empty()) {
    // The plan's own check results are the top-level "checks"; its prior state carries none (Terraform's neither).
    const prior = plan.priorState.checkResults ? Object.assign(plan.priorState.deepCopy(), { checkResults: null }) : plan.priorState;
    f.push(['prior_state', marshalState({ terraformVersion: '1.11.4', state: prior }, builtinSchemas)]);
  }
  const collect: RefInfo['resourceAttrs'] = [];
  f.push(['configuration', configurationJSON(plan, config, collect)]);
  collect.push(...moduleOutputAttrs(plan, config));
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
  if (plan.checks && plan.checks.length) f.push(['checks', checksJSON(plan.checks)]);
  f.push(['timestamp', q(plan.timestamp)]);
  f.push(['applyable', plan.applyable ? 'true' : 'false']);
  f.push(['complete', plan.complete ? 'true' : 'false']);
  f.push(['errored', plan.errored ? 'true' : 'false']);
  return obj(f);
}
