// Evaluation of a loaded module tree (model.ts) as Terraform's evaluator sees it before any state exists:
// a ModuleData (lang/scope.ts) per module instance that feeds references to the expression engine.
//
// Contract:
//   new ModuleEvaluator(mod, inputs, ctx)  one module instance. `inputs` are the final values of its input
//        variables (root: finalizeRootVariables; children: computed here from the call's arguments).
//        - var.x       the final value, marked sensitive when the variable is sensitive;
//        - local.x     evaluated lazily once; a reference cycle yields an unknown (checks.ts reports cycles);
//        - module.x    the call's outputs as an object; with count a tuple, with
//                      for_each an object by key; an unknown when the child is not loaded or the
//                      repetition cannot be decided;
//        - resources   declared resources and data sources are unknown values of dynamic type (no state and
//                      no provider schemas yet), as `terraform console` shows "(known after apply)";
//        - path.module / path.root relative to the working directory ("." for the root), path.cwd absolute;
//        - terraform.workspace from TF_WORKSPACE or <data dir>/environment, else "default".
//   evaluateAll()   forces every local, output, module call and validation rule (Terraform's eval walk), so
//        that `diagnostics` holds every evaluation problem once.
//   countValue / forEachValue   Terraform's count and for_each rules and messages ("Invalid count argument").
// User problems are diagnostics in `diagnostics` (shared by the whole tree); lookups never throw.

import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Diagnostic, Range } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type { Expr } from '../lang/ast';
import { convert } from '../lang/convert';
import { evaluate } from '../lang/eval';
import { refsOf } from './checks';
import type { FuncContext } from '../lang/funcs/function';
import { ModuleScope, type ModuleData } from '../lang/scope';
import * as T from '../lang/types';
import { Value } from '../lang/value';
import type { Expression as HclExpression } from './hclbody';
import type { Module, ModuleCall, Resource } from './model';
import { resourceKey, resourceLookup } from './model';
import { expressionValues, finalizeVariable, validateVariable, variableType, type InputValue } from './variables';

export interface EvalSettings {
  /** Terraform's working directory (absolute): path.cwd, and what path.module is relative to. */
  cwd: string;
  workspace: string;
  /** True for the console, whose functions include type(). */
  console?: boolean;
}

/** The selected workspace: TF_WORKSPACE, else the data directory's `environment` file, else "default". */
export function currentWorkspace(cwd: string, env: Readonly<Record<string, string | undefined>>): string {
  if (env.TF_WORKSPACE) return env.TF_WORKSPACE;
  const dataDir = env.TF_DATA_DIR || '.terraform';
  try {
    const s = readFileSync(resolve(cwd, dataDir, 'environment'), 'utf8').trim();
    if (s) return s;
  } catch {
    // no environment file: the default workspace
  }
  return 'default';
}

/** One module instance's final input variable values, with the ranges validation failures point at. */
export interface VariableInputs {
  values: Map<string, Value>;
  valueRanges: Map<string, Range>;
}

/** Finalises root variable values (parsed by variables.ts) against their declarations. */
export function finalizeRootVariables(mod: Module, inputs: ReadonlyMap<string, InputValue>): { inputs: VariableInputs; diagnostics: Diagnostic[] } {
  const values = new Map<string, Value>();
  const valueRanges = new Map<string, Range>();
  const diagnostics: Diagnostic[] = [];
  for (const v of mod.variables.values()) {
    const input = inputs.get(v.name);
    const r = finalizeVariable(v, input);
    diagnostics.push(...r.diagnostics);
    values.set(v.name, r.value);
    valueRanges.set(v.name, input?.range ?? v.declRange);
  }
  return { inputs: { values, valueRanges }, diagnostics };
}

type Instance = { countIndex?: Value; each?: { key: Value; value: Value } };

