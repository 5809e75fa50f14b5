// cty's JSON encoding of values with a known type (ctyjson.Marshal / Unmarshal), as Terraform stores resource
// attributes and output values in the state file.
//
// Contracts: `marshal` takes a wholly known, unmarked value and its type (dynamic-typed positions are written as
// {"value":...,"type":...}); object attributes and map keys are written in byte order; numbers exactly. `unmarshal`
// parses JSON text against a type, keeping numbers exact (no float64 round trip); it returns an error string for
// text that does not match the type (a state/provider bug), never throws for bad input.

import { Num } from '../lang/number';
import * as T from '../lang/types';
import type { Type } from '../lang/types';
import { Value } from '../lang/value';
import { typeFromJSON, typeToJSON } from '../providers/wire';

function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** The JSON text of a value of type `t` (cty JSON). Throws for unknown values (a bug in the caller). */
export function marshal(v: Value, t: Type = v.type): string {
  if (t.kind === 'dynamic') {
    if (v.isNull) return 'null';
    return `{"value":${marshal(v, v.type)},"type":${JSON.stringify(typeToJSON(v.type))}}`;
  }
  if (!v.isKnown) throw new Error('ctyjson: unknown value');
  if (v.isNull) return 'null';
  switch (t.kind) {
    case 'string':
      return quote(v.str);
    case 'number':
      return v.num.toString();
    case 'bool':
      return v.bool ? 'true' : 'false';
    case 'list':
    case 'set':
      return '[' + v.elems.map((e) => marshal(e, t.elem)).join(',') + ']';
    case 'tuple':
      return '[' + v.elems.map((e, i) => marshal(e, t.elems[i])).join(',') + ']';
    case 'map': {
      const keys = [...v.entries.keys()].sort(T.compareBytes);
      return '{' + keys.map((k) => quote(k) + ':' + marshal(v.entries.get(k)!, t.elem)).join(',') + '}';
    }
    case 'object': {
      const keys = [...t.attrs.keys()].sort(T.compareBytes);
      return '{' + keys.map((k) => quote(k) + ':' + marshal(v.entries.get(k) ?? Value.null(t.attrs.get(k)!), t.attrs.get(k)!)).join(',') + '}';
    }
    default:
      throw new Error(`ctyjson: cannot marshal ${t.kind}`);
  }
}

/** The cty type JSON text (`"string"`, `["list","string"]`, ...). */
export function marshalType(t: Type): string {
  return JSON.stringify(typeToJSON(t));
}

// ---- a JSON reader keeping number text ----------------------------------------------------------------

type J = null | boolean | { n: string } | string | J[] | { o: Map<string, J> };

class Reader {
  i = 0;
  constructor(readonly s: string) {}
  ws(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s[this.i])) this.i++;
  }
  value(): J {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') {
      this.i++;
      const o = new Map<string, J>();
      this.ws();
      if (this.s[this.i] === '}') {
        this.i++;
        return { o };
      }
      for (;;) {
        this.ws();
        const k = this.str();
        this.ws();
        if (this.s[this.i++] !== ':') throw new Error('expected :');
        o.set(k, this.value());
        this.ws();
        const d = this.s[this.i++];
        if (d === '}') return { o };
        if (d !== ',') throw new Error('expected ,');
      }
    }
    if (c === '[') {
      this.i++;
      const a: J[] = [];
      this.ws();
      if (this.s[this.i] === ']') {
        this.i++;
        return a;
      }
      for (;;) {
        a.push(this.value());
        this.ws();
        const d = this.s[this.i++];
        if (d === ']') return a;
        if (d !== ',') throw new Error('expected ,');
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
    const m = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
    m.lastIndex = this.i;
    const r = m.exec(this.s);
    if (!r) throw new Error(`unexpected ${c}`);
    this.i += r[0].length;
    return { n: r[0] };
  }
  str(): string {
    if (this.s[this.i] !== '"') throw new Error('expected string');
    const start = this.i;
    this.i++;
    while (this.i < this.s.length && this.s[this.i] !== '"') this.i += this.s[this.i] === '\\' ? 2 : 1;
    this.i++;
    return JSON.parse(this.s.slice(start, this.i)) as string;
  }
}

function isNum(j: J): j is { n: string } {
  return j !== null && typeof j === 'object' && !Array.isArray(j) && 'n' in j;
}
function isObj(j: J): j is { o: Map<string, J> } {
  return j !== null && typeof j === 'object' && !Array.isArray(j) && 'o' in j;
}

function toJSONish(j: J): unknown {
  if (isNum(j)) return Number(j.n);
  if (isObj(j)) return Object.fromEntries([...j.o].map(([k, v]) => [k, toJSONish(v)]));
  if (Array.isArray(j)) return j.map(toJSONish);
  return j;
}

function build(j: J, t: Type): Value {
  if (j === null) return Value.null(t);
  switch (t.kind) {
    case 'dynamic': {
      if (!isObj(j) || !j.o.has('type')) throw new Error('dynamic value without type');
      const ty = typeFromJSON(toJSONish(j.o.get('type')!));
      return build(j.o.get('value') ?? null, ty);
    }
    case 'string':
      if (typeof j === 'string') return Value.string(j);
      if (typeof j === 'boolean') return Value.string(String(j));
      if (isNum(j)) return Value.string(j.n);
      throw new Error('string expected');
    case 'number': {
      const s = isNum(j) ? j.n : typeof j === 'string' ? j : undefined;
      const n = s === undefined ? undefined : Num.parse(s);
      if (!n) throw new Error('number expected');
      return Value.number(n);
    }
    case 'bool':
      if (typeof j === 'boolean') return Value.bool(j);
      if (j === 'true' || j === 'false') return Value.bool(j === 'true');
      throw new Error('bool expected');
    case 'list':
    case 'set': {
      if (!Array.isArray(j)) throw new Error('array expected');
      const es = j.map((e) => build(e, t.elem));
      return t.kind === 'list' ? Value.list(es, t.elem) : Value.set(es, t.elem);
    }
    case 'tuple': {
      if (!Array.isArray(j) || j.length !== t.elems.length) throw new Error('tuple expected');
      return Value.tuple(j.map((e, i) => build(e, t.elems[i])));
    }
    case 'map': {
      if (!isObj(j)) throw new Error('object expected');
      const m = new Map<string, Value>();
      for (const k of [...j.o.keys()].sort(T.compareBytes)) m.set(k, build(j.o.get(k)!, t.elem));
      return Value.map(m, t.elem);
    }
    case 'object': {
      if (!isObj(j)) throw new Error('object expected');
      const m = new Map<string, Value>();
      for (const [k, at] of t.attrs) m.set(k, j.o.has(k) ? build(j.o.get(k)!, at) : Value.null(at));
      return Value.raw(t, m);
    }
    default:
      throw new Error(`cannot unmarshal ${t.kind}`);
  }
}

/** Parses cty JSON text as a value of type `t`. */
export function unmarshal(text: string, t: Type): { value: Value; error?: undefined } | { value?: undefined; error: string } {
  try {
    const r = new Reader(text);
    const j = r.value();
    return { value: build(j, t) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Parses a cty type JSON text. */
export function unmarshalType(text: string): Type {
  return typeFromJSON(JSON.parse(text));
}
