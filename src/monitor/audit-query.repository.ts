import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { AuditScope, TimeRange } from './audit-range.js';
import { dayTiers } from './audit-range.js';
import { ALL } from './audit-rollup.js';
import { storedEntry, type StoredEntry } from './request-log.repository.js';
import { modesOf, rollupScope, withinRanges } from './rollup-scope.repository.js';

export interface AuditFilter extends AuditScope {
  range: TimeRange;
  endpoint?: string;
  /** true: only failed requests (status >= 400); false: only successful ones. */
  failed?: boolean;
  requestId?: string;
}

export interface AuditTotals {
  requests: number;
  errors: number;
  latencyMsSum: number;
  byEndpoint: Map<string, number>;
  uniqueIps: number;
}

type Raw = ExpressionBuilder<Database, 'request_log'>;

function rawConditions(eb: Raw, filter: AuditFilter, range: TimeRange): Expression<SqlBool> {
  const all: Expression<SqlBool>[] = [eb('occurred_at', '>=', range.start), eb('occurred_at', '<', range.end)];
  if (filter.accountId !== null) all.push(eb('account_id', '=', filter.accountId));
  if (filter.mode !== null) all.push(eb('mode', '=', filter.mode));
  if (filter.endpoint !== undefined) all.push(eb('endpoint', '=', filter.endpoint));
  if (filter.failed !== undefined) all.push(eb('failed', '=', filter.failed ? 1 : 0) as Expression<SqlBool>);
  if (filter.requestId !== undefined) all.push(eb('request_id', '=', filter.requestId));
  return eb.and(all);
}

/**
 * The index a page of the filter is read from, newest first. The position of a page is found in
 * the index alone (it holds occurred_at and id, the order of the page), then only the page's rows
 * are read: an offset of 5,000 skips 5,000 index entries, not 5,000 rows. MariaDB's own choice
 * (the account index with a sort, or the time index over every account) is forced aside.
 */
function pageIndex(filter: AuditFilter): string {
  if (filter.requestId !== undefined) return 'request_log_request_id';
  if (filter.accountId === null || filter.mode === null) return 'request_log_time';
  if (filter.endpoint !== undefined) return 'request_log_account_endpoint_time';
  if (filter.failed !== undefined) return 'request_log_account_failed_time';
  return 'request_log_account_time';
}

function rawWhere(filter: AuditFilter, ranges: readonly TimeRange[]): RawBuilder<unknown> {
  const all: RawBuilder<unknown>[] = [withinRanges('occurred_at', ranges)];
  if (filter.accountId !== null) all.push(sql`account_id = ${filter.accountId}`);
  if (filter.mode !== null) all.push(sql`mode = ${filter.mode}`);
  if (filter.endpoint !== undefined) all.push(sql`endpoint = ${filter.endpoint}`);
  if (filter.failed !== undefined) all.push(sql`failed = ${filter.failed ? 1 : 0}`);
  if (filter.requestId !== undefined) all.push(sql`request_id = ${filter.requestId}`);
  return sql.join(all, sql` AND `);
}

/** A page of entries, newest first (ties in time broken by insertion order). */
export async function listEntries(db: Kysely<Database>, filter: AuditFilter, limit: number, offset: number): Promise<StoredEntry[]> {
  const page = await sql<{ id: number }>`SELECT id FROM request_log FORCE INDEX (${sql.raw(pageIndex(filter))})
    WHERE ${rawWhere(filter, [filter.range])} ORDER BY occurred_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`.execute(db);
  if (page.rows.length === 0) return [];
  const ids = page.rows.map((r) => r.id);
  const rows = await db.selectFrom('request_log').selectAll().where('id', 'in', ids).execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => (byId.has(id) ? [storedEntry(byId.get(id)!)] : []));
}

/**
 * Every entry of the filter, newest first, a page at a time by position (occurred_at, id), so
 * an export of a month never holds more than one page and never rereads skipped rows.
 */
export async function* streamEntries(db: Kysely<Database>, filter: AuditFilter, pageSize = 1000): AsyncGenerator<StoredEntry> {
  let after: { at: Date; id: number } | undefined;
  for (;;) {
    const rows = await db
      .selectFrom('request_log')
      .selectAll()
      .where((eb) => {
        const base = rawConditions(eb, filter, filter.range);
        if (!after) return base;
        const { at, id } = after;
        return eb.and([base, eb.or([eb('occurred_at', '<', at), eb.and([eb('occurred_at', '=', at), eb('id', '<', id)])])]);
      })
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(pageSize)
      .execute();
    for (const row of rows) yield storedEntry(row);
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1]!;
    after = { at: last.occurred_at, id: last.id };
  }
}

