// Unit tests of the encoding built-ins (server/lang/funcs/encoding.ts); expected values from the corpus
// and Terraform 1.11.4's console.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { functions as F } from '../../../server/lang/funcs/encoding';
import { FuncArgError, FuncError, type FuncContext } from '../../../server/lang/funcs/function';
import { Num } from '../../../server/lang/number';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';

const ctx: FuncContext = { baseDir: 'test/data/funcs', planning: false, console: true };
const s = (x: string) => Value.string(x);
const n = (x: number) => Value.number(x);
const call = (name: string, ...args: Value[]) => F[name].impl(args, ctx);
const str = (name: string, ...args: Value[]) => call(name, ...args).str;
function throwsMsg(fn: () => unknown, cls: typeof FuncError | typeof FuncArgError, msg: string) {
  assert.throws(fn, (e: unknown) => e instanceof cls && (e as Error).message === msg, msg);
}

test('base64', () => {
  assert.equal(str('base64encode', s('Hello')), 'SGVsbG8=');
  assert.equal(str('base64encode', s('日本')), '5pel5pys');
  assert.equal(str('base64decode', s('SGVsbG8=')), 'Hello');
  assert.equal(str('base64decode', s('')), '');
  assert.equal(str('base64decode', s('5pel5pys')), '日本');
  throwsMsg(() => call('base64decode', s('SGVsbG8')), FuncError, 'failed to decode base64 data "SGVsbG8"');
  throwsMsg(() => call('base64decode', s('!!!')), FuncError, 'failed to decode base64 data "!!!"');
  throwsMsg(() => call('base64decode', s('!!!').mark('sensitive')), FuncError, 'failed to decode base64 data (sensitive value)');
  throwsMsg(() => call('base64decode', s('/w==')), FuncError, 'the result of decoding the provided string is not valid UTF-8');
  assert.ok(call('base64decode', s('SGVsbG8=').mark('sensitive')).isSensitive);
  assert.equal(str('base64gzip', s('hello')), 'H4sIAAAAAAAA/8pIzcnJBwAAAP//AQAA//+GphA2BQAAAA==');
  assert.equal(str('base64gzip', s('')), 'H4sIAAAAAAAA/wAAAP//AQAA//8AAAAAAAAAAA==');
});

test('text encodings', () => {
  assert.equal(str('textencodebase64', s('Hello'), s('UTF-16LE')), 'SABlAGwAbABvAA==');
  assert.equal(str('textencodebase64', s('Hello'), s('UTF-8')), 'SGVsbG8=');
  assert.equal(str('textencodebase64', s('é'), s('ISO-8859-1')), '6Q==');
  assert.equal(str('textencodebase64', s('A'), s('UTF-16')), '/v8AQQ==');
  assert.equal(str('textencodebase64', s('日本'), s('SHIFT_JIS')), 'k/qWew==');
  throwsMsg(
    () => call('textencodebase64', s('x'), s('nonexistent')),
    FuncArgError,
    '"nonexistent" is not a supported IANA encoding name or alias in this Terraform version',
  );
  throwsMsg(
    () => call('textencodebase64', s('日本'), s('ISO-8859-1')),
    FuncArgError,
    'the given string contains characters that cannot be represented in ISO_8859-1:1987',
  );
  assert.equal(str('textdecodebase64', s('SABlAGwAbABvAA=='), s('UTF-16LE')), 'Hello');
  assert.equal(str('textdecodebase64', s('6Q=='), s('ISO-8859-1')), 'é');
  throwsMsg(() => call('textdecodebase64', s('!!'), s('UTF-8')), FuncArgError, 'the given value is has an invalid base64 symbol at offset 0');
});

test('urlencode', () => {
  assert.equal(str('urlencode', s('Hello World!')), 'Hello+World%21');
  assert.equal(str('urlencode', s('a+b=c&d')), 'a%2Bb%3Dc%26d');
  assert.equal(str('urlencode', s('日本')), '%E6%97%A5%E6%9C%AC');
  assert.equal(str('urlencode', s('~-._')), '~-._');
  assert.equal(str('urlencode', s('/path?q=1#frag')), '%2Fpath%3Fq%3D1%23frag');
});

