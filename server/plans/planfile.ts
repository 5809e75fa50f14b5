// Saved plan files (`plan -out=FILE`, `apply FILE`, `show FILE`): a zip archive like Terraform's planfile,
// holding `tfplan` (Foresight's own JSON plan record: mode, options, variable values, state lineage/serial),
// `tfstate` (the refreshed prior state), `tfstate-prev` (the previous run state) and `tfconfig/<file>` (a
// snapshot of the root module's configuration files).
//
// Contract: the plan is re-derived on read by planning again from the saved prior state with refresh off,
// the saved variable values and options, which yields the same changes for deterministic configurations.
// Staleness is decided by the caller from `stateMeta` exactly as Terraform does (lineage, then serial).
// Terraform's own plan files (protobuf `tfplan`) are not readable here and are reported as such.

import { crc32 } from 'node:zlib';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Module } from '../config/model';
import { marshal, marshalType, unmarshal, unmarshalType } from '../engine/ctyjson';
import { plan as enginePlan, type ProviderFactory } from '../engine';
import type { Diagnostic } from '../diags/diagnostic';
import type { Value } from '../lang/value';
import type { Plan, PlanMode } from './plan';
import { readStateFile, writeStateFile } from '../states/statefile';
import type { State } from '../states/state';
import { validateDirectory } from '../config/validate';

interface Record_ {
  format: 'foresight-plan-1';
  mode: PlanMode;
  targets: string[];
  replace: string[];
  variables: Record<string, { type: string; value: string; sensitive: boolean }>;
  /** The variables the caller set, as given (Plan.setVariables); absent in files of earlier builds. */
  set?: Record<string, { type: string; value: string }>;
  state: { lineage: string; serial: number };
}

// ---- minimal zip (stored entries) ------------------------------------------------------------------------------

function zip(entries: [string, Buffer][]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const nb = Buffer.from(name, 'utf8');
    const crc = crc32(data) >>> 0;
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(20, 4);
    lh.writeUInt16LE(0x0800, 6);
    lh.writeUInt16LE(0, 8);
    lh.writeUInt32LE(0, 10);
    lh.writeUInt32LE(crc, 14);
    lh.writeUInt32LE(data.length, 18);
    lh.writeUInt32LE(data.length, 22);
    lh.writeUInt16LE(nb.length, 26);
    lh.writeUInt16LE(0, 28);
    parts.push(lh, nb, data);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(20, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(0x0800, 8);
    ch.writeUInt16LE(0, 10);
    ch.writeUInt32LE(0, 12);
    ch.writeUInt32LE(crc, 16);
    ch.writeUInt32LE(data.length, 20);
    ch.writeUInt32LE(data.length, 24);
    ch.writeUInt16LE(nb.length, 28);
    ch.writeUInt32LE(offset, 42);
    central.push(ch, nb);
    offset += 30 + nb.length + data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, end]);
}

function unzip(buf: Buffer): Map<string, Buffer> | undefined {
  const out = new Map<string, Buffer>();
  let off = 0;
  while (off + 30 <= buf.length && buf.readUInt32LE(off) === 0x04034b50) {
    const method = buf.readUInt16LE(off + 8);
    const size = buf.readUInt32LE(off + 18);
    const nlen = buf.readUInt16LE(off + 26);
    const xlen = buf.readUInt16LE(off + 28);
    const name = buf.subarray(off + 30, off + 30 + nlen).toString('utf8');
    const start = off + 30 + nlen + xlen;
    if (method !== 0) return undefined;
    out.set(name, buf.subarray(start, start + size));
    off = start + size;
  }
  return out;
}

/** True when the bytes look like a zip archive (a plan file). */
export function isPlanFile(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50;
}

export interface PlanFileOptions {
  config: Module;
  cwd: string;
  stateMeta: { lineage: string; serial: number };
  prevMeta: { lineage: string; serial: number };
}

