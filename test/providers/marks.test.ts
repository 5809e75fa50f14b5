// Tests for server/providers/marks.ts: unmarking with paths before a provider call, re-marking after, and
// the schema-declared sensitive and write-only paths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../server/lang/types';
import type { Value } from '../../server/lang/value';
import { formatPath } from '../../server/providers/path';
import { markSensitive, markWithPaths, removeMark, sensitivePaths, unmarkDeepWithPaths, writeOnlyPaths } from '../../server/providers/marks';
import { blk, fill, list, map, nb, nested, nul, obj, opt, s, set } from '../plans/objchange/_helpers';
import { exactEq } from '../../server/plans/objchange/values';

interface Case {
  scenario: string;
  got: () => unknown;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, () => assert.deepEqual(c.got(), c.want));
}

const marked: Value = obj({
  a: s('x').mark('sensitive'),
  l: list(T.String, s('p'), s('q').mark('sensitive', 'ephemeral')),
  m: map(T.String, { k: s('v').mark('sensitive') }),
  st: set(T.String, s('e')).mark('sensitive'),
});

check({
  scenario: 'Unmarking records each mark with its path and leaves no marks behind.',
  got: () => {
    const { value, marks } = unmarkDeepWithPaths(marked);
    return [value.hasMarksDeep, marks.map((m) => `${formatPath(m.path)}=${[...m.marks].sort().join('+')}`)];
  },
  want: [false, ['.a=sensitive', '.l[1]=ephemeral+sensitive', '.m["k"]=sensitive', '.st=sensitive']],
});
check({
  scenario: 'Re-marking by path restores the original value exactly.',
  got: () => {
    const { value, marks } = unmarkDeepWithPaths(marked);
    return exactEq(markWithPaths(value, marks), marked);
  },
  want: true,
});
check({
  scenario: 'Ephemeral marks can be dropped before re-marking a planned value; paths missing from the new value are skipped.',
  got: () => {
    const { marks } = unmarkDeepWithPaths(marked);
    const planned = obj({ a: s('x'), l: list(T.String, s('p')), m: map(T.String, {}), st: set(T.String) });
    const r = markWithPaths(planned, removeMark(marks, 'ephemeral'));
    return unmarkDeepWithPaths(r).marks.map((m) => `${formatPath(m.path)}=${m.marks.join('+')}`);
  },
  want: ['.a=sensitive', '.st=sensitive'],
});

const inner = blk({ pw: opt(T.String, { sensitive: true }), w: opt(T.String, { writeOnly: true }), v: opt(T.String) });
const S = blk(
  { top: opt(T.String, { sensitive: true }), na: nested('list', { k: opt(T.String, { sensitive: true }), w: opt(T.String, { writeOnly: true }) }) },
  { one: nb('single', inner), l: nb('list', inner), st: nb('set', inner), m: nb('map', inner) },
);
const el = (v: string) => fill(inner, { v: s(v) });
const IT = fill(inner).type;
const value = fill(S, {
  na: list(obj({ k: nul(T.String), w: nul(T.String) }).type, obj({ k: s('1'), w: nul(T.String) }), obj({ k: nul(T.String), w: nul(T.String) })),
  one: el('o'),
  l: list(IT, el('a'), el('b')),
  st: set(IT, el('s')),
  m: map(IT, { key: el('m') }),
});

check({
  scenario: 'Sensitive paths cover null attributes, every list element, set element and map key of nested blocks and nested attributes.',
  got: () => sensitivePaths(S, value).map(formatPath),
  want: ['.top', '.na[0].k', '.na[1].k', '.one.pw', '.l[0].pw', '.l[1].pw', '.st[...].pw', '.m["key"].pw'],
});
check({
  scenario: 'Write-only paths are found the same way.',
  got: () => writeOnlyPaths(S, value).map(formatPath),
  want: ['.na[0].w', '.na[1].w', '.one.w', '.l[0].w', '.l[1].w', '.st[...].w', '.m["key"].w'],
});
check({
  scenario: 'Marking schema-sensitive paths marks those values, including inside sets.',
  got: () => unmarkDeepWithPaths(markSensitive(S, value)).marks.map((m) => formatPath(m.path)),
  want: ['.l[0].pw', '.l[1].pw', '.m["key"].pw', '.na[0].k', '.na[1].k', '.one.pw', '.st[...].pw', '.top'],
});
