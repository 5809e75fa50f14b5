// The analysis worker thread's scheduling priority (server/lsp/analysisWorker.ts lowerWorkerPriority): on Linux,
// where the nice value is per thread, the server's worker thread runs at ANALYSIS_WORKER_NICE after its first analysis
// while the main thread keeps the process's value. Elsewhere the test is skipped with a notice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ANALYSIS_WORKER_NICE } from '../../server/lsp/analysisWorker';
import { TestClient } from './client';

/** The nice value of each thread of process `pid` (from /proc), by thread id. */
function threadNice(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const st = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      out.set(Number(t), Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

test('the analysis worker thread runs at a lower priority than the main thread', async (t) => {
  if (process.platform !== 'linux' || !existsSync('/proc/self/task')) {
    console.log('# skipped: per-thread nice values are read from Linux /proc');
    t.skip('not Linux');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'foresight-priority-'));
  writeFileSync(join(dir, 'main.tf'), 'variable "a" {\n  default = 1\n}\n\nlocals {\n  b = var.a + 1\n}\n');
  const c = new TestClient();
  try {
    await c.initialize({}, { debounceMs: 0 });
    const uri = pathToFileURL(join(dir, 'main.tf')).href;
    await c.open(uri, readFileSync(join(dir, 'main.tf'), 'utf8'));
    // The directory's analysis (from the worker) has run once it reports its status.
    await c.waitFor('the analysis status', () => (c.statuses.length ? c.statuses : undefined), 60_000);
    const pid = c.proc.pid!;
    const nice = threadNice(pid);
    const main = nice.get(pid);
    assert.equal(main, 0, 'the main thread keeps the process priority');
    assert.ok([...nice.values()].includes(ANALYSIS_WORKER_NICE), `a thread at nice ${ANALYSIS_WORKER_NICE}: ${JSON.stringify([...nice])}`);
  } finally {
    await c.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
