// Built-in regular-expression functions of Terraform 1.11: regex, regexall and replace (a /…/ substring is a
// regular expression). RE2 syntax and Go semantics come from ../regex.ts. Pattern errors differ by function,
// as in Terraform: regex/regexall report "invalid regexp pattern: <code> in <expr>" against the pattern
// argument, replace reports Go's raw "error parsing regexp: <code>: `<expr>`" as a call error.
// Messages carry no trailing period: the call wrapper appends one (see crypto.ts).

import * as T from '../types';
import type { Type } from '../types';
import { Value } from '../value';
import { compileRE2, findAll, findFirst, replaceAll, RE2SyntaxError, type RE2 } from '../regex';
import { FuncArgError, FuncError, type FuncSpec } from './function';

const cache = new Map<string, RE2>();

function compileForRegex(pattern: string): RE2 {
  let re = cache.get(pattern);
  if (re) return re;
  try {
    re = compileRE2(pattern);
  } catch (e) {
    if (e instanceof RE2SyntaxError) throw new FuncArgError(0, `invalid regexp pattern: ${e.code} in ${e.expr}`);
    throw e;
  }
  if (re.groups > 0) {
    const named = re.names.slice(1).filter((n) => n !== '').length;
    if (named > 0 && named !== re.groups) throw new FuncArgError(0, 'invalid regexp pattern: cannot mix both named and unnamed capture groups');
  }
  cache.set(pattern, re);
  return re;
}

/** The type of one match: string (no groups), tuple of strings (unnamed groups) or object (named groups). */
function matchType(re: RE2): Type {
  if (re.groups === 0) return T.String;
  if (re.names[1] !== '') {
    const attrs = new Map<string, Type>();
    for (let k = 1; k <= re.groups; k++) attrs.set(re.names[k], T.String);
    return T.Obj(attrs);
  }
  return T.Tuple(new Array(re.groups).fill(T.String));
}

function matchValue(re: RE2, m: RegExpExecArray): Value {
  if (re.groups === 0) return Value.string(m[0]);
  const g = (k: number) => (m[k] === undefined ? Value.null(T.String) : Value.string(m[k]));
  if (re.names[1] !== '') {
    const entries = new Map<string, Value>();
    const order = re.names
      .slice(1)
      .map((n, idx) => [n, idx + 1] as const)
      .sort((a, b) => T.compareBytes(a[0], b[0]));
    for (const [n, k] of order) entries.set(n, g(k));
    return Value.raw(matchType(re), entries);
  }
  const elems: Value[] = [];
  for (let k = 1; k <= re.groups; k++) elems.push(g(k));
  return Value.raw(matchType(re), elems);
}

export const functions: Record<string, FuncSpec> = {
  regex: {
    params: [
      { name: 'pattern', type: T.String },
      { name: 'string', type: T.String },
    ],
    type: (args) => (args[0].isKnown ? matchType(compileForRegex(args[0].str)) : T.Dynamic),
    impl: (args) => {
      const re = compileForRegex(args[0].str);
      const m = findFirst(re, args[1].str);
      if (!m) throw new FuncError('pattern did not match any part of the given string');
      return matchValue(re, m);
    },
  },
  regexall: {
    params: [
      { name: 'pattern', type: T.String },
      { name: 'string', type: T.String },
    ],
    type: (args) => (args[0].isKnown ? T.List(matchType(compileForRegex(args[0].str))) : T.List(T.Dynamic)),
    impl: (args) => {
      const re = compileForRegex(args[0].str);
      const elemT = matchType(re);
      return Value.list(
        findAll(re, args[1].str).map((m) => matchValue(re, m)),
        elemT,
      );
    },
  },
  replace: {
    params: [
      { name: 'str', type: T.String },
      { name: 'substr', type: T.String },
      { name: 'replace', type: T.String },
    ],
    returns: T.String,
    impl: (args) => {
      const s = args[0].str;
      const sub = args[1].str;
      const rep = args[2].str;
      if (sub.length > 1 && sub.startsWith('/') && sub.endsWith('/')) {
        let re: RE2;
        try {
          re = compileRE2(sub.slice(1, -1));
        } catch (e) {
          if (e instanceof RE2SyntaxError) throw new FuncError(e.message);
          throw e;
        }
        return Value.string(replaceAll(re, s, rep));
      }
      if (sub === '') {
        // Go's strings.Replace with an empty old string inserts at every rune boundary.
        return Value.string(rep + [...s].join(rep) + (s.length > 0 ? rep : ''));
      }
      return Value.string(s.split(sub).join(rep));
    },
  },
};
