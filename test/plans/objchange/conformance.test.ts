// Tests for server/plans/objchange/conformance.ts: cty TestConformance errors (the type-conformance
// messages core reports for provider results, reference §5) and convert.MismatchMessage texts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../../server/lang/types';
import type { Type } from '../../../server/lang/types';
import { formatError, formatErrorPrefixed } from '../../../server/providers/path';
import { mismatchMessage, testConformance, valueConformsToSchema } from '../../../server/plans/objchange/conformance';
import { blk, fill, nb, opt, req, s, obj, n } from './_helpers';

interface Case {
  scenario: string;
  given: Type;
  want: Type;
  errors?: string[];
  mismatch?: string;
}

function check(c: Case): void {
  test(c.scenario, () => {
    if (c.errors) assert.deepEqual(testConformance(c.given, c.want).map(formatError), c.errors);
    if (c.mismatch !== undefined) assert.equal(mismatchMessage(c.given, c.want), c.mismatch);
  });
}

check({ scenario: 'A type conforms to itself.', given: T.List(T.String), want: T.List(T.String), errors: [] });
check({ scenario: 'Anything conforms to dynamic.', given: T.Obj({ a: T.Number }), want: T.Dynamic, errors: [] });
check({
  scenario: 'A primitive of the wrong type is reported with friendly names.',
  given: T.Number,
  want: T.String,
  errors: ['string required, but received number'],
  mismatch: 'string required',
});
check({
  scenario: 'Objects report unsupported and missing attributes at the object, then recurse by attribute.',
  given: T.Obj({ extra: T.String, a: T.Number }),
  want: T.Obj({ a: T.String, b: T.Bool }),
  errors: ['unsupported attribute "extra"', 'missing required attribute "b"', '.a: string required, but received number'],
  mismatch: 'attribute "b" is required',
});
check({
  scenario: 'Collection element problems are located at an unknown index.',
  given: T.Obj({ l: T.List(T.Number), m: T.Map(T.Bool), st: T.Set(T.String) }),
  want: T.Obj({ l: T.List(T.String), m: T.Map(T.String), st: T.Set(T.Number) }),
  errors: [
    '.l[(not yet known)]: string required, but received number',
    '.m[(not yet known)]: string required, but received bool',
    '.st[(not yet known)]: number required, but received string',
  ],
});
check({
  scenario: 'Tuples of different lengths report both counts; equal lengths recurse by index.',
  given: T.Obj({ t: T.Tuple([T.String]), u: T.Tuple([T.String, T.Bool]) }),
  want: T.Obj({ t: T.Tuple([T.String, T.String]), u: T.Tuple([T.String, T.String]) }),
  errors: ['.t: 2 elements are required, but got 1', '.u[1]: string required, but received bool'],
});
check({
  scenario: 'A list where a set is wanted is reported by kind.',
  given: T.List(T.String),
  want: T.Set(T.String),
  errors: ['set of string required, but received list of string'],
  mismatch: 'set required',
});
check({
  scenario: 'A collection with a wrong element type names the element type problem.',
  given: T.List(T.Bool),
  want: T.List(T.Number),
  mismatch: 'incorrect list element type: number required',
});
check({
  scenario: 'An object with an extra attribute and nothing missing is "incorrect object attributes".',
  given: T.Obj({ a: T.String, x: T.String }),
  want: T.Obj({ a: T.String }),
  mismatch: 'incorrect object attributes',
});
check({
  scenario: 'An object attribute that cannot convert is named in the mismatch message.',
  given: T.Obj({ a: T.List(T.String) }),
  want: T.Obj({ a: T.String }),
  mismatch: 'attribute "a": string required',
});
check({
  scenario: 'Three missing attributes are listed with commas and "and".',
  given: T.EmptyObject,
  want: T.Obj({ a: T.String, b: T.String, c: T.String }),
  mismatch: 'attributes "a", "b", and "c" are required',
});

test('A provider object with a wrong attribute type fails schema conformance with a prefixed path.', () => {
  const S = blk({ name: req(T.String), size: opt(T.Number) }, { b: nb('single', blk({ x: opt(T.String) })) });
  const bad = obj({ ...Object.fromEntries(fill(S, { name: s('a') }).entries), size: s('big') });
  assert.deepEqual(
    valueConformsToSchema(S, bad).map((e) => formatErrorPrefixed(e, 'aws_instance.web')),
    ['aws_instance.web.size: number required, but received string'],
  );
  assert.deepEqual(valueConformsToSchema(S, fill(S, { name: s('a'), size: n(1) })), []);
  const missing = obj({ name: s('a') });
  assert.deepEqual(
    valueConformsToSchema(S, missing).map((e) => formatErrorPrefixed(e, 'aws_instance.web')),
    ['aws_instance.web: missing required attribute "b"', 'aws_instance.web: missing required attribute "size"'],
  );
});
