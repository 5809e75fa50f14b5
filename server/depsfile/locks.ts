// The dependency lock file `.terraform.lock.hcl`, read and written as Terraform 1.11's depsfile package
// does: a header comment, then one `provider "<fully-qualified address>"` block per provider, sorted by
// address, with `version`, `constraints` (canonical form, omitted when there are none) and `hashes`
// (omitted when empty), `=` aligned as hclwrite formats them; file mode 0644, written atomically.
// Reading reports Terraform's diagnostics for bad blocks (invalid or non-normalised addresses, built-in
// providers, bad version numbers/constraints, duplicates); `module` blocks only warn.
//
// What Foresight records for its built-in hashicorp/random and hashicorp/null: there is no provider package
// and so nothing to hash, so Foresight writes the selected version and constraints and NO `hashes`
// argument (never an invented checksum). Real Terraform accepts such an entry: it keeps the version and
// records the hashes of the package it downloads the next time it runs `terraform init`, so a lock file
// written by Foresight stays usable with Terraform. Hashes already present are kept as they are.
// The built-in terraform provider is never locked (Terraform refuses lock entries for built-ins).

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Diagnostic } from '../diags/diagnostic';
import { error, warning } from '../diags/diagnostic';
import type { Expression } from '../config/hclbody';
import { readHclBody } from '../config/parsebody';
import type { ProviderAddr } from '../addrs/provider';
import { UNKNOWN_NAMESPACE, compareProviders, isAddrError, isBuiltIn, parseProviderSource, providerString } from '../addrs/provider';
import type { ProviderConstraint } from '../versions/provider';
import { parseProviderConstraints, parseSemVer, providerConstraintsString, semVerString } from '../versions/provider';
import { TERRAFORM_VERSION } from '../cli/version';

export const LOCK_FILE = '.terraform.lock.hcl';

export interface ProviderLock {
  addr: ProviderAddr;
  version: string;
  constraints: ProviderConstraint[];
  hashes: string[];
}

export interface LockReadResult {
  /** By fully qualified address. Empty when the file does not exist. */
  providers: Map<string, ProviderLock>;
  diagnostics: Diagnostic[];
  /** Source text of the file when it existed (for diagnostic snippets), keyed by its display name. */
  sources: Map<string, string>;
  exists: boolean;
}

function staticString(e: Expression | undefined): string | undefined {
  if (e && e.shape === 'string' && typeof e.literal === 'string') return e.literal;
  return undefined;
}

