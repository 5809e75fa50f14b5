// Tests for the built-in time provider (server/providers/builtin/time.ts) through the loopback: time_static,
// time_offset, time_rotating and time_sleep creates, in-place updates, replacements, refresh after rotation,
// imports with hashicorp/time 0.12.1's ID formats and messages, configuration validation, and time_sleep's
// delays ended early by StopProvider. The harness checks plans and applies against objchange.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as T from '../../../server/lang/types';
import { Value } from '../../../server/lang/value';
import { goString } from '../../../server/providers/gostring';
import { TIME_PROVIDER_ADDRESS, addDate, formatRFC3339, parseDuration, parseRFC3339 } from '../../../server/providers/builtin/time';
import { stringMap } from '../../../server/providers/sdk';
import { Harness, at } from './_harness';

const s = (x: string) => Value.string(x);
const n = (x: number) => Value.number(x);

interface Case {
  scenario: string;
  run: (h: Harness) => Promise<unknown>;
  want: unknown;
}
function check(c: Case): void {
  test(c.scenario, async () => {
    assert.deepEqual(await c.run(new Harness(TIME_PROVIDER_ADDRESS)), c.want);
  });
}
const partsOf = (v: Value) => ['year', 'month', 'day', 'hour', 'minute', 'second', 'unix'].map((k) => at(v, k).num.toNumber());

check({
  scenario: 'Go time helpers: RFC 3339 parsing keeps the zone, formatting drops fractions, AddDate normalises like Go, and errors use time.Parse / ParseDuration wording.',
  run: async () => {
    const t = parseRFC3339('2020-01-31T23:30:00.5+02:00');
    if (!('t' in t)) return t;
    return [
      formatRFC3339(t.t),
      formatRFC3339(addDate(t.t, 0, 1, 0)),
      parseRFC3339('2020-02-30T00:00:00Z'),
      parseRFC3339('20:43:16-05:00'),
      parseRFC3339('2023-07-25T20:43:16Zabc'),
      parseDuration('1h30m'),
      parseDuration('5x'),
      parseDuration('10'),
    ];
  },
  want: [
    '2020-01-31T23:30:00+02:00',
    '2020-03-02T23:30:00+02:00',
    { error: 'parsing time "2020-02-30T00:00:00Z": day out of range' },
    { error: 'parsing time "20:43:16-05:00" as "2006-01-02T15:04:05Z07:00": cannot parse "20:43:16-05:00" as "2006"' },
    { error: 'parsing time "2023-07-25T20:43:16Zabc": extra text: "abc"' },
    { ms: 5400000 },
    { error: 'time: unknown unit "x" in duration "5x"' },
    { error: 'time: missing unit in duration "10"' },
  ],
});

check({
  scenario: 'time_static without rfc3339 plans unknown values and applies the current UTC time; with rfc3339 it keeps the zone; unchanged config plans no change; triggers replace.',
  run: async (h) => {
    const before = Math.floor(Date.now() / 1000);
    const p = await h.plan('time_static', null, {});
    const a = await h.apply('time_static', null, p.planned, {});
    const after = Math.floor(Date.now() / 1000);
    const unix = at(a.state, 'unix').num.toNumber();
    const { state } = await h.converge('time_static', null, { rfc3339: s('2020-02-12T06:36:13+02:00'), triggers: stringMap({ a: '1' }) });
    const same = await h.plan('time_static', state, { rfc3339: s('2020-02-12T06:36:13+02:00'), triggers: stringMap({ a: '1' }) });
    const trig = await h.plan('time_static', state, { rfc3339: s('2020-02-12T06:36:13+02:00'), triggers: stringMap({ a: '2' }) });
    return [
      goString(at(p.planned, 'id')),
      unix >= before && unix <= after,
      /Z$/.test(at(a.state, 'id').str),
      at(state, 'id').str,
      partsOf(state),
      goString(same.planned) === goString(state),
      trig.requiresReplace,
      trig.replaced,
    ];
  },
  want: ['cty.UnknownVal(cty.String)', true, true, '2020-02-12T06:36:13+02:00', [2020, 2, 12, 6, 36, 13, 1581482173], true, ['.triggers'], true],
});

