// What a plan looks like in the editor: code lenses, inlay hints, hovers and the protocol's
// ResourceChangeInfo list, computed from a Plan and the configuration it was made from. Runs in the preview
// worker (worker.ts); everything it returns is plain JSON with LSP positions in the texts the plan was made
// from, so the main thread only filters and converts to LSP objects.
//
// Contract: pure (reads the plan and the configuration, never mutates them); every value shown goes through
// `display`, so sensitive values read "(sensitive value)" and unknown ones "(known after apply)" everywhere.

import { isAbsolute, join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Module, Resource } from '../../config/model';
import type { Block, Body, Expression, Reference } from '../../config/hclbody';
import type { Range as EngineRange } from '../../diags/diagnostic';
import { consoleTypeString, formatValue } from '../../lang/format';
import { rawEquals, Value } from '../../lang/value';
import { actionReasonJSON, isReplace, planSummary, type Action, type Plan, type ResourceInstanceChange } from '../../plans/plan';
import { formatPath } from '../../providers/path';
import { renderResourceChange } from '../../command/format/plan';
import { instanceAddrString, instanceKeyString } from '../../states/state';
import { intern } from '../../lang/intern';
import { LineIndex } from '../convert';
import type { PlannedAction, PlanSummary, ResourceChangeInfo } from '../protocol';
import { changedPositions } from '../../engine/planner';

export interface LspRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

export interface LensInfo {
  range: LspRange;
  title: string;
  /** Resource (or module call) address the run commands target; absent for lenses without commands. */
  target?: string;
  /** An instance address for "Show diff". */
  instance?: string;
}

export interface HintInfo {
  position: { line: number; character: number };
  /** `prior → planned` text parts; `unknown` when the planned value is not known yet. */
  prior?: string;
  planned?: string;
  unknown: boolean;
  forces: boolean;
  /** Instance key when the block has several instances with different values. */
  key?: string;
}

export interface HoverInfo {
  range: LspRange;
  markdown: string;
  /**
   * A hover whose plan rendering is made on request (present's lazyHovers): the changes (changeAddress) that
   * `blockHover` renders from the same plan; `markdown` is then empty.
   */
  block?: string[];
}

export interface FilePresentation {
  lenses: LensInfo[];
  hints: HintInfo[];
  hovers: HoverInfo[];
}

/**
 * Line indexes by absolute path, kept across previews while a file's text is the same string: an edit's preview
 * indexes only the edited file again, not every file of the workspace. Bounded: cleared when full.
 */
const lineIndexes = new Map<string, LineIndex>();
const LINE_INDEXES_MAX = 20_000;

/**
 * Texts of the files a plan was made from, with their line indexes: `texts` first (the texts the configuration was
 * loaded from), then the overlays, then the disk.
 */
export class Sources {
  private readonly cache = new Map<string, LineIndex>();
  private readonly absCache = new Map<string, string>();
  constructor(
    private readonly dir: string,
    private readonly overlays: Map<string, string>,
    private readonly texts?: (abs: string) => string | undefined,
  ) {}
  abs(filename: string): string {
    let p = this.absCache.get(filename);
    if (p === undefined) this.absCache.set(filename, (p = isAbsolute(filename) ? filename : join(this.dir, filename)));
    return p;
  }
  index(filename: string): LineIndex {
    const p = this.abs(filename);
    let ix = this.cache.get(p);
    if (!ix) {
      let text = this.texts?.(p) ?? this.overlays.get(p);
      if (text === undefined) {
        try {
          text = readFileSync(p, 'utf8');
        } catch {
          text = '';
        }
      }
      ix = lineIndexes.get(p);
      if (!ix || ix.text !== text) {
        if (lineIndexes.size >= LINE_INDEXES_MAX) lineIndexes.clear();
        lineIndexes.set(p, (ix = new LineIndex(text)));
      }
      this.cache.set(p, ix);
    }
    return ix;
  }
  range(r: EngineRange): LspRange {
    return this.index(r.filename).toRange(r);
  }
}

export function plannedAction(a: Action): PlannedAction {
  switch (a) {
    case 'Create':
      return 'create';
    case 'Update':
      return 'update';
    case 'DeleteThenCreate':
    case 'CreateThenDelete':
    case 'CreateThenForget':
      return 'replace';
    case 'Delete':
      return 'delete';
    case 'Read':
      return 'read';
    case 'Forget':
      return 'forget';
    default:
      return 'no-op';
  }
}

/** The code lens wording of an action, as Terraform's plan legend words it. */
export function actionLabel(a: Action): string {
  switch (a) {
    case 'Create':
      return '+ create';
    case 'Update':
      return '~ update in-place';
    case 'DeleteThenCreate':
      return '-/+ replace';
    case 'CreateThenDelete':
      return '+/- create replacement and then destroy';
    case 'CreateThenForget':
      return '+/. create replacement and then forget';
    case 'Delete':
      return '- destroy';
    case 'Read':
      return '<= read';
    case 'Forget':
      return '. forget';
    default:
      return 'no changes';
  }
}

const ACTION_ORDER: Action[] = ['Create', 'Update', 'DeleteThenCreate', 'CreateThenDelete', 'CreateThenForget', 'Delete', 'Read', 'Forget', 'NoOp'];

