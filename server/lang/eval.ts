// Evaluator of expression ASTs (ast.ts) with HCL's semantics as Terraform uses them.
//
// Contract:
//   evaluate(expr, scope)   Terraform's two phases: first every reference the expression reads is resolved
//                           through the Scope (which reports "Reference to undeclared ..." etc.); if that
//                           succeeds the expression is evaluated. Always returns a value (unknown on error)
//                           beside diagnostics.
//   evalExpr(expr, ctx)     the evaluator proper over an EvalContext (root names → values), for callers
//                           that build contexts themselves.
// Unknowns propagate (an operation on an unknown gives an unknown of the result type), marks propagate to
// results, and user errors are diagnostics with Terraform's summaries and details, never exceptions.

import type { Diagnostic, ExpressionValue, Range } from '../diags/diagnostic';
import type { Expr, Traversal, TraverseStep } from './ast';
import { callFunction } from './call';
import { convert, unify } from './convert';
import type { FuncContext } from './funcs/function';
import { Num } from './number';
import { references, traversalString } from './parse';
import { goFormatG10, goQuote } from './format';
import * as T from './types';
import type { Type } from './types';
import { NO_MARKS, unionMarks, Value } from './value';

/** What an expression can refer to. Implemented by the configuration (a module instance) and the console. */
export interface Scope {
  /**
   * Resolves the references an expression reads (Terraform's ParseRef + evaluator lookups) into the
   * evaluation context's variables (root name → value), reporting invalid or undeclared references.
   */
  resolve(refs: readonly Traversal[]): { variables: Map<string, Value>; diagnostics: Diagnostic[] };
  funcCtx: FuncContext;
}

/** A context's variables by root name: a Map, or a `for` iteration's one or two names (ForBindings). */
export interface Bindings {
  get(name: string): Value | undefined;
}

/**
 * The key and value variables of one iteration of a `for` expression, without a Map per iteration: with those, and
 * the object result's two maps made for every `for`, `for` expressions allocated 12 MB of the 584 MB the bench's
 * cold validate and evaluation of 5,000 resources (about 40,000 iterations) allocate.
 */
class ForBindings implements Bindings {
  constructor(
    private readonly keyName: string | undefined,
    private readonly key: Value,
    private readonly valName: string,
    private readonly val: Value,
  ) {}
  get(name: string): Value | undefined {
    // As Map.set in order: the value variable wins when both have the same name.
    return name === this.valName ? this.val : name === this.keyName ? this.key : undefined;
  }
}

export interface EvalContext {
  variables: Bindings;
  funcCtx: FuncContext;
  parent?: EvalContext;
  /** Set when type() was called (the console checks it is only used at the top level). */
  typeFnUsed?: { used: boolean };
}

type Result = { value: Value; diagnostics: Diagnostic[] };

function diag(summary: string, detail: string, subject: Range, context?: Range): Diagnostic {
  const d: Diagnostic = { severity: 'error', summary, detail, subject, source: 'eval' };
  if (context) d.context = context;
  return d;
}

const hasErr = (ds: readonly Diagnostic[]) => ds.some((d) => d.severity === 'error');

/** Resolves references through the scope, then evaluates. */
export function evaluate(expr: Expr, scope: Scope): Result {
  const refs = references(expr);
  const r = scope.resolve(refs);
  if (hasErr(r.diagnostics)) return { value: Value.unknown(), diagnostics: r.diagnostics };
  const ctx: EvalContext = { variables: r.variables, funcCtx: scope.funcCtx, typeFnUsed: { used: false } };
  const v = evalExpr(expr, ctx);
  return { value: v.value, diagnostics: r.diagnostics.length === 0 ? v.diagnostics : [...r.diagnostics, ...v.diagnostics] };
}

function lookupVar(ctx: EvalContext, name: string): Value | undefined {
  for (let c: EvalContext | undefined = ctx; c; c = c.parent) {
    const v = c.variables.get(name);
    if (v) return v;
  }
  return undefined;
}

const ANON = '\0anon';

/**
 * Evaluates an expression. Every error diagnostic produced gets the `values` section Terraform prints
 * under it ("var.x is "a""), computed from the innermost expression that reported it (or the operand or
 * argument HCL names for operator, condition and argument errors).
 */
export function evalExpr(e: Expr, ctx: EvalContext): Result {
  const r = evalNode(e, ctx);
  for (const d of r.diagnostics) {
    if (annotated.has(d)) continue;
    annotate(d, e, ctx);
  }
  return r;
}

const annotated = new WeakSet<Diagnostic>();

/** Attaches the expression-values section for `expr` evaluated in `ctx` to an error diagnostic. */
function annotate(d: Diagnostic, expr: Expr, ctx: EvalContext): Diagnostic {
  annotated.add(d);
  if (d.severity !== 'error' || !d.subject || d.values) return d;
  const vals = expressionValues(expr, ctx);
  if (vals.length) d.values = vals;
  return d;
}

