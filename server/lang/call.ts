// Function-call machinery (HCL FunctionCallExpr + cty function.Call): name lookup, arity, `...` expansion,
// argument conversion, null/unknown/mark handling, and Terraform's diagnostics for each failure.
//
// Contract: callFunction evaluates a `call` node through the `evalArg` callback (so eval.ts stays the only
// evaluator) and never throws for user errors. try() and can() receive their arguments unevaluated.

import type { Diagnostic, Range } from '../diags/diagnostic';
import type { Expr } from './ast';
import { convert } from './convert';
import { FuncArgError, FuncError, type FuncContext, type FuncSpec, type Param } from './funcs/function';
import { lookupFunction, functionNames } from './funcs/registry';
import * as T from './types';
import type { Type } from './types';
import { NO_MARKS, unionMarks, Value } from './value';

type CallExpr = Extract<Expr, { kind: 'call' }>;
export type EvalFn = (e: Expr) => { value: Value; diagnostics: Diagnostic[] };

function diag(summary: string, detail: string, subject: Range, context?: Range): Diagnostic {
  const d: Diagnostic = { severity: 'error', summary, detail, subject, source: 'eval' };
  if (context) d.context = context;
  return d;
}

/** HCL's StartRange of a call: the name through the opening parenthesis (the subject of call errors). */
function startRange(e: CallExpr): Range {
  return { filename: e.nameRange.filename, start: e.nameRange.start, end: e.openParenRange.end };
}

/** HCL's Range.String(): "file:1,2-5" or "file:1,2-3,4". */
export function rangeString(r: Range): string {
  if (r.start.line === r.end.line) return `${r.filename}:${r.start.line},${r.start.column}-${r.end.column}`;
  return `${r.filename}:${r.start.line},${r.start.column}-${r.end.line},${r.end.column}`;
}

/** Levenshtein distance, for "Did you mean" suggestions. */
function distance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  const d: number[] = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= n; j++) {
      const tmp = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[n];
}

export function nameSuggestion(given: string, names: readonly string[]): string | undefined {
  for (const n of names) if (distance(given, n) < 3) return n;
  return undefined;
}