test('csvdecode', () => {
  const rows = (src: string) => call('csvdecode', s(src)).elems.map((r) => Object.fromEntries([...r.entries].map(([k, v]) => [k, v.str])));
  assert.deepEqual(rows('a,b\n1,2\n3,4'), [{ a: '1', b: '2' }, { a: '3', b: '4' }]);
  assert.deepEqual(rows('a,b\n'), []);
  assert.deepEqual(rows('name,note\n"x, y","q""q"'), [{ name: 'x, y', note: 'q"q' }]);
  assert.deepEqual(rows('a\n\n1'), [{ a: '1' }]);
  assert.deepEqual(rows(readFileSync('test/data/funcs/data.csv', 'utf8')), [
    { id: '1', name: 'alpha' },
    { id: '2', name: 'beta' },
  ]);
  assert.equal(T.typeString(F.csvdecode.type!([s('a,b\n')], ctx)), 'list(object({\n    a: string,\n    b: string,\n}))');
  throwsMsg(() => call('csvdecode', s('a,b\n1\n')), FuncError, 'CSV parse error on line 2: wrong number of fields');
  throwsMsg(() => call('csvdecode', s('')), FuncError, 'missing header line');
  throwsMsg(() => call('csvdecode', s('a,a\n1,2')), FuncError, 'duplicate column name "a"');
});

test('jsonencode', () => {
  const obj = Value.object({ a: n(1), b: Value.tuple([Value.bool(true), Value.null(T.Dynamic)]), c: s('x') });
  assert.equal(str('jsonencode', obj), '{"a":1,"b":[true,null],"c":"x"}');
  assert.equal(str('jsonencode', s('string')), '"string"');
  assert.equal(str('jsonencode', Value.null(T.Dynamic)), 'null');
  assert.equal(str('jsonencode', Value.map(new Map([['z', n(1)], ['a', n(2)]]), T.Number)), '{"a":2,"z":1}');
  assert.equal(str('jsonencode', Value.set([s('b'), s('a')], T.String)), '["a","b"]');
  assert.equal(str('jsonencode', s('<html>&')), '"\\u003chtml\\u003e\\u0026"');
  assert.equal(str('jsonencode', s('tab\t\nnl')), '"tab\\t\\nnl"');
  assert.equal(str('jsonencode', s('\b\f\u0001\u2028\u007f')), '"\\b\\f\\u0001\\u2028\u007f"');
  assert.equal(str('jsonencode', Value.object({ 'a b': s('é') })), '{"a b":"é"}');
  throwsMsg(() => call('jsonencode', Value.number(Num.POS_INF)), FuncError, 'cannot serialize infinity as JSON');
  const marked = call('jsonencode', Value.tuple([n(1).mark('sensitive')]));
  assert.ok(marked.isSensitive);
  assert.ok(!call('jsonencode', Value.tuple([Value.unknown(T.Number)])).isKnown);
});

