import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

export interface RequestLogEntry {
  requestId: string;
  occurredAt: Date;
  principalId: string | null;
  accountId: string | null;
  mode: string | null;
  method: string;
  endpoint: string;
  status: number;
  responseTimeMs: number;
  ipAddress: string;
  userAgent: string | null;
  requestSize: number;
  responseSize: number;
  cacheHit: boolean;
  region: string;
  errorCode: string | null;
  extra: Record<string, unknown> | null;
}

export async function insertRequestLogEntries(db: Kysely<Database>, entries: readonly RequestLogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('request_log')
    .values(
      entries.map((e) => ({
        request_id: e.requestId,
        occurred_at: e.occurredAt,
        principal_id: e.principalId,
        account_id: e.accountId,
        mode: e.mode,
        method: e.method,
        endpoint: e.endpoint.slice(0, 255),
        status: e.status,
        response_time_ms: e.responseTimeMs,
        ip_address: e.ipAddress.slice(0, 45),
        user_agent: e.userAgent?.slice(0, 512) ?? null,
        request_size: e.requestSize,
        response_size: e.responseSize,
        cache_hit: e.cacheHit ? 1 : 0,
        region: e.region,
        error_code: e.errorCode,
        extra: e.extra ? JSON.stringify(e.extra) : null,
      })),
    )
    .execute();
}

export async function findRequestLogByRequestId(db: Kysely<Database>, requestId: string): Promise<RequestLogEntry | undefined> {
  const row = await db.selectFrom('request_log').selectAll().where('request_id', '=', requestId).executeTakeFirst();
  if (!row) return undefined;
  return {
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
    extra: row.extra ? (JSON.parse(row.extra) as Record<string, unknown>) : null,
  };
}
