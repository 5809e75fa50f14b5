// The `time` provider (registry.terraform.io/hashicorp/time), compatible with hashicorp/time 0.12.1 (the
// provider functions of 0.12 are not offered):
//
// - `time_offset`: a base timestamp (`base_rfc3339`, default the current UTC time at create) plus `offset_*`
//   (at least one required; "Missing Attribute Configuration"); computed parts of the offset time. Changing
//   only offsets updates in place with the new values known in the plan; `triggers` replace. Import
//   `BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,MINUTES,SECONDS`.
// - `time_rotating`: base `rfc3339` plus `rotation_*` (≥ 1; at least one of them) or `rotation_rfc3339`;
//   refresh removes the object once the current time is after the rotation time, so the next plan creates a
//   new one. Import `BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,MINUTES` or `BASETIMESTAMP,ROTATIONTIMESTAMP`.
// - `time_sleep`: waits `create_duration` on create and `destroy_duration` on destroy (Go duration syntax,
//   checked by the provider's regular expression); StopProvider (Ctrl-C) ends the wait with "Original Error:
//   context canceled". Import `CREATEDURATION,DESTROYDURATION`.
// - `time_static`: `rfc3339` (default now) and its parts; import by RFC 3339 timestamp.
//
// Timestamps keep their UTC offset as Go's time.Time does: parts are those of the local wall clock, output is
// RFC 3339 without fractional seconds ("Z" for a zero offset). AddDate normalises like Go (Jan 31 + 1 month
// = Mar 3). RFC 3339 errors use Go's time.Parse wording for the common cases. The clock is injectable for
// tests (`timeProvider({ now })`). Written with the SDK (../sdk). Siblings: index.ts.

import * as T from '../../lang/types';
import type { Value } from '../../lang/value';
import type { Provider, ProviderDiagnostic } from '../provider';
import type { AttributeSpec, Context, ResourceType, StateResult, Validator } from '../sdk';
import { atLeast, attr, attrError, defineProvider, frameworkPath, get, N, plainError, requiresReplace, requiresReplaceIf, S, str, stringMap, useStateForUnknown, validator, withAttrs } from '../sdk';

export const TIME_PROVIDER_ADDRESS = 'registry.terraform.io/hashicorp/time';

// ---- Go time -------------------------------------------------------------------------------------------------------

/** A Go time.Time with a fixed zone: milliseconds since the epoch and the zone's offset in minutes. */
export interface GoTime {
  ms: number;
  offset: number;
}

const LAYOUT = '2006-01-02T15:04:05Z07:00';
const q = (s: string) => JSON.stringify(s);

/** time.Parse(time.RFC3339, s) with Go's error texts (parse errors, out-of-range fields, extra text). */
export function parseRFC3339(s: string): { t: GoTime } | { error: string } {
  let v = s;
  const cannot = (elem: string) => ({ error: `parsing time ${q(s)} as ${q(LAYOUT)}: cannot parse ${q(v)} as ${q(elem)}` });
  const range = (what: string) => ({ error: `parsing time ${q(s)}: ${what} out of range` });
  const lit = (c: string) => {
    if (!v.startsWith(c)) return false;
    v = v.slice(c.length);
    return true;
  };
  const num = (n: number, elem: string, min = n): number | undefined => {
    const m = new RegExp(`^[0-9]{${min},${n}}`).exec(v);
    if (!m || (min === n && m[0].length !== n)) return undefined;
    v = v.slice(m[0].length);
    void elem;
    return Number(m[0]);
  };
  const year = num(4, '2006');
  if (year === undefined) return cannot('2006');
  if (!lit('-')) return cannot('-');
  const month = num(2, '01');
  if (month === undefined) return cannot('01');
  if (month < 1 || month > 12) return range('month');
  if (!lit('-')) return cannot('-');
  const day = num(2, '02');
  if (day === undefined) return cannot('02');
  if (day < 1 || day > 31) return range('day');
  if (!lit('T')) return cannot('T');
  const hour = num(2, '15', 1);
  if (hour === undefined) return cannot('15');
  if (hour >= 24) return range('hour');
  if (!lit(':')) return cannot(':');
  const minute = num(2, '04');
  if (minute === undefined) return cannot('04');
  if (minute >= 60) return range('minute');
  if (!lit(':')) return cannot(':');
  const second = num(2, '05');
  if (second === undefined) return cannot('05');
  if (second >= 60) return range('second');
  let ms = 0;
  const frac = /^[.,][0-9]+/.exec(v);
  if (frac) {
    ms = Math.floor(Number(`0.${frac[0].slice(1)}`) * 1000);
    v = v.slice(frac[0].length);
  }
  let offset = 0;
  if (v.startsWith('Z')) v = v.slice(1);
  else {
    const z = /^([+-])([0-9]{2}):([0-9]{2})/.exec(v);
    if (!z) return cannot('Z07:00');
    offset = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3]));
    v = v.slice(z[0].length);
  }
  if (v !== '') return { error: `parsing time ${q(s)}: extra text: ${q(v)}` };
  const daysIn = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysIn) return range('day');
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const d = new Date(wall);
  if (year < 100) d.setUTCFullYear(year);
  return { t: { ms: d.getTime() - offset * 60000, offset } };
}

