// String built-in functions (go-cty stdlib and Terraform's lang/funcs): chomp, endswith, format,
// formatlist, indent, join, lower, upper, split, startswith, strcontains, strrev, substr, title, trim,
// trimprefix, trimsuffix, trimspace. "Characters" are grapheme clusters where Terraform counts them so.
// Messages are passed without their final period; the call machinery adds it.

import * as T from '../types';
import { Value } from '../value';
import { fn, FuncArgError, FuncError, type FuncSpec } from './function';
import { formatValues } from './_format';
import { graphemes, isGoSpace, toGoInt } from './_util';

const str = (name: string, extra: Partial<{ allowUnknown: boolean; allowDynamicType: boolean }> = {}) => ({
  name,
  type: T.String,
  ...extra,
});

/** Go's unicode.ToUpper/ToLower applied rune by rune (simple case mapping: no length changes). */
function mapRunes(s: string, f: (c: string) => string): string {
  let out = '';
  for (const c of s) {
    const m = f(c);
    out += [...m].length === 1 ? m : c;
  }
  return out;
}
function goLower(c: string): string {
  if (c === '\u0130') return 'i';
  return c.toLowerCase();
}

/** Letters whose title case differs from their upper case (Unicode digraphs). */
const TITLE_CASE: Record<string, string> = {
  '\u01c4': '\u01c5', '\u01c5': '\u01c5', '\u01c6': '\u01c5',
  '\u01c7': '\u01c8', '\u01c8': '\u01c8', '\u01c9': '\u01c8',
  '\u01ca': '\u01cb', '\u01cb': '\u01cb', '\u01cc': '\u01cb',
  '\u01f1': '\u01f2', '\u01f2': '\u01f2', '\u01f3': '\u01f2',
};

function goTitle(s: string): string {
  // strings.Title: upper-case letters that follow a separator.
  const isSeparator = (c: string): boolean => {
    const cp = c.codePointAt(0)!;
    if (cp <= 0x7f) {
      if (/[0-9a-zA-Z_]/.test(c)) return false;
      return true;
    }
    if (/[\p{L}\p{Nd}]/u.test(c)) return false;
    return isGoSpace(cp);
  };
  let prev = ' ';
  let out = '';
  for (const c of s) {
    if (isSeparator(prev)) {
      const u = TITLE_CASE[c] ?? c.toUpperCase();
      out += [...u].length === 1 ? u : c;
    } else out += c;
    prev = c;
  }
  return out;
}

function goTrimFunc(s: string, cut: (cp: number) => boolean): string {
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  while (a < b && cut(cps[a].codePointAt(0)!)) a++;
  while (b > a && cut(cps[b - 1].codePointAt(0)!)) b--;
  return cps.slice(a, b).join('');
}

function formatAny(args: readonly Value[]): Value | undefined {
  // A null of unknown type (the bare `null` keyword) makes the result unknown, as Terraform does.
  for (const a of args.slice(1)) if (!a.isWhollyKnown || (a.isNull && a.type.kind === 'dynamic')) return Value.unknown(T.String);
  return undefined;
}

