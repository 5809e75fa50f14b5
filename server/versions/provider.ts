// Provider version constraints as Terraform's getproviders package treats them (apparentlymart/go-versions,
// "Ruby style"): parsing `required_providers` version strings (comma-separated; ops =, !=, >, >=, <, <=, ~>;
// missing segments count as zero, except that `~> X.Y` allows any later minor and `~> X.Y.Z` any later
// patch), selecting versions (prereleases only when named exactly by an `=` constraint), and the canonical
// string Terraform prints in `terraform providers` and writes as `constraints` in .terraform.lock.hcl
// (duplicates removed, sorted by boundary then operator, `~> X.Y` kept at two segments).
// Contract: parse returns an error string for text go-versions rejects; nothing here throws.

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  pre: string;
  metadata: string;
}

export type ProviderOp = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~>minor' | '~>patch';

export interface ProviderConstraint {
  op: ProviderOp;
  /** Boundary with unwritten segments as zero. */
  boundary: SemVer;
}

const SEMVER_RE = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** A version as go-versions ParseVersion accepts it (exactly three numeric segments). */
export function parseSemVer(s: string): SemVer | undefined {
  const m = SEMVER_RE.exec(s);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre: m[4] ?? '', metadata: m[5] ?? '' };
}

export function semVerString(v: SemVer): string {
  return `${v.major}.${v.minor}.${v.patch}` + (v.pre ? '-' + v.pre : '') + (v.metadata ? '+' + v.metadata : '');
}

function comparePre(a: string, b: string): number {
  if (a === b) return 0;
  if (!a) return 1;
  if (!b) return -1;
  const as = a.split('.');
  const bs = b.split('.');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const x = as[i];
    const y = bs[i];
    if (x === y) continue;
    const xn = /^[0-9]+$/.test(x);
    const yn = /^[0-9]+$/.test(y);
    if (xn && yn) return Number(x) < Number(y) ? -1 : 1;
    if (xn) return -1;
    if (yn) return 1;
    return x < y ? -1 : 1;
  }
  return as.length === bs.length ? 0 : as.length < bs.length ? -1 : 1;
}

/** Semantic-version precedence (metadata ignored). */
export function compareSemVer(a: SemVer, b: SemVer): number {
  if (a.major !== b.major) return a.major < b.major ? -1 : 1;
  if (a.minor !== b.minor) return a.minor < b.minor ? -1 : 1;
  if (a.patch !== b.patch) return a.patch < b.patch ? -1 : 1;
  return comparePre(a.pre, b.pre);
}

/** ParseRubyStyleMulti: the constraints, or an error message. An empty string means no constraint. */
export function parseProviderConstraints(str: string): ProviderConstraint[] | { error: string } {
  const out: ProviderConstraint[] = [];
  let remain = str.trim();
  while (remain !== '') {
    const m = /^([<>=!~^]*)(\s*v?\s*)([0-9]+|[*xX])?(?:\.([0-9]+|[*xX]))?(?:\.([0-9]+|[*xX]))?((?:\.(?:[0-9]+|[*xX]))*)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?/.exec(remain)!;
    const consumed = m[0];
    const [, op, sep, a, b, c, extra, pre, meta] = m;
    const fail = (e: string) => ({ error: `invalid specification ${JSON.stringify(consumed)}: ${e}` });
    let pop: ProviderOp;
    const numCt = [a, b, c].filter((x) => x !== undefined).length + (extra ? extra.split('.').length - 1 : 0);
    switch (op) {
      case '':
      case '=':
        pop = '=';
        break;
      case '!=':
        pop = '!=';
        break;
      case '>':
      case '>=':
      case '<':
      case '<=':
        pop = op;
        break;
      case '~>':
        pop = numCt === 3 ? '~>patch' : '~>minor';
        break;
      case '=<':
        return fail(`invalid constraint operator "=<"; did you mean "<="?`);
      case '=>':
        return fail(`invalid constraint operator "=>"; did you mean ">="?`);
      default:
        return fail(`invalid constraint operator ${JSON.stringify(op)}`);
    }
    if (sep !== '' && sep !== ' ') {
      if (sep.includes('v')) return fail('a "v" prefix should not be used when specifying versions');
      if (op === '') return fail('extraneous spaces at start of specification');
      return fail(`only one space is expected after the operator ${JSON.stringify(op)}`);
    }
    if (sep === ' ' && op === '') return fail('extraneous spaces at start of specification');
    if (a === undefined) return fail('version number is required');
    if (numCt > 3) return fail('too many numbered portions; only three are allowed (major, minor, patch)');
    const names = ['major', 'minor', 'patch'];
    const nums = [a, b, c];
    for (let i = 0; i < 3; i++)
      if (nums[i] !== undefined && /^[*xX]$/.test(nums[i]!))
        return fail(`can't use wildcard for ${names[i]} number; omit segments that should be unconstrained`);
    out.push({
      op: pop,
      boundary: { major: Number(a), minor: Number(b ?? 0), patch: Number(c ?? 0), pre: pre ?? '', metadata: meta ?? '' },
    });
    remain = remain.slice(consumed.length).trim();
    if (remain !== '') {
      if (remain.startsWith('v')) return { error: 'a "v" prefix should not be used when specifying versions' };
      if (!remain.startsWith(',')) return { error: `missing comma after ${JSON.stringify(consumed)}` };
      remain = remain.slice(1).trim();
    }
  }
  return out;
}

