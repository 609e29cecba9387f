import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { AuditScope, TimeRange } from './audit-range.js';
import { dayTiers } from './audit-range.js';
import { ALL } from './audit-rollup.js';
import { LATENCY_BUCKETS } from './latency-buckets.js';
import { rollupScope, withinRanges } from './rollup-scope.repository.js';

export type Breakdown = 'hour' | 'day' | 'week';

export interface RollupSums {
  requests: number;
  errors: number;
  cacheHits: number;
  latencyMsSum: number;
}

export interface UsageRollups {
  /** Keyed by bucket start: the hour, or the day (week: its Monday), as epoch ms. */
  buckets: Map<number, RollupSums>;
  endpoints: Map<string, RollupSums>;
  keys: Map<string, RollupSums>;
  latency: number[];
}

const LATENCY_COLUMNS = Array.from({ length: LATENCY_BUCKETS }, (_, i) => `lat_${i}` as const);

const BUCKET: Record<Breakdown, ReturnType<typeof sql<Date>>> = {
  hour: sql<Date>`hour`,
  day: sql<Date>`DATE(hour)`,
  // ISO weeks: the Monday of the hour's week.
  week: sql<Date>`DATE_SUB(DATE(hour), INTERVAL WEEKDAY(hour) DAY)`,
};

const SUMS = sql`SUM(requests) AS requests, SUM(errors) AS errors, SUM(cache_hits) AS cache_hits, SUM(latency_ms_sum) AS latency`;

interface SumsRow {
  requests: string;
  errors: string;
  cache_hits: string;
  latency: string;
}

function toSums(row: SumsRow): RollupSums {
  return { requests: Number(row.requests), errors: Number(row.errors), cacheHits: Number(row.cache_hits), latencyMsSum: Number(row.latency) };
}

/**
 * Sums of `scope` over whole `hours`, by bucket, endpoint and key, with the latency histogram.
 * Buckets and the histogram come from the hourly totals rows (a month is 720 rows, read through
 * the index that keeps them together); endpoints and keys from the daily totals for whole days
 * and the hourly ones around them.
 */
export async function usageRollups(db: Kysely<Database>, scope: AuditScope, hours: TimeRange, breakdown: Breakdown): Promise<UsageRollups> {
  const tiers = dayTiers(hours);
  /** Rows of one kind (endpoint rows: key `*`; key rows: endpoint `*`) over the range, summed by `column`. */
  const byDimension = (column: 'endpoint' | 'key_id') => {
    const kind = column === 'endpoint' ? sql`key_id = ${ALL} AND endpoint <> ${ALL}` : sql`endpoint = ${ALL} AND key_id <> ${ALL}`;
    const part = (table: 'audit_totals_hourly' | 'audit_totals_daily', time: 'hour' | 'day', ranges: TimeRange[]) =>
      sql`SELECT ${sql.ref(column)} AS name, requests, errors, cache_hits, latency_ms_sum FROM ${sql.table(table)}
        WHERE ${rollupScope(table, scope)} AND ${kind} AND ${withinRanges(time, ranges)}`;
    const parts = [
      ...(tiers.hours.length > 0 ? [part('audit_totals_hourly', 'hour', tiers.hours)] : []),
      ...(tiers.days.length > 0 ? [part('audit_totals_daily', 'day', tiers.days)] : []),
    ];
    if (parts.length === 0) return Promise.resolve([]);
    return sql<SumsRow & { name: string }>`SELECT name, ${SUMS} FROM (${sql.join(parts, sql` UNION ALL `)}) AS t GROUP BY name`
      .execute(db).then((r) => r.rows);
  };
  const [byBucket, byEndpoint, byKey] = await Promise.all([
    sql<SumsRow & { bucket: Date } & Record<string, string>>`SELECT ${BUCKET[breakdown]} AS bucket, ${SUMS},
        ${sql.join(LATENCY_COLUMNS.map((c) => sql`SUM(${sql.ref(c)}) AS ${sql.ref(c)}`))}
      FROM audit_totals_hourly FORCE INDEX (audit_totals_hourly_totals)
      WHERE ${rollupScope('audit_totals_hourly', scope)} AND key_id = ${ALL} AND endpoint = ${ALL} AND hour >= ${hours.start} AND hour < ${hours.end}
      GROUP BY bucket`.execute(db).then((r) => r.rows),
    byDimension('endpoint'),
    byDimension('key_id'),
  ]);
  const latency = LATENCY_COLUMNS.map((c) => byBucket.reduce((sum, row) => sum + Number(row[c] ?? 0), 0));
  return {
    buckets: new Map(byBucket.map((row) => [new Date(row.bucket).getTime(), toSums(row)])),
    endpoints: new Map(byEndpoint.map((row) => [row.name, toSums(row)])),
    keys: new Map(byKey.map((row) => [row.name, toSums(row)])),
    latency,
  };
}

/** One hour of the hourly rollups of a scope, summed over keys and endpoints, with its latency histogram. */
export interface HourRollup extends RollupSums {
  /** Start of the hour, epoch ms. */
  hour: number;
  latency: number[];
}

/** The rollups of `scope` per hour over whole `hours` (hours without requests are absent): what dashboards compute from. */
export async function hourlyRollups(db: Kysely<Database>, scope: AuditScope, hours: TimeRange): Promise<HourRollup[]> {
  const rows = await sql<SumsRow & { hour: Date } & Record<string, string>>`SELECT hour, ${SUMS},
      ${sql.join(LATENCY_COLUMNS.map((c) => sql`SUM(${sql.ref(c)}) AS ${sql.ref(c)}`))}
    FROM audit_totals_hourly FORCE INDEX (audit_totals_hourly_totals)
    WHERE ${rollupScope('audit_totals_hourly', scope)} AND key_id = ${ALL} AND endpoint = ${ALL} AND hour >= ${hours.start} AND hour < ${hours.end}
    GROUP BY hour ORDER BY hour`.execute(db);
  return rows.rows.map((row) => ({
    hour: new Date(row.hour).getTime(),
    ...toSums(row),
    latency: LATENCY_COLUMNS.map((c) => Number(row[c] ?? 0)),
  }));
}
