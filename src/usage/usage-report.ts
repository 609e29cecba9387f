/**
 * GET /v1/usage (section 2.7): the quota month as the limits count it, and traffic over any
 * period from the hourly rollups: per bucket, per endpoint, per key, with percentiles from the
 * rollups' latency buckets. Nothing here reads raw audit rows.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Principal } from '../auth/principal.js';
import type { KeyService } from '../auth/key-service.js';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { monitorScope, type ScopeQuery } from '../monitor/monitor-scope.js';
import { usageRollups, type Breakdown, type RollupSums } from '../monitor/usage-rollups.repository.js';
import { latencyQuantile } from '../monitor/latency-buckets.js';
import type { AuditScope, TimeRange } from '../monitor/audit-range.js';
import type { UsageMeter } from './usage-meter.js';
import { startOfNextMonth } from './periods.js';
import { monthlyLimit } from '../auth/plans.js';
import { ApiError } from '../errors/catalogue.js';

export type Period = 'hour' | 'day' | 'week' | 'month' | 'year';

export interface UsageQuery extends ScopeQuery {
  period: Period;
  start_date?: string;
  end_date?: string;
  breakdown: Breakdown;
  include_details: boolean;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A month of hours fits; a year of hours is a week breakdown's job. */
const MAX_BUCKETS = 1000;

export class UsageReportService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly keys: KeyService,
    private readonly meter: UsageMeter,
    private readonly clock: Clock,
  ) {}

  async report(actor: Principal, query: UsageQuery): Promise<Record<string, unknown>> {
    const scope = monitorScope(actor, query);
    const now = this.clock.now();
    const range = reportRange(query, now);
    const buckets = bucketStarts(range, query.breakdown);
    if (buckets.length > MAX_BUCKETS) {
      throw new ApiError('INVALID_PARAMETER', { parameter: 'breakdown', reason: `gives ${buckets.length} buckets; at most ${MAX_BUCKETS}`, provided: query.breakdown },
        `A ${query.breakdown}ly breakdown of this range has ${buckets.length} buckets (at most ${MAX_BUCKETS}): choose a coarser breakdown or a shorter range.`);
    }
    const [current, rollups] = await Promise.all([this.currentPeriod(scope, now), usageRollups(this.db, scope, range, query.breakdown)]);

    let total: RollupSums = { requests: 0, errors: 0, cacheHits: 0, latencyMsSum: 0 };
    for (const sums of rollups.endpoints.values()) total = add(total, sums);
    const endpointUsage = Object.fromEntries([...rollups.endpoints.entries()]
      .sort((a, b) => b[1].requests - a[1].requests)
      .map(([endpoint, sums]) => [endpoint, {
        requests: sums.requests,
        percentage: percent(sums.requests, total.requests),
        avg_response_time: avgSeconds(sums),
        success_rate: rate(sums.requests - sums.errors, sums.requests),
      }]));

    return {
      current_period: current,
      period: { start: range.start.toISOString(), end: range.end.toISOString(), breakdown: query.breakdown },
      usage_breakdown: buckets.map((start) => {
        const sums = rollups.buckets.get(start.getTime()) ?? { requests: 0, errors: 0, cacheHits: 0, latencyMsSum: 0 };
        return {
          date: query.breakdown === 'hour' ? start.toISOString() : start.toISOString().slice(0, 10),
          requests: sums.requests,
          success_rate: rate(sums.requests - sums.errors, sums.requests),
          avg_response_time: avgSeconds(sums),
          cache_hit_rate: rate(sums.cacheHits, sums.requests),
        };
      }),
      endpoint_usage: endpointUsage,
      performance_metrics: {
        avg_response_time: avgSeconds(total),
        p95_response_time: latencyQuantile(rollups.latency, 0.95) ?? 0,
        p99_response_time: latencyQuantile(rollups.latency, 0.99) ?? 0,
        success_rate: rate(total.requests - total.errors, total.requests),
        error_rate: rate(total.errors, total.requests),
        cache_hit_rate: rate(total.cacheHits, total.requests),
      },
      ...(query.include_details ? {
        key_usage: Object.fromEntries([...rollups.keys.entries()]
          .sort((a, b) => b[1].requests - a[1].requests)
          .map(([key, sums]) => [key === '' ? 'none' : key, {
            requests: sums.requests,
            percentage: percent(sums.requests, total.requests),
            avg_response_time: avgSeconds(sums),
            success_rate: rate(sums.requests - sums.errors, sums.requests),
            cache_hit_rate: rate(sums.cacheHits, sums.requests),
          }])),
      } : {}),
    };
  }

  /**
   * The quota month of the account as its monthly limit counts it (metered requests admitted);
   * for the whole deployment (the master key naming no account) there is no limit to report.
   */
  private async currentPeriod(scope: AuditScope, now: Date): Promise<Record<string, unknown>> {
    const resetDate = startOfNextMonth(now);
    const daysUntilReset = Math.ceil((resetDate.getTime() - now.getTime()) / DAY_MS);
    if (scope.accountId === null) {
      return { requests_used: null, requests_limit: null, usage_percentage: null, reset_date: resetDate.toISOString(), days_until_reset: daysUntilReset };
    }
    const mode = (scope.mode ?? 'live') as Mode;
    const account = await this.keys.getAccount(scope.accountId);
    const plan = this.keys.plans.get(account.plan);
    const limit = monthlyLimit(plan, mode);
    const used = await this.meter.monthUsage(scope.accountId, mode);
    return {
      requests_used: used,
      requests_limit: limit,
      usage_percentage: limit === null ? null : percent(used, limit),
      reset_date: resetDate.toISOString(),
      days_until_reset: daysUntilReset,
    };
  }
}

