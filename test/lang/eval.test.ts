// Tests of the evaluator (server/lang/eval.ts) beyond the console corpus: unknown propagation, marks,
// references resolved through a ModuleScope with declared objects, and type conversion with constraints.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExpression } from '../../server/lang/parse';
import { evaluate } from '../../server/lang/eval';
import { ModuleScope, type ModuleData } from '../../server/lang/scope';
import { formatValue } from '../../server/lang/format';
import { convert, typeFromExpr, unify } from '../../server/lang/convert';
import * as T from '../../server/lang/types';
import { Value } from '../../server/lang/value';

const data: ModuleData = {
  variable: (n) =>
    ({
      s: Value.string('hello'),
      u: Value.unknown(T.String),
      ul: Value.unknown(T.List(T.Number)),
      uo: Value.unknown(T.Obj({ a: T.Number })),
      secret: Value.string('pw').mark('sensitive'),
      n: Value.null(T.String),
    })[n],
  local: (n) => (n === 'l' ? Value.tuple([Value.number(1), Value.number(2)]) : undefined),
  resource: (mode, type, name) =>
    mode === 'managed' && type === 'aws_instance' && name === 'web'
      ? Value.tuple([Value.object({ id: Value.unknown(T.String), ami: Value.string('ami-1') })])
      : undefined,
  countIndex: Value.number(3),
};
const scope = new ModuleScope(data, { baseDir: '.', planning: true, console: false });

function ev(src: string): { text: string; type: string; summaries: string[] } {
  const p = parseExpression(src, 'test.tf');
  assert.ok(p.expr, `${src}: ${JSON.stringify(p.diagnostics)}`);
  const r = evaluate(p.expr, scope);
  return { text: formatValue(r.value), type: T.typeString(r.value.type), summaries: r.diagnostics.map((d) => d.summary) };
}

test('unknown values propagate through operators, templates, calls and traversals', () => {
  assert.deepEqual(ev('var.u'), { text: '(known after apply)', type: 'string', summaries: [] });
  assert.equal(ev('"x-${var.u}"').text, '(known after apply)');
  assert.equal(ev('"x-${var.u}"').type, 'string');
  assert.equal(ev('var.u == "a"').type, 'bool');
  assert.equal(ev('var.u == "a"').text, '(known after apply)');
  assert.equal(ev('length(var.ul) + 1').text, '(known after apply)');
  assert.equal(ev('var.uo.a').type, 'number');
  assert.equal(ev('var.ul[0]').type, 'number');
  assert.equal(ev('upper(var.u)').type, 'string');
  assert.equal(ev('aws_instance.web[0].id').text, '(known after apply)');
  assert.equal(ev('aws_instance.web[0].ami').text, '"ami-1"');
  assert.equal(ev('[for x in var.ul : x]').text, '(known after apply)');
  assert.equal(ev('var.u != "" ? 1 : 2').type, 'number');
  assert.equal(ev('can(var.u)').text, '(known after apply)');
  assert.equal(ev('try(var.u, "x")').text, '(known after apply)');
  assert.equal(ev('false && var.u == "a"').text, 'false');
});

test('known references and special objects resolve', () => {
  assert.equal(ev('var.s').text, '"hello"');
  assert.equal(ev('local.l[1]').text, '2');
  assert.equal(ev('count.index * 2').text, '6');
  assert.equal(ev('var.n == null').text, 'true');
  assert.deepEqual(ev('each.key').summaries, ['Reference to "each" in context without for_each']);
  assert.deepEqual(ev('var.nope').summaries, ['Reference to undeclared input variable']);
  assert.deepEqual(ev('aws_instance.db.id').summaries, ['Reference to undeclared resource']);
  assert.deepEqual(ev('local.l[5]').summaries, ['Invalid index']);
});

test('sensitive marks propagate into results', () => {
  assert.equal(ev('var.secret').text, '(sensitive value)');
  assert.equal(ev('"${var.secret}!"').text, '(sensitive value)');
  assert.equal(ev('[var.secret, "a"]').text, '[\n  (sensitive value),\n  "a",\n]');
  assert.equal(ev('upper(var.secret)').text, '(sensitive value)');
  assert.equal(ev('nonsensitive(var.secret)').text, '"pw"');
});