/** `module.a[0].module.b["k"]` → `module.a.module.b`. */
export function staticModule(m: string): string {
  return m.replace(/\[(?:"(?:[^"\\]|\\.)*"|-?\d+)\]/g, '');
}

function changeAddress(c: ResourceInstanceChange): string {
  return instanceAddrString(c.addr) + (c.deposedKey ? ` (deposed object ${c.deposedKey})` : '');
}

function groupKey(module: string, mode: string, type: string, name: string): string {
  return `${module}|${mode}|${type}|${name}`;
}

/**
 * Group keys kept by change and by resource block (body, module path): a preview after an edit reuses most changes
 * and blocks, and makes their keys again otherwise (two strings per resource and preview).
 */
const changeGroups = new WeakMap<ResourceInstanceChange, string>();
const blockGroups = new WeakMap<Body, { path: string; key: string }>();

function changeGroupKey(c: ResourceInstanceChange): string {
  let k = changeGroups.get(c);
  if (k === undefined) changeGroups.set(c, (k = groupKey(staticModule(c.addr.module), c.addr.mode, c.addr.type, c.addr.name)));
  return k;
}

function resourceGroupKey(path: string, r: Resource): string {
  const hit = blockGroups.get(r.config);
  if (hit && hit.path === path) return hit.key;
  const key = groupKey(path, r.mode, r.type, r.name);
  blockGroups.set(r.config, { path, key });
  return key;
}

/** A value for the user: sensitive and unknown as Terraform words them, on one line, shortened. */
export function display(v: Value | undefined, max = 80): string {
  if (v === undefined) return 'null';
  if (v.marks.has('sensitive')) return '(sensitive value)';
  if (!v.isKnown) return '(known after apply)';
  // (Values are immutable, and an unchanged change's values are the same objects from preview to preview.)
  let shown = displays.get(max);
  if (!shown) displays.set(max, (shown = new WeakMap()));
  let s = shown.get(v);
  if (s !== undefined) return s;
  s = formatValue(v).replace(/\n\s*/g, ' ');
  if (s.length > max) s = s.slice(0, max - 1) + '…';
  shown.set(v, s);
  return s;
}

/** display's texts by length limit and value. */
const displays = new Map<number, WeakMap<Value, string>>();

function attr(v: Value, name: string): Value | undefined {
  if (!v.isKnown || v.isNull) return undefined;
  if (v.type.kind !== 'object' && v.type.kind !== 'map') return undefined;
  const x = v.entries.get(name);
  // (The attribute itself when the object carries no marks: the same object every time.)
  return x && v.marks.size ? x.markWith(new Set([...v.marks, ...x.marks])) : x;
}

function sameValue(a: Value | undefined, b: Value | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (!a.isWhollyKnown || !b.isWhollyKnown) return false;
  const [ua] = a.unmarkDeep();
  const [ub] = b.unmarkDeep();
  return rawEquals(ua, ub);
}

function changedAttributeCount(c: ResourceInstanceChange): number | undefined {
  const b = c.before;
  const a = c.after;
  if (!b.isKnown || b.isNull || !a.isKnown || a.isNull || b.type.kind !== 'object') return undefined;
  let n = 0;
  for (const k of a.entries.keys()) if (!sameValue(attr(b, k), attr(a, k))) n++;
  return n;
}

function reasonText(c: ResourceInstanceChange): string | undefined {
  switch (c.actionReason) {
    case 'ReplaceBecauseTainted':
      return 'the object is tainted, so it must be replaced';
    case 'ReplaceByRequest':
      return 'replacement was requested (-replace)';
    case 'ReplaceByTriggers':
      return 'a replace_triggered_by reference changed';
    case 'ReplaceBecauseCannotUpdate':
      return `an attribute that cannot be updated in-place changed${c.requiredReplace.length ? ': ' + c.requiredReplace.map((p) => formatPath(p).replace(/^\./, '')).join(', ') : ''}`;
    case 'DeleteBecauseNoResourceConfig':
      return 'its resource block is no longer in the configuration';
    case 'DeleteBecauseWrongRepetition':
      return 'the repetition mode of the resource changed';
    case 'DeleteBecauseCountIndex':
      return 'its index is out of range for count';
    case 'DeleteBecauseEachKey':
      return 'its key is not in for_each';
    case 'DeleteBecauseNoModule':
      return 'its module call is no longer in the configuration';
    case 'DeleteBecauseNoMoveTarget':
      return 'it was moved to an address that is not in the configuration';
    case 'ReadBecauseConfigUnknown':
      return 'its configuration refers to values not yet known';
    case 'ReadBecauseDependencyPending':
      return 'it depends on a resource with pending changes';
    case 'ReadBecauseCheckNested':
      return 'it is nested in a check block';
    default:
      return undefined;
  }
}

interface Located {
  file?: string;
  range?: LspRange;
}

/** An object a refresh found changed ("Update") or deleted ("Delete") outside of Terraform. */
export interface DriftInfo {
  address: string;
  action: 'Update' | 'Delete';
}

export function driftOf(plan: Plan): DriftInfo[] {
  return plan.driftedResources.filter((d) => !d.deposedKey).map((d) => ({ address: instanceAddrString(d.addr), action: d.action === 'Delete' ? 'Delete' : 'Update' }));
}

export interface Presentation {
  summary: PlanSummary;
  changes: ResourceChangeInfo[];
  files: Map<string, FilePresentation>;
  /** A patched presentation's entries that are not the earlier list's entry at their index (PresentOptions.patchOf). */
  fresh?: ReadonlySet<ResourceChangeInfo>;
}

export interface PresentOptions {
  /** Resource hovers carry the addresses of their changes (HoverInfo.block) instead of their plan rendering. */
  lazyHovers?: boolean;
  /** The files (absolute paths) whose lenses, hints and hovers are made; all files when absent. */
  only?: (abs: string) => boolean;
  /** Only the files' presentations: `changes` is left empty. */
  filesOnly?: boolean;
  /**
   * The changes of an earlier presentation of the same configuration: an entry equal to one of them is that object
   * (so that a list can be sent as edits of the earlier one, protocol.ts changesDelta).
   */
  previous?: readonly ResourceChangeInfo[];
  /**
   * The presentation of the plan this one patches (engine PlanSession.replan: the same changes in the same order, the
   * re-planned ones new objects), made with the same drift, and the configuration files (absolute paths) changed since:
   * only the files shown or changed are presented again, every other entry of `changes` is the earlier one (a new
   * object only where its change is).
   */
  patchOf?: { plan: Plan; changes: readonly ResourceChangeInfo[]; summary: PlanSummary; files: ReadonlySet<string> };
}

/** Builds everything the editor shows of `plan`, made from `root` over `src`. */
export function present(plan: Plan, root: Module, src: Sources, knownDrift: readonly DriftInfo[] = [], opts: PresentOptions = {}): Presentation {
  const only = opts.only;
  // The plan renderings of the resource hovers are most of present's time and are read one at a time, on hover.
  const blockHoverOf = (range: LspRange, changes: ResourceInstanceChange[]): HoverInfo =>
    opts.lazyHovers ? { range, markdown: '', block: changes.map(changeAddress) } : { range, markdown: blockMarkdown(plan, changes) };
  const files = new Map<string, FilePresentation>();
  const file = (filename: string): FilePresentation => {
    const p = src.abs(filename);
    let f = files.get(p);
    if (!f) files.set(p, (f = { lenses: [], hints: [], hovers: [] }));
    return f;
  };
  const pt = opts.patchOf && !opts.filesOnly && opts.patchOf.plan.changes.length === plan.changes.length && opts.patchOf.changes.length === plan.changes.length ? opts.patchOf : undefined;
  // (The reference hovers' index of the patched plan, made from the earlier plan's while it is at hand.)
  if (pt) currentChangesByGroup(plan, pt.plan);
  /** In a patch: what is presented again (a file shown or changed; unlocated entries). */
  const fileInScope = remembered((abs: string) => !pt || pt.files.has(abs) || !only || only(abs));
  const inScope = (abs: string | undefined) => abs === undefined || fileInScope(abs);
  /** inScope of a configuration file by its display name. */
  const nameInScope = remembered((filename: string) => inScope(src.abs(filename)));
  /** In a patch, the indices of the changes that are new objects (re-planned). */
  const newAt: readonly number[] = pt ? changedPositions(plan.changes, pt.plan.changes) : [];
  // In a patch, the indices of the entries presented again (their earlier entry's file is in scope, or they had none).
  let scope: number[] | undefined;
  if (pt) {
    scope = [];
    for (const [file, indices] of changeIndexOf(pt.changes)) if (file === '' || inScope(file)) for (const i of indices) scope.push(i);
    scope.sort((a, b) => a - b);
  }
  const byGroup = new Map<string, ResourceInstanceChange[]>();
  for (let j = 0, n = scope ? scope.length : plan.changes.length; j < n; j++) {
    const c = plan.changes[scope ? scope[j] : j];
    const k = changeGroupKey(c);
    let l = byGroup.get(k);
    if (!l) byGroup.set(k, (l = []));
    l.push(c);
  }
  const drift = new Map<string, 'Update' | 'Delete'>();
  for (const d of knownDrift) drift.set(d.address, d.action);
  for (const d of plan.driftedResources) drift.set(instanceAddrString(d.addr), d.action === 'Delete' ? 'Delete' : 'Update');
  const located = new Map<ResourceInstanceChange, Located>();
  const modules: Module[] = [];
  const visit = (m: Module) => {
    modules.push(m);
    for (const c of m.moduleCalls.values()) if (c.module) visit(c.module);
  };
  visit(root);
  const seen = new Set<string>();

  for (const m of modules) {
    const all = [...m.resources, ...m.checks.flatMap((c) => c.data)];
    for (const r of all) {
      if (pt && !nameInScope(r.file)) continue;
      const key = resourceGroupKey(m.path, r);
      if (seen.has(key)) continue;
      seen.add(key);
      const changes = byGroup.get(key) ?? [];
      const shown = !only || only(src.abs(r.declRange.filename));
      if (!shown && opts.filesOnly) continue;
      const loc = locationOf(src, r.declRange);
      for (const c of changes) located.set(c, loc);
      if (!shown) continue;
      const declRange = loc.range;
      const f = file(r.declRange.filename);
      const target = (m.path ? m.path + '.' : '') + (r.mode === 'data' ? 'data.' : '') + `${r.type}.${r.name}`;
      f.lenses.push({ range: declRange, title: lensTitle(changes, !!(r.count || r.forEach), drift, plan), target, instance: changes[0] ? instanceAddrString(changes[0].addr) : target });
      // Hints and hovers of a block are a function of its body (the same object while its file's text is
      // unchanged) and its changes (the same objects when the plan reused them, server/lsp/preview/memo.ts).
      const hit = opts.lazyHovers ? blockCache.get(r.config) : undefined;
      if (hit && hit.r === r.declRange && hit.changes.length === changes.length && hit.changes.every((c, i) => c === changes[i])) {
        f.hints.push(...hit.hints);
        f.hovers.push(...hit.hovers);
      } else {
        const own: FilePresentation = { lenses: [], hints: [], hovers: [] };
        resourceHints(r, changes, src, own);
        resourceHovers(plan, r, changes, src, own, blockHoverOf);
        f.hints.push(...own.hints);
        f.hovers.push(...own.hovers);
        if (opts.lazyHovers) blockCache.set(r.config, { r: r.declRange, changes, hints: own.hints, hovers: own.hovers });
      }
    }
    // Module calls: the summary of every change below them.
    for (const call of m.moduleCalls.values()) {
      if (pt && !nameInScope(call.declRange.filename)) continue;
      const prefix = (m.path ? m.path + '.' : '') + `module.${call.name}`;
      const under = plan.changes.filter((c) => {
        const sm = staticModule(c.addr.module);
        return sm === prefix || sm.startsWith(prefix + '.');
      });
      file(call.declRange.filename).lenses.push({ range: src.range(call.declRange), title: moduleTitle(under), target: prefix });
    }
    // moved and import blocks.
    for (const mv of m.moved) {
      if (!mv.from || !mv.to || (pt && !nameInScope(mv.range.filename))) continue;
      const to = (m.path ? m.path + '.' : '') + mv.to.text.trim();
      const n = [...(plan.movedFrom ?? new Map<string, string>()).keys()].filter((a) => a === to || a.startsWith(to + '[') || a.startsWith(to + '.')).length;
      if (n > 0) file(mv.range.filename).lenses.push({ range: src.range(mv.range), title: `moved: ${mv.from.text.trim()} → ${mv.to.text.trim()}${n > 1 ? ` ×${n}` : ''}` });
    }
    for (const im of m.imports) {
      if (!im.to || (pt && !nameInScope(im.range.filename))) continue;
      const to = (m.path ? m.path + '.' : '') + im.to.text.trim();
      const hits = plan.changes.filter((c) => c.importing && (instanceAddrString(c.addr) === to || instanceAddrString(c.addr).startsWith(to + '[')));
      for (const c of hits) located.set(c, { file: src.abs(im.range.filename), range: src.range(im.range) });
      if (hits.length) file(im.range.filename).lenses.push({ range: src.range(im.range), title: `import ${hits.map((c) => `${instanceAddrString(c.addr)} [id=${c.importing!.id}]`).join(', ')}`, target: instanceAddrString(hits[0].addr) });
    }
  }

  // Instances with no block any more: at the removed block that names them, else at the start of their module's first file.
  for (const [key, changes] of byGroup) {
    if (seen.has(key)) continue;
    const [mod, mode, type, name] = key.split('|');
    const m = modules.find((x) => x.path === mod);
    const resAddr = (mode === 'data' ? 'data.' : '') + `${type}.${name}`;
    const rm = m?.removed.find((r) => r.from && r.from.text.trim() === resAddr);
    let where: { filename: string; range: LspRange } | undefined;
    if (rm) where = { filename: rm.range.filename, range: src.range(rm.range) };
    else {
      // The nearest existing source: the first file of the deepest module of its path that still exists.
      let host = m;
      for (let p = mod; !host && p !== ''; ) {
        p = p.replace(/\.?module\.[^.]+$/, '');
        host = modules.find((x) => x.path === p);
      }
      const f0 = (host ?? root).files[0];
      if (f0) where = { filename: f0, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } };
    }
    if (!where) continue;
    for (const c of changes) located.set(c, { file: src.abs(where.filename), range: where.range });
    const f = file(where.filename);
    for (const c of changes) {
      const why = reasonText(c);
      f.lenses.push({ range: where.range, title: `${actionLabel(c.action)} ${changeAddress(c)}${why ? ` (${why})` : ''}`, target: instanceAddrString(c.addr), instance: instanceAddrString(c.addr) });
      f.hovers.push(blockHoverOf(where.range, [c]));
    }
  }

  if (only) for (const p of files.keys()) if (!only(p)) files.delete(p);
  let previous: Map<string, ResourceChangeInfo> | undefined;
  // (By address, a deposed object's by address and key: the addresses are strings the list holds already.)
  const entryKey = (x: ResourceChangeInfo) => (x.deposed === undefined ? x.address : `${x.address} ${x.deposed}`);
  const same = (info: ResourceChangeInfo, i: number): ResourceChangeInfo => {
    // (In a patch the entry at the same index is the earlier entry of the same change.)
    let p: ResourceChangeInfo | undefined;
    if (pt) p = pt.changes[i];
    else if (opts.previous) {
      previous ??= new Map(opts.previous.map((x) => [entryKey(x), x]));
      p = previous.get(entryKey(info));
    }
    return p && entryKey(p) === entryKey(info) && JSON.stringify(p) === JSON.stringify(info) ? p : info;
  };
  const infoAt = (c: ResourceInstanceChange, i: number, loc: Located): ResourceChangeInfo => {
    // The same change at the same place (an unchanged block's Range gives the same LspRange object) is the same info.
    const known = infoCache.get(c);
    const address = known?.info.address ?? instanceAddrString(c.addr);
    const drifted = drift.size > 0 && drift.has(address);
    const movedFrom = plan.movedFrom?.size ? plan.movedFrom.get(address) : undefined;
    if (known && known.file === loc.file && known.range === loc.range && known.drifted === drifted && known.movedFrom === movedFrom) return known.info;
    let info: ResourceChangeInfo = {
      address,
      module: c.addr.module,
      mode: c.addr.mode,
      type: c.addr.type,
      name: c.addr.name,
      action: plannedAction(c.action),
      inState: !c.before.isNull || c.action === 'Delete' || c.action === 'Forget',
    };
    if (c.addr.key !== undefined) info.key = instanceKeyString(c.addr.key);
    const reason = actionReasonJSON(c.actionReason);
    if (reason) info.actionReason = reason;
    if (c.deposedKey) info.deposed = c.deposedKey;
    if (c.requiredReplace.length) info.replacePaths = c.requiredReplace.map((p) => formatPath(p).replace(/^\./, ''));
    const n = c.action === 'Update' || isReplace(c.action) ? changedAttributeCount(c) : undefined;
    if (n !== undefined) info.changedAttributes = n;
    if (loc.file) info.file = loc.file;
    if (loc.range) info.range = loc.range;
    if (drifted) info.drifted = true;
    if (movedFrom) info.movedFrom = movedFrom;
    if (c.importing) info.importing = true;
    info = same(info, i);
    infoCache.set(c, { info, file: loc.file, range: loc.range, drifted, movedFrom });
    return info;
  };
  let changes: ResourceChangeInfo[];
  /** In a patch, the entries that are not the earlier entry at their index. */
  let fresh: Set<ResourceChangeInfo> | undefined;
  if (opts.filesOnly) changes = [];
  else if (pt) {
    // The earlier list, with the entries presented again and those of the new changes (at the same place) replaced.
    changes = pt.changes.slice();
    fresh = new Set();
    const put = (i: number, info: ResourceChangeInfo) => {
      changes[i] = info;
      if (info !== pt.changes[i]) fresh!.add(info);
    };
    for (const i of scope!) put(i, infoAt(plan.changes[i], i, located.get(plan.changes[i]) ?? {}));
    for (const i of newAt) {
      const p = pt.changes[i];
      if (!inScope(p.file)) put(i, infoAt(plan.changes[i], i, { file: p.file, range: p.range }));
    }
  } else changes = plan.changes.map((c, i) => infoAt(c, i, located.get(c) ?? {}));
  let summary: PlanSummary;
  if (pt) {
    // The earlier summary, with the contributions of the changes that are new objects exchanged.
    summary = { ...pt.summary };
    for (const i of newAt) {
      addSummary(summary, pt.plan.changes[i], -1);
      addSummary(summary, plan.changes[i], 1);
    }
  } else {
    const s = planSummary(plan);
    summary = { add: s.add, change: s.change, destroy: s.destroy, import: s.import, replace: plan.changes.filter((c) => isReplace(c.action)).length };
  }
  // (Patched entries keep their places and files: the earlier list's index is the new one's.)
  if (pt && !opts.filesOnly) changeIndexes.set(changes, changeIndexOf(pt.changes));
  return { summary, changes, files, ...(fresh ? { fresh } : {}) };
}

