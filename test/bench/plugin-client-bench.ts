// Benchmark of the plugin client (server/plugin/client/) against Foresight's own providers served as plugins
// (`node dist/cli.js provider serve <name>`, behind a `terraform-provider-<name>` wrapper found through dev_overrides):
//   - provider start to handshake as the client sees it (PluginProcess.start: spawn, handshake line, mTLS channel,
//     health check), median and min of N starts;
//   - PlanResourceChange round trip through the client's Provider interface (request encoding, gRPC over a unix socket
//     with mTLS, response decoding), random_integer, median/p90/p99 of 1,000 sequential calls after 50 warm-up calls;
//   - the real aws provider through the language server's pool (when the filesystem mirror with hashicorp/aws is on
//     the machine: FORESIGHT_AWS_MIRROR or /opt/tf-plugins): first use (process start + GetProviderSchema of
//     1,500+ resource types), first use with the schema already in the disk cache (a restarted language server),
//     and ValidateResourceConfig round trips on the warm process (what each keystroke's validation costs);
//   - flat-1000 apply: `foresight apply` (node dist/cli.js) of 1,000 null_resource through the out-of-process served
//     null provider, against `terraform apply` with the same provider binary (skipped, with a row saying so, when
//     terraform is not on PATH). FORESIGHT_BENCH_PLUGIN_N changes the 1,000.
// `benchPluginClient()` returns table rows; test/bench/bench.ts prints them with the rest of `npm run bench`.

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PluginProcess } from '../../server/plugin/client/process';
import { GrpcProvider } from '../../server/plugin/client/provider';
import { DEFAULT_CLIENT_CAPABILITIES } from '../../server/providers/provider';
import { emptyValue, impliedType } from '../../server/providers/schema';
import { Value } from '../../server/lang/value';

