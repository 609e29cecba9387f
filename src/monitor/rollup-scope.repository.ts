import { sql, type RawBuilder } from 'kysely';
import type { TimeRange } from './audit-range.js';

/** `column` within any of the half-open ranges. */
export function withinRanges(column: string, ranges: readonly TimeRange[]): RawBuilder<unknown> {
  if (ranges.length === 0) return sql`FALSE`;
  return sql`(${sql.join(ranges.map((r) => sql`(${sql.ref(column)} >= ${r.start} AND ${sql.ref(column)} < ${r.end})`), sql` OR `)})`;
}