/** Terraform's statements about the values of the traversals an expression reads (views/json/diagnostic.go). */
export function expressionValues(expr: Expr, ctx: EvalContext): ExpressionValue[] {
  const out: ExpressionValue[] = [];
  const seen = new Set<string>();
  for (const t of references(expr)) {
    // The longest prefix of the steps that applies without errors, found in one pass (linear in the steps).
    const root = t.steps.length > 0 ? lookupVar(ctx, t.root) : undefined;
    if (!root) continue;
    let k = 0;
    let cur = root;
    for (; k < t.steps.length; k++) {
      const st = t.steps[k];
      const r = st.kind === 'attr' ? getAttr(cur, st.name, st.range) : index(cur, st.key, st.range);
      if (hasErr(r.diagnostics)) break;
      cur = r.value;
    }
    const steps = t.steps.slice(0, k);
    while (steps.length > 0) {
      const r = { value: cur };
      const str = traversalString({ ...t, steps });
      if (seen.has(str)) break;
      const v = r.value;
      let statement: string | undefined;
      if (v.marks.has('sensitive')) statement = undefined;
      else if (!v.isKnown) statement = v.type.kind === 'dynamic' ? undefined : `is a ${T.friendlyName(v.type)}`;
      else statement = `is ${compactValueStr(v)}`;
      if (statement !== undefined) {
        out.push({ traversal: str, statement });
        seen.add(str);
      }
      break;
    }
  }
  return out.sort((a, b) => (a.traversal < b.traversal ? -1 : a.traversal > b.traversal ? 1 : 0));
}

/** Terraform's compactValueStr. */
function compactValueStr(v: Value): string {
  const ty = v.type;
  if (v.isNull) return 'null';
  switch (ty.kind) {
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'number':
      return goFormatG10(v.num);
    case 'string':
      return goQuote(v.str);
    case 'list':
    case 'set':
    case 'map':
    case 'tuple': {
      const n = v.length;
      if (n === 0) return `empty ${T.friendlyName(ty)}`;
      return n === 1 ? `${T.friendlyName(ty)} with 1 element` : `${T.friendlyName(ty)} with ${n} elements`;
    }
    case 'object': {
      const names = [...ty.attrs.keys()];
      if (names.length === 0) return 'object with no attributes';
      if (names.length === 1) return `object with 1 attribute ${goQuote(names[0])}`;
      return `object with ${names.length} attributes`;
    }
    default:
      return T.friendlyName(ty);
  }
}

function evalNode(e: Expr, ctx: EvalContext): Result {
  switch (e.kind) {
    case 'literal':
      return { value: e.value, diagnostics: [] };
    case 'paren':
      return evalExpr(e.expr, ctx);
    case 'templateWrap':
      return evalExpr(e.wrapped, ctx);
    case 'template':
      return evalTemplate(e, ctx);
    case 'templateJoin':
      return evalTemplateJoin(e, ctx);
    case 'scopeTraversal': {
      const root = lookupVar(ctx, e.traversal.root);
      if (!root) {
        return {
          value: Value.unknown(),
          diagnostics: [diag('Unknown variable', `There is no variable named ${JSON.stringify(e.traversal.root)}.`, e.traversal.rootRange)],
        };
      }
      return applySteps(root, e.traversal.steps, e.range);
    }
    case 'anonSymbol': {
      const v = lookupVar(ctx, ANON);
      return { value: v ?? Value.unknown(), diagnostics: [] };
    }
    case 'relTraversal': {
      const s = evalExpr(e.source, ctx);
      if (hasErr(s.diagnostics)) return { value: Value.unknown(), diagnostics: s.diagnostics };
      const r = applySteps(s.value, e.steps, e.range);
      return { value: r.value, diagnostics: [...s.diagnostics, ...r.diagnostics] };
    }
    case 'index': {
      const c = evalExpr(e.collection, ctx);
      const k = evalExpr(e.key, ctx);
      const ds = [...c.diagnostics, ...k.diagnostics];
      if (hasErr(ds)) return { value: Value.unknown(), diagnostics: ds };
      const r = index(c.value, k.value, e.bracketRange);
      return { value: r.value, diagnostics: [...ds, ...r.diagnostics] };
    }
    case 'splat':
      return evalSplat(e, ctx);
    case 'call': {
      if (e.name === 'type' && ctx.typeFnUsed) ctx.typeFnUsed.used = true;
      return callFunction(e, (a) => evalExpr(a, ctx), ctx.funcCtx, (d, a) => annotate(d, a, ctx));
    }
    case 'conditional':
      return evalConditional(e, ctx);
    case 'unary':
      return evalUnary(e, ctx);
    case 'binary':
      return evalBinary(e, ctx);
    case 'tuple': {
      const ds: Diagnostic[] = [];
      const vals: Value[] = [];
      for (const x of e.elems) {
        const r = evalExpr(x, ctx);
        ds.push(...r.diagnostics);
        vals.push(r.value);
      }
      return { value: Value.tuple(vals), diagnostics: ds };
    }
    case 'object':
      return evalObject(e, ctx);
    case 'for':
      return evalFor(e, ctx);
  }
}

// ---- traversal ---------------------------------------------------------------------------------------

function applySteps(v: Value, steps: readonly TraverseStep[], range: Range): Result {
  let cur = v;
  for (const st of steps) {
    const r = st.kind === 'attr' ? getAttr(cur, st.name, st.range) : index(cur, st.key, st.range);
    if (hasErr(r.diagnostics)) return { value: Value.unknown(), diagnostics: r.diagnostics };
    cur = r.value;
  }
  void range;
  return { value: cur, diagnostics: [] };
}

