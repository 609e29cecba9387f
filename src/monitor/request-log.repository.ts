import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, RequestLogTable } from '../storage/schema.js';
import { withDeadlockRetry } from '../storage/deadlock-retry.js';
import { addValues, multiRowInsert } from '../storage/multi-row-insert.js';
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
 *
 * A batch is nearly always new: its rows are inserted at once (IGNORE), and only when some were
 * there already (a batch written again after a crash or a lost reply) is the transaction rolled
 * back and the batch written again minus the entries found. Looking every entry up first cost
 * the common case a read of the unique index per entry.
 */
export async function writeAuditBatch(db: Kysely<Database>, entries: readonly AuditEntry[]): Promise<BatchOutcome> {
  if (entries.length === 0) return { written: 0, duplicates: 0 };
  const seen = new Set<string>();
  const distinct = entries.filter((e) => !seen.has(e.entryId) && seen.add(e.entryId));
  const outcome = await withDeadlockRetry(() => db.transaction().execute(async (trx) => {
    if ((await insertRows(trx, distinct)) < distinct.length) throw ALREADY_WRITTEN;
    await addToRollups(trx, distinct);
    return { written: distinct.length, duplicates: entries.length - distinct.length };
  })).catch((error: unknown) => {
    if (error === ALREADY_WRITTEN) return undefined;
    throw error;
  });
  return outcome ?? withDeadlockRetry(() => db.transaction().execute(async (trx) => {
    const existing = new Set(
      (await trx.selectFrom('request_log').select('entry_id').where('entry_id', 'in', [...seen]).execute()).map((r) => r.entry_id),
    );
    const fresh = distinct.filter((e) => !existing.has(e.entryId));
    if (fresh.length > 0) {
      await insertRows(trx, fresh);
      await addToRollups(trx, fresh);
    }
    return { written: fresh.length, duplicates: entries.length - fresh.length };
  }), ['ER_DUP_ENTRY']);
}

/** Thrown out of the first attempt's transaction (rolling it back) when some of its entries were written before. */
const ALREADY_WRITTEN = new Error('some entries of the batch are in the log already');

const RAW_COLUMNS = ['entry_id', 'request_id', 'occurred_at', 'principal_id', 'account_id', 'mode', 'method', 'endpoint', 'status',
  'response_time_ms', 'ip_address', 'user_agent', 'request_size', 'response_size', 'cache_hit', 'region', 'error_code', 'extra'];

/** Inserts the rows (IGNORE: an entry id already there is skipped) and answers how many were new. */
async function insertRows(trx: Transaction<Database>, entries: readonly AuditEntry[]): Promise<number> {
  // Consecutive entries of a record share their `extra` object (see decodeEntries): serialised once.
  let extra: AuditEntry['extra'] = null;
  let extraText: string | null = null;
  const result = await multiRowInsert('request_log', RAW_COLUMNS, entries.map((e) => {
    if (e.extra !== extra) {
      extra = e.extra;
      extraText = extra ? JSON.stringify(extra) : null;
    }
    return [
      e.entryId, e.requestId.slice(0, 64), e.occurredAt, e.principalId, e.accountId, e.mode, e.method.slice(0, 10), e.endpoint.slice(0, 255),
      e.status, e.responseTimeMs, e.ipAddress.slice(0, 45), e.userAgent?.slice(0, 512) ?? null, e.requestSize, e.responseSize,
      e.cacheHit ? 1 : 0, e.region.slice(0, 32), e.errorCode, extraText,
    ];
  }), { ignore: true }).execute(trx);
  return Number(result.numAffectedRows ?? 0);
}

const MEASURES = ['requests', 'errors', 'cache_hits', 'request_bytes', 'response_bytes', 'latency_ms_sum'];
const TOTALS_MEASURES = [...MEASURES, 'error_latency_ms_sum', ...LATENCY_COLUMNS];
const IP_COLUMNS = ['account_id', 'mode', 'endpoint', 'failed', 'ip'];