/** The wall-clock parts of a time in its zone. */
function wall(t: GoTime): Date {
  return new Date(t.ms + t.offset * 60000);
}

/** Time.Format(time.RFC3339). */
export function formatRFC3339(t: GoTime): string {
  const w = wall(t);
  const p = (n: number, l = 2) => String(n).padStart(l, '0');
  const y = w.getUTCFullYear();
  const zone = t.offset === 0 ? 'Z' : `${t.offset < 0 ? '-' : '+'}${p(Math.floor(Math.abs(t.offset) / 60))}:${p(Math.abs(t.offset) % 60)}`;
  return `${y < 0 ? '-' + p(-y, 4) : p(y, 4)}-${p(w.getUTCMonth() + 1)}-${p(w.getUTCDate())}T${p(w.getUTCHours())}:${p(w.getUTCMinutes())}:${p(w.getUTCSeconds())}${zone}`;
}

/** Time.AddDate: calendar arithmetic on the wall clock, normalised as Go normalises. */
export function addDate(t: GoTime, years: number, months: number, days: number): GoTime {
  const w = wall(t);
  const d = new Date(0);
  d.setUTCFullYear(w.getUTCFullYear() + years, w.getUTCMonth() + months, w.getUTCDate() + days);
  d.setUTCHours(w.getUTCHours(), w.getUTCMinutes(), w.getUTCSeconds(), w.getUTCMilliseconds());
  return { ms: d.getTime() - t.offset * 60000, offset: t.offset };
}

const addMs = (t: GoTime, ms: number): GoTime => ({ ms: t.ms + ms, offset: t.offset });

/** The computed parts every time resource stores (year … second in the time's zone, unix seconds). */
function parts(t: GoTime): Record<string, Value> {
  const w = wall(t);
  return {
    year: N(w.getUTCFullYear()),
    month: N(w.getUTCMonth() + 1),
    day: N(w.getUTCDate()),
    hour: N(w.getUTCHours()),
    minute: N(w.getUTCMinutes()),
    second: N(w.getUTCSeconds()),
    unix: N(Math.floor(t.ms / 1000)),
  };
}

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };

/** time.ParseDuration: the duration in milliseconds, or Go's error text. */
export function parseDuration(s: string): { ms: number } | { error: string } {
  const invalid = { error: `time: invalid duration ${q(s)}` };
  let v = s;
  let sign = 1;
  if (v.startsWith('-') || v.startsWith('+')) {
    sign = v[0] === '-' ? -1 : 1;
    v = v.slice(1);
  }
  if (v === '0') return { ms: 0 };
  if (v === '') return invalid;
  let total = 0;
  while (v !== '') {
    const m = /^([0-9]*)(\.[0-9]*)?/.exec(v)!;
    if (m[0] === '' || m[0] === '.') return invalid;
    v = v.slice(m[0].length);
    const u = /^[^0-9.]*/.exec(v)![0];
    if (u === '') return { error: `time: missing unit in duration ${q(s)}` };
    if (!(u in UNITS)) return { error: `time: unknown unit ${q(u)} in duration ${q(s)}` };
    v = v.slice(u.length);
    total += Number(m[0]) * UNITS[u];
  }
  return { ms: sign * total };
}