export class ModuleEvaluator implements ModuleData {
  readonly pathModule: string;
  readonly pathRoot = '.';
  readonly pathCwd: string;
  readonly workspace: string;
  readonly moduleDescription: string;
  readonly funcCtx: FuncContext;
  private readonly locals = new Map<string, Value>();
  private readonly evaluatingLocals = new Set<string>();
  private readonly modules = new Map<string, Value>();
  private readonly evaluatingModules = new Set<string>();
  private outputsValue?: Value;
  private validated = false;

  constructor(
    readonly mod: Module,
    readonly inputs: VariableInputs,
    readonly settings: EvalSettings,
    /** Where every evaluation problem of the tree goes. */
    readonly diagnostics: Diagnostic[] = [],
    /** Instance address ("" for the root, "module.a[0]"). */
    readonly addr = '',
  ) {
    const rel = relative(settings.cwd, mod.dir);
    this.pathModule = rel === '' ? '.' : rel;
    this.pathCwd = settings.cwd;
    this.workspace = settings.workspace;
    this.moduleDescription = addr === '' ? 'in the root module' : `in ${addr}`;
    const baseDir = settings.cwd === process.cwd() ? this.pathModule : join(settings.cwd, this.pathModule);
    this.funcCtx = { baseDir, planning: true, console: !!settings.console };
  }

  /** The Scope for expressions of this module (optionally inside a counted or for_each instance). */
  scope(instance: Instance = {}): ModuleScope {
    if (!instance.countIndex && !instance.each) return new ModuleScope(this, this.funcCtx);
    const data: ModuleData = {
      variable: (n) => this.variable(n),
      local: (n) => this.local(n),
      module: (n) => this.module(n),
      resource: (m, t, n) => this.resource(m, t, n),
      countIndex: instance.countIndex,
      each: instance.each,
      pathModule: this.pathModule,
      pathRoot: this.pathRoot,
      pathCwd: this.pathCwd,
      workspace: this.workspace,
      moduleDescription: this.moduleDescription,
    };
    return new ModuleScope(data, this.funcCtx);
  }

  private eval(e: Expr, instance?: Instance): Value {
    const r = evaluate(e, this.scope(instance));
    this.diagnostics.push(...r.diagnostics);
    return r.value;
  }

  variable(name: string): Value | undefined {
    const v = this.mod.variables.get(name);
    if (!v) return undefined;
    const val = this.inputs.values.get(name) ?? Value.unknown();
    return v.sensitive ? val.mark('sensitive') : val;
  }

  local(name: string): Value | undefined {
    const l = this.mod.locals.get(name);
    if (!l) return undefined;
    const cached = this.locals.get(name);
    if (cached) return cached;
    if (this.evaluatingLocals.has(name)) return Value.unknown();
    this.evaluatingLocals.add(name);
    try {
      const v = this.eval(l.expr.ast);
      this.locals.set(name, v);
      return v;
    } finally {
      this.evaluatingLocals.delete(name);
    }
  }

  resource(mode: 'managed' | 'data' | 'ephemeral', type: string, name: string): Value | undefined {
    if (mode === 'ephemeral') return undefined;
    return resourceLookup(this.mod).all.has(resourceKey({ mode, type, name })) ? Value.unknown() : undefined;
  }

  module(name: string): Value | undefined {
    const call = this.mod.moduleCalls.get(name);
    if (!call) return undefined;
    const cached = this.modules.get(name);
    if (cached) return cached;
    if (this.evaluatingModules.has(name)) return Value.unknown();
    this.evaluatingModules.add(name);
    try {
      const v = this.callValue(call);
      this.modules.set(name, v);
      return v;
    } finally {
      this.evaluatingModules.delete(name);
    }
  }

