// Unit tests of regex/regexall/replace (server/lang/funcs/re.ts) and the RE2 translation (server/lang/regex.ts);
// expected values from the corpus and Terraform 1.11.4's console.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { functions as F } from '../../../server/lang/funcs/re';
import { FuncArgError, FuncError, type FuncContext } from '../../../server/lang/funcs/function';
import { compileRE2, RE2SyntaxError } from '../../../server/lang/regex';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';

const ctx: FuncContext = { baseDir: '.', planning: false, console: true };
const s = (x: string) => Value.string(x);
const call = (name: string, ...args: Value[]) => F[name].impl(args, ctx);
function throwsMsg(fn: () => unknown, cls: typeof FuncError | typeof FuncArgError, msg: string) {
  assert.throws(fn, (e: unknown) => e instanceof cls && (e as Error).message === msg, msg);
}
const rep = (a: string, b: string, c: string) => call('replace', s(a), s(b), s(c)).str;
const rx = (p: string, x: string) => call('regex', s(p), s(x)).toString();
const rxall = (p: string, x: string) => call('regexall', s(p), s(x)).toString();

test('replace', () => {
  assert.equal(rep('hello world', 'o', '0'), 'hell0 w0rld');
  assert.equal(rep('hello', '/l+/', 'L'), 'heLo');
  assert.equal(rep('hello world', '/(\\w+) (\\w+)/', '$2 $1'), 'world hello');
  assert.equal(rep('abc', '', '-'), '-a-b-c-');
  assert.equal(rep('a.b.c', '.', ''), 'abc');
  assert.equal(rep('aaa', '/a/', '$0$0'), 'aaaaaa');
  assert.equal(rep('hello', '/(?i)HELLO/', 'bye'), 'bye');
  assert.equal(rep('2024-01-15', '/(\\d+)-(\\d+)-(\\d+)/', '$3/$2/$1'), '15/01/2024');
  assert.equal(rep('a/b', '/', '\\'), 'a\\b');
  assert.equal(rep('/x/', '/x/', 'y'), '/y/');
  assert.equal(rep('ab', '/(?P<first>a)/', '[$first]'), '[a]b');
  assert.equal(rep('aaa', '/a*/', '-'), '-');
  assert.equal(rep('abc', '/x*/', '-'), '-a-b-c-');
  throwsMsg(() => call('replace', s('abc'), s('/[/'), s('x')), FuncError, 'error parsing regexp: missing closing ]: `[`');
});

test('regex', () => {
  assert.equal(rx('[a-z]+', '123abc456'), '"abc"');
  assert.equal(rx('(\\d+)-(\\d+)', '10-20'), 'tuple["10", "20"]');
  assert.equal(rx('(?P<year>\\d{4})-(?P<month>\\d{2})', '2024-03'), 'object{month="03", year="2024"}');
  assert.equal(rx('^(?:https?://)?([^/]+)', 'https://example.com/path'), 'tuple["example.com"]');
  assert.equal(rx('(a)|(b)', 'b'), 'tuple[null(string), "b"]');
  assert.equal(rx('(?P<a>a)|(?P<b>b)', 'b'), 'object{a=null(string), b="b"}');
  assert.equal(rx('\\p{Greek}+', 'abc αβγ'), '"αβγ"');
  assert.equal(rx('', 'abc'), '""');
  throwsMsg(() => call('regex', s('x'), s('abc')), FuncError, 'pattern did not match any part of the given string');
  throwsMsg(() => call('regex', s('['), s('a')), FuncArgError, 'invalid regexp pattern: missing closing ] in [');
  throwsMsg(() => call('regex', s('a(?=b)'), s('ab')), FuncArgError, 'invalid regexp pattern: invalid or unsupported Perl syntax in (?=');
  throwsMsg(() => call('regex', s('(?P<x>a)(b)'), s('ab')), FuncArgError, 'invalid regexp pattern: cannot mix both named and unnamed capture groups');
  assert.equal(T.typeString(F.regex.type!([s('(a)(b)')], ctx)), 'tuple([\n    string,\n    string,\n])');
});

test('regexall', () => {
  assert.equal(rxall('[a-z]+', 'ab12cd34ef'), 'list["ab", "cd", "ef"]');
  assert.equal(rxall('(\\d)(\\w)', '1a2b'), 'list[tuple["1", "a"], tuple["2", "b"]]');
  assert.equal(rxall('(?P<k>\\w)=(?P<v>\\d)', 'a=1,b=2'), 'list[object{k="a", v="1"}, object{k="b", v="2"}]');
  assert.equal(rxall('z', 'abc'), 'list[]');
  assert.equal(call('regexall', s('o'), s('foo boo')).length, 4);
  assert.equal(rxall('', 'ab'), 'list["", "", ""]');
  throwsMsg(() => call('regexall', s('('), s('x')), FuncArgError, 'invalid regexp pattern: missing closing ) in (');
});

test('RE2 syntax and flags', () => {
  const m = (p: string, x: string) => {
    const re = compileRE2(p);
    re.regexp.lastIndex = 0;
    const r = re.regexp.exec(x);
    return r ? r[0] : null;
  };
  const err = (p: string) => {
    try {
      compileRE2(p);
      return 'ok';
    } catch (e) {
      return e instanceof RE2SyntaxError ? e.message : String(e);
    }
  };
  assert.equal(m('(?i)abc', 'xABCx'), 'ABC');
  assert.equal(m('a(?i)b', 'aB'), 'aB');
  assert.equal(m('a(?i)b', 'AB'), null);
  assert.equal(m('(?i:[a-c]+)d', 'ABCd'), 'ABCd');
  assert.equal(m('(?s)a.b', 'a\nb'), 'a\nb');
  assert.equal(m('a.b', 'a\nb'), null);
  assert.equal(m('(?m)^b$', 'a\nb\nc'), 'b');
  assert.equal(m('^b$', 'a\nb\nc'), null);
  assert.equal(m('(?U)a+', 'aaa'), 'a');
  assert.equal(m('\\s+', 'a\u00a0 \tb'), ' \t');
  assert.equal(m('[[:digit:]]+', 'ab123'), '123');
  assert.equal(m('\\Qa.b\\E', 'axb a.b'), 'a.b');
  assert.equal(m('\\x{41}\\x42', 'AB'), 'AB');
  assert.equal(m('a{2,3}', 'aaaa'), 'aaa');
  assert.equal(m('a{,2}', 'a{,2}'), 'a{,2}');
  assert.equal(m('\\Aab\\z', 'ab'), 'ab');
  assert.equal(m('[^a]', '\n'), '\n');
  assert.equal(err('a**'), 'error parsing regexp: invalid nested repetition operator: `**`');
  assert.equal(err('*a'), 'error parsing regexp: missing argument to repetition operator: `*`');
  assert.equal(err('a)'), 'error parsing regexp: unexpected ): `a)`');
  assert.equal(err('\\q'), 'error parsing regexp: invalid escape sequence: `\\q`');
  assert.equal(err('\\1'), 'error parsing regexp: invalid escape sequence: `\\1`');
  assert.equal(err('[z-a]'), 'error parsing regexp: invalid character class range: `z-a`');
  assert.equal(err('a{1001}'), 'error parsing regexp: invalid repeat count: `{1001}`');
  assert.equal(err('(?<!a)'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?<!`');
  assert.equal(err('(?P<n>a)(?P<n>b)'), 'ok'); // Go 1.23 accepts duplicate names
  assert.equal(err('a\\'), 'error parsing regexp: trailing backslash at end of expression: ``');
});