/** hcl.GetAttr. */
export function getAttr(v: Value, name: string, range: Range): Result {
  const fail = (s: string, d: string): Result => ({ value: Value.unknown(), diagnostics: [diag(s, d, range)] });
  const [u, marks] = v.unmark();
  if (u.isNull) return fail('Attempt to get attribute from null value', 'This value is null, so it does not have any attributes.');
  const ty = u.type;
  switch (ty.kind) {
    case 'dynamic':
      return { value: Value.unknown().markWith(marks), diagnostics: [] };
    case 'object': {
      const at = ty.attrs.get(name);
      if (!at) return fail('Unsupported attribute', `This object does not have an attribute named ${JSON.stringify(name)}.`);
      if (!u.isKnown) return { value: Value.unknown(at).markWith(marks), diagnostics: [] };
      return { value: u.entries.get(name)!.markWith(marks), diagnostics: [] };
    }
    case 'map': {
      if (!u.isKnown) return { value: Value.unknown(ty.elem).markWith(marks), diagnostics: [] };
      const x = u.entries.get(name);
      if (!x) return fail('Missing map element', `This map does not have an element with the key ${JSON.stringify(name)}.`);
      return { value: x.markWith(marks), diagnostics: [] };
    }
    case 'string':
    case 'number':
    case 'bool':
      return fail('Unsupported attribute', `Can't access attributes on a primitive-typed value (${ty.kind}).`);
    default:
      return fail('Unsupported attribute', 'This value does not have any attributes.');
  }
}

/** hcl.Index. */
export function index(coll: Value, key: Value, range: Range): Result {
  const fail = (s: string, d: string): Result => ({ value: Value.unknown(), diagnostics: [diag(s, d, range)] });
  const [c, cmarks] = coll.unmark();
  const [k, kmarks] = key.unmark();
  const marks = unionMarks(cmarks, kmarks);
  const ok = (v: Value): Result => ({ value: v.markWith(marks), diagnostics: [] });
  if (c.isNull) return fail('Attempt to index null value', 'This value is null, so it does not have any indices.');
  if (k.isNull) return fail('Invalid index', "Can't use a null value as an indexing key.");
  const ty = c.type;
  const notIdentify = 'The given key does not identify an element in this collection value';
  switch (ty.kind) {
    case 'dynamic':
      return ok(Value.unknown());
    case 'list':
    case 'tuple': {
      const kn = convert(k, T.Number);
      if (kn.error !== undefined) return fail('Invalid index', `${notIdentify}: ${kn.error}.`);
      const elemTypeAt = (i: number): Type => (ty.kind === 'list' ? ty.elem : (ty.elems[i] ?? T.Dynamic));
      if (!kn.value.isKnown) return ok(Value.unknown(ty.kind === 'list' ? ty.elem : T.Dynamic));
      const n = kn.value.num;
      // HCL's detailed reasons; note it explains an out-of-range index only when it equals the length.
      if (!n.isInteger()) return fail('Invalid index', `${notIdentify}: indexing a sequence requires a whole number, but the given index has a fractional part.`);
      if (n.sign() < 0) return fail('Invalid index', `${notIdentify}: a negative number is not a valid index for a sequence.`);
      const len = ty.kind === 'tuple' ? ty.elems.length : c.isKnown ? c.elems.length : undefined;
      if (len !== undefined && n.cmp(Num.from(len)) === 0) {
        return fail('Invalid index', `${notIdentify}: the given index is greater than or equal to the length of the collection.`);
      }
      const i = Number(n.toBigInt());
      if (!c.isKnown) return ok(Value.unknown(elemTypeAt(i)));
      if (i >= c.elems.length) return fail('Invalid index', `${notIdentify}.`);
      return ok(c.elems[i]);
    }
    case 'map': {
      const ks = convert(k, T.String);
      if (ks.error !== undefined) return fail('Invalid index', `${notIdentify}: ${ks.error}.`);
      if (!ks.value.isKnown || !c.isKnown) return ok(Value.unknown(ty.elem));
      const x = c.entries.get(ks.value.str);
      if (!x) return fail('Invalid index', `${notIdentify}.`);
      return ok(x);
    }
    case 'object': {
      if (k.type.kind === 'number') {
        return fail('Invalid index', `${notIdentify}. An object only supports looking up attributes by name, not by numeric index.`);
      }
      const ks = convert(k, T.String);
      if (ks.error !== undefined) return fail('Invalid index', `${notIdentify}: ${ks.error}.`);
      if (!ks.value.isKnown) return ok(Value.unknown());
      const at = ty.attrs.get(ks.value.str);
      if (!at) return fail('Invalid index', `${notIdentify}.`);
      if (!c.isKnown) return ok(Value.unknown(at));
      return ok(c.entries.get(ks.value.str)!);
    }
    case 'set':
      return fail(
        'Invalid index',
        "Elements of a set are identified only by their value and don't have any separate index or key to select with, so it's only possible to perform operations across all elements of the set.",
      );
    default:
      return fail('Invalid index', 'This value does not have any indices.');
  }
}

// ---- templates ----------------------------------------------------------------------------------------

