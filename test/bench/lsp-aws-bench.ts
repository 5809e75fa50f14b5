// Editor latencies with the real hashicorp/aws provider (issue 10 §3), over stdio to dist/server.js: a copy of
// test/data/aws/invalid, initialised with `foresight init` from the machine's filesystem mirror (FORESIGHT_AWS_MIRROR,
// else /opt/tf-plugins), opened in the language server:
//   - first provider diagnostics, cold: a new server and an empty schema cache (process start + GetProviderSchema);
//   - first provider diagnostics with a warm schema cache: a new server, the schema read from the disk cache;
//   - validation after an edit: 50 edits of one attribute, time from didChange to the diagnostics of that version
//     (p50/p95), all answered by the provider process the first analysis started.
// measureLspAwsPreview: the inline preview of test/data/aws/valid (initialised the same way) with the real provider:
//   time from opening the file to the first complete preview (a new server, warm schema cache: process start,
//   ConfigureProvider, nine PlanResourceChange calls), then from an edit to the preview of that text (p50/p95).
// Returns no rows (with a printed notice) where the mirror is absent.

import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { main as cli } from '../../server/cli/main';
import { TestClient, type Published } from '../lsp/client';
import { PreviewClient } from '../lsp/preview-client';
import type { PreviewResult } from '../../server/lsp/protocol';

export interface LspAwsRow {
  what: string;
  value: string;
}

export interface LspAwsFigures {
  coldMs: number;
  warmMs: number;
  editP50Ms: number;
  editP95Ms: number;
  edits: number;
  /** The provider diagnostics of the last edit (messages), to check they are the provider's. */
  lastMessages: string[];
}