function meetsOne(v: SemVer, c: ProviderConstraint): boolean {
  const b = c.boundary;
  const cmp = compareSemVer(v, b);
  switch (c.op) {
    case '=':
      return cmp === 0 && (!b.metadata || v.metadata === b.metadata);
    case '!=':
      return !(cmp === 0 && (!b.metadata || v.metadata === b.metadata));
    case '>':
      return cmp > 0;
    case '>=':
      return cmp >= 0;
    case '<':
      return cmp < 0;
    case '<=':
      return cmp <= 0;
    case '~>minor':
      return cmp >= 0 && compareSemVer(v, { major: b.major + 1, minor: 0, patch: 0, pre: '', metadata: '' }) < 0;
    case '~>patch':
      return cmp >= 0 && compareSemVer(v, { major: b.major, minor: b.minor + 1, patch: 0, pre: '', metadata: '' }) < 0;
  }
}

/**
 * versions.MeetingConstraints(...).Has(v): v meets every constraint, and when v is a prerelease some `=`
 * constraint names it exactly.
 */
export function meetsProviderConstraints(v: SemVer, cs: readonly ProviderConstraint[]): boolean {
  if (!cs.every((c) => meetsOne(v, c))) return false;
  if (!v.pre) return true;
  return cs.some((c) => c.op === '=' && compareSemVer(v, c.boundary) === 0);
}

/** The newest of `available` meeting the constraints (getproviders' selection), or undefined. */
export function newestMeeting(available: readonly string[], cs: readonly ProviderConstraint[]): string | undefined {
  let best: SemVer | undefined;
  let bestText: string | undefined;
  for (const s of available) {
    const v = parseSemVer(s);
    if (!v || !meetsProviderConstraints(v, cs)) continue;
    if (!best || compareSemVer(v, best) > 0) {
      best = v;
      bestText = s;
    }
  }
  return bestText;
}

const OP_PRIORITY: Record<ProviderOp, number> = { '>': 1, '>=': 2, '=': 3, '~>patch': 4, '~>minor': 5, '<=': 6, '<': 7, '!=': 8 };
const OP_TEXT: Record<ProviderOp, string> = { '>': '> ', '<': '< ', '>=': '>= ', '~>patch': '~> ', '~>minor': '~> ', '<=': '<= ', '=': '', '!=': '!= ' };

/** getproviders.VersionConstraintsString: canonical, de-duplicated, sorted. "" for no constraints. */
export function providerConstraintsString(cs: readonly ProviderConstraint[]): string {
  const seen = new Map<string, ProviderConstraint>();
  for (const c of cs) seen.set(`${c.op} ${semVerString(c.boundary)}`, c);
  const list = [...seen.values()].sort((x, y) => {
    const bc = compareSemVer(x.boundary, y.boundary);
    if (bc !== 0) return bc;
    if (x.boundary.metadata !== y.boundary.metadata) return x.boundary.metadata < y.boundary.metadata ? -1 : 1;
    return OP_PRIORITY[x.op] - OP_PRIORITY[y.op];
  });
  return list
    .map((c) => {
      const b = c.boundary;
      const num = c.op === '~>minor' ? `${b.major}.${b.minor}` : `${b.major}.${b.minor}.${b.patch}`;
      return OP_TEXT[c.op] + num + (b.pre ? '-' + b.pre : '') + (b.metadata ? '+' + b.metadata : '');
    })
    .join(', ');
}
