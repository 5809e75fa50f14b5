// The human rendering of a state (Terraform's jsonformat Renderer.RenderHumanState): what `terraform show`
// prints for the current state and `terraform state show` for one instance.
//
// Terraform renders a state as a "no-op diff" of every resource with all children shown and without action
// symbols; this module implements that special case of its structured renderer directly:
// - resources as `resource "T" "N" {…}` blocks, attributes sorted and aligned, null attributes omitted, nested
//   blocks after a blank line; attribute values by their schema type (maps with quoted keys, lists/sets/tuples
//   one element per line with trailing commas, objects with aligned keys);
// - dynamically typed values as Terraform's JSON renderer draws them (objects and maps alike, arrays as lists,
//   nulls kept);
// - strings: JSON documents as `jsonencode(…)`, multi-line strings as `<<-EOT` heredocs, others Go-quoted;
// - sensitive values as `(sensitive value)`; four spaces per indentation level.
// Input is the decoded tree from ../jsonstate.ts. Pure.

import { goQuote } from '../../lang/format';
import * as T from '../../lang/types';
import type { Type } from '../../lang/types';
import type { Value } from '../../lang/value';
import type { Attribute, Block, NestedBlock } from '../../providers/schema';
import { attributeType } from '../../providers/schema';
import { colorize } from '../../cli/state/meta';
import { inferValue, JNum, JObj, parseJV, type JModule, type JOutput, type JResource, type JV } from '../jsonstate';

interface Opts {
  color: boolean;
}

const ind = (n: number) => '    '.repeat(n);

function nullText(o: Opts): string {
  return colorize('[dark_gray]null[reset]', o.color);
}

const IDENT = /^[\p{ID_Start}_][\p{ID_Continue}_-]*$/u;
function attrName(k: string): string {
  return IDENT.test(k) ? k : goQuote(k);
}

/** Go's `%-*s`: pads to `width` runes. */
function padRight(s: string, width: number): string {
  const n = [...s].length;
  return n >= width ? s : s + ' '.repeat(width - n);
}

// ---- strings -------------------------------------------------------------------------------------------------

function renderString(s: string, indent: number, o: Opts): string {
  if (s.startsWith('{') || s.startsWith('[')) {
    let j: JV | undefined;
    try {
      j = parseJV(s);
    } catch {
      j = undefined;
    }
    if (j !== undefined) {
      const r = renderJSON(j, indent + 1, o);
      if (r.includes('\n')) return `jsonencode(\n${ind(indent + 1)}${r}\n${ind(indent)})`;
      return `jsonencode(${r})`;
    }
  }
  if (s.includes('\n')) {
    const str = s.trim();
    const lines = str.replaceAll('\n', '\n' + ind(indent + 1)).split('\n');
    lines[0] = ind(indent + 1) + lines[0];
    return `<<-EOT\n${lines.join('\n')}\n${ind(indent)}EOT`;
  }
  return goQuote(s);
}

// ---- JSON mode (dynamic values, outputs without types, jsonencode'd strings) --------------------------------

function renderObjectEntries(entries: [string, string][], indent: number): string {
  if (entries.length === 0) return '{}';
  const sorted = [...entries].sort((a, b) => T.compareBytes(a[0], b[0]));
  const names = sorted.map(([k]) => attrName(k));
  const width = Math.max(...names.map((n) => Buffer.byteLength(n)));
  let buf = '{\n';
  sorted.forEach(([, v], i) => {
    buf += `${ind(indent + 1)}${padRight(names[i], width)} = ${v}\n`;
  });
  return buf + `${ind(indent)}}`;
}

function renderListItems(items: string[], indent: number): string {
  if (items.length === 0) return '[]';
  let buf = '[\n';
  for (const it of items) buf += `${ind(indent + 1)}${it},\n`;
  return buf + `${ind(indent)}]`;
}