test('jsondecode', () => {
  const v = call('jsondecode', s('{"a":1,"b":[1,"x",null]}'));
  assert.equal(v.toString(), 'object{a=1, b=tuple[1, "x", null(dynamic)]}');
  assert.equal(call('jsondecode', s('{"a":1,"a":2}')).toString(), 'object{a=2}');
  assert.equal(call('jsondecode', s('  true  ')).bool, true);
  assert.equal(call('jsondecode', s('"\\u00e9\\n"')).str, 'é\n');
  assert.equal(call('jsondecode', s('null')).isNull, true);
  assert.equal(T.typeString(F.jsondecode.type!([s('{"a":[1,2]}')], ctx)), 'object({\n    a: tuple([\n        number,\n        number,\n    ]),\n})');
  for (const [src, msg] of [
    ['{"a":1', 'EOF'],
    ['', 'EOF'],
    ['[1, 2] x', 'extraneous data after JSON object'],
    ['01', 'extraneous data after JSON object'],
    ['NaN', "invalid character 'N' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['[1 2]', "invalid character '2' after array element"],
    ['"abc', 'unexpected EOF'],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['tru', 'unexpected EOF'],
    ['-', 'unexpected EOF'],
    ['1.', 'unexpected EOF'],
    ['{"a":1 "b"}', 'invalid character \'"\' after object key:value pair'],
    ['["\\x"]', "invalid character 'x' in string escape code"],
  ])
    throwsMsg(() => call('jsondecode', s(src)), FuncError, msg);
});

test('yamlencode', () => {
  const y = (v: Value) => str('yamlencode', v);
  assert.equal(y(Value.object({ a: n(1), b: Value.tuple([n(1), n(2)]), c: s('x') })), '"a": 1\n"b":\n- 1\n- 2\n"c": "x"\n');
  assert.equal(y(s('string')), '"string"\n');
  assert.equal(y(Value.tuple([])), '[]\n');
  assert.equal(y(Value.object({})), '{}\n');
  assert.equal(y(Value.null(T.Dynamic)), 'null\n...\n');
  assert.equal(y(Value.bool(true)), 'true\n...\n');
  assert.equal(y(n(1.5)), '1.5\n...\n');
  assert.equal(y(s('multi\nline')), '|-\n  multi\n  line\n');
  assert.equal(y(Value.object({ nested: Value.object({ list: Value.tuple([Value.object({ k: s('v') })]) }) })), '"nested":\n  "list":\n  - "k": "v"\n');
  assert.equal(y(Value.tuple([s('- dash'), s('key: v'), s('#hash')])), '- "- dash"\n- "key: v"\n- "#hash"\n');
  assert.equal(
    y(
      Value.tuple([
        s('a\n'),
        s('b\n\n'),
        s(' lead\nx'),
        s('tab\there\nx'),
        Value.tuple([n(1), Value.tuple([n(2), n(3)])]),
        Value.object({}),
        Value.tuple([]),
        Value.null(T.Dynamic),
        s('é\u0085\u00a0x'),
      ]),
    ),
    '- |\n  a\n- |+\n  b\n\n- |2-\n   lead\n  x\n- "tab\\there\\nx"\n- - 1\n  - - 2\n    - 3\n- {}\n- []\n- null\n- "é\\N\u00a0x"\n',
  );
  assert.equal(y(Value.object({ l: Value.tuple([s('m\nn')]), m: s('p\nq\n') })), '"l":\n- |-\n  m\n  n\n"m": |\n  p\n  q\n');
  assert.equal(
    y(Value.object({ a: s('x y z aaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbb ccccccccccccccccccccccccc ddddddddddddddddddd eeeeeeeeeeeee fff') })),
    '"a": "x y z aaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbb ccccccccccccccccccccccccc\n  ddddddddddddddddddd eeeeeeeeeeeee fff"\n',
  );
  assert.equal(y(Value.object({ 'k\nq': n(1) })), '? |-\n  k\n  q\n: 1\n');
});

test('yamldecode', () => {
  const d = (src: string) => call('yamldecode', s(src)).toString();
  assert.equal(d('a: 1\nb: [x, y]'), 'object{a=1, b=tuple["x", true]}');
  assert.equal(d('- 1\n- two\n- true'), 'tuple[1, "two", true]');
  assert.equal(d('foo'), '"foo"');
  assert.equal(d('yes'), 'true');
  assert.equal(d('0x10'), '16');
  assert.equal(d('a: &x 1\nb: *x'), 'object{a=1, b=1}');
  assert.equal(d('~'), 'null(dynamic)');
  assert.equal(d('a: 1.0'), 'object{a=1}');
  assert.equal(d("'quoted'"), '"quoted"');
  assert.equal(d('{a: 1, b: {c: null}}'), 'object{a=1, b=object{c=null(dynamic)}}');
  assert.equal(d('1: one'), 'object{1="one"}');
  assert.equal(d('a: 2001-12-14'), 'object{a="2001-12-14T00:00:00Z"}');
  assert.equal(d('a: 1\na: 2'), 'object{a=2}');
  assert.equal(d(readFileSync('test/data/funcs/config.yaml', 'utf8')), 'object{count=3, name="demo", tags=tuple["a", "b"]}');
  throwsMsg(() => call('yamldecode', s('')), FuncError, 'on line 1, column 1: missing start of document');
  throwsMsg(() => call('yamldecode', s('---\na: 1\n---\nb: 2')), FuncError, 'on line 2, column 1: unexpected extra content after value');
  throwsMsg(() => call('yamldecode', s('*x')), FuncError, 'reference to undefined anchor "x"');
});

test('yamldecode flow collection errors', () => {
  throwsMsg(() => call('yamldecode', s('a: [1')), FuncError, "on line 1, column 1: did not find expected ',' or ']'");
  throwsMsg(() => call('yamldecode', s('x:\n  y: [1')), FuncError, "on line 2, column 1: did not find expected ',' or ']'");
  throwsMsg(() => call('yamldecode', s('a: {b: 1')), FuncError, "on line 1, column 1: did not find expected ',' or '}'");
});