/** Parses lock file text; `filename` is the name used in diagnostics. */
export async function parseLockFile(text: string, filename = LOCK_FILE): Promise<LockReadResult> {
  const res: LockReadResult = { providers: new Map(), diagnostics: [], sources: new Map([[filename, text]]), exists: true };
  const file = await readHclBody(text, filename);
  res.diagnostics.push(...file.syntax, ...file.conversion);
  const body = file.body;
  if (!body) return res;
  if (res.diagnostics.some((d) => d.severity === 'error')) return res;
  const d = res.diagnostics;
  for (const a of body.attributes) d.push(error('Unsupported argument', `An argument named "${a.name}" is not expected here.`, a.nameRange));
  const seen = new Map<string, string>();
  let seenModule = false;
  for (const b of body.blocks) {
    if (b.type === 'module') {
      if (!seenModule)
        d.push(
          warning(
            'Dependency locks for modules are not yet supported',
            `Terraform v${TERRAFORM_VERSION} only supports dependency locks for providers, not for modules. This configuration may be intended for a later version of Terraform that also supports dependency locks for modules.`,
            b.typeRange,
          ),
        );
      seenModule = true;
      continue;
    }
    if (b.type !== 'provider') {
      d.push(error('Unsupported block type', `Blocks of type "${b.type}" are not expected here.`, b.typeRange));
      continue;
    }
    if (b.labels.length !== 1) {
      d.push(error(`Missing source_addr for provider`, 'All provider blocks must have 1 labels (source_addr).', b.openBraceRange));
      continue;
    }
    const raw = b.labels[0];
    const parsedRaw = parseProviderSource(raw);
    // A bare type gets the default namespace (addrs.ParseProviderSourceString); only unparsable labels are
    // invalid here, short forms are reported as non-normalised below.
    const parsed = isAddrError(parsedRaw) || parsedRaw.namespace !== UNKNOWN_NAMESPACE ? parsedRaw : { ...parsedRaw, namespace: 'hashicorp' };
    if (isAddrError(parsed)) {
      d.push(
        error(
          'Invalid provider source address',
          'The provider source address for a provider lock must be a valid, fully-qualified address of the form "hostname/namespace/type".',
          b.labelRanges[0],
        ),
      );
      continue;
    }
    if (isBuiltIn(parsed)) {
      d.push(
        error(
          'Invalid provider source address',
          `Cannot lock a version for built-in provider ${providerString(parsed)}. Built-in providers are bundled inside Terraform itself, so you can't select a version for them independently of the Terraform release you are currently running.`,
          b.labelRanges[0],
        ),
      );
      continue;
    }
    const canon = providerString(parsed);
    if (canon !== raw) {
      d.push(
        error(
          'Non-normalized provider source address',
          `The provider source address for this provider lock must be written as ${JSON.stringify(canon)}, the fully-qualified and normalized form.`,
          b.labelRanges[0],
        ),
      );
      continue;
    }
    if (seen.has(canon)) {
      d.push(error('Duplicate provider lock', `This lockfile already declared a lock for provider ${canon} at ${seen.get(canon)}.`, b.typeRange));
      continue;
    }
    const lock: ProviderLock = { addr: parsed, version: '', constraints: [], hashes: [] };
    for (const a of b.body.attributes) {
      if (a.name === 'version') {
        const s = staticString(a.expr);
        const v = s === undefined ? undefined : parseSemVer(s);
        if (s === undefined) d.push(error('Incorrect attribute value type', 'Inappropriate value for attribute "version": string required.', a.expr.range));
        else if (!v) d.push(error('Invalid provider version number', `The selected version number for provider ${canon} is invalid: ${JSON.stringify(s)} is not a valid version.`, a.expr.range));
        else if (semVerString(v) !== s)
          d.push(error('Invalid provider version number', `The selected version number for provider ${canon} must be written in normalized form: ${JSON.stringify(semVerString(v))}.`, a.expr.range));
        else lock.version = s;
      } else if (a.name === 'constraints') {
        const s = staticString(a.expr);
        if (s === undefined) {
          d.push(error('Incorrect attribute value type', 'Inappropriate value for attribute "constraints": string required.', a.expr.range));
          continue;
        }
        const cs = parseProviderConstraints(s);
        if ('error' in cs) {
          d.push(error('Invalid provider version constraints', `The recorded version constraints for provider ${canon} are invalid: ${cs.error}.`, a.expr.range));
          continue;
        }
        const c = providerConstraintsString(cs);
        if (c !== s)
          d.push(error('Invalid provider version constraints', `The recorded version constraints for provider ${canon} must be written in normalized form: ${JSON.stringify(c)}.`, a.expr.range));
        lock.constraints = cs;
      } else if (a.name === 'hashes') {
        if (a.expr.shape !== 'tuple') {
          d.push(error('Invalid expression', 'A static list expression is required.', a.expr.range));
          continue;
        }
        const elems = a.expr.elems ?? [];
        if (elems.length === 0)
          d.push(error('Invalid provider hash set', 'The "hashes" argument must either be omitted or contain at least one hash value.', a.expr.range));
        for (const e of elems) {
          const h = staticString(e);
          if (h === undefined) d.push(error('Incorrect attribute value type', 'Inappropriate value for attribute "hashes": string required.', e.range));
          else if (!/^[a-z0-9]+:./.test(h))
            d.push(error('Invalid provider hash string', `Cannot interpret ${JSON.stringify(h)} as a provider hash: hash string must start with a scheme keyword followed by a colon.`, a.expr.range));
          else lock.hashes.push(h);
        }
      } else d.push(error('Unsupported argument', `An argument named "${a.name}" is not expected here.`, a.nameRange));
    }
    if (!b.body.attributes.some((a) => a.name === 'version'))
      d.push(error('Missing required argument', 'The argument "version" is required, but no definition was found.', b.body.endRange));
    for (const nb of b.body.blocks) d.push(error('Unsupported block type', `Blocks of type "${nb.type}" are not expected here.`, nb.typeRange));
    seen.set(canon, `${filename}:${b.defRange.start.line},${b.defRange.start.column}-${b.defRange.end.column}`);
    res.providers.set(canon, lock);
  }
  return res;
}