/**
 * Count, errors, latency and requests per endpoint of the filter, and its distinct client
 * addresses. Whole days come from the daily totals, whole hours around them from the hourly
 * totals, and only the partial hours at the range's edges from raw rows, so the cost does not
 * grow with the rows in the range; the whole deployment has totals of its own (account `*`). A
 * request-id filter names at most a few rows: those are read directly.
 */
export async function totals(db: Kysely<Database>, filter: AuditFilter): Promise<AuditTotals> {
  if (filter.requestId !== undefined) return rawTotals(db, filter, [filter.range]);
  const tiers = dayTiers(filter.range);
  const [edges, hours, days, uniqueIps] = await Promise.all([
    rawTotals(db, filter, tiers.raw),
    rollupTotals(db, 'audit_totals_hourly', 'hour', filter, tiers.hours),
    rollupTotals(db, 'audit_totals_daily', 'day', filter, tiers.days),
    distinctIps(db, filter),
  ]);
  for (const whole of [hours, days]) {
    edges.requests += whole.requests;
    edges.errors += whole.errors;
    edges.latencyMsSum += whole.latencyMsSum;
    for (const [endpoint, n] of whole.byEndpoint) edges.byEndpoint.set(endpoint, (edges.byEndpoint.get(endpoint) ?? 0) + n);
  }
  edges.uniqueIps = uniqueIps;
  return edges;
}

function emptyTotals(): AuditTotals {
  return { requests: 0, errors: 0, latencyMsSum: 0, byEndpoint: new Map(), uniqueIps: 0 };
}

async function rawTotals(db: Kysely<Database>, filter: AuditFilter, ranges: TimeRange[]): Promise<AuditTotals> {
  const result = emptyTotals();
  if (ranges.length === 0) return result;
  const { rows } = await sql<{ endpoint: string; requests: string; errors: string; latency: string }>`
    SELECT endpoint, COUNT(*) AS requests, SUM(failed) AS errors, SUM(response_time_ms) AS latency
    FROM request_log FORCE INDEX (${sql.raw(pageIndex(filter))}) WHERE ${rawWhere(filter, ranges)} GROUP BY endpoint`.execute(db);
  for (const row of rows) {
    result.requests += Number(row.requests);
    result.errors += Number(row.errors);
    result.latencyMsSum += Number(row.latency);
    result.byEndpoint.set(row.endpoint, Number(row.requests));
  }
  if (filter.requestId !== undefined) {
    const ips = await sql<{ n: string }>`SELECT COUNT(DISTINCT ip_address) AS n FROM request_log FORCE INDEX (request_log_request_id)
      WHERE ${rawWhere(filter, [filter.range])}`.execute(db);
    result.uniqueIps = Number(ips.rows[0]?.n ?? 0);
  }
  return result;
}

/**
 * Sums per endpoint from the endpoint rows (key `*`) of the hourly or daily totals. The failed
 * requests' latency is kept beside the latency: the success-only or error-only average subtracts
 * or takes it.
 */
async function rollupTotals(db: Kysely<Database>, table: 'audit_totals_hourly' | 'audit_totals_daily', column: 'hour' | 'day',
  filter: AuditFilter, ranges: TimeRange[]): Promise<AuditTotals> {
  const result = emptyTotals();
  if (ranges.length === 0) return result;
  const endpoint = filter.endpoint !== undefined ? sql`endpoint = ${filter.endpoint}` : sql`endpoint <> ${ALL}`;
  const { rows } = await sql<{ endpoint: string; requests: string; errors: string; latency: string; error_latency: string }>`
    SELECT endpoint, SUM(requests) AS requests, SUM(errors) AS errors, SUM(latency_ms_sum) AS latency, SUM(error_latency_ms_sum) AS error_latency
    FROM ${sql.table(table)} WHERE ${rollupScope(table, filter)} AND key_id = ${ALL} AND ${endpoint} AND ${withinRanges(column, ranges)}
    GROUP BY endpoint`.execute(db);
  for (const row of rows) {
    const requests = Number(row.requests);
    const errors = Number(row.errors);
    const failedLatency = Number(row.error_latency);
    const [count, latency] = filter.failed === undefined
      ? [requests, Number(row.latency)]
      : filter.failed ? [errors, failedLatency] : [requests - errors, Number(row.latency) - failedLatency];
    if (count === 0) continue;
    result.requests += count;
    result.errors += filter.failed === false ? 0 : errors;
    result.latencyMsSum += latency;
    result.byEndpoint.set(row.endpoint, count);
  }
  return result;
}

