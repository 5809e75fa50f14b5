// The preview's caches (per-file parses, PlanResourceChange answers, the state, the incremental plan's records of
// memo.ts, the presentation's per-block caches) never change a result: after a series of seeded random edits
// (values, references between resources across files, resources added and removed, count changes, replacement
// triggers, create_before_destroy forced through a dependent, the variable every resource reads, files edited in
// the editor or on disk), each incremental preview equals a preview made with every cache forgotten, and a
// repeated preview replays every resource node it can.

import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../server/cli/main';
import { interruptPreviews, makePreview, PREVIEW_INTERRUPTED, previewFiles, primePreview, Refusal, resetPreviewCaches, forgetPreviewSessions, type PreviewData } from '../../server/lsp/preview/worker';
import { applyChangesDelta } from '../../server/lsp/protocol';
import { ModuleAnalysis } from '../../server/config/analysis';
import { initParser } from '../../server/syntax/treesitter';
import { PreviewClient, workspace } from './preview-client';

/** Deterministic PRNG (mulberry32), so a failure can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Res {
  name: string;
  value: string;
  ref?: string;
  count?: number;
  /** triggers_replace (a change replaces the resource). */
  trig?: string;
  cbd?: boolean;
}

function fileText(rs: Res[]): string {
  return rs
    .map(
      (r) =>
        `resource "terraform_data" "${r.name}" {\n` +
        (r.count !== undefined ? `  count = ${r.count}\n` : '') +
        `  input = {\n    v   = "${r.value}"\n    env = var.env\n` +
        // (Some read the referenced resource's output: unknown once it changes, so later edits of it leave them alone.)
        (r.ref ? `    ref = terraform_data.${r.ref}.${r.name.length % 2 ? 'output' : 'input'}\n` : '') +
        `  }\n` +
        (r.trig !== undefined ? `  triggers_replace = "${r.trig}"\n` : '') +
        (r.cbd ? `  lifecycle {\n    create_before_destroy = true\n  }\n` : '') +
        `}\n`,
    )
    .join('\n');
}

/**
 * A preview as the language server gets it: the open files (`open`) presented with it, every other file of its
 * configuration asked for afterwards (previewFiles). Its files are then those of a preview that presents all of
 * them (files without anything to show left out, as such a preview leaves them out).
 */
async function previewAsServed(dir: string, overlays: Map<string, string>, open: string[]): Promise<PreviewData> {
  const p = await makePreview(dir, overlays, {}, [], undefined, open);
  const rest = p.paths.filter((x) => !open.includes(x));
  const lazy = previewFiles(p.previewId, rest) ?? [];
  const byPath = new Map([...p.files, ...lazy]);
  const files = p.paths.flatMap((x) => {
    const f = byPath.get(x);
    return f && (f.lenses.length || f.hints.length || f.hovers.length) ? [[x, f] as [string, typeof f]] : [];
  });
  return { ...p, files };
}

/** The files of a preview in the order of its configuration's paths (a preview of all files adds them as it presents). */
function inPathOrder(p: PreviewData): PreviewData {
  const byPath = new Map(p.files);
  return { ...p, files: p.paths.flatMap((x) => (byPath.has(x) ? [[x, byPath.get(x)!] as [string, (typeof p.files)[number][1]]] : [])) };
}

/** What a preview shows, without its timing figures. */
function shown(p: PreviewData): unknown {
  return { complete: p.complete, summary: p.summary, changes: p.changes, diagnostics: p.diagnostics, lsp: p.lspDiagnostics, files: p.files, modules: p.moduleDirs };
}

