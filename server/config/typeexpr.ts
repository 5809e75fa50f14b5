// Type constraints of `variable` blocks (string, list(number), object({a=optional(string,"x")}), any),
// parsed from the expression's source text as Terraform's typeexpr does, with its diagnostics.
// Defaults inside optional(...) are kept as source text (evaluated later by the expression engine).

import type { Diagnostic } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import * as T from '../lang/types';
import type { Type } from '../lang/types';
import type { Expression } from './hclbody';
import type { SourceText } from './source';

interface Tok {
  kind: 'ident' | 'punct' | 'string' | 'other' | 'eof';
  text: string;
  start: number; // UTF-16 offset in the file
  end: number;
}

function tokenize(text: string, base: number): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < text.length && /[A-Za-z0-9_-]/.test(text[j])) j++;
      out.push({ kind: 'ident', text: text.slice(i, j), start: base + i, end: base + j });
      i = j;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out.push({ kind: 'string', text: text.slice(i, j + 1), start: base + i, end: base + j + 1 });
      i = j + 1;
      continue;
    }
    if ('(){}[],=:'.includes(c)) {
      out.push({ kind: 'punct', text: c, start: base + i, end: base + i + 1 });
      i++;
      continue;
    }
    // anything else: a value token (numbers, operators) only meaningful inside optional() defaults
    let j = i + 1;
    while (j < text.length && !/[\s(){}[\],=:"]/.test(text[j])) j++;
    out.push({ kind: 'other', text: text.slice(i, j), start: base + i, end: base + j });
    i = j;
  }
  out.push({ kind: 'eof', text: '', start: base + text.length, end: base + text.length });
  return out;
}