function renderJSON(j: JV, indent: number, o: Opts): string {
  if (j === null) return nullText(o);
  if (typeof j === 'boolean') return j ? 'true' : 'false';
  if (typeof j === 'string') return renderString(j, indent, o);
  if (j instanceof JNum) return j.text;
  if (Array.isArray(j)) return renderListItems(j.map((e) => renderJSON(e, indent + 1, o)), indent);
  const seen = new Map<string, JV>();
  for (const [k, v] of (j as JObj).entries) seen.set(k, v);
  return renderObjectEntries([...seen].map(([k, v]) => [k, renderJSON(v, indent + 1, o)]), indent);
}

/** A decoded value in JSON mode (its cty type is ignored except to tell arrays from objects). */
function renderDynamic(v: Value, indent: number, o: Opts): string {
  if (v.isSensitive) return '(sensitive value)';
  if (v.isNull) return nullText(o);
  switch (v.type.kind) {
    case 'string':
      return renderString(v.str, indent, o);
    case 'number':
      return v.num.toString();
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'list':
    case 'set':
    case 'tuple':
      return renderListItems(
        v.elems.map((e) => renderDynamic(e, indent + 1, o)),
        indent,
      );
    case 'map':
    case 'object':
      return renderObjectEntries(
        [...v.entries].map(([k, e]) => [k, renderDynamic(e, indent + 1, o)]),
        indent,
      );
    default:
      return nullText(o);
  }
}

// ---- typed values ------------------------------------------------------------------------------------------------

/**
 * True when the value is left out of a block or object: null only. (Under a legacy schema an empty string is
 * shown, as `null`: Terraform decides what to skip before its legacy fix-up turns "" into null.)
 */
function isAbsent(v: Value, _legacy: boolean): boolean {
  return v.isNull && !v.isSensitive;
}

const WRITE_ONLY = '(write-only attribute)';

function renderTyped(v: Value, ty: Type, indent: number, legacy: boolean, o: Opts): string {
  if (v.isSensitive) return '(sensitive value)';
  if (legacy && v.type.kind === 'string' && !v.isNull && v.str === '') return nullText(o);
  if (ty.kind === 'dynamic') return renderDynamic(v, indent, o);
  if (v.isNull) return nullText(o);
  switch (ty.kind) {
    case 'string':
      return renderString(v.str, indent, o);
    case 'number':
      return v.num.toString();
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'object': {
      const entries: [string, string][] = [];
      for (const [k, at] of ty.attrs) {
        const e = v.entries.get(k);
        if (!e || isAbsent(e, legacy)) continue;
        entries.push([k, renderTyped(e, at, indent + 1, legacy, o)]);
      }
      return renderObjectEntries(entries, indent);
    }
    case 'map': {
      if (v.entries.size === 0) return '{}';
      const keys = [...v.entries.keys()].sort(T.compareBytes);
      const names = keys.map((k) => goQuote(k));
      const width = Math.max(...names.map((n) => Buffer.byteLength(n)));
      let buf = '{\n';
      keys.forEach((k, i) => {
        const e = v.entries.get(k)!;
        const comma = ty.elem.kind === 'object' && !e.isSensitive && !e.isNull ? ',' : '';
        buf += `${ind(indent + 1)}${padRight(names[i], width)} = ${renderTyped(e, ty.elem, indent + 1, legacy, o)}${comma}\n`;
      });
      return buf + `${ind(indent)}}`;
    }
    case 'list':
    case 'set':
      return renderListItems(
        v.elems.map((e) => renderTyped(e, ty.elem, indent + 1, legacy, o)),
        indent,
      );
    case 'tuple':
      return renderListItems(
        v.elems.map((e, i) => renderTyped(e, ty.elems[i] ?? T.Dynamic, indent + 1, legacy, o)),
        indent,
      );
    default:
      return renderDynamic(v, indent, o);
  }
}

