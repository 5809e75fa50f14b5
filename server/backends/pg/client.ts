// PgBackend and PgStateManager: the pg backend's workspaces and state managers (Terraform's pg Backend,
// RemoteClient and remote.State, 1.11.4). Siblings: index.ts (configuration).
//
// Database layout, byte for byte Terraform's (so either tool can work on the other's database):
//   CREATE SCHEMA IF NOT EXISTS <schema>          (only when information_schema.schemata lacks it)
//   CREATE SEQUENCE IF NOT EXISTS public.global_states_id_seq AS bigint
//   CREATE TABLE IF NOT EXISTS <schema>.states (id bigint NOT NULL DEFAULT nextval('public.global_states_id_seq')
//     PRIMARY KEY, name text UNIQUE, data text)
//   CREATE UNIQUE INDEX IF NOT EXISTS states_by_name ON <schema>.states (name)
// One row per workspace (`default` included); `data` is the complete v4 state file text (statefile.ts).
// Locking: session-level advisory locks on a connection held for the whole lock: the row id, plus the global
// workspace-creation lock -1 taken and released with it (or held alone while a workspace row does not exist),
// with Terraform's query and error texts. The LockError carries the caller's own lock info (pg stores none), so
// failures print exactly what terraform prints. unlock() ignores the id and does nothing when this manager holds
// no lock (so `force-unlock` "succeeds" without effect, as Terraform's does).
// Persist follows remote.State.PersistState: nothing is written when state, lineage and serial are unchanged since
// the last read/write; otherwise the serial is incremented and the whole row is upserted.
// Apply durability (ARCHITECTURE.md, J1-J6 of server/backends/local/journal.ts, same file format): each completed
// change is appended and fsynced to a local journal in the working directory's data dir before the walk goes on;
// the row is rewritten at most every `persistIntervalMs` (Terraform's StateHook cadence, 20 s) and at the end,
// each time after a checkpoint record. A journal left by a crash is replayed under the lock onto the row it came
// from (lineage + serial at its start or at a checkpoint), else set aside as `.stale`.
// Connections come from a pg.Pool with allowExitOnIdle, so an idle backend never keeps the process alive; a held
// lock keeps its connection checked out until unlock() (or the process ends, which releases the session lock).

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { error, warning, type Diagnostic } from '../../diags/diagnostic';
import { applyChange, type Change, type ChangeListener, State } from '../../states/state';
import { canonicalState, newLineage, readStateFile, TERRAFORM_VERSION, withMeta, writeStateFile, type StateFile } from '../../states/statefile';
import { LockError, type Full, type LockHolder, type LockInfo, type SnapshotMeta, type Workspaces } from '../../states/statemgr';
import { decodeJournal, journalApplies, JournalWriter, replayJournal } from '../local/journal';

// node-postgres is loaded on first use: its module set-up costs every command ~45 ms (it probes for a Cloudflare
// runtime, which loads Node's fetch), and only the pg backend needs it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadPg = (): typeof pg => require('pg') as typeof pg;

export interface PgSettings {
  connStr: string;
  schemaName: string;
  skipSchemaCreation: boolean;
  skipTableCreation: boolean;
  skipIndexCreation: boolean;
  journalDir?: string;
  persistIntervalMs?: number;
}

const TABLE = 'states';
const INDEX = 'states_by_name';

