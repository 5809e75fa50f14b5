// The module manifest `.terraform/modules/modules.json` (under TF_DATA_DIR when set) (Terraform's modsdir snapshot) and the local-module
// "installation" that `init` / `get` perform. Terraform writes compact JSON {"Modules":[{Key, Source,
// [Version], Dir}, ...]} with records sorted by key, the root module first as {"Key":"","Source":"","Dir":"."}.
// Local sources are not copied: a record's Dir is the module's directory relative to the working directory
// (path.Join of the parent's Dir and the source). Installation walks calls depth-first in name order, as
// Terraform's config builder does, and reports each module it (re)records as "- KEY in DIR"; records whose
// source is unchanged are kept silently unless upgrading. Only local sources ("./", "../") are supported:
// Foresight never downloads, so other sources get an error diagnostic at the call's source.
// Contract: nothing throws for bad input; file system writes happen only in writeModuleManifest.

import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { Diagnostic } from '../diags/diagnostic';
import { error } from '../diags/diagnostic';
import type { Module } from '../config/model';

export interface ModuleRecord {
  Key: string;
  Source: string;
  Version?: string;
  Dir: string;
}

/** The data directory: TF_DATA_DIR, else ".terraform" (relative to the working directory). */
export function dataDir(env?: Readonly<Record<string, string | undefined>>): string {
  return env?.TF_DATA_DIR || '.terraform';
}

/** The manifest's path relative to the working directory. */
export function manifestPath(env?: Readonly<Record<string, string | undefined>>): string {
  return join(dataDir(env), 'modules', 'modules.json');
}

/** Reads the manifest of `workDir` (TF_DATA_DIR from `env`); undefined when absent or unreadable. */
export function readModuleManifest(workDir: string, env?: Readonly<Record<string, string | undefined>>): Map<string, ModuleRecord> | undefined {
  try {
    const doc = JSON.parse(readFileSync(join(workDir, manifestPath(env)), 'utf8')) as { Modules?: ModuleRecord[] };
    const m = new Map<string, ModuleRecord>();
    for (const r of doc.Modules ?? []) if (r && typeof r.Key === 'string') m.set(r.Key, r);
    return m;
  } catch {
    return undefined;
  }
}

