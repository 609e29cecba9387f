import type { Redis } from 'ioredis';
import type { Storage } from '../storage/connection.js';
import { queueDepths, type Queues } from '../queue/queues.js';
import type { PoolStats } from '../metrics/metrics.js';
import { listWorkers, type WorkerStatus } from './worker-registry.js';
import { HealthHistory, type HealthStatus, type Incident } from './health-history.js';
import type { LiveRecorder } from './live-recorder.js';
import {
  ALL_SCOPE, emptyMinutes, endpointScope, hostUsage, mergeMinutes, minuteOf, readMinutes, readProcesses, sumMinutes, withOwn,
  type MinuteCounts, type ProcessSnapshot,
} from './live-store.js';

export type { HealthStatus, Incident };

export interface ComponentHealth {
  status: HealthStatus;
  last_check: string;
  [field: string]: unknown;
}

export interface RegionHealth {
  status: HealthStatus;
  /** Mean round trip of the region's processes to the shared Redis, seconds; null when none reports. */
  latency: number | null;
  /** CPU in use over the CPU its processes' hosts may use, 0 to 1; null when none reports. */
  load: number | null;
  /** Processes of the region reporting now. */
  processes: number;
}

export interface HealthReport {
  status: HealthStatus;
  timestamp: string;
  version: string;
  uptime: number;
  uptime_seconds: number;
  services: Record<string, ComponentHealth>;
  regions: Record<string, RegionHealth>;
  recent_incidents: Incident[];
}

export interface HealthDeps {
  version: string;
  region: string;
  queuePrefix: string;
  heartbeatMs: number;
  redis: Redis;
  storage: Storage;
  queues: Queues;
  live: LiveRecorder;
}

/** Minutes of request figures health reports (response times, hit rates): the current one and the 4 before. */
export const FIGURE_MINUTES = 5;
const FIGURE_SCOPES = [ALL_SCOPE, endpointScope('/v1/search'), endpointScope('/v1/validate'), endpointScope('/v1/extract')];

/** What the other processes report: their snapshots and the shared request counts. */
interface SharedFigures {
  minutes: MinuteCounts;
  from: number;
  to: number;
  processes: ProcessSnapshot[];
  gone: ProcessSnapshot[];
}

const CHECK_TIMEOUT_MS = 2000;
const RANK: Record<HealthStatus, number> = { healthy: 0, degraded: 1, unhealthy: 2 };

/** Rejects when `promise` takes longer than the check budget: a hung dependency is a failed check. */
async function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function timed<T>(check: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const start = performance.now();
  const value = await bounded(check());
  return { value, seconds: Math.round((performance.now() - start) * 1000) / 1e6 };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function worst(statuses: Iterable<HealthStatus>): HealthStatus {
  let result: HealthStatus = 'healthy';
  for (const status of statuses) if (RANK[status] > RANK[result]) result = status;
  return result;
}

/** A mean in seconds from a sum in microseconds, or null over no events. */
function meanSeconds(sumUs: number, count: number): number | null {
  return count > 0 ? Math.round(sumUs / count) / 1e6 : null;
}

/**
 * The headless browsers of the live extract workers, from their heartbeats. Rendering is
 * optional: without a browser anywhere the component is healthy but `available: false`, unless
 * a worker renders every page by default (RENDER_DEFAULT=always), which it then cannot. Degraded
 * while some extract workers have no browser (the renders they take fail) or one would not start.
 */
function rendererComponent(now: string, workers: readonly WorkerStatus[]): ComponentHealth {
  const browsers = workers.filter((w) => w.status === 'alive' && w.queues.includes('extract') && w.browser).map((w) => w.browser!);
  const installed = browsers.filter((b) => b.installed);
  const figures = {
    available: installed.length > 0,
    workers: browsers.length,
    workers_with_browser: installed.length,
    running: browsers.filter((b) => b.running).length,
    contexts: installed.reduce((sum, b) => sum + b.contexts, 0),
    contexts_in_use: browsers.reduce((sum, b) => sum + b.contexts_in_use, 0),
    waiting: browsers.reduce((sum, b) => sum + b.waiting, 0),
    restarts: browsers.reduce((sum, b) => sum + b.restarts, 0),
  };
  const launchError = installed.find((b) => b.launch_error !== null)?.launch_error;
  if (installed.length === 0) {
    return browsers.some((b) => b.default_mode === 'always')
      ? { status: 'unhealthy', last_check: now, ...figures, error: 'RENDER_DEFAULT is always but no extract worker has a browser at CHROMIUM_PATH' }
      : { status: 'healthy', last_check: now, ...figures };
  }
  if (launchError) return { status: 'degraded', last_check: now, ...figures, error: launchError };
  if (installed.length < browsers.length) {
    return { status: 'degraded', last_check: now, ...figures, error: `${browsers.length - installed.length} of ${browsers.length} extract workers have no browser at CHROMIUM_PATH: the renders they take fail` };
  }
  return { status: 'healthy', last_check: now, ...figures };
}

function ratio(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 1000) / 1000 : null;
}