  /** The value of module.<name>: outputs of each instance. */
  private callValue(call: ModuleCall): Value {
    const base = `${this.addr ? this.addr + '.' : ''}module.${call.name}`;
    if (call.count) {
      const n = countValue(this.eval(call.count.ast), call.count.ast.range);
      this.diagnostics.push(...n.diagnostics);
      if (n.count === undefined) return Value.unknown();
      const elems: Value[] = [];
      for (let i = 0; i < n.count; i++) elems.push(this.instanceValue(call, `${base}[${i}]`, { countIndex: Value.number(i) }));
      return Value.tuple(elems);
    }
    if (call.forEach) {
      const fe = forEachValue(this.eval(call.forEach.ast), call.forEach.ast.range);
      this.diagnostics.push(...fe.diagnostics);
      if (!fe.entries) return Value.unknown();
      const attrs = new Map<string, Value>();
      for (const [k, v] of fe.entries)
        attrs.set(k, this.instanceValue(call, `${base}[${JSON.stringify(k)}]`, { each: { key: Value.string(k), value: v } }));
      return Value.object(attrs);
    }
    return this.instanceValue(call, base, {});
  }

  /** Evaluates one instance of a module call: its arguments here, then its outputs in the child. */
  private instanceValue(call: ModuleCall, addr: string, instance: Instance): Value {
    const child = this.childEvaluator(call, addr, instance);
    return child ? child.outputs() : Value.unknown();
  }

  private childEvaluator(call: ModuleCall, addr: string, instance: Instance): ModuleEvaluator | undefined {
    const mod = call.module;
    if (!mod) return undefined;
    const values = new Map<string, Value>();
    const valueRanges = new Map<string, Range>();
    for (const v of mod.variables.values()) {
      const arg = call.arguments.get(v.name);
      let input: InputValue | undefined;
      if (arg) input = { value: this.eval(arg.ast, instance), source: 'config', range: arg.range };
      const r = finalizeVariable(v, input, `${addr}.var.${v.name}`);
      this.diagnostics.push(...r.diagnostics);
      values.set(v.name, r.value);
      valueRanges.set(v.name, arg?.range ?? v.declRange);
    }
    const child = new ModuleEvaluator(mod, { values, valueRanges }, this.settings, this.diagnostics, addr);
    child.validateVariables();
    return child;
  }

  /** The object of this instance's output values (sensitive outputs marked). */
  outputs(): Value {
    if (this.outputsValue) return this.outputsValue;
    const attrs = new Map<string, Value>();
    for (const o of this.mod.outputs.values()) {
      // Terraform's console shows a child's sensitive outputs unmarked (the marks stay on values that were
      // already sensitive, such as sensitive variables).
      attrs.set(o.name, o.value ? this.eval(o.value.ast) : Value.null());
    }
    this.outputsValue = Value.object(attrs);
    return this.outputsValue;
  }

  /** Runs the validation rules of this instance's input variables (once). */
  validateVariables(): void {
    if (this.validated) return;
    this.validated = true;
    const scope = this.scope();
    for (const v of this.mod.variables.values()) {
      if (v.validations.length === 0) continue;
      this.diagnostics.push(...validateVariable(v, scope, this.inputs.valueRanges.get(v.name) ?? v.declRange));
    }
  }

  /** Terraform's eval walk: every validation, local, module call and output, once. */
  evaluateAll(): void {
    this.validateVariables();
    for (const name of this.mod.locals.keys()) this.local(name);
    for (const name of this.mod.moduleCalls.keys()) this.module(name);
    this.outputs();
  }
}

// ---- count and for_each -------------------------------------------------------------------------------