function evalTemplate(e: Extract<Expr, { kind: 'template' }>, ctx: EvalContext): Result {
  const ds: Diagnostic[] = [];
  let s = '';
  let known = true;
  let marks = NO_MARKS;
  for (const p of e.parts) {
    const r = evalExpr(p, ctx);
    ds.push(...r.diagnostics);
    if (hasErr(r.diagnostics)) {
      known = false;
      continue;
    }
    const [v, m] = r.value.unmarkDeep();
    marks = unionMarks(marks, m);
    if (v.isNull) {
      ds.push(diag('Invalid template interpolation value', 'The expression result is null. Cannot include a null value in a string template.', p.range, e.range));
      continue;
    }
    if (!v.isKnown) {
      known = false;
      continue;
    }
    const c = convert(v, T.String);
    if (c.error !== undefined) {
      ds.push(diag('Invalid template interpolation value', `Cannot include the given value in a string template: ${c.error}.`, p.range, e.range));
      continue;
    }
    if (!c.value.isKnown) {
      known = false;
      continue;
    }
    s += c.value.str;
  }
  if (hasErr(ds)) return { value: Value.unknown(T.String), diagnostics: ds };
  const v = known ? Value.string(s) : Value.unknown(T.String, { notNull: true });
  return { value: v.markWith(marks), diagnostics: ds };
}

function evalTemplateJoin(e: Extract<Expr, { kind: 'templateJoin' }>, ctx: EvalContext): Result {
  const r = evalExpr(e.tuple, ctx);
  if (hasErr(r.diagnostics)) return { value: Value.unknown(T.String), diagnostics: r.diagnostics };
  const [tup, marks] = r.value.unmark();
  if (!tup.isKnown) return { value: Value.unknown(T.String).markWith(marks), diagnostics: [] };
  let s = '';
  let known = true;
  let ms = marks;
  for (const el of tup.elems) {
    const [v, m] = el.unmarkDeep();
    ms = unionMarks(ms, m);
    if (v.isNull) {
      return { value: Value.unknown(T.String), diagnostics: [diag('Invalid template interpolation value', 'An iteration result is null. Cannot include a null value in a string template.', e.range)] };
    }
    if (!v.isKnown) {
      known = false;
      continue;
    }
    const c = convert(v, T.String);
    if (c.error !== undefined) {
      return { value: Value.unknown(T.String), diagnostics: [diag('Invalid template interpolation value', `Cannot include one of the interpolation results into the string template: ${c.error}.`, e.range)] };
    }
    s += c.value.str;
  }
  return { value: (known ? Value.string(s) : Value.unknown(T.String)).markWith(ms), diagnostics: [] };
}

// ---- splat --------------------------------------------------------------------------------------------

function evalSplat(e: Extract<Expr, { kind: 'splat' }>, ctx: EvalContext): Result {
  const s = evalExpr(e.source, ctx);
  if (hasErr(s.diagnostics)) return { value: Value.unknown(), diagnostics: s.diagnostics };
  let src = s.value;
  const k0 = src.type.kind;
  // A non-sequence is treated as a one-element tuple (an empty one when null).
  const autoUpgrade = !(k0 === 'tuple' || k0 === 'list' || k0 === 'set');
  if (src.isNull) {
    if (autoUpgrade) return { value: Value.tuple([]).markWith(src.marks), diagnostics: [] };
    return {
      value: Value.unknown(),
      diagnostics: [
        annotate(
          diag('Splat of null value', 'Splat expressions (with the * symbol) cannot be applied to null sequences.', e.source.range, { filename: e.range.filename, start: e.source.range.start, end: e.markerRange.end }),
          e.source,
          ctx,
        ),
      ],
    };
  }
  if (k0 === 'dynamic') return { value: Value.unknown().markWith(src.marks), diagnostics: [] };
  let upgradedUnknown = false;
  if (autoUpgrade) {
    if (!src.isKnown && !src.refinements?.notNull) upgradedUnknown = true;
    src = Value.tuple([src.unmark()[0]]).markWith(src.marks);
  }
  const sty = src.type;
  const eachWith = (item: Value): Result => evalExpr(e.each, { variables: new Map([[ANON, item]]), funcCtx: ctx.funcCtx, parent: ctx, typeFnUsed: ctx.typeFnUsed });
  const resultType = (): Type => {
    if (sty.kind === 'list' || sty.kind === 'set') return T.List(eachWith(Value.unknown(sty.elem)).value.type);
    if (sty.kind === 'tuple') return T.Tuple(sty.elems.map((t) => eachWith(Value.unknown(t)).value.type));
    return T.Dynamic;
  };
  const [sv, marks] = src.unmark();
  if (!sv.isKnown) return { value: Value.unknown(resultType(), { notNull: true }).markWith(marks), diagnostics: [] };
  const ds: Diagnostic[] = [];
  const out: Value[] = [];
  let known = true;
  for (const el of sv.elems) {
    const r = eachWith(el);
    ds.push(...r.diagnostics);
    if (hasErr(r.diagnostics)) known = false;
    out.push(r.value);
  }
  if (upgradedUnknown) return { value: Value.unknown().markWith(marks), diagnostics: ds };
  if (!known) return { value: Value.unknown(resultType()).markWith(marks), diagnostics: ds };
  if (sty.kind === 'list' || sty.kind === 'set') {
    if (out.length === 0) {
      const rt = resultType();
      return { value: Value.list([], rt.kind === 'list' ? rt.elem : T.Dynamic).markWith(marks), diagnostics: ds };
    }
    if (!out.every((v) => T.typeEquals(v.type, out[0].type))) {
      ds.push(
        diag(
          'Invalid nested splat expressions',
          "The second level of splat expression produced elements of different types, so it isn't possible to construct a valid list to represent the top-level result.\n\nConsider using a for expression instead, to produce a tuple-typed result which can therefore have non-homogenous element types.",
          e.each.range,
          e.range,
        ),
      );
      return { value: Value.unknown(), diagnostics: ds };
    }
    return { value: Value.list(out, out[0].type).markWith(marks), diagnostics: ds };
  }
  return { value: Value.tuple(out).markWith(marks), diagnostics: ds };
}

