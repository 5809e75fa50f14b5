// Test helpers for the built-in function modules: build Values from JS data and call a FuncSpec the way
// the call machinery does (convert arguments to parameter types, reject nulls, then type + impl), without
// depending on lang/call.ts. Results are compared through Value's debug string.

import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import type { FuncSpec, FuncContext } from '../../../server/lang/funcs/function';
import { FuncArgError, FuncError } from '../../../server/lang/funcs/function';
import { ConvertError, convert } from '../../../server/lang/funcs/_util';

export type JS = string | number | boolean | null | Value | JS[] | { [k: string]: JS };

/** JS data to a Value as an HCL literal would produce it: arrays are tuples, objects are objects. */
export function v(x: JS): Value {
  if (x instanceof Value) return x;
  if (x === null) return Value.null(T.Dynamic);
  if (typeof x === 'string') return Value.string(x);
  if (typeof x === 'number') return Value.number(x);
  if (typeof x === 'boolean') return Value.bool(x);
  if (Array.isArray(x)) return Value.tuple(x.map(v));
  return Value.object(new Map(Object.entries(x).map(([k, e]) => [k, v(e)])));
}
export const list = (...xs: JS[]) => convert(v(xs), T.List(T.Dynamic));
export const set = (...xs: JS[]) => convert(v(xs), T.Set(T.Dynamic));
export const map = (o: { [k: string]: JS }) => convert(v(o), T.Map(T.Dynamic));

const ctx: FuncContext = { baseDir: '.', planning: true, console: true };

/** Calls a function; returns the result's debug string, or "ERR <kind>: <message>". */
export function call(fns: Record<string, FuncSpec>, name: string, ...xs: JS[]): string {
  const spec = fns[name];
  if (!spec) throw new Error(`no function ${name}`);
  const args = xs.map(v);
  try {
    const conv = args.map((a, i) => {
      const p = i < spec.params.length ? spec.params[i] : spec.varParam!;
      if (a.isNull && !p.allowNull) throw new FuncArgError(i, 'argument must not be null');
      if (p.type.kind === 'dynamic') return a;
      try {
        return convert(a, p.type);
      } catch (e) {
        if (e instanceof ConvertError) throw new FuncArgError(i, e.message);
        throw e;
      }
    });
    if (spec.type) spec.type(conv, ctx);
    return spec.impl(conv, ctx).toString();
  } catch (e) {
    if (e instanceof FuncArgError) {
      const p = e.index < spec.params.length ? spec.params[e.index] : spec.varParam!;
      return `ERR arg ${p.name}: ${e.message}`;
    }
    if (e instanceof FuncError) return `ERR call: ${e.message}`;
    throw e;
  }
}