/** Terraform's count rules: a known, non-null, whole, non-negative number. */
export function countValue(v: Value, range: Range, opts: { allowUnknown?: boolean } = {}): { count?: number; diagnostics: Diagnostic[] } {
  const bad = (detail: string) => ({ diagnostics: [error('Invalid count argument', detail, range)] });
  if (!v.isKnown) {
    if (opts.allowUnknown) return { diagnostics: [] };
    return bad(
      'The "count" value depends on resource attributes that cannot be determined until apply, so Terraform cannot predict how many instances will be created. To work around this, use the -target argument to first apply only the resources that the count depends on.',
    );
  }
  const [u] = v.unmark();
  if (u.isNull) return bad('The given "count" argument value is null. An integer is required.');
  const c = convert(u, T.Number);
  if (c.error !== undefined) return bad(`The given "count" argument value is unsuitable: ${c.error}.`);
  if (!c.value.isKnown) {
    if (opts.allowUnknown) return { diagnostics: [] };
    return bad('The "count" value depends on resource attributes that cannot be determined until apply, so Terraform cannot predict how many instances will be created. To work around this, use the -target argument to first apply only the resources that the count depends on.');
  }
  const s = c.value.num.toString();
  if (!/^-?\d+$/.test(s)) return bad('The given "count" argument value is unsuitable: value must be a whole number, between -9223372036854775808 and 9223372036854775807.');
  const n = Number(s);
  if (n < 0) return bad('The given "count" argument value is unsuitable: must be greater than or equal to zero.');
  return { count: n, diagnostics: [] };
}

/** Terraform's for_each rules: a map, object, or set of strings, known and not sensitive. */
export function forEachValue(
  v: Value,
  range: Range,
  opts: { allowUnknown?: boolean } = {},
): { entries?: Map<string, Value>; diagnostics: Diagnostic[] } {
  const bad = (summary: string, detail: string) => ({ diagnostics: [error(summary, detail, range)] });
  if (v.isSensitive) {
    return bad(
      'Invalid for_each argument',
      `Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. If used, the sensitive value could be exposed as a resource instance key.`,
    );
  }
  const ty = v.type;
  if (!v.isKnown) {
    if (opts.allowUnknown) return { diagnostics: [] };
    const isSet = ty.kind === 'set';
    return bad(
      'Invalid for_each argument',
      isSet
        ? 'The "for_each" set includes values derived from resource attributes that cannot be determined until apply, and so Terraform cannot determine the full set of keys that will identify the instances of this resource.\n\nWhen working with unknown values in for_each, it\'s better to use a map value where the keys are defined statically in your configuration and where only the values contain apply-time results.\n\nAlternatively, you could use the -target planning option to first apply only the resources that the for_each value depends on, and then apply a second time to fully converge.'
        : 'The "for_each" map includes keys derived from resource attributes that cannot be determined until apply, and so Terraform cannot determine the full set of keys that will identify the instances of this resource.\n\nWhen working with unknown values in for_each, it\'s better to define the map keys statically in your configuration and place apply-time results only in the map values.\n\nAlternatively, you could use the -target planning option to first apply only the resources that the for_each value depends on, and then apply a second time to fully converge.',
    );
  }
  if (v.isNull) return bad('Invalid for_each argument', 'The given "for_each" argument value is unsuitable: the given "for_each" argument value is null. A map, or set of strings is allowed.');
  if (ty.kind === 'map' || ty.kind === 'object') return { entries: new Map(v.entries), diagnostics: [] };
  if (ty.kind === 'set') {
    // Terraform treats a set with any unknown element as wholly unknown, before it looks at the element type:
    // toset([unknown]) is accepted at validate and fails at plan as an unknown set.
    if (!v.isWhollyKnown) {
      if (opts.allowUnknown) return { diagnostics: [] };
      return forEachValue(Value.unknown(ty), range, opts);
    }
    if (ty.elem.kind !== 'string') {
      if (ty.elem.kind === 'dynamic' && v.length === 0) return { entries: new Map(), diagnostics: [] };
      return bad(
        'Invalid for_each set argument',
        `The given "for_each" argument value is unsuitable: "for_each" supports maps and sets of strings, but you have provided a set containing type ${T.friendlyName(ty.elem)}.`,
      );
    }
    const entries = new Map<string, Value>();
    for (const e of v.elems) {
      if (!e.isKnown) {
        if (opts.allowUnknown) return { diagnostics: [] };
        return forEachValue(Value.unknown(ty), range, opts);
      }
      if (e.isNull) return bad('Invalid for_each set argument', 'The given "for_each" argument value is unsuitable: "for_each" sets must not contain null values.');
      entries.set(e.str, e);
    }
    return { entries, diagnostics: [] };
  }
  return bad(
    'Invalid for_each argument',
    `The given "for_each" argument value is unsuitable: the "for_each" argument must be a map, or set of strings, and you have provided a value of type ${T.friendlyName(ty)}.`,
  );
}

