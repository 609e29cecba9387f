import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { AuditScope, TimeRange } from './audit-range.js';
import { LATENCY_BUCKETS } from './latency-buckets.js';

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

type Hourly = ExpressionBuilder<Database, 'audit_hourly'>;

function inScope(eb: Hourly, scope: AuditScope, hours: TimeRange): Expression<SqlBool> {
  const all: Expression<SqlBool>[] = [eb('hour', '>=', hours.start), eb('hour', '<', hours.end)];
  if (scope.accountId !== null) all.push(eb('account_id', '=', scope.accountId));
  if (scope.mode !== null) all.push(eb('mode', '=', scope.mode));
  return eb.and(all);
}

const BUCKET: Record<Breakdown, ReturnType<typeof sql<Date>>> = {
  hour: sql<Date>`hour`,
  day: sql<Date>`DATE(hour)`,
  // ISO weeks: the Monday of the hour's week.
  week: sql<Date>`DATE_SUB(DATE(hour), INTERVAL WEEKDAY(hour) DAY)`,
};

/** Sums of the hourly rollups of `scope` over whole `hours`, by bucket, endpoint and key, with the latency histogram. */
export async function usageRollups(db: Kysely<Database>, scope: AuditScope, hours: TimeRange, breakdown: Breakdown): Promise<UsageRollups> {
  const sums = (eb: Hourly) => [
    eb.fn.sum<string>('requests').as('requests'),
    eb.fn.sum<string>('errors').as('errors'),
    eb.fn.sum<string>('cache_hits').as('cache_hits'),
    eb.fn.sum<string>('latency_ms_sum').as('latency'),
  ];
  const toSums = (row: { requests: string; errors: string; cache_hits: string; latency: string }): RollupSums => ({
    requests: Number(row.requests), errors: Number(row.errors), cacheHits: Number(row.cache_hits), latencyMsSum: Number(row.latency),
  });
  const [byBucket, byEndpoint, byKey, histogram] = await Promise.all([
    db.selectFrom('audit_hourly').select((eb) => [BUCKET[breakdown].as('bucket'), ...sums(eb)])
      .where((eb) => inScope(eb, scope, hours)).groupBy(sql`bucket`).execute(),
    db.selectFrom('audit_hourly').select((eb) => ['endpoint', ...sums(eb)])
      .where((eb) => inScope(eb, scope, hours)).groupBy('endpoint').execute(),
    db.selectFrom('audit_hourly').select((eb) => ['key_id', ...sums(eb)])
      .where((eb) => inScope(eb, scope, hours)).groupBy('key_id').execute(),
    db.selectFrom('audit_hourly').select((eb) => LATENCY_COLUMNS.map((c) => eb.fn.sum<string>(c).as(c)))
      .where((eb) => inScope(eb, scope, hours)).executeTakeFirst(),
  ]);
  return {
    buckets: new Map(byBucket.map((row) => [new Date(row.bucket).getTime(), toSums(row)])),
    endpoints: new Map(byEndpoint.map((row) => [row.endpoint, toSums(row)])),
    keys: new Map(byKey.map((row) => [row.key_id, toSums(row)])),
    latency: LATENCY_COLUMNS.map((c) => Number((histogram as Record<string, string | null> | undefined)?.[c] ?? 0)),
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
  const rows = await db.selectFrom('audit_hourly')
    .select((eb) => [
      'hour',
      eb.fn.sum<string>('requests').as('requests'),
      eb.fn.sum<string>('errors').as('errors'),
      eb.fn.sum<string>('cache_hits').as('cache_hits'),
      eb.fn.sum<string>('latency_ms_sum').as('latency'),
      ...LATENCY_COLUMNS.map((c) => eb.fn.sum<string>(c).as(c)),
    ])
    .where((eb) => inScope(eb, scope, hours)).groupBy('hour').orderBy('hour').execute();
  return rows.map((row) => ({
    hour: new Date(row.hour).getTime(),
    requests: Number(row.requests),
    errors: Number(row.errors),
    cacheHits: Number(row.cache_hits),
    latencyMsSum: Number(row.latency),
    latency: LATENCY_COLUMNS.map((c) => Number((row as Record<string, unknown>)[c] ?? 0)),
  }));
}