function quoteIdent(name: string): string {
  const nul = name.indexOf('\0');
  return '"' + (nul >= 0 ? name.slice(0, nul) : name).replace(/"/g, '""') + '"';
}

/** Go's time.Now().UTC() in RFC 3339 with nanoseconds (for the lock info of a failed lock). */
function nowRFC3339(): string {
  const iso = new Date().toISOString();
  const sub = (process.hrtime.bigint() % 1000000n).toString().padStart(6, '0');
  const frac = (iso.slice(20, 23) + sub).replace(/0+$/, '');
  return iso.slice(0, 19) + (frac ? '.' + frac : '') + 'Z';
}

/** A driver error as text (lib/pq prefixes server errors with "pq: "). */
export function pgErrorText(e: unknown): string {
  const err = e as { message?: string; severity?: string; code?: string };
  if (err && err.severity && err.message) return `pq: ${err.message}`;
  return err?.message ?? String(e);
}

export class PgBackend implements Workspaces {
  readonly pool: pg.Pool;
  readonly schema: string;
  private prepared: Promise<Diagnostic[]> | undefined;

  constructor(
    readonly settings: PgSettings,
    connection: Record<string, unknown>,
  ) {
    this.schema = quoteIdent(settings.schemaName);
    this.pool = new (loadPg().Pool)({ ...connection, max: 4, allowExitOnIdle: true, idleTimeoutMillis: 1000 });
    // An idle client that loses its connection (server shutdown) must not crash the process.
    this.pool.on('error', () => undefined);
  }

  /** Terraform's Configure: creates the schema, sequence, table and index unless skipped. Runs once. */
  prepare(): Promise<Diagnostic[]> {
    if (!this.prepared) this.prepared = this.doPrepare();
    return this.prepared;
  }

  private async doPrepare(): Promise<Diagnostic[]> {
    const s = this.settings;
    try {
      if (!s.skipSchemaCreation) {
        const r = await this.pool.query('select count(1) from information_schema.schemata where schema_name = $1', [s.schemaName]);
        if (Number(r.rows[0].count) < 1) await this.pool.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      }
      if (!s.skipTableCreation) {
        await this.pool.query('CREATE SEQUENCE IF NOT EXISTS public.global_states_id_seq AS bigint');
        await this.pool.query(
          `CREATE TABLE IF NOT EXISTS ${this.schema}.${TABLE} (\n\t\t\tid bigint NOT NULL DEFAULT nextval('public.global_states_id_seq') PRIMARY KEY,\n\t\t\tname text UNIQUE,\n\t\t\tdata text\n\t\t\t)`,
        );
      }
      if (!s.skipIndexCreation) await this.pool.query(`CREATE UNIQUE INDEX IF NOT EXISTS ${INDEX} ON ${this.schema}.${TABLE} (name)`);
      return [];
    } catch (e) {
      return [error(pgErrorText(e))];
    }
  }

  private async ready(): Promise<void> {
    const d = await this.prepare();
    if (d.length) throw new Error(d[0].summary);
  }

  async workspaces(): Promise<string[]> {
    await this.ready();
    const r = await this.pool.query(`SELECT name FROM ${this.schema}.${TABLE} WHERE name != 'default' ORDER BY name`);
    return ['default', ...r.rows.map((x: { name: string }) => x.name)];
  }

  async deleteWorkspace(workspace: string, _force: boolean): Promise<Diagnostic[]> {
    if (workspace === 'default' || workspace === '') return [error("can't delete default state")];
    try {
      await this.ready();
      await this.pool.query(`DELETE FROM ${this.schema}.${TABLE} WHERE name = $1`, [workspace]);
      return [];
    } catch (e) {
      return [error(pgErrorText(e))];
    }
  }

  /**
   * Terraform's StateMgr: a workspace that has no row yet is created under the lock with an empty state (new
   * lineage, serial 1), so that Workspaces() lists it.
   */
  async stateMgr(workspace: string): Promise<PgStateManager> {
    await this.ready();
    const mgr = new PgStateManager(this, workspace || 'default');
    const existing = await this.workspaces();
    if (!existing.includes(mgr.name)) {
      const info: LockInfo = { ID: newLineage(randomBytes), Operation: 'init', Info: '', Who: whoAmI(), Version: TERRAFORM_VERSION, Created: nowRFC3339(), Path: '' };
      let id: string;
      try {
        id = await mgr.lock(info);
      } catch (e) {
        throw new Error(`failed to lock state in Postgres: ${(e as Error).message}`);
      }
      try {
        await mgr.refresh();
        if (mgr.read() === null) {
          mgr.write(new State());
          const d = await mgr.persist();
          if (d.length) throw new Error(d[0].detail || d[0].summary);
        }
      } finally {
        try {
          await mgr.unlock(id);
        } catch (e) {
          // eslint-disable-next-line no-unsafe-finally
          throw new Error(`error unlocking Postgres state: ${(e as Error).message}`);
        }
      }
    }
    return mgr;
  }

  /** Ends the pool (tests, the language server when a directory closes). */
  async close(): Promise<void> {
    await this.pool.end();
  }
}

function whoAmI(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // keep "unknown"
  }
  return `${user}@${hostname()}`;
}

