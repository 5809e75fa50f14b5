// Benchmark (`npm run bench`, bundled to dist/bench.js): a generated workspace of 5,000 terraform_data
// resources in 250 files (variables, locals, references between resources, count and for_each), measured
//   1. cold: parse + model + static checks (config/validate.ts) and evaluation of every resource instance's
//      arguments, the first time in a fresh process (goal ≤ 1.5 s);
//   2. after a one-attribute edit, 50 times (goal p95 ≤ 30 ms): the edited file re-parsed incrementally
//      (syntax/document.ts) with its syntax diagnostics, as the language server's fast path does before it
//      publishes syntax errors; the incremental re-analysis (config/analysis.ts ModuleAnalysis.update with
//      the text change: the edited file re-parsed incrementally and re-extracted, the model re-assembled
//      from cached files, static checks and count/for_each checks, i.e. every diagnostic validate reports;
//      after ModuleAnalysis.prime, as the language server's analysis worker primes a directory after its
//      first analysis, in idle time, so that the first edits do not run before V8 has optimised that path);
//      and, for comparison, a full re-analysis (validateDirectory with the edited text as an overlay, then
//      re-evaluation of every instance; measured after the incremental edits, on as many of the same edits as
//      fit in 20 seconds, so that its garbage does not fall due during an incremental edit);
//      and, through the real language server (dist/server.js over stdio), the time from an edit that breaks
//      or mends the syntax of a file to its diagnostics (the server's fast syntax path);
//   3. the engine benchmarks (engine-bench.ts): plan, apply and no-op plan of N terraform_data through the real
//      command line against terraform, bytes written by an apply, a slow provider at -parallelism=10;
//   4. `terraform validate` on the same workspace, when terraform is on PATH (after an offline `terraform
//      init`: the workspace uses only the built-in terraform provider).
// Prints one table. Options: --files N --per-file N --edits N --keep (leave the workspace on disk),
// --only engine (only part 3; see engine-bench.ts for its environment variables), --only analysis (only the
// in-process measurements of parts 1 and 2, with CPU time beside wall time).

import { benchObjchange } from './objchange-bench';
import { benchProviderCalls } from './provider-bench';
import { benchEngine } from './engine-bench';
import { benchLsp } from './lsp-bench';
import { benchPlugin } from './plugin-bench';
import { benchPluginClient } from './plugin-client-bench';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ModuleAnalysis } from '../../server/config/analysis';
import { PRIME_ROUNDS } from '../../server/lsp/engine';
import { finalizeRootVariables, ModuleEvaluator, countValue, forEachValue } from '../../server/config/evaluate';
import type { Module } from '../../server/config/model';
import { validateDirectory } from '../../server/config/validate';
import type { Diagnostic } from '../../server/diags/diagnostic';
import { evaluate } from '../../server/lang/eval';
import { Value } from '../../server/lang/value';
import { ParsedDocument } from '../../server/syntax/document';
import { initParser, parserReady } from '../../server/syntax/treesitter';
import { TestClient } from '../lsp/client';

interface Options {
  files: number;
  perFile: number;
  edits: number;
  keep: boolean;
  /** --only engine: run only the engine benchmarks; --only analysis: only parts 1 and 2 (in-process). */
  only?: 'engine' | 'analysis';
}

