// A Scope (eval.ts) for a module instance, with Terraform's reference rules (addrs.ParseRef) and its
// "undeclared" diagnostics. The data behind references comes from a ModuleData, which the configuration
// layer implements; with the default (empty) data this is the console's scope for a directory without
// configuration.

import type { Diagnostic, Range } from '../diags/diagnostic';
import { NONE, type Traversal, type TraverseStep } from './ast';
import { nameSuggestion } from './call';
import type { Scope } from './eval';
import type { FuncContext } from './funcs/function';
import * as T from './types';
import { Value } from './value';

/**
 * Lookups return the value, undefined when the object is not declared (ModuleScope then reports Terraform's
 * "Reference to undeclared ..." error), or a Diagnostic of their own (reported as is, with the reference's
 * range filled in when it has no subject).
 */
export interface ModuleData {
  variable?(name: string): Lookup;
  local?(name: string): Lookup;
  module?(name: string): Lookup;
  resource?(mode: 'managed' | 'data' | 'ephemeral', type: string, name: string): Lookup;
  /** count.index when evaluating inside a counted block. */
  countIndex?: Value;
  /** each.key / each.value inside a for_each block. */
  each?: { key: Value; value: Value };
  self?: Value;
  pathModule?: string;
  pathRoot?: string;
  pathCwd?: string;
  workspace?: string;
  /** "in the root module" or `in module "x"` phrasing. */
  moduleDescription?: string;
  /** Declared names, for "Did you mean" suggestions in undeclared-reference errors. */
  names?: { variables?: string[]; locals?: string[]; modules?: string[] };
}

export type Lookup = Value | Diagnostic | undefined;

function isDiag(x: Lookup): x is Diagnostic {
  return x !== undefined && !(x instanceof Value);
}

/**
 * A parsed reference: the root subject (HCL applies the traversal's remaining steps to its value, which the
 * evaluation context resolved here holds).
 */
export type Ref =
  | { kind: 'var' | 'local' | 'module'; name: string; range: Range }
  | { kind: 'resource'; mode: 'managed' | 'data' | 'ephemeral'; type: string; name: string; range: Range }
  | { kind: 'count' | 'each' | 'path' | 'terraform'; attr: string; range: Range }
  | { kind: 'self'; range: Range };

function err(summary: string, detail: string, subject: Range): Diagnostic {
  return { severity: 'error', summary, detail, subject, source: 'eval' };
}

function attrName(st: TraverseStep | undefined): string | undefined {
  if (!st) return undefined;
  if (st.kind === 'attr') return st.name;
  if (st.key.type.kind === 'string' && st.key.isKnown && !st.key.isNull) return st.key.str;
  return undefined;
}

/**
 * parseRef's references of the traversals it accepts, made once per traversal object: an AST never changes once parsed,
 * and an expression is resolved once per instance of its block. A traversal parseRef rejects is parsed again each
 * time, so each report has its own diagnostic.
 */
const parsedRefs = new WeakMap<Traversal, Ref>();