export class PgStateManager implements Full {
  private file: StateFile | undefined;
  private readFile: StateFile | undefined;
  private readCanon: string | undefined;

  private lockClient: pg.PoolClient | undefined;
  private lockKey: string | undefined;
  private lockID = '';

  private journal: JournalWriter | undefined;
  private journalState: State | undefined;
  private lastPersist = 0;
  /**
   * Set by writeForMigration: the next persist writes the source's serial and lineage exactly. (Terraform 1.11.4's
   * remote.State re-reads a missing row and starts a new lineage at serial 1, or bumps the serial over an existing
   * row; Foresight keeps both, so a migration loses nothing.)
   */
  private migrated = false;

  /** Bytes of state text upserted by this manager (the benchmark reads it). */
  bytesWritten = 0;
  /** Number of upserts by this manager. */
  writes = 0;

  constructor(
    private readonly backend: PgBackend,
    readonly name: string,
  ) {}

  private get q(): string {
    return `${this.backend.schema}.${TABLE}`;
  }

  get locked(): boolean {
    return this.lockID !== '';
  }

  /** Where a lock info file would be: pg keeps none (the lock is in the database), so this never exists. */
  lockInfoPath(): string {
    return join(this.backend.settings.journalDir ?? '.terraform', 'pg-journal', '.no-lock-info');
  }

  // ---- Reader / Writer --------------------------------------------------------------------------------------------

  read(): State | null {
    return this.file ? this.file.state.deepCopy() : null;
  }

  write(state: State): void {
    this.file = this.file ? { ...this.file, state: state.deepCopy() } : { terraformVersion: TERRAFORM_VERSION, serial: 0, lineage: '', state: state.deepCopy() };
  }

  meta(): SnapshotMeta {
    return { serial: this.file?.serial ?? 0, lineage: this.file?.lineage ?? '' };
  }

  /** The snapshot with its lineage and serial (state migration). */
  fileForMigration(): StateFile | undefined {
    return this.file ? { ...this.file, state: this.file.state.deepCopy() } : undefined;
  }

  /** WriteStateForMigration(force): takes the source's state, lineage and serial as they are. */
  writeForMigration(f: StateFile): void {
    this.file = { terraformVersion: TERRAFORM_VERSION, serial: f.serial, lineage: f.lineage, state: f.state.deepCopy() };
    this.migrated = true;
  }

  // ---- Refresher --------------------------------------------------------------------------------------------------

  private async get(): Promise<string | undefined> {
    const r = await (this.lockClient ?? this.backend.pool).query(`SELECT data FROM ${this.q} WHERE name = $1`, [this.name]);
    if (r.rows.length === 0) return undefined;
    return (r.rows[0] as { data: string | null }).data ?? '';
  }

  async refresh(): Promise<Diagnostic[]> {
    let text: string | undefined;
    try {
      text = await this.get();
    } catch (e) {
      return [error(pgErrorText(e))];
    }
    const diags: Diagnostic[] = [];
    if (text === undefined) {
      this.file = undefined;
      this.readFile = undefined;
    } else {
      const r = readStateFile(text);
      if (r.diags.some((d) => d.severity === 'error')) return r.diags;
      diags.push(...r.diags);
      this.file = r.file;
      this.readFile = r.file ? { ...r.file, state: r.file.state.deepCopy() } : undefined;
    }
    this.readCanon = undefined;
    diags.push(...(await this.recoverJournal()));
    return diags;
  }