// ---- validate: static count / for_each checks -----------------------------------------------------------

/**
 * checkRepetition's results by expression: `key` is RepetitionDeps's, `env` the repetitionEnv number it was
 * last found valid under (while that is unchanged, so is everything the expression can read).
 */
const repetitionCache = new WeakMap<HclExpression, { key: string; env: number; diags: Diagnostic[] }>();
const objectIds = new WeakMap<object, number>();
let lastObjectId = 0;
function objectId(o: object): number {
  let id = objectIds.get(o);
  if (id === undefined) objectIds.set(o, (id = ++lastObjectId));
  return id;
}

/** Functions whose result depends on more than their arguments (files on disk): never cached. */
const IMPURE = /file|template/;

/**
 * What a count / for_each expression reads in checkRepetition: input variables (their declarations' type
 * expressions and sensitivity) and local values (their expressions, transitively), identified by object, and
 * path.* and terraform.* (constant for a module). `key` is undefined when the expression reads anything else
 * (resources, modules, count, each, functions reading files): such results are not cached.
 */
class RepetitionDeps {
  private readonly localKeys = new Map<string, string | undefined | null>(); // null: being computed (a cycle)
  constructor(
    private readonly mod: Module,
    private readonly base: string,
  ) {}

  key(e: HclExpression): string | undefined {
    const k = this.exprKey(e);
    return k === undefined ? undefined : `${this.base}\u0000${k}`;
  }

  private exprKey(e: HclExpression): string | undefined {
    if (IMPURE.test(e.text)) return undefined;
    let out = `e${objectId(e)}`;
    for (const t of refsOf(e)) {
      const first = t.steps[0];
      const name = first && first.kind === 'attr' ? first.name : undefined;
      switch (t.root) {
        case 'path':
        case 'terraform':
          continue;
        case 'var': {
          if (name === undefined) return undefined;
          const v = this.mod.variables.get(name);
          if (!v) return undefined;
          out += `,v${name}:${v.typeExpr ? objectId(v.typeExpr) : 'd'}${v.sensitive ? 's' : ''}`;
          continue;
        }
        case 'local': {
          if (name === undefined) return undefined;
          const k = this.local(name);
          if (k === undefined) return undefined;
          out += `,l${name}:${k}`;
          continue;
        }
        default:
          return undefined;
      }
    }
    return out;
  }

  private local(name: string): string | undefined {
    if (this.localKeys.has(name)) {
      const k = this.localKeys.get(name);
      return k === null ? 'cycle' : k;
    }
    const l = this.mod.locals.get(name);
    if (!l) return undefined;
    this.localKeys.set(name, null);
    const k = this.exprKey(l.expr);
    this.localKeys.set(name, k === undefined ? undefined : `(${k})`);
    return k === undefined ? undefined : `(${k})`;
  }
}


/**
 * What `terraform validate` reports about count and for_each arguments: every input variable is unknown
 * (of its type), resources are unknown, so only values that are known and invalid are errors (a negative
 * or fractional count, a for_each that is not a map or set of strings, null). Runs over the loaded children.
 */
