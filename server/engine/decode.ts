// Decoding a configuration body against a provider schema (Terraform's hcldec with configschema's spec):
// attributes evaluated and converted to their types, nested blocks by nesting mode, `dynamic` blocks expanded.
//
// Folder server/engine: the plan and apply engine (see index.ts for the API and the file list).
//
// Contract: `decodeBody(body, block, scope)` returns an object Value of exactly impliedType(block) (marks kept:
// a sensitive variable stays marked inside the result) and HCL's diagnostics ("Unsupported argument", "Missing
// required argument", "Unsupported block type", "Incorrect attribute value type", ...). It never throws for user
// input; problems leave unknown placeholders so planning can go on to report more.

import type { Diagnostic, Range } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type { Traversal } from '../lang/ast';
import { convert } from '../lang/convert';
import type { Scope } from '../lang/eval';
import { evaluate } from '../lang/eval';
import * as T from '../lang/types';
import { Value } from '../lang/value';
import type { Block as HclBlock, Body } from '../config/hclbody';
import { jsonBodyForSchema } from '../config/json';
import type { Attribute, Block, NestedBlock } from '../providers/schema';
import { attributeType, impliedType, nestedBlockType } from '../providers/schema';

/** A scope with extra root variables (a dynamic block's iterator) layered over another. */
export function withVariables(inner: Scope, extra: ReadonlyMap<string, Value>): Scope {
  return {
    funcCtx: inner.funcCtx,
    resolve(refs: readonly Traversal[]) {
      const r = inner.resolve(refs.filter((t) => !extra.has(t.root)));
      for (const [k, v] of extra) r.variables.set(k, v);
      return r;
    },
  };
}

