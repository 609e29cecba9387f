import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { StartupError } from '../errors/startup-error.js';

/**
 * What the service needs of the database server beyond the schema, checked at start-up so a
 * misconfigured server stops the service with a reason instead of corrupting data later.
 *
 * The index writes documents and passages with multi-row INSERTs and takes their ids as the
 * first insert id plus the row's offset (writer.repository.ts). That holds with
 * innodb_autoinc_lock_mode 0 or 1 (MariaDB's default); with 2 ("interleaved", MySQL 8's
 * default) concurrent inserts may interleave their ids, and passages would be filed under the
 * wrong documents.
 */
export async function checkServerRequirements(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ mode: number | string }>`SELECT @@innodb_autoinc_lock_mode AS mode`.execute(db);
  const problem = autoincLockModeProblem(Number(rows[0]?.mode));
  if (problem) throw new StartupError(problem);
}

/** Why the server's innodb_autoinc_lock_mode cannot be used, or null when it can. */
export function autoincLockModeProblem(mode: number): string | null {
  if (mode === 0 || mode === 1) return null;
  return `The database server runs with innodb_autoinc_lock_mode=${mode}; the search index needs 0 or 1 `
    + '(consecutive ids within a multi-row INSERT). Set innodb_autoinc_lock_mode=1 in the server\'s configuration '
    + '(MariaDB\'s default; MySQL 8 defaults to 2) and restart it.';
}