export function checkRepetition(mod: Module, cwd: string): Diagnostic[] {
  const diags: Diagnostic[] = [];
  const walk = (m: Module, addr: string) => {
    // The evaluator is needed only for expressions whose result is not cached.
    let scope: ReturnType<ModuleEvaluator['scope']> | undefined;
    const scopeOf = (): ReturnType<ModuleEvaluator['scope']> => {
      if (scope) return scope;
      const values = new Map<string, Value>();
      for (const v of m.variables.values()) values.set(v.name, Value.unknown(variableType(v)));
      const sink: Diagnostic[] = [];
      const ev = new ModuleEvaluator(m, { values, valueRanges: new Map() }, { cwd, workspace: 'default' }, sink, addr);
      return (scope = ev.scope());
    };
    const base = `${cwd}\u0000${addr}`;
    const deps = new RepetitionDeps(m, base);
    const env = repetitionEnv(m, `${base}\u0000${m.dir}`);
    /** The cached diagnostics of `e` when still valid (pushed), else false. */
    const cached = (e: HclExpression): boolean => {
      // The result depends only on the expression and what it reads (see RepetitionDeps): reused while
      // those are the same objects (files unchanged since the last analysis), or while every variable and
      // local value of the module reads as before (repetitionEnv).
      const c = repetitionCache.get(e);
      if (c && c.env !== env) {
        const key = deps.key(e);
        if (key === undefined || c.key !== key) return false;
        c.env = env;
      }
      if (!c) return false;
      for (const d of c.diags) diags.push(d);
      return true;
    };
    /** Whether every result since it was last set was cached or stored for reuse (RepetitionRun). */
    let reusable = true;
    const store = (e: HclExpression, out: Diagnostic[]) => {
      const key = deps.key(e);
      if (key !== undefined) repetitionCache.set(e, { key, env, diags: out });
      else reusable = false;
      for (const d of out) diags.push(d);
    };
    // Diagnostics use the source expression's range (HCL's, which includes a template's quotes).
    const each = (it: { count?: HclExpression; forEach?: HclExpression }) => {
      const count = it.count;
      if (count && !cached(count)) {
        const out: Diagnostic[] = [];
        const r = evaluate(count.ast, scopeOf());
        // Reference problems are checks.ts's.
        if (!r.diagnostics.length) {
          const v = r.value;
          const c = v.isKnown && !v.isNull && v.unmark()[0].type.kind !== 'number' ? convert(v.unmark()[0], T.Number) : undefined;
          if (c?.error !== undefined) out.push(error('Incorrect value type', `Invalid expression value: ${c.error}.`, count.range));
          else out.push(...countValue(v, count.range, { allowUnknown: true }).diagnostics);
        }
        store(count, out);
      }
      const forEach = it.forEach;
      if (forEach && !cached(forEach)) {
        const out: Diagnostic[] = [];
        const r = evaluate(forEach.ast, scopeOf());
        if (!r.diagnostics.length) {
          const fe = forEachValue(r.value, forEach.range, { allowUnknown: true });
          for (const d of fe.diagnostics) {
            const values = expressionValues(forEach.ast, scopeOf());
            out.push(values.length ? { ...d, values } : d);
          }
        }
        store(forEach, out);
      }
    };
    // Resources by position (RepetitionRun): one unchanged since the previous check of this module instance, under
    // the same variables and locals, has the results it had then, taken without reading the resource or looking up
    // its expressions. The previous run's arrays are reused in place, and taken out of the map until this completes.
    const at = `${base}\u0000${m.dir}`;
    const prev = repetitionRuns.get(at);
    repetitionRuns.delete(at);
    const same = prev && prev.env === env ? prev : undefined;
    const rs = m.resources;
    const run: RepetitionRun = prev && prev.diags.length === rs.length ? prev : { env, resources: rs, diags: new Array(rs.length) };
    for (let k = 0; k < rs.length; k++) {
      const r = rs[k];
      const known = same !== undefined && same.resources[k] === r ? same.diags[k] : undefined;
      if (known !== undefined) {
        for (let i = 0; i < known.length; i++) diags.push(known[i]);
        run.diags[k] = known;
        continue;
      }
      const from = diags.length;
      reusable = true;
      each(r);
      run.diags[k] = reusable ? (diags.length > from ? diags.slice(from) : NO_DIAGNOSTICS) : undefined;
    }
    run.env = env;
    run.resources = rs;
    if (repetitionRuns.size >= 64) repetitionRuns.clear();
    repetitionRuns.set(at, run);
    for (const c of m.moduleCalls.values()) each(c);
    for (const c of m.moduleCalls.values()) if (c.module) walk(c.module, `${addr ? addr + '.' : ''}module.${c.name}`);
  };
  walk(mod, '');
  return diags.sort((a, b) => (a.subject!.filename === b.subject!.filename ? a.subject!.start.byte - b.subject!.start.byte : a.subject!.filename < b.subject!.filename ? -1 : 1));
}

