// A throwaway PostgreSQL cluster for one test file (scripts/pg.mjs): started before the file's tests and stopped
// after them. Where PostgreSQL cannot be installed or started, `pg` stays undefined, `skipReason` says why and a
// SKIP notice naming `what` is printed once; tests then skip with that reason.
import { after, before } from 'node:test';
// @ts-expect-error: a plain .mjs module without type declarations
import { startPg } from '../scripts/pg.mjs';

export type Pg = { connStr: string; createDb(name: string): string; psql(sql: string, db?: string): string; stop(): void; skip?: string };

export function throwawayCluster(what: string): { pg: Pg | undefined; skipReason: string } {
  const c: { pg: Pg | undefined; skipReason: string } = { pg: undefined, skipReason: '' };
  before(async () => {
    const r = (await startPg({ log: (s: string) => console.log(s) })) as Pg;
    if (r.skip) {
      c.skipReason = r.skip;
      console.log(`# SKIP ${what}: ${r.skip}`);
      return;
    }
    c.pg = r;
  });
  after(() => c.pg?.stop());
  return c;
}
