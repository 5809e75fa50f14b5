// Tests for the built-in random provider (server/providers/builtin/random.ts) through the loopback: validation
// messages of hashicorp/random 3.6.3, plans with defaults and unknown results, keepers and input changes that
// replace, in-place updates that keep results, apply, refresh, import formats and state upgrades. The harness
// checks every plan and apply against objchange's validity and compatibility rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import bcryptjs from 'bcryptjs';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import { goString } from '../../../server/providers/gostring';
import { RANDOM_PROVIDER_ADDRESS } from '../../../server/providers/builtin/random';
import { stringList, stringMap } from '../../../server/providers/sdk';
import { Harness, at } from './_harness';

const s = (x: string) => Value.string(x);
const n = (x: number) => Value.number(x);
const b = (x: boolean) => Value.bool(x);

interface Case {
  scenario: string;
  run: (h: Harness) => Promise<unknown>;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, async () => {
    assert.deepEqual(await c.run(new Harness(RANDOM_PROVIDER_ADDRESS)), c.want);
  });
}

// ---- validation ----------------------------------------------------------------------------------------------------

check({
  scenario: 'random_string rejects a length below 1 and below the sum of the minimums, with the framework validators\' texts.',
  run: async (h) => [await h.validate('random_string', { length: n(0) }), await h.validate('random_password', { length: n(2), min_upper: n(2), min_lower: n(1) })],
  want: [
    ['error: Invalid Attribute Value: Attribute length value must be at least 1, got: 0 [at .length]'],
    ['error: Invalid Attribute Value: Attribute length value must be at least sum of min_upper + min_lower + min_numeric + min_special, got: 2 [at .length]'],
  ],
});

check({
  scenario: 'random_string with every character class false reports the attribute combination once per numeric flag; number is deprecated.',
  run: async (h) => [
    await h.validate('random_string', { length: n(5), special: b(false), upper: b(false), lower: b(false), numeric: b(false) }),
    await h.validate('random_string', { length: n(5), number: b(true) }),
  ],
  want: [
    ['error: Invalid Attribute Combination: At least one attribute out of [special,upper,lower,numeric] must be specified as true [at .numeric]'],
    ['warning: Attribute Deprecated: **NOTE**: This is deprecated, use `numeric` instead. [at .number]'],
  ],
});

check({
  scenario: 'A fractional or too large length is not an int64 (with the framework\'s %s formatting of big.Float); unknown values are not validated yet.',
  run: async (h) => [
    await h.validate('random_string', { length: n(1.5) }),
    await h.validate('random_string', { length: Value.number(2n ** 64n) }),
    await h.validate('random_string', { length: Value.unknown(T.Number), min_upper: n(3) }),
  ],
  want: [
    ['error: Int64 Type Validation Error: Value %!s(*big.Float=1.5) is not an integer. [at .length]'],
    ['error: Int64 Type Validation Error: Value %!s(*big.Float=1.844674407e+19) cannot be represented as a 64-bit integer. [at .length]'],
    [],
  ],
});

check({
  scenario: 'Conflicting number and numeric settings fail the plan with the provider\'s message.',
  run: async (h) => (await h.plan('random_string', null, { length: n(5), number: b(true), numeric: b(false) })).diagnostics,
  want: ['error: Number and numeric are both configured with different values: Number is deprecated, use numeric instead'],
});

// ---- random_string / random_password ---------------------------------------------------------------------------------

check({
  scenario: 'Creating random_string plans the defaults (classes true, minimums 0, number and numeric true) and unknown result and id; apply honours the length and minimums.',
  run: async (h) => {
    const attrs = { length: n(12), min_numeric: n(4), special: b(false) };
    const p = await h.plan('random_string', null, attrs);
    const a = await h.apply('random_string', null, p.planned, attrs);
    const r = at(a.state, 'result').str;
    return [
      ['lower', 'upper', 'number', 'numeric', 'min_upper', 'special'].map((k) => goString(at(p.planned, k))),
      goString(at(p.planned, 'result')),
      r.length,
      (r.match(/[0-9]/g) ?? []).length >= 4,
      /^[A-Za-z0-9]+$/.test(r),
      at(a.state, 'id').str === r,
    ];
  },
  want: [['cty.True', 'cty.True', 'cty.True', 'cty.True', 'cty.NumberIntVal(0)', 'cty.False'], 'cty.UnknownVal(cty.String)', 12, true, true, true],
});