/** `f` with its answers kept per argument (a presentation asks the same of every block of a file). */
function remembered<K, V>(f: (k: K) => V): (k: K) => V {
  const answers = new Map<K, V>();
  return (k) => {
    if (answers.has(k)) return answers.get(k)!;
    const v = f(k);
    answers.set(k, v);
    return v;
  };
}

/**
 * The indices of a presentation's change list by the entry's file ('' for entries without one), kept per list; a
 * patched list (the same files at the same indices, PresentOptions.patchOf) takes its earlier list's.
 */
const changeIndexes = new WeakMap<readonly ResourceChangeInfo[], Map<string, number[]>>();

function changeIndexOf(list: readonly ResourceChangeInfo[]): Map<string, number[]> {
  let m = changeIndexes.get(list);
  if (!m) {
    m = new Map();
    for (let i = 0; i < list.length; i++) {
      const f = list[i].file ?? '';
      let l = m.get(f);
      if (!l) m.set(f, (l = []));
      l.push(i);
    }
    changeIndexes.set(list, m);
  }
  return m;
}

/** Adds (sign 1) or removes (-1) one change's part of a presentation's summary (as planSummary counts it). */
function addSummary(s: PlanSummary, c: ResourceInstanceChange, sign: 1 | -1): void {
  const x = planSummary({ changes: [c] });
  s.add += sign * x.add;
  s.change += sign * x.change;
  s.destroy += sign * x.destroy;
  s.import += sign * x.import;
  if (isReplace(c.action)) s.replace += sign;
}