// ---- shared schema pieces --------------------------------------------------------------------------------------------

const RFC3339_DESC = 'Base timestamp in RFC 3339 format (`YYYY-MM-DDTHH:MM:SSZ`); defaults to the current time.';

/** The timetypes.RFC3339 type's validation ("Invalid RFC3339 String Value"). */
const rfc3339Valid: Validator = validator('an RFC 3339 timestamp', ({ path, value }) => {
  if (!value.isKnown || value.isNull) return [];
  const r = parseRFC3339(value.str);
  if ('error' in r) return [attrError(path, 'Invalid RFC3339 String Value', `A string value was provided that is not valid RFC3339 string format.\n\nGiven Value: ${value.str}\nError: ${r.error}`)];
  return [];
});

function partSpecs(what: string): Record<string, AttributeSpec> {
  return {
    year: attr.int64({ computed: true, description: `Number year of ${what}.` }),
    month: attr.int64({ computed: true, description: `Number month of ${what}.` }),
    day: attr.int64({ computed: true, description: `Number day of ${what}.` }),
    hour: attr.int64({ computed: true, description: `Number hour of ${what}.` }),
    minute: attr.int64({ computed: true, description: `Number minute of ${what}.` }),
    second: attr.int64({ computed: true, description: `Number second of ${what}.` }),
    unix: attr.int64({ computed: true, description: 'Number of seconds since epoch time, e.g. `1581489373`.' }),
  };
}

const triggers = (): AttributeSpec =>
  attr.map(T.String, { optional: true, description: 'Arbitrary map of values that, when changed, will trigger a new value to be saved.', planModifiers: [requiresReplace()] });

/** resourcevalidator.AtLeastOneOf: "Missing Attribute Configuration" when every listed attribute is null. */
function atLeastOneOfConfigured(config: Value, names: string[]): ProviderDiagnostic[] {
  if (config.isNull || !config.isKnown) return [];
  let set = false;
  for (const n of names) {
    const v = get(config, n);
    if (!v.isKnown) return [];
    if (!v.isNull) set = true;
  }
  return set ? [] : [plainError('Missing Attribute Configuration', `At least one of these attributes must be configured: [${names.join(',')}]`)];
}

/** A configured RFC 3339 value as a time; Go's diagnostics when it does not parse. */
function timeOf(v: Value): { t: GoTime } | { diag: ProviderDiagnostic } {
  const r = parseRFC3339(v.isNull || !v.isKnown ? '' : v.str);
  if ('error' in r) return { diag: plainError('RFC3339 Parse Error', r.error) };
  return r;
}

/** Go's int64 zero-or-null reading (ValueInt64 of a null is 0). */
const int0 = (v: Value) => (v.isNull || !v.isKnown ? 0 : v.num.toNumber());

/** `strconv.ParseInt(s, 10, 64)` for an import field; empty is null. */
function importInt(s: string, what: string): { v: Value } | { error: string } {
  if (s === '') return { v: N(undefined) };
  if (!/^[+-]?[0-9]+$/.test(s)) return { error: `could not parse ${what} (${q(s)}) as int: strconv.ParseInt: parsing ${q(s)}: invalid syntax` };
  const b = BigInt(s);
  if (b >= 2n ** 63n || b < -(2n ** 63n)) return { error: `could not parse ${what} (${q(s)}) as int: strconv.ParseInt: parsing ${q(s)}: value out of range` };
  return { v: N(b) };
}


// ---- time_offset ---------------------------------------------------------------------------------------------------

const OFFSETS = ['offset_seconds', 'offset_minutes', 'offset_hours', 'offset_days', 'offset_months', 'offset_years'];

/** setOffsetValues: offsets applied in the provider's order (days, hours, minutes, months, seconds, years). */
function offsetValues(obj: Value, base: GoTime): Record<string, Value> {
  let t = base;
  const o = (n: string) => int0(get(obj, n));
  if (o('offset_days')) t = addDate(t, 0, 0, o('offset_days'));
  if (o('offset_hours')) t = addMs(t, o('offset_hours') * 3600000);
  if (o('offset_minutes')) t = addMs(t, o('offset_minutes') * 60000);
  if (o('offset_months')) t = addDate(t, 0, o('offset_months'), 0);
  if (o('offset_seconds')) t = addMs(t, o('offset_seconds') * 1000);
  if (o('offset_years')) t = addDate(t, o('offset_years'), 0, 0);
  return { base_rfc3339: S(formatRFC3339(base)), ...parts(t), rfc3339: S(formatRFC3339(t)), id: S(formatRFC3339(base)) };
}

