import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { AuditScope, TimeRange } from './audit-range.js';
import { dayTiers } from './audit-range.js';
import { ALL } from './audit-rollup.js';
import { rollupScope, withinRanges } from './rollup-scope.repository.js';

/** One error code over a range: its errors and latency, by endpoint, parameter and client product, and by hour of the day. */
export interface CodeFacts {
  errors: number;
  latencyMsSum: number;
  endpoints: Map<string, number>;
  /** Errors naming no parameter, or sent without a user agent, are not in these. */
  parameters: Map<string, number>;
  agents: Map<string, number>;
  /** Errors in each hour of the day (UTC, 0..23). */
  hoursOfDay: number[];
}

const HOUR_COLUMNS = Array.from({ length: 24 }, (_, i) => `h_${i}` as const);

/**
 * The errors of the scope over whole hours, per code: whole days from the daily error facets and
 * error hours, the hours around them from the hourly errors (the deployment's own rows for the
 * whole deployment, account `*`).
 */
export async function errorFacts(db: Kysely<Database>, scope: AuditScope, hours: TimeRange): Promise<Map<string, CodeFacts>> {
  const tiers = dayTiers(hours);
  const [edges, facets, dayHours] = await Promise.all([
    tiers.hours.length === 0 ? [] : sql<{ error_code: string; endpoint: string; parameter: string; agent: string; hour_of_day: number; errors: string; latency: string }>`
      SELECT error_code, endpoint, parameter, agent, HOUR(hour) AS hour_of_day, SUM(errors) AS errors, SUM(latency_ms_sum) AS latency
      FROM audit_errors_hourly WHERE ${rollupScope('audit_errors_hourly', scope)} AND ${withinRanges('hour', tiers.hours)}
      GROUP BY error_code, endpoint, parameter, agent, hour_of_day`.execute(db).then((r) => r.rows),
    tiers.days.length === 0 ? [] : sql<{ error_code: string; facet: 'endpoint' | 'parameter' | 'agent'; value: string; errors: string; latency: string }>`
      SELECT error_code, facet, value, SUM(errors) AS errors, SUM(latency_ms_sum) AS latency
      FROM audit_error_facets_daily WHERE ${rollupScope('audit_error_facets_daily', scope)} AND ${withinRanges('day', tiers.days)}
      GROUP BY error_code, facet, value`.execute(db).then((r) => r.rows),
    tiers.days.length === 0 ? [] : sql<{ error_code: string } & Record<string, string>>`
      SELECT error_code, ${sql.join(HOUR_COLUMNS.map((c) => sql`SUM(${sql.ref(c)}) AS ${sql.ref(c)}`))}
      FROM audit_error_hours_daily WHERE ${rollupScope('audit_error_hours_daily', scope)} AND ${withinRanges('day', tiers.days)}
      GROUP BY error_code`.execute(db).then((r) => r.rows),
  ]);

  const codes = new Map<string, CodeFacts>();
  const of = (code: string) => {
    let facts = codes.get(code);
    if (!facts) {
      facts = { errors: 0, latencyMsSum: 0, endpoints: new Map(), parameters: new Map(), agents: new Map(), hoursOfDay: new Array<number>(24).fill(0) };
      codes.set(code, facts);
    }
    return facts;
  };
  const add = (map: Map<string, number>, key: string, n: number) => {
    if (key !== '') map.set(key, (map.get(key) ?? 0) + n);
  };
  for (const row of edges) {
    const facts = of(row.error_code);
    const n = Number(row.errors);
    facts.errors += n;
    facts.latencyMsSum += Number(row.latency);
    add(facts.endpoints, row.endpoint, n);
    add(facts.parameters, row.parameter, n);
    add(facts.agents, row.agent, n);
    facts.hoursOfDay[Number(row.hour_of_day)]! += n;
  }
  for (const row of facets) {
    const facts = of(row.error_code);
    const n = Number(row.errors);
    // Every error has an endpoint: the endpoint rows hold the code's errors and latency.
    if (row.facet === 'endpoint') {
      facts.errors += n;
      facts.latencyMsSum += Number(row.latency);
    }
    add(row.facet === 'endpoint' ? facts.endpoints : row.facet === 'parameter' ? facts.parameters : facts.agents, row.value, n);
  }
  for (const row of dayHours) {
    const counts = of(row.error_code).hoursOfDay;
    HOUR_COLUMNS.forEach((c, i) => (counts[i]! += Number(row[c] ?? 0)));
  }
  return codes;
}

/** Requests and failed requests of the scope over whole hours, from the hourly totals rows. */
export async function requestTotals(db: Kysely<Database>, scope: AuditScope, hours: TimeRange): Promise<{ requests: number; errors: number }> {
  const { rows } = await sql<{ requests: string | null; errors: string | null }>`
    SELECT SUM(requests) AS requests, SUM(errors) AS errors FROM audit_totals_hourly FORCE INDEX (audit_totals_hourly_totals)
    WHERE ${rollupScope('audit_totals_hourly', scope)} AND key_id = ${ALL} AND endpoint = ${ALL} AND hour >= ${hours.start} AND hour < ${hours.end}`
    .execute(db);
  return { requests: Number(rows[0]?.requests ?? 0), errors: Number(rows[0]?.errors ?? 0) };
}
