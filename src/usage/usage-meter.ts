import type { Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Database } from '../storage/schema.js';
import type { Principal } from '../auth/principal.js';
import type { Mode } from '../mode.js';
import { ApiError } from '../errors/catalogue.js';
import type { UsageRecorder } from './usage-recorder.js';
import { dailyUsage, keyUsageBetween, monthlyUsage } from './usage.repository.js';
import { dayOf, monthOf, startOfNextDay, startOfNextMonth } from './periods.js';
import { countInWindow, WINDOW_LUA, WINDOW_SECONDS, windowKey, type WindowCount } from './rate-window.js';

/**
 * Checks every counter against its limit and, only when all have room, increments them all: one
 * atomic step in Redis, so concurrent requests on any number of API processes can never push a
 * counter past its limit. A counter that does not exist (new period, or Redis lost its data)
 * is reported instead of being created at zero; the caller seeds it from MySQL and retries.
 * `admit(first, limits)` reads the counters from KEYS[first] on and their limits from
 * ARGV[limits] on; it returns {0, counts...} when admitted, {1, i} when counter i is missing,
 * {2, i, count} when counter i is at its limit. A limit of -1 means none.
 */
const QUOTA_LUA = `
local function admit(first, limits)
  local counts = {}
  for i = first, #KEYS do
    local count = redis.call('GET', KEYS[i])
    if not count then return {1, i - first + 1} end
    counts[i] = tonumber(count)
  end
  for i = first, #KEYS do
    local limit = tonumber(ARGV[limits + i - first])
    if limit >= 0 and counts[i] >= limit then return {2, i - first + 1, counts[i]} end
  end
  local result = {0}
  for i = first, #KEYS do result[#result + 1] = redis.call('INCR', KEYS[i]) end
  return result
end
`;

const CHECK_AND_COUNT = `${QUOTA_LUA}
return admit(1, 1)
`;

/**
 * The per-minute window (KEYS[1], ARGV[1] seconds, limit ARGV[2]) and the quotas in one round
 * trip, as a request passes them in turn: the window always counts the request; the quotas are
 * checked and counted only when the window admits it. Returns {used, ttl} when the window
 * refuses, else {used, ttl} followed by what CHECK_AND_COUNT returns.
 */
const WINDOW_CHECK_AND_COUNT = `${QUOTA_LUA}${WINDOW_LUA}
if used > tonumber(ARGV[2]) then return {used, ttl} end
local result = admit(2, 3)
table.insert(result, 1, ttl)
table.insert(result, 1, used)
return result
`;

type ScriptResult = [0, ...number[]] | [1, number] | [2, number, number];

interface Counter {
  period: 'month' | 'day';
  key: string;
  limit: number | null;
  /** When Redis may forget the counter (the period is over by then). */
  expiresAt: Date;
}

/** The UTC day a request falls in and what follows from it, worked out once a day rather than per request. */
interface Periods {
  /** The day's bounds, epoch ms. */
  start: number;
  end: number;
  month: string;
  day: string;
  nextMonth: Date;
  nextDay: Date;
}

/** A request's count in its key's rate-limit window and, when a quota refuses it, that refusal (the 429 to send). */
export interface Admission {
  window: WindowCount;
  refusal?: ApiError;
  /** The account's count this month once the quotas admitted the request, or refused it for the month (for the tenant metrics). */
  month?: MonthUse;
}

export interface MonthUse {
  used: number;
  /** The account's monthly limit in the key's mode; null for none. */
  limit: number | null;
  resetsAt: Date;
}

export interface KeyUsage {
  requests_today: number;
  daily_limit: number | null;
  /** The key's own. */
  requests_this_month: number;
  /** The account's in the key's mode, as its monthly limit counts them. */
  account_requests_this_month: number;
  monthly_limit: number | null;
  day_resets_at: string;
  month_resets_at: string;
}

/**
 * Monthly quotas (per account and mode: live and sandbox are counted apart) and daily limits
 * (per key). Redis holds the counters that enforce the limits; UsageRecorder copies their counts
 * to MySQL, which is where a missing Redis counter is seeded from.
 */