function timeOffset(now: () => GoTime): ResourceType {
  const offsetAttr = (unit: string) => attr.int64({ optional: true, description: `Number of ${unit} to offset the base timestamp. At least one of the 'offset_' arguments must be configured.` });
  return {
    description: 'Manages an offset time resource: a UTC timestamp kept in the state, offset from a base timestamp.',
    attributes: {
      base_rfc3339: attr.string({ optional: true, computed: true, description: RFC3339_DESC, validators: [rfc3339Valid] }),
      ...partSpecs('offset timestamp'),
      triggers: triggers(),
      offset_days: offsetAttr('days'),
      offset_hours: offsetAttr('hours'),
      offset_minutes: offsetAttr('minutes'),
      offset_months: offsetAttr('months'),
      offset_seconds: offsetAttr('seconds'),
      offset_years: offsetAttr('years'),
      rfc3339: attr.string({ computed: true, description: 'RFC3339 format of the offset timestamp, e.g. `2020-02-12T06:36:13Z`.' }),
      id: attr.string({ computed: true, description: 'RFC3339 format of the offset timestamp, e.g. `2020-02-12T06:36:13Z`.' }),
    },
    validateConfig: (config) => atLeastOneOfConfigured(config, OFFSETS),
    modifyPlan({ prior, planned }) {
      if (prior.isNull || planned.isNull) return {};
      if (OFFSETS.every((n) => rawSame(get(prior, n), get(planned, n)))) return {};
      const b = get(planned, 'base_rfc3339');
      const base = timeOf(b.isKnown ? b : get(prior, 'base_rfc3339'));
      if ('diag' in base) return { diagnostics: [base.diag] };
      return { planned: withAttrs(planned, offsetValues(planned, base.t)) };
    },
    create({ planned }) {
      let base = now();
      const b = get(planned, 'base_rfc3339');
      if (b.isKnown && !b.isNull && b.str !== '') {
        const r = timeOf(b);
        if ('diag' in r) return { state: null, diagnostics: [r.diag] };
        base = r.t;
      }
      return { state: withAttrs(planned, offsetValues(planned, base)) };
    },
    update({ planned }) {
      const r = timeOf(get(planned, 'base_rfc3339'));
      if ('diag' in r) return { state: null, diagnostics: [r.diag] };
      return { state: withAttrs(planned, offsetValues(planned, r.t)) };
    },
    importState(id): StateResult {
      const fail = (summary: string, detail: string): StateResult => ({ state: null, diagnostics: [plainError(summary, detail)] });
      const p = id.split(',');
      if (p.length !== 7) return fail('Unexpected Format of ID', `Unexpected format of ID (${q(id)}), expected BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,MINUTES,SECONDS`);
      if (p[0] === '' || p.slice(1).every((x) => x === '')) {
        return fail('Unexpected Format of ID', `Unexpected format of ID (${q(id)}), expected BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,MINUTES,SECONDS where at least one offset value is non-empty`);
      }
      const names = ['offset_years', 'offset_months', 'offset_days', 'offset_hours', 'offset_minutes', 'offset_seconds'];
      const st: Record<string, Value> = {};
      for (let i = 0; i < names.length; i++) {
        const r = importInt(p[i + 1], 'offset');
        if ('error' in r) return fail('Import time offset error', `The ${names[i]} parameter that was supplied could not be parsed as Int64.\n\n+Original Error: ${r.error}`);
        st[names[i]] = r.v;
      }
      const base = parseRFC3339(p[0]);
      if ('error' in base) return fail('Create time offset error', `The base_rfc3339 timestamp that was supplied could not be parsed as RFC3339.\n\n+Original Error: ${base.error}`);
      const obj = withAttrs(S(undefined), st);
      return { state: { ...st, ...offsetValues(obj, base.t), triggers: emptyMap() } };
    },
  };
}

