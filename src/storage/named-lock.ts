import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Runs `work` on one connection while it holds the MySQL named lock `name` (GET_LOCK), scoped to
 * the current database so that deployments sharing a server do not wait on each other. For
 * check-then-write rules a unique index cannot state, such as "at most N per owner": writers of
 * one name take turns, writers of other names do not wait.
 */
export async function withNamedLock<T>(db: Kysely<Database>, name: string, work: (conn: Kysely<Database>) => Promise<T>, waitSeconds = 10): Promise<T> {
  return db.connection().execute(async (conn) => {
    const lock = sql`CONCAT('sev_', SHA1(CONCAT(DATABASE(), ':', ${name})))`;
    const got = await sql<{ got: number | null }>`SELECT GET_LOCK(${lock}, ${waitSeconds}) AS got`.execute(conn);
    if (Number(got.rows[0]?.got) !== 1) throw new Error(`the lock ${name} was not free within ${waitSeconds} s`);
    try {
      return await work(conn);
    } finally {
      await sql`SELECT RELEASE_LOCK(${lock})`.execute(conn);
    }
  });
}
