import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

const CHUNK = 5000;
const DAY_MS = 86_400_000;

function startOfDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** Deletes rows older than the cut-offs, a chunk at a time; returns the rows deleted per table. */
export async function deleteOlderThan(db: Kysely<Database>, cutoffs: { raw: Date; rollups: Date }): Promise<Record<string, number>> {
  const tables = [
    ['request_log', 'occurred_at', cutoffs.raw],
    ['audit_ips_hourly', 'hour', cutoffs.raw],
    ['audit_ips_daily', 'day', cutoffs.raw],
    ['audit_hourly', 'hour', cutoffs.rollups],
    ['audit_errors_hourly', 'hour', cutoffs.rollups],
    // Daily rows of the day a cut-off falls in are kept with the hours after it: the deployment's
    // addresses answer exactly from the cut-off on by their first and last times.
    ['audit_ips_deployment_daily', 'day', startOfDay(cutoffs.raw)],
    ['audit_totals_hourly', 'hour', cutoffs.rollups],
    ['audit_totals_daily', 'day', startOfDay(cutoffs.rollups)],
    ['audit_error_facets_daily', 'day', startOfDay(cutoffs.rollups)],
    ['audit_error_hours_daily', 'day', startOfDay(cutoffs.rollups)],
    // Alerts' delivery logs go with the raw log; their state changes with the rollups.
    ['notification_deliveries', 'created_at', cutoffs.raw],
    ['alert_events', 'occurred_at', cutoffs.rollups],
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