test('type constraints with optional attributes and defaults convert objects', () => {
  const p = parseExpression('object({ a = string, b = optional(number, 5), c = optional(list(string)) })', 't.tf');
  const { type, diagnostics } = typeFromExpr(p.expr!);
  assert.deepEqual(diagnostics, []);
  const r = convert(Value.object({ a: Value.string('x') }), type);
  assert.equal(r.error, undefined);
  assert.equal(formatValue(r.value!), '{\n  "a" = "x"\n  "b" = 5\n  "c" = tolist(null) /* of string */\n}');
  const bad = convert(Value.object({ b: Value.number(1) }), type);
  assert.equal(bad.error, 'attribute "a" is required');
  const t2 = typeFromExpr(parseExpression('map(list(number))', 't.tf').expr!).type;
  assert.equal(T.typeString(t2), 'map(list(number))');
  assert.equal(typeFromExpr(parseExpression('lst(string)', 't.tf').expr!).diagnostics[0].summary, 'Invalid type specification');
});

test('conversion and unification follow cty', () => {
  assert.equal(convert(Value.string('12'), T.Number).value?.num.toString(), '12');
  assert.equal(convert(Value.string('x'), T.Number).error, 'a number is required');
  assert.equal(convert(Value.bool(true), T.Number).error, 'number required');
  assert.equal(convert(Value.tuple([Value.number(1)]), T.String).error, 'string required');
  assert.equal(T.typeString(unify([T.Number, T.String])!), 'string');
  assert.equal(unify([T.Number, T.Bool]), undefined);
  assert.equal(T.typeString(unify([T.Tuple([T.Number]), T.Tuple([])])!), 'list(number)');
  assert.equal(T.typeString(unify([T.Obj({ a: T.Number }), T.Obj({ b: T.String })])!), 'map(string)');
  assert.equal(T.typeString(unify([T.Dynamic, T.Number])!), 'number');
});

test('error diagnostics carry the values of the references involved, as terraform prints them', () => {
  const vars: Record<string, Value> = {
    s: Value.string('abc'),
    o: Value.object({ a: Value.number(1), b: Value.tuple([Value.number(1), Value.number(2)]) }),
  };
  const sc = new ModuleScope({ variable: (n) => vars[n], names: { locals: ['y'] } }, { baseDir: '.', planning: true, console: false });
  const values = (src: string) => {
    const r = evaluate(parseExpression(src, 'main.tf').expr!, sc);
    return r.diagnostics.map((d) => ({ summary: d.summary, values: d.values ?? [] }));
  };
  assert.deepEqual(values('var.s + 1'), [{ summary: 'Invalid operand', values: [{ traversal: 'var.s', statement: 'is "abc"' }] }]);
  assert.deepEqual(values('upper(var.o)')[0].values, [{ traversal: 'var.o', statement: 'is object with 2 attributes' }]);
  assert.deepEqual(values('var.o.b[5] + 1')[0].values, [{ traversal: 'var.o.b', statement: 'is tuple with 2 elements' }]);
  assert.deepEqual(values('var.o.a ? 1 : 2')[0].values, [{ traversal: 'var.o.a', statement: 'is 1' }]);
  const undeclared = evaluate(parseExpression('local.x', 'main.tf').expr!, sc).diagnostics[0];
  assert.equal(undeclared.detail, 'A local value with the name "x" has not been declared. Did you mean "y"?');
});

test('for expressions bind their iteration variables: the value name wins over a same-named key, inner names shadow outer ones', () => {
  // As terraform console prints them (Terraform 1.11.4: `[for k, k in ["a","b"] : k]` is ["a", "b"]).
  assert.equal(ev('[for k, k in ["a", "b"] : k]').text, ev('["a", "b"]').text);
  assert.equal(ev('[for x in [1, 2] : [for x in [x * 10] : x]]').text, ev('[[10], [20]]').text);
  // Names the iteration does not bind come from the enclosing scope (here a local value and count.index).
  assert.equal(ev('[for x in local.l : x + count.index]').text, ev('[4, 5]').text);
  assert.equal(ev('[for i, x in ["a", "b"] : "${i}${x}" if i > 0]').text, ev('["1b"]').text);
  assert.equal(ev('{ for k, v in { a = 1, b = 2 } : v => k }').text, ev('{ "1" = "a", "2" = "b" }').text);
  assert.equal(ev('{ for s in ["a", "b", "a"] : s => s... }').text, ev('{ a = ["a", "a"], b = ["b"] }').text);
  assert.equal(ev('{ for s in [] : s => s }').text, ev('{}').text);
  assert.deepEqual(ev('{ for s in ["a", "a"] : s => s }').summaries, ['Duplicate object key']);
});