/**
 * The hours reported: start_date and end_date when given, else the calendar period (UTC) that
 * holds now (this hour, today, this ISO week, this month, this year). Rollups are hourly, so the
 * range is widened to whole hours.
 */
export function reportRange(query: Pick<UsageQuery, 'period' | 'start_date' | 'end_date'>, now: Date): TimeRange {
  const [periodStart, periodEnd] = calendarPeriod(query.period, now);
  const start = query.start_date !== undefined ? new Date(query.start_date) : periodStart;
  const end = query.end_date !== undefined ? new Date(query.end_date) : periodEnd;
  return {
    start: new Date(Math.floor(start.getTime() / HOUR_MS) * HOUR_MS),
    end: new Date(Math.ceil(end.getTime() / HOUR_MS) * HOUR_MS),
  };
}

function calendarPeriod(period: Period, now: Date): [Date, Date] {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  switch (period) {
    case 'hour': {
      const start = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
      return [start, new Date(start.getTime() + HOUR_MS)];
    }
    case 'day':
      return [new Date(Date.UTC(y, m, d)), new Date(Date.UTC(y, m, d + 1))];
    case 'week': {
      const monday = d - ((now.getUTCDay() + 6) % 7);
      return [new Date(Date.UTC(y, m, monday)), new Date(Date.UTC(y, m, monday + 7))];
    }
    case 'month':
      return [new Date(Date.UTC(y, m, 1)), new Date(Date.UTC(y, m + 1, 1))];
    case 'year':
      return [new Date(Date.UTC(y, 0, 1)), new Date(Date.UTC(y + 1, 0, 1))];
  }
}

/** The start of every bucket that overlaps the range, so quiet buckets show as zeros. */
function bucketStarts(range: TimeRange, breakdown: Breakdown): Date[] {
  const starts: Date[] = [];
  let at: Date;
  if (breakdown === 'hour') at = range.start;
  else {
    const day = new Date(Math.floor(range.start.getTime() / DAY_MS) * DAY_MS);
    at = breakdown === 'day' ? day : new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS);
  }
  const step = breakdown === 'hour' ? HOUR_MS : breakdown === 'day' ? DAY_MS : 7 * DAY_MS;
  for (; at < range.end; at = new Date(at.getTime() + step)) starts.push(at);
  return starts;
}

function add(a: RollupSums, b: RollupSums): RollupSums {
  return { requests: a.requests + b.requests, errors: a.errors + b.errors, cacheHits: a.cacheHits + b.cacheHits, latencyMsSum: a.latencyMsSum + b.latencyMsSum };
}

function rate(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000;
}

function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100;
}

function avgSeconds(sums: RollupSums): number {
  return sums.requests === 0 ? 0 : Math.round(sums.latencyMsSum / sums.requests) / 1000;
}
