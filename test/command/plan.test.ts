// End-to-end tests of plan/apply/destroy/taint/show PLANFILE run in-process through the CLI dispatcher, against
// outputs recorded from terraform 1.11.4 (test/data/command/scenarios.json, copied from the conformance corpus).
// One check helper replays a scenario's steps in a fresh directory and compares exit status, stdout and stderr
// after the corpus's normalisations that matter here (durations, UUIDs numbered by first appearance, runs of
// progress lines sorted, JSON versions and timestamps).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../server/cli/main';

interface Step {
  args?: string[];
  stdin?: string | null;
  env?: Record<string, string>;
  exit?: number;
  stdout?: string;
  stderr?: string;
  write?: { path: string; content: string };
  delete?: string;
}
interface Scenario {
  name: string;
  files: Record<string, string>;
  steps: Step[];
}

const PROGRESS = /: (Creating\.\.\.|Creation complete|Modifying\.\.\.|Modifications complete|Destroying\.\.\.|Destruction complete|Refreshing state\.\.\.)/;

function normaliser() {
  const ids = new Map<string, string>();
  return (s: string): string => {
    s = s.replace(/"terraform_version":"[^"]*"/g, '"terraform_version":"<TF_VERSION>"').replace(/"timestamp":"[^"]*"/g, '"timestamp":"<TIMESTAMP>"');
    s = s.replace(/(complete|errored) after \d+[hms0-9]*s/g, '$1 after <DURATION>');
    s = s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (u) => {
      if (!ids.has(u)) ids.set(u, `<UUID-${ids.size + 1}>`);
      return ids.get(u)!;
    });
    s = s.replace(/deposed object [0-9a-f]{8}/g, 'deposed object <DEPOSED>');
    // Stable-sort runs of progress lines by address.
    const lines = s.split('\n');
    const out: string[] = [];
    let run: string[] = [];
    const addr = (l: string) => l.replace(/\x1b\[[0-9;]*m/g, '').split(': ')[0].replace(/ \(deposed object .*\)$/, '');
    const flush = () => {
      out.push(...run.map((l, i) => ({ l, i })).sort((a, b) => (addr(a.l) < addr(b.l) ? -1 : addr(a.l) > addr(b.l) ? 1 : a.i - b.i)).map((x) => x.l));
      run = [];
    };
    for (const l of lines) {
      if (PROGRESS.test(l)) run.push(l);
      else {
        flush();
        out.push(l);
      }
    }
    flush();
    return out.join('\n');
  };
}

/** Replays a scenario; the recorded side was normalised by the corpus tools, ours is normalised here. */
async function check(sc: Scenario): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `fs-cmd-${sc.name}-`));
  try {
    for (const [p, t] of Object.entries(sc.files)) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      writeFileSync(join(dir, p), t);
    }
    const norm = normaliser();
    for (const [i, st] of sc.steps.entries()) {
      if (st.write) {
        writeFileSync(join(dir, st.write.path), st.write.content);
        continue;
      }
      if (st.delete) {
        rmSync(join(dir, st.delete), { recursive: true, force: true });
        continue;
      }
      let out = '';
      let err = '';
      const code = await main(st.args!, {
        stdin: async () => st.stdin ?? '',
        stdout: (s) => (out += s),
        stderr: (s) => (err += s),
        cwd: dir,
        env: { TF_IN_AUTOMATION: '1', ...(st.env ?? {}) },
      });
      const label = `${sc.name} step ${i} (${st.args!.join(' ')})`;
      const o = norm(out);
      const e = norm(err);
      assert.equal(code, st.exit, `${label}: exit status\n${e}`);
      assert.equal(o, st.stdout, `${label}: stdout`);
      assert.equal(e, st.stderr, `${label}: stderr`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const scenarios = JSON.parse(readFileSync(join(process.cwd(), 'test', 'data', 'command', 'scenarios.json'), 'utf8')) as Scenario[];
for (const sc of scenarios) test(`scenario ${sc.name}`, () => check(sc));