function rawSame(a: Value, b: Value): boolean {
  if (a.isNull || b.isNull) return a.isNull === b.isNull;
  if (!a.isKnown || !b.isKnown) return a.isKnown === b.isKnown;
  return a.type.kind === 'string' ? a.str === b.str : a.num.toString() === b.num.toString();
}

/** The empty `triggers` map imports store. */
const emptyMap = (): Value => stringMap({});

// ---- time_rotating -------------------------------------------------------------------------------------------------

const ROTATIONS = ['rotation_minutes', 'rotation_hours', 'rotation_days', 'rotation_months', 'rotation_years', 'rotation_rfc3339'];

/** setRotationValues: each configured rotation (in the provider's order) replaces the rotation time. */
function rotationValues(obj: Value, base: GoTime): { values: Record<string, Value> } | { diag: ProviderDiagnostic } {
  let rot = goZeroTime();
  const o = (n: string) => int0(get(obj, n));
  if (o('rotation_days')) rot = addDate(base, 0, 0, o('rotation_days'));
  if (o('rotation_hours')) rot = addMs(base, o('rotation_hours') * 3600000);
  if (o('rotation_minutes')) rot = addMs(base, o('rotation_minutes') * 60000);
  if (o('rotation_months')) rot = addDate(base, 0, o('rotation_months'), 0);
  const rr = get(obj, 'rotation_rfc3339');
  if (rr.isKnown && !rr.isNull && rr.str !== '') {
    const r = timeOf(rr);
    if ('diag' in r) return r;
    rot = r.t;
  }
  if (o('rotation_years')) rot = addDate(base, o('rotation_years'), 0, 0);
  return { values: { rotation_rfc3339: S(formatRFC3339(rot)), ...parts(rot), rfc3339: S(formatRFC3339(base)), id: S(formatRFC3339(base)) } };
}

/** Go's zero time.Time (0001-01-01T00:00:00Z). */
function goZeroTime(): GoTime {
  const d = new Date(0);
  d.setUTCFullYear(1, 0, 1);
  return { ms: d.getTime(), offset: 0 };
}

const ROTATION_NAMES = ['rotation_years', 'rotation_months', 'rotation_days', 'rotation_hours', 'rotation_minutes'];

