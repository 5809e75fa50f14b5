// Terraform's version constraint syntax for `required_version` (and the syntax check of provider `version`
// strings), with the semantics of hashicorp/go-version that Terraform uses for them:
//   - a constraint string is a comma-separated list; every element must hold (intersection);
//   - each element is `[op] version` with op one of =, !=, >, >=, <, <=, ~> (none means =), spaces allowed
//     around it; versions are `v?N(.N)*` with an optional `-prerelease` and `+metadata`, missing segments 0;
//   - prerelease rule: a prerelease version only satisfies a comparison whose own version is a prerelease of
//     the same major.minor.patch; `~>` additionally requires matching the constraint's leading segments.
// Contract: parseCoreConstraints returns undefined for text go-version rejects (callers report Terraform's
// "Invalid version constraint"); checkCore never throws. Provider constraints (Ruby style, used for
// selection and printed in `providers` / the lock file) live in provider.ts.

export interface GoVersion {
  segments: number[];
  /** Number of segments written (go-version's `si`). */
  written: number;
  pre: string;
  metadata: string;
}

export type CoreOp = '=' | '!=' | '>' | '<' | '>=' | '<=' | '~>';

export interface CoreConstraint {
  op: CoreOp;
  version: GoVersion;
  /** The element as written (go-version's `original`), for messages. */
  text: string;
}

const VERSION_RE_RAW =
  'v?([0-9]+(?:\\.[0-9]+)*?)' +
  '(-([0-9]+[0-9A-Za-z\\-~]*(?:\\.[0-9A-Za-z\\-~]+)*)|(-?([A-Za-z\\-~]+[0-9A-Za-z\\-~]*(?:\\.[0-9A-Za-z\\-~]+)*)))?' +
  '(\\+([0-9A-Za-z\\-~]+(?:\\.[0-9A-Za-z\\-~]+)*))?';
const VERSION_RE = new RegExp('^' + VERSION_RE_RAW + '$');
const CONSTRAINT_RE = new RegExp('^\\s*(<=|>=|!=|~>|<|>|=|)\\s*(' + VERSION_RE_RAW + ')\\s*$');

/** go-version's NewVersion; undefined when malformed. */
export function parseGoVersion(s: string): GoVersion | undefined {
  const m = VERSION_RE.exec(s);
  if (!m) return undefined;
  const parts = m[1].split('.');
  const segments = parts.map((p) => Number(p));
  if (segments.some((n) => !Number.isSafeInteger(n))) return undefined;
  while (segments.length < 3) segments.push(0);
  return { segments, written: parts.length, pre: m[5] ?? m[3] ?? '', metadata: m[7] ?? '' };
}

export function goVersionString(v: GoVersion): string {
  return v.segments.join('.') + (v.pre ? '-' + v.pre : '') + (v.metadata ? '+' + v.metadata : '');
}

/** go-version's NewConstraint. */
export function parseCoreConstraints(s: string): CoreConstraint[] | undefined {
  const out: CoreConstraint[] = [];
  for (const single of s.split(',')) {
    const m = CONSTRAINT_RE.exec(single);
    if (!m) return undefined;
    const version = parseGoVersion(m[2]);
    if (!version) return undefined;
    out.push({ op: (m[1] || '=') as CoreOp, version, text: single });
  }
  return out;
}

function equalSegments(a: GoVersion, b: GoVersion): boolean {
  return a.segments.length === b.segments.length && a.segments.every((x, i) => x === b.segments[i]);
}

function comparePart(a: string, b: string): number {
  if (a === b) return 0;
  const an = /^[+-]?\d+$/.test(a);
  const bn = /^[+-]?\d+$/.test(b);
  if (a === '') return bn ? -1 : 1;
  if (b === '') return an ? 1 : -1;
  if (an && !bn) return -1;
  if (!an && bn) return 1;
  if (!an && !bn) return a > b ? 1 : -1;
  return Number(a) > Number(b) ? 1 : -1;
}

function comparePrereleases(a: string, b: string): number {
  if (a === b) return 0;
  const as = a.split('.');
  const bs = b.split('.');
  for (let i = 0; i < Math.max(as.length, bs.length); i++) {
    const c = comparePart(as[i] ?? '', bs[i] ?? '');
    if (c !== 0) return c;
  }
  return 0;
}

/** go-version's Compare: -1, 0 or 1. */
export function compareGoVersions(a: GoVersion, b: GoVersion): number {
  if (goVersionString(a) === goVersionString(b)) return 0;
  if (equalSegments(a, b)) {
    if (!a.pre && !b.pre) return 0;
    if (!a.pre) return 1;
    if (!b.pre) return -1;
    return comparePrereleases(a.pre, b.pre);
  }
  const n = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    if (i >= a.segments.length) return b.segments.slice(i).every((x) => x === 0) ? 0 : -1;
    if (i >= b.segments.length) return a.segments.slice(i).every((x) => x === 0) ? 0 : 1;
    if (a.segments[i] !== b.segments[i]) return a.segments[i] < b.segments[i] ? -1 : 1;
  }
  return 0;
}

function prereleaseCheck(v: GoVersion, c: GoVersion): boolean {
  if (c.pre && v.pre) return equalSegments(v, c);
  if (!c.pre && v.pre) return false;
  return true;
}

function checkOne(v: GoVersion, c: CoreConstraint): boolean {
  const k = c.version;
  switch (c.op) {
    case '=':
      return compareGoVersions(v, k) === 0;
    case '!=':
      return compareGoVersions(v, k) !== 0;
    case '>':
      return prereleaseCheck(v, k) && compareGoVersions(v, k) === 1;
    case '<':
      return prereleaseCheck(v, k) && compareGoVersions(v, k) === -1;
    case '>=':
      return prereleaseCheck(v, k) && compareGoVersions(v, k) >= 0;
    case '<=':
      return prereleaseCheck(v, k) && compareGoVersions(v, k) <= 0;
    case '~>': {
      if (!prereleaseCheck(v, k) || (k.pre && !v.pre)) return false;
      if (compareGoVersions(v, k) < 0) return false;
      const cs = k.segments.length;
      if (cs > v.segments.length) return false;
      for (let i = 0; i < k.written - 1; i++) if (v.segments[i] !== k.segments[i]) return false;
      return k.segments[cs - 1] <= v.segments[cs - 1];
    }
  }
}

/** Whether version `v` satisfies every constraint (go-version Constraints.Check). */
export function checkCore(v: GoVersion, cs: readonly CoreConstraint[]): boolean {
  return cs.every((c) => checkOne(v, c));
}
