// Core's per-call contracts (reference §5), differential against Terraform 1.11.4: a built-in provider served as
// a plugin breaks one contract on purpose (server/plugin/misbehaving.ts: unknowns from ReadResource, from
// UpgradeResourceState and after apply, a null apply result, a requires-replace path that does not exist, import
// answers with several or null objects, null and unknown data source results). Terraform and Foresight's command
// line each run the same steps on their own copy of the workspace, driving the same misbehaving plugin; the error
// diagnostics of every step (summary and detail), the exit statuses and the states they keep must be the same.
// Where terraform is absent, Foresight is compared with the recording in test/data/plugin/terraform-contracts.json
// (refresh it with FORESIGHT_RECORD_CONTRACTS=1 where terraform is installed).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MISBEHAVIOURS, type Misbehaviour } from '../../server/plugin/misbehaving';
import { copyWorkspace, foresight, harness, hasTerraform, terraform, workspace, type Harness, type Run } from './_served';

interface Step {
  /** Files written before the step (in both copies). */
  files?: Record<string, string>;
  args: string[];
}
interface Scenario {
  /** The misbehaviour, or a name for a scenario of a well-behaved plugin. */
  kind: Misbehaviour | string;
  /** The misbehaviour when `kind` is a name of its own. */
  misbehave?: Misbehaviour;
  /** Whether terraform reports an error at some step (default: exactly for misbehaving plugins). */
  errors?: boolean;
  providers: string[];
  files: Record<string, string>;
  steps: Step[];
}

const PET = (prefix: string) => `resource "random_pet" "s" {\n  prefix = "${prefix}"\n}\n`;
const APPLY = ['apply', '-auto-approve', '-json'];
const PLAN = ['plan', '-json'];

const SCENARIOS: Scenario[] = [
  { kind: 'unknown-read', providers: ['random'], files: { 'main.tf': PET('x') }, steps: [{ args: APPLY }, { args: PLAN }] },
  { kind: 'unknown-upgrade', providers: ['random'], files: { 'main.tf': PET('x') }, steps: [{ args: APPLY }, { args: PLAN }] },
  { kind: 'unknown-after-apply', providers: ['random'], files: { 'main.tf': PET('x') }, steps: [{ args: APPLY }, { args: PLAN }] },
  { kind: 'null-after-apply', providers: ['random'], files: { 'main.tf': PET('x') }, steps: [{ args: APPLY }] },
  {
    kind: 'bad-requires-replace',
    providers: ['random'],
    files: { 'main.tf': 'resource "random_string" "s" {\n  length = 8\n}\n' },
    steps: [{ args: APPLY }, { files: { 'main.tf': 'resource "random_string" "s" {\n  length = 9\n}\n' }, args: PLAN }],
  },
  {
    kind: 'multi-import',
    providers: ['random'],
    files: { 'main.tf': 'import {\n  to = random_string.s\n  id = "abcdefgh"\n}\nresource "random_string" "s" {\n  length = 8\n}\n' },
    steps: [{ args: PLAN }],
  },
  {
    // `terraform import` places every object the provider returns (the import block refuses several, above).
    kind: 'cli-multi-import',
    misbehave: 'multi-import',
    errors: false,
    providers: ['random'],
    files: { 'main.tf': 'resource "random_string" "s" {\n  length = 8\n}\n' },
    steps: [{ args: ['import', '-no-color', 'random_string.s', 'abcdefgh'] }, { args: PLAN }],
  },
  {
    kind: 'cli-null-import',
    misbehave: 'null-import',
    providers: ['random'],
    files: { 'main.tf': 'resource "random_string" "s" {\n  length = 8\n}\n' },
    steps: [{ args: ['import', '-no-color', 'random_string.s', 'abcdefgh'] }],
  },
  {
    kind: 'null-import',
    providers: ['random'],
    files: { 'main.tf': 'import {\n  to = random_string.s\n  id = "abcdefgh"\n}\nresource "random_string" "s" {\n  length = 8\n}\n' },
    steps: [{ args: PLAN }],
  },
  { kind: 'null-data', providers: ['null'], files: { 'main.tf': 'data "null_data_source" "d" {\n  inputs = { a = "b" }\n}\n' }, steps: [{ args: PLAN }] },
  { kind: 'unknown-data', providers: ['null'], files: { 'main.tf': 'data "null_data_source" "d" {\n  inputs = { a = "b" }\n}\n' }, steps: [{ args: PLAN }] },
  { kind: 'defer-plan', providers: ['random'], files: { 'main.tf': PET('x') }, steps: [{ args: PLAN }] },
  {
    // A well-behaved plugin: a cross-type `moved` block (MoveResourceState of the built-in terraform_data).
    kind: 'moved-null-to-terraform-data',
    providers: ['null'],
    files: { 'main.tf': 'resource "null_resource" "a" {\n  triggers = { k = "v" }\n}\n' },
    steps: [
      { args: APPLY },
      { files: { 'main.tf': 'resource "terraform_data" "a" {\n  triggers_replace = { k = "v" }\n}\n\nmoved {\n  from = null_resource.a\n  to   = terraform_data.a\n}\n' }, args: PLAN },
      { args: APPLY },
    ],
  },
];
const MISBEHAVING = new Set<string>(MISBEHAVIOURS);

