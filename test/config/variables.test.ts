// Input variables (server/config/variables.ts, evaluate.ts) against Terraform 1.11.4: the shared conformance
// recording variables-sources.json (plan with terraform.tfvars, *.auto.tfvars, -var-file, TF_VAR_*, -var,
// validation and conversion failures) replayed step by step — values through the plan's output summary,
// failures through the exact diagnostics Terraform prints — plus unit checks of parsing modes and messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Diagnostic } from '../../server/diags/diagnostic';
import { hasErrors } from '../../server/diags/diagnostic';
import { renderDiagnosticsView } from '../../server/diags/render';
import { finalizeRootVariables, ModuleEvaluator } from '../../server/config/evaluate';
import { loadModuleTree } from '../../server/config/load';
import { collectVariableValues, evalConstant, parseVariableValues, splitVarFlags } from '../../server/config/variables';
import { sortDiagnostics } from '../../server/cli/console-scope';
import { formatValue } from '../../server/lang/format';
import { parseExpression } from '../../server/lang/parse';
import type { Value } from '../../server/lang/value';

/** Variables as `terraform plan -input=false` resolves them: values by name, or the diagnostics it prints. */
async function planVariables(dir: string, args: string[], env: Record<string, string>): Promise<{ values?: Map<string, Value>; diagnostics: Diagnostic[]; sources: Map<string, string> }> {
  const loaded = await loadModuleTree(dir);
  const split = splitVarFlags(args);
  const col = await collectVariableValues(dir, split.vars, env);
  const sources = new Map([...loaded.sources, ...col.sources]);
  const diagnostics = [...loaded.diagnostics, ...col.diagnostics];
  const parsed = parseVariableValues(col.raw, loaded.module);
  diagnostics.push(...parsed.diagnostics);
  if (hasErrors(diagnostics)) return { diagnostics, sources };
  const fin = finalizeRootVariables(loaded.module, parsed.values);
  const ev = new ModuleEvaluator(loaded.module, fin.inputs, { cwd: dir, workspace: 'default' }, [...fin.diagnostics]);
  ev.validateVariables();
  diagnostics.push(...ev.diagnostics);
  return { values: fin.inputs.values, diagnostics, sources };
}

const rec = JSON.parse(readFileSync('/work/shared/conformance/scenarios/recorded/variables-sources.json', 'utf8').toString());

test('conformance recording: variables-sources (precedence and messages)', { skip: !existsSync('/work/shared/conformance/scenarios/recorded/variables-sources.json') }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fs-vars-'));
  try {
    for (const [p, c] of Object.entries(rec.files as Record<string, string>)) writeFileSync(join(dir, p), c);
    let checked = 0;
    for (const step of rec.steps) {
      if (step.write) {
        mkdirSync(dirname(join(dir, step.write.path)), { recursive: true });
        writeFileSync(join(dir, step.write.path), step.write.content);
        continue;
      }
      if (!step.run || step.run[0] !== 'plan') continue;
      const name = step.run.join(' ');
      const r = await planVariables(dir, step.run.slice(1).filter((a: string) => a !== '-input=false' && a !== '-no-color'), step.env ?? {});
      const want: { exit_code: number; stdout: string; stderr: string } = step.result;
      if (want.exit_code === 0) {
        assert.ok(r.values, `${name}: no values`);
        const m = /\+ summary = "([^"]*)"/.exec(want.stdout);
        assert.ok(m, `${name}: summary in recording`);
        const v = r.values!;
        assert.equal(`${v.get('region')!.str}/${v.get('replicas')!.num.toString()}/${v.get('mode')!.str}`, m[1], name);
        assert.equal(formatValue(v.get('labels')!), want.stdout.includes('tier = "gold"') ? 'tomap({\n  "tier" = "gold"\n})' : 'tomap({})', `${name}: labels`);
      } else {
        const text = renderDiagnosticsView(sortDiagnostics(r.diagnostics), { color: false, sources: r.sources });
        assert.equal(text, want.stderr, `${name}: diagnostics`);
      }
      checked++;
    }
    assert.equal(checked, 10);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- parsing modes and constant values ---------------------------------------------------------------

interface ModeCase {
  decl: string;
  value: string;
  want?: string;
  error?: string;
}
const MODE_CASES: ModeCase[] = [
  { decl: 'type = number', value: '5', want: '5' },
  { decl: 'type = string', value: 'null', want: '"null"' },
  { decl: '', value: '[1]', want: '"[1]"' },
  { decl: 'type = any', value: '[1, "a"]', want: '[\n  1,\n  "a",\n]' },
  { decl: 'type = list(string)', value: '["a", 1]', want: 'tolist([\n  "a",\n  "1",\n])' },
  { decl: 'type = map(number)', value: '{ a = 1 }', want: 'tomap({\n  "a" = 1\n})' },
  { decl: 'type = list(number)', value: '[var.x]', error: 'Variables not allowed' },
  { decl: 'type = list(number)', value: '[max(1)]', error: 'Function calls not allowed' },
  { decl: 'type = list(number)', value: '[1,', error: 'Missing expression' },
  { decl: 'type = number', value: 'x', error: 'Invalid value for input variable: Unsuitable value for var.v set using -var="v=...": a number is required.' },
  { decl: 'type = object({ a = string })', value: '{}', error: 'Invalid value for input variable: Unsuitable value for var.v set using -var="v=...": attribute "a" is required.' },
  { decl: 'type = string\n  nullable = false', value: 'null', want: '"null"' },
  { decl: 'type = list(string)\n  nullable = false', value: 'null', error: 'Required variable not set: Unsuitable value for var.v set using -var="v=...": required variable may not be set to null.' },
  { decl: 'type = list(string)\n  nullable = false\n  default = ["d"]', value: 'null', want: 'tolist([\n  "d",\n])' },
  { decl: 'type = object({ a = optional(number, 7) })', value: '{}', want: '{\n  "a" = 7\n}' },
];

for (const c of MODE_CASES) {
  test(`-var parsing: variable { ${c.decl.replace(/\n\s*/g, '; ')} } = ${c.value}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fs-vars-'));
    try {
      writeFileSync(join(dir, 'main.tf'), `variable "v" {\n  ${c.decl}\n}\n`);
      const r = await planVariables(dir, ['-var', `v=${c.value}`], {});
      const errs = r.diagnostics.filter((d) => d.severity === 'error');
      if (c.error) {
        assert.ok(errs.length > 0, 'expected an error');
        const first = errs[0];
        assert.equal(c.error.includes(':') ? `${first.summary}: ${first.detail}` : first.summary, c.error);
      } else {
        assert.deepEqual(errs, []);
        assert.equal(formatValue(r.values!.get('v')!), c.want);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('constant evaluation reports the root of a traversal and whole calls, in source order', () => {
  const p = parseExpression('[upper(var.a), local.b.c]', 't.tfvars');
  const r = evalConstant(p.expr!);
  assert.deepEqual(
    r.diagnostics.map((d) => `${d.summary} ${d.subject!.start.column}-${d.subject!.end.column}`),
    ['Function calls not allowed 2-14', 'Variables not allowed 16-21'],
  );
});
