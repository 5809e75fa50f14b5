// Language-server benchmark (part of `npm run bench`; alone: bundle this file and run it, it prints its table
// when it is the main module): the real server (dist/server.js over stdio, TestClient), a generated
// workspace of 5,000 terraform_data resources in 250 files, every resource reading `var.env` (declared in
// variables.tf), and the client opening all 250 files, the active one (f000.tf) first. Measured:
//   - cold open → first diagnostics of the active file (goal ≤ 150 ms) and → diagnostics of all files (≤ 1.5 s),
//     from the first didOpen to the arrival of the first publication for each file, in a fresh server process
//     (initialize excluded);
//   - cold open → code lenses of the active file (the preview plan, which follows the diagnostics);
//   - edit of one attribute → updated diagnostics (+ inlay hints when the server offers them), p95 over 200
//     edits (≤ 50 ms), from when the cold open's preview is shown: the edit alternately misspells and restores
//     an argument name of a resource, so each edit changes the provider diagnostics (a schema error) and must be
//     republished; debounce 0;
//   - hover p95 over 200 hovers (≤ 25 ms) and completion p95 (≤ 50 ms) while `var.env`'s default is being
//     edited, when the server offers them (otherwise "not offered");
//   - RSS of the server process (main thread and analysis worker) after 10,000 edits (≤ 300 MB), sampled
//     every 2,000 edits to show it does not grow. Edits are sent as a user types: a burst of 49, then a wait
//     for the diagnostics of the last one (superseded analyses are dropped by the server).
// Environment: FORESIGHT_BENCH_LSP_FILES / _PER_FILE (250 / 20), FORESIGHT_BENCH_LSP_RSS_EDITS (10000),
// FORESIGHT_BENCH_LSP_PREVIEW=0 (the server without its preview plan: the analysis path alone).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PREVIEW_DIAGNOSTIC_SOURCE } from '../../server/lsp/convert';
import { TestClient } from '../lsp/client';

export interface LspRow {
  what: string;
  value: string;
  goal?: string;
  ok?: boolean;
}

export function lspFileText(i: number, perFile: number): string {
  const out: string[] = [];
  for (let j = 0; j < perFile; j++) {
    const prev = j === 0 ? '' : `    prev = terraform_data.r${i}_${j - 1}.output\n`;
    out.push(
      `resource "terraform_data" "r${i}_${j}" {\n` +
        `  input = {\n` +
        `    env  = var.env\n` +
        `    name = "r${i}-${j}-\${var.env}"\n` +
        `    size = ${j + 1}\n` +
        prev +
        `  }\n` +
        `  triggers_replace = [var.env]\n` +
        `}\n`,
    );
  }
  return out.join('\n');
}

const VARIABLES = 'variable "env" {\n  type    = string\n  default = "dev"\n}\n';

