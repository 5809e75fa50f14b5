// Version constraints: required_version strings against what Terraform 1.11.4's init reported for them
// (test/data/init/required-version.json, recorded by record-versions.py), go-version's comparison and
// constraint semantics for other versions, and provider (Ruby-style) constraints: parsing errors,
// selection, and the canonical string printed by `providers` and written to the lock file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkCore, parseCoreConstraints, parseGoVersion } from '../../server/versions/core';
import { newestMeeting, parseProviderConstraints, providerConstraintsString } from '../../server/versions/provider';

const DATA = join(__dirname, '..', '..', '..', 'test', 'data', 'init');

/** What init reports for a required_version string, by Foresight's functions. */
function coreResult(s: string): string {
  const cs = parseCoreConstraints(s);
  if (!cs) return 'Invalid version constraint';
  if (cs.some((c) => c.version.pre)) return 'Invalid required_version constraint';
  return checkCore(parseGoVersion('1.11.4')!, cs) ? 'ok' : 'Unsupported Terraform Core version';
}

for (const { constraint, result } of JSON.parse(readFileSync(join(DATA, 'required-version.json'), 'utf8')) as { constraint: string; result: string }[]) {
  test(`required_version ${JSON.stringify(constraint)} -> ${result}`, () => assert.equal(coreResult(constraint), result));
}

// [constraint, version, satisfied] (go-version semantics, including prerelease rules and >3 segments).
const CHECKS: [string, string, boolean][] = [
  ['>= 1.0, < 1.2', '1.1.5', true],
  ['< 1.0, < 1.2', '1.1.5', false],
  ['= 1.0', '1.1.5', false],
  ['= 1.0', '1.0.0', true],
  ['~> 1.0', '2.0', false],
  ['~> 1.0', '1.1', true],
  ['~> 1.0', '1.2.3', true],
  ['~> 1.0.0', '1.2.3', false],
  ['~> 1.0.0', '1.0.7', true],
  ['~> 1.0.7', '1.0.4', false],
  ['~> 1.0.7', '1.0.7.5', true],
  ['~> 1.0.7', '1.0.6.99', false],
  ['~> 1.0.9.5', '1.0.9.6', true],
  ['~> 1.0.9.5', '1.0.9.4', false],
  ['~> 2.0', '2.1.0-beta', false],
  ['~> 2.1.0-a', '2.1.0-beta', true],
  ['~> 2.1.0-a', '2.1.0', false],
  ['~> 2.1.0-a', '2.2.0-alpha', false],
  ['> 2.0', '2.1.0-beta', false],
  ['>= 2.1.0-a', '2.1.0-beta', true],
  ['>= 2.1.0-a', '2.1.1-beta', false],
  ['>= 2.1.0-a', '2.1.1', true],
  ['<= 2.1.0-a', '2.0.0', true],
  ['!= 1.2.3', '1.2.3', false],
  ['1.2.3+meta', '1.2.3', true],
];
for (const [c, v, want] of CHECKS) test(`go-version: ${v} ${want ? 'meets' : 'fails'} ${c}`, () => assert.equal(checkCore(parseGoVersion(v)!, parseCoreConstraints(c)!), want));

// [constraints, canonical string] (getproviders.VersionConstraintsString).
const CANON: [string, string][] = [
  ['~> 3.0', '~> 3.0'],
  ['~> 3', '~> 3.0'],
  ['~> 3.1.2', '~> 3.1.2'],
  ['3.1', '3.1.0'],
  ['= 3.1.0', '3.1.0'],
  ['>= 1.0, < 2.0', '>= 1.0.0, < 2.0.0'],
  ['< 2.0, >= 1.0', '>= 1.0.0, < 2.0.0'],
  ['~> 1.2, >= 1.2, ~> 1.2', '>= 1.2.0, ~> 1.2'],
  ['!= 1.5.0, > 1.0', '> 1.0.0, != 1.5.0'],
  ['>= 2.0.0-beta1', '>= 2.0.0-beta1'],
  ['', ''],
];
for (const [c, want] of CANON)
  test(`provider constraints ${JSON.stringify(c)} print as ${JSON.stringify(want)}`, () => {
    const cs = parseProviderConstraints(c);
    assert.ok(!('error' in cs));
    assert.equal(providerConstraintsString(cs), want);
  });

// [constraints, available versions, selected]
const SELECT: [string, string[], string | undefined][] = [
  ['', ['3.7.2', '3.6.0'], '3.7.2'],
  ['~> 3.0', ['3.7.2'], '3.7.2'],
  ['~> 2.0', ['3.7.2'], undefined],
  ['~> 3.6.0', ['3.6.3', '3.7.2'], '3.6.3'],
  ['>= 3.0, < 3.7', ['3.6.3', '3.7.2'], '3.6.3'],
  ['', ['4.0.0-beta1', '3.7.2'], '3.7.2'],
  ['4.0.0-beta1', ['4.0.0-beta1', '3.7.2'], '4.0.0-beta1'],
  ['!= 3.7.2', ['3.7.2'], undefined],
];
for (const [c, avail, want] of SELECT)
  test(`provider selection ${JSON.stringify(c)} among ${avail.join(',')} -> ${want}`, () => {
    const cs = parseProviderConstraints(c);
    assert.ok(!('error' in cs));
    assert.equal(newestMeeting(avail, cs), want);
  });

const ERRORS: [string, string][] = [
  ['=> 1.0', 'invalid specification "=> 1.0": invalid constraint operator "=>"; did you mean ">="?'],
  ['>= 1.x', 'invalid specification ">= 1.x": can\'t use wildcard for minor number; omit segments that should be unconstrained'],
  ['1.0 2.0', 'missing comma after "1.0"'],
  ['1.2.3.4', 'invalid specification "1.2.3.4": too many numbered portions; only three are allowed (major, minor, patch)'],
];
for (const [c, want] of ERRORS)
  test(`provider constraint error for ${JSON.stringify(c)}`, () => assert.deepEqual(parseProviderConstraints(c), { error: want }));