function renderNestedAttr(v: Value, a: Attribute, indent: number, legacy: boolean, o: Opts): string {
  if (!a.nestedType) return renderTyped(v, attributeType(a), indent, legacy, o);
  if (v.isSensitive) return '(sensitive value)';
  if (v.isNull) return nullText(o);
  const inner: Block = { attributes: a.nestedType.attributes, blockTypes: {} };
  const obj = (x: Value, i: number) => {
    if (x.isSensitive) return '(sensitive value)';
    if (x.isNull) return nullText(o);
    const entries: [string, string][] = [];
    for (const [k, at] of Object.entries(inner.attributes)) {
      if (at.writeOnly) {
        entries.push([k, WRITE_ONLY]);
        continue;
      }
      const e = x.entries.get(k);
      if (!e || isAbsent(e, legacy)) continue;
      entries.push([k, renderNestedAttr(e, at, i + 1, legacy, o)]);
    }
    return renderObjectEntries(entries, i);
  };
  switch (a.nestedType.nesting) {
    case 'single':
      return obj(v, indent);
    case 'list':
    case 'set':
      return renderListItems(
        v.elems.map((e) => obj(e, indent + 1)),
        indent,
      );
    case 'map': {
      if (v.entries.size === 0) return '{}';
      const keys = [...v.entries.keys()].sort(T.compareBytes);
      let buf = '{\n';
      for (const k of keys) buf += `${ind(indent + 1)}${goQuote(k)} = ${obj(v.entries.get(k)!, indent + 1)},\n`;
      return buf + `${ind(indent)}}`;
    }
  }
}

function legacySchema(b: Block): boolean {
  for (const nb of Object.values(b.blockTypes)) if (nb.nesting === 'map' || nb.nesting === 'group') return false;
  for (const a of Object.values(b.attributes)) {
    if (a.nestedType) return false;
    const t = a.type ?? T.Dynamic;
    if (!T.isFullyKnownType(t)) return false;
    if (t.kind === 'tuple' || t.kind === 'object') return false;
    if ((t.kind === 'list' || t.kind === 'set' || t.kind === 'map') && (t.elem.kind === 'list' || t.elem.kind === 'set' || t.elem.kind === 'map')) {
      const ee = t.elem.elem;
      if (!(ee.kind === 'string' || ee.kind === 'number' || ee.kind === 'bool')) return false;
    }
  }
  return true;
}

const SENSITIVE_BLOCK = (indent: number) =>
  `{\n${ind(indent)}  # At least one attribute in this block is (or was) sensitive,\n${ind(indent)}  # so its contents will not be displayed.\n${ind(indent)}}`;

/** A block body `{ … }` (the resource itself or a nested block) at `indent`. */
export function renderBlock(v: Value, b: Block, indent: number, legacyIn: boolean, o: Opts): string {
  if (v.isSensitive) return SENSITIVE_BLOCK(indent);
  const legacy = legacyIn && legacySchema(b);
  const attrs: [string, string][] = [];
  for (const [k, a] of Object.entries(b.attributes)) {
    if (a.writeOnly) {
      attrs.push([k, WRITE_ONLY]);
      continue;
    }
    const e = v.isNull ? undefined : v.entries.get(k);
    if (!e || isAbsent(e, legacy)) continue;
    attrs.push([k, renderNestedAttr(e, a, indent + 1, legacy, o)]);
  }
  const blockKeys = Object.keys(b.blockTypes).sort(T.compareBytes);
  // Lines of each block type, in key order; Terraform separates each type's group from what precedes it by a
  // blank line when the block has attributes.
  const blockLines: string[] = [];
  for (const k of blockKeys) {
    const before = blockLines.length;
    const nb = b.blockTypes[k] as NestedBlock;
    const e = v.isNull ? undefined : v.entries.get(k);
    if (!e || e.isNull) continue;
    const line = (x: Value, mapKey: string) => `${ind(indent + 1)}${attrName(k)}${mapKey} ${renderBlock(x, nb.block, indent + 1, legacy, o)}\n`;
    if (e.isSensitive) blockLines.push(`${ind(indent + 1)}${attrName(k)} ${SENSITIVE_BLOCK(indent + 1)}\n`);
    else switch (nb.nesting) {
      case 'single':
      case 'group':
        blockLines.push(line(e, ''));
        break;
      case 'list':
      case 'set':
        for (const x of e.elems) blockLines.push(line(x, ''));
        break;
      case 'map':
        for (const mk of [...e.entries.keys()].sort(T.compareBytes)) blockLines.push(line(e.entries.get(mk)!, ` ${JSON.stringify(mk)}`));
        break;
    }
    if (blockLines.length > before && attrsPresent(b, v)) blockLines[before] = '\n' + blockLines[before];
  }
  if (attrs.length === 0 && blockLines.length === 0) return '{}';
  let buf = '{\n';
  if (attrs.length) {
    attrs.sort((x, y) => T.compareBytes(x[0], y[0]));
    const names = attrs.map(([k]) => attrName(k));
    const width = Math.max(...names.map((n) => Buffer.byteLength(n)));
    attrs.forEach(([, r], i) => {
      buf += `${ind(indent + 1)}${padRight(names[i], width)} = ${r}\n`;
    });
  }
  if (blockLines.length) buf += blockLines.join('');
  return buf + `${ind(indent)}}`;
}

