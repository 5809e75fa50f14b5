// The `random` provider (registry.terraform.io/hashicorp/random), compatible with hashicorp/random 3.7.2 (managed
// resources unchanged since 3.6.3; the ephemeral random_password of 3.7 is not offered):
// random_bytes, random_id, random_integer, random_password, random_pet, random_shuffle, random_string and
// random_uuid with the same schemas (versions, flags, defaults, sensitivity), plan behaviour (every input
// forces replacement; `keepers` changes replace except for keys with null values; computed results keep
// their prior values on in-place updates), validation messages, import formats and state upgraders
// (random_password v0–v2 → v3, random_string v1 → v2).
//
// Results come from node:crypto. Known differences from HashiCorp's binary: `seed` (random_integer,
// random_shuffle) gives results that are reproducible for the same seed within Foresight but not equal to
// Go's math/rand sequence, and random_pet draws from Foresight's own (smaller) word lists.
// Written with the SDK (../sdk). Siblings: terraform.ts, null.ts, index.ts.

import bcryptjs from 'bcryptjs';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import * as T from '../../lang/types';
import { Value } from '../../lang/value';
import type { Provider, ProviderDiagnostic } from '../provider';
import type { AttributeSpec, ResourceType, StateResult } from '../sdk';
import {
  atLeast,
  atLeastOneOfTrue,
  atLeastSumOf,
  attr,
  B,
  blockOf,
  bool,
  defineProvider,
  get,
  N,
  num,
  plainError,
  planModifier,
  requiresReplace,
  requiresReplaceIf,
  requiresReplaceIfValuesNotNull,
  S,
  str,
  stringList,
  strings,
  useStateForUnknown,
  withAttrs,
} from '../sdk';

export const RANDOM_PROVIDER_ADDRESS = 'registry.terraform.io/hashicorp/random';

const RETRY =
  'Retry the Terraform operation. If the error still occurs or happens regularly, please contact the provider developer with hardware and operating system information.\n\n';
const KEEPERS_DESC = 'Arbitrary map of values that, when changed, will trigger recreation of resource. See [the main provider documentation](../index.html) for more information.';

const keepers = (): AttributeSpec => attr.map(T.String, { optional: true, description: KEEPERS_DESC, planModifiers: [requiresReplaceIfValuesNotNull()] });
const computedKept = (description: string, sensitive = false): AttributeSpec =>
  attr.string({ computed: true, sensitive, description, planModifiers: [useStateForUnknown()] });

// ---- go-compatible helpers -----------------------------------------------------------------------------------------

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Go's base64 decoding (RawURLEncoding when `raw`, else StdEncoding); errors in Go's words. */
function decodeBase64(s: string, raw: boolean): { bytes: Buffer } | { error: string } {
  const alphabet = raw ? B64URL : B64STD;
  let body = s;
  if (!raw) {
    if (s.length % 4 !== 0) return { error: `illegal base64 data at input byte ${s.length - (s.length % 4)}` };
    body = s.replace(/={1,2}$/, '');
  }
  for (let i = 0; i < body.length; i++) if (!alphabet.includes(body[i])) return { error: `illegal base64 data at input byte ${i}` };
  if (body.length % 4 === 1) return { error: `illegal base64 data at input byte ${body.length - 1}` };
  return { bytes: Buffer.from(body.replace(/-/g, '+').replace(/_/g, '/'), 'base64') };
}

