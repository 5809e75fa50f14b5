// The state verbs (output, show, state *, workspace *, force-unlock) against recordings of terraform 1.11.4:
// test/data/cli/cases.json lists the cases (a fixture directory and command lines run in order), recorded.json
// holds what terraform printed, returned and left on disk (record.py re-records it with a real terraform).
// Each case is replayed in-process through the CLI dispatcher in a fresh temporary directory; exit code, stdout,
// stderr and the state files after each step must match byte for byte after the normalisation below, except for
// the steps listed in known-differences.txt (each with its reason). The number of passing steps may not drop.
//
// Normalisation (as the scenario corpus does): lineages become <LINEAGE-n> by first appearance (new workspaces get
// random lineages), the working directory's path becomes <WORKDIR>, and runs of list lines ("  - addr", "  addr") are sorted (Terraform prints them in map order).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { main } from '../../server/cli/main';

const DATA = join(process.cwd(), 'test/data/cli');

interface Case {
  name: string;
  fixture: string | null;
  files?: Record<string, string>;
  steps: string[][];
}
interface Step {
  args: string[];
  exit_code: number;
  stdout: string;
  stderr: string;
  files?: Record<string, string>;
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const rel = relative(dir, p);
        if (rel === 'terraform.tfstate' || rel === 'custom.tfstate' || rel.startsWith('terraform.tfstate.d/') || rel.startsWith('wsd/') || rel === join('.terraform', 'environment'))
          out[rel] = readFileSync(p, 'utf8');
      }
    }
  };
  walk(dir);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

class Normaliser {
  private lineages = new Map<string, string>();
  text(s: string): string {
    s = s.replace(/"lineage": "([0-9a-f-]{36})"/g, (_m, l: string) => {
      if (!this.lineages.has(l)) this.lineages.set(l, `<LINEAGE-${this.lineages.size + 1}>`);
      return `"lineage": "${this.lineages.get(l)}"`;
    });
    for (const [l, p] of this.lineages) s = s.split(l).join(p);
    const lines = s.split('\n');
    const isItem = (l: string) => /^(?:\x1b\[\d+m)*(?:│(?:\x1b\[\d+m)* (?:\x1b\[\d+m)*)? {2}(?:- )?[A-Za-z_][\w.[\]"-]*(?: \(deposed object \w+\))?$/.test(l);
    for (let i = 0; i < lines.length; ) {
      if (!isItem(lines[i])) {
        i++;
        continue;
      }
      let j = i;
      while (j < lines.length && isItem(lines[j])) j++;
      const run = lines.slice(i, j).sort();
      lines.splice(i, j - i, ...run);
      i = j;
    }
    return lines.join('\n');
  }
  files(f: Record<string, string>): string {
    return JSON.stringify(Object.fromEntries(Object.entries(f).map(([k, v]) => [k, this.text(v)])), null, 1);
  }
}

const cases = JSON.parse(readFileSync(join(DATA, 'cases.json'), 'utf8')) as Case[];
const recorded = JSON.parse(readFileSync(join(DATA, 'recorded.json'), 'utf8')) as { name: string; steps: Step[] }[];
const known = new Set(
  readFileSync(join(DATA, 'known-differences.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.split(/\s+/).slice(0, 2).join(' ')),
);

/** Steps that must keep passing: every recorded step minus the known differences. */
const FLOOR = recorded.reduce((n, c) => n + c.steps.length, 0) - known.size;

let passing = 0;

for (const c of cases) {
  const rec = recorded.find((r) => r.name === c.name);
  test(`state verbs: ${c.name}`, async () => {
    assert.ok(rec, `no recording for ${c.name}`);
    const root = mkdtempSync(join(tmpdir(), 'foresight-stateverbs-'));
    const work = join(root, 'work');
    try {
      if (c.fixture) cpSync(join(DATA, 'fixtures', c.fixture), work, { recursive: true });
      else mkdirSync(work);
      for (const [n, content] of Object.entries(c.files ?? {})) writeFileSync(join(work, n), content);
      const nExp = new Normaliser();
      const nGot = new Normaliser();
      let expFiles = snapshot(work);
      let gotFiles = expFiles;
      nExp.files(expFiles);
      nGot.files(gotFiles);
      const failures: string[] = [];
      for (let i = 0; i < c.steps.length; i++) {
        const want = rec!.steps[i];
        let stdout = '';
        let stderr = '';
        const code = await main(c.steps[i], {
          stdin: async () => '',
          stdout: (s) => void (stdout += s),
          stderr: (s) => void (stderr += s),
          cwd: work,
          env: { TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' },
        });
        if (want.files) expFiles = want.files;
        gotFiles = snapshot(work);
        const bad: string[] = [];
        if (code !== want.exit_code) bad.push(`exit ${code} != ${want.exit_code}`);
        stdout = stdout.split(work).join('<WORKDIR>');
        stderr = stderr.split(work).join('<WORKDIR>');
        if (nGot.text(stdout) !== nExp.text(want.stdout)) bad.push(`stdout:\n${stdout}\n--- want ---\n${want.stdout}`);
        if (nGot.text(stderr) !== nExp.text(want.stderr)) bad.push(`stderr:\n${stderr}\n--- want ---\n${want.stderr}`);
        if (nGot.files(gotFiles) !== nExp.files(expFiles)) bad.push('files differ');
        const key = `${c.name} ${i}`;
        if (bad.length === 0) passing++;
        else if (!known.has(key)) failures.push(`${key} ${JSON.stringify(c.steps[i])}: ${bad.join('\n')}`);
      }
      assert.deepEqual(failures, []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}

test('state verbs: passing steps never drop below the floor', () => {
  assert.ok(passing >= FLOOR, `${passing} steps pass, floor is ${FLOOR}`);
  assert.ok(existsSync(join(DATA, 'record.py')));
});