/** `annotate(d, argExpr)` lets the evaluator attach expression values for argument errors (HCL names the argument). */
export function callFunction(
  e: CallExpr,
  evalArg: EvalFn,
  ctx: FuncContext,
  annotate: (d: Diagnostic, arg: Expr) => Diagnostic = (d) => d,
): { value: Value; diagnostics: Diagnostic[] } {
  const diags: Diagnostic[] = [];
  let name = e.name;
  if (name.startsWith('core::')) name = name.slice(6);
  const spec = name.includes('::') ? undefined : lookupFunction(name, ctx);
  if (!spec) {
    if (e.name.includes('::')) {
      const parts = e.name.split('::');
      if (parts[0] === 'provider' && parts.length >= 3) {
        diags.push(
          diag(
            'Unknown provider function',
            `There is no function named "${e.name}". Ensure that provider name "${parts[1]}" is declared in this module's required_providers block, and that this provider offers a function named "${parts[parts.length - 1]}".`,
            e.nameRange,
            e.range,
          ),
        );
      } else {
        diags.push(diag('Unknown provider function', `The function namespace "${parts[0]}" is not valid. Provider function calls must use the "provider::" namespace prefix.`, e.nameRange, e.range));
      }
    } else {
      const sugg = nameSuggestion(e.name, functionNames(ctx));
      diags.push(diag('Call to unknown function', `There is no function named "${e.name}".${sugg ? ` Did you mean "${sugg}"?` : ''}`, e.nameRange, e.range));
    }
    return { value: Value.unknown(), diagnostics: diags };
  }

  const params = spec.params;
  const varParam = spec.varParam;

  // Arity (before evaluating anything), unless the last argument is expanded.
  if (!e.expandFinal) {
    if (e.args.length < params.length) {
      const missing = params[e.args.length];
      const qual = varParam ? ' at least' : '';
      diags.push(
        diag(
          'Not enough function arguments',
          `Function "${e.name}" expects${qual} ${params.length} argument(s). Missing value for "${missing.name}".`,
          e.closeParenRange,
          e.range,
        ),
      );
      return { value: Value.unknown(), diagnostics: diags };
    }
    if (!varParam && e.args.length > params.length) {
      diags.push(diag('Too many function arguments', `Function "${e.name}" expects only ${params.length} argument(s).`, e.args[params.length].range, e.range));
      return { value: Value.unknown(), diagnostics: diags };
    }
  }

  if (name === 'try' || name === 'can') return callTryCan(name, e, evalArg);
  if (name === 'templatestring') {
    // The template must come from elsewhere: a direct reference, not a literal or a computed string.
    const a = e.args[0];
    const direct = a.kind === 'scopeTraversal' || a.kind === 'relTraversal';
    if (!direct) {
      const literal = a.kind === 'template' || a.kind === 'literal' || a.kind === 'templateWrap';
      const why = literal
        ? 'templatestring is only for rendering templates retrieved dynamically from elsewhere, and so does not support providing a literal template; consider using a template string expression instead'
        : 'must be a direct reference to a single string from elsewhere, containing valid Terraform template syntax';
      diags.push(diag('Invalid function argument', `Invalid value for "template" parameter: invalid template expression: ${why}.`, a.range, e.range));
      return { value: Value.unknown(), diagnostics: diags };
    }
  }

  // Evaluate the arguments.
  let argExprs: (Expr | undefined)[] = [...e.args];
  let args: Value[] = [];
  for (const a of e.args) {
    const r = evalArg(a);
    diags.push(...r.diagnostics);
    args.push(r.value);
  }
  if (e.expandFinal && args.length > 0) {
    const last = args[args.length - 1];
    const lastExpr = e.args[e.args.length - 1];
    const [lu, lmarks] = last.unmark();
    const k = lu.type.kind;
    if (lu.isNull) {
      diags.push(diag('Invalid expanding argument value', "The expanding argument (indicated by ...) must not be null.", lastExpr.range, e.range));
      return { value: Value.unknown(), diagnostics: diags };
    }
    if (k === 'dynamic' || !lu.isKnown) {
      if (k !== 'dynamic' && k !== 'list' && k !== 'set' && k !== 'tuple') {
        diags.push(diag('Invalid expanding argument value', 'The expanding argument (indicated by ...) must be of a tuple, list, or set type.', lastExpr.range, e.range));
      }
      return { value: Value.unknown(), diagnostics: diags };
    }
    if (k !== 'list' && k !== 'set' && k !== 'tuple') {
      diags.push(diag('Invalid expanding argument value', 'The expanding argument (indicated by ...) must be of a tuple, list, or set type.', lastExpr.range, e.range));
      return { value: Value.unknown(), diagnostics: diags };
    }
    args = [...args.slice(0, -1), ...lu.elems.map((x) => x.markWith(lmarks))];
    argExprs = [...argExprs.slice(0, -1), ...lu.elems.map(() => lastExpr)];
    if (args.length < params.length) {
      const missing = params[args.length];
      diags.push(
        diag('Not enough function arguments', `Function "${e.name}" expects${varParam ? ' at least' : ''} ${params.length} argument(s). Missing value for "${missing.name}".`, e.closeParenRange, e.range),
      );
      return { value: Value.unknown(), diagnostics: diags };
    }
    if (!varParam && args.length > params.length) {
      diags.push(diag('Too many function arguments', `Function "${e.name}" expects only ${params.length} argument(s).`, lastExpr.range, e.range));
      return { value: Value.unknown(), diagnostics: diags };
    }
  }
  const paramFor = (i: number): Param => (i < params.length ? params[i] : varParam!);
  const rangeFor = (i: number): Range => (argExprs[i] ?? e).range;

  // Convert each argument to its parameter type.
  for (let i = 0; i < args.length; i++) {
    const p = paramFor(i);
    const r = convert(args[i], p.type);
    if (r.error !== undefined) {
      diags.push(annotate(diag('Invalid function argument', `Invalid value for "${p.name}" parameter: ${r.error}.`, rangeFor(i), e.range), argExprs[i] ?? e));
    } else args[i] = r.value;
  }
  if (diags.some((d) => d.severity === 'error')) return { value: Value.unknown(), diagnostics: diags };

  const res = invoke(e.name, spec, args, ctx);
  if (res.error) {
    const er = res.error;
    if (er instanceof FuncArgError) {
      const p = paramFor(Math.min(er.index, args.length - 1));
      const idx = er.index < args.length ? er.index : args.length - 1;
      diags.push(annotate(diag('Invalid function argument', `Invalid value for "${p.name}" parameter: ${er.message}.`, rangeFor(idx), e.range), argExprs[idx] ?? e));
    } else {
      diags.push(diag('Error in function call', `Call to function "${e.name}" failed: ${er.message}.`, startRange(e), e.range));
    }
    return { value: Value.unknown(res.type ?? T.Dynamic), diagnostics: diags };
  }
  return { value: res.value!, diagnostics: diags };
}

