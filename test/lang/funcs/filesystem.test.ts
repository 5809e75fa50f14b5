// Unit tests of the filesystem built-ins (server/lang/funcs/filesystem.ts); expected values from the corpus,
// run against a copy of the corpus helper files in test/data/funcs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { functions as F } from '../../../server/lang/funcs/filesystem';
import { FuncArgError, FuncError, type FuncContext } from '../../../server/lang/funcs/function';
import { Value } from '../../../server/lang/value';

const ctx: FuncContext = { baseDir: 'test/data/funcs', planning: false, console: true };
const dot: FuncContext = { ...ctx, baseDir: '.' };
const s = (x: string) => Value.string(x);
const call = (name: string, ...args: Value[]) => F[name].impl(args, ctx);
const str = (name: string, ...args: Value[]) => call(name, ...args).str;
function throwsMsg(fn: () => unknown, cls: typeof FuncError | typeof FuncArgError, msg: string) {
  assert.throws(fn, (e: unknown) => e instanceof cls && (e as Error).message === msg);
}
const NOFILE = (p: string) =>
  `no file exists at "${p}"; this function works only with files that are distributed as part of the configuration source code, so if this file will be created by a resource in this configuration you must instead obtain this result from an attribute of that resource`;

test('path functions', () => {
  assert.equal(str('basename', s('/a/b/c.txt')), 'c.txt');
  assert.equal(str('basename', s('/a/b/')), 'b');
  assert.equal(str('basename', s('')), '.');
  assert.equal(str('basename', s('/')), '/');
  assert.equal(str('basename', s('a\\b')), 'a\\b');
  assert.equal(str('dirname', s('/a/b/c.txt')), '/a/b');
  assert.equal(str('dirname', s('c.txt')), '.');
  assert.equal(str('dirname', s('/')), '/');
  assert.equal(str('dirname', s('a/b/')), 'a/b');
  assert.equal(str('dirname', s('')), '.');
  assert.equal(str('abspath', s('/a/b/../c')), '/a/c');
  assert.equal(str('abspath', s('/a//b/./c/')), '/a/b/c');
  assert.ok(str('abspath', s('sub/a.txt')).endsWith('/sub/a.txt'));
  assert.equal(str('pathexpand', s('/etc/hosts')), '/etc/hosts');
  assert.equal(str('pathexpand', s('relative/path')), 'relative/path');
  assert.equal(str('pathexpand', s('')), '');
  assert.ok(!str('pathexpand', s('~/x')).startsWith('~'));
  throwsMsg(() => call('pathexpand', s('~user/x')), FuncError, 'cannot expand user-specific home dir');
});

test('file and filebase64', () => {
  assert.equal(str('file', s('hello.txt')), 'Hello, World!\n');
  assert.equal(str('file', s('crlf.txt')), 'line1\r\nline2\r\n');
  assert.equal(str('file', s('./sub/../hello.txt')), 'Hello, World!\n');
  assert.equal(str('file', s('empty.txt')), '');
  throwsMsg(() => call('file', s('missing.txt')), FuncArgError, NOFILE('missing.txt'));
  throwsMsg(
    () => call('file', s('binary.bin')),
    FuncError,
    'contents of "binary.bin" are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead',
  );
  throwsMsg(() => F.file.impl([s('sub')], { ...ctx, baseDir: '.' }), FuncArgError, NOFILE('sub'));
  process.chdir('test/data/funcs');
  try {
    throwsMsg(() => F.file.impl([s('sub')], dot), FuncArgError, 'failed to read file: read sub: is a directory');
    throwsMsg(() => F.filemd5.impl([s('missing')], dot), FuncError, 'open missing: no such file or directory');
    throwsMsg(() => F.fileexists.impl([s('sub')], dot), FuncError, '"sub" is a directory, not a file');
    throwsMsg(() => F.fileexists.impl([s('')], dot), FuncError, '"." is a directory, not a file');
  } finally {
    process.chdir('../../..');
  }
  assert.equal(str('filebase64', s('binary.bin')), '//4AAWJpbmFyeQ==');
  assert.equal(str('filebase64', s('hello.txt')), 'SGVsbG8sIFdvcmxkIQo=');
  const sens = F.file.impl([s('hello.txt').mark('sensitive')], ctx);
  assert.ok(sens.isSensitive);
  throwsMsg(() => F.file.impl([s('nope').mark('sensitive')], ctx), FuncArgError, NOFILE('(sensitive value)').replace('"(sensitive value)"', '(sensitive value)'));
});