export interface PluginClientRow {
  what: string;
  value: string;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;
const sec = (x: number) => `${(x / 1000).toFixed(2)} s`;

function cliPath(): string {
  const beside = join(__dirname, 'cli.js');
  return existsSync(beside) ? beside : resolve('dist/cli.js');
}

function wrapper(dir: string, name: string, cli: string): string {
  mkdirSync(dir, { recursive: true });
  const f = join(dir, `terraform-provider-${name}`);
  writeFileSync(f, `#!/bin/sh\nexec ${process.execPath} ${cli} provider serve ${name}\n`);
  chmodSync(f, 0o755);
  return f;
}

export async function benchPluginClient(opts: { starts?: number; calls?: number; n?: number } = {}, log: (s: string) => void = (s) => console.error(s)): Promise<PluginClientRow[]> {
  const cli = cliPath();
  const root = mkdtempSync(join(tmpdir(), 'fs-plugin-client-bench-'));
  const rows: PluginClientRow[] = [];
  try {
    const bin = join(root, 'bin');
    const random = wrapper(bin, 'random', cli);
    wrapper(bin, 'null', cli);

    // 1. start to handshake, as the client sees it.
    const starts = opts.starts ?? 10;
    const times: number[] = [];
    for (let i = 0; i < starts; i++) {
      const p = await PluginProcess.start({ executable: random });
      times.push(p.startMs);
      await p.kill();
    }
    rows.push({ what: `plugin client: start to handshake + health (served random, median of ${starts})`, value: ms(pct(times, 50)) });
    rows.push({ what: 'plugin client: start to handshake + health (min)', value: ms(Math.min(...times)) });

    // 2. PlanResourceChange round trips through the Provider interface.
    const calls = opts.calls ?? 1000;
    const p = new GrpcProvider({ fqn: 'registry.terraform.io/hashicorp/random', start: () => PluginProcess.start({ executable: random }) });
    try {
      const s = await p.getProviderSchema();
      const ib = s.resourceTypes.random_integer.block;
      const cfg = new Map(emptyValue(ib).entries);
      cfg.set('min', Value.number(1));
      cfg.set('max', Value.number(100));
      const config = Value.object(cfg);
      const req = { typeName: 'random_integer', priorState: Value.null(impliedType(ib)), proposedNewState: config, config, priorPrivate: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES };
      for (let i = 0; i < 50; i++) await p.planResourceChange(req);
      const rtt: number[] = [];
      for (let i = 0; i < calls; i++) {
        const t0 = performance.now();
        const r = await p.planResourceChange(req);
        rtt.push(performance.now() - t0);
        if (r.diagnostics.length) throw new Error(`PlanResourceChange failed: ${r.diagnostics[0].summary}`);
      }
      rows.push({ what: `plugin client: PlanResourceChange round trip via Provider interface (median of ${calls})`, value: ms(pct(rtt, 50)) });
      rows.push({ what: 'plugin client: PlanResourceChange round trip p90 / p99', value: `${ms(pct(rtt, 90))} / ${ms(pct(rtt, 99))}` });
    } finally {
      await p.close();
    }

    // 3. the aws provider through the pool: cold, schema from the disk cache, warm validation round trips.
    rows.push(...(await benchAwsPool(root, log)));

    // 4. flat-N apply through the out-of-process null provider, foresight vs terraform.
    const n = opts.n ?? Number(process.env.FORESIGHT_BENCH_PLUGIN_N ?? 1000);
    const rc = join(root, 'cli.tfrc');
    writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "example.com/bench/null" = "${bin}"\n  }\n  direct {}\n}\n`);
    let tf = 'terraform {\n  required_providers {\n    null = {\n      source = "example.com/bench/null"\n    }\n  }\n}\n';
    for (let i = 0; i < n; i++) tf += `resource "null_resource" "r${i}" {\n  triggers = { i = "${i}" }\n}\n`;
    const env = { ...process.env, TF_CLI_CONFIG_FILE: rc, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
    const run = (argv: string[], cwd: string) => {
      const t0 = performance.now();
      const r = spawnSync(argv[0], argv.slice(1), { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 });
      const t = performance.now() - t0;
      if (r.status !== 0) throw new Error(`${argv.slice(0, 3).join(' ')} failed (${r.status}): ${(r.stderr || r.stdout).slice(0, 400)}`);
      return t;
    };
    const fsDir = join(root, 'fs');
    mkdirSync(fsDir);
    writeFileSync(join(fsDir, 'main.tf'), tf);
    log(`plugin client bench: foresight apply of ${n} null_resource through the served null provider ...`);
    const fsT = run([process.execPath, cli, 'apply', '-auto-approve', '-input=false', '-no-color'], fsDir);
    rows.push({ what: `plugin client: apply of ${n} null_resource through out-of-process served null: foresight`, value: sec(fsT) });
    if (spawnSync('terraform', ['version'], { stdio: 'ignore' }).status === 0) {
      const tfDir = join(root, 'tf');
      mkdirSync(tfDir);
      writeFileSync(join(tfDir, 'main.tf'), tf);
      log(`plugin client bench: terraform apply of ${n} null_resource with the same provider ...`);
      const tfT = run(['terraform', 'apply', '-auto-approve', '-input=false', '-no-color'], tfDir);
      rows.push({ what: `plugin client: same apply: terraform (same provider binary, dev_overrides)`, value: sec(tfT) });
      rows.push({ what: 'plugin client: apply foresight / terraform', value: (fsT / tfT).toFixed(2) });
    } else rows.push({ what: 'plugin client: terraform', value: 'not on PATH: apply not compared' });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}

export async function benchAwsPool(root: string, log: (s: string) => void): Promise<PluginClientRow[]> {
  const mirror = [process.env.FORESIGHT_AWS_MIRROR, '/opt/tf-plugins'].find((m) => m && existsSync(join(m, 'registry.terraform.io/hashicorp/aws')));
  if (!mirror) return [{ what: 'plugin client: aws provider through the pool', value: 'no filesystem mirror with hashicorp/aws: not measured' }];
  const { ProviderPool } = await import('../../server/plugin/pool');
  const { main } = await import('../../server/cli/main');
  const work = join(root, 'aws');
  mkdirSync(work);
  writeFileSync(join(work, 'main.tf'), 'terraform {\n  required_providers {\n    aws = {\n      source = "hashicorp/aws"\n    }\n  }\n}\n');
  const rc = join(root, 'aws.tfrc');
  writeFileSync(rc, `provider_installation {\n  filesystem_mirror {\n    path = "${mirror}"\n  }\n}\n`);
  const env = { ...process.env, TF_CLI_CONFIG_FILE: rc, FORESIGHT_SCHEMA_CACHE_DIR: join(root, 'schemas') };
  log('plugin client bench: aws provider through the pool ...');
  if ((await main(['init', '-no-color'], { stdin: async () => '', stdout: () => undefined, stderr: () => undefined, cwd: work, env })) !== 0) return [{ what: 'plugin client: aws', value: 'init failed: not measured' }];
  const FQN = 'registry.terraform.io/hashicorp/aws';
  const rows: PluginClientRow[] = [];
  const firstUse = async () => {
    const pool = new ProviderPool({ trusted: true, env });
    const t0 = performance.now();
    const p = await pool.provider(work, FQN);
    if ('summary' in p) throw new Error(`${p.summary}: ${p.detail}`);
    const s = await p.getProviderSchema();
    const b = s.resourceTypes.aws_cloudwatch_log_group.block;
    const cfg = new Map(emptyValue(b).entries);
    cfg.set('name', Value.string('x'));
    cfg.set('retention_in_days', Value.number(8));
    const req = { typeName: 'aws_cloudwatch_log_group', config: Value.object(cfg), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES };
    const v = await p.validateResourceConfig(req);
    const t = performance.now() - t0;
    if (v.diagnostics.length !== 1) throw new Error('aws validation did not report retention_in_days');
    return { t, pool, p, req, types: Object.keys(s.resourceTypes).length };
  };
  const cold = await firstUse();
  rows.push({ what: `plugin client: aws (${cold.types} resource types) first validation, cold: lock hash + start + GetProviderSchema + ValidateResourceConfig`, value: sec(cold.t) });
  const rtt: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    await cold.p.validateResourceConfig(cold.req);
    rtt.push(performance.now() - t0);
  }
  rows.push({ what: 'plugin client: aws ValidateResourceConfig on the warm pooled process (median / p95 of 200)', value: `${ms(pct(rtt, 50))} / ${ms(pct(rtt, 95))}` });
  await cold.pool.stopAll();
  const { schemaCacheAt } = await import('../../server/plugin/schemacache');
  schemaCacheAt(join(root, 'schemas')).dropMemory();
  const cached = await firstUse();
  rows.push({ what: 'plugin client: aws first validation, schema from the disk cache (binary hash still in memory): decode + start + ValidateResourceConfig', value: sec(cached.t) });
  await cached.pool.stopAll();
  return rows;
}

// Run alone: node dist/bench.js is the usual way; `FORESIGHT_PLUGIN_CLIENT_BENCH=1 node <bundle>` runs only this.
if (process.env.FORESIGHT_PLUGIN_CLIENT_BENCH === '1' && require.main === module) {
  void benchPluginClient().then((rows) => {
    for (const r of rows) console.log(`${r.what}: ${r.value}`);
  });
}
