import os from 'node:os';
import type { Redis } from 'ioredis';
import type { Storage } from '../storage/connection.js';
import { queueDepths, type Queues } from '../queue/queues.js';
import type { PoolStats } from '../metrics/metrics.js';
import { listWorkers, type WorkerStatus } from './worker-registry.js';

export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';

export interface ComponentHealth {
  status: HealthStatus;
  last_check: string;
  [field: string]: unknown;
}

export interface Incident {
  component: string;
  status: HealthStatus;
  message: string;
  started_at: string;
  resolved_at: string | null;
}

export interface HealthReport {
  status: HealthStatus;
  timestamp: string;
  version: string;
  uptime: number;
  uptime_seconds: number;
  services: Record<string, ComponentHealth>;
  regions: Record<string, { status: HealthStatus; latency: number; load: number }>;
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
}

const CHECK_TIMEOUT_MS = 2000;
const MAX_INCIDENTS = 20;
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
  return { value, seconds: Math.round(performance.now() - start) / 1000 };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Real checks of every component the service depends on, run on each /v1/health call and on a
 * background interval. Uptime is the share of those probes in which the service was not
 * unhealthy since this process started; incidents are the component status changes seen.
 */
export class HealthMonitor {
  private readonly started = Date.now();
  private probes = 0;
  private upProbes = 0;
  private readonly incidents: Incident[] = [];
  private readonly open = new Map<string, Incident>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: HealthDeps) {}

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
    const now = new Date().toISOString();
    const [database, cache, queue, workers] = await Promise.all([
      this.checkDatabase(now),
      this.checkRedis(now),
      this.checkQueues(now),
      this.checkWorkers(now),
    ]);
    const services: Record<string, ComponentHealth> = {
      database,
      cache_layer: cache,
      job_queue: queue,
      workers: workers.component,
      cpu_pool: this.poolComponent(now, workers.list),
      search_engine: this.capability(now, 'search', workers.list),
      extraction_service: this.capability(now, 'extract', workers.list),
    };
    const status = Object.values(services).reduce<HealthStatus>((worst, c) => (RANK[c.status] > RANK[worst] ? c.status : worst), 'healthy');
    this.track(services, now, status);
    const latency = Math.max(Number(database.response_time ?? 0), Number(cache.response_time ?? 0));
    return {
      status,
      timestamp: now,
      version: this.deps.version,
      uptime: this.probes === 0 ? 100 : Math.round((this.upProbes / this.probes) * 10_000) / 100,
      uptime_seconds: Math.round((Date.now() - this.started) / 1000),
      services,
      regions: {
        [this.deps.region]: {
          status,
          latency,
          load: Math.min(1, Math.round((os.loadavg()[0]! / os.availableParallelism()) * 100) / 100),
        },
      },
      recent_incidents: [...this.incidents].reverse(),
    };
  }

  private async checkDatabase(now: string): Promise<ComponentHealth> {
    try {
      const { seconds } = await timed(() => this.deps.storage.ping());
      const pool = this.deps.storage.poolUsage();
      const busy = pool.inUse / pool.limit;
      return {
        status: busy >= 0.9 ? 'degraded' : 'healthy',
        last_check: now,
        response_time: seconds,
        connection_pool: `${pool.inUse}/${pool.limit} connections in use (${pool.open} open)`,
      };
    } catch (error) {
      return { status: 'unhealthy', last_check: now, error: message(error) };
    }
  }

  private async checkRedis(now: string): Promise<ComponentHealth> {
    try {
      const { seconds } = await timed(() => this.deps.redis.ping());
      return { status: 'healthy', last_check: now, response_time: seconds };
    } catch (error) {
      return { status: 'unhealthy', last_check: now, error: message(error) };
    }
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

  private capability(now: string, queue: string, workers: readonly WorkerStatus[]): ComponentHealth {
    const serving = workers.filter((w) => w.status === 'alive' && w.queues.includes(queue)).length;
    return serving > 0
      ? { status: 'healthy', last_check: now, workers: serving }
      : { status: 'unhealthy', last_check: now, workers: 0, error: `no live worker consumes the ${queue} queue` };
  }

  private track(services: Record<string, ComponentHealth>, now: string, overall: HealthStatus): void {
    this.probes++;
    if (overall !== 'unhealthy') this.upProbes++;
    for (const [component, health] of Object.entries(services)) {
      const current = this.open.get(component);
      if (health.status === 'healthy') {
        if (current) {
          current.resolved_at = now;
          this.open.delete(component);
        }
      } else if (!current || current.status !== health.status) {
        if (current) current.resolved_at = now;
        const incident: Incident = {
          component,
          status: health.status,
          message: typeof health.error === 'string' ? health.error : `${component} is ${health.status}`,
          started_at: now,
          resolved_at: null,
        };
        this.open.set(component, incident);
        this.incidents.push(incident);
        if (this.incidents.length > MAX_INCIDENTS) this.incidents.shift();
      }
    }
  }
}
