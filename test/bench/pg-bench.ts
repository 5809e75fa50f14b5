// Benchmark of the pg state backend (issue 9), part of `npm run bench`: an apply of N terraform_data (default
// 1,000; FORESIGHT_BENCH_PG_N) into a throwaway PostgreSQL cluster (scripts/pg.mjs; fsync off, Unix socket), by
// foresight (node dist/cli.js) and, when terraform is on PATH, by terraform against a fresh database of the same
// cluster in the same run. Per tool: wall time of `apply -auto-approve` (after init), the WAL bytes the cluster
// generated during it (pg_wal_lsn_diff, cluster-wide, tools run one after the other), rows written to the states
// table (n_tup_ins + n_tup_upd) and the final state size. Foresight journals each completed resource locally and
// rewrites the row at Terraform's cadence (every 20 s and at the end), so its row writes should match terraform's.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
// @ts-expect-error plain ES module without types
import { startPg } from '../../scripts/pg.mjs';

type Pg = { psql(sql: string, db?: string): string; createDb(name: string): string; stop(): void; skip?: string };

export interface PgRow {
  what: string;
  value: string;
}

function terraformOnPath(): boolean {
  return spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0;
}

interface Figures {
  seconds: number;
  walBytes: number;
  rowWrites: number;
  stateBytes: number;
  error?: string;
}

function measure(pg: Pg, tool: 'foresight' | 'terraform', n: number, cli: string, root: string): Figures {
  const dbName = `bench_${tool}_${process.pid}`;
  const conn = pg.createDb(dbName);
  const dir = join(root, tool);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main.tf'), `terraform {\n  backend "pg" {\n    conn_str = ${JSON.stringify(conn)}\n  }\n}\n\nresource "terraform_data" "r" {\n  count = ${n}\n  input = "value-\${count.index}"\n}\n`);
  const rc = join(root, 'empty.tfrc');
  writeFileSync(rc, '');
  const env = { ...process.env, TF_CLI_CONFIG_FILE: rc, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1', TF_LOG: '' };
  const cmd = (args: string[]) => (tool === 'foresight' ? spawnSync('node', [cli, ...args], { cwd: dir, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }) : spawnSync('terraform', args, { cwd: dir, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }));
  const init = cmd(['init', '-input=false', '-no-color']);
  if (init.status !== 0) return { seconds: 0, walBytes: 0, rowWrites: 0, stateBytes: 0, error: `${init.stdout}${init.stderr}` };
  const stats = () => {
    const s = pg.psql("select coalesce(sum(n_tup_ins + n_tup_upd), 0) from pg_stat_user_tables where relname = 'states'", dbName).trim();
    return Number(s);
  };
  pg.psql('select pg_stat_force_next_flush()', dbName);
  const rows0 = stats();
  const lsn0 = pg.psql('select pg_current_wal_lsn()').trim();
  const t0 = process.hrtime.bigint();
  const r = cmd(['apply', '-auto-approve', '-input=false', '-no-color']);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const walBytes = Number(pg.psql(`select pg_wal_lsn_diff(pg_current_wal_lsn(), '${lsn0}')`).trim());
  // Statistics reach the views shortly after the writing sessions end.
  spawnSync('sleep', ['1.5']);
  const rowWrites = stats() - rows0;
  const stateBytes = Number(pg.psql("select coalesce(sum(length(data)), 0) from terraform_remote_state.states where name = 'default'", dbName).trim());
  if (r.status !== 0) return { seconds, walBytes, rowWrites, stateBytes, error: `${r.stdout.slice(-400)}${r.stderr.slice(-400)}` };
  return { seconds, walBytes, rowWrites, stateBytes };
}

const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;

export async function benchPg(o: { cli?: string } = {}, log: (s: string) => void = (s) => console.error(s)): Promise<PgRow[]> {
  const cli = o.cli ?? resolve(dirname(process.argv[1]), 'cli.js');
  const n = Number(process.env.FORESIGHT_BENCH_PG_N || 1000);
  const rows: PgRow[] = [{ what: `pg backend: apply of ${n.toLocaleString('en-US')} terraform_data into PostgreSQL (throwaway cluster, same run)`, value: '' }];
  const pg = (await startPg({ log })) as Pg;
  if (pg.skip) {
    rows.push({ what: 'pg backend: skipped', value: pg.skip.slice(0, 120) });
    return rows;
  }
  const root = mkdtempSync(join(tmpdir(), 'foresight-pg-bench-'));
  try {
    const res: [string, Figures][] = [];
    log(`pg bench: foresight, ${n} resources ...`);
    res.push(['foresight', measure(pg, 'foresight', n, cli, root)]);
    if (terraformOnPath()) {
      log(`pg bench: terraform, ${n} resources ...`);
      res.push(['terraform', measure(pg, 'terraform', n, cli, root)]);
    } else rows.push({ what: 'pg backend: terraform', value: 'not on PATH: not compared' });
    for (const [tool, f] of res) {
      if (f.error) {
        rows.push({ what: `pg backend ${tool}: FAILED`, value: f.error.replace(/\s+/g, ' ').slice(0, 160) });
        continue;
      }
      rows.push({ what: `pg backend ${tool}: apply wall time`, value: `${f.seconds.toFixed(2)} s` });
      rows.push({ what: `pg backend ${tool}: WAL bytes generated during apply`, value: mb(f.walBytes) });
      rows.push({ what: `pg backend ${tool}: state row writes (insert + update)`, value: String(f.rowWrites) });
      rows.push({ what: `pg backend ${tool}: final state size`, value: mb(f.stateBytes) });
    }
    if (res.length === 2 && !res[0][1].error && !res[1][1].error) {
      rows.push({ what: 'pg backend: apply time foresight / terraform', value: `${(res[0][1].seconds / res[1][1].seconds).toFixed(2)}x` });
      rows.push({ what: 'pg backend: WAL bytes foresight / terraform', value: `${(res[0][1].walBytes / res[1][1].walBytes).toFixed(2)}x` });
    }
  } finally {
    pg.stop();
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}

// `node dist/pg-bench.js` is not built; run through the main bench or bundle this file with esbuild to run alone.
