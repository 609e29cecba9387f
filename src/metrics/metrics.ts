import client from 'prom-client';

/**
 * Every Prometheus metric of the service is declared here and nowhere else. Gauges that mirror
 * external state (queue depths, pool use, live workers) are filled in `collect()` at scrape
 * time from the sources a process has, rather than by timers.
 */
export type Role = 'all' | 'api' | 'worker';

export interface QueueDepth {
  queue: string;
  state: string;
  count: number;
}

export interface PoolStats {
  utilization: number;
  queueSize: number;
  threads: number;
}

export interface MetricSources {
  queueDepths?: () => Promise<QueueDepth[]>;
  poolStats?: () => PoolStats;
  workersAlive?: () => Promise<number>;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(role: Role, sources: MetricSources = {}) {
  const registry = new client.Registry();
  registry.setDefaultLabels({ role });
  client.collectDefaultMetrics({ register: registry });

  const metrics = {
    registry,
    httpRequests: new client.Counter({
      name: 'sev_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new client.Histogram({
      name: 'sev_http_request_duration_seconds',
      help: 'Time from receiving a request to sending its response',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    httpErrors: new client.Counter({
      name: 'sev_http_errors_total',
      help: 'Error responses by route template and error code (authentication refusals, limits, failures)',
      labelNames: ['route', 'code'] as const,
      registers: [registry],
    }),
    httpInFlight: new client.Gauge({
      name: 'sev_http_requests_in_flight',
      help: 'Requests being processed right now',
      registers: [registry],
    }),
    jobs: new client.Counter({
      name: 'sev_jobs_total',
      help: 'Queue jobs finished by this process, by queue and outcome (completed, failed, retried)',
      labelNames: ['queue', 'outcome'] as const,
      registers: [registry],
    }),
    jobDuration: new client.Histogram({
      name: 'sev_job_duration_seconds',
      help: 'Processing time of one job attempt',
      labelNames: ['queue', 'outcome'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    poolTaskDuration: new client.Histogram({
      name: 'sev_pool_task_duration_seconds',
      help: 'Run time of CPU tasks in the thread pool',
      labelNames: ['task'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers: [registry],
    }),
    fetches: new client.Counter({
      name: 'sev_fetch_requests_total',
      help: 'Outbound page fetches by outcome (ok or the error code)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    fetchDuration: new client.Histogram({
      name: 'sev_fetch_duration_seconds',
      help: 'Time to fetch one page, redirects included',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
  };

  if (sources.queueDepths) {
    const read = sources.queueDepths;
    new client.Gauge({
      name: 'sev_queue_jobs',
      help: 'Jobs in each queue by state',
      labelNames: ['queue', 'state'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const { queue, state, count } of await read()) this.set({ queue, state }, count);
      },
    });
  }
  if (sources.poolStats) {
    const read = sources.poolStats;
    new client.Gauge({
      name: 'sev_pool_utilization', help: 'Share of pool capacity in use (0..1)', registers: [registry],
      collect() { this.set(read().utilization); },
    });
    new client.Gauge({
      name: 'sev_pool_queue_size', help: 'Tasks waiting for a pool thread', registers: [registry],
      collect() { this.set(read().queueSize); },
    });
    new client.Gauge({
      name: 'sev_pool_threads', help: 'Threads in the pool', registers: [registry],
      collect() { this.set(read().threads); },
    });
  }
  if (sources.workersAlive) {
    const read = sources.workersAlive;
    new client.Gauge({
      name: 'sev_workers_alive', help: 'Workers with a fresh heartbeat', registers: [registry],
      async collect() { this.set(await read()); },
    });
  }
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;