/** Terraform's addrs.ParseRef. */
export function parseRef(t: Traversal): { ref?: Ref; diagnostics: Diagnostic[] } {
  const root = t.root;
  const steps = t.steps;
  const bad = (summary: string, detail: string): { diagnostics: Diagnostic[] } => ({ diagnostics: [err(summary, detail, t.range)] });
  const simple = (kind: 'var' | 'local' | 'module', what: string) => {
    const n = attrName(steps[0]);
    if (n === undefined) {
      return bad('Invalid reference', `The "${what}" object cannot be accessed directly. Instead, access one of its attributes.`);
    }
    return { ref: { kind, name: n, range: t.range } as Ref, diagnostics: NONE };
  };
  switch (root) {
    case 'var':
      return simple('var', 'var');
    case 'local':
      return simple('local', 'local');
    case 'module': {
      const n = attrName(steps[0]);
      if (n === undefined) return bad('Invalid reference', 'The "module" object cannot be accessed directly. Instead, access one of its attributes.');
      return { ref: { kind: 'module', name: n, range: t.range }, diagnostics: NONE };
    }
    case 'count': {
      const n = attrName(steps[0]);
      if (n === undefined) return bad('Invalid reference', 'The "count" object cannot be accessed directly. Instead, access one of its attributes.');
      if (n !== 'index') {
        return bad(
          'Invalid "count" attribute',
          `The "count" object does not have an attribute named ${JSON.stringify(n)}. The only supported attribute is count.index, which is the index of each instance of a resource block that has the "count" argument set.`,
        );
      }
      return { ref: { kind: 'count', attr: n, range: t.range }, diagnostics: NONE };
    }
    case 'each': {
      const n = attrName(steps[0]);
      if (n === undefined) return bad('Invalid reference', 'The "each" object cannot be accessed directly. Instead, access one of its attributes.');
      if (n !== 'key' && n !== 'value') {
        return bad(
          'Invalid "each" attribute',
          `The "each" object does not have an attribute named ${JSON.stringify(n)}. The supported attributes are each.key and each.value, the current key and value pair of the "for_each" attribute set.`,
        );
      }
      return { ref: { kind: 'each', attr: n, range: t.range }, diagnostics: NONE };
    }
    case 'path': {
      const n = attrName(steps[0]);
      if (n === undefined) return bad('Invalid reference', 'The "path" object cannot be accessed directly. Instead, access one of its attributes.');
      if (n !== 'module' && n !== 'root' && n !== 'cwd') {
        return bad(
          'Invalid "path" attribute',
          `The "path" object does not have an attribute named ${JSON.stringify(n)}.`,
        );
      }
      return { ref: { kind: 'path', attr: n, range: t.range }, diagnostics: NONE };
    }
    case 'terraform': {
      const n = attrName(steps[0]);
      if (n === undefined) return bad('Invalid reference', 'The "terraform" object cannot be accessed directly. Instead, access one of its attributes.');
      if (n !== 'workspace' && n !== 'applying') {
        return bad(
          'Invalid "terraform" attribute',
          `The "terraform" object does not have an attribute named ${JSON.stringify(n)}. The only supported attributes are terraform.workspace, the name of the currently-selected workspace, and terraform.applying, a boolean which is true only during apply.`,
        );
      }
      return { ref: { kind: 'terraform', attr: n, range: t.range }, diagnostics: NONE };
    }
    case 'self':
      return { ref: { kind: 'self', range: t.range }, diagnostics: NONE };
    case 'data':
    case 'ephemeral': {
      const ty = attrName(steps[0]);
      const nm = attrName(steps[1]);
      if (ty === undefined || nm === undefined) {
        return bad('Invalid reference', `The "${root}" object must be followed by two attribute names: the ${root === 'data' ? 'data source' : 'ephemeral resource'} type and the resource name.`);
      }
      return { ref: { kind: 'resource', mode: root === 'data' ? 'data' : 'ephemeral', type: ty, name: nm, range: t.range }, diagnostics: NONE };
    }
    case 'resource': {
      const ty = attrName(steps[0]);
      const nm = attrName(steps[1]);
      if (ty === undefined || nm === undefined) {
        return bad('Invalid reference', 'The "resource" object must be followed by two attribute names: the resource type and the resource name.');
      }
      return { ref: { kind: 'resource', mode: 'managed', type: ty, name: nm, range: t.range }, diagnostics: NONE };
    }
    default: {
      const nm = attrName(steps[0]);
      if (nm === undefined) {
        return bad('Invalid reference', 'A reference to a resource type must be followed by at least one attribute access, specifying the resource name.');
      }
      return { ref: { kind: 'resource', mode: 'managed', type: root, name: nm, range: t.range }, diagnostics: NONE };
    }
  }
}

/** The Scope of one module instance over ModuleData. */
export class ModuleScope implements Scope {
  constructor(
    readonly data: ModuleData,
    readonly funcCtx: FuncContext,
  ) {}