/** The manifest text Terraform writes (no trailing newline). */
export function formatModuleManifest(records: Iterable<ModuleRecord>): string {
  const list = [...records].sort((a, b) => (a.Key < b.Key ? -1 : a.Key > b.Key ? 1 : 0));
  const out = list.map((r) => {
    const o: Record<string, string> = { Key: r.Key, Source: r.Source };
    if (r.Version) o.Version = r.Version;
    o.Dir = r.Dir;
    return o;
  });
  return JSON.stringify({ Modules: out }).replace(/[<>&]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

export function writeModuleManifest(workDir: string, records: Iterable<ModuleRecord>, env?: Readonly<Record<string, string | undefined>>): void {
  mkdirSync(join(workDir, dataDir(env), 'modules'), { recursive: true });
  writeFileSync(join(workDir, manifestPath(env)), formatModuleManifest(records));
}

export function isLocalSource(s: string): boolean {
  return s.startsWith('./') || s.startsWith('../');
}

/** A local source address as Terraform normalises it (path cleaned, "./" kept). */
export function normaliseLocalSource(s: string): string {
  let c = posix.normalize(s);
  if (c.endsWith('/') && c.length > 1) c = c.slice(0, -1);
  if (!c.startsWith('../') && c !== '..' && !c.startsWith('./')) c = './' + c;
  return c;
}

/** Registry shorthand ("ns/name/provider[//sub]") as Terraform records it, with the default registry host. */
export function normaliseRemoteSource(s: string): string {
  const [pkg, sub] = s.split('//', 2);
  if (/^[0-9A-Za-z][0-9A-Za-z_-]*\/[0-9A-Za-z][0-9A-Za-z_-]*\/[0-9a-z]+$/.test(pkg)) return `registry.terraform.io/${pkg}${sub !== undefined ? '//' + sub : ''}`;
  return s;
}

export interface InstallResult {
  records: Map<string, ModuleRecord>;
  /** "KEY in DIR" for each module recorded afresh, in installation order. */
  installed: string[];
  diagnostics: Diagnostic[];
}

/**
 * Records the local modules called from `root` (loaded by config/load.ts from `workDir`), as Terraform's
 * module installer does: records of modules no longer called are kept; a call is (re)recorded when
 * upgrading, when it has no record, when its source changed (its descendants' records are dropped first) or
 * when its recorded directory no longer exists; otherwise its record is kept silently.
 */
export function installLocalModules(workDir: string, root: Module, previous: ReadonlyMap<string, ModuleRecord> | undefined, upgrade: boolean): InstallResult {
  const records = new Map<string, ModuleRecord>(previous ?? []);
  records.set('', { Key: '', Source: '', Dir: '.' });
  const res: InstallResult = { records, installed: [], diagnostics: [] };
  const isDir = (rel: string) => {
    if (rel === '') return false;
    try {
      return statSync(join(workDir, rel)).isDirectory();
    } catch {
      return false;
    }
  };
  const walk = (mod: Module, keyPrefix: string) => {
    const calls = [...mod.moduleCalls.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const call of calls) {
      if (call.source === undefined) continue;
      const key = keyPrefix ? `${keyPrefix}.${call.name}` : call.name;
      if (!isLocalSource(call.source)) {
        // A module Terraform downloaded earlier stays usable while its record and directory are intact.
        const rec = records.get(key);
        if (!upgrade && rec && rec.Source === normaliseRemoteSource(call.source) && isDir(rec.Dir)) continue;
        res.diagnostics.push(
          error(
            'Unsupported module source',
            `Foresight installs only local modules (sources starting with "./" or "../"); it does not download modules, so module "${call.name}" with source ${JSON.stringify(call.source)} cannot be installed.`,
            call.sourceRange,
          ),
        );
        continue;
      }
      if (call.version) {
        // With a version argument Terraform reads the source as a registry address, which a path is not.
        res.diagnostics.push(
          error(
            'Invalid registry module source address',
            `Failed to parse module registry address: can't use local directory ${JSON.stringify(call.source)} as a module registry address.\n\nTerraform assumed that you intended a module registry source address because you also set the argument "version", which applies only to registry modules.`,
            call.sourceRange,
          ),
        );
        continue;
      }
      const source = normaliseLocalSource(call.source);
      const prev = records.get(key);
      if (upgrade || !prev || prev.Source !== source) {
        records.delete(key);
        for (const k of [...records.keys()]) if (k.startsWith(key + '.')) records.delete(k);
      }
      const kept = records.get(key);
      if (kept && isDir(kept.Dir)) {
        if (call.module) walk(call.module, key);
        continue;
      }
      const parentDir = records.get(keyPrefix)?.Dir ?? '.';
      const newDir = posix.join(parentDir, source);
      if (!isDir(newDir)) {
        records.set(key, { Key: key, Source: source, Dir: '' });
        res.installed.push(`${key} in`);
        res.diagnostics.push(error('Unreadable module directory', `Unable to evaluate directory symlink: lstat ${firstMissing(workDir, newDir)}: no such file or directory`));
        res.diagnostics.push(
          error('Unreadable module directory', `The directory  could not be read for module "${call.name}" at ${call.declRange.filename}:${call.declRange.start.line}.`),
        );
        continue;
      }
      records.set(key, { Key: key, Source: source, Dir: newDir });
      res.installed.push(`${key} in ${newDir}`);
      if (call.module) walk(call.module, key);
    }
  };
  walk(root, '');
  return res;
}

/** The first component of `rel` (relative to `workDir`) that does not exist, as lstat reports it. */
function firstMissing(workDir: string, rel: string): string {
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const p = parts.slice(0, i).join('/');
    try {
      statSync(join(workDir, p));
    } catch {
      return p;
    }
  }
  return rel;
}

/**
 * The checks Terraform's configuration loader makes against the manifest when it loads child modules
 * (every command but init/get): a call without a record is "Module not installed" (subject: the module
 * block header; its children are not checked), a call whose source differs from the recorded one is
 * "Module source has changed" (subject: the source value). Calls are visited depth-first in name order.
 */
export function checkModulesInstalled(root: Module, manifest: ReadonlyMap<string, ModuleRecord> | undefined): Diagnostic[] {
  const diags: Diagnostic[] = [];
  const walk = (mod: Module, keyPrefix: string) => {
    const calls = [...mod.moduleCalls.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const call of calls) {
      if (call.source === undefined) continue;
      const key = keyPrefix ? `${keyPrefix}.${call.name}` : call.name;
      const rec = manifest?.get(key);
      if (!rec) {
        diags.push(
          error(
            'Module not installed',
            'This module is not yet installed. Run "terraform init" to install all modules required by this configuration.',
            call.declRange,
          ),
        );
        continue;
      }
      const source = isLocalSource(call.source) ? normaliseLocalSource(call.source) : normaliseRemoteSource(call.source);
      if (source !== rec.Source)
        diags.push(
          error(
            'Module source has changed',
            'The source address was changed since this module was installed. Run "terraform init" to install all modules required by this configuration.',
            call.sourceRange,
          ),
        );
      if (call.module) walk(call.module, key);
    }
  };
  walk(root, '');
  return diags;
}
