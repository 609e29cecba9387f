import type { Redis } from 'ioredis';
import { ApiError } from '../errors/catalogue.js';
import type { Principal } from '../auth/principal.js';
import type { Mode } from '../mode.js';
import { monitorScope, type ScopeQuery } from './monitor-scope.js';
import { waitingJobs, type Queues } from '../queue/queues.js';
import type { LiveRecorder } from './live-recorder.js';
import {
  accountScope, ALL_SCOPE, hostUsage, modeScope, mergeMinutes, MINUTE_MS, minuteOf, readMinutes, readProcesses, sumMinutes, withOwn, type Counts,
} from './live-store.js';
import { trending, type Trending } from './trend.js';

/** data of GET /v1/metrics/live (section 2.10). */
export interface LiveMetrics {
  timestamp: string;
  /** Whose requests last_5_minutes and trending count: an account in one mode, every account in one mode, or (both null) the whole deployment. */
  scope: { account_id: string | null; mode: Mode | null };
  current_load: {
    requests_per_minute: number;
    active_connections: number;
    queue_depth: number;
    cpu_usage: number;
    memory_usage: number;
  };
  last_5_minutes: {
    total_requests: number;
    successful_requests: number;
    failed_requests: number;
    cache_hits: number;
    cache_misses: number;
    avg_response_time: number | null;
  };
  alerts: Array<{ level: string; message: string; timestamp: string; duration: number }>;
  trending: Trending;
}

export interface LiveMetricsDeps {
  redis: Redis;
  prefix: string;
  recorder: LiveRecorder;
  queues: Queues;
  /** Throws NOT_FOUND for an account that does not exist. */
  getAccount(id: string): Promise<unknown>;
  /** The alerts firing over an account's figures in a mode, or (nulls) every firing alert. */
  firingAlerts(scope: { accountId: string | null; mode: string | null }, now: Date): Promise<LiveMetrics['alerts']>;
}

/** Minutes of last_5_minutes (the current one included) and of the window trending compares them with. */
export const RECENT_MINUTES = 5;
export const EARLIER_MINUTES = 30;

/**
 * GET /v1/metrics/live: the deployment's current load (every API and worker process, from their
 * snapshots), the caller's requests of the last 5 minutes and their trend (from the shared
 * per-minute counts), and the alerts firing over the same figures (docs/alerts.md).
 */
export class LiveMetricsService {
  constructor(private readonly deps: LiveMetricsDeps) {}

  /**
   * The figures `principal` may see (monitor-scope.ts, as the other monitoring reads): a key its
   * own account and mode; the master key an account it names (live unless `mode` says test), or
   * the whole deployment (in one mode when `mode` is given).
   */
  async read(principal: Principal, query: ScopeQuery): Promise<LiveMetrics> {
    const scope = await this.scopeOf(principal, query);
    const now = Date.now();
    const current = minuteOf(now);
    const firstRecent = current - RECENT_MINUTES + 1;
    const firstEarlier = firstRecent - EARLIER_MINUTES;
    const scopeName = scope.account_id !== null ? accountScope(scope.account_id, scope.mode!) : scope.mode !== null ? modeScope(scope.mode) : ALL_SCOPE;
    let figures;
    try {
      figures = await Promise.all([
        readMinutes(this.deps.redis, this.deps.prefix, [scopeName], firstEarlier, current),
        readProcesses(this.deps.redis, this.deps.prefix, now),
        waitingJobs(this.deps.queues),
      ]);
    } catch (error) {
      throw new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'when Redis is reachable again', status_page: '/v1/health' }, 'Live metrics are unavailable: Redis does not answer.', { cause: error });
    }
    const [stored, processes, queueDepth] = figures;
    const alerts = await this.deps.firingAlerts({ accountId: scope.account_id, mode: scope.mode }, new Date(now));
    const minutes = mergeMinutes(stored, this.deps.recorder.unwritten());
    const recent = sumMinutes(minutes, scopeName, firstRecent, current);
    const earlier = sumMinutes(minutes, scopeName, firstEarlier, firstRecent - 1);
    const live = withOwn(processes.fresh, this.deps.recorder.snapshot(now));
    const usage = hostUsage(live);
    return {
      timestamp: new Date(now).toISOString(),
      scope,
      current_load: {
        requests_per_minute: live.reduce((sum, p) => sum + p.requests_last_minute, 0),
        active_connections: live.reduce((sum, p) => sum + p.active_connections, 0),
        queue_depth: queueDepth,
        cpu_usage: usage.cpu,
        memory_usage: usage.memory,
      },
      last_5_minutes: lastMinutes(recent),
      alerts,
      trending: trending(recent, RECENT_MINUTES - 1 + (now % MINUTE_MS) / MINUTE_MS, earlier, EARLIER_MINUTES),
    };
  }

  private async scopeOf(principal: Principal, query: ScopeQuery): Promise<LiveMetrics['scope']> {
    const { accountId, mode } = monitorScope(principal, query);
    // An account the master key names must exist (as GET /v1/usage has it): a mistyped id is a 404, not zeros.
    if (accountId !== null && principal.permissions.has('operator')) await this.deps.getAccount(accountId);
    return { account_id: accountId, mode: mode as Mode | null };
  }

}

export function lastMinutes(counts: Counts): LiveMetrics['last_5_minutes'] {
  return {
    total_requests: counts.n,
    successful_requests: counts.n - counts.err,
    failed_requests: counts.err,
    cache_hits: counts.hit,
    cache_misses: counts.miss,
    avg_response_time: counts.n > 0 ? Math.round(counts.us / counts.n) / 1e6 : null,
  };
}