/** Runs `fn` in a new temporary directory (tree-sitter ready), then forgets the previews' caches and removes it. */
async function inPreviewDir(name: string, fn: (dir: string) => Promise<void>): Promise<void> {
  await initParser();
  const dir = mkdtempSync(join(tmpdir(), `foresight-preview-${name}-`));
  try {
    await fn(dir);
  } finally {
    resetPreviewCaches();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('preview: incremental previews after random edits equal fresh full previews', () =>
  inPreviewDir('incr', async (dir) => {
    const io = { cwd: dir, env: process.env, stdin: async () => '', stdout: () => undefined, stderr: () => undefined };
    const random = rng(Number(process.env.FORESIGHT_PREVIEW_SEED ?? 7));
    const files: Res[][] = [0, 1, 2].map((f) => Array.from({ length: 6 }, (_, i) => ({ name: `r${f}_${i}`, value: `v${f}${i}`, ...(i > 0 ? { ref: `r${f}_${i - 1}` } : {}) })));
    const variables = (env: string) => `variable "env" {\n  type    = string\n  default = "${env}"\n}\n`;
    writeFileSync(join(dir, 'variables.tf'), variables('dev'));
    const write = (f: number) => writeFileSync(join(dir, `f${f}.tf`), fileText(files[f]));
    for (let f = 0; f < files.length; f++) write(f);
    assert.equal(await main(['apply', '-auto-approve', '-input=false', '-no-color'], io), 0);
    const overlays = new Map<string, string>();
    let serial = 0;
    const all = () => files.flat();
    let checked = 0;
    let replayedSeen = 0;
    let patchedSeen = 0;
    for (let step = 0; step < 30; step++) {
      const f = Math.floor(random() * files.length);
      const rs = files[f];
      const kind = Math.floor(random() * 8);
      const pick = rs[Math.floor(random() * rs.length)];
      if (kind === 0 && pick) pick.value = `e${step}`;
      else if (kind === 5 && pick) pick.trig = `t${step}`;
      else if (kind === 6 && pick) pick.cbd = !pick.cbd;
      else if (kind === 7) overlays.set(join(dir, 'variables.tf'), variables(`env${step % 3}`));
      else if (kind === 1 && pick) {
        // A reference to any other resource of the workspace (never itself, never a cycle: only to names created earlier).
        const others = all().filter((r) => r.name < pick.name && r.count === undefined);
        pick.ref = others.length ? others[Math.floor(random() * others.length)].name : undefined;
      } else if (kind === 2 && rs.length > 1) {
        const gone = rs.splice(Math.floor(random() * rs.length), 1)[0];
        for (const r of all()) if (r.ref === gone.name) delete r.ref;
      } else if (kind === 3) rs.push({ name: `n${f}_${serial++}`, value: `n${step}` });
      else if (pick && !all().some((r) => r.ref === pick.name)) pick.count = pick.count === undefined ? 2 : pick.count === 2 ? 1 : undefined;
      const path = join(dir, `f${f}.tf`);
      // Edits go to the editor's overlay mostly; sometimes the file is saved (overlay dropped, disk written).
      if (random() < 0.25) {
        overlays.delete(path);
        write(f);
      } else overlays.set(path, fileText(rs));
      // A removed resource's references in the other files went with it: those files are edited too.
      for (let g = 0; g < files.length; g++) {
        const p = join(dir, `f${g}.tf`);
        if (g !== f && (overlays.get(p) ?? readFileSync(p, 'utf8')) !== fileText(files[g])) overlays.set(p, fileText(files[g]));
      }
      // (Incremental as the language server makes it: the files edited in the editor presented with it, the others on request.)
      const incremental = await previewAsServed(dir, overlays, [...overlays.keys()]);
      resetPreviewCaches();
      const fresh = inPathOrder(await makePreview(dir, overlays, {}));
      assert.deepEqual(shown(incremental), shown(fresh), `step ${step}: the incremental preview differs from a full one`);
      assert.equal(fresh.complete, true, `step ${step}: ${JSON.stringify(fresh.diagnostics)}`);
      // Warm the caches again from a different history than the fresh preview's: one more incremental preview, a
      // full plan with the memo (the fresh plan, kept for patching, is forgotten first; patches are checked below).
      forgetPreviewSessions();
      const again = inPathOrder(await makePreview(dir, overlays, {}));
      assert.deepEqual(shown(again), shown(fresh), `step ${step}: a repeated preview differs`);
      assert.equal(again.stats.planCalls, 0, `step ${step}: a repeated preview called PlanResourceChange`);
      // Nothing changed since the fresh preview: every resource block is replayed but those with orphaned
      // instances (a count that went down: their Delete changes are planned each time).
      const nodes = all().length;
      const configured = new Set(all().map((r) => `terraform_data.${r.name}`));
      const orphaned = fresh.changes.filter((c) => c.action === 'delete').map((c) => c.address.replace(/\[\d+\]$/, '')).filter((a) => configured.has(a));
      assert.equal(again.stats.replayed + again.stats.planned, nodes, `step ${step}: resource nodes walked`);
      assert.equal(again.stats.planned, new Set(orphaned).size, `step ${step}: resource nodes planned again (${JSON.stringify(orphaned)})`);
      assert.equal(again.stats.stateRead, false, `step ${step}: the unchanged state was read again`);
      assert.equal(again.stats.patched, undefined, `step ${step}: the preview after forgetting the kept plan was a patch`);
      // And once more: now the kept plan is patched, with nothing to plan again.
      const patched = inPathOrder(await makePreview(dir, overlays, {}));
      assert.deepEqual(shown(patched), shown(fresh), `step ${step}: a patched preview without changes differs`);
      // (A plan that moves objects, here a count added or removed, is not kept for patching.)
      const moves = fresh.changes.some((c) => c.movedFrom !== undefined);
      assert.equal(patched.stats.patched, moves ? undefined : 0, `step ${step}: a preview without changes (moves: ${moves}) did not patch the kept plan with nothing`);
      assert.equal(patched.stats.planCalls, 0, `step ${step}: a patch without changes called PlanResourceChange`);
      replayedSeen += incremental.stats.replayed;
      if (incremental.stats.patched !== undefined) patchedSeen++;
      checked++;
    }
    assert.equal(checked, 30);
    assert.ok(replayedSeen > 0, 'the incremental previews replayed nothing');
    assert.ok(patchedSeen > 0, 'no incremental preview patched the kept plan');
  }));

test('preview: a patch plans again only the dependents whose references read differently', () =>
  inPreviewDir('patch', async (dir) => {
    const io = { cwd: dir, env: process.env, stdin: async () => '', stdout: () => undefined, stderr: () => undefined };
    // a ← b (reads a's output) ← c (reads b's input); d reads a's input.
    const text = (v: string) =>
      `resource "terraform_data" "a" {\n  input = "${v}"\n}\n` +
      `resource "terraform_data" "b" {\n  input = { from = terraform_data.a.output }\n}\n` +
      `resource "terraform_data" "c" {\n  input = terraform_data.b.input\n}\n` +
      `resource "terraform_data" "d" {\n  input = [terraform_data.a.input]\n}\n`;
    const path = join(dir, 'main.tf');
    writeFileSync(path, text('v0'));
    assert.equal(await main(['apply', '-auto-approve', '-input=false', '-no-color'], io), 0);
    const overlays = new Map<string, string>();
    const first = await makePreview(dir, overlays, {}, [], undefined, [path]);
    assert.equal(first.stats.patched, undefined);
    const step = async (v: string, patched: number, actions: Record<string, string>) => {
      overlays.set(path, text(v));
      const p = await makePreview(dir, overlays, {}, [], undefined, [path]);
      assert.equal(p.stats.patched, patched, `edit to ${v}: nodes planned again`);
      assert.deepEqual(Object.fromEntries(p.changes.map((c) => [c.address, c.action])), actions);
      resetPreviewCaches();
      const fresh = await makePreview(dir, overlays, {}, [], undefined, [path]);
      assert.deepEqual(shown(p), shown(fresh), `edit to ${v}: the patched preview differs from a full one`);
      // (The fresh plan is kept for the next patch.)
    };
    // a's input and output change: b (output: known → unknown) and d (input) are planned again, and c (b's input
    // changed: it holds a's output) too.
    await step('v1', 4, { 'terraform_data.a': 'update', 'terraform_data.b': 'update', 'terraform_data.c': 'update', 'terraform_data.d': 'update' });
    // Again: a's output is still unknown, so b reads the same and c with it; d reads a's input, which changed.
    await step('v2', 2, { 'terraform_data.a': 'update', 'terraform_data.b': 'update', 'terraform_data.c': 'update', 'terraform_data.d': 'update' });
  }));

test('preview: priming makes the last preview again under its id, and the edits after it patch as before', () =>
  inPreviewDir('prime', async (dir) => {
    const io = { cwd: dir, env: process.env, stdin: async () => '', stdout: () => undefined, stderr: () => undefined };
    const rs: Res[] = Array.from({ length: 5 }, (_, i) => ({ name: `r${i}`, value: `v${i}`, ...(i > 0 ? { ref: `r${i - 1}` } : {}) }));
    writeFileSync(join(dir, 'variables.tf'), 'variable "env" {\n  default = "dev"\n}\n');
    const path = join(dir, 'main.tf');
    writeFileSync(path, fileText(rs));
    writeFileSync(join(dir, 'other.tf'), fileText([{ name: 'o', value: 'x', ref: 'r4' }]));
    assert.equal(await main(['apply', '-auto-approve', '-input=false', '-no-color'], io), 0);
    rs[2].value = 'edited';
    const overlays = new Map([[path, fileText(rs)]]);
    const first = await makePreview(dir, overlays, {}, [], undefined, [path]);
    assert.equal(first.complete, true, JSON.stringify(first.diagnostics));
    const files = previewFiles(first.previewId, [path, join(dir, 'other.tf')]);
    // (More rounds than the previews a directory keeps: each must replace the last, not add one.)
    assert.equal(await primePreview(dir, 6, () => false), 6);
    // The main thread holds the first preview: it is still kept, and shows the same.
    assert.deepEqual(previewFiles(first.previewId, [path, join(dir, 'other.tf')]), files);
    let rounds = 0;
    assert.equal(await primePreview(dir, 3, () => rounds++ === 1), 1, 'priming stops when asked');
    // An edit after priming: a patch of the kept plan, whose changes, as edits of the first preview's list, are a
    // fresh preview's.
    rs[3].value = 'again';
    overlays.set(path, fileText(rs));
    const next = await makePreview(dir, overlays, {}, [], undefined, [path], first.previewId);
    assert.equal(next.stats.patched, 2);
    const changes = next.changesDelta ? applyChangesDelta(first.changes, next.changesDelta) : next.changes;
    resetPreviewCaches();
    const fresh = await makePreview(dir, overlays, {}, [], undefined, [path]);
    assert.deepEqual(changes, fresh.changes);
    assert.deepEqual(next.files, fresh.files);
    assert.deepEqual(next.summary, fresh.summary);
    // Nothing to patch (the kept plan forgotten): no round is made, and no plan either.
    forgetPreviewSessions();
    assert.equal(await primePreview(dir, 3, () => false), 0);
  }));

test('preview: with values from terraform.tfvars, an edit is a patch; a changed terraform.tfvars makes a full plan', () =>
  inPreviewDir('tfvars', async (dir) => {
    writeFileSync(join(dir, 'variables.tf'), 'variable "n" {\n  type = number\n}\nvariable "tags" {\n  type = map(string)\n}\n');
    writeFileSync(join(dir, 'terraform.tfvars'), 'n    = 2\ntags = { a = "b" }\n');
    const path = join(dir, 'main.tf');
    const text = (v: string) => `resource "terraform_data" "a" {\n  count = var.n\n  input = { v = "${v}", tags = var.tags }\n}\n`;
    const overlays = new Map([[path, text('v0')]]);
    const first = await makePreview(dir, overlays, {}, [], undefined, [path]);
    assert.deepEqual([first.complete, first.summary.add, first.stats.patched], [true, 2, undefined]);
    overlays.set(path, text('v1'));
    const patched = await makePreview(dir, overlays, {}, [], undefined, [path]);
    assert.deepEqual([patched.complete, patched.summary.add, patched.stats.patched], [true, 2, 1]);
    writeFileSync(join(dir, 'terraform.tfvars'), 'n    = 3\ntags = { a = "b" }\n');
    const full = await makePreview(dir, overlays, {}, [], undefined, [path]);
    assert.deepEqual([full.complete, full.summary.add, full.stats.patched], [true, 3, undefined]);
  }));

test('preview: beside an analysis (its file cache shared), interrupted by an analysis request and made again', () =>
  inPreviewDir('interrupt', async (dir) => {
    writeFileSync(join(dir, 'variables.tf'), 'variable "env" {\n  default = "dev"\n}\n');
    for (let f = 0; f < 10; f++) {
      const rs: Res[] = [];
      for (let k = 0; k < 40; k++) rs.push({ name: `r${f}_${k}`, value: `v${k}`, ref: k > 0 ? `r${f}_${k - 1}` : undefined });
      writeFileSync(join(dir, `f${f}.tf`), fileText(rs));
    }
    const analysis = new ModuleAnalysis(dir, { budgetMs: 500 });
    await analysis.analyze(new Map());
    const shared = { cache: analysis.fileCache, budgetMs: 500 };
    const entries = new Map(analysis.fileCache);
    // An interruption while the plan is walked (400 resources in a chain take well over 20 ms to plan; the walk lets
    // timers in every 8 ms): the preview is refused as interrupted, nothing of it is kept.
    const started = makePreview(dir, new Map(), {}, [], shared);
    setTimeout(() => interruptPreviews(), 20);
    await assert.rejects(started, (e: unknown) => e instanceof Refusal && e.message === PREVIEW_INTERRUPTED);
    // Made again: the same as a preview with its own caches; the analysis's parsed files were used, not re-read.
    const again = await makePreview(dir, new Map(), {}, [], shared);
    assert.equal(again.complete, true, JSON.stringify(again.diagnostics));
    assert.equal(again.changes.length, 400);
    for (const [p, e] of entries) assert.equal(analysis.fileCache.get(p), e, `${p}: the preview parsed the file again`);
    resetPreviewCaches();
    const own = await makePreview(dir, new Map(), {});
    assert.deepEqual(shown(again), shown(own));
  }));

test('preview: a resource hover is rendered on request, also while a syntax error keeps the last preview shown', async () => {
  const text = 'resource "terraform_data" "a" {\n  input = "one"\n}\n';
  const ws = workspace({ 'main.tf': text });
  const c = new PreviewClient();
  try {
    await c.initialize({}, { debounceMs: 10, previewDebounceMs: 10 });
    const uri = ws.uri('main.tf');
    await c.open(uri, text);
    const p1 = await c.nextPreview(ws.dir);
    assert.equal(p1.complete, true);
    const rendered = [
      '**terraform_data.a**: + create',
      '```\n  # terraform_data.a will be created\n  + resource "terraform_data" "a" {\n      + id     = (known after apply)\n      + input  = "one"\n      + output = (known after apply)\n    }\n```',
    ].join('\n\n');
    assert.equal(await c.hover(uri, 0, 3), rendered);
    // Half-typed text: the configuration does not load; the last preview's lenses and hovers stay.
    await c.change(uri, 2, [{ text: text + 'resource "terraform_data" {\n' }]);
    const p2 = await c.nextPreview(ws.dir, p1.version);
    assert.equal(p2.complete, false);
    assert.equal(await c.hover(uri, 0, 3), rendered);
  } finally {
    await c.stop();
    ws.done();
  }
});