test('fileexists', () => {
  assert.equal(call('fileexists', s('hello.txt')).bool, true);
  assert.equal(call('fileexists', s('missing.txt')).bool, false);
  assert.equal(call('fileexists', s('sub/deep/d.txt')).bool, true);
});

test('file hashes', () => {
  assert.equal(str('filemd5', s('hello.txt')), 'bea8252ff4e80f41719ea13cdf007273');
  assert.equal(str('filesha1', s('empty.txt')), 'da39a3ee5e6b4b0d3255bfef95601890afd80709');
  assert.equal(str('filesha256', s('binary.bin')), 'ffe5471397f25e8fa04595e2a7f53b5f7c0a874975270937f6edf5a2203bd56a');
  assert.equal(
    str('filesha512', s('hello.txt')),
    '921618bc6d9f8059437c5e0397b13f973ab7c7a7b81f0ca31b70bf448fd800a460b67efda0020088bc97bf7d9da97a9e2ce7b20d46e066462ec44cf60284f9a7',
  );
  assert.equal(str('filebase64sha256', s('hello.txt')), 'yYwktnfv9Ehgr+pvSTu67FuxxMuyCcb8K7tH9m/yrTE=');
  assert.equal(
    str('filebase64sha512', s('binary.bin')),
    'hwRcGD4tYxDgqxFmQjd7UOyklIixYu3f10gLDEw4PTM1f7jGmQRrqXWER/Xa++GC16/TJa4MGj7j5GrOgYVrZg==',
  );
});

test('fileset', () => {
  const set = (p: string, pat: string) => call('fileset', s(p), s(pat)).elems.map((v) => v.str);
  assert.deepEqual(set('.', '*.txt'), ['crlf.txt', 'empty.txt', 'hello.txt', 'noeol.txt', 'unicode.txt']);
  assert.deepEqual(set('.', 'sub/**'), ['sub/a.txt', 'sub/b.txt', 'sub/c.md', 'sub/deep/d.txt']);
  assert.deepEqual(set('sub', '*'), ['a.txt', 'b.txt', 'c.md']);
  assert.deepEqual(set('sub', '**/*.txt'), ['a.txt', 'b.txt', 'deep/d.txt']);
  assert.deepEqual(set('.', '*.{json,yaml}'), ['config.yaml', 'data.json']);
  assert.deepEqual(set('.', 'nomatch*'), []);
  assert.deepEqual(set('nonexistent', '*'), []);
  assert.deepEqual(set('.', 'sub/?.txt'), ['sub/a.txt', 'sub/b.txt']);
  assert.deepEqual(set('.', 'sub/[ab].*'), ['sub/a.txt', 'sub/b.txt']);
  throwsMsg(() => F.fileset.impl([s('.'), s('[')], dot), FuncError, 'failed to glob pattern "[": syntax error in pattern');
});

test('templatefile (with the renderer of funcs/template.ts)', async () => {
  await import('../../../server/lang/funcs/template');
  const tf = (p: string, vars: Record<string, Value>) => F.templatefile.impl([s(p), Value.object(vars)], ctx);
  assert.equal(tf('greeting.tftpl', { name: s('World') }).str, 'Hello, World!\n');
  assert.equal(tf('list.tftpl', { items: Value.tuple([s('x'), s('y'), s('z')]) }).str, '0: x\n1: y\n2: z\n');
  assert.equal(tf('cond.tftpl', { enabled: Value.bool(false) }).str, 'off\n');
  assert.equal(tf('greeting.tftpl', { name: s('a'), extra: Value.number(1) }).str, 'Hello, a!\n');
  assert.ok(tf('greeting.tftpl', { name: s('s').mark('sensitive') }).isSensitive);
  throwsMsg(() => tf('greeting.tftpl', {}), FuncArgError, 'vars map does not contain key "name", referenced at greeting.tftpl:1,10-14');
  throwsMsg(() => tf('missing.tftpl', {}), FuncArgError, NOFILE('missing.tftpl'));
  throwsMsg(() => F.templatefile.impl([s('greeting.tftpl'), s('x')], ctx), FuncArgError, 'invalid vars value: must be a map');
  throwsMsg(
    () => tf('bad.tftpl', { name: s('x') }),
    FuncError,
    'bad.tftpl:1,1-8: Unclosed template interpolation sequence; There is no closing brace for this interpolation sequence before the end of the file. This might be caused by incorrect nesting inside the given expression.',
  );
});