function timeRotating(now: () => GoTime): ResourceType {
  const rotAttr = (unit: string) =>
    attr.int64({ optional: true, description: `Number of ${unit} to add to the base timestamp to configure the rotation timestamp. At least one of the 'rotation_' arguments must be configured.`, validators: [atLeast(1)] });
  const replaceIfOutdated = requiresReplaceIf(({ state }) => {
    const r = parseRFC3339(state.isNull ? '' : state.str);
    return 't' in r && Date.now() > r.t.ms;
  }, 'resource will be replaced if current time is past the saved time');
  return {
    description: 'Manages a rotating time resource: a UTC timestamp kept in the state that is replaced when the current time passes its rotation time.',
    attributes: {
      ...partSpecs('timestamp'),
      rotation_days: rotAttr('days'),
      rotation_hours: rotAttr('hours'),
      rotation_minutes: rotAttr('minutes'),
      rotation_months: rotAttr('months'),
      rotation_rfc3339: attr.string({
        optional: true,
        computed: true,
        description: "Configure the rotation timestamp with an RFC 3339 timestamp. At least one of the 'rotation_' arguments must be configured.",
        validators: [rfc3339Valid],
        planModifiers: [replaceIfOutdated],
      }),
      rotation_years: rotAttr('years'),
      triggers: triggers(),
      rfc3339: attr.string({ optional: true, computed: true, description: RFC3339_DESC, validators: [rfc3339Valid], planModifiers: [requiresReplace()] }),
      id: attr.string({ computed: true, description: 'RFC3339 format of the timestamp, e.g. `2020-02-12T06:36:13Z`.' }),
    },
    validateConfig: (config) => atLeastOneOfConfigured(config, ROTATIONS),
    modifyPlan({ prior, planned }) {
      if (prior.isNull || planned.isNull) return {};
      if (ROTATIONS.every((n) => rawSame(get(prior, n), get(planned, n)))) return {};
      const b = get(planned, 'rfc3339');
      const base = timeOf(b.isKnown ? b : get(prior, 'rfc3339'));
      if ('diag' in base) return { diagnostics: [base.diag] };
      // The provider computes from the plan, where an unconfigured rotation_rfc3339 is unknown (read as ""),
      // so only a configured rotation_rfc3339 takes part.
      const r = rotationValues(withAttrs(planned, knownOrNull(planned, 'rotation_rfc3339')), base.t);
      if ('diag' in r) return { diagnostics: [r.diag] };
      return { planned: withAttrs(planned, r.values) };
    },
    create({ planned }) {
      let base = now();
      const b = get(planned, 'rfc3339');
      if (b.isKnown && !b.isNull && b.str !== '') {
        const r = timeOf(b);
        if ('diag' in r) return { state: null, diagnostics: [r.diag] };
        base = r.t;
      }
      const r = rotationValues(withAttrs(planned, knownOrNull(planned, 'rotation_rfc3339')), base);
      if ('diag' in r) return { state: null, diagnostics: [r.diag] };
      return { state: withAttrs(planned, r.values) };
    },
    read({ state }) {
      const rr = get(state, 'rotation_rfc3339');
      if (rr.isNull || rr.str === '') return { state };
      const r = timeOf(rr);
      if ('diag' in r) return { state, diagnostics: [r.diag] };
      if (now().ms > r.t.ms) return { state: null };
      return { state };
    },
    update({ prior, planned }) {
      if (ROTATIONS.every((n) => rawSame(get(prior, n), get(planned, n)))) return { state: planned };
      const base = timeOf(get(planned, 'id'));
      if ('diag' in base) return { state: null, diagnostics: [base.diag] };
      const r = rotationValues(planned, base.t);
      if ('diag' in r) return { state: null, diagnostics: [r.diag] };
      return { state: withAttrs(planned, r.values) };
    },
    importState(id): StateResult {
      const fail = (summary: string, detail: string): StateResult => ({ state: null, diagnostics: [plainError(summary, detail)] });
      const p = id.split(',');
      if (p.length !== 2 && p.length !== 6) {
        return fail('Unexpected Format of ID', `Unexpected format of ID (${q(id)}), expected BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,MINUTES or BASETIMESTAMP,ROTATIONTIMESTAMP`);
      }
      if (p.length === 2) {
        if (p[0] === '' || p[1] === '') return fail('Unexpected Format of ID', `Unexpected format of ID (${q(id)}), expected BASETIMESTAMP,ROTATIONTIMESTAMP`);
        const base = parseRFC3339(p[0]);
        const rot = 'error' in base ? base : parseRFC3339(p[1]);
        if ('error' in base || 'error' in rot) {
          const err = 'error' in base ? base.error : (rot as { error: string }).error;
          return fail('Import time rotating error', `The timestamp that was supplied could not be parsed as RFC3339.\n\n+Original Error: ${err}`);
        }
        const r = rotationValues(withAttrs(S(undefined), { rotation_rfc3339: S(p[1]) }), base.t);
        if ('diag' in r) return { state: null, diagnostics: [r.diag] };
        return { state: { ...r.values, triggers: emptyMap() } };
      }
      if (p[0] === '' || p.slice(1).every((x) => x === '')) {
        return fail('Unexpected Format of ID', `Unexpected format of ID (${q(id)}), expected BASETIMESTAMP,YEARS,MONTHS,DAYS,HOURS,MINUTES where at least one rotation value is non-empty`);
      }
      const st: Record<string, Value> = {};
      for (let i = 0; i < ROTATION_NAMES.length; i++) {
        const r = importInt(p[i + 1], 'rotation');
        if ('error' in r) return fail('Import time rotating error', `The parameter that was supplied could not be parsed.\n\n+Original Error: ${r.error}`);
        st[ROTATION_NAMES[i]] = r.v;
      }
      const base = parseRFC3339(p[0]);
      if ('error' in base) return fail('Import time rotating error', `The parameter that was supplied could not be parsed.\n\n+Original Error: ${base.error}`);
      // The import only uses positive rotations, as the provider does.
      const positive: Record<string, Value> = {};
      for (const n of ROTATION_NAMES) positive[n] = int0(st[n]) > 0 ? st[n] : N(undefined);
      const r = rotationValues(withAttrs(S(undefined), positive), base.t);
      if ('diag' in r) return { state: null, diagnostics: [r.diag] };
      return { state: { ...st, ...r.values, triggers: emptyMap() } };
    },
  };
}

