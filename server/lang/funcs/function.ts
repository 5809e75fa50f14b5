// The shape of a built-in function, after go-cty's function package as Terraform uses it.
//
// A function declares typed parameters and computes a return type and a result. The call machinery
// (lang/call.ts) does everything generic before `impl` runs, so implementations stay small:
//   - arity checks ("Not enough function arguments" / "Too many function arguments");
//   - converting each argument to its parameter's type (failure: "Invalid function argument");
//   - null arguments are rejected unless the parameter allows null;
//   - if an argument is unknown (or of dynamic type) and its parameter does not allow unknowns, the result is
//     an unknown value of the return type and `impl` is not called;
//   - marks (sensitive) are removed from arguments whose parameter does not allow marks and re-applied to
//     the result.
// `impl` reports user errors by throwing FuncArgError (a problem with one argument) or FuncError (any other).

import type { Type } from '../types';
import type { Value } from '../value';

export interface Param {
  name: string;
  /** Parameter type; `dynamic` accepts anything unconverted. */
  type: Type;
  allowNull?: boolean;
  allowUnknown?: boolean;
  /** Accept an argument whose type is dynamic (an unknown of unknown type) without short-circuiting. */
  allowDynamicType?: boolean;
  /** Receive marked values as they are (the function handles marks itself). */
  allowMarked?: boolean;
}

export interface FuncContext {
  /** Directory that relative paths in file functions resolve against (path.module for a module). */
  baseDir: string;
  /** True while planning: timestamp() and similar return unknowns. The console plans too. */
  planning: boolean;
  /** True in `console`, where type() is allowed at the top level. */
  console: boolean;
}

export interface FuncSpec {
  params: Param[];
  varParam?: Param;
  /**
   * Computes the return type from the (converted) arguments, which may be unknown. A function whose
   * return type is fixed may use `returns` instead. Throwing FuncArgError/FuncError here is allowed.
   */
  type?: (args: readonly Value[], ctx: FuncContext) => Type;
  returns?: Type;
  impl: (args: readonly Value[], ctx: FuncContext) => Value;
  description?: string;
}

/** A problem with argument `index` (0-based, counting variadic arguments): "Invalid value for "<param>" parameter: <message>." */
export class FuncArgError extends Error {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
  }
}

/** Any other failure: "Call to function "<name>" failed: <message>." */
export class FuncError extends Error {}

/** Builds a FuncSpec; exists so that object literals get contextual typing. */
export function fn(spec: FuncSpec): FuncSpec {
  return spec;
}