/**
 * cty's function.Call on already-converted arguments: null and unknown checks, marks, return type, impl.
 * Exposed for functions that call other functions and for tests.
 */
export function invoke(
  name: string,
  spec: FuncSpec,
  argsIn: readonly Value[],
  ctx: FuncContext,
): { value?: Value; type?: Type; error?: FuncArgError | FuncError } {
  const args = [...argsIn];
  let resultMarks = NO_MARKS;
  let shortCircuitUnknown = false;
  for (let i = 0; i < args.length; i++) {
    const p = i < spec.params.length ? spec.params[i] : spec.varParam!;
    let a = args[i];
    if (!p.allowMarked) {
      const [u, m] = a.unmark();
      resultMarks = unionMarks(resultMarks, m);
      a = u;
      // Nested marks are also lifted for parameters that do not accept marks.
      if (a.hasMarksDeep) {
        const [d, dm] = a.unmarkDeep();
        resultMarks = unionMarks(resultMarks, dm);
        a = d;
      }
      args[i] = a;
    }
    if (a.isNull && !p.allowNull && a.isKnown) {
      return { error: new FuncArgError(i, 'argument must not be null') };
    }
    if (!p.allowUnknown && (!a.isWhollyKnown || (a.type.kind === 'dynamic' && !p.allowDynamicType))) {
      if (!a.isKnown || !a.isWhollyKnown) shortCircuitUnknown = true;
    }
  }
  let retType: Type;
  try {
    retType = spec.type ? spec.type(args, ctx) : (spec.returns ?? T.Dynamic);
  } catch (err) {
    if (err instanceof FuncArgError || err instanceof FuncError) return { error: err };
    throw err;
  }
  if (shortCircuitUnknown) return { value: Value.unknown(retType).markWith(resultMarks), type: retType };
  try {
    const v = spec.impl(args, ctx);
    return { value: v.markWith(resultMarks), type: retType };
  } catch (err) {
    if (err instanceof FuncArgError || err instanceof FuncError) return { error: err, type: retType };
    if (err instanceof RangeError || err instanceof TypeError) {
      // A failure inside an implementation that Terraform would report as a Go panic.
      return { error: new FuncError(`panic: ${err.message}`), type: retType };
    }
    throw err;
  }
}

function callTryCan(name: 'try' | 'can', e: CallExpr, evalArg: EvalFn): { value: Value; diagnostics: Diagnostic[] } {
  if (name === 'can') {
    const r = evalArg(e.args[0]);
    if (r.diagnostics.some((d) => d.severity === 'error')) return { value: Value.bool(false), diagnostics: [] };
    if (!r.value.isWhollyKnown) return { value: Value.unknown(T.Bool), diagnostics: [] };
    return { value: Value.bool(true), diagnostics: [] };
  }
  if (e.args.length === 0) {
    return { value: Value.unknown(), diagnostics: [diag('Error in function call', 'Call to function "try" failed: at least one argument is required.', startRange(e), e.range)] };
  }
  const failures: Diagnostic[] = [];
  for (const a of e.args) {
    const r = evalArg(a);
    const errs = r.diagnostics.filter((d) => d.severity === 'error');
    if (errs.length === 0) {
      if (!r.value.isWhollyKnown) return { value: Value.unknown(), diagnostics: [] };
      return { value: r.value, diagnostics: [] };
    }
    failures.push(...errs);
  }
  let msg = 'no expression succeeded:\n';
  for (const d of failures) {
    msg += d.subject ? `- ${d.summary} (at ${rangeString(d.subject)})\n  ${d.detail ?? ''}\n` : `- ${d.summary}\n  ${d.detail ?? ''}\n`;
  }
  msg += '\nAt least one expression must produce a successful result';
  return { value: Value.unknown(), diagnostics: [diag('Error in function call', `Call to function "try" failed: ${msg}.`, startRange(e), e.range)] };
}
