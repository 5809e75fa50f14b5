// `foresight init`, `get` and `providers` against Terraform 1.11.4:
//   1. test/data/init/recorded.json (recorded by test/data/init/record.py from cases.json): every step's exit
//      status, stdout, stderr and the files init/get write (.terraform/modules/modules.json,
//      .terraform.lock.hcl), byte for byte after timestamp normalisation;
//   2. the init/get/providers steps of the scenario corpus (test/data/scenarios/recorded), replayed with only
//      the file steps before them;
//   3. the same cases against a live `terraform` when one is installed (skipped with a notice otherwise).
// Commands run in-process through the dispatcher (server/cli/main.ts) in fresh temporary directories.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../server/cli/main';

const ROOT = join(__dirname, '..', '..', '..');
const DATA = join(ROOT, 'test', 'data', 'init');
const SCENARIOS = join(ROOT, 'test', 'data', 'scenarios', 'recorded');
const WATCH = ['.terraform/modules/modules.json', '.terraform.lock.hcl', '.terraform/terraform.tfstate'];

interface CaseStep {
  run: string[];
  write?: Record<string, string>;
  env?: Record<string, string>;
}
interface Case {
  name: string;
  files: Record<string, string>;
  steps: CaseStep[];
}
interface Result {
  run: string[];
  exit_code: number;
  stdout: string;
  stderr: string;
  files_after: Record<string, string | null>;
}

const norm = (s: string) => s.replace(/"@timestamp":"[^"]*"/g, '"@timestamp":"<TIMESTAMP>"');

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), content);
  }
}

function watched(dir: string): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const w of WATCH) out[w] = existsSync(join(dir, w)) ? readFileSync(join(dir, w), 'utf8') : null;
  return out;
}

const ENV = { TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', LANG: 'C.UTF-8' };

async function runForesight(dir: string, argv: string[], env: Record<string, string> = {}): Promise<Omit<Result, 'files_after'>> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdin: async () => '',
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    cwd: dir,
    env: { ...ENV, ...env },
  });
  return { run: argv, exit_code: code, stdout: norm(stdout), stderr: norm(stderr) };
}

async function replayCase(c: Case, runner: (dir: string, argv: string[], env?: Record<string, string>) => Promise<Omit<Result, 'files_after'>>): Promise<Result[]> {
  const dir = mkdtempSync(join(tmpdir(), 'fs-init-'));
  try {
    writeFiles(dir, c.files);
    const out: Result[] = [];
    for (const s of c.steps) {
      if (s.write) writeFiles(dir, s.write);
      const r = await runner(dir, s.run, s.env);
      out.push({ ...r, files_after: watched(dir) });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cases = JSON.parse(readFileSync(join(DATA, 'cases.json'), 'utf8')) as Case[];
const recorded = new Map((JSON.parse(readFileSync(join(DATA, 'recorded.json'), 'utf8')) as { name: string; results: Result[] }[]).map((r) => [r.name, r.results]));

for (const c of cases) {
  test(`recorded: ${c.name}`, async () => {
    const want = recorded.get(c.name);
    assert.ok(want, `no recording for ${c.name}`);
    const got = await replayCase(c, runForesight);
    for (let i = 0; i < want.length; i++) assert.deepEqual(got[i], want[i], `step ${i} (${want[i].run.join(' ')})`);
  });
}

// ---- the scenario corpus ---------------------------------------------------------------------------------

interface ScenarioStep {
  run?: string[];
  write?: { path: string; content: string };
  delete?: string;
  env?: Record<string, string>;
  result?: { exit_code: number; stdout: string; stderr: string };
}

const VERBS = new Set(['init', 'get', 'providers']);
const verbOf = (argv: string[]) => argv.find((a) => !a.startsWith('-'));
const scenarioNorm = (s: string) => norm(s).replace(/"@module":"[^"]*"/g, '"@module":"<MODULE>"').replace(/"terraform":"1\.11\.4"/g, '"terraform":"<TF_VERSION>"');

for (const f of existsSync(SCENARIOS) ? readdirSync(SCENARIOS).filter((n) => n.endsWith('.json')) : []) {
  const rec = JSON.parse(readFileSync(join(SCENARIOS, f), 'utf8')) as { scenario: string; files: Record<string, string>; steps: ScenarioStep[] };
  if (!rec.steps.some((s) => s.run && VERBS.has(verbOf(s.run) ?? ''))) continue;
  test(`scenario corpus: ${rec.scenario}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fs-init-sc-'));
    try {
      writeFiles(dir, rec.files);
      for (const [i, s] of rec.steps.entries()) {
        if (s.write) writeFiles(dir, { [s.write.path]: s.write.content });
        if (s.delete) rmSync(join(dir, s.delete), { recursive: true, force: true });
        if (!s.run || !VERBS.has(verbOf(s.run) ?? '')) continue;
        const r = await runForesight(dir, s.run, s.env ?? {});
        assert.deepEqual(
          { exit_code: r.exit_code, stdout: scenarioNorm(r.stdout), stderr: scenarioNorm(r.stderr) },
          { exit_code: s.result!.exit_code, stdout: s.result!.stdout, stderr: s.result!.stderr },
          `step ${i} (${s.run.join(' ')})`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

// ---- live terraform -----------------------------------------------------------------------------------------

function haveTerraform(): boolean {
  try {
    const r = spawnSync('terraform', ['version'], { encoding: 'utf8', env: { ...process.env, CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: '/dev/null' } });
    return r.status === 0 && r.stdout.startsWith('Terraform v1.11.4');
  } catch {
    return false;
  }
}

const live = haveTerraform();
if (!live) console.log('# notice: terraform 1.11.4 not found on PATH; live init comparisons skipped');
for (const c of cases) {
  test(`live terraform: ${c.name}`, { skip: live ? false : 'terraform not installed' }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'fs-init-home-'));
    writeFileSync(join(home, 'empty.tfrc'), '');
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TF_') && v !== undefined) env[k] = v;
    Object.assign(env, ENV, { HOME: home, TF_CLI_CONFIG_FILE: join(home, 'empty.tfrc') });
    const terraform = async (dir: string, argv: string[], extra: Record<string, string> = {}) => {
      const r = spawnSync('terraform', argv, { cwd: dir, env: { ...env, ...extra }, encoding: 'utf8' });
      return { run: argv, exit_code: r.status ?? -1, stdout: norm(r.stdout), stderr: norm(r.stderr) };
    };
    try {
      const want = await replayCase(c, terraform);
      const got = await replayCase(c, runForesight);
      for (let i = 0; i < want.length; i++) assert.deepEqual(got[i], want[i], `step ${i} (${want[i].run.join(' ')})`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
}
