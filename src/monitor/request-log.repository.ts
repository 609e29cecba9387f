import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database, RequestLogTable } from '../storage/schema.js';
import { withDeadlockRetry } from '../storage/deadlock-retry.js';
import type { AuditEntry } from './audit-entry.js';
import { rollUp, type IpRow, type TotalsRow } from './audit-rollup.js';
import { LATENCY_BUCKETS } from './latency-buckets.js';

export interface BatchOutcome {
  written: number;
  /** Entries already in the log: a batch handed over again after a crash or a lost reply. */
  duplicates: number;
}

const LATENCY_COLUMNS = Array.from({ length: LATENCY_BUCKETS }, (_, i) => `lat_${i}` as const);
const HOUR_COLUMNS = Array.from({ length: 24 }, (_, i) => `h_${i}` as const);

/**
 * Writes a batch of captured entries and what they add to the rollups, in one transaction:
 * entries already written (found by entry id) are skipped, so a batch delivered twice counts
 * once in the log and in every rollup. Two writers racing on the same entries meet at the
 * unique key; the loser's transaction runs again and then finds them.
 */
export async function writeAuditBatch(db: Kysely<Database>, entries: readonly AuditEntry[]): Promise<BatchOutcome> {
  if (entries.length === 0) return { written: 0, duplicates: 0 };
  return withDeadlockRetry(() => db.transaction().execute(async (trx) => {
    const ids = [...new Set(entries.map((e) => e.entryId))];
    const existing = new Set(
      (await trx.selectFrom('request_log').select('entry_id').where('entry_id', 'in', ids).execute()).map((r) => r.entry_id),
    );
    const seen = new Set<string>();
    const fresh = entries.filter((e) => !existing.has(e.entryId) && !seen.has(e.entryId) && seen.add(e.entryId));
    if (fresh.length > 0) {
      await insertRows(trx, fresh);
      await addToRollups(trx, fresh);
    }
    return { written: fresh.length, duplicates: entries.length - fresh.length };
  }), ['ER_DUP_ENTRY']);
}

async function insertRows(trx: Transaction<Database>, entries: readonly AuditEntry[]): Promise<void> {
  await trx
    .insertInto('request_log')
    .values(entries.map((e) => ({
      entry_id: e.entryId,
      request_id: e.requestId.slice(0, 64),
      occurred_at: e.occurredAt,
      principal_id: e.principalId,
      account_id: e.accountId,
      mode: e.mode,
      method: e.method.slice(0, 10),
      endpoint: e.endpoint.slice(0, 255),
      status: e.status,
      response_time_ms: e.responseTimeMs,
      ip_address: e.ipAddress.slice(0, 45),
      user_agent: e.userAgent?.slice(0, 512) ?? null,
      request_size: e.requestSize,
      response_size: e.responseSize,
      cache_hit: e.cacheHit ? 1 : 0,
      region: e.region.slice(0, 32),
      error_code: e.errorCode,
      extra: e.extra ? JSON.stringify(e.extra) : null,
    })))
    .execute();
}

async function addToRollups(trx: Transaction<Database>, entries: readonly AuditEntry[]): Promise<void> {
  const rollup = rollUp(entries);
  const added = (column: string) => sql<number>`${sql.ref(column)} + VALUES(${sql.ref(column)})`;
  await trx
    .insertInto('audit_hourly')
    .values(rollup.hourly.map(({ latency, ...row }) => ({ ...row, ...Object.fromEntries(LATENCY_COLUMNS.map((c, i) => [c, latency[i]!])) })))
    .onDuplicateKeyUpdate(Object.fromEntries(
      ['requests', 'errors', 'cache_hits', 'request_bytes', 'response_bytes', 'latency_ms_sum', ...LATENCY_COLUMNS].map((c) => [c, added(c)]),
    ))
    .execute();
  if (rollup.errors.length > 0) {
    await trx
      .insertInto('audit_errors_hourly')
      .values(rollup.errors)
      .onDuplicateKeyUpdate({ errors: added('errors'), latency_ms_sum: added('latency_ms_sum') })
      .execute();
  }
  const ips = (rows: IpRow[], column: 'hour' | 'day') => rows.map(({ at, ...row }) => ({ ...row, [column]: at }));
  await trx.insertInto('audit_ips_hourly').ignore().values(ips(rollup.ipsHourly, 'hour') as never).execute();
  await trx.insertInto('audit_ips_daily').ignore().values(ips(rollup.ipsDaily, 'day') as never).execute();

  const totals = (rows: TotalsRow[], column: 'hour' | 'day') =>
    rows.map(({ at, latency, ...row }) => ({ ...row, [column]: at, ...Object.fromEntries(LATENCY_COLUMNS.map((c, i) => [c, latency[i]!])) }));
  const totalsUpdate = Object.fromEntries(
    ['requests', 'errors', 'cache_hits', 'request_bytes', 'response_bytes', 'latency_ms_sum', 'error_latency_ms_sum', ...LATENCY_COLUMNS].map((c) => [c, added(c)]),
  );
  await trx.insertInto('audit_totals_hourly').values(totals(rollup.totalsHourly, 'hour') as never).onDuplicateKeyUpdate(totalsUpdate).execute();
  await trx.insertInto('audit_totals_daily').values(totals(rollup.totalsDaily, 'day') as never).onDuplicateKeyUpdate(totalsUpdate).execute();
  if (rollup.errorsDaily.length > 0) {
    await trx.insertInto('audit_errors_daily').values(rollup.errorsDaily)
      .onDuplicateKeyUpdate({ errors: added('errors'), latency_ms_sum: added('latency_ms_sum') }).execute();
    await trx.insertInto('audit_error_hours_daily')
      .values(rollup.errorHours.map(({ hours, ...row }) => ({ ...row, ...Object.fromEntries(HOUR_COLUMNS.map((c, i) => [c, hours[i]!])) })))
      .onDuplicateKeyUpdate(Object.fromEntries(HOUR_COLUMNS.map((c) => [c, added(c)])))
      .execute();
  }
  await trx.insertInto('audit_ips_deployment_daily').values(rollup.ipsDeployment).onDuplicateKeyUpdate({
    first_seen: sql<Date>`LEAST(first_seen, VALUES(first_seen))`,
    last_seen: sql<Date>`GREATEST(last_seen, VALUES(last_seen))`,
  }).execute();
}

export interface StoredEntry extends AuditEntry {
  id: number;
}

/** The entry of one request, for tests and support: the newest if a client reused the id. */
export async function findRequestLogByRequestId(db: Kysely<Database>, requestId: string): Promise<StoredEntry | undefined> {
  const row = await db.selectFrom('request_log').selectAll().where('request_id', '=', requestId).orderBy('id', 'desc').executeTakeFirst();
  return row ? storedEntry(row) : undefined;
}

export function storedEntry(row: Selectable<RequestLogTable>): StoredEntry {
  const extra = row.extra ? (JSON.parse(row.extra) as Record<string, unknown>) : null;
  return {
    id: row.id,
    entryId: row.entry_id ?? String(row.id),
    requestId: row.request_id,
    occurredAt: row.occurred_at,
    principalId: row.principal_id,
    accountId: row.account_id,
    mode: row.mode,
    method: row.method,
    endpoint: row.endpoint,
    status: row.status,
    responseTimeMs: row.response_time_ms,
    ipAddress: row.ip_address,
    userAgent: row.user_agent,
    requestSize: row.request_size,
    responseSize: row.response_size,
    cacheHit: Boolean(row.cache_hit),
    region: row.region,
    errorCode: row.error_code,
    errorParameter: null,
    extra,
  };
}
