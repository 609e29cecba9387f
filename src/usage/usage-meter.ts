import type { Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Database } from '../storage/schema.js';
import type { Principal } from '../auth/principal.js';
import { ApiError } from '../http/errors.js';
import type { UsageRecorder } from './usage-recorder.js';
import { dailyUsage, monthlyUsage } from './usage.repository.js';
import { dayOf, monthOf, startOfNextDay, startOfNextMonth } from './periods.js';

/**
 * Checks every counter against its limit and, only when all have room, increments them all: one
 * atomic step in Redis, so concurrent requests on any number of API processes can never push a
 * counter past its limit. A counter that does not exist (new period, or Redis lost its data)
 * is reported instead of being created at zero; the caller seeds it from MySQL and retries.
 * Returns {0, counts...} when admitted, {1, i} when counter i is missing, {2, i, count} when
 * counter i is at its limit. A limit of -1 means none.
 */
const CHECK_AND_COUNT = `
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then return {1, i} end
end
for i = 1, #KEYS do
  local limit = tonumber(ARGV[i])
  local count = tonumber(redis.call('GET', KEYS[i]))
  if limit >= 0 and count >= limit then return {2, i, count} end
end
local result = {0}
for i = 1, #KEYS do result[#result + 1] = redis.call('INCR', KEYS[i]) end
return result
`;

type ScriptResult = [0, ...number[]] | [1, number] | [2, number, number];

interface Counter {
  key: string;
  limit: number | null;
  /** The durable count, read when Redis has none. */
  seed: () => Promise<number>;
  /** When Redis may forget the counter (the period is over by then). */
  expiresAt: Date;
}

export interface KeyUsage {
  requests_today: number;
  daily_limit: number | null;
  requests_this_month: number;
  monthly_limit: number | null;
  day_resets_at: string;
  month_resets_at: string;
}

/**
 * Monthly quotas (per account and mode: live and sandbox are counted apart) and daily limits
 * (per key). Redis holds the counters that enforce the limits; UsageRecorder makes every
 * admitted request durable in MySQL, which is where a missing Redis counter is seeded from.
 */
export class UsageMeter {
  private readonly checkAndCount: (...args: (string | number)[]) => Promise<ScriptResult>;

  constructor(
    private readonly redis: Redis,
    private readonly db: Kysely<Database>,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly recorder: UsageRecorder,
  ) {
    // defineCommand sends EVALSHA and falls back to EVAL once after a Redis restart.
    redis.defineCommand('sevCheckAndCount', { lua: CHECK_AND_COUNT });
    const command = (redis as unknown as Record<string, (...args: (string | number)[]) => Promise<ScriptResult>>).sevCheckAndCount!;
    this.checkAndCount = command.bind(redis);
  }

  /** Counts one metered request, or throws the 429 that refuses it. */
  async admit(principal: Principal): Promise<void> {
    const accountId = principal.accountId;
    if (accountId === null) return;
    const now = this.clock.now();
    const counters = this.counters(principal, accountId, now);
    for (let attempt = 0; attempt <= counters.length; attempt++) {
      const result = await this.checkAndCount(
        counters.length,
        ...counters.map((c) => c.key),
        ...counters.map((c) => c.limit ?? -1),
      );
      if (result[0] === 0) {
        this.recorder.count(accountId, principal.mode, principal.id, monthOf(now), dayOf(now));
        return;
      }
      const counter = counters[result[1] - 1]!;
      if (result[0] === 1) {
        await this.seed(counter);
        continue;
      }
      throw this.limitError(principal, counter, counters.indexOf(counter) === 0 ? 'month' : 'day', result[2], now);
    }
    throw new Error('usage counters could not be seeded');
  }

  /** A key's use today and its account's this month, as the limits see them. */
  async keyUsage(principal: Pick<Principal, 'id' | 'accountId' | 'mode' | 'dailyLimit' | 'monthlyLimit'>): Promise<KeyUsage> {
    const now = this.clock.now();
    const accountId = principal.accountId ?? '';
    const [monthKey, dayKey] = [this.monthKey(accountId, principal.mode, now), this.dayKey(accountId, principal.id, now)];
    const [month, day] = await this.redis.mget(monthKey, dayKey);
    return {
      requests_today: day !== null ? Number(day) : await dailyUsage(this.db, principal.id, dayOf(now)),
      daily_limit: principal.dailyLimit,
      requests_this_month: month !== null ? Number(month) : await monthlyUsage(this.db, accountId, principal.mode, monthOf(now)),
      monthly_limit: principal.monthlyLimit,
      day_resets_at: startOfNextDay(now).toISOString(),
      month_resets_at: startOfNextMonth(now).toISOString(),
    };
  }

  private counters(principal: Principal, accountId: string, now: Date): Counter[] {
    const period = monthOf(now);
    const day = dayOf(now);
    return [
      {
        key: this.monthKey(accountId, principal.mode, now),
        limit: principal.monthlyLimit,
        seed: () => monthlyUsage(this.db, accountId, principal.mode, period),
        expiresAt: startOfNextMonth(now),
      },
      {
        key: this.dayKey(accountId, principal.id, now),
        limit: principal.dailyLimit,
        seed: () => dailyUsage(this.db, principal.id, day),
        expiresAt: startOfNextDay(now),
      },
    ];
  }

  // Both counters of a request share the account's hash tag, so the script also runs on Redis Cluster.
  private monthKey(accountId: string, mode: string, now: Date): string {
    return `${this.prefix}:usage:{${accountId}}:${mode}:${monthOf(now)}`;
  }

  private dayKey(accountId: string, keyId: string, now: Date): string {
    return `${this.prefix}:usage:{${accountId}}:key:${keyId}:${dayOf(now)}`;
  }

  private async seed(counter: Counter): Promise<void> {
    // Our own unflushed counts belong in the seed; flushing first puts them there.
    await this.recorder.flush();
    const durable = await counter.seed();
    // A day of slack past the period's end, so a clock a little behind never reseeds a live period.
    const ttlSeconds = Math.max(60, Math.ceil((counter.expiresAt.getTime() - Date.now()) / 1000) + 86_400);
    await this.redis.set(counter.key, durable, 'EX', ttlSeconds, 'NX');
  }

  private limitError(principal: Principal, counter: Counter, period: 'month' | 'day', used: number, now: Date): ApiError {
    const retryAfter = Math.max(1, Math.ceil((counter.expiresAt.getTime() - now.getTime()) / 1000));
    const headers = { 'Retry-After': String(retryAfter) };
    if (period === 'month') {
      return new ApiError(
        'MONTHLY_LIMIT_EXCEEDED',
        { monthly_limit: counter.limit, requests_used: used, reset_date: counter.expiresAt.toISOString() },
        `The ${principal.mode === 'test' ? 'sandbox' : 'monthly'} quota of ${counter.limit} requests is used up until ${counter.expiresAt.toISOString()}.`,
        { headers },
      );
    }
    return new ApiError(
      'RATE_LIMITED',
      { limit: counter.limit, period: '86400s', reset_time: counter.expiresAt.toISOString(), retry_after: retryAfter },
      `The daily limit of ${counter.limit} requests for this key is reached.`,
      { headers },
    );
  }
}