/** Writes a plan file; returns an error message or undefined. */
export function writePlanFile(path: string, plan: Plan, opts: PlanFileOptions): string | undefined {
  const variables: Record_['variables'] = {};
  for (const [k, v] of plan.variableValues) {
    const [u, marks] = v.unmarkDeep();
    variables[k] = { type: marshalType(u.type), value: marshal(u), sensitive: marks.has('sensitive') };
  }
  const set: NonNullable<Record_['set']> = {};
  for (const [k, v] of plan.setVariables ?? []) {
    const [u] = v.unmarkDeep();
    set[k] = { type: marshalType(u.type), value: marshal(u) };
  }
  const rec: Record_ = { format: 'foresight-plan-1', mode: plan.uiMode, targets: [...plan.targets], replace: [...plan.forceReplace], variables, set, state: opts.stateMeta };
  const entries: [string, Buffer][] = [['tfplan', Buffer.from(JSON.stringify(rec))]];
  entries.push(['tfstate', Buffer.from(writeStateFile({ terraformVersion: '1.11.4', serial: opts.stateMeta.serial, lineage: opts.stateMeta.lineage, state: plan.priorState }))]);
  entries.push(['tfstate-prev', Buffer.from(writeStateFile({ terraformVersion: '1.11.4', serial: opts.prevMeta.serial, lineage: opts.prevMeta.lineage, state: plan.prevRunState }))]);
  try {
    for (const f of readdirSync(opts.cwd).sort()) {
      if (f.endsWith('.tf') || f.endsWith('.tf.json')) entries.push([`tfconfig/m-/${f}`, readFileSync(join(opts.cwd, f))]);
    }
  } catch {
    // snapshot is best effort
  }
  try {
    writeFileSync(path, zip(entries));
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

export interface ReadPlanFile {
  plan: Plan;
  config: Module;
  stateMeta: { lineage: string; serial: number };
  diagnostics: Diagnostic[];
}

/** Reads a plan file and re-derives its plan (see the header). */
export async function readPlanFile(bytes: Buffer, cwd: string, providers: ProviderFactory): Promise<ReadPlanFile | { error: string }> {
  const files = unzip(bytes);
  if (!files || !files.has('tfplan')) return { error: 'the given file is not a Foresight plan file' };
  let rec: Record_;
  try {
    rec = JSON.parse(files.get('tfplan')!.toString('utf8')) as Record_;
  } catch {
    return { error: 'the plan record is not valid JSON' };
  }
  if (rec.format !== 'foresight-plan-1') return { error: 'unsupported plan file format' };
  const st = readStateFile(files.get('tfstate')?.toString('utf8') ?? '');
  if (!st.file) return { error: 'the plan file holds no prior state' };
  const prior: State = st.file.state;
  const res = await validateDirectory(cwd);
  if (!res.module) return { error: 'failed to load the configuration' };
  const values = new Map<string, Value>();
  for (const [k, v] of Object.entries(rec.variables)) {
    const u = unmarshal(v.value, unmarshalType(v.type));
    if (u.error !== undefined) return { error: `invalid value for variable ${k}: ${u.error}` };
    let val = u.value;
    if (v.sensitive) val = val.mark('sensitive');
    values.set(k, val);
  }
  const setVariables = new Map<string, Value>();
  for (const [k, v] of Object.entries(rec.set ?? {})) {
    const u = unmarshal(v.value, unmarshalType(v.type));
    if (u.error !== undefined) return { error: `invalid value for variable ${k}: ${u.error}` };
    setVariables.set(k, u.value);
  }
  const prev = readStateFile(files.get('tfstate-prev')?.toString('utf8') ?? '');
  const r = await enginePlan({
    setVariables: rec.set ? setVariables : undefined,
    config: res.module,
    state: prior,
    prevRunState: prev.file?.state,
    providers,
    variableValues: values,
    mode: rec.mode,
    refresh: false,
    targets: rec.targets,
    forceReplace: rec.replace,
    cwd,
  });
  const plan: Plan = prev.file ? { ...r.plan, prevRunState: prev.file.state } : r.plan;
  return { plan, config: res.module, stateMeta: rec.state, diagnostics: r.diagnostics };
}