check({
  scenario: 'random_password marks result and bcrypt_hash sensitive, uses the id "none" and stores a $2a$ bcrypt hash of the result.',
  run: async (h) => {
    const blk = await h.block('random_password');
    const { state } = await h.converge('random_password', null, { length: n(20), override_special: s('_%') });
    const result = at(state, 'result').str;
    const hash = at(state, 'bcrypt_hash').str;
    return [blk.attributes.result.sensitive, blk.attributes.bcrypt_hash.sensitive, (await h.schema('random_password')).version, at(state, 'id').str, hash.startsWith('$2a$10$'), bcryptjs.compareSync(result, hash), /^[A-Za-z0-9_%]{20}$/.test(result)];
  },
  want: [true, true, 3, 'none', true, true, true],
});

check({
  scenario: 'Changing keepers replaces random_string; an unchanged configuration plans no change; changing override_special from "" to null updates in place.',
  run: async (h) => {
    const { state } = await h.converge('random_string', null, { length: n(8), keepers: stringMap({ k: '1' }), override_special: s('') });
    const same = await h.plan('random_string', state, { length: n(8), keepers: stringMap({ k: '1' }), override_special: s('') });
    const keep = await h.plan('random_string', state, { length: n(8), keepers: stringMap({ k: '2' }), override_special: s('') });
    const os = await h.plan('random_string', state, { length: n(8), keepers: stringMap({ k: '1' }) });
    return [goString(same.planned) === goString(state), keep.requiresReplace, keep.replaced, os.requiresReplace, os.replaced, at(os.planned, 'result').str === at(state, 'result').str];
  },
  want: [true, ['.keepers'], true, [], false, true],
});

check({
  scenario: 'Changing the length of random_password requires replacement and plans a new unknown result.',
  run: async (h) => {
    const { state } = await h.converge('random_password', null, { length: n(8) });
    const p = await h.plan('random_password', state, { length: n(9) });
    return [p.requiresReplace, goString(at(p.planned, 'result')), goString(at(p.planned, 'bcrypt_hash'))];
  },
  want: [['.length'], 'cty.UnknownVal(cty.String)', 'cty.UnknownVal(cty.String)'],
});

check({
  scenario: 'Importing random_string takes the id as the result with default flags; random_password also hashes it and uses the id "none".',
  run: async (h) => {
    const str = await h.import('random_string', 'abc');
    const pw = await h.import('random_password', 'secret');
    const after = await h.plan('random_string', str.state!, { length: n(3) });
    return [
      goString(str.state!),
      at(pw.state!, 'id').str,
      bcryptjs.compareSync('secret', at(pw.state!, 'bcrypt_hash').str),
      after.requiresReplace,
    ];
  },
  want: [
    'cty.ObjectVal(map[string]cty.Value{"id":cty.StringVal("abc"), "keepers":cty.NullVal(cty.Map(cty.String)), "length":cty.NumberIntVal(3), "lower":cty.True, "min_lower":cty.NumberIntVal(0), "min_numeric":cty.NumberIntVal(0), "min_special":cty.NumberIntVal(0), "min_upper":cty.NumberIntVal(0), "number":cty.True, "numeric":cty.True, "override_special":cty.NullVal(cty.String), "result":cty.StringVal("abc"), "special":cty.True, "upper":cty.True})',
    'none',
    true,
    [],
  ],
});

check({
  scenario: 'random_password state of schema version 0 (an old import with null flags) upgrades to version 3 with defaults filled in and a fresh bcrypt hash.',
  run: async (h) => {
    const u = await h.upgrade('random_password', 0, '{"id":"none","keepers":null,"length":null,"lower":null,"min_lower":null,"min_numeric":null,"min_special":null,"min_upper":null,"number":null,"override_special":null,"result":"hunter2","special":null,"upper":null}');
    return [u.diagnostics, ['length', 'lower', 'number', 'numeric', 'min_special'].map((k) => goString(at(u.state, k))), bcryptjs.compareSync('hunter2', at(u.state, 'bcrypt_hash').str)];
  },
  want: [[], ['cty.NumberIntVal(7)', 'cty.True', 'cty.True', 'cty.True', 'cty.NumberIntVal(0)'], true],
});