/** Whether the block renders any attribute line (write-only attributes always do). */
function attrsPresent(b: Block, v: Value): boolean {
  for (const [k, a] of Object.entries(b.attributes)) {
    if (a.writeOnly) return true;
    const e = v.isNull ? undefined : v.entries.get(k);
    if (e && !isAbsent(e, false)) return true;
  }
  return false;
}

function inferredBlock(v: Value): Block {
  const attributes: Record<string, Attribute> = {};
  if (!v.isNull) for (const k of v.entries.keys()) attributes[k] = { type: T.Dynamic, optional: true };
  return { attributes, blockTypes: {} };
}

function renderResource(r: JResource, o: Opts): string {
  let head: string;
  if (r.deposedKey) head = `# ${r.address}: (deposed object ${r.deposedKey})`;
  else if (r.tainted) head = `# ${r.address}: (tainted)`;
  else head = `# ${r.address}:`;
  const value = r.value;
  const block = r.block ?? (value ? inferredBlock(value) : { attributes: {}, blockTypes: {} });
  const body = value ? renderBlock(value, block, 0, true, o) : '{}';
  return `${head}\n${r.mode === 'data' ? 'data' : 'resource'} ${JSON.stringify(r.type)} ${JSON.stringify(r.name)} ${body}\n`;
}

function renderModule(m: JModule, o: Opts, firstIn: boolean): string {
  // As Terraform's renderHumanStateModule: `first` is passed by value, so siblings see the parent's flag.
  let first = firstIn;
  let out = '';
  if (m.resources.length > 0 && !first) out += '\n';
  for (const r of m.resources) {
    if (!first) out += '\n';
    first = false;
    out += renderResource(r, o);
  }
  for (const c of m.children) out += renderModule(c, o, first);
  return out;
}

/** An output value as the state renderer shows it: by its type, empty strings treated as null (legacy rules). */
export function renderOutputValue(out: JOutput, o: Opts): string {
  if (out.sensitive) return '(sensitive value)';
  return renderTyped(out.value, out.value.type, 0, true, o);
}

function moduleEmpty(m: JModule): boolean {
  return m.resources.length === 0 && m.children.length === 0;
}

/** RenderHumanState: the text `terraform show` prints for a state (ends with a newline). */
export function renderHumanState(root: JModule, outputs: readonly JOutput[], color: boolean): string {
  const o: Opts = { color };
  if (outputs.length === 0 && moduleEmpty(root)) return 'The state file is empty. No resources are represented.\n';
  let out = renderModule(root, o, true);
  if (outputs.length) {
    out += '\n\nOutputs:\n\n';
    for (const x of outputs) out += `${x.name} = ${renderOutputValue(x, o)}\n`;
  }
  return out;
}

/** Decodes JSON text and renders it in JSON mode (for tests and callers holding raw JSON). */
export function renderJSONText(text: string, indent: number, color: boolean): string {
  return renderDynamic(inferValue(parseJV(text)), indent, { color });
}