/** Changes by resource group (changeGroupKey), in plan order: read only. */
interface GroupIndex {
  get(key: string): readonly ResourceInstanceChange[] | undefined;
}

/** A group index: the groups of `over`, else those of `base` (a patched plan's index over the earlier plan's). */
class LayeredIndex implements GroupIndex {
  constructor(
    readonly base: Map<string, ResourceInstanceChange[]>,
    readonly over: Map<string, ResourceInstanceChange[]>,
  ) {}
  get(key: string): readonly ResourceInstanceChange[] | undefined {
    return this.over.get(key) ?? this.base.get(key);
  }
}

/** Groups a layered index holds over its base before it is made whole again (one pass over every change). */
const MAX_OVER = 256;

/**
 * A plan's current changes (no deposed objects) by resource group, in plan order. Kept per change list; a patched
 * plan's index (PresentOptions.patchOf) is the earlier plan's with the groups of its new changes laid over it.
 */
const groupIndexes = new WeakMap<readonly ResourceInstanceChange[], LayeredIndex>();

function currentChangesByGroup(plan: Plan, from?: Plan): GroupIndex {
  const known = groupIndexes.get(plan.changes);
  if (known) return known;
  let index: LayeredIndex | undefined;
  const earlier = from && from.changes.length === plan.changes.length ? groupIndexes.get(from.changes) : undefined;
  if (earlier && earlier.over.size < MAX_OVER) {
    const replaced = new Map<ResourceInstanceChange, ResourceInstanceChange>();
    for (const i of changedPositions(plan.changes, from!.changes)) replaced.set(from!.changes[i], plan.changes[i]);
    const over = new Map(earlier.over);
    let ok = true;
    for (const [was, c] of replaced) {
      const k = changeGroupKey(c);
      const l = over.get(k) ?? earlier.base.get(k);
      if (was.deposedKey || c.deposedKey || changeGroupKey(was) !== k || !l) {
        ok = false;
        break;
      }
      // (Once per group: the first of its new changes maps every one of them.)
      if (!over.has(k) || over.get(k) === earlier.over.get(k)) over.set(k, l.map((x) => replaced.get(x) ?? x));
    }
    if (ok) index = new LayeredIndex(earlier.base, over);
  }
  if (!index) {
    const m = new Map<string, ResourceInstanceChange[]>();
    for (const c of plan.changes) {
      if (c.deposedKey) continue;
      const k = changeGroupKey(c);
      let l = m.get(k);
      if (!l) m.set(k, (l = []));
      l.push(c);
    }
    index = new LayeredIndex(m, new Map());
  }
  groupIndexes.set(plan.changes, index);
  return index;
}

