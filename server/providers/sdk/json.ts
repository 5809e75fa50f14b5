// cty's JSON value encoding for provider SDK code: the form of a resource object in the state file's
// `attributes` (and of UpgradeResourceState's rawStateJson / MoveResourceState's sourceStateJson).
//
// `unmarshalState(text, type)` is ctyjson.Unmarshal for a known type: objects are JSON objects (attributes the
// type lacks are an error unless `ignoreUndefined` is set, as terraform-plugin-framework decodes the current
// schema version; missing attributes become null), lists, sets and tuples are arrays, maps are objects,
// numbers keep their exact decimal text, and a `dynamic` position holds `{"value": …, "type": …}` with the
// type in cty's JSON type syntax. `marshalState(value)` is the inverse (ctyjson.Marshal with the value's own
// type as the wanted type, which is what providers store). Errors are returned, never thrown, as strings in
// cty's wording prefixed by the path (`.a[0]: string required`). Siblings: values.ts, define.ts.

import { Num } from '../../lang/number';
import * as T from '../../lang/types';
import type { Type } from '../../lang/types';
import { Value } from '../../lang/value';
import type { Path, Step } from '../path';
import { attrStep, formatPath, indexStep } from '../path';
import { typeFromJSON, typeToJSON } from '../wire';

/** A JSON document parsed with numbers kept as their source text. */
type J = null | boolean | { num: string } | string | J[] | { obj: [string, J][] };

class Parser {
  i = 0;
  constructor(readonly s: string) {}
  ws(): void {
    while (this.i < this.s.length && ' \t\r\n'.includes(this.s[this.i])) this.i++;
  }
  fail(msg: string): never {
    throw new SyntaxError(msg);
  }
  value(): J {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') {
      this.i++;
      const obj: [string, J][] = [];
      this.ws();
      if (this.s[this.i] === '}') {
        this.i++;
        return { obj };
      }
      for (;;) {
        this.ws();
        if (this.s[this.i] !== '"') this.fail('invalid character in object key');
        const k = this.str();
        this.ws();
        if (this.s[this.i++] !== ':') this.fail("expected ':' after object key");
        obj.push([k, this.value()]);
        this.ws();
        const d = this.s[this.i++];
        if (d === '}') return { obj };
        if (d !== ',') this.fail("expected ',' or '}' after object value");
      }
    }
    if (c === '[') {
      this.i++;
      const arr: J[] = [];
      this.ws();
      if (this.s[this.i] === ']') {
        this.i++;
        return arr;
      }
      for (;;) {
        arr.push(this.value());
        this.ws();
        const d = this.s[this.i++];
        if (d === ']') return arr;
        if (d !== ',') this.fail("expected ',' or ']' after array element");
      }
    }
    if (c === '"') return this.str();
    if (this.s.startsWith('true', this.i)) {
      this.i += 4;
      return true;
    }
    if (this.s.startsWith('false', this.i)) {
      this.i += 5;
      return false;
    }
    if (this.s.startsWith('null', this.i)) {
      this.i += 4;
      return null;
    }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(this.s.slice(this.i, this.i + 4096));
    if (!m || m[0] === '') this.fail(`invalid character ${JSON.stringify(c ?? '')} looking for beginning of value`);
    this.i += m[0].length;
    return { num: m[0] };
  }
  str(): string {
    const start = this.i;
    this.i++;
    let esc = false;
    while (this.i < this.s.length) {
      const c = this.s[this.i++];
      if (esc) esc = false;
      else if (c === '\\') esc = true;
      else if (c === '"') return JSON.parse(this.s.slice(start, this.i)) as string;
    }
    this.fail('unexpected end of JSON input');
  }
}

/**
 * Texts the native parser reads exactly as Parser does: no number with a fraction, an exponent or more than 15
 * digits, or -0 (a double holds every other integer exactly; these keep their text through Parser), and no key made of
 * digits (the native parser puts those first in an object, Parser keeps the source order). A number starts the
 * text or follows a colon, comma or bracket; strings that merely look like these send a text to Parser too,
 * which is only slower.
 */
