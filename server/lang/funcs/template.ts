// Template rendering for templatefile() (registered into filesystem.ts) and templatestring().
//
// A template is parsed as a whole-file template (parse.ts parseTemplate) and evaluated with only the
// given vars as variables; references to anything else are "vars map does not contain key" errors.
// templatestring's first argument must be a direct reference; call.ts checks that on the expression and
// then calls the spec here with evaluated arguments.

import type { Diagnostic } from '../../diags/diagnostic';
import { rangeString } from '../call';
import { evalExpr } from '../eval';
import { parseTemplate, references, traversalString } from '../parse';
import * as T from '../types';
import { Value } from '../value';
import { FuncArgError, FuncError, type FuncContext, type FuncSpec } from './function';
import { setTemplateRenderer } from './filesystem';

function diagText(d: Diagnostic): string {
  return `${d.subject ? rangeString(d.subject) + ': ' : ''}${d.summary}; ${d.detail ?? ''}`;
}

/** Renders template source text with vars (object or map value, already validated as known). */
export function renderTemplate(src: string, filename: string, vars: ReadonlyMap<string, Value>, ctx: FuncContext, varsArgIndex = 1): Value {
  const p = parseTemplate(src, filename);
  if (!p.expr) throw new FuncError(diagText(p.diagnostics[0]));
  for (const name of vars.keys()) {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) {
      throw new FuncArgError(varsArgIndex, `invalid template variable name ${JSON.stringify(name)}: must start with a letter, followed by zero or more letters, digits, and underscores`);
    }
  }
  for (const t of references(p.expr)) {
    if (!vars.has(t.root)) {
      throw new FuncArgError(varsArgIndex, `vars map does not contain key ${JSON.stringify(traversalString({ ...t, steps: [] }))}, referenced at ${rangeString(t.rootRange)}`);
    }
  }
  const r = evalExpr(p.expr, { variables: vars, funcCtx: { ...ctx, console: false } });
  const err = r.diagnostics.find((d) => d.severity === 'error');
  if (err) throw new FuncError(diagText(err));
  return r.value;
}

/** Validates a vars argument: an object or map value. */
export function varsMap(v: Value, index: number): Map<string, Value> {
  const k = v.type.kind;
  if (k !== 'object' && k !== 'map') throw new FuncArgError(index, 'invalid vars value: must be a map');
  if (v.isNull) throw new FuncArgError(index, 'argument must not be null');
  const m = new Map<string, Value>();
  for (const [key, val] of v.entries) m.set(key, val);
  return m;
}

setTemplateRenderer((src, filename, vars, ctx) => renderTemplate(src, filename, vars, ctx));

export const functions: Record<string, FuncSpec> = {
  templatestring: {
    params: [
      { name: 'template', type: T.String },
      { name: 'vars', type: T.Dynamic },
    ],
    returns: T.Dynamic,
    impl: (args, ctx) => {
      const vars = varsMap(args[1], 1);
      return renderTemplate(args[0].str, '<templatestring>', vars, ctx);
    },
  },
};
