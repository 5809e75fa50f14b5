// Type-conversion and mark-related built-ins: tostring, tonumber, tobool, tolist, toset, tomap, sensitive,
// nonsensitive, issensitive, ephemeralasnull, type (console only). try and can are declared here for arity
// and the registry, but call.ts evaluates them specially (their arguments are unevaluated expressions).

import { constraintName, convert } from '../convert';
import * as T from '../types';
import type { Type } from '../types';
import { Value } from '../value';
import { FuncArgError, type FuncSpec } from './function';

/** Terraform's MakeToFunc: conversion to a type constraint with Terraform's own error messages. */
function toFunc(want: Type): FuncSpec {
  return {
    params: [{ name: 'v', type: T.Dynamic, allowNull: true, allowMarked: true, allowUnknown: true, allowDynamicType: true }],
    type: (args) => {
      const a = args[0];
      const r = convert(a.isKnown ? a : Value.unknown(a.type), want);
      if (r.error !== undefined) throw new FuncArgError(0, convertMessage(a, want, r.error));
      return r.value.type;
    },
    impl: (args) => {
      const a = args[0];
      const r = convert(a, want);
      if (r.error !== undefined) throw new FuncArgError(0, convertMessage(a, want, r.error));
      return r.value;
    },
  };
}

function convertMessage(a: Value, want: Type, error: string): string {
  const [u] = a.unmark();
  if (u.type.kind === 'string' && u.isKnown && !u.isNull) {
    if (want.kind === 'number') return `cannot convert ${JSON.stringify(u.str)} to number; given string must be a decimal representation of a number`;
    if (want.kind === 'bool') return `cannot convert ${JSON.stringify(u.str)} to bool; only the strings "true" or "false" are allowed`;
  }
  if (T.isPrimitive(want) || want.kind === 'list' || want.kind === 'set' || want.kind === 'map') {
    if (!(T.isPrimitive(u.type) && T.isPrimitive(want)) || u.type.kind !== 'string') {
      return `cannot convert ${T.friendlyName(u.type)} to ${constraintName(want)}`;
    }
  }
  return error;
}

const anyParam = { name: 'value', type: T.Dynamic, allowNull: true, allowMarked: true, allowUnknown: true, allowDynamicType: true };

export const functions: Record<string, FuncSpec> = {
  tostring: toFunc(T.String),
  tonumber: toFunc(T.Number),
  tobool: toFunc(T.Bool),
  tolist: toFunc(T.List(T.Dynamic)),
  toset: toFunc(T.Set(T.Dynamic)),
  tomap: toFunc(T.Map(T.Dynamic)),
  try: {
    params: [],
    varParam: { name: 'expressions', type: T.Dynamic },
    impl: () => Value.unknown(),
  },
  can: {
    params: [{ name: 'expression', type: T.Dynamic }],
    returns: T.Bool,
    impl: () => Value.unknown(T.Bool),
  },
  sensitive: {
    params: [anyParam],
    type: (args) => args[0].type,
    impl: (args) => args[0].mark('sensitive'),
  },
  nonsensitive: {
    params: [anyParam],
    type: (args) => args[0].type,
    impl: (args) => {
      const v = args[0];
      if (!v.marks.has('sensitive')) return v;
      const rest = [...v.marks].filter((m) => m !== 'sensitive');
      return v.unmark()[0].mark(...rest);
    },
  },
  issensitive: {
    params: [anyParam],
    returns: T.Bool,
    impl: (args) => Value.bool(args[0].marks.has('sensitive')),
  },
  ephemeralasnull: {
    params: [anyParam],
    type: (args) => args[0].type,
    impl: (args) => {
      const v = args[0];
      if (v.marks.has('ephemeral')) return Value.null(v.type);
      return v;
    },
  },
  type: {
    params: [anyParam],
    returns: T.TypeVal,
    impl: (args) => Value.typeVal(args[0].type),
  },
};