/** Each rollup's rows of the batch, one multi-row statement per table (rows sorted by key: see rollUp). */
async function addToRollups(trx: Transaction<Database>, entries: readonly AuditEntry[]): Promise<void> {
  const rollup = rollUp(entries);
  const write = async (statement: ReturnType<typeof multiRowInsert>, rows: number) => {
    if (rows > 0) await statement.execute(trx);
  };
  await write(multiRowInsert('audit_hourly', ['account_id', 'mode', 'hour', 'key_id', 'endpoint', ...MEASURES, ...LATENCY_COLUMNS],
    rollup.hourly.map((h) => [h.account_id, h.mode, h.hour, h.key_id, h.endpoint, h.requests, h.errors, h.cache_hits, h.request_bytes,
      h.response_bytes, h.latency_ms_sum, ...h.latency]),
    { onDuplicate: addValues([...MEASURES, ...LATENCY_COLUMNS]) }), rollup.hourly.length);
  await write(multiRowInsert('audit_errors_hourly', ['account_id', 'mode', 'hour', 'endpoint', 'error_code', 'parameter', 'agent', 'errors', 'latency_ms_sum'],
    rollup.errors.map((e) => [e.account_id, e.mode, e.hour, e.endpoint, e.error_code, e.parameter, e.agent, e.errors, e.latency_ms_sum]),
    { onDuplicate: addValues(['errors', 'latency_ms_sum']) }), rollup.errors.length);
  const ips = (rows: IpRow[]) => rows.map((i) => [i.account_id, i.mode, i.endpoint, i.failed, i.ip, i.at]);
  await write(multiRowInsert('audit_ips_hourly', [...IP_COLUMNS, 'hour'], ips(rollup.ipsHourly), { ignore: true }), rollup.ipsHourly.length);
  await write(multiRowInsert('audit_ips_daily', [...IP_COLUMNS, 'day'], ips(rollup.ipsDaily), { ignore: true }), rollup.ipsDaily.length);

  const totals = (rows: TotalsRow[]) => rows.map((t) => [t.account_id, t.mode, t.at, t.key_id, t.endpoint, t.requests, t.errors, t.cache_hits,
    t.request_bytes, t.response_bytes, t.latency_ms_sum, t.error_latency_ms_sum, ...t.latency]);
  for (const [table, column, rows] of [['audit_totals_hourly', 'hour', rollup.totalsHourly], ['audit_totals_daily', 'day', rollup.totalsDaily]] as const) {
    await write(multiRowInsert(table, ['account_id', 'mode', column, 'key_id', 'endpoint', ...TOTALS_MEASURES], totals(rows),
      { onDuplicate: addValues(TOTALS_MEASURES) }), rows.length);
  }
  await write(multiRowInsert('audit_error_facets_daily', ['account_id', 'mode', 'day', 'error_code', 'facet', 'value', 'errors', 'latency_ms_sum'],
    rollup.errorFacets.map((f) => [f.account_id, f.mode, f.day, f.error_code, f.facet, f.value, f.errors, f.latency_ms_sum]),
    { onDuplicate: addValues(['errors', 'latency_ms_sum']) }), rollup.errorFacets.length);
  await write(multiRowInsert('audit_error_hours_daily', ['account_id', 'mode', 'day', 'error_code', ...HOUR_COLUMNS],
    rollup.errorHours.map((e) => [e.account_id, e.mode, e.day, e.error_code, ...e.hours]),
    { onDuplicate: addValues(HOUR_COLUMNS) }), rollup.errorHours.length);
  await write(multiRowInsert('audit_ips_deployment_daily', ['mode', 'day', 'endpoint', 'failed', 'ip', 'first_seen', 'last_seen'],
    rollup.ipsDeployment.map((i) => [i.mode, i.day, i.endpoint, i.failed, i.ip, i.first_seen, i.last_seen]),
    { onDuplicate: 'first_seen = LEAST(first_seen, VALUES(first_seen)), last_seen = GREATEST(last_seen, VALUES(last_seen))' }), rollup.ipsDeployment.length);
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
