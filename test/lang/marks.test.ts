// Tests of the evaluator's allocation-free paths for marks (lang/value.ts unionMarks, NO_MARKS, unmarkDeep), the
// ASCII shortcut of Value.string's normalisation and the cached walk of references(): unmarked values must come out
// as before, marked ones with exactly the union of the marks they read, and a shared set must never change.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluate } from '../../server/lang/eval';
import { parseExpression, references } from '../../server/lang/parse';
import { ModuleScope, type ModuleData } from '../../server/lang/scope';
import * as T from '../../server/lang/types';
import { NO_MARKS, unionMarks, Value, type Mark } from '../../server/lang/value';

const secret = Value.string('pw').mark('sensitive');
const eph = Value.string('tok').mark('ephemeral');
const data: ModuleData = {
  variable: (n) =>
    ({
      secret,
      eph,
      plain: Value.string('a'),
      list: Value.tuple([Value.string('a'), secret]),
      other: Value.tuple([Value.string('a'), Value.string('pw').mark('ephemeral')]),
      n: Value.number(2).mark('sensitive'),
    })[n],
};
const scope = new ModuleScope(data, { baseDir: '.', planning: true, console: true });

function marksOf(src: string): string[] {
  const r = evaluate(parseExpression(src, 't.tf').expr!, scope);
  assert.deepEqual(r.diagnostics, [], src);
  return [...r.value.marks].sort();
}

test('unionMarks: one side when the other is empty, a new set with both otherwise, never a changed input', () => {
  const s = new Set<Mark>(['sensitive']);
  const e = new Set<Mark>(['ephemeral']);
  assert.equal(unionMarks(NO_MARKS, NO_MARKS), NO_MARKS);
  assert.equal(unionMarks(s, NO_MARKS), s);
  assert.equal(unionMarks(NO_MARKS, e), e);
  assert.equal(unionMarks(s, s), s);
  const u = unionMarks(s, e);
  assert.deepEqual([...u].sort(), ['ephemeral', 'sensitive']);
  assert.deepEqual([...s], ['sensitive']);
  assert.deepEqual([...e], ['ephemeral']);
  assert.equal(NO_MARKS.size, 0);
});

test('unmarkDeep: an unmarked value is itself with no marks; a nested mark is lifted from a copy', () => {
  const plain = Value.object({ a: Value.tuple([Value.string('x')]) });
  const [same, none] = plain.unmarkDeep();
  assert.equal(same, plain);
  assert.equal(none.size, 0);
  const nested = Value.object({ a: Value.tuple([secret]) });
  const [u, found] = nested.unmarkDeep();
  assert.deepEqual([...found], ['sensitive']);
  assert.equal(u.hasMarksDeep, false);
  assert.equal(nested.hasMarksDeep, true, 'the marked value is unchanged');
});

test('operations read the union of their operands\' marks, and unmarked operands give unmarked results', () => {
  assert.deepEqual(marksOf('"${var.plain}-${var.plain}"'), []);
  assert.deepEqual(marksOf('"${var.secret}-${var.eph}"'), ['ephemeral', 'sensitive']);
  assert.deepEqual(marksOf('var.secret == var.eph'), ['ephemeral', 'sensitive']);
  assert.deepEqual(marksOf('var.list == var.other'), ['ephemeral', 'sensitive']);
  assert.deepEqual(marksOf('var.n + 1'), ['sensitive']);
  // A for expression's result takes the marks of its collection and of every condition result (HCL): here the
  // condition reads var.eph, and, in one iteration, the sensitive element.
  assert.deepEqual(marksOf('[for x in var.list : x if x != var.eph]'), ['ephemeral', 'sensitive']);
  assert.deepEqual(marksOf('[for x in var.list : x]'), []);
  assert.deepEqual(marksOf('{ (var.secret) = 1, (var.eph) = 2 }'), ['ephemeral', 'sensitive']);
  assert.deepEqual(marksOf('upper(var.plain)'), []);
  assert.deepEqual(marksOf('join(var.eph, var.list)'), ['ephemeral', 'sensitive']);
  // The operands' own sets are untouched by the unions made from them.
  assert.deepEqual([...secret.marks], ['sensitive']);
  assert.deepEqual([...eph.marks], ['ephemeral']);
});

test('Value.string normalises non-ASCII text to NFC and keeps ASCII text as given', () => {
  assert.equal(Value.string('e\u0301').str, '\u00e9');
  assert.equal(Value.string('plain ascii ~').str, 'plain ascii ~');
  assert.equal(evaluate(parseExpression('"cafe\u0301"', 't.tf').expr!, scope).value.str, 'caf\u00e9');
  assert.equal(Value.string('x').type, T.String);
});

test('references() walks an expression once and gives the same traversals again', () => {
  const e = parseExpression('[for x in var.list : "${x}-${var.plain}" if x != local.y]', 't.tf').expr!;
  const a = references(e);
  assert.deepEqual(
    a.map((t) => t.root),
    ['var', 'var', 'local'],
  );
  assert.equal(references(e), a);
});
