// The preview's fast path after an edit (server/lsp/preview/worker.ts makePreview): when an edit changed only the
// bodies of some managed resources of the root module, the last plan is patched (engine PlanSession.replan: those
// resources and what depends on them planned again in the walk's kept context) instead of walking the whole graph.
//
// This file decides whether an edit is such an edit, by comparing the configuration files the session's plan was
// made from with the ones just loaded (config/load.ts FileCache entries; an unchanged file's entry is the same
// object). Everything must be the same except, in root module files, the arguments and nested blocks of managed
// resources: the same files, the same top-level blocks in the same order, a changed block a `resource` whose
// meta-arguments (count, for_each, depends_on, provider, lifecycle) read the same and whose references name the same
// nodes of the graph as its node's edges. Anything else (a new block, a renamed one, a changed local, variable,
// output, provider, module call, data source...) answers undefined, and the preview is a full plan.
//
// The caller checks the rest of what a plan reads: the state (the same loaded object), the workspace, lock file and
// module manifest (memo.ts's key), the variables' values, and that no resource calls an impure function.

import { dirname } from 'node:path';
import type { Body } from '../../config/hclbody';
import type { FileCache, FileEntry } from '../../config/load';
import type { Module, Resource } from '../../config/model';
import { resourceNodeKeys } from '../../engine/context';
import type { PlanSession } from '../../engine/planner';
import { findBuiltinProvider } from '../../providers/builtin';

/** A directory's last complete plan, kept for patching, and what it was made from. */
export interface PreviewSession {
  session: PlanSession;
  /** The configuration files (absolute paths) the plan's configuration came from, in order, and their entries. */
  paths: readonly string[];
  entries: Map<string, FileEntry>;
  /** memo.ts's key for the plan (state, workspace, lock file, module manifest, moved/import/removed blocks). */
  memoKey: string;
  /** The variables' raw values and their sources. */
  varsKey: string;
  /** The PlanResourceChange cache's size past which the next preview is a full plan (a full plan sweeps it). */
  cacheBound: number;
  /** Whose PlanResourceChange calls the plan's providers count (the preview being made). */
  counting: { current: { planCalls: number; cacheHits: number } };
  /** Closes the providers the plan configured (kept open for the re-plans). */
  close(): Promise<void>;
}

/** A body's arguments (name and expression text) and nested blocks, in order, positions left out. */
function bodyItems(b: Body, out: string[], only?: (name: string) => boolean): string[] {
  for (const a of b.attributes) if (!only || only(a.name)) out.push(a.name, a.expr.text);
  for (const bl of b.blocks) {
    if (only && !only(bl.type)) continue;
    out.push('{', bl.type, ...bl.labels);
    bodyItems(bl.body, out);
    out.push('}');
  }
  return out;
}

const META = new Set(['count', 'for_each', 'depends_on', 'provider', 'lifecycle']);
const isMeta = (name: string) => META.has(name);

function sameItems(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The managed resources of the root module an edit changed (node key → the new Resource), when nothing else of the
 * configuration changed (see the top of this file); an empty map when nothing changed; undefined when the edit needs a
 * full plan.
 */
export function editedResources(
  ps: PreviewSession,
  dir: string,
  root: Module,
  paths: readonly string[],
  cache: FileCache,
  /** Receives the changed files (absolute paths). */
  changedPaths: string[] = [],
): Map<string, Resource> | undefined {
  if (paths.length !== ps.paths.length) return undefined;
  const changedFiles: [FileEntry, FileEntry][] = [];
  for (let i = 0; i < paths.length; i++) {
    const p = paths[i];
    if (p !== ps.paths[i]) return undefined;
    const before = ps.entries.get(p);
    const now = cache.get(p);
    if (!before || !now) return undefined;
    if (before === now || before.text === now.text) continue;
    if (dirname(p) !== dir) return undefined;
    changedFiles.push([before, now]);
    changedPaths.push(p);
  }
  const changed = new Map<string, Resource>();
  if (!changedFiles.length) return changed;
  const wanted = new Set<string>();
  for (const [before, now] of changedFiles) {
    const a = before.body;
    const b = now.body;
    if (a.attributes.length || b.attributes.length || a.blocks.length !== b.blocks.length) return undefined;
    for (let i = 0; i < a.blocks.length; i++) {
      const x = a.blocks[i];
      const y = b.blocks[i];
      if (x.type !== y.type || !sameItems(x.labels, y.labels)) return undefined;
      if (sameItems(bodyItems(x.body, []), bodyItems(y.body, []))) continue;
      if (x.type !== 'resource' || y.labels.length !== 2 || !sameItems(bodyItems(x.body, [], isMeta), bodyItems(y.body, [], isMeta))) return undefined;
      wanted.add(`${y.labels[0]}.${y.labels[1]}`);
    }
  }
  if (!wanted.size) return changed;
  const g = ps.session.built.graph;
  const names = new Set(changedFiles.map(([, now]) => now.display));
  for (const r of root.resources) {
    if (!names.has(r.file) || r.mode !== 'managed' || !wanted.has(`${r.type}.${r.name}`)) continue;
    const key = resourceNodeKeys('', r).key;
    const old = g.get(key);
    if (!old || old.kind !== 'resource' || old.path !== '') return undefined;
    // The same edges: the references name the nodes the block's node depends on (besides its provider).
    const targets = ps.session.built.resourceTargets(old.mod, r, key);
    if (!targets) return undefined;
    const deps = g.dependencies(key);
    const named = new Set(targets);
    for (const d of deps) if (!named.has(d) && g.get(d)?.kind !== 'provider') return undefined;
    for (const t of named) if (!deps.has(t)) return undefined;
    changed.set(key, r);
  }
  return changed.size === wanted.size ? changed : undefined;
}

/**
 * The managed resources of the root module declared in file `display` (at most `limit`, node key → Resource), for
 * a patch of `ps` to plan again as they are when no file changed: primePreview's edit that changes nothing. Only
 * resources of built-in providers: idle-time work calls no provider process (a re-plan validates and upgrades again).
 */
export function primedResources(ps: PreviewSession, root: Module, display: string, limit: number): Map<string, Resource> {
  const out = new Map<string, Resource>();
  const g = ps.session.built.graph;
  for (const r of root.resources) {
    if (out.size >= limit) break;
    if (r.file !== display || r.mode !== 'managed') continue;
    const key = resourceNodeKeys('', r).key;
    const old = g.get(key);
    if (old?.kind === 'resource' && old.path === '' && findBuiltinProvider(old.fqn)) out.set(key, r);
  }
  return out;
}
