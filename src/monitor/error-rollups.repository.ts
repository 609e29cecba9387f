import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { AuditScope, TimeRange } from './audit-range.js';
import { dayTiers } from './audit-range.js';
import { ALL } from './audit-rollup.js';
import { modesOf, rollupScope, withinRanges } from './rollup-scope.repository.js';

/** Errors of one code, endpoint, parameter and client product over the range. */
export interface ErrorCell {
  code: string;
  endpoint: string;
  parameter: string;
  agent: string;
  errors: number;
  latencyMsSum: number;
}

export interface ErrorFacts {
  /** Ordered by code, endpoint, parameter and agent. */
  cells: ErrorCell[];
  /** Per code, its errors in each hour of the day (UTC, 0..23). */
  hoursOfDay: Map<string, number[]>;
}

const HOUR_COLUMNS = Array.from({ length: 24 }, (_, i) => `h_${i}` as const);

interface CellRow {
  error_code: string;
  endpoint: string;
  parameter: string;
  agent: string;
  errors: string;
  latency: string;
}

/**
 * The errors of the scope over whole hours: whole days from the daily errors and error hours,
 * the hours around them from the hourly errors (for the whole deployment, the hourly rows of
 * every account: at most two days' worth).
 */
export async function errorFacts(db: Kysely<Database>, scope: AuditScope, hours: TimeRange): Promise<ErrorFacts> {
  const tiers = dayTiers(hours);
  const hourlyScope = sql.join([
    ...(scope.accountId !== null ? [sql`account_id = ${scope.accountId}`] : []),
    sql`mode IN (${sql.join(modesOf(scope).map((m) => sql`${m}`))})`,
  ], sql` AND `);
  const [edges, days, dayHours] = await Promise.all([
    tiers.hours.length === 0 ? [] : sql<CellRow & { hour_of_day: number }>`
      SELECT error_code, endpoint, parameter, agent, HOUR(hour) AS hour_of_day, SUM(errors) AS errors, SUM(latency_ms_sum) AS latency
      FROM audit_errors_hourly WHERE ${hourlyScope} AND ${withinRanges('hour', tiers.hours)}
      GROUP BY error_code, endpoint, parameter, agent, hour_of_day`.execute(db).then((r) => r.rows),
    tiers.days.length === 0 ? [] : sql<CellRow>`
      SELECT error_code, endpoint, parameter, agent, SUM(errors) AS errors, SUM(latency_ms_sum) AS latency
      FROM audit_errors_daily WHERE ${rollupScope('audit_errors_daily', scope)} AND ${withinRanges('day', tiers.days)}
      GROUP BY error_code, endpoint, parameter, agent`.execute(db).then((r) => r.rows),
    tiers.days.length === 0 ? [] : sql<{ error_code: string } & Record<string, string>>`
      SELECT error_code, ${sql.join(HOUR_COLUMNS.map((c) => sql`SUM(${sql.ref(c)}) AS ${sql.ref(c)}`))}
      FROM audit_error_hours_daily WHERE ${rollupScope('audit_error_hours_daily', scope)} AND ${withinRanges('day', tiers.days)}
      GROUP BY error_code`.execute(db).then((r) => r.rows),
  ]);

  const cells = new Map<string, ErrorCell>();
  const hoursOfDay = new Map<string, number[]>();
  const hoursOf = (code: string) => {
    let counts = hoursOfDay.get(code);
    if (!counts) hoursOfDay.set(code, (counts = new Array<number>(24).fill(0)));
    return counts;
  };
  for (const row of [...edges, ...days]) {
    const key = `${row.error_code}\0${row.endpoint}\0${row.parameter}\0${row.agent}`;
    const cell = cells.get(key) ?? { code: row.error_code, endpoint: row.endpoint, parameter: row.parameter, agent: row.agent, errors: 0, latencyMsSum: 0 };
    cell.errors += Number(row.errors);
    cell.latencyMsSum += Number(row.latency);
    cells.set(key, cell);
  }
  for (const row of edges) hoursOf(row.error_code)[Number(row.hour_of_day)]! += Number(row.errors);
  for (const row of dayHours) {
    const counts = hoursOf(row.error_code);
    HOUR_COLUMNS.forEach((c, i) => (counts[i]! += Number(row[c] ?? 0)));
  }
  const order = (a: ErrorCell, b: ErrorCell) => compare(a.code, b.code) || compare(a.endpoint, b.endpoint) || compare(a.parameter, b.parameter) || compare(a.agent, b.agent);
  return { cells: [...cells.values()].sort(order), hoursOfDay };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Requests and failed requests of the scope over whole hours, from the hourly totals rows. */
export async function requestTotals(db: Kysely<Database>, scope: AuditScope, hours: TimeRange): Promise<{ requests: number; errors: number }> {
  const { rows } = await sql<{ requests: string | null; errors: string | null }>`
    SELECT SUM(requests) AS requests, SUM(errors) AS errors FROM audit_totals_hourly FORCE INDEX (audit_totals_hourly_totals)
    WHERE ${rollupScope('audit_totals_hourly', scope)} AND key_id = ${ALL} AND endpoint = ${ALL} AND hour >= ${hours.start} AND hour < ${hours.end}`
    .execute(db);
  return { requests: Number(rows[0]?.requests ?? 0), errors: Number(rows[0]?.errors ?? 0) };
}