export function awsMirror(): string | undefined {
  for (const c of [process.env.FORESIGHT_AWS_MIRROR, '/opt/tf-plugins']) {
    if (!c) continue;
    const d = join(c, 'registry.terraform.io/hashicorp/aws');
    if (existsSync(d) && readdirSync(d).length) return c;
  }
  return undefined;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

const providerDiags = (p: Published | undefined) => (p ? p.diagnostics.filter((d) => d.code === 'provider') : []);

/** The measurements (see the header), or undefined where the aws mirror is absent. */
export async function measureLspAws(edits = 50, log: (s: string) => void = (s) => console.error(s)): Promise<LspAwsFigures | undefined> {
  return withAwsWorkspace('invalid', 'lsp aws latencies', log, async (dir) => {
    const file = join(dir, 'main.tf');
    const uri = pathToFileURL(file).href;
    const text = readFileSync(file, 'utf8');

    const firstDiagnostics = async (c: TestClient): Promise<number> => {
      await c.initialize({}, { debounceMs: 0, preview: false, trusted: true });
      const t0 = performance.now();
      await c.open(uri, text);
      await c.waitFor('aws provider diagnostics', () => providerDiags(c.latest(uri)).length >= 2, 120_000);
      return performance.now() - t0;
    };

    const cold = new TestClient();
    let coldMs: number;
    try {
      coldMs = await firstDiagnostics(cold);
    } finally {
      await cold.stop();
    }
    const c = new TestClient();
    try {
      const warmMs = await firstDiagnostics(c);
      const times: number[] = [];
      let last: Published | undefined;
      for (let i = 0; i < edits; i++) {
        const version = 2 + i;
        const edited = text.replace('visibility_timeout_seconds = 100000', `visibility_timeout_seconds = ${100001 + i}`);
        const t0 = performance.now();
        await c.change(uri, version, [{ text: edited }]);
        last = await c.waitFor(`diagnostics of version ${version}`, () => (c.latest(uri)?.version === version ? c.latest(uri) : undefined), 60_000);
        times.push(performance.now() - t0);
      }
      return {
        coldMs,
        warmMs,
        editP50Ms: pct(times, 50),
        editP95Ms: pct(times, 95),
        edits,
        lastMessages: providerDiags(last).map((d) => String(d.message)),
      };
    } finally {
      await c.stop();
    }
  });
}

export interface LspAwsPreviewFigures {
  firstMs: number;
  editP50Ms: number;
  editP95Ms: number;
  edits: number;
  /** The first complete preview. */
  first: PreviewResult;
  /** The preview after the last edit. */
  last: PreviewResult;
  /** Inlay hints of main.tf after the last edit (`line:char label`). */
  hints: string[];
}

/**
 * Runs `fn` on an initialised copy of test/data/aws/`name` (`foresight init` from the mirror), with this process's
 * CLI configuration and schema cache pointed at it for the servers it starts; restores them and removes the copy
 * after. Undefined, with a printed notice about `what`, where the aws mirror is absent.
 */
async function withAwsWorkspace<T>(name: string, what: string, log: (s: string) => void, fn: (dir: string) => Promise<T>): Promise<T | undefined> {
  const mirror = awsMirror();
  if (!mirror) {
    log(`# SKIP ${what}: no filesystem mirror with hashicorp/aws (set FORESIGHT_AWS_MIRROR)`);
    return undefined;
  }
  const root = mkdtempSync(join(tmpdir(), 'fs-lsp-aws-'));
  const saved = { rc: process.env.TF_CLI_CONFIG_FILE, cache: process.env.FORESIGHT_SCHEMA_CACHE_DIR };
  try {
    const rc = join(root, 'cli.tfrc');
    writeFileSync(rc, `provider_installation {\n  filesystem_mirror {\n    path = "${mirror}"\n  }\n}\n`);
    const dir = join(root, name);
    cpSync(resolve(process.cwd(), `test/data/aws/${name}`), dir, { recursive: true });
    const env = { ...process.env, TF_CLI_CONFIG_FILE: rc, FORESIGHT_SCHEMA_CACHE_DIR: join(root, 'schemas') };
    let out = '';
    const code = await cli(['init', '-no-color'], { stdin: async () => '', stdout: (x) => (out += x), stderr: (x) => (out += x), cwd: dir, env });
    if (code !== 0) throw new Error(`foresight init failed:\n${out}`);
    // The servers inherit this process's environment.
    process.env.TF_CLI_CONFIG_FILE = rc;
    process.env.FORESIGHT_SCHEMA_CACHE_DIR = env.FORESIGHT_SCHEMA_CACHE_DIR;
    return await fn(dir);
  } finally {
    if (saved.rc === undefined) delete process.env.TF_CLI_CONFIG_FILE;
    else process.env.TF_CLI_CONFIG_FILE = saved.rc;
    if (saved.cache === undefined) delete process.env.FORESIGHT_SCHEMA_CACHE_DIR;
    else process.env.FORESIGHT_SCHEMA_CACHE_DIR = saved.cache;
    rmSync(root, { recursive: true, force: true });
  }
}

/** The preview measurements (see the header), or undefined where the aws mirror is absent. */
export async function measureLspAwsPreview(edits = 10, log: (s: string) => void = (s) => console.error(s)): Promise<LspAwsPreviewFigures | undefined> {
  return withAwsWorkspace('valid', 'lsp aws preview', log, async (dir) => {
    const file = join(dir, 'main.tf');
    const uri = pathToFileURL(file).href;
    const text = readFileSync(file, 'utf8');
    // Warm the schema cache with a first server (as a user's second session would find it).
    const warm = new TestClient();
    try {
      await warm.initialize({}, { debounceMs: 0, preview: false, trusted: true });
      await warm.open(uri, text);
      await warm.waitFor('a first analysis', () => warm.latest(uri), 120_000);
    } finally {
      await warm.stop();
    }
    const c = new PreviewClient();
    try {
      await c.initialize({}, { debounceMs: 0, trusted: true });
      const t0 = performance.now();
      await c.open(uri, text);
      const first = await c.waitFor('the first complete aws preview', () => c.previews.find((p) => p.directory === dir && p.complete && p.changes.length > 0), 120_000);
      const firstMs = performance.now() - t0;
      const times: number[] = [];
      let last = first;
      for (let i = 0; i < edits; i++) {
        const version = 2 + i;
        const edited = text.replace('retention_in_days = 14', `retention_in_days = ${[1, 3, 5, 7, 30, 60, 90, 120, 150, 180][i % 10]}`);
        const seen = c.previews.length;
        const t1 = performance.now();
        await c.change(uri, version, [{ text: edited }]);
        last = await c.waitFor(`the preview of version ${version}`, () => c.previews.slice(seen).find((p) => p.directory === dir), 60_000);
        if (!last.complete) throw new Error(`the preview after edit ${i + 1} is incomplete: ${JSON.stringify(last.diagnostics)}`);
        times.push(performance.now() - t1);
      }
      const hints = await c.hints(uri);
      return { firstMs, editP50Ms: pct(times, 50), editP95Ms: pct(times, 95), edits, first, last, hints };
    } finally {
      await c.stop();
    }
  });
}

/** The bench rows (bench.ts). */
export async function benchLspAws(): Promise<LspAwsRow[]> {
  const f = await measureLspAws();
  if (!f) return [{ what: 'language server with hashicorp/aws', value: 'skipped: no aws filesystem mirror' }];
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  return [
    { what: 'LSP + aws: first provider diagnostics, cold (process start + GetProviderSchema)', value: ms(f.coldMs) },
    { what: 'LSP + aws: first provider diagnostics, warm schema cache (new server)', value: ms(f.warmMs) },
    { what: `LSP + aws: validation after an edit, p50 (${f.edits} edits)`, value: ms(f.editP50Ms) },
    { what: `LSP + aws: validation after an edit, p95 (${f.edits} edits)`, value: ms(f.editP95Ms) },
    ...(await benchLspAwsPreview()),
  ];
}

async function benchLspAwsPreview(): Promise<LspAwsRow[]> {
  const f = await measureLspAwsPreview();
  if (!f) return [];
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  return [
    { what: 'LSP + aws: first inline preview (new server, warm schema cache; 9 resources)', value: ms(f.firstMs) },
    { what: `LSP + aws: preview after an edit, p50 (${f.edits} edits)`, value: ms(f.editP50Ms) },
    { what: `LSP + aws: preview after an edit, p95 (${f.edits} edits)`, value: ms(f.editP95Ms) },
  ];
}