  // ---- Persister --------------------------------------------------------------------------------------------------

  private async put(text: string): Promise<void> {
    await (this.lockClient ?? this.backend.pool).query(
      `INSERT INTO ${this.q} (name, data) VALUES ($1, $2)\n\t\tON CONFLICT (name) DO UPDATE\n\t\tSET data = $2 WHERE ${TABLE}.name = $1`,
      [this.name, text],
    );
    this.bytesWritten += Buffer.byteLength(text);
    this.writes++;
  }

  async persist(): Promise<Diagnostic[]> {
    if (!this.file) return [];
    const canon = canonicalState(this.file.state);
    let { serial, lineage } = this.file;
    if (this.migrated) {
      this.migrated = false;
    } else if (this.readFile) {
      if (this.readCanon === undefined) this.readCanon = canonicalState(this.readFile.state);
      const unchanged = canon === this.readCanon && this.readFile.lineage !== '' && lineage === this.readFile.lineage && this.readFile.serial !== 0 && serial === this.readFile.serial;
      if (unchanged) {
        this.dropJournalIfDone(canon);
        return [];
      }
      serial++;
    } else {
      // No snapshot read (no row yet): a first write is serial 1 (the lineage may already have been chosen by
      // the apply journal).
      if (lineage === '') lineage = newLineage(randomBytes);
      serial++;
    }
    const next: StateFile = { terraformVersion: TERRAFORM_VERSION, serial, lineage, state: this.file.state };
    try {
      if (this.journal) this.journal.checkpoint(serial);
      await this.put(withMeta(canon, next));
    } catch (e) {
      return [error('Failed to save state', `Error saving state: ${pgErrorText(e)}`)];
    }
    this.file = next;
    this.readFile = { ...next, state: next.state.deepCopy() };
    this.readCanon = canon;
    this.lastPersist = Date.now();
    this.dropJournalIfDone(canon);
    return [];
  }

  private dropJournalIfDone(canon: string): void {
    if (this.journal && this.journalState && canonicalState(this.journalState) === canon) {
      this.journal.remove();
      this.journal = undefined;
      this.journalState = undefined;
    }
  }

  // ---- Apply journal ----------------------------------------------------------------------------------------------

  /** The journal file of this workspace in this database (one per conn_str, schema and workspace). */
  journalPath(): string | undefined {
    const dir = this.backend.settings.journalDir;
    if (!dir) return undefined;
    const id = createHash('sha256').update(`${this.backend.settings.connStr}\0${this.backend.settings.schemaName}\0${this.name}`).digest('hex').slice(0, 16);
    return join(dir, 'pg-journal', `${this.name.replace(/[^A-Za-z0-9_.-]/g, '_')}-${id}.journal`);
  }

  /**
   * A listener for the apply walk's SyncState: each change is journalled (fsynced) when a journal dir is known;
   * the row is rewritten when `persistIntervalMs` has passed since the last write. The caller ends the walk with
   * write(final) + persist(), which removes the journal once the row holds all of it.
   */
  journalListener(start: State): ChangeListener {
    this.journalState = start.deepCopy();
    this.lastPersist = Date.now();
    const interval = this.backend.settings.persistIntervalMs ?? 20000;
    const jp = this.journalPath();
    return (c: Change) => {
      const st = this.journalState!;
      if (jp && !this.journal) {
        if (!this.file) this.write(st);
        if (this.file!.lineage === '') this.file = { ...this.file!, lineage: newLineage(randomBytes) };
        mkdirSync(join(jp, '..'), { recursive: true });
        this.journal = new JournalWriter(jp, {
          lineage: this.file!.lineage,
          disk_serial: this.readFile ? this.readFile.serial : null,
          base: writeStateFile({ terraformVersion: TERRAFORM_VERSION, serial: 0, lineage: this.file!.lineage, state: st }),
        });
      }
      this.journal?.append(c);
      applyChange(st, c);
      if (Date.now() - this.lastPersist >= interval) {
        this.lastPersist = Date.now();
        this.write(st);
        return this.persist().then((d) => {
          if (d.length) throw new Error(d[0].detail || d[0].summary);
        });
      }
    };
  }