function knownOrNull(obj: Value, name: string): Record<string, Value> {
  const v = get(obj, name);
  return v.isKnown ? {} : { [name]: S(undefined) };
}

// ---- time_sleep ----------------------------------------------------------------------------------------------------

const DURATION_RE = /^[0-9]+(\.[0-9]+)?(ms|s|m|h)$/;
const DURATION_MSG = 'must be a number immediately followed by ms (milliseconds), s (seconds), m (minutes), or h (hours). For example, "30s" for 30 seconds.';

/** stringvalidator.AtLeastOneOf(other) on a null attribute: the message lists the other attribute, then this one. */
function atLeastOneOfAttr(self: string, other: string): Validator {
  return validator(`Ensure that at least one attribute from this collection is set: [${other}]`, ({ path, value, config }) => {
    if (!value.isNull) return [];
    const o = get(config, other);
    if (!o.isKnown || !o.isNull) return [];
    return [attrError(path, 'Invalid Attribute Combination', `At least one attribute out of [${other},${self}] must be specified`)];
  });
}

function durationMatches(): Validator {
  return validator(`value must match regular expression '${DURATION_RE.source}'`, ({ path, value }) => {
    if (!value.isKnown || value.isNull || DURATION_RE.test(value.str)) return [];
    return [attrError(path, 'Invalid Attribute Value Match', `Attribute ${frameworkPath(path)} ${DURATION_MSG}, got: ${value.str}`)];
  });
}

/**
 * The last part of a wait that `sleep` polls for instead of leaving to a timer: Node's timers fire up to about a
 * millisecond late (libuv counts whole milliseconds and the kernel's wait overshoots), where Go's time.Sleep, which
 * the real provider uses, is precise to microseconds. 1,000 sleeps of 50 ms at -parallelism=10 lost 0.1 s so.
 */
const POLL_MS = 2;

/** The longest delay a Node timer takes (2^31-1 ms, about 24.8 days; longer ones fire after 1 ms): a longer wait re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits `ms` (never less), ending early with Go's context error text when StopProvider aborts the signal. A timer
 * covers all but the last POLL_MS; then the deadline is checked once per turn of the event loop (setImmediate,
 * so other work goes on meanwhile).
 */
function sleep(ms: number, signal: AbortSignal): Promise<string | undefined> {
  if (signal.aborted) return Promise.resolve('context canceled');
  return new Promise((resolve) => {
    const deadline = performance.now() + Math.max(0, ms);
    let timer: NodeJS.Timeout | undefined;
    let immediate: NodeJS.Immediate | undefined;
    const check = () => {
      timer = immediate = undefined;
      const left = deadline - performance.now();
      if (left <= 0) {
        signal.removeEventListener('abort', onAbort);
        resolve(undefined);
      } else if (left > POLL_MS) timer = setTimeout(check, Math.min(left - POLL_MS, MAX_TIMER_MS));
      else immediate = setImmediate(check);
    };
    const onAbort = () => {
      if (timer) clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
      resolve('context canceled');
    };
    signal.addEventListener('abort', onAbort, { once: true });
    check();
  });
}