// ---- conditional ----------------------------------------------------------------------------------------

function evalConditional(e: Extract<Expr, { kind: 'conditional' }>, ctx: EvalContext): Result {
  const t = evalExpr(e.trueExpr, ctx);
  const f = evalExpr(e.falseExpr, ctx);
  const c = evalExpr(e.cond, ctx);
  const ds: Diagnostic[] = [];
  const tErr = hasErr(t.diagnostics);
  const fErr = hasErr(f.diagnostics);
  let resultType: Type | undefined = unify([t.value.type, f.value.type]);
  if (!resultType) {
    ds.push(
      diag(
        'Inconsistent conditional result types',
        `The true and false result expressions must have consistent types. ${describeMismatch(t.value.type, f.value.type)}.`,
        { filename: e.range.filename, start: e.trueExpr.range.start, end: e.falseExpr.range.end },
        e.range,
      ),
    );
    resultType = T.Dynamic;
  }
  ds.push(...c.diagnostics);
  if (hasErr(ds)) return { value: Value.unknown(resultType), diagnostics: ds };
  const [cv, cmarks] = c.value.unmark();
  if (cv.isNull) {
    return { value: Value.unknown(resultType), diagnostics: [annotate(diag('Null condition', 'The condition value is null. Conditions must either be true or false.', e.cond.range, e.range), e.cond, ctx)] };
  }
  const cb = convert(cv, T.Bool);
  if (cb.error !== undefined) {
    return { value: Value.unknown(resultType), diagnostics: [annotate(diag('Incorrect condition type', 'The condition expression must be of type bool.', e.cond.range, e.range), e.cond, ctx)] };
  }
  if (!cb.value.isKnown) {
    if (tErr || fErr) return { value: Value.unknown(resultType), diagnostics: [...t.diagnostics, ...f.diagnostics] };
    return { value: Value.unknown(resultType).markWith(cmarks), diagnostics: [] };
  }
  const chosen = cb.value.bool ? t : f;
  const chosenExpr = cb.value.bool ? e.trueExpr : e.falseExpr;
  if (hasErr(chosen.diagnostics)) return { value: Value.unknown(resultType), diagnostics: chosen.diagnostics };
  const conv = convert(chosen.value, resultType);
  if (conv.error !== undefined) {
    return {
      value: Value.unknown(resultType),
      diagnostics: [diag('Inconsistent conditional result types', `The ${cb.value.bool ? 'true' : 'false'} result value has the wrong type: ${conv.error}.`, chosenExpr.range, e.range)],
    };
  }
  // Both branches' marks apply to the result, whichever is chosen (as HCL does).
  return { value: conv.value.markWith(cmarks).markWith(t.value.marks).markWith(f.value.marks), diagnostics: chosen.diagnostics };
}

/** HCL's explanation of why the two result types of a conditional do not unify. */
function describeMismatch(a: Type, b: Type): string {
  if (a.kind === 'object' && b.kind === 'object') {
    const an = [...a.attrs.keys()].sort(T.compareBytes);
    const bn = [...b.attrs.keys()].sort(T.compareBytes);
    for (const n of an) {
      const bt = b.attrs.get(n);
      if (!bt) return `The 'true' value includes object attribute ${JSON.stringify(n)}, which is absent in the 'false' value`;
      if (!T.typeEquals(a.attrs.get(n)!, bt)) return `Type mismatch for object attribute ${JSON.stringify(n)}: ${describeMismatch(a.attrs.get(n)!, bt)}`;
    }
    for (const n of bn) if (!a.attrs.has(n)) return `The 'false' value includes object attribute ${JSON.stringify(n)}, which is absent in the 'true' value`;
  } else if (a.kind === 'tuple' && b.kind === 'tuple') {
    if (a.elems.length !== b.elems.length) return `The 'true' tuple has length ${a.elems.length}, but the 'false' tuple has length ${b.elems.length}`;
    for (let i = 0; i < a.elems.length; i++) {
      if (!T.typeEquals(a.elems[i], b.elems[i])) return `Type mismatch for tuple element ${i}: ${describeMismatch(a.elems[i], b.elems[i])}`;
    }
  } else if (T.isCollection(a) && T.isCollection(b) && a.kind === b.kind) {
    const ae = a.elem;
    const be = b.elem;
    if ((ae.kind === 'object' && be.kind === 'object') || (ae.kind === 'tuple' && be.kind === 'tuple')) {
      return `Mismatched ${a.kind} element types: ${describeMismatch(ae, be)}`;
    }
  }
  const an = T.friendlyName(a);
  const bn = T.friendlyName(b);
  if (an === bn) return "At least one deeply-nested attribute or element is not compatible across both the 'true' and the 'false' value";
  return `The 'true' value is ${an}, but the 'false' value is ${bn}`;
}

// ---- operators ------------------------------------------------------------------------------------------

function opFailed(msg: string, range: Range, ctxRange?: Range): Result {
  return { value: Value.unknown(), diagnostics: [diag('Operation failed', `Error during operation: ${msg}.`, range, ctxRange)] };
}