  /**
   * J5/J6 for the pg row: replays a leftover journal onto the row it came from; under the lock the row is rewritten
   * and the journal deleted, without it (plan -lock=false, state list) the replay stays in memory.
   */
  private async recoverJournal(): Promise<Diagnostic[]> {
    const jp = this.journalPath();
    if (!jp || this.journal || !existsSync(jp)) return [];
    let text: string;
    try {
      text = readFileSync(jp, 'utf8');
    } catch {
      return [];
    }
    const j = decodeJournal(text);
    if (!j.header) {
      if (this.locked) unlinkSync(jp);
      return [];
    }
    const disk = this.readFile ? { lineage: this.readFile.lineage, serial: this.readFile.serial } : undefined;
    if (!journalApplies(j, disk)) {
      if (!this.locked) return [];
      renameSync(jp, jp + '.stale');
      return [warning('Stale state journal set aside', `Foresight found the journal of an interrupted run for workspace "${this.name}", but the state in the database was changed after that run, so the journal was not replayed. It was moved to ${jp}.stale for inspection.`)];
    }
    const recovered = replayJournal(j)!;
    const diags: Diagnostic[] = [];
    if (j.tail) diags.push(warning('Incomplete state journal record ignored', `The last change recorded by an interrupted run could not be read (${j.tail}); it was not applied. This happens when a run stops while writing.`));
    const top = Math.max(disk?.serial ?? 0, j.header.disk_serial ?? 0, ...j.checkpoints);
    const same = !!this.readFile && canonicalState(this.readFile.state) === canonicalState(recovered);
    if (!this.locked) {
      if (!same) {
        const f: StateFile = { terraformVersion: TERRAFORM_VERSION, serial: top + 1, lineage: j.header.lineage, state: recovered };
        this.file = f;
        this.readFile = { ...f, state: recovered.deepCopy() };
      }
      return diags;
    }
    if (!same) {
      const f: StateFile = { terraformVersion: TERRAFORM_VERSION, serial: top + 1, lineage: j.header.lineage, state: recovered };
      await this.put(writeStateFile(f));
      this.file = f;
      this.readFile = { ...f, state: recovered.deepCopy() };
      this.readCanon = undefined;
    }
    unlinkSync(jp);
    diags.push(warning('State recovered from journal', `Foresight replayed ${j.changes.length} recorded change(s) of an interrupted run onto workspace "${this.name}" in the database.`));
    return diags;
  }

  // ---- Locker -----------------------------------------------------------------------------------------------------