/**
 * A block's file (absolute) and LSP range by its engine range, one object for all its changes: a range object is made
 * by one parse of one text, so its LSP range never changes.
 */
const locations = new WeakMap<EngineRange, { file: string; range: LspRange }>();

function locationOf(src: Sources, r: EngineRange): { file: string; range: LspRange } {
  const file = src.abs(r.filename);
  let x = locations.get(r);
  if (!x || x.file !== file) locations.set(r, (x = { file, range: src.range(r) }));
  return x;
}

/** A change's ResourceChangeInfo, valid while it is located at the same place (never mutated once made). */
const infoCache = new WeakMap<ResourceInstanceChange, { info: ResourceChangeInfo; file?: string; range?: LspRange; drifted: boolean; movedFrom?: string }>();

/** A resource block's hints and hovers by its body (present's lazy-hover presentations; never mutated). */
const blockCache = new WeakMap<Body, { r: EngineRange; changes: readonly ResourceInstanceChange[]; hints: HintInfo[]; hovers: HoverInfo[] }>();

/** A reference's hover by the reference, valid while the changes its value came from are the same objects. */
const referenceCache = new WeakMap<Reference, { from: readonly ResourceInstanceChange[]; hover: HoverInfo | undefined }>();

function lensTitle(changes: ResourceInstanceChange[], multi: boolean, drift: Map<string, string>, plan: Plan): string {
  if (changes.length === 0) return multi ? 'no instances' : 'no changes';
  const counts = new Map<string, number>();
  for (const c of changes) {
    let label = actionLabel(c.action);
    if (c.importing) label = c.action === 'NoOp' ? 'import' : `${label}, import`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const order = (l: string) => {
    const i = ACTION_ORDER.findIndex((a) => actionLabel(a) === l);
    return i < 0 ? -1 : i;
  };
  const labels = [...counts.keys()].sort((a, b) => order(a) - order(b));
  const many = multi || changes.length > 1;
  let t = labels.map((l) => (many ? `${l} ×${counts.get(l)}` : l)).join(', ');
  const moved = changes.find((c) => plan.movedFrom?.get(instanceAddrString(c.addr)));
  if (moved && !many) t += ` (moved from ${plan.movedFrom!.get(instanceAddrString(moved.addr))})`;
  const drifted = changes.filter((c) => drift.has(instanceAddrString(c.addr)));
  if (drifted.length) t += drift.get(instanceAddrString(drifted[0].addr)) === 'Delete' ? ' (deleted outside of Terraform)' : ' (changed outside of Terraform)';
  return t;
}

function moduleTitle(changes: ResourceInstanceChange[]): string {
  let add = 0;
  let change = 0;
  let destroy = 0;
  for (const c of changes) {
    if (c.action === 'Create' || isReplace(c.action)) add++;
    if (c.action === 'Update') change++;
    if (c.action === 'Delete' || isReplace(c.action)) destroy++;
  }
  if (add + change + destroy === 0) return 'no changes';
  return `${add} to add, ${change} to change, ${destroy} to destroy`;
}

function forcesReplacement(c: ResourceInstanceChange, name: string): boolean {
  return c.requiredReplace.some((p) => p.length > 0 && p[0].kind === 'attr' && p[0].name === name);
}

/** The value of a nested block that occurs once in `body` (a single block, or a list/set of one). */
function nestedOnce(v: Value | undefined, b: Block, body: Body): Value | undefined {
  if (v === undefined || body.blocks.filter((x) => x.type === b.type).length !== 1) return undefined;
  const x = attr(v, b.type);
  if (!x || !x.isKnown || x.isNull) return x;
  if (x.type.kind === 'object') return x;
  if ((x.type.kind === 'list' || x.type.kind === 'set') && x.elems.length === 1) return x.elems[0].markWith(new Set([...x.marks, ...x.elems[0].marks]));
  return undefined;
}

function resourceHints(r: Resource, changes: ResourceInstanceChange[], src: Sources, f: FilePresentation): void {
  const live = changes.filter((c) => !c.deposedKey && (c.action === 'Create' || c.action === 'Update' || isReplace(c.action)));
  if (!live.length) return;
  bodyHints(
    r.config,
    live.map((c) => ({ c, before: c.action === 'Create' ? undefined : c.before, after: c.after, forces: (name: string) => forcesReplacement(c, name) })),
    live,
    src,
    f,
  );
}

interface Side {
  c: ResourceInstanceChange;
  before: Value | undefined;
  after: Value | undefined;
  forces(name: string): boolean;
}

/** Hints for the attributes of `body` and, one level down, of nested blocks that occur once. */
function bodyHints(body: Body, sides: Side[], live: ResourceInstanceChange[], src: Sources, f: FilePresentation, depth = 0): void {
  if (depth > 3) return;
  for (const b of body.blocks) {
    const inner = sides
      .map((s) => ({ c: s.c, before: nestedOnce(s.before, b, body), after: nestedOnce(s.after, b, body), forces: (name: string) => s.c.requiredReplace.some((p) => p.length > 1 && p[0].kind === 'attr' && p[0].name === b.type && p[p.length - 1].kind === 'attr' && (p[p.length - 1] as { name: string }).name === name) }))
      .filter((s) => s.after !== undefined);
    if (inner.length) bodyHints(b.body, inner, live, src, f, depth + 1);
  }
  for (const a of body.attributes) {
    const hints: HintInfo[] = [];
    const position = src.range(a.range).end;
    for (const side of sides) {
      const c = side.c;
      const before = c.action === 'Create' || side.before === undefined ? undefined : attr(side.before, a.name);
      const after = side.after === undefined ? undefined : attr(side.after, a.name);
      if (after === undefined) continue;
      const unknown = !after.isKnown;
      const forces = depth === 0 ? forcesReplacement(c, a.name) : side.forces(a.name);
      if (c.action === 'Create') {
        if (!unknown) continue;
        hints.push({ position, planned: '(known after apply)', unknown, forces, key: instanceKeyString(c.addr.key) });
        continue;
      }
      if (sameValue(before, after) && !forces) continue;
      hints.push({ position, prior: display(before, 40), planned: display(after, 40), unknown, forces, key: instanceKeyString(c.addr.key) });
    }
    if (!hints.length) continue;
    const distinct = new Map<string, HintInfo>();
    for (const h of hints) {
      const k = JSON.stringify([h.prior, h.planned, h.forces]);
      if (!distinct.has(k)) distinct.set(k, { ...h, key: live.length > 1 ? h.key : undefined });
    }
    if (distinct.size === 1) {
      const h = [...distinct.values()][0];
      delete h.key;
      f.hints.push(h);
    } else for (const h of [...distinct.values()].slice(0, 3)) f.hints.push(h);
  }
}

function blockMarkdown(plan: Plan, changes: ResourceInstanceChange[]): string {
  const parts: string[] = [];
  for (const c of changes.slice(0, 10)) {
    const lines = [`**${changeAddress(c)}**: ${actionLabel(c.action)}`];
    const why = reasonText(c);
    const reason = actionReasonJSON(c.actionReason);
    if (why) lines.push(`Reason: ${why} (\`${reason}\`)`);
    const rendered = renderResourceChange(plan, c, false);
    lines.push('```\n' + rendered.replace(/\n+$/, '') + '\n```');
    parts.push(lines.join('\n\n'));
  }
  if (changes.length > 10) parts.push(`… and ${changes.length - 10} more instances`);
  return parts.join('\n\n---\n\n');
}

/** The markdown of a lazy hover (HoverInfo.block) from the plan its presentation was made from. */
export function blockHover(plan: Plan, block: readonly string[]): string {
  const want = new Set(block);
  return blockMarkdown(plan, plan.changes.filter((c) => want.has(changeAddress(c))));
}

function resourceHovers(
  plan: Plan,
  r: Resource,
  changes: ResourceInstanceChange[],
  src: Sources,
  f: FilePresentation,
  blockHoverOf: (range: LspRange, changes: ResourceInstanceChange[]) => HoverInfo,
): void {
  const head = src.range(r.declRange);
  const body = src.range(r.config.range);
  const whole: LspRange = { start: head.start, end: body.end.line > head.end.line || (body.end.line === head.end.line && body.end.character > head.end.character) ? body.end : head.end };
  const addr = `${r.mode === 'data' ? 'data.' : ''}${r.type}.${r.name}`;
  f.hovers.push(changes.length ? blockHoverOf(whole, changes) : { range: whole, markdown: `**${addr}**: no planned instances` });
  const live = changes.filter((c) => !c.deposedKey);
  for (const a of r.config.attributes) {
    if (!live.length) break;
    const lines = [`**${a.name}**`];
    for (const c of live.slice(0, 5)) {
      const before = c.before.isNull ? undefined : attr(c.before, a.name);
      const after = c.after.isNull ? undefined : attr(c.after, a.name);
      const prefix = live.length > 1 ? `${instanceAddrString(c.addr)}: ` : '';
      lines.push(`${prefix}prior: \`${before === undefined ? 'null' : display(before, 200)}\`  \nplanned: \`${after === undefined ? 'null' : display(after, 200)}\`${forcesReplacement(c, a.name) ? '  \n# forces replacement' : ''}`);
    }
    f.hovers.push({ range: src.range(a.range), markdown: lines.join('\n\n') });
  }
}

// ---- references --------------------------------------------------------------------------------------------

/** Hovers on references (`var.x`, `aws_x.y.attr`, `data.x.y`) with the planned value and its type. */
export function referenceHovers(
  plan: Plan,
  root: Module,
  src: Sources,
  files: Map<string, FilePresentation>,
  /** A root module local's value where it is known without the plan (no resource in it), else undefined. */
  rootLocal: (name: string) => Value | undefined = () => undefined,
  /** The files (absolute paths) whose hovers are made; all files when absent. */
  only?: (abs: string) => boolean,
): void {
  const wanted = remembered((filename: string) => !only || only(src.abs(filename)));
  const byGroup = currentChangesByGroup(plan);
  // Root outputs: prior and planned value.
  for (const o of root.outputs.values()) {
    if (!wanted(o.declRange.filename)) continue;
    const oc = plan.outputs.find((x) => x.module === '' && x.name === o.name);
    if (!oc) continue;
    const p = src.abs(o.declRange.filename);
    let f = files.get(p);
    if (!f) files.set(p, (f = { lenses: [], hints: [], hovers: [] }));
    const shown = (v: Value) => (oc.sensitive ? '(sensitive value)' : display(v, 200));
    f.hovers.push({
      range: src.range(o.declRange),
      markdown: `**output.${o.name}**: ${actionLabel(oc.action)}\n\nprior: \`${oc.before.isNull ? 'null' : shown(oc.before)}\`  \nplanned: \`${oc.after.isNull ? 'null' : shown(oc.after)}\``,
    });
  }
  const visit = (m: Module) => {
    const exprs: Expression[] = [];
    for (const r of m.resources) {
      if (!wanted(r.file)) continue;
      for (const a of r.config.attributes) exprs.push(a.expr);
      if (r.count) exprs.push(r.count);
      if (r.forEach) exprs.push(r.forEach);
    }
    exprs.push(
      ...[...m.outputs.values()].flatMap((o) => (o.value && wanted(o.declRange.filename) ? [o.value] : [])),
      ...[...m.locals.values()].flatMap((l) => (wanted(l.range.filename) ? [l.expr] : [])),
      ...[...m.moduleCalls.values()].flatMap((c) => (wanted(c.declRange.filename) ? [...c.arguments.values()] : [])),
    );
    for (const e of exprs) {
      for (const ref of e.refs) {
        // A resource reference's hover is kept while the changes it reads are the same objects (the reference
        // is the same object while its file is unchanged, so its range is too).
        const from: ResourceInstanceChange[] = [];
        const hit = referenceCache.get(ref);
        let hover: HoverInfo | undefined;
        const v = hit ? undefined : referenceValue(plan, m, ref, byGroup, rootLocal, from);
        if (hit) {
          const again: ResourceInstanceChange[] = [];
          referenceChanges(m, ref, byGroup, again);
          if (again.length && again.length === hit.from.length && again.every((c, i) => c === hit.from[i])) hover = hit.hover;
          else {
            referenceCache.delete(ref);
            const v2 = referenceValue(plan, m, ref, byGroup, rootLocal, from);
            hover = v2 && referenceHover(v2, ref, src);
            if (from.length) referenceCache.set(ref, { from, hover });
          }
        } else {
          hover = v && referenceHover(v, ref, src);
          if (from.length) referenceCache.set(ref, { from, hover });
        }
        if (!hover) continue;
        const p = src.abs(ref.range.filename);
        let f = files.get(p);
        if (!f) files.set(p, (f = { lenses: [], hints: [], hovers: [] }));
        f.hovers.push(hover);
      }
    }
    for (const c of m.moduleCalls.values()) if (c.module) visit(c.module);
  };
  visit(root);
}

function referenceHover(v: Value, ref: Reference, src: Sources): HoverInfo {
  let markdown = referenceMarkdown.get(v);
  if (markdown === undefined) {
    const text = v.marks.has('sensitive') ? '(sensitive value)' : formatValue(v);
    markdown = intern(hoverTexts, '```hcl\n' + text + '\n```\n\n' + `Type: \`${consoleTypeString(v.type)}\``, HOVER_TEXTS_MAX);
    referenceMarkdown.set(v, markdown);
  }
  return { range: src.range(ref.range), markdown };
}

/**
 * A reference hover's text by the value shown (values are immutable; a variable's and an unchanged change's values are
 * the same objects from preview to preview, while an edited file's references are new objects).
 */
const referenceMarkdown = new WeakMap<Value, string>();

/**
 * Equal reference hovers share one string: thousands of references read values of a few types (5,000 resources
 * whose hover texts are a few KB each held about 10 MB in copies). Bounded: cleared when full.
 */
const hoverTexts = new Map<string, string>();

/** Entries of a hover text table (hoverTexts, and the main thread's per preview). */
export const HOVER_TEXTS_MAX = 20_000;

/** The changes a resource reference's value is made of (referenceValue's `mine`), into `out`. */
function referenceChanges(m: Module, ref: Reference, byGroup: GroupIndex, out: ResourceInstanceChange[]): void {
  if (['var', 'local', 'module', 'path', 'terraform', 'count', 'each', 'self'].includes(ref.root)) return;
  let steps = ref.steps;
  let mode = 'managed';
  let type = ref.root;
  if (ref.root === 'data') {
    if (!steps.length || steps[0].kind !== 'attr') return;
    mode = 'data';
    type = steps[0].name;
    steps = steps.slice(1);
  }
  if (!steps.length || steps[0].kind !== 'attr') return;
  const changes = byGroup.get(groupKey(m.path, mode, type, steps[0].name));
  if (!changes?.length) return;
  const mi = changes[0].addr.module;
  for (const c of changes) if (c.addr.module === mi && c.action !== 'Delete' && c.action !== 'Forget') out.push(c);
}

function referenceValue(
  plan: Plan,
  m: Module,
  ref: Reference,
  byGroup: GroupIndex,
  rootLocal: (name: string) => Value | undefined,
  /** Receives the changes a resource reference's value was made of. */
  from: ResourceInstanceChange[] = [],
): Value | undefined {
  let v: Value | undefined;
  let steps = ref.steps;
  if (ref.root === 'var') {
    if (m.path !== '' || !steps.length || steps[0].kind !== 'attr') return undefined;
    v = plan.variableValues.get(steps[0].name);
    if (v && m.variables.get(steps[0].name)?.sensitive) v = v.mark('sensitive');
    steps = steps.slice(1);
  } else if (ref.root === 'local') {
    if (m.path !== '' || !steps.length || steps[0].kind !== 'attr') return undefined;
    v = rootLocal(steps[0].name);
    steps = steps.slice(1);
  } else if (['module', 'path', 'terraform', 'count', 'each', 'self'].includes(ref.root)) {
    return undefined;
  } else {
    let mode = 'managed';
    let type = ref.root;
    if (ref.root === 'data') {
      if (!steps.length || steps[0].kind !== 'attr') return undefined;
      mode = 'data';
      type = steps[0].name;
      steps = steps.slice(1);
    }
    if (!steps.length || steps[0].kind !== 'attr') return undefined;
    const name = steps[0].name;
    steps = steps.slice(1);
    const changes = byGroup.get(groupKey(m.path, mode, type, name));
    if (!changes?.length) return undefined;
    // Instances of one module instance only: the first module instance's.
    const mi = changes[0].addr.module;
    const mine = changes.filter((c) => c.addr.module === mi && c.action !== 'Delete' && c.action !== 'Forget');
    if (!mine.length) return undefined;
    from.push(...mine);
    if (mine.length === 1 && mine[0].addr.key === undefined) v = mine[0].after;
    else if (mine.every((c) => typeof c.addr.key === 'number')) v = Value.tuple([...mine].sort((a, b) => (a.addr.key as number) - (b.addr.key as number)).map((c) => c.after));
    else if (mine.every((c) => typeof c.addr.key === 'string')) v = Value.object(new Map(mine.map((c) => [c.addr.key as string, c.after])));
    else return undefined;
  }
  for (const st of steps) {
    if (!v || !v.isKnown || v.isNull) return v;
    if (st.kind === 'attr') v = attr(v, st.name);
    else if (typeof st.key === 'number' && (v.type.kind === 'tuple' || v.type.kind === 'list')) v = v.elems[st.key];
    else if (v.type.kind === 'object' || v.type.kind === 'map') v = attr(v, String(st.key));
    else return undefined;
  }
  return v;
}