/** crc64 with the ISO polynomial (Go's hash/crc64 ISO table), the seed hash of hashicorp/random. */
function crc64iso(s: string): bigint {
  const poly = 0xd800000000000000n;
  let crc = 0xffffffffffffffffn;
  for (const byte of Buffer.from(s, 'utf8')) {
    crc ^= BigInt(byte);
    for (let k = 0; k < 8; k++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n;
  }
  return crc ^ 0xffffffffffffffffn;
}

/** A source of random integers in [0, n): crypto when unseeded, a seeded splitmix64 stream otherwise. */
function newRand(seed: string | undefined): (n: number) => number {
  if (!seed) return (n) => randomInt(0, n);
  let state = crc64iso(seed);
  const mask = (1n << 64n) - 1n;
  return (n) => {
    state = (state + 0x9e3779b97f4a7c15n) & mask;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
    z ^= z >> 31n;
    return Number(z % BigInt(n));
  };
}

function perm(n: number, rand: (n: number) => number): number[] {
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rand(i + 1);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

// ---- random_string / random_password -------------------------------------------------------------------------------

const NUM_CHARS = '0123456789';
const LOWER_CHARS = 'abcdefghijklmnopqrstuvwxyz';
const UPPER_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const SPECIAL_CHARS = '!@#$%&*()-_=+[]{}<>:?';

interface StringParams {
  length: number;
  upper: boolean;
  minUpper: number;
  lower: boolean;
  minLower: number;
  numeric: boolean;
  minNumeric: number;
  special: boolean;
  minSpecial: number;
  overrideSpecial: string;
}

/** hashicorp/random's CreateString: the minimum counts from each class, the rest from the enabled classes, shuffled. */
function createString(p: StringParams): { result: string } | { error: string } {
  const special = p.overrideSpecial !== '' ? p.overrideSpecial : SPECIAL_CHARS;
  let chars = '';
  if (p.upper) chars += UPPER_CHARS;
  if (p.lower) chars += LOWER_CHARS;
  if (p.numeric) chars += NUM_CHARS;
  if (p.special) chars += special;
  if (chars === '') return { error: 'the character set specified is empty' };
  const pick = (set: string, n: number): string[] => {
    const cs = [...Buffer.from(set, 'utf8')];
    if (cs.length === 0 && n > 0) throw new Error('charSet is empty');
    return Array.from({ length: Math.max(0, n) }, () => String.fromCharCode(cs[randomInt(0, cs.length)]));
  };
  const out: string[] = [...pick(NUM_CHARS, p.minNumeric), ...pick(LOWER_CHARS, p.minLower), ...pick(UPPER_CHARS, p.minUpper), ...pick(special, p.minSpecial)];
  out.push(...pick(chars, p.length - out.length));
  const order = perm(out.length, (n) => randomInt(0, n));
  return { result: Buffer.from(order.map((i) => out[i].charCodeAt(0))).toString('latin1') };
}

/** bcrypt of the first 72 bytes, cost 10, "$2a$" prefix (golang.org/x/crypto/bcrypt's output). */
function bcryptHash(s: string): string {
  let pw = '';
  let bytes = 0;
  for (const ch of s) {
    const w = Buffer.byteLength(ch, 'utf8');
    if (bytes + w > 72) break;
    bytes += w;
    pw += ch;
  }
  const salt = bcryptjs.genSaltSync(10).replace(/^\$2b\$/, '$2a$');
  return bcryptjs.hashSync(pw, salt).replace(/^\$2b\$/, '$2a$');
}

function randomReadError(msg: string): ProviderDiagnostic {
  return plainError('Random Read Error', `While attempting to generate a random value for this resource, a read error was generated.\n\n${RETRY}Original Error: ${msg}`);
}

/** The number/numeric synchronisation of random_string and random_password (both default true). */
const numberNumeric = planModifier('Ensures that number and numeric attributes are kept synchronised.', ({ resourceConfig }) => {
  const number = get(resourceConfig, 'number');
  const numeric = get(resourceConfig, 'numeric');
  if (!number.isKnown || !numeric.isKnown) return {};
  if (!number.isNull && !numeric.isNull && number.bool !== numeric.bool) {
    return { diagnostics: [plainError('Number and numeric are both configured with different values', 'Number is deprecated, use numeric instead')] };
  }
  if (number.isNull && numeric.isNull) return { plan: Value.bool(true) };
  if (number.isNull) return { plan: numeric };
  if (numeric.isNull) return { plan: number };
  return {};
});

/** override_special: replace on change, except from "" to null (a fix for a 3.4.2 default). */
const overrideSpecialReplace = requiresReplaceIf(({ config, state }) => {
  if (!config.isKnown) return false;
  if (!config.isNull || state.isNull) return true;
  return state.str !== '';
}, 'Replace on modification unless updating from empty string ("") to null.');

const LENGTH_DESC = 'The length of the string desired. The minimum value for length is 1 and, length must also be >= (`min_upper` + `min_lower` + `min_numeric` + `min_special`).';

function stringAttributes(sensitive: boolean): Record<string, AttributeSpec> {
  const flag = (description: string) => attr.bool({ optional: true, computed: true, default: true, description, planModifiers: [requiresReplace()] });
  const min = (description: string) => attr.int64({ optional: true, computed: true, default: 0, description, planModifiers: [requiresReplace()] });
  const oneTrue = atLeastOneOfTrue('special', 'upper', 'lower');
  const attrs: Record<string, AttributeSpec> = {
    keepers: keepers(),
    length: attr.int64({
      required: true,
      description: LENGTH_DESC,
      planModifiers: [requiresReplace()],
      validators: [atLeast(1), atLeastSumOf('min_upper', 'min_lower', 'min_numeric', 'min_special')],
    }),
    special: flag('Include special characters in the result. These are `!@#$%&*()-_=+[]{}<>:?`. Default value is `true`.'),
    upper: flag('Include uppercase alphabet characters in the result. Default value is `true`.'),
    lower: flag('Include lowercase alphabet characters in the result. Default value is `true`.'),
    number: attr.bool({
      optional: true,
      computed: true,
      description: 'Include numeric characters in the result. Default value is `true`. If `number`, `upper`, `lower`, and `special` are all configured, at least one of them must be set to `true`. **NOTE**: This is deprecated, use `numeric` instead.',
      deprecationMessage: '**NOTE**: This is deprecated, use `numeric` instead.',
      planModifiers: [numberNumeric, requiresReplace()],
      validators: [oneTrue],
    }),
    numeric: attr.bool({
      optional: true,
      computed: true,
      description: 'Include numeric characters in the result. Default value is `true`. If `numeric`, `upper`, `lower`, and `special` are all configured, at least one of them must be set to `true`.',
      planModifiers: [numberNumeric, requiresReplace()],
      validators: [oneTrue],
    }),
    min_numeric: min('Minimum number of numeric characters in the result. Default value is `0`.'),
    min_upper: min('Minimum number of uppercase alphabet characters in the result. Default value is `0`.'),
    min_lower: min('Minimum number of lowercase alphabet characters in the result. Default value is `0`.'),
    min_special: min('Minimum number of special characters in the result. Default value is `0`.'),
    override_special: attr.string({
      optional: true,
      description:
        'Supply your own list of special characters to use for string generation.  This overrides the default character list in the special argument.  The `special` argument must still be set to true for any overwritten characters to be used in generation.',
      planModifiers: [overrideSpecialReplace],
    }),
    result: attr.string({ computed: true, sensitive, description: 'The generated random string.', planModifiers: [useStateForUnknown()] }),
  };
  if (sensitive) {
    attrs.bcrypt_hash = computedKept('A bcrypt hash of the generated random string. **NOTE**: If the generated random string is greater than 72 bytes in length, `bcrypt_hash` will contain a hash of the first 72 bytes.', true);
    attrs.id = computedKept('A static value used internally by Terraform, this should not be referenced in configurations.');
  } else {
    attrs.id = computedKept('The generated random string.');
  }
  return attrs;
}

function paramsOf(plan: Value): StringParams {
  const i = (n: string) => num(get(plan, n)) ?? 0;
  const b = (n: string) => bool(get(plan, n)) ?? false;
  return {
    length: i('length'),
    upper: b('upper'),
    minUpper: i('min_upper'),
    lower: b('lower'),
    minLower: i('min_lower'),
    numeric: b('numeric'),
    minNumeric: i('min_numeric'),
    special: b('special'),
    minSpecial: i('min_special'),
    overrideSpecial: str(get(plan, 'override_special')) ?? '',
  };
}

/** The legacy schemas of random_string/random_password (optional+computed flags, no defaults). */
function legacyStringBlock(opts: { numeric: boolean; bcrypt: boolean }) {
  const oc = (t: 'bool' | 'int64' | 'string') => attr[t]({ optional: true, computed: true });
  const attrs: Record<string, AttributeSpec> = {
    keepers: attr.map(T.String, { optional: true }),
    length: attr.int64({ required: true }),
    special: oc('bool'),
    upper: oc('bool'),
    lower: oc('bool'),
    number: oc('bool'),
    min_numeric: oc('int64'),
    min_upper: oc('int64'),
    min_lower: oc('int64'),
    min_special: oc('int64'),
    override_special: oc('string'),
    result: attr.string({ computed: true }),
    id: attr.string({ computed: true }),
  };
  if (opts.numeric) attrs.numeric = oc('bool');
  if (opts.bcrypt) attrs.bcrypt_hash = attr.string({ computed: true });
  return blockOf(attrs);
}

/** The upgrade shared by every legacy string/password version: nulls from old imports get their defaults. */
function upgradeStringState(prior: Value, extra: Record<string, Value>): Record<string, Value> {
  const orInt = (n: string, d: number) => (get(prior, n).isNull ? N(d) : get(prior, n));
  const orTrue = (n: string) => (get(prior, n).isNull ? B(true) : get(prior, n));
  const result = get(prior, 'result');
  const number = orTrue('number');
  return {
    keepers: get(prior, 'keepers'),
    length: get(prior, 'length').isNull ? N([...Buffer.from(str(result) ?? '', 'utf8')].length) : get(prior, 'length'),
    special: orTrue('special'),
    upper: orTrue('upper'),
    lower: orTrue('lower'),
    number,
    numeric: number,
    min_numeric: orInt('min_numeric', 0),
    min_upper: orInt('min_upper', 0),
    min_lower: orInt('min_lower', 0),
    min_special: orInt('min_special', 0),
    override_special: get(prior, 'override_special'),
    result,
    id: get(prior, 'id'),
    ...extra,
  };
}

function importedString(id: string): Record<string, Value> {
  return {
    result: S(id),
    length: N(Buffer.byteLength(id, 'utf8')),
    special: B(true),
    upper: B(true),
    lower: B(true),
    number: B(true),
    numeric: B(true),
    min_special: N(0),
    min_upper: N(0),
    min_lower: N(0),
    min_numeric: N(0),
  };
}

const randomString: ResourceType = {
  version: 2,
  description:
    'The resource `random_string` generates a random permutation of alphanumeric characters and optionally special characters.\n\nThis resource *does* use a cryptographic random number generator.\n\nHistorically this resource\'s intended usage has been ambiguous as the original example used it in a password. For backwards compatibility it will continue to exist. For unique ids please use [random_id](id.html), for sensitive random values please use [random_password](password.html).',
  attributes: stringAttributes(false),
  create({ planned }) {
    const r = createString(paramsOf(planned));
    if ('error' in r) return { state: null, diagnostics: [randomReadError(r.error)] };
    return { state: withAttrs(planned, { id: S(r.result), result: S(r.result) }) };
  },
  importState: (id) => ({ state: { ...importedString(id), id: S(id) } }),
  upgraders: {
    1: { priorSchema: legacyStringBlock({ numeric: false, bcrypt: false }), upgrade: (prior) => ({ state: upgradeStringState(prior, {}) }) },
  },
};

const randomPassword: ResourceType = {
  version: 3,
  description:
    '-> If the managed resource supports a write-only attribute for the password (first introduced in Terraform 1.11), then the ephemeral variant of [`random_password`](https://registry.terraform.io/providers/hashicorp/random/latest/docs/ephemeral-resources/password) should be used, when possible, to avoid storing the password in the plan or state file.\n\nIdentical to [`random_string`](https://registry.terraform.io/providers/hashicorp/random/latest/docs/resources/string) with the exception that the result is treated as sensitive and, thus, _not_ displayed in console output. Read more about sensitive data handling in the [Terraform documentation](https://developer.hashicorp.com/terraform/language/state/sensitive-data).\n\nThis resource *does* use a cryptographic random number generator.',
  attributes: stringAttributes(true),
  create({ planned }) {
    const r = createString(paramsOf(planned));
    if ('error' in r) return { state: null, diagnostics: [randomReadError(r.error)] };
    return { state: withAttrs(planned, { id: S('none'), result: S(r.result), bcrypt_hash: S(bcryptHash(r.result)) }) };
  },
  importState: (id) => ({ state: { ...importedString(id), id: S('none'), bcrypt_hash: S(bcryptHash(id)) } }),
  upgraders: {
    0: {
      priorSchema: legacyStringBlock({ numeric: false, bcrypt: false }),
      upgrade: (prior) => ({ state: upgradeStringState(prior, { bcrypt_hash: S(bcryptHash(str(get(prior, 'result')) ?? '')) }) }),
    },
    1: {
      priorSchema: legacyStringBlock({ numeric: false, bcrypt: true }),
      upgrade: (prior) => ({ state: upgradeStringState(prior, { bcrypt_hash: get(prior, 'bcrypt_hash') }) }),
    },
    2: {
      priorSchema: legacyStringBlock({ numeric: true, bcrypt: true }),
      upgrade(prior): StateResult {
        const result = str(get(prior, 'result')) ?? '';
        const hash = str(get(prior, 'bcrypt_hash')) ?? '';
        const numeric = get(prior, 'number').isNull ? B(true) : get(prior, 'number');
        let ok = false;
        try {
          ok = hash !== '' && bcryptjs.compareSync(result, hash.replace(/^\$2a\$/, '$2b$'));
        } catch {
          ok = false;
        }
        return { state: upgradeStringState(prior, { numeric, bcrypt_hash: ok ? get(prior, 'bcrypt_hash') : S(bcryptHash(result)) }) };
      },
    },
  },
};

// ---- random_id, random_bytes -----------------------------------------------------------------------------------------

function idEncodings(bytes: Buffer, prefix: string) {
  const raw = bytes.toString('base64url');
  return {
    id: S(raw),
    b64_url: S(prefix + raw),
    b64_std: S(prefix + bytes.toString('base64')),
    hex: S(prefix + bytes.toString('hex')),
    dec: S(prefix + (bytes.length ? BigInt('0x' + bytes.toString('hex')).toString() : '0')),
  };
}

const randomId: ResourceType = {
  description:
    '\nThe resource `random_id` generates random numbers that are intended to be\nused as unique identifiers for other resources. If the output is considered \nsensitive, and should not be displayed in the CLI, use `random_bytes`\ninstead.\n\nThis resource *does* use a cryptographic random number generator in order\nto minimize the chance of collisions, making the results of this resource\nwhen a 16-byte identifier is requested of equivalent uniqueness to a\ntype-4 UUID.\n\nThis resource can be used in conjunction with resources that have\nthe `create_before_destroy` lifecycle flag set to avoid conflicts with\nunique names during the brief period where both the old and new resources\nexist concurrently.\n',
  attributes: {
    keepers: keepers(),
    byte_length: attr.int64({ required: true, description: 'The number of random bytes to produce. The minimum value is 1, which produces eight bits of randomness.', planModifiers: [requiresReplace()] }),
    prefix: attr.string({ optional: true, description: 'Arbitrary string to prefix the output value with. This string is supplied as-is, meaning it is not guaranteed to be URL-safe or base64 encoded.', planModifiers: [requiresReplace()] }),
    b64_url: computedKept('The generated id presented in base64, using the URL-friendly character set: case-sensitive letters, digits and the characters `_` and `-`.'),
    b64_std: computedKept('The generated id presented in base64 without additional transformations.'),
    hex: computedKept('The generated id presented in padded hexadecimal digits. This result will always be twice as long as the requested byte length.'),
    dec: computedKept('The generated id presented in non-padded decimal digits.'),
    id: computedKept('The generated id presented in base64 without additional transformations or prefix.'),
  },
  create({ planned }) {
    const n = num(get(planned, 'byte_length')) ?? 0;
    const bytes = randomBytes(Math.max(0, n));
    return { state: withAttrs(planned, idEncodings(bytes, str(get(planned, 'prefix')) ?? '')) };
  },
  importState(id) {
    const sep = id.lastIndexOf(',');
    const prefix = sep === -1 ? '' : id.slice(0, sep);
    const raw = sep === -1 ? id : id.slice(sep + 1);
    const dec = decodeBase64(raw, true);
    if ('error' in dec) {
      return { state: null, diagnostics: [plainError('Import Random ID Error', `While attempting to import a random id there was a decoding error.\n\n+${RETRY}Original Error: ${dec.error}`)] };
    }
    return { state: { ...idEncodings(dec.bytes, prefix), id: S(raw), byte_length: N(dec.bytes.length), prefix: S(prefix === '' ? undefined : prefix) } };
  },
};

const randomBytesResource: ResourceType = {
  description:
    'The resource `random_bytes` generates random bytes that are intended to be used as a secret, or key. Use this in preference to `random_id` when the output is considered sensitive, and should not be displayed in the CLI.\n\nThis resource *does* use a cryptographic random number generator.',
  attributes: {
    keepers: attr.map(T.String, { optional: true, description: KEEPERS_DESC, planModifiers: [requiresReplace()] }),
    length: attr.int64({ required: true, description: 'The number of bytes requested. The minimum value for length is 1.', planModifiers: [requiresReplace()], validators: [atLeast(1)] }),
    base64: computedKept('The generated bytes presented in base64 string format.', true),
    hex: computedKept('The generated bytes presented in lowercase hexadecimal string format. The length of the encoded string is exactly twice the `length` parameter.', true),
  },
  create({ planned }) {
    const bytes = randomBytes(num(get(planned, 'length')) ?? 0);
    return { state: withAttrs(planned, { base64: S(bytes.toString('base64')), hex: S(bytes.toString('hex')) }) };
  },
  importState(id) {
    const dec = decodeBase64(id, false);
    if ('error' in dec) {
      return { state: null, diagnostics: [plainError('Import Random bytes Error', `There was an error during the parsing of the base64 string.\n\n${RETRY}Original Error: ${dec.error}`)] };
    }
    return { state: { length: N(dec.bytes.length), base64: S(id), hex: S(dec.bytes.toString('hex')) } };
  },
};

// ---- random_integer ------------------------------------------------------------------------------------------------

const INT_ERR = 'Import Random Integer Error';

function parseGoInt(s: string): bigint | undefined {
  return /^[+-]?[0-9]+$/.test(s) ? BigInt(s) : undefined;
}

const randomInteger: ResourceType = {
  description:
    'The resource `random_integer` generates random values from a given range, described by the `min` and `max` attributes of a given resource.\n\nThis resource can be used in conjunction with resources that have the `create_before_destroy` lifecycle flag set, to avoid conflicts with unique names during the brief period where both the old and new resources exist concurrently.',
  attributes: {
    keepers: keepers(),
    min: attr.int64({ required: true, description: 'The minimum inclusive value of the range.', planModifiers: [requiresReplace()] }),
    max: attr.int64({ required: true, description: 'The maximum inclusive value of the range.', planModifiers: [requiresReplace()] }),
    seed: attr.string({ optional: true, description: 'A custom seed to always produce the same value.', planModifiers: [requiresReplace()] }),
    result: attr.int64({ computed: true, description: 'The random integer result.', planModifiers: [useStateForUnknown()] }),
    id: computedKept('The string representation of the integer result.'),
  },
  create({ planned }) {
    const max = num(get(planned, 'max')) ?? 0;
    const min = num(get(planned, 'min')) ?? 0;
    if (max < min) {
      return { state: null, diagnostics: [plainError('Create Random Integer Error', 'The minimum (minVal) value needs to be smaller than or equal to maximum (maxVal) value.')] };
    }
    const seed = str(get(planned, 'seed'));
    const n = newRand(seed)(max + 1 - min) + min;
    return { state: { keepers: get(planned, 'keepers'), min: N(min), max: N(max), seed: S(seed || undefined), result: N(n), id: S(String(n)) } };
  },
  importState(id) {
    const parts = id.split(',');
    if (parts.length !== 3 && parts.length !== 4) {
      return { state: null, diagnostics: [plainError(INT_ERR, 'Invalid import usage: expecting {result},{min},{max} or {result},{min},{max},{seed}')] };
    }
    const names = ['The value supplied', 'The min value supplied', 'The max value supplied'];
    const nums: bigint[] = [];
    for (let i = 0; i < 3; i++) {
      const v = parseGoInt(parts[i]);
      if (v === undefined) {
        return { state: null, diagnostics: [plainError(INT_ERR, `${names[i]} could not be parsed as an integer.\n\nOriginal Error: strconv.ParseInt: parsing ${JSON.stringify(parts[i])}: invalid syntax`)] };
      }
      nums.push(v);
    }
    return { state: { id: S(parts[0]), result: N(nums[0]), min: N(nums[1]), max: N(nums[2]), seed: S(parts[3]) } };
  },
};

// ---- random_pet --------------------------------------------------------------------------------------------------

const ADVERBS = ['quickly', 'gently', 'boldly', 'calmly', 'eagerly', 'freely', 'gladly', 'happily', 'kindly', 'lively', 'merrily', 'neatly', 'openly', 'politely', 'quietly', 'rapidly', 'simply', 'truly', 'warmly', 'wisely'];
const ADJECTIVES = ['able', 'bold', 'brave', 'bright', 'calm', 'clever', 'cool', 'daring', 'eager', 'fair', 'fancy', 'gentle', 'glad', 'grand', 'happy', 'keen', 'kind', 'lucky', 'merry', 'mighty', 'noble', 'proud', 'quick', 'quiet', 'rapid', 'sharp', 'smart', 'steady', 'swift', 'tidy', 'vivid', 'warm', 'wise', 'witty', 'zesty'];
const NAMES = ['badger', 'beaver', 'bison', 'camel', 'cobra', 'coyote', 'crane', 'dingo', 'dolphin', 'eagle', 'falcon', 'ferret', 'gecko', 'gopher', 'heron', 'ibex', 'impala', 'jackal', 'koala', 'lemur', 'lynx', 'marmot', 'moose', 'newt', 'ocelot', 'otter', 'panda', 'pelican', 'puffin', 'quail', 'raven', 'salmon', 'seal', 'tapir', 'toucan', 'urchin', 'walrus', 'weasel', 'yak', 'zebra'];

function petName(words: number, separator: string): string {
  const pick = (xs: string[]) => xs[randomInt(0, xs.length)];
  if (words === 1) return pick(NAMES);
  if (words === 2) return pick(ADJECTIVES) + separator + pick(NAMES);
  const parts: string[] = [];
  for (let i = 0; i < words - 2; i++) parts.push(pick(ADVERBS));
  parts.push(pick(ADJECTIVES), pick(NAMES));
  return parts.join(separator);
}

const randomPet: ResourceType = {
  description:
    'The resource `random_pet` generates random pet names that are intended to be used as unique identifiers for other resources.\n\nThis resource can be used in conjunction with resources that have the `create_before_destroy` lifecycle flag set, to avoid conflicts with unique names during the brief period where both the old and new resources exist concurrently.',
  attributes: {
    keepers: keepers(),
    length: attr.int64({ optional: true, computed: true, default: 2, description: 'The length (in words) of the pet name. Defaults to 2', planModifiers: [requiresReplace()] }),
    prefix: attr.string({ optional: true, description: 'A string to prefix the name with.', planModifiers: [requiresReplace()] }),
    separator: attr.string({ optional: true, computed: true, default: '-', description: 'The character to separate words in the pet name. Defaults to "-"', planModifiers: [requiresReplace()] }),
    id: computedKept('The random pet name.'),
  },
  create({ planned }) {
    const length = num(get(planned, 'length')) ?? 2;
    const separator = str(get(planned, 'separator')) ?? '-';
    const prefix = str(get(planned, 'prefix')) ?? '';
    let pet = petName(length, separator).toLowerCase();
    if (prefix !== '') pet = `${prefix}${separator}${pet}`;
    return { state: { keepers: get(planned, 'keepers'), length: N(length), separator: S(separator), prefix: S(prefix || undefined), id: S(pet) } };
  },
};

// ---- random_shuffle ----------------------------------------------------------------------------------------------

const randomShuffle: ResourceType = {
  description: 'The resource `random_shuffle` generates a random permutation of a list of strings given as an argument.',
  attributes: {
    keepers: keepers(),
    seed: attr.string({
      optional: true,
      description:
        'Arbitrary string with which to seed the random number generator, in order to produce less-volatile permutations of the list.\n\n**Important:** Even with an identical seed, it is not guaranteed that the same permutation will be produced across different versions of Terraform. This argument causes the result to be *less volatile*, but not fixed for all time.',
      planModifiers: [requiresReplace()],
    }),
    input: attr.list(T.String, { required: true, description: 'The list of strings to shuffle.', planModifiers: [requiresReplace()] }),
    result_count: attr.int64({
      optional: true,
      description: 'The number of results to return. Defaults to the number of items in the `input` list. If fewer items are requested, some elements will be excluded from the result. If more items are requested, items will be repeated in the result but not more frequently than the number of items in the input list.',
      planModifiers: [requiresReplace()],
    }),
    result: attr.list(T.String, { computed: true, description: 'Random permutation of the list of strings given in `input`. The number of elements is determined by `result_count` if set, or the number of elements in `input`.', planModifiers: [useStateForUnknown()] }),
    id: computedKept('A static value used internally by Terraform, this should not be referenced in configurations.'),
  },
  create({ planned }) {
    const input = get(planned, 'input');
    const elems = input.isNull ? [] : input.elems;
    const rc = get(planned, 'result_count');
    const count = rc.isNull ? elems.length : (num(rc) ?? 0);
    const base = withAttrs(planned, { id: S('-') });
    if (count <= 0 || elems.length === 0) return { state: withAttrs(base, { result: stringList([]) }) };
    const rand = newRand(str(get(planned, 'seed')));
    const out: Value[] = [];
    for (;;) {
      for (const i of perm(elems.length, rand)) {
        out.push(elems[i]);
        if (out.length >= count) return { state: withAttrs(base, { result: Value.list(out, T.String) }) };
      }
    }
  },
};

// ---- random_uuid -------------------------------------------------------------------------------------------------

/** hashicorp/go-uuid's ParseUUID + FormatUUID: the canonical lower-case form, or Go's error text. */
function parseUUID(s: string): { uuid: string } | { error: string } {
  if (s.length !== 36) return { error: 'uuid string is wrong length' };
  if (s[8] !== '-' || s[13] !== '-' || s[18] !== '-' || s[23] !== '-') return { error: 'uuid is improperly formatted' };
  const hex = s.replace(/-/g, '');
  for (let i = 0; i < hex.length; i++) {
    if (!/[0-9a-fA-F]/.test(hex[i])) {
      const cp = hex.codePointAt(i)!;
      return { error: `encoding/hex: invalid byte: U+${cp.toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(hex[i]).replace(/^"|"$/g, "'")}` };
    }
  }
  const h = hex.toLowerCase();
  return { uuid: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}` };
}

const randomUuid: ResourceType = {
  description:
    'The resource `random_uuid` generates a random uuid string that is intended to be used as a unique identifier for other resources.\n\nThis resource uses [hashicorp/go-uuid](https://github.com/hashicorp/go-uuid) to generate a UUID-formatted string for use with services needing a unique string identifier.',
  attributes: {
    keepers: keepers(),
    result: computedKept('The generated uuid presented in string format.'),
    id: computedKept('The generated uuid presented in string format.'),
  },
  create({ planned }) {
    const u = randomUUID();
    return { state: { id: S(u), result: S(u), keepers: get(planned, 'keepers') } };
  },
  importState(id) {
    const r = parseUUID(id);
    if ('error' in r) {
      return { state: null, diagnostics: [plainError('Import Random UUID Error', `There was an error during the parsing of the UUID.\n\n${RETRY}Original Error: ${r.error}`)] };
    }
    return { state: { id: S(r.uuid), result: S(r.uuid) } };
  },
};

/** The `random` provider. */
export function randomProvider(): Provider {
  return defineProvider({
    name: 'random',
    resources: {
      random_bytes: randomBytesResource,
      random_id: randomId,
      random_integer: randomInteger,
      random_password: randomPassword,
      random_pet: randomPet,
      random_shuffle: randomShuffle,
      random_string: randomString,
      random_uuid: randomUuid,
    },
  });
}

/** Exposed for tests: the string generator's parameters from a planned object, and the id decoder. */
export const _internal = { createString, decodeBase64, parseUUID, crc64iso, strings };