  async lock(info: LockInfo): Promise<string> {
    if (this.lockID !== '') throw new Error(`state "${this.name}" already locked`);
    const mine: LockInfo = { ...info, Created: info.Created || nowRFC3339() };
    const fail = (msg: string) => new LockError([msg], { ...mine, Path: '' });
    let client: pg.PoolClient;
    try {
      client = await this.backend.pool.connect();
    } catch (e) {
      throw fail(pgErrorText(e));
    }
    let keep = false;
    try {
      // Two columns share a name: read the row as an array.
      const r = await client.query<[string, boolean, boolean]>({
        text: `SELECT ${TABLE}.id, pg_try_advisory_lock(${TABLE}.id), pg_try_advisory_lock(-1) FROM ${this.q} WHERE ${TABLE}.name = $1`,
        values: [this.name],
        rowMode: 'array',
      });
      if (r.rows.length === 0) {
        const c = await client.query('SELECT pg_try_advisory_lock(-1) AS ok');
        if (!c.rows[0].ok) throw fail(`Already locked for workspace creation: ${this.name}`);
        this.lockKey = '-1';
      } else {
        const [rawId, didLock, didLockForCreate] = r.rows[0];
        const id = String(rawId);
        if (!didLock) {
          if (didLockForCreate) await client.query('SELECT pg_advisory_unlock(-1)');
          throw fail(`Workspace is already locked: ${this.name}`);
        }
        if (!didLockForCreate) {
          await client.query(`SELECT pg_advisory_unlock(${id})`);
          throw fail(`Cannot lock workspace; already locked for workspace creation: ${this.name}`);
        }
        await client.query('SELECT pg_advisory_unlock(-1)');
        this.lockKey = id;
      }
      keep = true;
    } catch (e) {
      if (e instanceof LockError) throw e;
      throw fail(pgErrorText(e));
    } finally {
      if (!keep) client.release();
    }
    this.lockClient = client;
    this.lockID = mine.ID;
    return mine.ID;
  }

  /**
   * Who holds this workspace's advisory lock, from pg_locks and pg_stat_activity (read only: nothing is locked to
   * find out). PostgreSQL keeps no Terraform lock info, so the holder is the session: role, client address,
   * application name, and since when it is connected. null when no other session holds it.
   */
  async lockHolder(): Promise<LockHolder | null> {
    const client = await this.backend.pool.connect();
    try {
      const row = await client.query<{ id: string }>({ text: `SELECT ${TABLE}.id FROM ${this.q} WHERE ${TABLE}.name = $1`, values: [this.name] });
      // A bigint advisory key k is (classid, objid) = (k >> 32, k & 0xffffffff) with objsubid 1; -1 is the
      // creation lock a workspace without a row is locked with.
      const key = row.rows.length ? BigInt(row.rows[0].id) : -1n;
      const u = BigInt.asUintN(64, key);
      const r = await client.query<{ pid: number; usename: string | null; client_addr: string | null; application_name: string | null; backend_start: Date | null }>({
        text:
          "SELECT l.pid, a.usename, host(a.client_addr) AS client_addr, a.application_name, a.backend_start FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid " +
          "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.classid::bigint = $1 AND l.objid::bigint = $2 AND l.pid <> pg_backend_pid() AND l.pid <> $3 LIMIT 1",
        values: [String(u >> 32n), String(u & 0xffffffffn), this.lockClient ? ((this.lockClient as unknown as { processID?: number }).processID ?? 0) : 0],
      });
      if (!r.rows.length) return null;
      const h = r.rows[0];
      const where = h.client_addr ? `${h.client_addr}` : 'a local socket';
      const app = h.application_name ? `, ${h.application_name}` : '';
      return {
        id: `PostgreSQL session ${h.pid}`,
        who: `${h.usename ?? 'a PostgreSQL role'} from ${where}${app}`,
        operation: 'a run (PostgreSQL keeps no lock info)',
        created: h.backend_start ? h.backend_start.toISOString() : 'unknown',
      };
    } finally {
      client.release();
    }
  }

  async unlock(_id: string): Promise<void> {
    const client = this.lockClient;
    if (!client || this.lockKey === undefined) return;
    // An unfinished journal stays on disk: it is exactly what a crash would have left.
    this.journal?.close();
    this.journal = undefined;
    try {
      await client.query(`SELECT pg_advisory_unlock(${this.lockKey})`);
    } catch (e) {
      client.release(true);
      this.lockClient = undefined;
      throw new LockError([pgErrorText(e)]);
    }
    client.release();
    this.lockClient = undefined;
    this.lockKey = undefined;
    this.lockID = '';
  }
}
