// Prints a value exactly as `terraform console` does (its repl FormatValue): typed nulls as conversions,
// collections wrapped in tolist/toset/tomap, object keys quoted and sorted, two-space indentation,
// multi-line strings as heredocs, marked values as "(sensitive value)" / "(ephemeral value)" and unknown
// values as "(known after apply)". Also exports goQuote, Go's strconv.Quote.

import * as T from './types';
import type { Num } from './number';
import type { Value } from './value';

/** The console's text for a value (no trailing newline). `indent` is the current indentation width. */
export function formatValue(v: Value, indent = 0): string {
  if (!v.isKnown) return '(known after apply)';
  if (v.marks.has('sensitive')) return '(sensitive value)';
  if (v.marks.has('ephemeral')) return '(ephemeral value)';
  const ty = v.type;
  if (v.isNull) {
    switch (ty.kind) {
      case 'dynamic':
        return 'null';
      case 'string':
        return 'tostring(null)';
      case 'number':
        return 'tonumber(null)';
      case 'bool':
        return 'tobool(null)';
      case 'list':
      case 'set':
      case 'map':
        return `to${ty.kind}(null) /* of ${T.friendlyName(ty.elem)} */`;
      default:
        return `null /* ${T.friendlyName(ty)} */`;
    }
  }
  switch (ty.kind) {
    case 'string': {
      const ml = formatMultilineString(v.str, indent);
      return ml ?? goQuote(v.str);
    }
    case 'number':
      return v.num.toString();
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'object':
      return formatMapping(v, indent);
    case 'tuple':
      return formatSequence(v, indent);
    case 'list':
      return `tolist(${formatSequence(v, indent)})`;
    case 'set':
      return `toset(${formatSequence(v, indent)})`;
    case 'map':
      return `tomap(${formatMapping(v, indent)})`;
    case 'typeval':
      return consoleTypeString(v.typeValue);
    default:
      return '';
  }
}

function formatMultilineString(s: string, indent: number): string | undefined {
  const lines = s.split('\n');
  if (lines.length < 2) return undefined;
  const op = indent > 0 ? '<<-' : '<<';
  let delim = 'EOT';
  while (lines.some((l) => goTrimSpace(l) === delim)) delim += '_';
  const pad = ' '.repeat(indent);
  let out = op + delim;
  for (const l of lines) out += '\n' + pad + l;
  return out + '\n' + pad + delim;
}

function goTrimSpace(s: string): string {
  return s.replace(/^[\t\n\v\f\r \u0085\u00a0]+|[\t\n\v\f\r \u0085\u00a0]+$/g, '');
}

function formatMapping(v: Value, indent: number): string {
  const entries = v.entries;
  const keys = [...entries.keys()].sort(T.compareBytes);
  if (keys.length === 0) return '{}';
  const inner = indent + 2;
  const pad = ' '.repeat(inner);
  let out = '{';
  for (const k of keys) {
    out += `\n${pad}${formatMultilineString(k, inner) ?? goQuote(k)} = ${formatValue(entries.get(k)!, inner)}`;
  }
  return out + '\n' + ' '.repeat(indent) + '}';
}

function formatSequence(v: Value, indent: number): string {
  const elems = v.elems;
  if (elems.length === 0) return '[]';
  const inner = indent + 2;
  const pad = ' '.repeat(inner);
  let out = '[';
  for (const e of elems) out += `\n${pad}${formatValue(e, inner)},`;
  return out + '\n' + ' '.repeat(indent) + ']';
}

// One implementation of Go's quoting for the whole engine (lang/goquote.ts); re-exported for this module's users.
import { goQuote } from './goquote';
export { goQuote };

/** A type as the console's type() prints it: collections of non-primitive types span several lines. */
export function consoleTypeString(t: T.Type, indent = ''): string {
  switch (t.kind) {
    case 'list':
    case 'set':
    case 'map': {
      if (T.isPrimitive(t.elem) || t.elem.kind === 'dynamic') return `${t.kind}(${consoleTypeString(t.elem, indent)})`;
      const inner = indent + '    ';
      return `${t.kind}(\n${inner}${consoleTypeString(t.elem, inner)},\n${indent})`;
    }
    case 'tuple': {
      if (t.elems.length === 0) return 'tuple([])';
      const inner = indent + '    ';
      return `tuple([\n${t.elems.map((e) => `${inner}${consoleTypeString(e, inner)},\n`).join('')}${indent}])`;
    }
    case 'object': {
      const names = T.attrNames(t);
      if (names.length === 0) return 'object({})';
      const inner = indent + '    ';
      return `object({\n${names.map((n) => `${inner}${n}: ${consoleTypeString(t.attrs.get(n)!, inner)},\n`).join('')}${indent}})`;
    }
    default:
      return T.typeString(t);
  }
}

/** Go's big.Float Text('g', 10). */
export function goFormatG10(n: Num): string {
  if (n.isInf()) return n.sign() > 0 ? '+Inf' : '-Inf';
  const x = n.toNumber();
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mant, expStr] = x.toExponential(9).split('e');
  const exp = parseInt(expStr, 10);
  const digits = mant.replace('-', '').replace('.', '').replace(/0+$/, '') || '0';
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 10) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' + e : e}`;
  }
  if (exp >= 0) {
    const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1);
    return `${sign}${intPart}${frac ? '.' + frac : ''}`;
  }
  return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
}
