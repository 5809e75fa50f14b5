// The preview plan after an edit, over stdio (issue 7 bench goal: edit → updated diagnostics and inlay hints,
// p95 ≤ 50 ms end to end at 5,000 resources). The language server (dist/server.js --stdio, preview on, debounce 0)
// on FORESIGHT_BENCH_PREVIEW_FILES files × FORESIGHT_BENCH_PREVIEW_PER_FILE terraform_data resources (default
// 250 × 20 = 5,000, the lsp-bench workspace), applied; one file is open. Each of FORESIGHT_BENCH_PREVIEW_EDITS edits (default
// 200) changes one attribute of one resource, starting FORESIGHT_BENCH_PREVIEW_PAUSE_MS (default 1000) after the
// cold open's preview is shown, as a user reads it before typing (the server primes the edit path in that idle time,
// preview/worker.ts primePreview); the time runs from didChange to the next preview's notification and
// the textDocument/inlayHint answer after it (checked to differ from the previous edit's). Because wall time on a
// shared machine says little, the server process's CPU time per edit (all its threads, from /proc) and its RSS
// before and after the edits are reported too.
// `npm run bench` includes it (bench.ts); alone: bundle this file with esbuild and run it with node.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { InlayHint } from 'vscode-languageserver-protocol';
import { PreviewClient } from '../lsp/preview-client';
import { lspFileText, type LspRow } from './lsp-bench';

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}
const fmtMs = (ms: number) => (Number.isNaN(ms) ? 'n/a' : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`);

/** CPU time (user + system, all threads) of a process so far, in ms; NaN where /proc is not there. */
function cpuMs(pid: number | undefined): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return ((Number(rest[11]) + Number(rest[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN;
  }
}

function rssMB(pid: number | undefined): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

export async function benchPreview(opts: { keep?: boolean } = {}): Promise<LspRow[]> {
  const files = Number(process.env.FORESIGHT_BENCH_PREVIEW_FILES ?? 250);
  const perFile = Number(process.env.FORESIGHT_BENCH_PREVIEW_PER_FILE ?? 20);
  const edits = Number(process.env.FORESIGHT_BENCH_PREVIEW_EDITS ?? 200);
  const dir = mkdtempSync(join(tmpdir(), 'foresight-preview-bench-'));
  const rows: LspRow[] = [];
  for (let i = 0; i < files; i++) writeFileSync(join(dir, `f${String(i).padStart(3, '0')}.tf`), lspFileText(i, perFile));
  writeFileSync(join(dir, 'variables.tf'), 'variable "env" {\n  type    = string\n  default = "dev"\n}\n');
  // Applied first, so an edit is an update whose hints show prior → planned values.
  const applied = spawnSync(process.execPath, [join(process.cwd(), 'dist', 'cli.js'), 'apply', '-auto-approve', '-input=false', '-no-color'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (applied.status !== 0) throw new Error(`apply failed (${applied.status ?? applied.signal}): ${applied.stderr}`);
  const name = 'f000.tf';
  const uri = pathToFileURL(join(dir, name)).href;
  const base = lspFileText(0, perFile);
  const c = new PreviewClient();
  try {
    await c.initialize({ textDocument: { inlayHint: {}, hover: {} } }, { debounceMs: 0, previewDebounceMs: 0, preview: true });
    const t0 = performance.now();
    await c.open(uri, base);
    const first = await c.waitFor('the first preview', () => c.previews.find((p) => p.directory === dir), 300_000);
    rows.push({ what: `preview: workspace ${files} files, ${files * perFile} resources, one open`, value: '' });
    rows.push({ what: 'preview: open → first preview (cold, every PlanResourceChange made)', value: fmtMs(performance.now() - t0) });
    let version = first.version;
    const times: number[] = [];
    const hints = async () =>
      (await c.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 100_000, character: 0 } } })).map(
        (h) => `${h.position.line}:${typeof h.label === 'string' ? h.label : h.label.map((l) => l.value).join('')}`,
      );
    let before = JSON.stringify(await hints());
    const pause = Number(process.env.FORESIGHT_BENCH_PREVIEW_PAUSE_MS ?? 1000);
    await new Promise((r) => setTimeout(r, pause));
    const pid = c.proc.pid;
    const rss0 = rssMB(pid);
    const cpus: number[] = [];
    for (let k = 0; k < edits; k++) {
      // One attribute of one resource (cycling through the open file's resources): `size = j+1` → a new number.
      const j = k % perFile;
      const size = 100_000 + k;
      const text = base.replace(`"r0-${j}-\${var.env}"\n    size = ${j + 1}\n`, `"r0-${j}-\${var.env}"\n    size = ${size}\n`);
      const t = performance.now();
      const cpu0 = cpuMs(pid);
      await c.change(uri, k + 2, [{ text }]);
      // (PreviewClient.nextPreview gives up after 20 s: a preview of 5,000 resources on a busy machine takes longer.)
      const after = version;
      version = (await c.waitFor(`a preview after version ${after}`, () => c.previews.find((p) => p.directory === dir && p.version > after), 600_000)).version;
      const now = JSON.stringify(await hints());
      times.push(performance.now() - t);
      cpus.push(cpuMs(pid) - cpu0);
      // Every edit changes a planned value, so its hints must differ from the previous edit's.
      if (now === before) throw new Error(`edit ${k}: the inlay hints did not change`);
      before = now;
    }
    const p95 = percentile(times, 95);
    rows.push({ what: `preview: edit one attribute → updated inlay hints (p50, ${edits} edits from ${pause} ms after the first preview)`, value: fmtMs(percentile(times, 50)) });
    rows.push({ what: 'preview: edit one attribute → updated inlay hints (p95)', value: fmtMs(p95), goal: '≤ 50 ms', ok: p95 <= 50 });
    rows.push({ what: 'preview: server CPU per edit, all threads (p50 / p95, 10 ms ticks)', value: `${fmtMs(percentile(cpus, 50))} / ${fmtMs(percentile(cpus, 95))}` });
    rows.push({ what: `preview: server RSS before / after the ${edits} edits`, value: `${rss0.toFixed(0)} / ${rssMB(pid).toFixed(0)} MB` });
  } finally {
    await c.stop();
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
