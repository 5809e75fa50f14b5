// The pg backend (Terraform's internal/backend/remote-state/pg, 1.11.4): state in PostgreSQL through node-postgres.
//
// Siblings: client.ts (PgBackend: workspaces as rows, PgStateManager: state, advisory locks, apply journal).
// This file is the configuration step: the schema of the `backend "pg"` block, the environment defaults
// (PG_CONN_STR, PG_SCHEMA_NAME, PG_SKIP_SCHEMA_CREATION, PG_SKIP_TABLE_CREATION, PG_SKIP_INDEX_CREATION, applied
// as backendbase.SDKLikeDefaults does: an unset or empty value takes the variable, then the fallback) and the
// conversion of lib/pq's `key=value` connection strings into node-postgres settings.
// Contract (shared with the http backend, server/backends/registry.ts calls both the same way):
//   configurePgBackend(attrs, env, opts?) -> { backend?, diagnostics }; attrs are plain JS values (strings,
//   numbers, booleans) of the merged backend block and -backend-config values. Nothing connects here: the
//   schema/table/index creation Terraform's Configure does runs in PgBackend.prepare(), which the registry awaits.

import { readFileSync } from 'node:fs';
import { error, type Diagnostic } from '../../diags/diagnostic';
import { PgBackend, type PgSettings } from './client';

export { PgBackend, PgStateManager } from './client';

/** The block's schema: attribute name -> type (all optional), as Terraform declares it. */
export const PG_SCHEMA = {
  conn_str: 'string',
  schema_name: 'string',
  skip_schema_creation: 'bool',
  skip_table_creation: 'bool',
  skip_index_creation: 'bool',
} as const;

const DEFAULTS: Record<keyof typeof PG_SCHEMA, { env: string; fallback: string }> = {
  conn_str: { env: 'PG_CONN_STR', fallback: '' },
  schema_name: { env: 'PG_SCHEMA_NAME', fallback: 'terraform_remote_state' },
  skip_schema_creation: { env: 'PG_SKIP_SCHEMA_CREATION', fallback: 'false' },
  skip_table_creation: { env: 'PG_SKIP_TABLE_CREATION', fallback: 'false' },
  skip_index_creation: { env: 'PG_SKIP_INDEX_CREATION', fallback: 'false' },
};

/** Go's strconv.ParseBool. */
function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/** lib/pq's QuoteIdentifier: double quotes doubled, cut at a NUL. */
export function quoteIdentifier(name: string): string {
  const nul = name.indexOf('\0');
  const n = nul >= 0 ? name.slice(0, nul) : name;
  return '"' + n.replace(/"/g, '""') + '"';
}

/**
 * TLS settings for lib/pq's sslmode (the modes Terraform's driver knows): disable, require (encrypted, the
 * certificate not checked), verify-ca (signed by sslrootcert or a trusted CA, any host name), verify-full (and the
 * host name). sslrootcert, sslcert and sslkey name PEM files. Without sslmode: no TLS, node-postgres's default
 * (lib/pq would insist on require; see README).
 */
function sslSettings(params: ReadonlyMap<string, string>): unknown {
  const mode = params.get('sslmode');
  if (mode === undefined) return undefined;
  if (mode === 'disable') return false;
  const files: Record<string, unknown> = {};
  for (const [k, f] of [['sslrootcert', 'ca'], ['sslcert', 'cert'], ['sslkey', 'key']] as const) {
    const path = params.get(k);
    if (path) files[f] = readFileSync(path, 'utf8');
  }
  if (mode === 'require') return { ...files, rejectUnauthorized: false };
  if (mode === 'verify-ca') return { ...files, rejectUnauthorized: true, checkServerIdentity: () => undefined };
  return { ...files, rejectUnauthorized: true };
}

/**
 * node-postgres connection settings for a lib/pq connection string: a postgres:// URL or the `key=value ...` form
 * (values optionally single-quoted with backslash escapes), with sslmode as lib/pq reads it (sslSettings; node-
 * postgres on its own would take a URL's sslmode=require as verify-full).
 */
export function connectionSettings(connStr: string): Record<string, unknown> {
  const ssl = new Map<string, string>();
  const SSL_KEYS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey'];
  const out: Record<string, unknown> = {};
  if (/^postgres(ql)?:\/\//.test(connStr)) {
    // The query by hand: WHATWG URL refuses lib/pq's `postgres://user@/db?host=/socket/dir` (no host).
    const q = connStr.indexOf('?');
    const params = new URLSearchParams(q >= 0 ? connStr.slice(q + 1) : '');
    for (const k of SSL_KEYS) {
      const v = params.get(k);
      if (v !== null) ssl.set(k, v);
      params.delete(k);
    }
    const rest = params.toString();
    out.connectionString = (q >= 0 ? connStr.slice(0, q) : connStr) + (rest ? `?${rest}` : '');
  } else {
    const re = /\s*([A-Za-z_]+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S*))/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(connStr))) {
      const key = m[1];
      const val = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3];
      const map: Record<string, string> = { host: 'host', port: 'port', user: 'user', password: 'password', dbname: 'database', application_name: 'application_name' };
      if (SSL_KEYS.includes(key)) ssl.set(key, val);
      else if (key === 'connect_timeout') out.connectionTimeoutMillis = Number(val) * 1000;
      else if (map[key]) out[map[key]] = key === 'port' ? Number(val) : val;
    }
  }
  const tls = sslSettings(ssl);
  if (tls !== undefined) out.ssl = tls;
  return out;
}

