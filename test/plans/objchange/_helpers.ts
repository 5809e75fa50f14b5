// Test helpers for server/providers and server/plans/objchange: short value constructors, schema
// constructors, and `fill`, which builds an object of a block's type from the attributes given (everything
// else null, absent blocks their empty value). Only test files import this module.

import * as T from '../../../server/lang/types';
import type { Type } from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import type { FullRefinements } from '../../../server/providers/gostring';
import type { Attribute, Block, BlockNesting, NestedBlock, NestedObject, AttributeNesting } from '../../../server/providers/schema';
import { attributeType, impliedType, nestedBlockEmptyValue, nestedBlockType } from '../../../server/providers/schema';
import { Num } from '../../../server/lang/number';

export const s = (x: string) => Value.string(x);
export const n = (x: number) => Value.number(x);
export const b = (x: boolean) => Value.bool(x);
export const nul = (t: Type = T.Dynamic) => Value.null(t);
export const unk = (t: Type = T.Dynamic, r?: FullRefinements) => Value.unknown(t, r);
export const list = (t: Type, ...es: Value[]) => Value.list(es, t);
export const set = (t: Type, ...es: Value[]) => Value.set(es, t);
export const map = (t: Type, o: Record<string, Value>) => Value.map(new Map(Object.entries(o)), t);
export const obj = (o: Record<string, Value>) => Value.object(o);
export const num = (x: number | bigint) => Num.fromInt(x);

// ---- schemas ------------------------------------------------------------------------------------------------

export const req = (type: Type, extra: Partial<Attribute> = {}): Attribute => ({ type, required: true, ...extra });
export const opt = (type: Type, extra: Partial<Attribute> = {}): Attribute => ({ type, optional: true, ...extra });
export const comp = (type: Type, extra: Partial<Attribute> = {}): Attribute => ({ type, computed: true, ...extra });
export const optComp = (type: Type, extra: Partial<Attribute> = {}): Attribute => ({ type, optional: true, computed: true, ...extra });
export const nested = (nesting: AttributeNesting, attributes: Record<string, Attribute>, extra: Partial<Attribute> = {}): Attribute => ({
  nestedType: { nesting, attributes } as NestedObject,
  optional: true,
  ...extra,
});
export const blk = (attributes: Record<string, Attribute> = {}, blockTypes: Record<string, NestedBlock> = {}): Block => ({ attributes, blockTypes });
export const nb = (nesting: BlockNesting, block: Block, extra: Partial<NestedBlock> = {}): NestedBlock => ({ nesting, block, ...extra });

/** An object of the block's type: given attributes as they are, other attributes null, other blocks empty. */
export function fill(bk: Block, given: Record<string, Value> = {}): Value {
  const m = new Map<string, Value>();
  for (const [k, a] of Object.entries(bk.attributes)) m.set(k, given[k] ?? Value.null(attributeType(a)));
  for (const [k, t] of Object.entries(bk.blockTypes)) m.set(k, given[k] ?? nestedBlockEmptyValue(t));
  for (const k of Object.keys(given)) if (!m.has(k)) throw new Error(`fill: ${k} is not in the schema`);
  return Value.object(m);
}

/** The element object type of a nested block type, and its collection type. */
export const elemT = (bk: Block) => impliedType(bk);
export const blockT = (x: NestedBlock) => nestedBlockType(x);
