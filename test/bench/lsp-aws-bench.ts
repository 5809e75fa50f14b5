// Editor latencies with the real hashicorp/aws provider (issue 10 §3), over stdio to dist/server.js: a copy of
// test/data/aws/invalid, initialised with `foresight init` from the machine's filesystem mirror (FORESIGHT_AWS_MIRROR,
// else /opt/tf-plugins), opened in the language server:
//   - first provider diagnostics, cold: a new server and an empty schema cache (process start + GetProviderSchema);
//   - first provider diagnostics with a warm schema cache: a new server, the schema read from the disk cache;
//   - validation after an edit: 50 edits of one attribute, time from didChange to the diagnostics of that version
//     (p50/p95), all answered by the provider process the first analysis started.
// Returns no rows (with a printed notice) where the mirror is absent.

import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { main as cli } from '../../server/cli/main';
import { TestClient, type Published } from '../lsp/client';

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
  const mirror = awsMirror();
  if (!mirror) {
    log('# SKIP lsp aws latencies: no filesystem mirror with hashicorp/aws (set FORESIGHT_AWS_MIRROR)');
    return undefined;
  }
  const root = mkdtempSync(join(tmpdir(), 'fs-lsp-aws-'));
  const saved = { rc: process.env.TF_CLI_CONFIG_FILE, cache: process.env.FORESIGHT_SCHEMA_CACHE_DIR };
  try {
    const rc = join(root, 'cli.tfrc');
    writeFileSync(rc, `provider_installation {\n  filesystem_mirror {\n    path = "${mirror}"\n  }\n}\n`);
    const dir = join(root, 'work');
    cpSync(resolve(process.cwd(), 'test/data/aws/invalid'), dir, { recursive: true });
    const env = { ...process.env, TF_CLI_CONFIG_FILE: rc, FORESIGHT_SCHEMA_CACHE_DIR: join(root, 'schemas') };
    let out = '';
    const code = await cli(['init', '-no-color'], { stdin: async () => '', stdout: (x) => (out += x), stderr: (x) => (out += x), cwd: dir, env });
    if (code !== 0) throw new Error(`foresight init failed:\n${out}`);
    // The server inherits this process's environment.
    process.env.TF_CLI_CONFIG_FILE = rc;
    process.env.FORESIGHT_SCHEMA_CACHE_DIR = env.FORESIGHT_SCHEMA_CACHE_DIR;
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
  } finally {
    if (saved.rc === undefined) delete process.env.TF_CLI_CONFIG_FILE;
    else process.env.TF_CLI_CONFIG_FILE = saved.rc;
    if (saved.cache === undefined) delete process.env.FORESIGHT_SCHEMA_CACHE_DIR;
    else process.env.FORESIGHT_SCHEMA_CACHE_DIR = saved.cache;
    rmSync(root, { recursive: true, force: true });
  }
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
  ];
}