/** Whether the analysis (not the preview plan, whose diagnostics follow its own schedule) reports an error. */
function analysisErrors(diags: readonly { source?: string }[]): boolean {
  return diags.some((d) => d.source !== PREVIEW_DIAGNOSTIC_SOURCE);
}

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}
const fmtMs = (ms: number) => (Number.isNaN(ms) ? 'n/a' : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`);

function rssMB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Position (0-based line, UTF-16 character) of `needle`'s start + `delta` in `text`. */
function positionOf(text: string, needle: string, delta = 0): { line: number; character: number } {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`not found: ${needle}`);
  const off = at + delta;
  const line = text.slice(0, off).split('\n').length - 1;
  return { line, character: off - (text.lastIndexOf('\n', off - 1) + 1) };
}

export async function benchLsp(opts: { keep?: boolean } = {}): Promise<LspRow[]> {
  const files = Number(process.env.FORESIGHT_BENCH_LSP_FILES ?? 250);
  const perFile = Number(process.env.FORESIGHT_BENCH_LSP_PER_FILE ?? 20);
  const rssEdits = Number(process.env.FORESIGHT_BENCH_LSP_RSS_EDITS ?? 10_000);
  const dir = mkdtempSync(join(tmpdir(), 'foresight-lsp-bench-'));
  const rows: LspRow[] = [];
  const texts = new Map<string, string>();
  for (let i = 0; i < files; i++) texts.set(`f${String(i).padStart(3, '0')}.tf`, lspFileText(i, perFile));
  texts.set('variables.tf', VARIABLES);
  for (const [n, t] of texts) writeFileSync(join(dir, n), t);
  const uri = (n: string) => pathToFileURL(join(dir, n)).href;
  const c = new TestClient();
  try {
    const preview = process.env.FORESIGHT_BENCH_LSP_PREVIEW !== '0';
    const init = await c.initialize({ textDocument: { inlayHint: {}, hover: {}, completion: {} } }, { debounceMs: 0, preview });
    const caps = init.capabilities;
    rows.push({ what: `lsp: workspace ${files} files, ${files * perFile} resources, all open${preview ? '' : ', preview off'}`, value: '' });

    // Cold open.
    const active = uri('f000.tf');
    const t0 = performance.now();
    await c.open(active, texts.get('f000.tf')!);
    for (const [n, t] of texts) if (n !== 'f000.tf') await c.open(uri(n), t);
    // Times of arrival, taken when each publication came in (the client is still sending the other 249 files when
    // the active file's first diagnostics arrive; looking only after sending them all measured the sending).
    await c.waitFor('first diagnostics of the active file', () => c.latest(active), 120_000);
    const tActive = c.firstArrival(active)! - t0;
    const all = [...texts.keys()].map(uri);
    await c.waitFor('diagnostics of every file', () => all.every((u) => c.latest(u)), 120_000);
    const tAll = Math.max(...all.map((u) => c.firstArrival(u)!)) - t0;
    const errs = c.published.flatMap((p) => p.diagnostics.filter((d) => d.severity === 1));
    if (errs.length) throw new Error(`the generated workspace has errors: ${errs[0].message}`);
    rows.push({ what: 'lsp: cold open → first diagnostics of the active file', value: fmtMs(tActive), goal: '≤ 150 ms', ok: tActive <= 150 });
    rows.push({ what: 'lsp: cold open → diagnostics of all files', value: fmtMs(tAll), goal: '≤ 1500 ms', ok: tAll <= 1500 });
    // The preview plan of the workspace follows the diagnostics (it waits for the directory's analysis): the time
    // to the active file's code lenses. The edits below start once it is there, so that they measure an edit's
    // path and not the rest of the cold open.
    if (preview && caps.codeLensProvider) {
      for (;;) {
        const lenses = await c.request<unknown[] | null>('textDocument/codeLens', { textDocument: { uri: active } });
        if (lenses?.length) break;
        if (performance.now() - t0 > 120_000) throw new Error('no code lenses within 120 s of the cold open');
        await new Promise((r) => setTimeout(r, 10));
      }
      rows.push({ what: 'lsp: cold open → preview plan shown (code lenses of the active file)', value: fmtMs(performance.now() - t0) });
    }

    // Edits: misspell / restore `triggers_replace` of one resource of the active file.
    let version = 1;
    const text0 = texts.get('f000.tf')!;
    const at = positionOf(text0, 'triggers_replace', 'triggers_replace'.length);
    const edit = (k: number) =>
      k % 2 === 0
        ? { range: { start: at, end: at }, text: 'x' }
        : { range: { start: at, end: { line: at.line, character: at.character + 1 } }, text: '' };
    const editMs: number[] = [];
    const hints = caps.inlayHintProvider !== undefined;
    for (let k = 0; k < 200; k++) {
      version++;
      const v = version;
      const t1 = performance.now();
      await c.change(active, v, [edit(k)]);
      const p = await c.waitFor(`diagnostics of version ${v}`, () => (c.latest(active)?.version === v ? c.latest(active) : undefined), 60_000);
      if (hints) await c.request('textDocument/inlayHint', { textDocument: { uri: active }, range: { start: { line: 0, character: 0 }, end: { line: 200, character: 0 } } });
      editMs.push(performance.now() - t1);
      if ((k % 2 === 0) !== analysisErrors(p.diagnostics)) throw new Error(`edit ${k}: unexpected diagnostics ${JSON.stringify(p.diagnostics)}`);
    }
    const p95e = percentile(editMs, 95);
    rows.push({ what: `lsp: edit → diagnostics${hints ? ' + inlay hints' : ' (inlay hints not offered)'} (p50, 200 edits)`, value: fmtMs(percentile(editMs, 50)) });
    rows.push({ what: `lsp: edit → diagnostics${hints ? ' + inlay hints' : ''} (p95)`, value: fmtMs(p95e), goal: '≤ 50 ms', ok: p95e <= 50 });

    // Hover.
    if (caps.hoverProvider) {
      const hoverMs: number[] = [];
      for (let k = 0; k < 200; k++) {
        const n = `f${String(k % files).padStart(3, '0')}.tf`;
        const pos = positionOf(texts.get(n)!, 'var.env', 5);
        const t1 = performance.now();
        await c.request('textDocument/hover', { textDocument: { uri: uri(n) }, position: pos });
        hoverMs.push(performance.now() - t1);
      }
      const p95h = percentile(hoverMs, 95);
      rows.push({ what: 'lsp: hover (p95, 200)', value: fmtMs(p95h), goal: '≤ 25 ms', ok: p95h <= 25 });
    } else rows.push({ what: 'lsp: hover', value: 'not offered' });

    // Completion while var.env's default is being edited (every resource reads it).
    if (caps.completionProvider) {
      const vars = uri('variables.tf');
      let vv = 1;
      const defAt = positionOf(VARIABLES, '"dev"', 4);
      const compMs: number[] = [];
      for (let k = 0; k < 200; k++) {
        vv++;
        const ch =
          k % 2 === 0
            ? { range: { start: defAt, end: defAt }, text: 'x' }
            : { range: { start: defAt, end: { line: defAt.line, character: defAt.character + 1 } }, text: '' };
        await c.change(vars, vv, [ch]);
        const n = `f${String((k * 7) % files).padStart(3, '0')}.tf`;
        const pos = positionOf(texts.get(n)!, 'var.env', 4);
        const t1 = performance.now();
        await c.request('textDocument/completion', { textDocument: { uri: uri(n) }, position: pos });
        compMs.push(performance.now() - t1);
      }
      const p95c = percentile(compMs, 95);
      rows.push({ what: 'lsp: completion while var.env is edited (p95, 200)', value: fmtMs(p95c), goal: '≤ 50 ms', ok: p95c <= 50 });
    } else rows.push({ what: 'lsp: completion', value: 'not offered' });

    // RSS after many edits.
    const samples: string[] = [];
    let last = NaN;
    const pid = c.proc.pid;
    rows.push({ what: 'lsp: RSS after cold open and the edits above', value: `${rssMB(pid).toFixed(0)} MB` });
    rows.push({ what: 'lsp: load average (1 min) during the run', value: readFileSync('/proc/loadavg', 'utf8').split(' ')[0] });
    for (let k = 0; k < rssEdits; k++) {
      version++;
      await c.change(active, version, [edit(k)]);
      // Bursts of 49 edits: the state after a burst alternates between misspelt and restored. The server
      // republishes only documents whose diagnostics changed, so when an analysis delivered during the burst
      // already showed the final state, version v gets no message of its own: either one ends the wait.
      if (k % 49 === 48) {
        const v = version;
        const misspelt = k % 2 === 0;
        await c.waitFor(`diagnostics of version ${v}`, () => {
          const l = c.latest(active);
          return l && (l.version === v || analysisErrors(l.diagnostics) === misspelt) ? l : undefined;
        }, 60_000);
      }
      if (k % 2000 === 1999) {
        last = rssMB(pid);
        samples.push(`${last.toFixed(0)}`);
      }
    }
    if (rssEdits % 2 === 1) {
      version++;
      await c.change(active, version, [edit(1)]);
    }
    rows.push({ what: `lsp: RSS every 2,000 edits (MB)`, value: samples.join(' → ') });
    rows.push({ what: `lsp: RSS after ${rssEdits.toLocaleString('en-US')} edits`, value: `${last.toFixed(0)} MB`, goal: '≤ 300 MB', ok: last <= 300 });
    if (!c.alive) throw new Error('the server exited');
  } finally {
    await c.stop();
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (/lsp-bench\.js$/.test(process.argv[1] ?? '')) {
  void benchLsp({ keep: process.argv.includes('--keep') }).then(
    (rows) => {
      for (const r of rows) console.log(`| ${r.what} | ${r.value} | ${r.goal ?? ''} | ${r.ok === undefined ? '' : r.ok ? 'yes' : 'NO'} |`);
    },
    (e) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
