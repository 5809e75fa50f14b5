// A throwaway PostgreSQL cluster for the pg backend's tests and benchmark (issue 9).
//
//   import { startPg } from '../../scripts/pg.mjs'  ->  { connStr, socketDir, dir, psql(sql), stop() } | { skip }
//   node scripts/pg.mjs install   installs the server binaries from Debian when missing (needs root and apt)
//   node scripts/pg.mjs run       starts a cluster, prints its conn_str, stops it on Enter/EOF
//
// findPgBin() looks for initdb/pg_ctl under /usr/lib/postgresql/*/bin (newest first) and on PATH; when they are
// missing and we are root, `apt-get update && apt-get install -y postgresql-15` (falling back to `postgresql`)
// installs them. The cluster lives in a fresh temp dir, listens on a Unix socket there only (listen_addresses=''),
// trusts local connections and is owned by the `postgres` user when we run as root (initdb refuses root).
// stop() runs `pg_ctl stop -m immediate` and removes the directory; every caller must call it (tests in `after`).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function binDirs() {
  const dirs = [];
  try {
    const vs = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const v of vs) dirs.push(`/usr/lib/postgresql/${v}/bin`);
  } catch {
    // none installed there
  }
  for (const p of (process.env.PATH ?? '').split(':')) if (p) dirs.push(p);
  return dirs;
}

/** The directory holding initdb, pg_ctl and postgres, or undefined. */
export function findPgBin() {
  for (const d of binDirs()) if (existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')) && existsSync(join(d, 'postgres'))) return d;
  return undefined;
}

/** Installs the server from Debian when missing. Returns the bin dir or an explanation of why not. */
export function ensurePgInstalled(log = (s) => process.stderr.write(s + '\n')) {
  let bin = findPgBin();
  if (bin) return { bin };
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return { reason: 'PostgreSQL server binaries (initdb, pg_ctl) are not installed and we are not root to apt-get install them' };
  if (spawnSync('which', ['apt-get']).status !== 0) return { reason: 'PostgreSQL server binaries are not installed and apt-get is not available' };
  log('# installing PostgreSQL server binaries with apt-get (postgresql-15)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Test files run in parallel: one installs while the others wait on the same lock, then find the binaries.
  const script =
    'command -v /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && exit 0; apt-get update >/dev/null 2>&1; ' +
    'apt-get install -y --no-install-recommends postgresql-15 >/dev/null 2>&1 || apt-get install -y --no-install-recommends postgresql >/dev/null 2>&1';
  const hasFlock = spawnSync('which', ['flock']).status === 0;
  spawnSync(hasFlock ? 'flock' : 'sh', hasFlock ? ['/tmp/foresight-pg-install.lock', 'sh', '-c', script] : ['-c', script], { stdio: 'ignore', env, timeout: 900000 });
  if ((bin = findPgBin())) return { bin };
  return { reason: 'apt-get could not install postgresql-15 or postgresql' };
}

/**
 * Starts a throwaway cluster. Resolves to { connStr, socketDir, dir, bin, psql, stop } or { skip: reason } when
 * PostgreSQL cannot be installed or started.
 */
export async function startPg(opts = {}) {
  const inst = ensurePgInstalled(opts.log);
  if (!inst.bin) return { skip: inst.reason };
  const bin = inst.bin;
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'foresight-pg-'));
  chmodSync(dir, 0o755);
  const data = join(dir, 'data');
  const asUser = (cmd, args, extra = {}) => {
    if (!root) return spawnSync(cmd, args, { encoding: 'utf8', ...extra });
    return spawnSync('setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', cmd, ...args], { encoding: 'utf8', ...extra });
  };
  if (root) {
    try {
      execFileSync('id', ['postgres'], { stdio: 'ignore' });
    } catch {
      spawnSync('useradd', ['--system', '--no-create-home', 'postgres'], { stdio: 'ignore' });
    }
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  let r = asUser(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'], { cwd: dir });
  if (r.status !== 0) {
    cleanup();
    return { skip: `initdb failed: ${(r.stderr || r.stdout || '').trim()}` };
  }
  const conf = `-c listen_addresses='' -c unix_socket_directories='${dir}' -c fsync=${opts.fsync ? 'on' : 'off'} -c max_connections=50 -c shared_buffers=16MB`;
  r = asUser(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-o', conf, '-w', '-t', '60', 'start'], { cwd: dir });
  if (r.status !== 0) {
    cleanup();
    return { skip: `pg_ctl start failed: ${(r.stderr || r.stdout || '').trim()}` };
  }
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    asUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], { cwd: dir });
    cleanup();
  };
  const connStr = `postgres://postgres@/postgres?host=${encodeURIComponent(dir)}&sslmode=disable`;
  const psql = (sql, db = 'postgres') => {
    const p = spawnSync(join(bin, 'psql'), ['-h', dir, '-U', 'postgres', '-d', db, '-At', '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8' });
    if (p.status !== 0) throw new Error(`psql: ${p.stderr}`);
    return p.stdout;
  };
  /** A fresh database in the cluster, with its conn_str (each test can have its own). */
  const createDb = (name) => {
    psql(`CREATE DATABASE ${name}`);
    return `postgres://postgres@/${name}?host=${encodeURIComponent(dir)}&sslmode=disable`;
  };
  return { connStr, socketDir: dir, dir, bin, psql, createDb, stop };
}

if (process.argv[1] && process.argv[1].endsWith('pg.mjs')) {
  const cmd = process.argv[2];
  if (cmd === 'install') {
    const r = ensurePgInstalled();
    console.log(r.bin ?? `not installed: ${r.reason}`);
    process.exit(r.bin ? 0 : 1);
  } else if (cmd === 'run') {
    // No top-level await: tests bundle this file as CommonJS.
    startPg().then((pg) => {
      if (pg.skip) {
        console.error(pg.skip);
        process.exit(1);
      }
      console.log(pg.connStr);
      process.on('SIGINT', () => {
        pg.stop();
        process.exit(0);
      });
      const done = () => {
        pg.stop();
        process.exit(0);
      };
      process.on('SIGTERM', done);
      process.stdin.on('data', done);
      process.stdin.on('end', done);
      process.stdin.resume();
    });
  } else {
    console.error('usage: node scripts/pg.mjs install|run');
    process.exit(2);
  }
}