const NEEDS_SOURCE_ORDER_OR_TEXT = /(?:^|[:,[])[ \t\r\n]*(?:-?[0-9]+(?:[.eE]|[0-9]{15})|-0)|"[0-9]+"[ \t\r\n]*:/;

function fromNative(v: unknown): J {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return { num: String(v) };
  if (Array.isArray(v)) {
    const out: J[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = fromNative(v[i]);
    return out;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  const obj: [string, J][] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) obj[i] = [keys[i], fromNative(o[keys[i]])];
  return { obj };
}

function parse(text: string): { json: J } | { error: string } {
  // The native parser, where it reads the text the same way: state attributes are parsed once per instance per
  // plan, and a character loop in JavaScript costs more than the rest of decoding.
  if (!NEEDS_SOURCE_ORDER_OR_TEXT.test(text)) {
    try {
      return { json: fromNative(JSON.parse(text)) };
    } catch {
      // Parser gives the error in Go's words.
    }
  }
  try {
    const p = new Parser(text);
    const json = p.value();
    p.ws();
    if (p.i !== text.length) return { error: 'invalid character after top-level value' };
    return { json };
  } catch (e) {
    if (e instanceof SyntaxError) return { error: e.message };
    throw e;
  }
}

class DecodeError extends Error {}

function fail(path: Path, msg: string): never {
  throw new DecodeError(path.length ? `${formatPath(path)}: ${msg}` : msg);
}

/** `path` is the position of `j`, extended in place (push, recurse, pop); fail() formats it when it throws. */
function decode(j: J, t: Type, path: Step[], ignoreUndefined: boolean): Value {
  if (t.kind === 'dynamic') {
    if (j === null) return Value.null(T.Dynamic);
    if (typeof j !== 'object' || Array.isArray(j) || !('obj' in j)) fail(path, 'dynamic value must be an object with "value" and "type"');
    let ty: Type | undefined;
    let val: J | undefined;
    for (const [k, v] of j.obj) {
      if (k === 'type') ty = typeFromJSON(toPlain(v));
      else if (k === 'value') val = v;
      else fail(path, `invalid key ${JSON.stringify(k)} in dynamically-typed value`);
    }
    if (!ty) fail(path, 'missing type in dynamically-typed value');
    if (val === undefined) fail(path, 'missing value in dynamically-typed value');
    return decode(val, ty, path, ignoreUndefined);
  }
  if (j === null) return Value.null(t);
  switch (t.kind) {
    case 'string':
      if (typeof j === 'string') return Value.string(j);
      if (typeof j === 'boolean') return Value.string(j ? 'true' : 'false');
      if (typeof j === 'object' && !Array.isArray(j) && 'num' in j) return Value.string(j.num);
      return fail(path, 'string required');
    case 'number': {
      const text = typeof j === 'string' ? j : typeof j === 'object' && !Array.isArray(j) && 'num' in j ? j.num : undefined;
      const n = text === undefined ? undefined : Num.parse(text);
      if (!n) return fail(path, 'number required');
      return Value.number(n);
    }
    case 'bool':
      if (typeof j === 'boolean') return Value.bool(j);
      if (j === 'true' || j === 'false') return Value.bool(j === 'true');
      return fail(path, 'bool required');
    case 'list':
    case 'set': {
      if (!Array.isArray(j)) return fail(path, `${t.kind} required`);
      const es: Value[] = new Array(j.length);
      for (let i = 0; i < j.length; i++) {
        path.push(indexStep(i));
        es[i] = decode(j[i], t.elem, path, ignoreUndefined);
        path.pop();
      }
      return t.kind === 'set' ? Value.set(es, t.elem) : Value.list(es, t.elem);
    }
    case 'tuple': {
      if (!Array.isArray(j)) return fail(path, 'tuple required');
      if (j.length !== t.elems.length) fail(path, `tuple has ${t.elems.length} elements, but ${j.length} given`);
      const es: Value[] = new Array(j.length);
      for (let i = 0; i < j.length; i++) {
        path.push(indexStep(i));
        es[i] = decode(j[i], t.elems[i], path, ignoreUndefined);
        path.pop();
      }
      return Value.tuple(es);
    }
    case 'map': {
      if (typeof j !== 'object' || Array.isArray(j) || !('obj' in j)) return fail(path, 'map required');
      const m = new Map<string, Value>();
      for (const [k, v] of j.obj) {
        path.push(indexStep(k));
        m.set(k, decode(v, t.elem, path, ignoreUndefined));
        path.pop();
      }
      return Value.map(m, t.elem);
    }
    case 'object': {
      if (typeof j !== 'object' || Array.isArray(j) || !('obj' in j)) return fail(path, 'object required');
      const m = new Map<string, Value>();
      for (const [k, v] of j.obj) {
        const at = t.attrs.get(k);
        if (!at) {
          if (ignoreUndefined) continue;
          fail(path, `unsupported attribute ${JSON.stringify(k)}`);
        }
        path.push(attrStep(k));
        m.set(k, decode(v, at, path, ignoreUndefined));
        path.pop();
      }
      for (const [k, at] of t.attrs) if (!m.has(k)) m.set(k, Value.null(at));
      // As cty.ObjectVal: the object's type comes from its values, so dynamic attributes get concrete types.
      return Value.object(m);
    }
    default:
      return fail(path, `unsupported type ${t.kind}`);
  }
}

function toPlain(j: J): unknown {
  if (j === null || typeof j !== 'object') return j;
  if (Array.isArray(j)) return j.map(toPlain);
  if ('num' in j) return Number(j.num);
  const o: Record<string, unknown> = {};
  for (const [k, v] of j.obj) o[k] = toPlain(v);
  return o;
}

/** ctyjson.Unmarshal of a stored object into `t`; an error string in cty's words on failure. */
export function unmarshalState(text: string, t: Type, opts: { ignoreUndefined?: boolean } = {}): { value: Value } | { error: string } {
  const p = parse(text);
  if ('error' in p) return p;
  try {
    return { value: decode(p.json, t, [], !!opts.ignoreUndefined) };
  } catch (e) {
    if (e instanceof DecodeError) return { error: e.message };
    throw e;
  }
}

function encode(v: Value, want: Type): string {
  if (want.kind === 'dynamic') {
    return `{"value":${encode(v, v.type)},"type":${JSON.stringify(typeToJSON(v.type))}}`;
  }
  if (!v.isKnown) throw new Error('value is not known');
  if (v.isNull) return 'null';
  switch (v.type.kind) {
    case 'string':
      return JSON.stringify(v.str);
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'number':
      return v.num.toString();
    case 'list':
    case 'set':
      return `[${v.elems.map((e) => encode(e, want.kind === 'list' || want.kind === 'set' ? want.elem : e.type)).join(',')}]`;
    case 'tuple':
      return `[${v.elems.map((e, i) => encode(e, want.kind === 'tuple' ? want.elems[i] : e.type)).join(',')}]`;
    case 'map':
    case 'object': {
      const keys = [...v.entries.keys()].sort(T.compareBytes);
      const et = (k: string): Type => (want.kind === 'map' ? want.elem : want.kind === 'object' ? want.attrs.get(k) ?? T.Dynamic : T.Dynamic);
      return `{${keys.map((k) => `${JSON.stringify(k)}:${encode(v.entries.get(k)!, et(k))}`).join(',')}}`;
    }
    default:
      throw new Error(`cannot encode ${v.type.kind}`);
  }
}

/**
 * ctyjson.Marshal(v, want): the state-file JSON of a wholly known, unmarked value. `want` (usually the
 * schema's implied type) decides where `dynamic` wrappers go. Unknown values throw: they are never stored.
 */
export function marshalState(v: Value, want: Type = v.type): string {
  return encode(v, want);
}
