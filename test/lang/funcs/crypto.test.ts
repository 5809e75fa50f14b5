// Unit tests of the crypto built-ins (server/lang/funcs/crypto.ts); expected values from the conformance corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { functions as F } from '../../../server/lang/funcs/crypto';
import { FuncArgError, FuncError, type FuncContext } from '../../../server/lang/funcs/function';
import { Value } from '../../../server/lang/value';

const ctx: FuncContext = { baseDir: 'test/data/funcs', planning: false, console: true };
const s = (x: string) => Value.string(x);
const call = (name: string, ...args: Value[]) => F[name].impl(args, ctx);
const str = (name: string, ...args: Value[]) => call(name, ...args).str;
function throwsMsg(fn: () => unknown, cls: typeof FuncError | typeof FuncArgError, msg: string) {
  assert.throws(fn, (e: unknown) => e instanceof cls && (e as Error).message === msg);
}

test('hashes', () => {
  assert.equal(str('md5', s('hello')), '5d41402abc4b2a76b9719d911017c592');
  assert.equal(str('md5', s('日本')), '4dbed2e657457884e67137d3514119b3');
  assert.equal(str('sha1', s('abc')), 'a9993e364706816aba3e25717850c26c9cd0d89d');
  assert.equal(str('sha256', s('')), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(
    str('sha512', s('hello')),
    '9b71d224bd62f3785d96d46ad3ea3d73319bfbc2890caadae2dff72519673ca72323c3d99ba5c11d7c7acc6e14b8c5da0c4663475c2e5c3adef46f73bcdec043',
  );
  assert.equal(str('base64sha256', s('hello')), 'LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=');
  assert.equal(str('base64sha512', s('123')), 'PJkJr+wlNU1VHa4hWQuybjjVPyFzuNPcPu5MBH56scHri4UQPjvnumE7MbtcnDYhTcnxSkL9ei/bhIVrylxEwg==');
});

test('uuid and uuidv5', () => {
  assert.match(str('uuid'), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(str('uuidv5', s('dns'), s('example.com')), 'cfbff0d1-9375-5685-968c-48ce8b15ae17');
  assert.equal(str('uuidv5', s('url'), s('https://example.com')), '4fd35a71-71ef-5a55-a9d9-aa75c889a6d0');
  assert.equal(str('uuidv5', s('oid'), s('1.2.3')), '42d5e23b-3a02-5135-85c6-52d1102f1f00');
  assert.equal(str('uuidv5', s('x500'), s('cn=test')), 'aa100ae4-58f0-5dc6-8f4e-421955eaf67f');
  assert.equal(str('uuidv5', s('6ba7b810-9dad-11d1-80b4-00c04fd430c8'), s('example.com')), 'cfbff0d1-9375-5685-968c-48ce8b15ae17');
  assert.equal(str('uuidv5', s('{6ba7b810-9dad-11d1-80b4-00c04fd430c8}'), s('a')), '4f3f2898-69e3-5a0d-820a-c4e87987dbce');
  throwsMsg(() => call('uuidv5', s('bogus'), s('x')), FuncError, "uuidv5() doesn't support namespace bogus (invalid UUID length: 5)");
  throwsMsg(
    () => call('uuidv5', s('6ba7b810-9dad-11d1-80b4-00c04fd430cx'), s('a')),
    FuncError,
    "uuidv5() doesn't support namespace 6ba7b810-9dad-11d1-80b4-00c04fd430cx (invalid UUID format)",
  );
});

test('bcrypt', () => {
  const h = str('bcrypt', s('password'));
  assert.equal(h.length, 60);
  assert.ok(h.startsWith('$2a$10$'));
  assert.ok(str('bcrypt', s('x'), Value.number(3)).startsWith('$2a$10$'));
  assert.ok(str('bcrypt', s('x'), Value.number(4)).startsWith('$2a$04$'));
  throwsMsg(
    () => call('bcrypt', s('x'), Value.number(32)),
    FuncError,
    'error occured generating password crypto/bcrypt: cost 32 is outside allowed range (4,31)',
  );
});

test('rsadecrypt', () => {
  const key = readFileSync('test/data/funcs/key.pem', 'utf8');
  const secret = readFileSync('test/data/funcs/secret.b64', 'utf8');
  assert.equal(str('rsadecrypt', s(secret), s(key)), 'top secret message');
  throwsMsg(() => call('rsadecrypt', s('bad'), s(key)), FuncArgError, 'failed to decode input "bad": cipher text must be base64-encoded');
  throwsMsg(() => call('rsadecrypt', s(secret), s('not a key')), FuncArgError, 'invalid private key: ssh: no key found');
  throwsMsg(() => call('rsadecrypt', s('c2hvcnQ='), s(key)), FuncError, 'failed to decrypt: crypto/rsa: decryption error');
});