/**
 * Real checks of every component the service depends on, run on each /v1/health call and on a
 * background interval. Request figures (response times, hit rates) are those of the whole
 * deployment over the last minutes; the database pool, regions and load come from every
 * process's snapshot (live-store.ts); uptime and incidents are kept in Redis by every API
 * process's checks (health-history.ts).
 */
export class HealthMonitor {
  private readonly started = Date.now();
  private readonly history: HealthHistory;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: HealthDeps) {
    this.history = new HealthHistory(deps.redis, deps.queuePrefix, deps.region);
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.check().catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** MySQL and Redis answer: enough to take traffic. */
  async ready(): Promise<boolean> {
    try {
      await bounded(Promise.all([this.deps.redis.ping(), this.deps.storage.ping()]));
      return true;
    } catch {
      return false;
    }
  }

  async workers(): Promise<WorkerStatus[]> {
    return listWorkers(this.deps.redis, this.deps.queuePrefix, this.deps.heartbeatMs);
  }

  async check(): Promise<HealthReport> {
    const checkedAt = new Date();
    const now = checkedAt.toISOString();
    const [database, cache, queue, workers, shared] = await Promise.all([
      this.checkDatabase(now),
      this.checkRedis(now),
      this.checkQueues(now),
      this.checkWorkers(now),
      this.shared(checkedAt.getTime()),
    ]);
    const services: Record<string, ComponentHealth> = {
      database: this.withPool(database, shared),
      cache_layer: this.withHitRate(cache, shared),
      job_queue: queue,
      workers: workers.component,
      cpu_pool: this.poolComponent(now, workers.list),
      search_engine: this.capability(now, 'search', '/v1/search', workers.list, shared),
      validation_service: this.capability(now, 'validate', '/v1/validate', workers.list, shared),
      extraction_service: this.capability(now, 'extract', '/v1/extract', workers.list, shared),
      renderer: rendererComponent(now, workers.list),
    };
    const status = worst(Object.values(services).map((c) => c.status));
    this.deps.live.setStatus(status);
    const observations = Object.entries(services).map(([component, health]) => ({
      component,
      status: health.status,
      message: typeof health.error === 'string' ? health.error : `${component} is ${health.status}`,
    }));
    const { uptime, incidents } = await this.history.record(checkedAt, status, observations, bounded);
    return {
      status,
      timestamp: now,
      version: this.deps.version,
      uptime,
      uptime_seconds: Math.round((Date.now() - this.started) / 1000),
      services,
      regions: this.regions(shared),
      recent_incidents: incidents,
    };
  }

  /**
   * The shared request counts of the last minutes and every process's snapshot, this process's
   * own as it is now; this process's figures alone when Redis does not answer.
   */
  private async shared(now: number): Promise<SharedFigures> {
    const to = minuteOf(now);
    const from = to - FIGURE_MINUTES + 1;
    const own = this.deps.live.snapshot(now);
    let minutes: MinuteCounts;
    let processes: ProcessSnapshot[] = [];
    let gone: ProcessSnapshot[] = [];
    try {
      const [stored, snapshots] = await bounded(Promise.all([
        readMinutes(this.deps.redis, this.deps.queuePrefix, FIGURE_SCOPES, from, to),
        readProcesses(this.deps.redis, this.deps.queuePrefix, now),
      ]));
      minutes = stored;
      processes = snapshots.fresh;
      gone = snapshots.gone;
    } catch {
      minutes = emptyMinutes(FIGURE_SCOPES, from, to);
    }
    mergeMinutes(minutes, this.deps.live.unwritten());
    return { minutes, from, to, processes: withOwn(processes, own), gone };
  }

  private async checkDatabase(now: string): Promise<ComponentHealth> {
    try {
      const { seconds } = await timed(() => this.deps.storage.ping());
      return { status: 'healthy', last_check: now, response_time: seconds };
    } catch (error) {
      return { status: 'unhealthy', last_check: now, error: message(error) };
    }
  }

  /** MySQL connections in use over the pools' size, summed over every process; degraded when a process uses 90 % of its pool. */
  private withPool(database: ComponentHealth, shared: SharedFigures): ComponentHealth {
    const inUse = shared.processes.reduce((sum, p) => sum + p.db_pool.in_use, 0);
    const size = shared.processes.reduce((sum, p) => sum + p.db_pool.size, 0);
    const busy = shared.processes.some((p) => p.db_pool.size > 0 && p.db_pool.in_use / p.db_pool.size >= 0.9);
    return {
      ...database,
      ...(database.status === 'healthy' && busy ? { status: 'degraded' as const, error: 'a process uses 90 % of its MySQL connections or more' } : {}),
      connection_pool: `${inUse}/${size}`,
      processes: shared.processes.length,
    };
  }

  private async checkRedis(now: string): Promise<ComponentHealth> {
    try {
      const { seconds } = await timed(() => this.deps.redis.ping());
      return { status: 'healthy', last_check: now, response_time: seconds };
    } catch (error) {
      return { status: 'unhealthy', last_check: now, error: message(error) };
    }
  }

  /** The result cache's hit rate over the last minutes: hits over lookups (searches that could use it, cache queries). */
  private withHitRate(cache: ComponentHealth, shared: SharedFigures): ComponentHealth {
    const counts = sumMinutes(shared.minutes, ALL_SCOPE, shared.from, shared.to);
    return { ...cache, hit_rate: ratio(counts.hit, counts.hit + counts.miss), lookups: counts.hit + counts.miss };
  }

  private async checkQueues(now: string): Promise<ComponentHealth> {
    try {
      const { value, seconds } = await timed(() => queueDepths(this.deps.queues));
      const depth: Record<string, Record<string, number>> = {};
      for (const { queue, state, count } of value) (depth[queue] ??= {})[state] = count;
      return { status: 'healthy', last_check: now, response_time: seconds, depth };
    } catch (error) {
      return { status: 'unhealthy', last_check: now, error: message(error) };
    }
  }
  private async checkWorkers(now: string): Promise<{ component: ComponentHealth; list: WorkerStatus[] }> {
    try {
      const list = await bounded(this.workers());
      const alive = list.filter((w) => w.status === 'alive');
      const down = list.filter((w) => w.status === 'down');
      const status: HealthStatus = alive.length === 0 ? 'unhealthy' : down.length > 0 ? 'degraded' : 'healthy';
      return {
        component: {
          status,
          last_check: now,
          alive: alive.length,
          down: down.length,
          instances: list.map((w) => ({ id: w.id, status: w.status, queues: w.queues, active_jobs: w.active_jobs, last_seen: w.last_seen })),
        },
        list,
      };
    } catch (error) {
      return { component: { status: 'unhealthy', last_check: now, error: message(error) }, list: [] };
    }
  }

  /** Pool use as reported by the live workers' heartbeats (the pool lives where the workers run). */
  private poolComponent(now: string, workers: readonly WorkerStatus[]): ComponentHealth {
    const pools = workers.filter((w) => w.status === 'alive' && w.pool).map((w) => w.pool as PoolStats);
    if (pools.length === 0) return { status: 'unhealthy', last_check: now, error: 'no live worker reports a pool' };
    const utilization = pools.reduce((sum, p) => sum + p.utilization, 0) / pools.length;
    const queued = pools.reduce((sum, p) => sum + p.queueSize, 0);
    return {
      status: utilization > 0.95 && queued > 0 ? 'degraded' : 'healthy',
      last_check: now,
      utilization: Math.round(utilization * 1000) / 1000,
      threads: pools.reduce((sum, p) => sum + p.threads, 0),
      queue_size: queued,
    };
  }

  /**
   * A capability served by the workers of one queue: healthy while a live worker consumes it;
   * its endpoint's mean response time (successful requests), requests and error rate over the last minutes.
   */
  private capability(now: string, queue: string, endpoint: string, workers: readonly WorkerStatus[], shared: SharedFigures): ComponentHealth {
    const serving = workers.filter((w) => w.status === 'alive' && w.queues.includes(queue)).length;
    const counts = sumMinutes(shared.minutes, endpointScope(endpoint), shared.from, shared.to);
    const figures = {
      response_time: meanSeconds(counts.okus, counts.n - counts.err),
      ...(counts.hit + counts.miss > 0 || queue === 'search' ? { hit_rate: ratio(counts.hit, counts.hit + counts.miss) } : {}),
      requests: counts.n,
      error_rate: ratio(counts.err, counts.n),
      workers: serving,
    };
    return serving > 0
      ? { status: 'healthy', last_check: now, ...figures }
      : { status: 'unhealthy', last_check: now, ...figures, error: `no live worker consumes the ${queue} queue` };
  }

  /**
   * Every region a process reports from: the worst status its processes report, their mean
   * round trip to Redis, and their hosts' CPU use. A region whose processes all stopped
   * reporting (within the last ten minutes) is unhealthy with no figures.
   */
  private regions(shared: SharedFigures): Record<string, RegionHealth> {
    const byRegion = new Map<string, ProcessSnapshot[]>();
    for (const process of shared.processes) byRegion.set(process.region, [...(byRegion.get(process.region) ?? []), process]);
    const regions: Record<string, RegionHealth> = {};
    for (const [region, processes] of byRegion) {
      const rtts = processes.map((p) => p.redis_rtt).filter((rtt): rtt is number => rtt !== null);
      regions[region] = {
        status: worst(processes.map((p) => p.status)),
        latency: rtts.length > 0 ? Math.round((rtts.reduce((a, b) => a + b, 0) / rtts.length) * 1e6) / 1e6 : null,
        load: hostUsage(processes).cpu,
        processes: processes.length,
      };
    }
    for (const process of shared.gone) {
      regions[process.region] ??= { status: 'unhealthy', latency: null, load: null, processes: 0 };
    }
    return Object.fromEntries(Object.entries(regions).sort(([a], [b]) => a.localeCompare(b)));
  }
}
