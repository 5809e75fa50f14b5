// Benchmark of the plugin client (server/plugin/client/) against Foresight's own providers served as plugins
// (`node dist/cli.js provider serve <name>`, behind a `terraform-provider-<name>` wrapper found through dev_overrides):
//   - provider start to handshake as the client sees it (PluginProcess.start: spawn, handshake line, mTLS channel,
//     health check), median and min of N starts;
//   - PlanResourceChange round trip through the client's Provider interface (request encoding, gRPC over a unix socket
//     with mTLS, response decoding), random_integer, median/p90/p99 of 1,000 sequential calls after 50 warm-up calls;
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

    // 3. flat-N apply through the out-of-process null provider, foresight vs terraform.
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

// Run alone: node dist/bench.js is the usual way; `FORESIGHT_PLUGIN_CLIENT_BENCH=1 node <bundle>` runs only this.
if (process.env.FORESIGHT_PLUGIN_CLIENT_BENCH === '1' && require.main === module) {
  void benchPluginClient().then((rows) => {
    for (const r of rows) console.log(`${r.what}: ${r.value}`);
  });
}