export const functions: Record<string, FuncSpec> = {
  upper: fn({
    params: [str('str', { allowDynamicType: true })],
    returns: T.String,
    impl: ([s]) => Value.string(mapRunes(s.str, (c) => c.toUpperCase())),
  }),
  lower: fn({
    params: [str('str', { allowDynamicType: true })],
    returns: T.String,
    impl: ([s]) => Value.string(mapRunes(s.str, goLower)),
  }),
  title: fn({
    params: [str('str')],
    returns: T.String,
    impl: ([s]) => Value.string(goTitle(s.str)),
  }),
  strrev: fn({
    params: [str('str', { allowDynamicType: true })],
    returns: T.String,
    impl: ([s]) => Value.string(graphemes(s.str).reverse().join('')),
  }),
  chomp: fn({
    params: [str('str')],
    returns: T.String,
    impl: ([s]) => Value.string(s.str.replace(/(?:\r\n?|\n)*$/, '')),
  }),
  trimspace: fn({
    params: [str('str')],
    returns: T.String,
    impl: ([s]) => Value.string(goTrimFunc(s.str, isGoSpace)),
  }),
  trim: fn({
    params: [str('str'), str('cutset')],
    returns: T.String,
    impl: ([s, cutset]) => {
      const set = new Set([...cutset.str].map((c) => c.codePointAt(0)!));
      return Value.string(goTrimFunc(s.str, (cp) => set.has(cp)));
    },
  }),
  trimprefix: fn({
    params: [str('str'), str('prefix')],
    returns: T.String,
    impl: ([s, p]) => Value.string(s.str.startsWith(p.str) ? s.str.slice(p.str.length) : s.str),
  }),
  trimsuffix: fn({
    params: [str('str'), str('suffix')],
    returns: T.String,
    impl: ([s, p]) =>
      Value.string(p.str !== '' && s.str.endsWith(p.str) ? s.str.slice(0, s.str.length - p.str.length) : s.str),
  }),
  startswith: fn({
    params: [str('str', { allowUnknown: true }), str('prefix')],
    returns: T.Bool,
    impl: ([s, p]) => {
      if (!s.isKnown) return p.str === '' ? Value.bool(true) : Value.unknown(T.Bool, { notNull: true });
      return Value.bool(s.str.startsWith(p.str));
    },
  }),
  endswith: fn({
    params: [str('str'), str('suffix')],
    returns: T.Bool,
    impl: ([s, p]) => Value.bool(s.str.endsWith(p.str)),
  }),
  strcontains: fn({
    params: [str('str'), str('substr')],
    returns: T.Bool,
    impl: ([s, p]) => Value.bool(s.str.includes(p.str)),
  }),
  split: fn({
    params: [str('separator'), str('str')],
    returns: T.List(T.String),
    impl: ([sep, s]) => {
      let parts: string[];
      if (sep.str === '') parts = [...s.str]; // Go splits into UTF-8 sequences
      else parts = s.str.split(sep.str);
      return Value.list(
        parts.map((p) => Value.string(p)),
        T.String,
      );
    },
  }),
  join: fn({
    params: [str('separator')],
    varParam: { name: 'lists', type: T.List(T.String) },
    returns: T.String,
    impl: (args) => {
      const sep = args[0].str;
      const lists = args.slice(1);
      if (lists.length < 1) throw new FuncError('at least one list is required');
      for (const l of lists) if (!l.isWhollyKnown) return Value.unknown(T.String);
      const items: string[] = [];
      lists.forEach((l, ai) => {
        l.elems.forEach((v, ei) => {
          if (v.isNull) {
            if (lists.length > 1)
              throw new FuncArgError(ai + 1, `element ${ei} of list ${ai + 1} is null; cannot concatenate null values`);
            throw new FuncArgError(ai + 1, `element ${ei} is null; cannot concatenate null values`);
          }
          items.push(v.str);
        });
      });
      return Value.string(items.join(sep));
    },
  }),
  indent: fn({
    params: [
      { name: 'spaces', type: T.Number },
      { name: 'str', type: T.String },
    ],
    returns: T.String,
    impl: ([spaces, s]) => {
      const n = toGoInt(spaces);
      // Go's strings.Repeat panics on a negative count; Terraform reports the panic.
      if (n < 0) throw new FuncError('panic in function implementation: strings: negative Repeat count');
      return Value.string(s.str.split('\n').join('\n' + ' '.repeat(n)));
    },
  }),
  substr: fn({
    params: [
      { name: 'str', type: T.String, allowDynamicType: true },
      { name: 'offset', type: T.Number, allowDynamicType: true },
      { name: 'length', type: T.Number, allowDynamicType: true },
    ],
    returns: T.String,
    impl: ([s, o, l]) => {
      let offset = toGoInt(o);
      const length = toGoInt(l);
      const gs = graphemes(s.str);
      if (offset < 0) offset += gs.length;
      else if (length === 0) return Value.string('');
      let rest = gs;
      if (offset > 0) {
        // cty seeks forward `offset` characters; reaching the end yields "".
        if (offset >= gs.length) return Value.string('');
        rest = gs.slice(offset);
      }
      // A negative length takes the remainder; so does 0 after a negative offset (cty's seek never stops).
      if (length <= 0) return Value.string(rest.join(''));
      return Value.string(rest.slice(0, length).join(''));
    },
  }),
  format: fn({
    params: [str('format')],
    varParam: { name: 'args', type: T.Dynamic, allowNull: true, allowUnknown: true, allowDynamicType: true },
    returns: T.String,
    impl: (args) => {
      const unknown = formatAny(args);
      if (unknown) return unknown;
      return Value.string(formatValues(args[0].str, args.slice(1)));
    },
  }),
  formatlist: fn({
    params: [str('format')],
    varParam: { name: 'args', type: T.Dynamic, allowNull: true, allowUnknown: true, allowDynamicType: true },
    returns: T.List(T.String),
    impl: (args) => {
      const fmt = args[0].str;
      const rest = args.slice(1);
      if (rest.length === 0) return Value.list([Value.string(formatValues(fmt, []))], T.String);
      let iterLen = -1;
      let lenChooser = -1;
      let unknown = false;
      const iters: (readonly Value[] | undefined)[] = [];
      rest.forEach((a, i) => {
        const k = a.type.kind;
        if ((k === 'list' || k === 'set' || k === 'tuple') && !a.isNull) {
          if (k !== 'tuple' && !a.isKnown) {
            unknown = true;
            iters.push(undefined);
            return;
          }
          const thisLen = k === 'tuple' ? (a.type as T.TupleType).elems.length : a.elems.length;
          if (iterLen === -1) {
            iterLen = thisLen;
            lenChooser = i;
          } else if (thisLen !== iterLen) {
            throw new FuncArgError(
              i + 1,
              `argument ${i + 1} has length ${thisLen}, which is inconsistent with argument ${lenChooser + 1} of length ${iterLen}`,
            );
          }
          if (!a.isKnown) unknown = true;
          iters.push(a.isKnown ? a.elems : undefined);
        } else {
          if (k === 'dynamic' && (!a.isKnown || a.isNull)) unknown = true;
          iters.push(undefined);
        }
      });
      if (unknown) return Value.unknown(T.List(T.String));
      if (iterLen === 0) return Value.list([], T.String);
      if (iterLen === -1) iterLen = 1;
      const out: Value[] = [];
      for (let it = 0; it < iterLen; it++) {
        const fargs = rest.map((a, i) => (iters[i] ? iters[i]![it] : a));
        if (fargs.some((a) => !a.isWhollyKnown)) {
          out.push(Value.unknown(T.String, { notNull: true }));
          continue;
        }
        try {
          out.push(Value.string(formatValues(fmt, fargs)));
        } catch (e) {
          if (e instanceof FuncError || e instanceof FuncArgError)
            throw new FuncError(`error on format iteration ${it}: ${e.message}`);
          throw e;
        }
      }
      return Value.list(out, T.String);
    },
  }),
};
