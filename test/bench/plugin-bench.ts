// Benchmark of Foresight's providers served as plugins (server/plugin/serve.ts, `foresight provider serve`):
//   - provider start to handshake: spawn of `node dist/cli.js provider serve random` with Terraform's environment
//     (cookie, PLUGIN_PROTOCOL_VERSIONS, PLUGIN_CLIENT_CERT) until its handshake line, median and min of N starts;
//   - PlanResourceChange round trip over gRPC (unix socket + mTLS) to the served random provider, random_string,
//     1,000 sequential calls after 50 warm-up calls: median, p90, p99.
// `benchPlugin()` returns table rows; test/bench/bench.ts prints them with the rest of `npm run bench`.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { codecs, schemasFromProto } from '../../server/plugin/convert';
import { parseHandshake, pluginEnv } from '../../server/plugin/handshake';
import { GRPC_OPTIONS, loadProtos } from '../../server/plugin/proto/load';
import { CLIENT_TLS_OPTIONS, clientCredentials, generateCertificate } from '../../server/plugin/tls';
import { DEFAULT_CLIENT_CAPABILITIES } from '../../server/providers/provider';
import { emptyValue, nullObject } from '../../server/providers/schema';
import { proposedNew } from '../../server/plans/objchange/proposed';
import { Value } from '../../server/lang/value';

export interface PluginRow {
  what: string;
  value: string;
  goal?: string;
  ok?: boolean;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;

function cliPath(): string {
  const beside = join(__dirname, 'cli.js');
  return existsSync(beside) ? beside : resolve('dist/cli.js');
}

interface Started {
  ms: number;
  line: string;
  kill: () => void;
  cert: ReturnType<typeof generateCertificate>;
}

async function start(cli: string): Promise<Started> {
  const cert = generateCertificate();
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, 'provider', 'serve', 'random'], { env: { ...process.env, ...pluginEnv({ versions: [5, 6], clientCertPem: cert.certPem }) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((res, rej) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) res(out.slice(0, out.indexOf('\n') + 1));
    });
    child.on('exit', (c) => rej(new Error(`provider exited (${c}) before the handshake`)));
  });
  return { ms: performance.now() - t0, line, kill: () => child.kill('SIGKILL'), cert };
}

export async function benchPlugin(opts: { starts?: number; calls?: number } = {}): Promise<PluginRow[]> {
  const cli = cliPath();
  const starts = opts.starts ?? 10;
  const calls = opts.calls ?? 1000;
  const rows: PluginRow[] = [];
  const times: number[] = [];
  for (let i = 0; i < starts; i++) {
    const s = await start(cli);
    times.push(s.ms);
    s.kill();
  }
  rows.push({ what: `served provider: start to handshake (node dist/cli.js provider serve random, median of ${starts})`, value: ms(pct(times, 50)) });
  rows.push({ what: 'served provider: start to handshake (min)', value: ms(Math.min(...times)) });

  const s = await start(cli);
  try {
    const h = parseHandshake(s.line, { versions: [5, 6] });
    const protos = loadProtos();
    const creds = clientCredentials(s.cert, h.serverCertDer!);
    const client = new protos.tfplugin6.Provider(`unix:${h.address}`, creds, { ...GRPC_OPTIONS, ...CLIENT_TLS_OPTIONS }) as any;
    const call = (m: string, req: unknown) => new Promise<any>((res, rej) => client[m](req, (e: Error | null, r: unknown) => (e ? rej(e) : res(r))));
    const schemas = schemasFromProto(await call('GetProviderSchema', {}));
    const c = codecs(6);
    await call('ConfigureProvider', c.configureProvider.requestToProto({ terraformVersion: '1.11.4', config: emptyValue(schemas.provider.block), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES }, schemas));
    const b = schemas.resourceTypes.random_string.block;
    const attrs = new Map(emptyValue(b).entries);
    attrs.set('length', Value.number(16));
    const config = Value.object(attrs);
    const prior = nullObject(b);
    const msg = c.planResourceChange.requestToProto({ typeName: 'random_string', priorState: prior, proposedNewState: proposedNew(b, prior, config), config, priorPrivate: new Uint8Array(0), clientCapabilities: DEFAULT_CLIENT_CAPABILITIES }, schemas);
    for (let i = 0; i < 50; i++) await call('PlanResourceChange', msg);
    const rtt: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t0 = performance.now();
      const r = await call('PlanResourceChange', msg);
      rtt.push(performance.now() - t0);
      if (r.diagnostics?.length) throw new Error(`unexpected diagnostics: ${r.diagnostics[0].summary}`);
    }
    rows.push({ what: `served provider: PlanResourceChange round trip over gRPC+mTLS (median of ${calls})`, value: ms(pct(rtt, 50)) });
    rows.push({ what: 'served provider: PlanResourceChange round trip (p90 / p99)', value: `${ms(pct(rtt, 90))} / ${ms(pct(rtt, 99))}` });
    client.close();
  } finally {
    s.kill();
  }
  return rows;
}
