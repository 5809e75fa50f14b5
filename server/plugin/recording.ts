// A recording provider wrapper: every call with its request and response (or error) as one JSON line.
//
// API (stable):
//   recordingProvider(p, sink): Provider   — wraps p; sink receives a RecordEntry per call, after it completes.
//   fileSink(path): (e) => void             — appends entries as JSON lines (O_APPEND, one write per entry, so
//                                             the several processes Terraform starts per command can share a file).
//   readRecording(path): RecordEntry[]      — the entries of a file, in order.
//   callSummary(entries): string[]          — "method type_name" per call, for comparing what two clients called.
// Requests and responses are kept in wire.ts's JSON form (values with their types, bytes as base64), so a
// recording can be compared across processes and tools.

import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { Provider } from '../providers/provider';
import { toWire } from '../providers/wire';

export interface RecordEntry {
  pid: number;
  seq: number;
  method: string;
  request: unknown;
  response?: unknown;
  error?: string;
  ms: number;
}

export function recordingProvider(p: Provider, sink: (e: RecordEntry) => void): Provider {
  let seq = 0;
  const wrap = <K extends Exclude<keyof Provider, 'close'>>(method: K) =>
    (async (req?: unknown) => {
      const n = seq++;
      const t0 = performance.now();
      try {
        const res = await (p[method] as (r?: unknown) => Promise<unknown>).call(p, req);
        sink({ pid: process.pid, seq: n, method, request: toWire(req), response: toWire(res), ms: +(performance.now() - t0).toFixed(3) });
        return res;
      } catch (e) {
        sink({ pid: process.pid, seq: n, method, request: toWire(req), error: e instanceof Error ? e.message : String(e), ms: +(performance.now() - t0).toFixed(3) });
        throw e;
      }
    }) as Provider[K];
  return {
    getProviderSchema: wrap('getProviderSchema'),
    validateProviderConfig: wrap('validateProviderConfig'),
    validateResourceConfig: wrap('validateResourceConfig'),
    validateDataResourceConfig: wrap('validateDataResourceConfig'),
    configureProvider: wrap('configureProvider'),
    upgradeResourceState: wrap('upgradeResourceState'),
    readResource: wrap('readResource'),
    planResourceChange: wrap('planResourceChange'),
    applyResourceChange: wrap('applyResourceChange'),
    importResourceState: wrap('importResourceState'),
    moveResourceState: wrap('moveResourceState'),
    readDataSource: wrap('readDataSource'),
    stopProvider: wrap('stopProvider'),
    close: () => p.close(),
  };
}

export function fileSink(path: string): (e: RecordEntry) => void {
  return (e) => appendFileSync(path, JSON.stringify(e) + '\n');
}

export function readRecording(path: string): RecordEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RecordEntry);
}

export function callSummary(entries: readonly RecordEntry[]): string[] {
  return entries.map((e) => {
    const r = e.request as { typeName?: string } | null;
    return r && typeof r === 'object' && r.typeName ? `${e.method} ${r.typeName}` : e.method;
  });
}