  resolve(refs: readonly Traversal[]): { variables: Map<string, Value>; diagnostics: Diagnostic[] } {
    const diags: Diagnostic[] = [];
    const parsed: Ref[] = [];
    for (const t of refs) {
      const known = parsedRefs.get(t);
      if (known) {
        parsed.push(known);
        continue;
      }
      const r = parseRef(t);
      for (const x of r.diagnostics) diags.push(x);
      if (r.ref) {
        parsed.push(r.ref);
        if (r.diagnostics.length === 0) parsedRefs.set(t, r.ref);
      }
    }
    const variables = new Map<string, Value>();
    if (diags.length) return { variables, diagnostics: diags };
    const d = this.data;
    const where = d.moduleDescription ?? 'in the root module';
    // Made when first needed: this runs for every expression evaluated, and most read one or two kinds of object.
    let vars: Map<string, Value> | undefined;
    let locals: Map<string, Value> | undefined;
    let modules: Map<string, Value> | undefined;
    let resources: Map<string, Map<string, Map<string, Value>>> | undefined; // root name → type/name
    let special: Map<string, Map<string, Value>> | undefined;
    const setSpecial = (root: string, attr: string, v: Value) => {
      special ??= new Map();
      if (!special.has(root)) special.set(root, new Map());
      special.get(root)!.set(attr, v);
    };
    for (const r of parsed) {
      switch (r.kind) {
        case 'var': {
          const v = d.variable?.(r.name);
          if (isDiag(v)) diags.push({ ...v, subject: v.subject ?? r.range });
          else if (!v) {
            const sg = nameSuggestion(r.name, [...(d.names?.variables ?? [])].sort());
            const tail = sg ? ` Did you mean ${JSON.stringify(sg)}?` : ` This variable can be declared with a variable ${JSON.stringify(r.name)} {} block.`;
            diags.push(err('Reference to undeclared input variable', `An input variable with the name ${JSON.stringify(r.name)} has not been declared.${tail}`, r.range));
          } else (vars ??= new Map()).set(r.name, v);
          break;
        }
        case 'local': {
          const v = d.local?.(r.name);
          if (isDiag(v)) diags.push({ ...v, subject: v.subject ?? r.range });
          else if (!v) {
            const sg = nameSuggestion(r.name, [...(d.names?.locals ?? [])].sort());
            diags.push(err('Reference to undeclared local value', `A local value with the name ${JSON.stringify(r.name)} has not been declared.${sg ? ` Did you mean ${JSON.stringify(sg)}?` : ''}`, r.range));
          }
          else (locals ??= new Map()).set(r.name, v);
          break;
        }
        case 'module': {
          const v = d.module?.(r.name);
          if (isDiag(v)) diags.push({ ...v, subject: v.subject ?? r.range });
          else if (!v) {
            const sg = nameSuggestion(r.name, [...(d.names?.modules ?? [])].sort());
            diags.push(err('Reference to undeclared module', `No module call named ${JSON.stringify(r.name)} is declared ${where}.${sg ? ` Did you mean ${JSON.stringify(sg)}?` : ''}`, r.range));
          }
          else (modules ??= new Map()).set(r.name, v);
          break;
        }
        case 'resource': {
          const v = d.resource?.(r.mode, r.type, r.name);
          if (isDiag(v)) diags.push({ ...v, subject: v.subject ?? r.range });
          else if (!v) {
            const what = r.mode === 'managed' ? 'managed resource' : r.mode === 'data' ? 'data resource' : 'ephemeral resource';
            diags.push(err('Reference to undeclared resource', `A ${what} ${JSON.stringify(r.type)} ${JSON.stringify(r.name)} has not been declared ${where}.`, r.range));
          } else {
            const root = r.mode === 'managed' ? r.type : r.mode;
            const key = r.mode === 'managed' ? r.name : r.type;
            resources ??= new Map();
            if (!resources.has(root)) resources.set(root, new Map());
            const byKey = resources.get(root)!;
            if (r.mode === 'managed') {
              if (!byKey.has(key)) byKey.set(key, new Map());
              byKey.get(key)!.set('', v);
            } else {
              if (!byKey.has(key)) byKey.set(key, new Map());
              byKey.get(key)!.set(r.name, v);
            }
          }
          break;
        }
        case 'count':
          if (!d.countIndex) {
            diags.push(err('Reference to "count" in non-counted context', 'The "count" object can only be used in "module", "resource", and "data" blocks, and only when the "count" argument is set.', r.range));
          } else setSpecial('count', 'index', d.countIndex);
          break;
        case 'each':
          if (!d.each) {
            diags.push(err('Reference to "each" in context without for_each', 'The "each" object can be used only in "module" or "resource" blocks, and only when the "for_each" argument is set.', r.range));
          } else {
            setSpecial('each', 'key', d.each.key);
            setSpecial('each', 'value', d.each.value);
          }
          break;
        case 'self':
          if (!d.self) {
            diags.push(err('Invalid "self" reference', 'The "self" object is not available in this context. This object can be used only in resource provisioner, connection, and postcondition blocks.', r.range));
          } else variables.set('self', d.self);
          break;
        case 'path':
          setSpecial('path', r.attr, Value.string(r.attr === 'module' ? (d.pathModule ?? '.') : r.attr === 'root' ? (d.pathRoot ?? '.') : (d.pathCwd ?? process.cwd())));
          break;
        case 'terraform':
          if (r.attr === 'workspace') setSpecial('terraform', 'workspace', Value.string(d.workspace ?? 'default'));
          else setSpecial('terraform', 'applying', Value.bool(false).mark('ephemeral'));
          break;
      }
    }
    if (vars) variables.set('var', Value.object(vars));
    if (locals) variables.set('local', Value.object(locals));
    if (modules) variables.set('module', Value.object(modules));
    if (special) for (const [root, m] of special) variables.set(root, Value.object(m));
    if (resources) for (const [root, byKey] of resources) {
      const o = new Map<string, Value>();
      for (const [k, inner] of byKey) {
        if (inner.has('')) o.set(k, inner.get('')!);
        else o.set(k, Value.object(inner));
      }
      variables.set(root, Value.object(o));
    }
    void T;
    return { variables, diagnostics: diags };
  }
}
