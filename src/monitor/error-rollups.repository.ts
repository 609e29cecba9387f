import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { AuditScope, TimeRange } from './audit-range.js';

/** Errors of one code, endpoint, parameter and client product in one hour of the day (UTC). */
export interface ErrorCell {
  code: string;
  endpoint: string;
  parameter: string;
  agent: string;
  hourOfDay: number;
  errors: number;
  latencyMsSum: number;
}

export async function errorCells(db: Kysely<Database>, scope: AuditScope, hours: TimeRange): Promise<ErrorCell[]> {
  const rows = await db
    .selectFrom('audit_errors_hourly')
    .select((eb) => [
      'error_code', 'endpoint', 'parameter', 'agent',
      sql<number>`HOUR(hour)`.as('hour_of_day'),
      eb.fn.sum<string>('errors').as('errors'),
      eb.fn.sum<string>('latency_ms_sum').as('latency'),
    ])
    .where('hour', '>=', hours.start)
    .where('hour', '<', hours.end)
    .$if(scope.accountId !== null, (q) => q.where('account_id', '=', scope.accountId!))
    .$if(scope.mode !== null, (q) => q.where('mode', '=', scope.mode!))
    .groupBy(['error_code', 'endpoint', 'parameter', 'agent', sql`hour_of_day`])
    .execute();
  return rows.map((r) => ({
    code: r.error_code, endpoint: r.endpoint, parameter: r.parameter, agent: r.agent,
    hourOfDay: Number(r.hour_of_day), errors: Number(r.errors), latencyMsSum: Number(r.latency),
  }));
}

/** Requests and failed requests of the scope over whole hours. */
export async function requestTotals(db: Kysely<Database>, scope: AuditScope, hours: TimeRange): Promise<{ requests: number; errors: number }> {
  const row = await db
    .selectFrom('audit_hourly')
    .select((eb) => [eb.fn.sum<string>('requests').as('requests'), eb.fn.sum<string>('errors').as('errors')])
    .where('hour', '>=', hours.start)
    .where('hour', '<', hours.end)
    .$if(scope.accountId !== null, (q) => q.where('account_id', '=', scope.accountId!))
    .$if(scope.mode !== null, (q) => q.where('mode', '=', scope.mode!))
    .executeTakeFirst();
  return { requests: Number(row?.requests ?? 0), errors: Number(row?.errors ?? 0) };
}
