import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

const CHUNK = 5000;

/** Deletes rows older than the cut-offs, a chunk at a time; returns the rows deleted per table. */
export async function deleteOlderThan(db: Kysely<Database>, cutoffs: { raw: Date; rollups: Date }): Promise<Record<string, number>> {
  const tables = [
    ['request_log', 'occurred_at', cutoffs.raw],
    ['audit_ips_hourly', 'hour', cutoffs.raw],
    ['audit_ips_daily', 'day', cutoffs.raw],
    ['audit_hourly', 'hour', cutoffs.rollups],
    ['audit_errors_hourly', 'hour', cutoffs.rollups],
  ] as const;
  const deleted: Record<string, number> = {};
  for (const [table, column, before] of tables) {
    deleted[table] = 0;
    for (;;) {
      const result = await sql`DELETE FROM ${sql.table(table)} WHERE ${sql.ref(column)} < ${before} LIMIT ${CHUNK}`.execute(db);
      const n = Number(result.numAffectedRows ?? 0n);
      deleted[table] += n;
      if (n < CHUNK) break;
    }
  }
  return deleted;
}