function evalUnary(e: Extract<Expr, { kind: 'unary' }>, ctx: EvalContext): Result {
  const r = evalExpr(e.operand, ctx);
  if (hasErr(r.diagnostics)) return { value: Value.unknown(), diagnostics: r.diagnostics };
  const want = e.op === '-' ? T.Number : T.Bool;
  const c = convert(r.value, want);
  if (c.error !== undefined) {
    return { value: Value.unknown(want), diagnostics: [annotate(diag('Invalid operand', `Unsuitable value for unary operand: ${c.error}.`, e.operand.range, e.range), e.operand, ctx)] };
  }
  const [v, marks] = c.value.unmark();
  if (v.isNull) return opFailed('argument must not be null', e.range, e.range);
  if (!v.isKnown) return { value: Value.unknown(want).markWith(marks), diagnostics: [] };
  const out = e.op === '-' ? Value.number(v.num.neg()) : Value.bool(!v.bool);
  return { value: out.markWith(marks), diagnostics: [] };
}

function evalBinary(e: Extract<Expr, { kind: 'binary' }>, ctx: EvalContext): Result {
  const l = evalExpr(e.lhs, ctx);
  const r = evalExpr(e.rhs, ctx);
  const ds = [...l.diagnostics, ...r.diagnostics];
  const op = e.op;
  const isEq = op === '==' || op === '!=';
  const isLogic = op === '&&' || op === '||';
  const isCmp = op === '<' || op === '>' || op === '<=' || op === '>=';
  const retType = isEq || isLogic || isCmp ? T.Bool : T.Number;
  if (hasErr(ds)) return { value: Value.unknown(retType), diagnostics: ds };
  let lv = l.value;
  let rv = r.value;
  if (!isEq) {
    const want = isLogic ? T.Bool : T.Number;
    const lc = convert(lv, want);
    const rc = convert(rv, want);
    if (lc.error !== undefined) ds.push(annotate(diag('Invalid operand', `Unsuitable value for left operand: ${lc.error}.`, e.lhs.range, e.range), e.lhs, ctx));
    if (rc.error !== undefined) ds.push(annotate(diag('Invalid operand', `Unsuitable value for right operand: ${rc.error}.`, e.rhs.range, e.range), e.rhs, ctx));
    if (hasErr(ds)) return { value: Value.unknown(retType), diagnostics: ds };
    lv = lc.value!;
    rv = rc.value!;
  }
  const [a, am] = lv.unmark();
  const [b, bm] = rv.unmark();
  const marks = unionMarks(am, bm);
  const done = (v: Value): Result => ({ value: v.markWith(marks), diagnostics: [] });
  if (isEq) {
    const eq = equals(lv, rv);
    if (!eq.isKnown) return done(eq);
    const [eu, em] = eq.unmark();
    return { value: Value.bool(op === '==' ? eu.bool : !eu.bool).markWith(em).markWith(marks), diagnostics: [] };
  }
  if (a.isNull || b.isNull) return opFailed('argument must not be null', e.range, e.range);
  if (isLogic) {
    if (!a.isKnown || !b.isKnown) {
      if (op === '&&' && ((a.isKnown && !a.bool) || (b.isKnown && !b.bool))) return done(Value.bool(false));
      if (op === '||' && ((a.isKnown && a.bool) || (b.isKnown && b.bool))) return done(Value.bool(true));
      return done(Value.unknown(T.Bool));
    }
    return done(Value.bool(op === '&&' ? a.bool && b.bool : a.bool || b.bool));
  }
  if (!a.isKnown || !b.isKnown) return done(Value.unknown(retType));
  const x = a.num;
  const y = b.num;
  if (isCmp) {
    const c = x.cmp(y);
    return done(Value.bool(op === '<' ? c < 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : c >= 0));
  }
  switch (op) {
    case '+':
      if (x.isInf() && y.isInf() && x.sign() !== y.sign()) return opFailed("can't compute sum of opposing infinities", e.range, e.range);
      return done(Value.number(x.add(y)));
    case '-':
      if (x.isInf() && y.isInf() && x.sign() === y.sign()) return opFailed("can't subtract infinity from itself", e.range, e.range);
      return done(Value.number(x.sub(y)));
    case '*':
      if ((x.isInf() && y.sign() === 0) || (y.isInf() && x.sign() === 0)) return opFailed("can't multiply zero by infinity", e.range, e.range);
      return done(Value.number(x.mul(y)));
    case '/':
      if ((x.sign() === 0 && y.sign() === 0) || (x.isInf() && y.isInf())) {
        return opFailed("can't divide zero by zero or infinity by infinity", e.range, e.range);
      }
      if (y.sign() === 0) return done(Value.number(x.sign() >= 0 ? Num.POS_INF : Num.NEG_INF));
      return done(Value.number(x.div(y)));
    case '%':
      return done(Value.number(x.mod(y)));
  }
  return done(Value.unknown(retType));
}