check({
  scenario: 'time_static imports an RFC 3339 id with an empty triggers map, rejects other ids with Go\'s parse error, and validates rfc3339 in configuration.',
  run: async (h) => {
    const imp = await h.import('time_static', '2020-02-12T06:36:13Z');
    const bad = await h.import('time_static', 'yesterday');
    return [at(imp.state!, 'rfc3339').str, goString(at(imp.state!, 'triggers')), bad.diagnostics, await h.validate('time_static', { rfc3339: s('2020-13-01T00:00:00Z') })];
  },
  want: [
    '2020-02-12T06:36:13Z',
    'cty.MapValEmpty(cty.String)',
    ['error: Import time static error: The id that was supplied could not be parsed as RFC3339.\n\n+Original Error: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
    ['error: Invalid RFC3339 String Value: A string value was provided that is not valid RFC3339 string format.\n\nGiven Value: 2020-13-01T00:00:00Z\nError: parsing time "2020-13-01T00:00:00Z": month out of range [at .rfc3339]'],
  ],
});

check({
  scenario: 'time_offset applies offsets in the provider\'s order; changing an offset updates in place with the new values known in the plan; changing triggers replaces.',
  run: async (h) => {
    const cfg = { base_rfc3339: s('2020-01-31T12:00:00Z'), offset_months: n(1), offset_hours: n(-1) };
    const { state } = await h.converge('time_offset', null, cfg);
    const up = await h.plan('time_offset', state, { ...cfg, offset_hours: n(2) });
    const applied = await h.apply('time_offset', state, up.planned, { ...cfg, offset_hours: n(2) });
    const trig = await h.plan('time_offset', state, { ...cfg, triggers: stringMap({ k: 'v' }) });
    return [at(state, 'rfc3339').str, at(state, 'id').str, partsOf(state), up.requiresReplace, goString(at(up.planned, 'rfc3339')), at(applied.state, 'rfc3339').str, trig.requiresReplace];
  },
  want: ['2020-03-02T11:00:00Z', '2020-01-31T12:00:00Z', [2020, 3, 2, 11, 0, 0, 1583146800], [], 'cty.StringVal("2020-03-02T14:00:00Z")', '2020-03-02T14:00:00Z', ['.triggers']],
});

check({
  scenario: 'time_offset needs at least one offset_ argument; imports BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,MINUTES,SECONDS with the provider\'s format errors.',
  run: async (h) => {
    const imp = await h.import('time_offset', '2020-01-01T00:00:00Z,1,,,,,30');
    return [
      await h.validate('time_offset', { base_rfc3339: s('2020-01-01T00:00:00Z') }),
      await h.validate('time_offset', { offset_days: Value.unknown(T.Number) }),
      at(imp.state!, 'rfc3339').str,
      goString(at(imp.state!, 'offset_months')),
      (await h.import('time_offset', '2020-01-01T00:00:00Z,1')).diagnostics,
      (await h.import('time_offset', '2020-01-01T00:00:00Z,,,,,,')).diagnostics,
      (await h.import('time_offset', '2020-01-01T00:00:00Z,x,,,,,')).diagnostics,
    ];
  },
  want: [
    ['error: Missing Attribute Configuration: At least one of these attributes must be configured: [offset_seconds,offset_minutes,offset_hours,offset_days,offset_months,offset_years]'],
    [],
    '2021-01-01T00:00:30Z',
    'cty.NullVal(cty.Number)',
    ['error: Unexpected Format of ID: Unexpected format of ID ("2020-01-01T00:00:00Z,1"), expected BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,MINUTES,SECONDS'],
    ['error: Unexpected Format of ID: Unexpected format of ID ("2020-01-01T00:00:00Z,,,,,,"), expected BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,MINUTES,SECONDS where at least one offset value is non-empty'],
    ['error: Import time offset error: The offset_years parameter that was supplied could not be parsed as Int64.\n\n+Original Error: could not parse offset ("x") as int: strconv.ParseInt: parsing "x": invalid syntax'],
  ],
});

check({
  scenario: 'time_rotating computes its rotation time; refresh keeps it before that time and removes it from the state after, so the next plan creates a new one.',
  run: async (h) => {
    const { state: future } = await h.converge('time_rotating', null, { rotation_days: n(30) });
    const keep = await h.read('time_rotating', future);
    const { state: past } = await h.converge('time_rotating', null, { rfc3339: s('2020-01-01T00:00:00Z'), rotation_years: n(1) });
    const gone = await h.read('time_rotating', past);
    const rot = at(future, 'rotation_rfc3339').str;
    const base = at(future, 'rfc3339').str;
    const r = parseRFC3339(rot);
    const b = parseRFC3339(base);
    return [
      'error' in r || 'error' in b ? 'bad' : Math.round((r.t.ms - b.t.ms) / 86400000),
      goString(keep.state) === goString(future),
      at(past, 'rotation_rfc3339').str,
      partsOf(past).slice(0, 3),
      gone.state.isNull,
    ];
  },
  want: [30, true, '2021-01-01T00:00:00Z', [2021, 1, 1], true],
});

check({
  scenario: 'time_rotating changes its rotation in place when rotation_ arguments change, replaces on a new base rfc3339, and validates rotation values and their presence.',
  run: async (h) => {
    const cfg = { rfc3339: s('2030-01-01T00:00:00Z'), rotation_hours: n(1) };
    const { state } = await h.converge('time_rotating', null, cfg);
    const up = await h.plan('time_rotating', state, { rfc3339: s('2030-01-01T00:00:00Z'), rotation_minutes: n(5) });
    const applied = await h.apply('time_rotating', state, up.planned, { rfc3339: s('2030-01-01T00:00:00Z'), rotation_minutes: n(5) });
    const base = await h.plan('time_rotating', state, { rfc3339: s('2031-01-01T00:00:00Z'), rotation_hours: n(1) });
    return [
      at(state, 'rotation_rfc3339').str,
      up.requiresReplace,
      at(applied.state, 'rotation_rfc3339').str,
      base.requiresReplace,
      await h.validate('time_rotating', { rotation_days: n(0) }),
      await h.validate('time_rotating', {}),
    ];
  },
  want: [
    '2030-01-01T01:00:00Z',
    [],
    '2030-01-01T00:05:00Z',
    ['.rfc3339'],
    ['error: Invalid Attribute Value: Attribute rotation_days value must be at least 1, got: 0 [at .rotation_days]'],
    ['error: Missing Attribute Configuration: At least one of these attributes must be configured: [rotation_minutes,rotation_hours,rotation_days,rotation_months,rotation_years,rotation_rfc3339]'],
  ],
});

check({
  scenario: 'time_rotating imports BASETIMESTAMP,ROTATIONTIMESTAMP and BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,MINUTES, with the provider\'s format errors.',
  run: async (h) => {
    const two = await h.import('time_rotating', '2020-01-01T00:00:00Z,2020-06-01T00:00:00Z');
    const six = await h.import('time_rotating', '2020-01-01T00:00:00Z,,,7,,');
    return [
      [at(two.state!, 'rfc3339').str, at(two.state!, 'rotation_rfc3339').str, goString(at(two.state!, 'rotation_days'))],
      [at(six.state!, 'rotation_rfc3339').str, goString(at(six.state!, 'rotation_days'))],
      (await h.import('time_rotating', 'a,b,c')).diagnostics,
      (await h.import('time_rotating', '2020-01-01T00:00:00Z,')).diagnostics,
      (await h.import('time_rotating', '2020-01-01T00:00:00Z,soon')).diagnostics,
    ];
  },
  want: [
    ['2020-01-01T00:00:00Z', '2020-06-01T00:00:00Z', 'cty.NullVal(cty.Number)'],
    ['2020-01-08T00:00:00Z', 'cty.NumberIntVal(7)'],
    ['error: Unexpected Format of ID: Unexpected format of ID ("a,b,c"), expected BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,MINUTES or BASETIMESTAMP,ROTATIONTIMESTAMP'],
    ['error: Unexpected Format of ID: Unexpected format of ID ("2020-01-01T00:00:00Z,"), expected BASETIMESTAMP,ROTATIONTIMESTAMP'],
    ['error: Import time rotating error: The timestamp that was supplied could not be parsed as RFC3339.\n\n+Original Error: parsing time "soon" as "2006-01-02T15:04:05Z07:00": cannot parse "soon" as "2006"'],
  ],
});

check({
  scenario: 'time_sleep waits create_duration before recording the time, and destroy_duration on destroy; changing a duration updates in place keeping the id.',
  run: async (h) => {
    const t0 = Date.now();
    const { state } = await h.converge('time_sleep', null, { create_duration: s('120ms'), destroy_duration: s('80ms') });
    const created = Date.now() - t0;
    const up = await h.converge('time_sleep', state, { create_duration: s('1s'), destroy_duration: s('80ms') });
    const t1 = Date.now();
    const d = await h.apply('time_sleep', up.state, Value.null(state.type), {});
    const destroyed = Date.now() - t1;
    return [created >= 110, up.plan.requiresReplace, at(up.state, 'id').str === at(state, 'id').str, Date.now() - t1 < 900, destroyed >= 70, d.diagnostics, d.state.isNull];
  },
  want: [true, [], true, true, true, [], true],
});

check({
  scenario: 'time_sleep never wakes before create_duration (its wait ends by polling the clock, not on a millisecond timer that may fire early or late): 20 concurrent 15ms creates, each measured with performance.now.',
  run: async (h) => {
    const cfg = { create_duration: s('15ms') };
    const p = await h.plan('time_sleep', null, cfg);
    const elapsed = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const t0 = performance.now();
        const r = await h.apply('time_sleep', null, p.planned, cfg);
        return { ms: performance.now() - t0, diags: r.diagnostics.length };
      }),
    );
    return [elapsed.filter((e) => e.ms < 15).length, elapsed.filter((e) => e.diags > 0).length];
  },
  want: [0, 0],
});