export interface PgConfigureOptions {
  /** Where apply journals are kept (the working directory's data dir); without it applies are not journalled. */
  journalDir?: string;
  /** Intermediate persist interval during apply, ms (Terraform's StateHook: 20 s). */
  persistIntervalMs?: number;
}

/**
 * PrepareConfig + Configure of the pg backend, without connecting: types are checked and environment defaults
 * applied. Errors are Terraform's "Invalid backend configuration" diagnostics.
 */
export function configurePgBackend(
  attrs: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
  opts: PgConfigureOptions = {},
): { backend?: PgBackend; diagnostics: Diagnostic[] } {
  const diags: Diagnostic[] = [];
  const raw: Record<string, string> = {};
  for (const [name, v] of Object.entries(attrs)) {
    if (!(name in PG_SCHEMA)) {
      diags.push(error('Unsupported argument', `An argument named ${JSON.stringify(name)} is not expected here.`));
      continue;
    }
    if (v === null || v === undefined) continue;
    const type = PG_SCHEMA[name as keyof typeof PG_SCHEMA];
    if (type === 'bool') {
      if (typeof v === 'boolean') raw[name] = String(v);
      else if (typeof v === 'string' && (v === 'true' || v === 'false')) raw[name] = v;
      else diags.push(error('Invalid backend configuration', `The backend configuration is incorrect: .${name}: a bool is required.`));
    } else if (typeof v === 'string') raw[name] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') raw[name] = String(v);
    else diags.push(error('Invalid backend configuration', `The backend configuration is incorrect: .${name}: string required.`));
  }
  if (diags.length) return { diagnostics: diags };
  const val = (name: keyof typeof PG_SCHEMA): string => {
    let s = raw[name] ?? '';
    if (s === '') s = env[DEFAULTS[name].env] ?? '';
    if (s === '') s = DEFAULTS[name].fallback;
    return s;
  };
  const bool = (name: keyof typeof PG_SCHEMA): boolean | undefined => {
    const b = parseGoBool(val(name));
    if (b === undefined) diags.push(error('Invalid backend configuration', `The backend configuration is incorrect: invalid value for ${JSON.stringify(name)}: strconv.ParseBool: parsing ${JSON.stringify(val(name))}: invalid syntax.`));
    return b;
  };
  const settings: PgSettings = {
    connStr: val('conn_str'),
    schemaName: val('schema_name'),
    skipSchemaCreation: bool('skip_schema_creation') ?? false,
    skipTableCreation: bool('skip_table_creation') ?? false,
    skipIndexCreation: bool('skip_index_creation') ?? false,
    journalDir: opts.journalDir,
    persistIntervalMs: opts.persistIntervalMs,
  };
  if (diags.length) return { diagnostics: diags };
  let connection: Record<string, unknown>;
  try {
    connection = connectionSettings(settings.connStr);
  } catch (e) {
    // An sslrootcert/sslcert/sslkey that cannot be read (lib/pq fails the connection the same way).
    return { diagnostics: [error('Invalid backend configuration', `conn_str: ${(e as Error).message}`)] };
  }
  return { backend: new PgBackend(settings, connection), diagnostics: [] };
}
