// Tests for the string built-ins (server/lang/funcs/string.ts); expectations come from the conformance
// corpus and from terraform 1.11.4's console.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { functions as F } from '../../../server/lang/funcs/string';
import { call, list } from './_helpers';

const c = (name: string, ...a: Parameters<typeof call> extends [unknown, unknown, ...infer R] ? R : never) => call(F, name, ...a);
const s = (x: string) => JSON.stringify(x);

test('case functions', () => {
  assert.equal(c('upper', 'straße'), s('STRAßE'));
  assert.equal(c('upper', 'é日本'), s('É日本'));
  assert.equal(c('upper', 1), s('1'));
  assert.equal(c('upper', null), 'ERR arg str: argument must not be null');
  assert.equal(c('lower', 'ΑΒΓ'), s('αβγ'));
  assert.equal(c('lower', 'HÉLLO'), s('héllo'));
  assert.equal(c('title', 'hello-world foo_bar'), s('Hello-World Foo_bar'));
  assert.equal(c('title', 'ÉCOLE école'), s('ÉCOLE École'));
  assert.equal(c('title', '\u01c6a hello'), s('\u01c5a Hello'));
});

test('chomp, trim family', () => {
  assert.equal(c('chomp', 'hello\r\n'), s('hello'));
  assert.equal(c('chomp', 'hello\n\n\n'), s('hello'));
  assert.equal(c('chomp', 'hello\r'), s('hello'));
  assert.equal(c('chomp', 'hello \n '), s('hello \n '));
  assert.equal(c('trim', '?!hello?!', '!?'), s('hello'));
  assert.equal(c('trim', 'ééaéé', 'é'), s('a'));
  assert.equal(c('trimprefix', 'aaa', 'a'), s('aa'));
  assert.equal(c('trimsuffix', 'file.tar.gz', '.gz'), s('file.tar'));
  assert.equal(c('trimsuffix', 'abc', 'abcd'), s('abc'));
  assert.equal(c('trimspace', '  \t\nhello\n  '), s('hello'));
  assert.equal(c('trimspace', '\u00a0x\u00a0'), s('x'));
});

test('predicates', () => {
  assert.equal(c('startswith', 'hello', ''), 'true');
  assert.equal(c('startswith', 'Hello', 'hello'), 'false');
  assert.equal(c('startswith', null, 'a'), 'ERR arg str: argument must not be null');
  assert.equal(c('endswith', '日本語', '語'), 'true');
  assert.equal(c('endswith', 'a', 'aa'), 'false');
  assert.equal(c('strcontains', 'hello world', 'o w'), 'true');
  assert.equal(c('strcontains', 'Hello', 'hello'), 'false');
});

test('split and join', () => {
  assert.equal(c('split', ',', ''), 'list[""]');
  assert.equal(c('split', ',', 'a,,b'), 'list["a", "", "b"]');
  assert.equal(c('split', '', 'abc'), 'list["a", "b", "c"]');
  assert.equal(c('split', '日', 'a日b'), 'list["a", "b"]');
  assert.equal(c('join', ', ', ['a', 'b', 'c']), s('a, b, c'));
  assert.equal(c('join', '', []), s(''));
  assert.equal(c('join', '-', [1, 2]), s('1-2'));
  assert.equal(c('join', ',', ['a'], ['b', 'c']), s('a,b,c'));
  assert.equal(c('join', ',', list(null)), 'ERR arg lists: element 0 is null; cannot concatenate null values');
  assert.equal(c('join', ','), 'ERR call: at least one list is required');
});

test('substr and strrev use grapheme clusters', () => {
  assert.equal(c('substr', 'hello world', 1, 4), s('ello'));
  assert.equal(c('substr', 'hello', 0, -1), s('hello'));
  assert.equal(c('substr', 'hello', -3, -1), s('llo'));
  assert.equal(c('substr', 'hello', -3, 2), s('ll'));
  assert.equal(c('substr', 'hello', 10, 2), s(''));
  assert.equal(c('substr', 'hello', 2, 100), s('llo'));
  assert.equal(c('substr', '日本語テキスト', 2, 3), s('語テキ'));
  assert.equal(c('substr', '🎉abc', 0, 1), s('🎉'));
  assert.equal(c('substr', 'hello', -10, 2), s('he'));
  assert.equal(c('substr', 'e\u0301x', 0, 1), s('e\u0301'.normalize('NFC')));
  assert.equal(c('substr', 'hello', 5, 1), s(''));
  assert.equal(c('substr', 'hello', -3, 0), s('llo'));
  assert.equal(
    c('substr', 'hello', 1.7, 2),
    'ERR call: value must be a whole number, between -9223372036854775808 and 9223372036854775807',
  );
  assert.equal(c('strrev', 'e\u0301a'), s('a\u00e9'));
  assert.equal(c('strrev', '🇺🇸🇫🇷'), s('🇫🇷🇺🇸'));
});

test('indent', () => {
  assert.equal(c('indent', 2, 'a\nb\nc'), s('a\n  b\n  c'));
  assert.equal(c('indent', 2, 'a\n'), s('a\n  '));
  assert.equal(c('indent', 2, 'a\r\nb'), s('a\r\n  b'));
  assert.match(c('indent', -1, 'a\nb'), /^ERR call: /);
});