check({
  scenario: 'random_password version 2 state keeps a matching bcrypt hash and regenerates a wrong one; random_string version 1 upgrades; an unknown version is an error.',
  run: async (h) => {
    const good = bcryptjs.hashSync('pw', 4);
    const v2 = (hash: string) => `{"id":"none","keepers":null,"length":2,"lower":true,"min_lower":0,"min_numeric":0,"min_special":0,"min_upper":0,"number":true,"numeric":true,"override_special":"","result":"pw","special":true,"upper":true,"bcrypt_hash":${JSON.stringify(hash)}}`;
    const kept = await h.upgrade('random_password', 2, v2(good));
    const fixed = await h.upgrade('random_password', 2, v2('$2a$10$wrongwrongwrongwrongwrongwrongwrongwrongwrongwrongwr'));
    const s1 = await h.upgrade('random_string', 1, '{"id":"ab","keepers":null,"length":2,"lower":true,"min_lower":0,"min_numeric":0,"min_special":0,"min_upper":0,"number":false,"override_special":null,"result":"ab","special":true,"upper":true}');
    const bad = await h.upgrade('random_string', 0, '{}');
    return [at(kept.state, 'bcrypt_hash').str === good, bcryptjs.compareSync('pw', at(fixed.state, 'bcrypt_hash').str), goString(at(s1.state, 'numeric')), bad.diagnostics];
  },
  want: [
    true,
    true,
    'cty.False',
    ['error: Unable to Upgrade Resource State: This resource was implemented with an UpgradeState() method, however Terraform was expecting an implementation for version 0 upgrade.\n\nThis is always an issue with the Terraform Provider and should be reported to the provider developer.'],
  ],
});

// ---- random_id, random_bytes ----------------------------------------------------------------------------------------

check({
  scenario: 'random_id produces byte_length random bytes in every encoding, with the prefix on all but id.',
  run: async (h) => {
    const { state } = await h.converge('random_id', null, { byte_length: n(4), prefix: s('p-') });
    const id = at(state, 'id').str;
    const bytes = Buffer.from(id, 'base64url');
    return [bytes.length, at(state, 'hex').str === 'p-' + bytes.toString('hex'), at(state, 'b64_url').str === 'p-' + id, at(state, 'dec').str === 'p-' + BigInt('0x' + bytes.toString('hex')).toString()];
  },
  want: [4, true, true, true],
});

check({
  scenario: 'random_id imports "prefix,id" with the last comma separating, and reports a base64 error in the provider\'s words.',
  run: async (h) => {
    const ok = await h.import('random_id', 'a,b,AQID');
    const bad = await h.import('random_id', 'no*good');
    return [['id', 'prefix', 'hex', 'dec', 'b64_std', 'byte_length'].map((k) => goString(at(ok.state!, k))), bad.diagnostics];
  },
  want: [
    ['cty.StringVal("AQID")', 'cty.StringVal("a,b")', 'cty.StringVal("a,b010203")', 'cty.StringVal("a,b66051")', 'cty.StringVal("a,bAQID")', 'cty.NumberIntVal(3)'],
    [
      'error: Import Random ID Error: While attempting to import a random id there was a decoding error.\n\n+Retry the Terraform operation. If the error still occurs or happens regularly, please contact the provider developer with hardware and operating system information.\n\nOriginal Error: illegal base64 data at input byte 2',
    ],
  ],
});

check({
  scenario: 'random_bytes has sensitive base64 and hex results of the requested length and imports standard base64.',
  run: async (h) => {
    const { state } = await h.converge('random_bytes', null, { length: n(6) });
    const blk = await h.block('random_bytes');
    const imp = await h.import('random_bytes', 'AQID');
    return [Buffer.from(at(state, 'base64').str, 'base64').length, at(state, 'hex').str.length, blk.attributes.base64.sensitive, goString(at(imp.state!, 'hex'))];
  },
  want: [6, 12, true, 'cty.StringVal("010203")'],
});

// ---- random_integer ----------------------------------------------------------------------------------------------

check({
  scenario: 'random_integer picks a value within [min, max]; the same seed gives the same value; id is its decimal text.',
  run: async (h) => {
    const { state } = await h.converge('random_integer', null, { min: n(5), max: n(7) });
    const r = at(state, 'result').num.toNumber();
    const a = await h.converge('random_integer', null, { min: n(1), max: n(1000000), seed: s('x') });
    const c = await h.converge('random_integer', null, { min: n(1), max: n(1000000), seed: s('x') });
    return [r >= 5 && r <= 7, at(state, 'id').str === String(r), goString(at(a.state, 'result')) === goString(at(c.state, 'result'))];
  },
  want: [true, true, true],
});