/** Parses a type constraint expression. Returns Dynamic with a diagnostic when it is invalid. */
export function parseTypeConstraint(e: Expression, src: SourceText): { type: Type; diags: Diagnostic[] } {
  const toks = tokenize(e.text, e.offset);
  let p = 0;
  const diags: Diagnostic[] = [];
  const rng = (a: number, b: number) => src.range(a, b);
  const fail = (summary: string, detail: string, a: number, b: number): never => {
    diags.push(error(summary, detail, rng(a, b)));
    throw new TypeErr();
  };
  const peek = () => toks[p];
  const next = () => toks[p++];
  const expect = (s: string, what: string, callStart: number) => {
    const t = next();
    if (t.text !== s || t.kind !== 'punct') fail('Invalid type specification', what, callStart, t.end);
  };

  function parseType(allowOptional: boolean): Type {
    const t = next();
    if (t.kind === 'string') {
      fail('Invalid type specification', 'A type specification is either a primitive type keyword (bool, number, string) or a complex type constructor call, like list(string).', t.start, t.end);
    }
    if (t.kind !== 'ident') {
      fail('Invalid type specification', 'A type specification is either a primitive type keyword (bool, number, string) or a complex type constructor call, like list(string).', t.start, t.end);
    }
    const isCall = peek().kind === 'punct' && peek().text === '(';
    switch (t.text) {
      case 'string':
      case 'number':
      case 'bool':
      case 'any':
        if (isCall)
          fail('Invalid type specification', `Primitive type keyword "${t.text}" does not expect arguments.`, t.start, peek().end);
        return t.text === 'string' ? T.String : t.text === 'number' ? T.Number : t.text === 'bool' ? T.Bool : T.Dynamic;
      case 'list':
      case 'set':
      case 'map':
      case 'tuple':
      case 'object':
      case 'optional':
        break;
      default:
        if (isCall) {
          let depth = 0;
          let end = t.end;
          for (let k = p; k < toks.length && toks[k].kind !== 'eof'; k++) {
            if (toks[k].text === '(') depth++;
            if (toks[k].text === ')' && --depth === 0) {
              end = toks[k].end;
              break;
            }
          }
          fail('Invalid type specification', `Keyword "${t.text}" is not a valid type constructor.`, t.start, end);
        }
        fail('Invalid type specification', `The keyword "${t.text}" is not a valid type specification.`, t.start, t.end);
    }
    if (!isCall) {
      const detail =
        t.text === 'optional'
          ? 'Keyword "optional" is valid only as a modifier for object type attributes.'
          : `The ${t.text} type constructor requires one argument specifying the element type${t.text === 'object' ? '' : ''}.`;
      if (t.text === 'object')
        fail('Invalid type specification', 'The object type constructor requires one argument specifying the attribute types as a map.', t.start, t.end);
      if (t.text === 'tuple')
        fail('Invalid type specification', 'The tuple type constructor requires one argument specifying the element types as a list.', t.start, t.end);
      fail('Invalid type specification', detail, t.start, t.end);
    }
    next(); // (
    if (t.text === 'optional' && !allowOptional)
      fail('Invalid type specification', 'Keyword "optional" is valid only as a modifier for object type attributes.', t.start, t.end);
    let result: Type;
    if (t.text === 'list' || t.text === 'set' || t.text === 'map') {
      const el = parseType(false);
      result = t.text === 'list' ? T.List(el) : t.text === 'set' ? T.Set(el) : T.Map(el);
    } else if (t.text === 'tuple') {
      expect('[', 'The tuple type constructor requires a list of element types.', t.start);
      const elems: Type[] = [];
      while (!(peek().kind === 'punct' && peek().text === ']')) {
        if (peek().kind === 'eof') fail('Invalid type specification', 'Unterminated tuple type.', t.start, peek().end);
        elems.push(parseType(false));
        if (peek().text === ',') next();
      }
      next();
      result = T.Tuple(elems);
    } else if (t.text === 'object') {
      expect('{', 'The object type constructor requires one argument specifying the attribute types as a map.', t.start);
      const attrs = new Map<string, Type>();
      const optional = new Set<string>();
      while (!(peek().kind === 'punct' && peek().text === '}')) {
        const k = next();
        if (k.kind !== 'ident' && k.kind !== 'string')
          fail('Invalid type specification', 'Object type attribute names must be identifiers.', k.start, k.end);
        const name = k.kind === 'string' ? k.text.slice(1, -1) : k.text;
        const sep = next();
        if (sep.text !== '=' && sep.text !== ':') fail('Invalid type specification', 'Missing attribute separator.', sep.start, sep.end);
        const isOpt = peek().kind === 'ident' && peek().text === 'optional' && toks[p + 1]?.text === '(';
        if (isOpt) {
          next();
          next();
          attrs.set(name, parseType(false));
          optional.add(name);
          if (peek().text === ',') {
            next();
            // default value: skip a balanced expression
            let depth = 0;
            while (peek().kind !== 'eof' && !(depth === 0 && peek().text === ')')) {
              const x = next();
              if ('([{'.includes(x.text) && x.kind === 'punct') depth++;
              if (')]}'.includes(x.text) && x.kind === 'punct') depth--;
            }
          }
          expect(')', 'Missing closing parenthesis for optional.', k.start);
        } else attrs.set(name, parseType(false));
        if (peek().text === ',') next();
        if (peek().kind === 'eof') fail('Invalid type specification', 'Unterminated object type.', t.start, peek().end);
      }
      next();
      const o = T.Obj(attrs) as T.ObjectType;
      result = optional.size ? { ...o, optional } : o;
    } else {
      result = parseType(false);
    }
    expect(')', `Extra characters after the ${t.text} type argument.`, t.start);
    return result;
  }

  try {
    const ty = parseType(false);
    if (peek().kind !== 'eof') fail('Invalid type specification', 'Extra characters after type specification.', peek().start, peek().end);
    return { type: ty, diags };
  } catch (e) {
    if (e instanceof TypeErr) return { type: T.Dynamic, diags };
    throw e;
  }
}

class TypeErr extends Error {}