export class UsageMeter {
  private readonly checkAndCount: (...args: (string | number)[]) => Promise<ScriptResult>;
  private readonly windowCheckAndCount: (...args: (string | number)[]) => Promise<[number, number, ...number[]]>;
  private periods: Periods | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly db: Kysely<Database>,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly recorder: UsageRecorder,
  ) {
    // defineCommand sends EVALSHA and falls back to EVAL once after a Redis restart.
    redis.defineCommand('sevCheckAndCount', { lua: CHECK_AND_COUNT });
    redis.defineCommand('sevWindowCheckAndCount', { lua: WINDOW_CHECK_AND_COUNT });
    const commands = redis as unknown as Record<string, (...args: (string | number)[]) => Promise<never>>;
    this.checkAndCount = commands.sevCheckAndCount!.bind(redis);
    this.windowCheckAndCount = commands.sevWindowCheckAndCount!.bind(redis);
  }

  /**
   * Counts one metered request in its key's per-minute window and, when the window admits it,
   * against the daily and monthly quotas, in one script call (the window alone for a key
   * without an account). The caller judges the window (`used` over the key's limit: refused,
   * quotas untouched) and sends its headers, then the quota's refusal if there is one.
   */
  async admit(principal: Principal): Promise<Admission> {
    const window = windowKey(this.prefix, principal);
    const accountId = principal.accountId;
    if (accountId === null) return { window: await countInWindow(this.redis, window) };
    const now = this.clock.now();
    const periods = this.periodsOf(now);
    const counters = this.counters(principal, accountId, periods);
    const [used, msLeft, ...quota] = await this.windowCheckAndCount(
      1 + counters.length,
      window, ...counters.map((c) => c.key),
      WINDOW_SECONDS, principal.rateLimitPerMinute, ...counters.map((c) => c.limit ?? -1),
    );
    const count = { used, msLeft };
    if (used > principal.rateLimitPerMinute) return { window: count };
    const settled = await this.settle(principal, accountId, counters, periods, now, quota as ScriptResult);
    return { window: count, ...settled };
  }

  /**
   * A key's use today and this month, and its account's this month, as the limits see them. The
   * key's month is its earlier days' durable counts (MySQL; a day's last second of counts may
   * still be on its way there just after midnight) and today's count.
   */
  async keyUsage(principal: Pick<Principal, 'id' | 'accountId' | 'mode' | 'dailyLimit' | 'monthlyLimit'>): Promise<KeyUsage> {
    const now = this.clock.now();
    const accountId = principal.accountId ?? '';
    const [month, today] = [monthOf(now), dayOf(now)];
    const [accountMonth, day] = await this.redis.mget(this.monthKey(accountId, principal.mode, month), this.dayKey(accountId, principal.id, today));
    const [requestsToday, earlierDays] = await Promise.all([
      day !== null ? Number(day) : dailyUsage(this.db, principal.id, today),
      keyUsageBetween(this.db, principal.id, `${month}-01`, today),
    ]);
    return {
      requests_today: requestsToday,
      daily_limit: principal.dailyLimit,
      requests_this_month: earlierDays + requestsToday,
      account_requests_this_month: accountMonth !== null ? Number(accountMonth) : await monthlyUsage(this.db, accountId, principal.mode, month),
      monthly_limit: principal.monthlyLimit,
      day_resets_at: startOfNextDay(now).toISOString(),
      month_resets_at: startOfNextMonth(now).toISOString(),
    };
  }

  /** Requests of an account in one mode this month, as its monthly quota counts them. */
  monthUsage(accountId: string, mode: Mode): Promise<number> {
    return monthUsage(this.redis, this.db, this.prefix, accountId, mode, this.clock.now());
  }

  /**
   * Seeds missing counters and retries until the quotas admit the request (no refusal) or refuse
   * it (the 429), with the month's count when the script returned it: counters[0] is the month's.
   */
  private async settle(principal: Principal, accountId: string, counters: Counter[], periods: Periods, now: Date, first: ScriptResult): Promise<Omit<Admission, 'window'>> {
    let result = first;
    const month = counters[0]!;
    const use = (used: number): MonthUse => ({ used, limit: month.limit, resetsAt: month.expiresAt });
    for (let seeded = 0; ; seeded++) {
      if (result[0] === 0) {
        // The script returns the counters' new values in the order of `counters`: the month's, then the day's.
        this.recorder.count(
          { accountId, mode: principal.mode, period: periods.month, requests: result[1]! },
          { keyId: principal.id, day: periods.day, requests: result[2]! },
        );
        return { month: use(result[1]!) };
      }
      const counter = counters[result[1] - 1]!;
      if (result[0] === 2) {
        const refusal = this.limitError(principal, counter, result[2], now);
        return counter === month ? { refusal, month: use(result[2]) } : { refusal };
      }
      if (seeded === counters.length) throw new Error('usage counters could not be seeded');
      await this.seed(principal, accountId, counter, periods);
      result = await this.checkAndCount(counters.length, ...counters.map((c) => c.key), ...counters.map((c) => c.limit ?? -1));
    }
  }

  private periodsOf(now: Date): Periods {
    const at = now.getTime();
    if (this.periods && at >= this.periods.start && at < this.periods.end) return this.periods;
    const nextDay = startOfNextDay(now);
    this.periods = {
      start: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()),
      end: nextDay.getTime(),
      month: monthOf(now),
      day: dayOf(now),
      nextMonth: startOfNextMonth(now),
      nextDay,
    };
    return this.periods;
  }

  private counters(principal: Principal, accountId: string, periods: Periods): Counter[] {
    return [
      { period: 'month', key: this.monthKey(accountId, principal.mode, periods.month), limit: principal.monthlyLimit, expiresAt: periods.nextMonth },
      { period: 'day', key: this.dayKey(accountId, principal.id, periods.day), limit: principal.dailyLimit, expiresAt: periods.nextDay },
    ];
  }

  private monthKey(accountId: string, mode: string, month: string): string {
    return monthKey(this.prefix, accountId, mode, month);
  }

  private dayKey(accountId: string, keyId: string, day: string): string {
    return `${this.prefix}:usage:{${accountId}}:key:${keyId}:${day}`;
  }

  private async seed(principal: Principal, accountId: string, counter: Counter, periods: Periods): Promise<void> {
    // Our own unflushed counts belong in the seed; flushing first puts them there.
    await this.recorder.flush();
    const durable = counter.period === 'month'
      ? await monthlyUsage(this.db, accountId, principal.mode, periods.month)
      : await dailyUsage(this.db, principal.id, periods.day);
    // A day of slack past the period's end, so a clock a little behind never reseeds a live period.
    const ttlSeconds = Math.max(60, Math.ceil((counter.expiresAt.getTime() - Date.now()) / 1000) + 86_400);
    await this.redis.set(counter.key, durable, 'EX', ttlSeconds, 'NX');
  }

  private limitError(principal: Principal, counter: Counter, used: number, now: Date): ApiError {
    const retryAfter = Math.max(1, Math.ceil((counter.expiresAt.getTime() - now.getTime()) / 1000));
    const headers = { 'Retry-After': String(retryAfter) };
    if (counter.period === 'month') {
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

// Both counters of a request share the account's hash tag (as its rate-limit window does), so the scripts also run on Redis Cluster.
function monthKey(prefix: string, accountId: string, mode: string, month: string): string {
  return `${prefix}:usage:{${accountId}}:${mode}:${month}`;
}

/**
 * Requests of an account in one mode in the month of `now`, as its monthly quota counts them:
 * the Redis counter, or MySQL's durable count where the counter is missing. For readers outside
 * the request path (the alert evaluator runs in worker processes, which meter nothing).
 */
export async function monthUsage(redis: Redis, db: Kysely<Database>, prefix: string, accountId: string, mode: Mode, now: Date): Promise<number> {
  const month = monthOf(now);
  const counted = await redis.get(monthKey(prefix, accountId, mode, month));
  return counted !== null ? Number(counted) : monthlyUsage(db, accountId, mode, month);
}