function suggestion(name: string, cands: string[]): string {
  let best: string | undefined;
  let bestD = 3;
  for (const c of cands) {
    const d = lev(name, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best ? ` Did you mean ${JSON.stringify(best)}?` : '';
}
function lev(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0];
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const t = dp[j];
      dp[j] = Math.min(dp[j] + 1, dp[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = t;
    }
  }
  return dp[b.length];
}

interface Item {
  body: Body;
  labels: string[];
  scope: Scope;
  range: Range;
}

/** Expands `dynamic "<type>"` blocks of a body into items of that block type. */
function expandDynamic(hb: HclBlock, scope: Scope, diags: Diagnostic[]): { type: string; items: Item[] } {
  const type = hb.labels[0] ?? '';
  const items: Item[] = [];
  const fe = hb.body.attributes.find((a) => a.name === 'for_each');
  const it = hb.body.attributes.find((a) => a.name === 'iterator');
  const labelsAttr = hb.body.attributes.find((a) => a.name === 'labels');
  const content = hb.body.blocks.find((b) => b.type === 'content');
  if (!fe || !content) {
    if (!fe) diags.push(error('Missing required argument', 'The argument "for_each" is required, but no definition was found.', hb.body.endRange));
    if (!content) diags.push(error('Missing content block', 'A dynamic block must have a nested block of type "content" to describe the body of each generated block.', hb.defRange));
    return { type, items };
  }
  const iterName = it?.expr.refs[0]?.root ?? it?.expr.literal?.toString() ?? type;
  const r = evaluate(fe.expr.ast, scope);
  diags.push(...r.diagnostics);
  const v = r.value;
  if (!v.isKnown || v.isNull) {
    if (v.isNull) diags.push(error('Invalid dynamic for_each value', 'Cannot use a null value in for_each.', fe.expr.range));
    return { type, items };
  }
  const [u] = v.unmark();
  const k = u.type.kind;
  const pairs: [Value, Value][] = [];
  if (k === 'list' || k === 'tuple' || k === 'set') u.elems.forEach((e, i) => pairs.push([k === 'set' ? e : Value.number(i), e]));
  else if (k === 'map' || k === 'object') for (const [kk, e] of u.entries) pairs.push([Value.string(kk), e]);
  else {
    diags.push(error('Invalid dynamic for_each value', `Cannot use a ${T.friendlyName(u.type)} value in for_each. An iterable collection is required.`, fe.expr.range));
    return { type, items };
  }
  for (const [key, val] of pairs) {
    const iscope = withVariables(scope, new Map([[iterName, Value.object({ key: key.withMarksOf(v), value: val.withMarksOf(v) })]]));
    let labels: string[] = [];
    if (labelsAttr) {
      const lr = evaluate(labelsAttr.expr.ast, iscope);
      diags.push(...lr.diagnostics);
      if (lr.value.isKnown && !lr.value.isNull) labels = lr.value.unmark()[0].elems.map((e) => (e.isKnown && !e.isNull ? e.unmark()[0].str : ''));
    }
    items.push({ body: content.body, labels, scope: iscope, range: content.range });
  }
  return { type, items };
}

/**
 * Whether an attribute of this type may also be written as blocks (Terraform's blocktoattr, for providers built
 * on the legacy SDK whose nested blocks reach core as list or set attributes of objects): a list or set of objects.
 */
function typeCanBeBlocks(t: T.Type): t is T.Type & { kind: 'list' | 'set'; elem: T.Type } {
  return (t.kind === 'list' || t.kind === 'set') && t.elem.kind === 'object';
}

/** The schema blocktoattr decodes one such block with: every attribute of the element object optional. */
function elementSchema(ety: T.Type): Block {
  const attributes: Record<string, Attribute> = {};
  if (ety.kind === 'object') for (const [name, t] of ety.attrs) attributes[name] = { type: t, optional: true };
  return { attributes, blockTypes: {} };
}

/** Whether `hb` (a block or `dynamic "<name>"`) is an attribute written as blocks, which blocktoattr accepts. */
function isAttributeAsBlock(name: string, body: Body, block: Block): boolean {
  if (block.blockTypes[name]) return false;
  const sa = block.attributes[name];
  return sa !== undefined && sa.nestedType === undefined && typeCanBeBlocks(attributeType(sa)) && !body.attributes.some((a) => a.name === name);
}

/** Decodes `body` with `block`'s schema in `scope`. */
export function decodeBody(body: Body, block: Block, scope: Scope, diags: Diagnostic[]): Value {
  // A body from a .tf.json file learns here which of its properties are nested blocks (config/json.ts).
  body = jsonBodyForSchema(body, block, diags);
  const out = new Map<string, Value>();
  const attrNames = Object.keys(block.attributes);
  const seen = new Set<string>();
  for (const a of body.attributes) {
    const sa: Attribute | undefined = block.attributes[a.name];
    if (!sa) {
      const isBlock = block.blockTypes[a.name] !== undefined;
      diags.push(
        error(
          'Unsupported argument',
          isBlock
            ? `An argument named ${JSON.stringify(a.name)} is not expected here. Did you mean to define a block of type ${JSON.stringify(a.name)}?`
            : `An argument named ${JSON.stringify(a.name)} is not expected here.${suggestion(a.name, attrNames)}`,
          a.nameRange,
        ),
      );
      continue;
    }
    seen.add(a.name);
    const want = attributeType(sa);
    if (sa.computed && !sa.optional && !sa.required) {
      diags.push(error('Invalid Configuration for Read-Only Attribute', `Cannot set value for this attribute as the provider has marked it as read-only. Remove the configuration line setting the value.\n\nRefer to the provider documentation or contact the provider developers for additional information about configurable and read-only attributes that are supported.`, a.expr.range));
    }
    const r = evaluate(a.expr.ast, scope);
    diags.push(...r.diagnostics);
    const c = convert(r.value, want);
    if (c.error !== undefined) {
      diags.push(error('Incorrect attribute value type', `Inappropriate value for attribute ${JSON.stringify(a.name)}: ${c.error}.`, a.expr.range));
      out.set(a.name, Value.unknown(want));
    } else out.set(a.name, c.value);
  }
  for (const [name, sa] of Object.entries(block.attributes)) {
    if (seen.has(name)) continue;
    if (sa.required) diags.push(error('Missing required argument', `The argument ${JSON.stringify(name)} is required, but no definition was found.`, body.endRange));
    out.set(name, Value.null(attributeType(sa)));
  }
  // Blocks, with dynamic ones expanded in place.
  const byType = new Map<string, Item[]>();
  const attrBlocks = new Map<string, Item[]>();
  for (const hb of body.blocks) {
    if (hb.type === 'dynamic') {
      const d = expandDynamic(hb, scope, diags);
      if (isAttributeAsBlock(d.type, body, block)) {
        attrBlocks.set(d.type, [...(attrBlocks.get(d.type) ?? []), ...d.items]);
        continue;
      }
      if (!block.blockTypes[d.type]) {
        diags.push(error('Unsupported block type', `Blocks of type ${JSON.stringify(d.type)} are not expected here.`, hb.labelRanges[0] ?? hb.typeRange));
        continue;
      }
      const l = byType.get(d.type) ?? [];
      l.push(...d.items);
      byType.set(d.type, l);
      continue;
    }
    if (isAttributeAsBlock(hb.type, body, block)) {
      attrBlocks.set(hb.type, [...(attrBlocks.get(hb.type) ?? []), { body: hb.body, labels: hb.labels, scope, range: hb.range }]);
      continue;
    }
    if (!block.blockTypes[hb.type]) {
      const isAttr = block.attributes[hb.type] !== undefined;
      diags.push(
        error(
          'Unsupported block type',
          isAttr
            ? `Blocks of type ${JSON.stringify(hb.type)} are not expected here. Did you mean to define argument ${JSON.stringify(hb.type)}? If so, use the equals sign to assign it a value.`
            : `Blocks of type ${JSON.stringify(hb.type)} are not expected here.`,
          hb.typeRange,
        ),
      );
      continue;
    }
    const l = byType.get(hb.type) ?? [];
    l.push({ body: hb.body, labels: hb.labels, scope, range: hb.range });
    byType.set(hb.type, l);
  }
  for (const [name, nb] of Object.entries(block.blockTypes)) {
    out.set(name, decodeNested(name, nb, byType.get(name) ?? [], body, diags));
  }
  // Attributes written as blocks: each block is one element object, decoded with every attribute optional (and
  // its own list/set-of-object attributes again allowed as blocks).
  for (const [name, items] of attrBlocks) {
    const want = attributeType(block.attributes[name]) as T.Type & { kind: 'list' | 'set'; elem: T.Type };
    const es = elementSchema(want.elem);
    const vals = items.map((it) => decodeBody(it.body, es, it.scope, diags));
    const v = want.kind === 'list' ? Value.list(vals, want.elem) : Value.set(vals, want.elem);
    const c = convert(v, want);
    out.set(name, c.error === undefined ? c.value : Value.unknown(want));
  }
  return Value.raw(impliedType(block), out);
}

function decodeNested(name: string, nb: NestedBlock, items: Item[], parent: Body, diags: Diagnostic[]): Value {
  const ety = impliedType(nb.block);
  const decodeItem = (it: Item) => decodeBody(it.body, nb.block, it.scope, diags);
  switch (nb.nesting) {
    case 'single':
    case 'group': {
      if (items.length > 1) {
        diags.push(error('Duplicate ' + name + ' block', `Only one ${JSON.stringify(name)} block is allowed. Another was defined at ${items[0].range.filename}:${items[0].range.start.line},${items[0].range.start.column}-${items[0].range.end.line},${items[0].range.end.column}.`, items[1].range));
      }
      if (items.length === 0) {
        if (nb.nesting === 'group') return decodeBody({ attributes: [], blocks: [], range: parent.range, endRange: parent.endRange }, nb.block, { funcCtx: { baseDir: '.', planning: true, console: false }, resolve: () => ({ variables: new Map(), diagnostics: [] }) }, diags);
        if ((nb.minItems ?? 0) > 0) diags.push(error('Missing required block', `A block of type ${JSON.stringify(name)} is required here.`, parent.endRange));
        return Value.null(ety);
      }
      return decodeItem(items[0]);
    }
    case 'list':
    case 'set': {
      const min = nb.minItems ?? 0;
      const max = nb.maxItems ?? 0;
      if (items.length < min) {
        diags.push(error('Insufficient ' + name + ' blocks', `At least ${min} "${name}" blocks are required.`, parent.endRange));
      }
      if (max > 0 && items.length > max) {
        diags.push(error('Too many ' + name + ' blocks', `No more than ${max} "${name}" blocks are allowed`, items[max].range));
      }
      const vals = items.map(decodeItem);
      const t = nestedBlockType(nb);
      if (t.kind === 'list' && T.typeEquals(t.elem, ety)) return nb.nesting === 'list' ? Value.list(vals, ety) : Value.set(vals, ety);
      // Blocks with dynamically-typed attributes: a tuple (list) or a set of the unified type.
      return nb.nesting === 'list' ? Value.tuple(vals) : Value.set(vals, ety);
    }
    case 'map': {
      const m = new Map<string, Value>();
      for (const it of items) {
        const k = it.labels[0] ?? '';
        m.set(k, decodeItem(it));
      }
      return Value.map(m, ety);
    }
  }
}

/**
 * The errors of decoding `body` with `block`'s schema that need no evaluation (unsupported arguments and block
 * types, missing required arguments), as decodeBody reports them; for the validate walk's structural checks.
 */
export function schemaStructureDiagnostics(body: Body, block: Block): Diagnostic[] {
  const diags: Diagnostic[] = [];
  const attrNames = Object.keys(block.attributes);
  for (const a of body.attributes) {
    if (block.attributes[a.name]) continue;
    const isBlock = block.blockTypes[a.name] !== undefined;
    diags.push(
      error(
        'Unsupported argument',
        isBlock
          ? `An argument named ${JSON.stringify(a.name)} is not expected here. Did you mean to define a block of type ${JSON.stringify(a.name)}?`
          : `An argument named ${JSON.stringify(a.name)} is not expected here.${suggestion(a.name, attrNames)}`,
        a.nameRange,
      ),
    );
  }
  for (const [name, sa] of Object.entries(block.attributes)) {
    if (sa.required && !body.attributes.some((a) => a.name === name))
      diags.push(error('Missing required argument', `The argument ${JSON.stringify(name)} is required, but no definition was found.`, body.endRange));
  }
  for (const hb of body.blocks) {
    if (hb.type === 'dynamic' || block.blockTypes[hb.type] || isAttributeAsBlock(hb.type, body, block)) continue;
    const isAttr = block.attributes[hb.type] !== undefined;
    diags.push(
      error(
        'Unsupported block type',
        isAttr
          ? `Blocks of type ${JSON.stringify(hb.type)} are not expected here. Did you mean to define argument ${JSON.stringify(hb.type)}? If so, use the equals sign to assign it a value.`
          : `Blocks of type ${JSON.stringify(hb.type)} are not expected here.`,
        hb.typeRange,
      ),
    );
  }
  return diags;
}