/** Reads `<dir>/.terraform.lock.hcl`; a missing file is an empty set of locks without diagnostics. */
export async function readLockFile(dir: string): Promise<LockReadResult> {
  let text: string;
  try {
    text = readFileSync(join(dir, LOCK_FILE), 'utf8');
  } catch {
    return { providers: new Map(), diagnostics: [], sources: new Map(), exists: false };
  }
  return parseLockFile(text);
}

/**
 * The error Terraform reports for a lock file with errors (Meta.ProviderFactories: its diagnostics flattened into
 * one sourceless error, as tfdiags' Err() text), or undefined when the file reads cleanly or does not exist. Every
 * command that builds provider factories fails with it: those that open the backend, validate, console, graph.
 */
export function lockFileError(diagnostics: readonly Diagnostic[]): Diagnostic | undefined {
  const errs = diagnostics.filter((d) => d.severity === 'error');
  if (errs.length === 0) return undefined;
  const one = (d: Diagnostic) => (d.detail ? `${d.summary}: ${d.detail}` : d.summary);
  const text = diagnostics.length === 1 ? one(diagnostics[0]) : `${diagnostics.length} problems:\n` + diagnostics.map((d) => `\n- ${one(d)}`).join('');
  return error(`failed to read dependency lock file: ${text}`);
}

/** lockFileError for the lock file of a working directory. */
export async function readLockFileError(dir: string): Promise<Diagnostic | undefined> {
  return lockFileError((await readLockFile(dir)).diagnostics);
}

/** The file text Terraform writes for these locks (SaveLocksToBytes). */
export function formatLockFile(locks: Iterable<ProviderLock>): string {
  const list = [...locks].sort((a, b) => compareProviders(a.addr, b.addr));
  let out = '# This file is maintained automatically by "terraform init".\n# Manual edits may be lost in future updates.\n';
  for (const l of list) {
    out += `\nprovider ${JSON.stringify(providerString(l.addr))} {\n`;
    const cons = providerConstraintsString(l.constraints);
    const single: [string, string][] = [['version', JSON.stringify(l.version)]];
    if (cons) single.push(['constraints', JSON.stringify(cons)]);
    const w = Math.max(...single.map(([k]) => k.length));
    for (const [k, v] of single) out += `  ${k.padEnd(w)} = ${v}\n`;
    if (l.hashes.length) {
      out += '  hashes = [\n';
      for (const h of l.hashes) out += `    ${JSON.stringify(h)},\n`;
      out += '  ]\n';
    }
    out += '}\n';
  }
  return out;
}

/** Whether two lock sets record the same selections (Locks.Equal: versions, constraints, hashes). */
export function locksEqual(a: ReadonlyMap<string, ProviderLock>, b: ReadonlyMap<string, ProviderLock>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, x] of a) {
    const y = b.get(k);
    if (!y || x.version !== y.version) return false;
    if (providerConstraintsString(x.constraints) !== providerConstraintsString(y.constraints)) return false;
    if (x.hashes.join('\n') !== [...y.hashes].join('\n')) return false;
  }
  return true;
}

/** Writes the lock file atomically (temporary file then rename), mode 0644. */
export function writeLockFile(dir: string, locks: Iterable<ProviderLock>): void {
  const target = join(dir, LOCK_FILE);
  const tmp = join(dirname(target), `.terraform.lock.hcl.${process.pid}.tmp`);
  writeFileSync(tmp, formatLockFile(locks), { mode: 0o644 });
  renameSync(tmp, target);
}