/**
 * A number for what a cacheable count / for_each expression can read in checkRepetition (RepetitionDeps): the
 * module's variables (name, type constraint text, sensitivity) and local values (name, expression text), as
 * the previous check of the same module instance saw them, compared item by item. Texts, not objects: an edit
 * elsewhere in a file re-creates its declarations, and their values read the same.
 */
function repetitionEnv(m: Module, at: string): number {
  const last = repetitionEnvs.get(at);
  if (last && sameEnv(last, m)) return last.id;
  const items: string[] = [];
  const objs: object[] = [];
  for (const v of m.variables.values()) {
    items.push(v.name, v.typeExpr?.text ?? '', v.sensitive ? 's' : '');
    objs.push(v);
  }
  for (const l of m.locals.values()) {
    items.push(l.name, l.expr.text);
    objs.push(l);
  }
  if (!last && repetitionEnvs.size >= 64) repetitionEnvs.clear();
  const id = ++lastRepetitionEnv;
  repetitionEnvs.set(at, { id, items, objs });
  return id;
}

/**
 * Whether `env.items` (repetitionEnv's list) describes the module's variables and locals, compared in place. A
 * declaration that is the object the items were taken from is not read (an edit re-creates only its file's).
 */
function sameEnv(env: RepetitionEnv, m: Module): boolean {
  const items = env.items;
  if (items.length !== 3 * m.variables.size + 2 * m.locals.size) return false;
  let i = 0;
  let k = 0;
  for (const v of m.variables.values()) {
    if (env.objs[k] !== v) {
      if (items[i] !== v.name || items[i + 1] !== (v.typeExpr?.text ?? '') || items[i + 2] !== (v.sensitive ? 's' : '')) return false;
      env.objs[k] = v;
    }
    i += 3;
    k++;
  }
  for (const l of m.locals.values()) {
    if (env.objs[k] !== l) {
      if (items[i] !== l.name || items[i + 1] !== l.expr.text) return false;
      env.objs[k] = l;
    }
    i += 2;
    k++;
  }
  return true;
}
interface RepetitionEnv {
  id: number;
  items: string[];
  /** The declaration each part of `items` was last found to describe (a Variable or a Local), by position. */
  objs: object[];
}
const repetitionEnvs = new Map<string, RepetitionEnv>();

/**
 * checkRepetition's results for a module instance's resources by position, as its previous check left them: the
 * Resource objects and each one's diagnostics (undefined: not reusable, it reads something repetitionEnv does not
 * cover), valid while the repetitionEnv number `env` is unchanged. At 5,000 resources the per-expression cache
 * lookups this saves were about 3 ms of each edit's analysis.
 */
interface RepetitionRun {
  env: number;
  resources: readonly Resource[];
  diags: (readonly Diagnostic[] | undefined)[];
}
const repetitionRuns = new Map<string, RepetitionRun>();
const NO_DIAGNOSTICS: readonly Diagnostic[] = [];
let lastRepetitionEnv = 0;