type Diag = { severity: string; summary: string; detail: string };
/** One step's outcome as compared: exit status, error diagnostics, planned changes and the change summary. */
type Outcome = { status: number | null; errors: Diag[]; changes: string[]; summary?: unknown; stdout?: string; stderr?: string };

/** `text` with each run of adjacent lines matching `re` sorted. */
function sortRuns(text: string, re: RegExp): string {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; ) {
    let j = i;
    while (j < lines.length && re.test(lines[j])) j++;
    if (j > i + 1) lines.splice(i, j - i, ...lines.slice(i, j).sort());
    i = Math.max(j, i + 1);
  }
  return lines.join('\n');
}

function outcome(r: Run, args: string[]): Outcome {
  // A human-output step (no -json) is compared by its text.
  // Terraform refreshes several imported objects concurrently, so their "Refreshing state..." lines come in any
  // order: they are compared sorted.
  if (!args.includes('-json')) return { status: r.status, errors: [], changes: [], stdout: sortRuns(r.stdout, / Refreshing state\.\.\./), stderr: r.stderr };
  const msgs = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  const errors = msgs
    .filter((m) => m.type === 'diagnostic' && m.diagnostic.severity === 'error')
    .map((m) => ({ severity: m.diagnostic.severity, summary: m.diagnostic.summary, detail: m.diagnostic.detail ?? '' }));
  const changes = msgs.filter((m) => m.type === 'planned_change').map((m) => `${m.change.resource.addr} ${m.change.action}${m.change.previous_resource ? ' from ' + m.change.previous_resource.addr : ''}`);
  return { status: r.status, errors, changes, summary: msgs.find((m) => m.type === 'change_summary')?.changes };
}

/** Resources, instance status and which attributes are null (values are random). */
function stateShape(dir: string): unknown {
  const f = join(dir, 'terraform.tfstate');
  if (!existsSync(f)) return [];
  const s = JSON.parse(readFileSync(f, 'utf8')) as { resources: { type: string; name: string; instances: { status?: string; attributes: Record<string, unknown> }[] }[] };
  return s.resources.map((r) => ({
    addr: `${r.type}.${r.name}`,
    instances: r.instances.map((i) => ({ status: i.status ?? null, nulls: Object.keys(i.attributes).filter((k) => i.attributes[k] === null).sort() })),
  }));
}

const RECORDING = join(process.cwd(), 'test/data/plugin/terraform-contracts.json');
const recorded: Record<string, { steps: Outcome[]; state: unknown }> = existsSync(RECORDING) ? JSON.parse(readFileSync(RECORDING, 'utf8')) : {};
const record = process.env.FORESIGHT_RECORD_CONTRACTS === '1';

function run(tool: 'terraform' | 'foresight', h: Harness, dir: string, s: Scenario): Outcome[] {
  const out: Outcome[] = [];
  for (const step of s.steps) {
    if (step.files) workspace(h, dir.slice(h.root.length + 1), step.files);
    const r = tool === 'terraform' ? terraform(h, dir, step.args) : foresight(dir, step.args, h.env);
    assert.equal(r.stderr.includes('panic'), false, r.stderr);
    out.push(outcome(r, step.args));
  }
  return out;
}

for (const s of SCENARIOS) {
  test(`provider contract (${s.kind}): Terraform and Foresight report the same errors and keep the same state`, async () => {
    const misbehave = s.misbehave ?? (MISBEHAVING.has(s.kind) ? (s.kind as Misbehaviour) : undefined);
    const h = harness({ misbehave, providers: s.providers });
    try {
      const dir = workspace(h, 'tf', s.files);
      const fsDir = copyWorkspace(dir, join(h.root, 'fs'));
      let want = recorded[s.kind];
      if (hasTerraform) {
        const live = { steps: run('terraform', h, dir, s), state: stateShape(dir) };
        if (record) {
          recorded[s.kind] = live;
          writeFileSync(RECORDING, JSON.stringify(recorded, null, 2) + '\n');
        } else assert.deepEqual(live, want, 'terraform still answers as recorded');
        want = live;
      } else console.log(`# terraform is not on PATH: Foresight compared with ${RECORDING}`);
      assert.ok(want, `no recording for ${s.kind}`);
      // Some step reports the broken contract (a well-behaved scenario has none).
      assert.equal(want.steps.some((st) => st.errors.length > 0 || (st.stderr ?? '').includes('Error')), s.errors ?? misbehave !== undefined);
      const got = { steps: run('foresight', h, fsDir, s), state: stateShape(fsDir) };
      assert.deepEqual(got, want);
    } finally {
      h.dispose();
    }
  });
}