/**
 * Distinct client addresses. The whole deployment's are read from its daily address sets when the
 * range crosses midnight: whole days by one index entry per address, and the partial days at the
 * edges by the first and last time each address was seen that day. An account's (and a range
 * inside one day) are read as before: raw rows at the edges, hourly sets around whole days, daily
 * sets inside.
 */
async function distinctIps(db: Kysely<Database>, filter: AuditFilter): Promise<number> {
  if (filter.accountId === null) {
    const deployment = await deploymentIps(db, filter);
    if (deployment !== undefined) return deployment;
  }
  const tiers = dayTiers(filter.range);
  const scope = (table: string) => sql.join([
    ...(filter.accountId !== null ? [sql`${sql.ref(`${table}.account_id`)} = ${filter.accountId}`] : []),
    ...(filter.mode !== null ? [sql`${sql.ref(`${table}.mode`)} = ${filter.mode}`] : []),
    ...(filter.endpoint !== undefined ? [sql`${sql.ref(`${table}.endpoint`)} = ${filter.endpoint}`] : []),
    ...(filter.failed !== undefined ? [sql`${sql.ref(`${table}.failed`)} = ${filter.failed ? 1 : 0}`] : []),
    sql`1 = 1`,
  ], sql` AND `);
  const parts = [
    ...(tiers.raw.length > 0 ? [sql`SELECT ip_address AS ip FROM request_log WHERE ${scope('request_log')} AND ${withinRanges('occurred_at', tiers.raw)}`] : []),
    ...(tiers.hours.length > 0 ? [sql`SELECT ip FROM audit_ips_hourly WHERE ${scope('audit_ips_hourly')} AND ${withinRanges('hour', tiers.hours)}`] : []),
    ...(tiers.days.length > 0 ? [sql`SELECT ip FROM audit_ips_daily WHERE ${scope('audit_ips_daily')} AND ${withinRanges('day', tiers.days)}`] : []),
  ];
  if (parts.length === 0) return 0;
  const result = await sql<{ n: string }>`SELECT COUNT(DISTINCT ip) AS n FROM (${sql.join(parts, sql` UNION ALL `)}) AS ips`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

const DAY_MS = 86_400_000;

/**
 * The deployment's distinct addresses from audit_ips_deployment_daily, or undefined when the
 * range starts and ends inside the same day (first and last times cannot tell a gap there).
 * Whole days are read with MariaDB's loose index scan (GROUP BY ... ip with MIN(day): one index
 * dive per address), on the index whose leading columns the filter fixes.
 */
async function deploymentIps(db: Kysely<Database>, filter: AuditFilter): Promise<number | undefined> {
  const { start, end } = filter.range;
  if (start >= end) return 0;
  const firstDay = Math.floor(start.getTime() / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(end.getTime() / DAY_MS) * DAY_MS;
  const startsInside = start.getTime() > firstDay;
  const endsInside = end.getTime() > lastDay;
  if (startsInside && endsInside && firstDay === lastDay) return undefined;
  const modes = modesOf(filter);
  const where = sql.join([
    sql`mode IN (${sql.join(modes.map((m) => sql`${m}`))})`,
    ...(filter.endpoint !== undefined ? [sql`endpoint = ${filter.endpoint}`] : []),
    ...(filter.failed !== undefined ? [sql`failed = ${filter.failed ? 1 : 0}`] : []),
  ], sql` AND `);
  const [index, groups] = filter.endpoint !== undefined ? ['audit_ips_deployment_by_endpoint', sql`mode, endpoint, failed, ip`]
    : filter.failed !== undefined ? ['audit_ips_deployment_by_failed', sql`mode, failed, ip`]
    : ['audit_ips_deployment_by_ip', sql`mode, ip`];
  const innerStart = new Date(startsInside ? firstDay + DAY_MS : firstDay);
  const innerEnd = new Date(lastDay);
  const parts = [
    ...(innerStart < innerEnd ? [sql`SELECT ip FROM (SELECT ${groups}, MIN(day) AS first_day FROM audit_ips_deployment_daily FORCE INDEX (${sql.raw(index)})
      WHERE ${where} AND day >= ${innerStart} AND day < ${innerEnd} GROUP BY ${groups}) AS whole_days`] : []),
    ...(startsInside ? [sql`SELECT ip FROM audit_ips_deployment_daily WHERE day = ${new Date(firstDay)} AND ${where} AND last_seen >= ${start}`] : []),
    ...(endsInside ? [sql`SELECT ip FROM audit_ips_deployment_daily WHERE day = ${new Date(lastDay)} AND ${where} AND first_seen < ${end}`] : []),
  ];
  if (parts.length === 0) return 0;
  const result = await sql<{ n: string }>`SELECT COUNT(DISTINCT ip) AS n FROM (${sql.join(parts, sql` UNION ALL `)}) AS ips`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}