/** cty's Equals: unknown when either side is (partially) unknown; false across different types. */
export function equals(a0: Value, b0: Value): Value {
  const [a, am] = a0.unmark();
  const [b, bm] = b0.unmark();
  let marks = unionMarks(am, bm);
  const out = (v: Value) => v.markWith(marks);
  if (!a.isKnown || !b.isKnown) return out(Value.unknown(T.Bool));
  if (a.isNull || b.isNull) {
    if (a.isNull && b.isNull) return out(Value.bool(true));
    return out(Value.bool(false));
  }
  if (a.type.kind === 'dynamic' || b.type.kind === 'dynamic') return out(Value.unknown(T.Bool));
  if (!T.typeEquals(a.type, b.type)) {
    // Numbers and other primitives compare only within the same type.
    return out(Value.bool(false));
  }
  switch (a.type.kind) {
    case 'string':
      return out(Value.bool(a.str === b.str));
    case 'number':
      return out(Value.bool(a.num.equals(b.num)));
    case 'bool':
      return out(Value.bool(a.bool === b.bool));
    case 'list':
    case 'tuple':
    case 'set': {
      if (a.elems.length !== b.elems.length) return out(Value.bool(false));
      let unknown = false;
      for (let i = 0; i < a.elems.length; i++) {
        const r = equals(a.elems[i], b.elems[i]);
        marks = unionMarks(marks, r.marks);
        if (!r.isKnown) unknown = true;
        else if (!r.unmark()[0].bool) return out(Value.bool(false));
      }
      return out(unknown ? Value.unknown(T.Bool) : Value.bool(true));
    }
    case 'map':
    case 'object': {
      if (a.entries.size !== b.entries.size) return out(Value.bool(false));
      let unknown = false;
      for (const [k, v] of a.entries) {
        const w = b.entries.get(k);
        if (!w) return out(Value.bool(false));
        const r = equals(v, w);
        marks = unionMarks(marks, r.marks);
        if (!r.isKnown) unknown = true;
        else if (!r.unmark()[0].bool) return out(Value.bool(false));
      }
      return out(unknown ? Value.unknown(T.Bool) : Value.bool(true));
    }
    case 'typeval':
      return out(Value.bool(T.typeEquals(a.typeValue, b.typeValue)));
  }
  return out(Value.bool(false));
}

// ---- constructors -------------------------------------------------------------------------------------

function evalObject(e: Extract<Expr, { kind: 'object' }>, ctx: EvalContext): Result {
  const ds: Diagnostic[] = [];
  const m = new Map<string, Value>();
  let marks = NO_MARKS;
  let known = true;
  for (const it of e.items) {
    let key: string | undefined;
    if (it.keyIsIdent && it.key.kind === 'scopeTraversal') key = it.key.traversal.root;
    else if (it.key.kind === 'scopeTraversal' && it.key.traversal.steps.length > 0) {
      // A bare dotted name is ambiguous: a reference, or a name containing periods?
      ds.push(
        diag(
          'Ambiguous attribute key',
          "If this expression is intended to be a reference, wrap it in parentheses. If it's instead intended as a literal name containing periods, wrap it in quotes to create a string literal.",
          it.key.range,
        ),
      );
      known = false;
    } else {
      const kr = evalExpr(it.key, ctx);
      ds.push(...kr.diagnostics);
      if (hasErr(kr.diagnostics)) known = false;
      else {
        const [kv, km] = kr.value.unmark();
        if (kv.isNull) {
          // HCL points this error at the value expression.
          ds.push(annotate(diag('Null value as key', "Can't use a null value as a key.", it.value.range), it.key, ctx));
          known = false;
        } else {
          marks = unionMarks(marks, km);
          const c = convert(kv, T.String);
          if (c.error !== undefined) {
            ds.push(annotate(diag('Incorrect key type', `Can't use this value as a key: ${c.error}.`, it.key.range), it.key, ctx));
            known = false;
          } else if (!c.value.isKnown) known = false;
          else key = c.value.str;
        }
      }
    }
    const vr = evalExpr(it.value, ctx);
    ds.push(...vr.diagnostics);
    if (key !== undefined) m.set(key, vr.value);
  }
  if (!known) return { value: Value.unknown(), diagnostics: ds };
  return { value: Value.object(m).markWith(marks), diagnostics: ds };
}