check({
  scenario: 'StopProvider (Ctrl-C) ends a time_sleep create or destroy delay early with the provider\'s context-canceled error.',
  run: async (h) => {
    const cfg = { create_duration: s('1h') };
    const p = await h.plan('time_sleep', null, cfg);
    const t0 = Date.now();
    const pending = h.apply('time_sleep', null, p.planned, cfg);
    setTimeout(() => void h.p.stopProvider(), 50);
    const r = await pending;
    const { state } = await h.converge('time_sleep', null, { destroy_duration: s('1h') });
    const del = h.apply('time_sleep', state, Value.null(state.type), {});
    setTimeout(() => void h.p.stopProvider(), 50);
    const d = await del;
    return [r.diagnostics, Date.now() - t0 < 5000, d.diagnostics];
  },
  want: [['error: Create time sleep error: Original Error: context canceled'], true, ['error: Delete time sleep error: Original Error: context canceled']],
});

check({
  scenario: 'time_sleep validation: durations must match the provider\'s pattern and at least one must be set; import CREATEDURATION,DESTROYDURATION.',
  run: async (h) => {
    const imp = await h.import('time_sleep', '30s,');
    return [
      await h.validate('time_sleep', { create_duration: s('30 seconds') }),
      await h.validate('time_sleep', {}),
      [goString(at(imp.state!, 'create_duration')), goString(at(imp.state!, 'destroy_duration')), /Z$/.test(at(imp.state!, 'id').str)],
      (await h.import('time_sleep', ',')).diagnostics,
      (await h.import('time_sleep', '5q,')).diagnostics,
    ];
  },
  want: [
    ['error: Invalid Attribute Value Match: Attribute create_duration must be a number immediately followed by ms (milliseconds), s (seconds), m (minutes), or h (hours). For example, "30s" for 30 seconds., got: 30 seconds [at .create_duration]'],
    [
      'error: Invalid Attribute Combination: At least one attribute out of [destroy_duration,create_duration] must be specified [at .create_duration]',
      'error: Invalid Attribute Combination: At least one attribute out of [create_duration,destroy_duration] must be specified [at .destroy_duration]',
    ],
    ['cty.StringVal("30s")', 'cty.NullVal(cty.String)', true],
    ['error: Unexpected Format of ID: Unexpected format of ID (","), expected CREATEDURATION,DESTROYDURATION where at least one value is non-empty'],
    ['error: Import time sleep error: The create_duration cannot be parsed\n\n+Original Error: time: unknown unit "q" in duration "5q"'],
  ],
});