test('format verbs', () => {
  assert.equal(c('format', 'Hello, %s!', 'Ander'), s('Hello, Ander!'));
  assert.equal(c('format', '%5d|', 42), s('   42|'));
  assert.equal(c('format', '%-5d|', 42), s('42   |'));
  assert.equal(c('format', '%05d', 42), s('00042'));
  assert.equal(c('format', '%.2f', 3.14159), s('3.14'));
  assert.equal(c('format', '%8.3f|', 3.14159), s('   3.142|'));
  assert.equal(c('format', '%e', 12345.678), s('1.234568e+04'));
  assert.equal(c('format', '%g', 0.000012), s('1.2e-05'));
  assert.equal(c('format', '%x %X %o %b', 255, 255, 8, 5), s('ff FF 10 101'));
  assert.equal(c('format', '%t', true), s('true'));
  assert.equal(c('format', '%q', 'quoted "x"'), s('"quoted \\"x\\""'));
  assert.equal(c('format', '%v', [1, 2]), s('[1,2]'));
  assert.equal(c('format', '%#v', { a: 1 }), s('{"a":1}'));
  assert.equal(c('format', '%%'), s('%'));
  assert.equal(c('format', '%.0f', 2.5), s('2'));
  assert.equal(c('format', '%+d', 5), s('+5'));
  assert.equal(c('format', '%5s|', '日本'), s('   日本|'));
  assert.equal(c('format', '%.2s', 'abcdef'), s('ab'));
  assert.equal(c('format', '%[2]s %[1]s', 'a', 'b'), s('b a'));
  assert.equal(c('format', '%d', '12'), s('12'));
  assert.equal(c('format', '%v', 1000000), s('1e+06'));
  assert.equal(c('format', '%.3g', 1234567), s('1.23e+06'));
  assert.equal(c('format', '%G %E', 1e-10, 5), s('1E-10 5.000000E+00'));
  assert.equal(c('format', '%5.1f|%-6d|%+.2e|% d', 3.14159, 42, 1234.5, 7), s('  3.1|42    |+1.23e+03| 7'));
  assert.equal(c('format', '%#x %#o %#b', 255, 8, 5), s('0xff 010 0b101'));
  assert.equal(c('format', '%.3d', 7), s('007'));
  assert.equal(c('format', '%010.3f', -3.5), s('-00003.500'));
  assert.equal(c('format', '%x', -255), s('-ff'));
  assert.equal(c('format', '%5t|', true), s('true|'));
  assert.equal(c('format', '%-05d|%-05s|', 3, 'a'), s('3    |a0000|'));
  assert.equal(c('format', '%e', 0), s('0.000000e+00'));
  assert.equal(c('format', '%v', { a: [1, 'x', null] }), s('{"a":[1,"x",null]}'));
});

test('format errors and the null quirk', () => {
  assert.equal(c('format', '%s %s', 'a'), 'ERR call: not enough arguments for "%s" at 3: need index 2 but have 1 total');
  assert.equal(c('format', '%d', 'x'), 'ERR call: unsupported value for "%d" at 0: a number is required');
  assert.equal(c('format', '%d', 1.5), 'ERR call: unsupported value for "%d" at 0: an integer is required');
  assert.equal(c('format', '%*d', 5, 3), "ERR call: unrecognized format character '*' at offset 1");
  assert.equal(c('format', '%c', 65), 'ERR call: unsupported format verb \'c\' in "%c" at offset 0');
  assert.equal(c('format', '%s', [1]), 'ERR call: unsupported value for "%s" at 0: string required');
  assert.equal(c('format', 'no verbs', 1), 'ERR arg args: too many arguments; no verbs in format string');
  assert.equal(c('format', '%d %d', 1, 2, 3), 'ERR arg args: too many arguments; only 2 used by format string');
  assert.equal(c('format', 'abc%'), 'ERR call: invalid format string starting at offset 4');
  assert.equal(c('format', '%[0]s', 1), "ERR call: unrecognized format character '0' at offset 2");
  assert.equal(c('format', '%t', 'x'), 'ERR call: unsupported value for "%t" at 0: a bool is required');
  assert.equal(c('format', '%s', null), 'unknown(string)');
});

test('formatlist', () => {
  assert.equal(c('formatlist', 'Hello, %s!', ['a', 'b']), 'list["Hello, a!", "Hello, b!"]');
  assert.equal(c('formatlist', '%s-%d', 'x', [1, 2, 3]), 'list["x-1", "x-2", "x-3"]');
  assert.equal(c('formatlist', '%s', []), 'list[]');
  assert.equal(c('formatlist', '%s', 'x'), 'list["x"]');
  assert.equal(
    c('formatlist', '%s %s', ['a'], ['b', 'c']),
    'ERR arg args: argument 2 has length 2, which is inconsistent with argument 1 of length 1',
  );
  assert.equal(
    c('formatlist', '%d', ['a']),
    'ERR call: error on format iteration 0: unsupported value for "%d" at 0: a number is required',
  );
});
