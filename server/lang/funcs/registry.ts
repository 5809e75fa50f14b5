// The table of built-in functions: name → FuncSpec, assembled from the modules of server/lang/funcs.
//
// Contract: lookupFunction(name, ctx) honours the context: `type` exists only in the console, and
// `plantimestamp` is not available there (as in Terraform's console).

import type { FuncContext, FuncSpec } from './function';
import { functions as collection } from './collection';
import { functions as crypto } from './crypto';
import { functions as datetime } from './datetime';
import { functions as encoding } from './encoding';
import { functions as filesystem } from './filesystem';
import { functions as ipnet } from './ipnet';
import { functions as numeric } from './numeric';
import { functions as re } from './re';
import { functions as string } from './string';
import { functions as template } from './template';
import { functions as typeconv } from './typeconv';

const table: Record<string, FuncSpec> = Object.assign(
  Object.create(null) as Record<string, FuncSpec>,
  string,
  collection,
  numeric,
  encoding,
  filesystem,
  crypto,
  datetime,
  ipnet,
  re,
  template,
  typeconv,
);

export function lookupFunction(name: string, ctx: FuncContext): FuncSpec | undefined {
  if (name === 'type' && !ctx.console) return undefined;
  if (name === 'plantimestamp' && ctx.console) return undefined;
  return table[name];
}

/** Names of all functions available in the context, sorted. */
export function functionNames(ctx: FuncContext): string[] {
  return Object.keys(table)
    .filter((n) => lookupFunction(n, ctx) !== undefined)
    .sort();
}

/** The raw table, for documentation and completion. */
export const allFunctions: Readonly<Record<string, FuncSpec>> = table;