function evalFor(e: Extract<Expr, { kind: 'for' }>, ctx: EvalContext): Result {
  const cr = evalExpr(e.collection, ctx);
  const ds: Diagnostic[] = [...cr.diagnostics];
  if (hasErr(cr.diagnostics)) return { value: Value.unknown(), diagnostics: ds };
  if (cr.value.isNull) {
    ds.push(annotate(diag('Iteration over null value', "A null value cannot be used as the collection in a 'for' expression.", e.collection.range, e.range), e.collection, ctx));
    return { value: Value.unknown(), diagnostics: ds };
  }
  if (cr.value.type.kind === 'dynamic') return { value: Value.unknown().markWith(cr.value.marks), diagnostics: ds };
  const [coll, cmarks] = cr.value.unmark();
  let marks = cmarks;
  const k = coll.type.kind;
  if (!['list', 'set', 'tuple', 'map', 'object'].includes(k)) {
    ds.push(
      annotate(
        diag('Iteration over non-iterable value', `A value of type ${T.friendlyName(coll.type)} cannot be used as the collection in a 'for' expression.`, e.collection.range, e.range),
        e.collection,
        ctx,
      ),
    );
    return { value: Value.unknown(), diagnostics: ds };
  }
  const child = (kv: Value, vv: Value): EvalContext => ({ variables: new ForBindings(e.keyVar, kv, e.valVar, vv), funcCtx: ctx.funcCtx, parent: ctx, typeFnUsed: ctx.typeFnUsed });
  // An early check of the condition with unknown iteration values catches wrongly-typed conditions once.
  if (e.cond) {
    const cc = child(Value.unknown(), Value.unknown());
    const c = evalExpr(e.cond, cc);
    ds.push(...c.diagnostics);
    if (c.value.isNull) {
      ds.push(annotate(diag('Condition is null', "The value of the 'if' clause must not be null.", e.cond.range, e.range), e.cond, ctx));
      return { value: Value.unknown(), diagnostics: ds };
    }
    marks = unionMarks(marks, c.value.marks);
    const cb = convert(c.value, T.Bool);
    if (cb.error !== undefined) {
      ds.push(annotate(diag("Invalid 'for' condition", `The 'if' clause value is invalid: ${cb.error}.`, e.cond.range, e.range), e.cond, ctx));
      return { value: Value.unknown(), diagnostics: ds };
    }
    if (hasErr(c.diagnostics)) return { value: Value.unknown(), diagnostics: ds };
  }
  if (!coll.isKnown) return { value: Value.unknown().markWith(marks), diagnostics: ds };
  const pairs: [Value, Value][] = [];
  if (k === 'map' || k === 'object') {
    for (const key of [...coll.entries.keys()].sort(T.compareBytes)) pairs.push([Value.string(key), coll.entries.get(key)!]);
  } else if (k === 'set') {
    for (const v of coll.elems) pairs.push([v, v]);
  } else {
    coll.elems.forEach((v, i) => pairs.push([Value.number(i), v]));
  }
  const isObject = e.keyExpr !== undefined;
  const tupleOut: Value[] = [];
  // An object result's maps, made only for a `for` that builds an object (most build a tuple).
  let objOut: Map<string, Value> | undefined;
  let groups: Map<string, Value[]> | undefined;
  let known = true;
  for (const [kv, vv] of pairs) {
    const inner = child(kv, vv);
    if (e.cond) {
      const c = evalExpr(e.cond, inner);
      ds.push(...c.diagnostics);
      if (c.value.isNull) {
        if (known) ds.push(annotate(diag("Invalid 'for' condition", "The value of the 'if' clause must not be null.", e.cond.range, e.range), e.cond, inner));
        known = false;
        continue;
      }
      const [cv, cm] = c.value.unmark();
      marks = unionMarks(marks, cm);
      if (!isObject && !cv.isKnown) {
        known = false;
        continue;
      }
      const cb = convert(cv, T.Bool);
      if (cb.error !== undefined) {
        if (known) ds.push(annotate(diag("Invalid 'for' condition", `The 'if' clause value is invalid: ${cb.error}.`, e.cond.range, e.range), e.cond, inner));
        known = false;
        continue;
      }
      if (!cb.value.isKnown) {
        known = false;
        continue;
      }
      if (!cb.value.bool) continue;
    }
    if (isObject) {
      const kr = evalExpr(e.keyExpr!, inner);
      ds.push(...kr.diagnostics);
      if (kr.value.isNull) {
        if (known) ds.push(annotate(diag('Invalid object key', "Key expression in 'for' expression must not produce a null value.", e.keyExpr!.range, e.range), e.keyExpr!, inner));
        known = false;
        continue;
      }
      const [key, km] = kr.value.unmark();
      marks = unionMarks(marks, km);
      if (!key.isKnown) {
        known = false;
        continue;
      }
      const ks = convert(key, T.String);
      if (ks.error !== undefined) {
        if (known) ds.push(annotate(diag('Invalid object key', `The key expression produced an invalid result: ${ks.error}.`, e.keyExpr!.range, e.range), e.keyExpr!, inner));
        known = false;
        continue;
      }
      const vr = evalExpr(e.valExpr, inner);
      ds.push(...vr.diagnostics);
      const name = ks.value.str;
      if (e.group) {
        const g = (groups ??= new Map()).get(name);
        if (g) g.push(vr.value);
        else groups.set(name, [vr.value]);
      } else if ((objOut ??= new Map()).has(name)) {
        ds.push(
          annotate(
            diag(
              'Duplicate object key',
              `Two different items produced the key ${JSON.stringify(name)} in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key.`,
              e.keyExpr!.range,
              e.range,
            ),
            e.keyExpr!,
            inner,
          ),
        );
      } else objOut.set(name, vr.value);
    } else {
      const vr = evalExpr(e.valExpr, inner);
      ds.push(...vr.diagnostics);
      tupleOut.push(vr.value);
    }
  }
  if (!known || hasErr(ds)) return { value: Value.unknown().markWith(marks), diagnostics: ds };
  if (!isObject) return { value: Value.tuple(tupleOut).markWith(marks), diagnostics: ds };
  if (e.group) {
    const m = new Map<string, Value>();
    for (const [k2, vs] of groups ?? []) m.set(k2, Value.tuple(vs));
    return { value: Value.object(m).markWith(marks), diagnostics: ds };
  }
  return { value: Value.object(objOut ?? new Map()).markWith(marks), diagnostics: ds };
}

/** True when the value holds a type() result anywhere. */
export function containsTypeVal(v: Value): boolean {
  if (v.type.kind === 'typeval') return true;
  if (!v.isKnown || v.isNull) return false;
  const k = v.type.kind;
  if (k === 'list' || k === 'set' || k === 'tuple') return v.elems.some(containsTypeVal);
  if (k === 'map' || k === 'object') return [...v.entries.values()].some(containsTypeVal);
  return false;
}