function timeSleep(now: () => GoTime): ResourceType {
  return {
    description: 'Manages a resource that delays creation and/or destruction, typically for further resources.',
    attributes: {
      create_duration: attr.string({
        optional: true,
        description: 'Time duration to delay resource creation, e.g. `30s` or `5m`. Updating this value by itself will not trigger a delay.',
        validators: [atLeastOneOfAttr('create_duration', 'destroy_duration'), durationMatches()],
      }),
      destroy_duration: attr.string({
        optional: true,
        description: 'Time duration to delay resource destroy, e.g. `30s` or `5m`. Updating this value by itself will not trigger a delay.',
        validators: [atLeastOneOfAttr('destroy_duration', 'create_duration'), durationMatches()],
      }),
      triggers: attr.map(T.String, { optional: true, description: 'Arbitrary map of values that, when changed, will run any creation or destroy delays again.', planModifiers: [requiresReplace()] }),
      id: attr.string({ computed: true, description: 'RFC3339 format of the offset timestamp, e.g. `2020-02-12T06:36:13Z`.', planModifiers: [useStateForUnknown()] }),
    },
    async create({ planned }, ctx: Context) {
      const cd = str(get(planned, 'create_duration')) ?? '';
      if (cd !== '') {
        const d = parseDuration(cd);
        if ('error' in d) return { state: null, diagnostics: [plainError('Create time sleep error', `The create_duration cannot be parsed\n\n+Original Error: ${d.error}`)] };
        const err = await sleep(d.ms, ctx.signal);
        if (err) return { state: null, diagnostics: [plainError('Create time sleep error', `Original Error: ${err}`)] };
      }
      return { state: withAttrs(planned, { id: S(formatRFC3339(now())) }) };
    },
    async delete({ prior }, ctx: Context) {
      const dd = str(get(prior, 'destroy_duration')) ?? '';
      if (dd === '') return {};
      const d = parseDuration(dd);
      if ('error' in d) return { diagnostics: [plainError('Delete time sleep error', `The create_duration cannot be parsed\n\n+Original Error: ${d.error}`)] };
      const err = await sleep(d.ms, ctx.signal);
      return err ? { diagnostics: [plainError('Delete time sleep error', `Original Error: ${err}`)] } : {};
    },
    importState(id): StateResult {
      const p = id.split(',');
      if (p.length !== 2 || (p[0] === '' && p[1] === '')) {
        return { state: null, diagnostics: [plainError('Unexpected Format of ID', `Unexpected format of ID (${q(id)}), expected CREATEDURATION,DESTROYDURATION where at least one value is non-empty`)] };
      }
      for (const x of p) {
        if (x === '') continue;
        const d = parseDuration(x);
        if ('error' in d) return { state: null, diagnostics: [plainError('Import time sleep error', `The create_duration cannot be parsed\n\n+Original Error: ${d.error}`)] };
      }
      return { state: { create_duration: S(p[0] || undefined), destroy_duration: S(p[1] || undefined), id: S(formatRFC3339(now())), triggers: emptyMap() } };
    },
  };
}

// ---- time_static ---------------------------------------------------------------------------------------------------

function staticValues(t: GoTime): Record<string, Value> {
  return { ...parts(t), rfc3339: S(formatRFC3339(t)), id: S(formatRFC3339(t)) };
}

function timeStatic(now: () => GoTime): ResourceType {
  return {
    description: 'Manages a static time resource, which keeps a locally sourced UTC timestamp stored in the Terraform state.',
    attributes: {
      ...partSpecs('timestamp'),
      triggers: triggers(),
      rfc3339: attr.string({ optional: true, computed: true, description: RFC3339_DESC, validators: [rfc3339Valid], planModifiers: [requiresReplace()] }),
      id: attr.string({ computed: true, description: 'RFC3339 format of the offset timestamp, e.g. `2020-02-12T06:36:13Z`.', planModifiers: [useStateForUnknown()] }),
    },
    create({ planned }) {
      let t = now();
      const v = get(planned, 'rfc3339');
      if (v.isKnown && !v.isNull) {
        const r = timeOf(v);
        if ('diag' in r) return { state: null, diagnostics: [r.diag] };
        t = r.t;
      }
      return { state: withAttrs(planned, staticValues(t)) };
    },
    importState(id): StateResult {
      const r = parseRFC3339(id);
      if ('error' in r) return { state: null, diagnostics: [plainError('Import time static error', `The id that was supplied could not be parsed as RFC3339.\n\n+Original Error: ${r.error}`)] };
      return { state: { ...staticValues(r.t), triggers: emptyMap() } };
    },
  };
}

// ---- the provider --------------------------------------------------------------------------------------------------

/** The `time` provider. `now` (default: the system clock, second precision) is for tests. */
export function timeProvider(opts: { now?: () => Date } = {}): Provider {
  const clock = opts.now ?? (() => new Date());
  const now = (): GoTime => ({ ms: clock().getTime(), offset: 0 });
  return defineProvider({
    name: 'time',
    resources: { time_offset: timeOffset(now), time_rotating: timeRotating(now), time_sleep: timeSleep(now), time_static: timeStatic(now) },
  });
}