function options(argv: string[]): Options {
  const o: Options = { files: 250, perFile: 20, edits: 50, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--files') o.files = Number(argv[++i]);
    else if (a === '--per-file') o.perFile = Number(argv[++i]);
    else if (a === '--edits') o.edits = Number(argv[++i]);
    else if (a === '--keep') o.keep = true;
    else if (a === '--only') {
      const what = argv[++i];
      if (what !== 'engine' && what !== 'analysis') throw new Error(`--only: unknown part ${what} (known: engine, analysis)`);
      o.only = what;
    }
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

// ---- workspace ---------------------------------------------------------------------------------------------

/** Resource j of file i uses for_each when j % 4 == 0, count otherwise. */
const usesForEach = (j: number) => j % 4 === 0;

function fileText(i: number, perFile: number): string {
  const out: string[] = [];
  out.push(`variable "size_${i}" {\n  type    = number\n  default = ${(i % 5) + 1}\n}\n`);
  out.push(`locals {\n  names_${i}  = toset(["a", "b", "c"])\n  prefix_${i} = "f${i}-\${var.size_${i}}"\n  double_${i} = var.size_${i} * 2\n}\n`);
  for (let j = 0; j < perFile; j++) {
    const prev = j === 0 ? undefined : usesForEach(j - 1) ? `terraform_data.r${i}_${j - 1}["a"].output` : `terraform_data.r${i}_${j - 1}[0].output`;
    const meta = usesForEach(j) ? `  for_each = local.names_${i}\n` : `  count = ${j % 3 === 0 ? `local.double_${i}` : '1'}\n`;
    const key = usesForEach(j) ? 'each.key' : 'count.index';
    out.push(
      `resource "terraform_data" "r${i}_${j}" {\n${meta}` +
        `  input = {\n` +
        `    name  = "\${local.prefix_${i}}-${j}-\${${key}}"\n` +
        `    tag   = "t${i}_${j}"\n` +
        `    size  = var.size_${i} + ${j}\n` +
        `    parts = [for n in local.names_${i} : upper(n) if n != "b"]\n` +
        (prev ? `    prev  = ${prev}\n` : '') +
        `  }\n}\n`,
    );
  }
  out.push(`output "first_${i}" {\n  value = terraform_data.r${i}_0["a"].output\n}\n`);
  return out.join('\n');
}

function writeWorkspace(o: Options): string {
  const dir = mkdtempSync(join(tmpdir(), 'foresight-bench-'));
  for (let i = 0; i < o.files; i++) writeFileSync(join(dir, `f${String(i).padStart(3, '0')}.tf`), fileText(i, o.perFile));
  return dir;
}

// ---- evaluation --------------------------------------------------------------------------------------------

/** Evaluates every local, output and resource instance argument of `mod`; returns instance count. */
function evaluateModule(mod: Module, dir: string, diags: Diagnostic[]): number {
  const fin = finalizeRootVariables(mod, new Map());
  diags.push(...fin.diagnostics);
  const ev = new ModuleEvaluator(mod, fin.inputs, { cwd: dir, workspace: 'default' }, diags);
  ev.evaluateAll();
  let instances = 0;
  for (const r of mod.resources) {
    const list: { countIndex?: Value; each?: { key: Value; value: Value } }[] = [];
    if (r.count) {
      const v = evaluate(r.count.ast, ev.scope());
      diags.push(...v.diagnostics);
      const c = countValue(v.value, r.count.range);
      diags.push(...c.diagnostics);
      for (let k = 0; k < (c.count ?? 0); k++) list.push({ countIndex: Value.number(k) });
    } else if (r.forEach) {
      const v = evaluate(r.forEach.ast, ev.scope());
      diags.push(...v.diagnostics);
      const f = forEachValue(v.value, r.forEach.range);
      diags.push(...f.diagnostics);
      for (const [k, val] of f.entries ?? []) list.push({ each: { key: Value.string(k), value: val } });
    } else list.push({});
    for (const inst of list) {
      const scope = ev.scope(inst);
      for (const a of r.config.attributes) diags.push(...evaluate(a.expr.ast, scope).diagnostics);
      instances++;
    }
  }
  return instances;
}

// ---- measurement -------------------------------------------------------------------------------------------

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

const fmtMs = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;

/** This process's CPU time (user + system) in milliseconds: the machine is shared, so wall time alone misleads. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** "W ms (CPU C ms)". */
const fmtWallCpu = (wall: number, cpu: number) => `${fmtMs(wall)} (CPU ${fmtMs(cpu)})`;

interface Row {
  what: string;
  value: string;
  goal?: string;
  ok?: boolean;
}

function table(rows: Row[]): string {
  const w0 = Math.max(...rows.map((r) => r.what.length), 'measurement'.length);
  const w1 = Math.max(...rows.map((r) => r.value.length), 'result'.length);
  const w2 = Math.max(...rows.map((r) => (r.goal ?? '').length), 'goal'.length);
  const line = (a: string, b: string, c: string, d: string) => `| ${a.padEnd(w0)} | ${b.padStart(w1)} | ${c.padEnd(w2)} | ${d.padEnd(4)} |`;
  const out = [line('measurement', 'result', 'goal', 'met'), `|${'-'.repeat(w0 + 2)}|${'-'.repeat(w1 + 2)}|${'-'.repeat(w2 + 2)}|------|`];
  for (const r of rows) out.push(line(r.what, r.value, r.goal ?? '', r.ok === undefined ? '' : r.ok ? 'yes' : 'NO'));
  return out.join('\n');
}

function terraformOnPath(): boolean {
  return spawnSync('terraform', ['version'], { stdio: 'ignore' }).status === 0;
}

function timeTerraform(dir: string, rows: Row[]): void {
  const env = { ...process.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: '/dev/null' };
  const t0 = performance.now();
  const init = spawnSync('terraform', ['init', '-backend=false', '-input=false', '-no-color'], { cwd: dir, env, encoding: 'utf8' });
  const initMs = performance.now() - t0;
  if (init.status !== 0) {
    rows.push({ what: 'terraform init', value: `failed (${(init.stderr || init.stdout).trim().split('\n')[0]})` });
    return;
  }
  rows.push({ what: 'terraform init (offline, built-in provider)', value: fmtMs(initMs) });
  const runs: number[] = [];
  let last = '';
  for (let k = 0; k < 3; k++) {
    const t1 = performance.now();
    const r = spawnSync('terraform', ['validate', '-no-color'], { cwd: dir, env, encoding: 'utf8' });
    runs.push(performance.now() - t1);
    last = r.status === 0 ? 'valid' : `exit ${r.status}: ${(r.stdout + r.stderr).trim().split('\n').slice(0, 3).join(' ')}`;
  }
  rows.push({ what: `terraform validate (median of 3; ${last})`, value: fmtMs(percentile(runs, 50)) });
}

/** Alternately breaks and mends one attribute of one file through the language server; returns latencies. */
async function measureServer(dir: string, o: Options): Promise<number[]> {
  const c = new TestClient();
  const out: number[] = [];
  try {
    await c.initialize({}, { debounceMs: 0 });
    const path = join(dir, 'f000.tf');
    const uri = pathToFileURL(path).href;
    const text = fileText(0, o.perFile);
    await c.open(uri, text);
    const needle = 'tag   = "t0_0"';
    const at = text.indexOf(needle) + needle.length;
    const line = text.slice(0, at).split('\n').length - 1;
    const character = at - (text.lastIndexOf('\n', at - 1) + 1);
    const broken = ' ='; // "Missing newline after argument"-style error: a second `=` on the line
    for (let e = 0; e < o.edits; e++) {
      const version = e + 2;
      const change =
        e % 2 === 0
          ? { range: { start: { line, character }, end: { line, character } }, text: broken }
          : { range: { start: { line, character }, end: { line, character: character + broken.length } }, text: '' };
      const t0 = performance.now();
      await c.change(uri, version, [change]);
      const p = await c.waitFor(`diagnostics of version ${version}`, () => (c.latest(uri)?.version === version ? c.latest(uri) : undefined), 60_000);
      out.push(performance.now() - t0);
      if ((e % 2 === 0) !== p.diagnostics.length > 0) throw new Error(`edit ${e}: unexpected diagnostics ${JSON.stringify(p.diagnostics)}`);
    }
  } finally {
    await c.stop();
  }
  return out;
}

/** Parts 1 and 2 of the benchmark (see the top of this file): cold and warm analysis, then edits. */
async function measureAnalysis(dir: string, o: Options, rows: Row[], resources: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  // Part 1 runs in a function of its own: its cold and warm results are garbage before the edits are measured
  // (the edits' garbage collections would otherwise mark them too, as no editor session holds them).
  await (async () => {
    // 1. Cold: everything for the first time in this process, as `foresight validate` does it: the load starts
    // tree-sitter's WebAssembly only when a file needs it (one the fast lane does not read), and none of the
    // generated files does; the start-up is measured on its own below, for the edits, which need it.
    const t0 = performance.now();
    const c0 = cpuMs();
    const v = await validateDirectory(dir, { overlays: new Map() });
    const tValidate = performance.now();
    const parserWasReady = parserReady();
    if (!v.module) throw new Error('the workspace did not load');
    const diags = [...v.diagnostics];
    const instances = evaluateModule(v.module, dir, diags);
    const tEval = performance.now();
    const cEval = cpuMs();
    const errors = diags.filter((d) => d.severity === 'error');
    if (errors.length) {
      console.error(`the generated workspace has ${errors.length} errors; first: ${errors[0].summary}: ${errors[0].detail ?? ''}`);
      process.exitCode = 1;
    }
    const cold = tEval - t0;
    rows.push({ what: `workspace: ${o.files} files, ${resources} resources, ${instances} instances`, value: '' });
    rows.push({ what: 'cold: parse + model + static checks', value: fmtMs(tValidate - t0) });
    rows.push({ what: 'cold: evaluate every instance', value: fmtMs(tEval - tValidate) });
    rows.push({ what: 'cold: total (wall, and this process\'s CPU time)', value: fmtWallCpu(cold, cEval - c0), goal: '≤ 1500 ms', ok: cold <= 1500 });
    const tp = performance.now();
    await initParser();
    rows.push({ what: `tree-sitter start-up (WebAssembly)${parserWasReady ? ', already done by the cold load' : ', after the cold load: the edits need it'}`, value: fmtMs(performance.now() - tp) });

    // Warm: the same again, now that the code is compiled.
    gc?.();
    const tw = performance.now();
    const cw = cpuMs();
    const v2 = await validateDirectory(dir, { overlays: new Map() });
    evaluateModule(v2.module!, dir, []);
    rows.push({ what: 'warm: full re-analysis (validate + evaluate)', value: fmtWallCpu(performance.now() - tw, cpuMs() - cw) });
  })();
  gc?.();

  // 2. Edits: one attribute of one resource, in a different file each time.
  const incremental: number[] = [];
  const analysisMs: number[] = [];
  const analysisCpu: number[] = [];
  const full: number[] = [];
  const analysis = new ModuleAnalysis(dir);
  const first = await analysis.analyze();
  if (first.diagnostics.length) throw new Error(`incremental analysis: ${first.diagnostics[0].summary}`);
  // As the language server's analysis worker does after a directory's first analysis (lsp/engine.ts prime).
  const tPrime = performance.now();
  await analysis.prime(PRIME_ROUNDS);
  const primeMs = performance.now() - tPrime;
  // The texts after each edit, for the full re-analysis measured afterwards.
  const edited: { path: string; text: string }[] = [];
  for (let e = 0; e < o.edits; e++) {
    const i = (e * 37) % o.files;
    const j = (e * 11) % o.perFile;
    const path = join(dir, `f${String(i).padStart(3, '0')}.tf`);
    const text = fileText(i, o.perFile);
    const doc = new ParsedDocument(path, text);
    try {
      const needle = `tag   = "t${i}_${j}"`;
      const at = text.indexOf(needle) + needle.length - 1; // just before the closing quote
      const line = text.slice(0, at).split('\n').length - 1;
      const character = at - (text.lastIndexOf('\n', at - 1) + 1);
      const t1 = performance.now();
      doc.applyChanges([{ range: { start: { line, character }, end: { line, character } }, text: `-edit${e}` }]);
      const syn = doc.diagnostics();
      const t2 = performance.now();
      if (syn.length) throw new Error(`edit ${e} produced syntax errors: ${syn[0].summary}`);
      incremental.push(t2 - t1);

      const ta = performance.now();
      const ca = cpuMs();
      const ra = await analysis.update(path, [{ range: { start: { line, character }, end: { line, character } }, text: `-edit${e}` }]);
      analysisMs.push(performance.now() - ta);
      analysisCpu.push(cpuMs() - ca);
      if (ra.diagnostics.length) throw new Error(`edit ${e}: incremental analysis reported ${ra.diagnostics[0].summary}`);

      edited.push({ path, text: doc.text });
    } finally {
      doc.dispose();
    }
  }
  analysis.dispose();
  // The full re-analysis of the same edits, until FULL_BUDGET_MS is spent (it can take seconds per edit),
  // measured apart: the garbage of each (hundreds of MB) must not fall due during an incremental edit.
  const FULL_BUDGET_MS = 20_000;
  let fullSpent = 0;
  for (const { path, text } of o.only === 'analysis' ? [] : edited) {
    if (fullSpent >= FULL_BUDGET_MS) break;
    gc?.();
    const t3 = performance.now();
    const r = await validateDirectory(dir, { overlays: new Map([[path, text]]) });
    evaluateModule(r.module!, dir, []);
    full.push(performance.now() - t3);
    fullSpent += full[full.length - 1];
  }
  const p95i = percentile(incremental, 95);
  const p95a = percentile(analysisMs, 95);
  const p95f = percentile(full, 95);
  rows.push({ what: `edit: server fast path: incremental re-parse + syntax check (p50, ${o.edits} edits)`, value: fmtMs(percentile(incremental, 50)) });
  rows.push({ what: `edit: server fast path: incremental re-parse + syntax check (p95)`, value: fmtMs(p95i), goal: '≤ 30 ms', ok: p95i <= 30 });
  rows.push({ what: `edit: priming after the first analysis (ModuleAnalysis.prime, ${PRIME_ROUNDS} rounds, idle time)`, value: fmtMs(primeMs) });
  rows.push({ what: `edit: incremental re-analysis, ModuleAnalysis.update → all diagnostics (p50, ${o.edits} edits)`, value: fmtMs(percentile(analysisMs, 50)) });
  rows.push({ what: `edit: incremental re-analysis, ModuleAnalysis.update → all diagnostics (p95)`, value: fmtMs(p95a), goal: '≤ 30 ms', ok: p95a <= 30 });
  rows.push({ what: `edit: incremental re-analysis, CPU time (p50 / p95)`, value: `${fmtMs(percentile(analysisCpu, 50))} / ${fmtMs(percentile(analysisCpu, 95))}` });
  if (full.length) {
    rows.push({ what: `edit: full re-analysis, validate + evaluate every instance (p50, ${full.length} edits)`, value: fmtMs(percentile(full, 50)) });
    rows.push({ what: `edit: full re-analysis, validate + evaluate every instance (p95)`, value: fmtMs(p95f) });
  }
  gc?.();
  rows.push({ what: 'heap used after the run (after a full GC: the incremental analysis was disposed)', value: `${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB` });
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  if (o.only === 'engine') {
    console.log(table(await benchEngine({ keep: o.keep })));
    return;
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  const dir = writeWorkspace(o);
  const resources = o.files * o.perFile;
  const rows: Row[] = [];
  try {
    // 1 and 2, in a function of their own: what they keep alive is garbage once it returns, and is collected
    // before the other parts run (a heap of gigabytes would have the garbage collector compete with them).
    await measureAnalysis(dir, o, rows, resources);
    gc?.();
    if (o.only === 'analysis') {
      console.log(table(rows));
      return;
    }

    // The same kind of edit through the real language server (dist/server.js over stdio, no debounce): the
    // time from sending an edit that breaks (or mends) the syntax to receiving its diagnostics.
    const lsp = await measureServer(dir, o);
    rows.push({ what: `edit: language server, edit → syntax diagnostics published (p50, ${lsp.length} edits)`, value: fmtMs(percentile(lsp, 50)) });
    const p95s = percentile(lsp, 95);
    rows.push({ what: 'edit: language server, edit → syntax diagnostics published (p95)', value: fmtMs(p95s), goal: '≤ 30 ms', ok: p95s <= 30 });

    // Provider hooks: the contract functions and calls through the provider interface.
    const oc = benchObjchange();
    rows.push({ what: 'objchange: ProposedNew, 200 attributes, 3 block levels (per call)', value: fmtMs(oc.proposedNewMs), goal: '≤ 0.2 ms', ok: oc.proposedNewMs <= 0.2 });
    rows.push({ what: 'objchange: plan validity, same resource (per call)', value: fmtMs(oc.planValidMs), goal: '≤ 0.2 ms', ok: oc.planValidMs <= 0.2 });
    const pc = await benchProviderCalls();
    const perSec = (n: number) => `${Math.round(n).toLocaleString('en-US')} calls/s`;
    rows.push({ what: 'random_string ValidateResourceConfig, in-process', value: perSec(pc.validatePerSec) });
    rows.push({ what: 'random_string PlanResourceChange, in-process', value: perSec(pc.planPerSec) });
    rows.push({ what: 'random_string ValidateResourceConfig, through the JSON wire form', value: perSec(pc.wireValidatePerSec) });
    rows.push({ what: 'random_string PlanResourceChange, through the JSON wire form', value: perSec(pc.wirePlanPerSec) });

    // Engine: plan / apply / no-op plan through the real command line, against terraform.
    rows.push(...(await benchEngine({ keep: o.keep })));
    rows.push(...(await benchPlugin()));
    rows.push(...(await benchPluginClient())); // the plugin client: start, PlanResourceChange round trip, flat-1000 apply vs terraform
    rows.push(...(await (await import('./pg-bench')).benchPg())); // pg state backend vs terraform (pg-bench.ts)
    rows.push(...(await benchLsp({ keep: o.keep }))); // the language server over stdio (lsp-bench.ts)
    rows.push(...(await (await import('./preview-bench')).benchPreview({ keep: o.keep }))); // preview plan after an edit over stdio (preview-bench.ts)
    rows.push(...(await (await import('./lsp-aws-bench')).benchLspAws())); // editor latencies with the real aws provider (lsp-aws-bench.ts)

    // 4. Terraform, for comparison.
    if (terraformOnPath()) {
      const version = execFileSync('terraform', ['version'], { encoding: 'utf8', env: { ...process.env, TF_CLI_CONFIG_FILE: '/dev/null' } }).split('\n')[0];
      rows.push({ what: `${version}:`, value: '' });
      timeTerraform(dir, rows);
    } else rows.push({ what: 'terraform validate', value: 'terraform not on PATH' });

    console.log(table(rows));
    if (o.keep) console.log(`workspace kept at ${dir}`);
  } finally {
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exitCode = 1;
});
