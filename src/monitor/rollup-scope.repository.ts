import { sql, type RawBuilder } from 'kysely';
import type { AuditScope, TimeRange } from './audit-range.js';
import { ALL, ROLLUP_MODES } from './audit-rollup.js';

/**
 * SQL pieces shared by the monitoring reads of the totals, daily errors and error hours, which
 * keep the whole deployment as account `*`: a scope is one account's rows or the deployment's,
 * never a sum over accounts. A scope of every mode names them all (`mode IN (...)`), so the
 * primary key (account, mode, time, ...) is read as a few ranges, not scanned.
 */
export function rollupScope(table: string, scope: AuditScope): RawBuilder<unknown> {
  const account = sql`${sql.ref(`${table}.account_id`)} = ${scope.accountId ?? ALL}`;
  const modes = scope.mode !== null ? [scope.mode] : ROLLUP_MODES;
  return sql`${account} AND ${sql.ref(`${table}.mode`)} IN (${sql.join(modes.map((m) => sql`${m}`))})`;
}

/** `column` within any of the half-open ranges. */
export function withinRanges(column: string, ranges: readonly TimeRange[]): RawBuilder<unknown> {
  if (ranges.length === 0) return sql`FALSE`;
  return sql`(${sql.join(ranges.map((r) => sql`(${sql.ref(column)} >= ${r.start} AND ${sql.ref(column)} < ${r.end})`), sql` OR `)})`;
}

/** Every mode a scope without one covers, for the tables that still sum accounts (a list, as above). */
export function modesOf(scope: AuditScope): readonly string[] {
  return scope.mode !== null ? [scope.mode] : ROLLUP_MODES;
}