check({
  scenario: 'random_integer with min above max fails at apply with the provider\'s message.',
  run: async (h) => {
    const p = await h.plan('random_integer', null, { min: n(9), max: n(1) });
    return (await h.apply('random_integer', null, p.planned, { min: n(9), max: n(1) })).diagnostics;
  },
  want: ['error: Create Random Integer Error: The minimum (minVal) value needs to be smaller than or equal to maximum (maxVal) value.'],
});

check({
  scenario: 'random_integer imports "result,min,max[,seed]" and explains malformed ids.',
  run: async (h) => {
    const ok = await h.import('random_integer', '15,1,20,s');
    return [
      ['id', 'result', 'min', 'max', 'seed'].map((k) => goString(at(ok.state!, k))),
      (await h.import('random_integer', '1,2')).diagnostics,
      (await h.import('random_integer', '1,x,3')).diagnostics,
    ];
  },
  want: [
    ['cty.StringVal("15")', 'cty.NumberIntVal(15)', 'cty.NumberIntVal(1)', 'cty.NumberIntVal(20)', 'cty.StringVal("s")'],
    ['error: Import Random Integer Error: Invalid import usage: expecting {result},{min},{max} or {result},{min},{max},{seed}'],
    ['error: Import Random Integer Error: The min value supplied could not be parsed as an integer.\n\nOriginal Error: strconv.ParseInt: parsing "x": invalid syntax'],
  ],
});

// ---- random_pet, random_shuffle, random_uuid ------------------------------------------------------------------------

check({
  scenario: 'random_pet defaults to two words joined by "-" and puts the prefix first; it cannot be imported.',
  run: async (h) => {
    const p = await h.plan('random_pet', null, {});
    const { state } = await h.converge('random_pet', null, { prefix: s('dev'), length: n(3), separator: s('_') });
    return [goString(at(p.planned, 'length')), goString(at(p.planned, 'separator')), /^dev(_[a-z]+){3}$/.test(at(state, 'id').str), (await h.import('random_pet', 'x')).diagnostics.length];
  },
  want: ['cty.NumberIntVal(2)', 'cty.StringVal("-")', true, 1],
});

check({
  scenario: 'random_shuffle permutes its input, repeats it for a larger result_count, is stable for a seed, and has the id "-".',
  run: async (h) => {
    const input = stringList(['a', 'b', 'c', 'd']);
    const { state } = await h.converge('random_shuffle', null, { input });
    const more = await h.converge('random_shuffle', null, { input, result_count: n(6) });
    const s1 = await h.converge('random_shuffle', null, { input, seed: s('k') });
    const s2 = await h.converge('random_shuffle', null, { input, seed: s('k') });
    const sorted = at(state, 'result').elems.map((e) => e.str).sort();
    return [sorted, at(more.state, 'result').elems.length, goString(at(s1.state, 'result')) === goString(at(s2.state, 'result')), at(state, 'id').str];
  },
  want: [['a', 'b', 'c', 'd'], 6, true, '-'],
});

check({
  scenario: 'random_uuid creates a UUID kept across refresh; import normalises to lower case and reports malformed ids.',
  run: async (h) => {
    const { state } = await h.converge('random_uuid', null, {});
    const r = await h.read('random_uuid', state);
    const imp = await h.import('random_uuid', 'AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE');
    return [/^[0-9a-f-]{36}$/.test(at(state, 'result').str), goString(r.state) === goString(state), at(imp.state!, 'id').str, (await h.import('random_uuid', 'nope')).diagnostics];
  },
  want: [
    true,
    true,
    'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee',
    ['error: Import Random UUID Error: There was an error during the parsing of the UUID.\n\nRetry the Terraform operation. If the error still occurs or happens regularly, please contact the provider developer with hardware and operating system information.\n\nOriginal Error: uuid string is wrong length'],
  ],
});

check({
  scenario: 'The random provider offers its eight resource types with HashiCorp\'s schema versions.',
  run: async (h) => {
    const r = await h.p.getProviderSchema();
    return Object.entries(r.resourceTypes).map(([k, v]) => `${k}@${v.version}`).sort();
  },
  want: ['random_bytes@0', 'random_id@0', 'random_integer@0', 'random_password@3', 'random_pet@0', 'random_shuffle@0', 'random_string@2', 'random_uuid@0'],
});
