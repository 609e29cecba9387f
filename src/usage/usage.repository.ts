import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/** An account's requests in one mode and month, as its quota counter had counted them. */
export interface MonthlyCount {
  accountId: string;
  mode: string;
  period: string;
  requests: number;
}

/** A key's requests in one UTC day, as its daily counter had counted them. */
export interface DailyCount {
  keyId: string;
  day: string;
  requests: number;
}

/**
 * Raises the durable totals to the counts given, never lowers them: the counters only grow
 * within their period, so a count written late, or twice, changes nothing it should not. One
 * statement per table, however many rows.
 */
export async function raiseUsage(db: Kysely<Database>, monthly: readonly MonthlyCount[], daily: readonly DailyCount[]): Promise<void> {
  if (monthly.length > 0) {
    await db
      .insertInto('usage_monthly')
      .values(monthly.map((m) => ({ account_id: m.accountId, mode: m.mode, period: m.period, requests: m.requests })))
      .onDuplicateKeyUpdate({ requests: sql<number>`GREATEST(requests, VALUES(requests))` })
      .execute();
  }
  if (daily.length > 0) {
    await db
      .insertInto('key_usage_daily')
      .values(daily.map((d) => ({ key_id: d.keyId, day: d.day, requests: d.requests })))
      .onDuplicateKeyUpdate({ requests: sql<number>`GREATEST(requests, VALUES(requests))` })
      .execute();
  }
}

export async function monthlyUsage(db: Kysely<Database>, accountId: string, mode: string, period: string): Promise<number> {
  const row = await db
    .selectFrom('usage_monthly')
    .select('requests')
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .where('period', '=', period)
    .executeTakeFirst();
  return Number(row?.requests ?? 0);
}

export async function dailyUsage(db: Kysely<Database>, keyId: string, day: string): Promise<number> {
  const row = await db
    .selectFrom('key_usage_daily')
    .select('requests')
    .where('key_id', '=', keyId)
    .where('day', '=', new Date(`${day}T00:00:00Z`))
    .executeTakeFirst();
  return Number(row?.requests ?? 0);
}

/** Requests of one key from day `from` up to, not including, day `before` (YYYY-MM-DD). */
export async function keyUsageBetween(db: Kysely<Database>, keyId: string, from: string, before: string): Promise<number> {
  const row = await db
    .selectFrom('key_usage_daily')
    .select((eb) => eb.fn.sum<string>('requests').as('requests'))
    .where('key_id', '=', keyId)
    .where('day', '>=', new Date(`${from}T00:00:00Z`))
    .where('day', '<', new Date(`${before}T00:00:00Z`))
    .executeTakeFirst();
  return Number(row?.requests ?? 0);
}

/** Requests counted against an account's quota in one mode per UTC day from `from` to `to` (YYYY-MM-DD, inclusive): its keys' daily counts summed. */
export async function accountDailyUsage(db: Kysely<Database>, accountId: string, mode: string, from: string, to: string): Promise<{ day: Date; requests: number }[]> {
  const rows = await db
    .selectFrom('key_usage_daily')
    .innerJoin('api_keys', 'api_keys.id', 'key_usage_daily.key_id')
    .select((eb) => ['key_usage_daily.day', eb.fn.sum<string>('key_usage_daily.requests').as('requests')])
    .where('api_keys.account_id', '=', accountId)
    .where('api_keys.mode', '=', mode)
    .where('key_usage_daily.day', '>=', new Date(`${from}T00:00:00Z`))
    .where('key_usage_daily.day', '<=', new Date(`${to}T00:00:00Z`))
    .groupBy('key_usage_daily.day')
    .orderBy('key_usage_daily.day')
    .execute();
  return rows.map((row) => ({ day: new Date(row.day), requests: Number(row.requests) }));
}
