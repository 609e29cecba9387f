import client from 'prom-client';
import { createTenantMetrics, type TenantDetail } from './tenant-metrics.js';

/**
 * Every Prometheus metric of the service is declared here and nowhere else. Gauges that mirror
 * external state (queue depths, index segments, pool use, live workers) are filled in
 * `collect()` at scrape time from the sources a process has, rather than by timers.
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

/** Active search-index segments of one mode and level, with their postings. */
export interface IndexSegmentStats {
  mode: string;
  level: number;
  segments: number;
  postings: number;
  deadPostings: number;
}

export interface MetricSources {
  queueDepths?: () => Promise<QueueDepth[]>;
  indexSegments?: () => Promise<IndexSegmentStats[]>;
  poolStats?: () => PoolStats;
  workersAlive?: () => Promise<number>;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** A merge of a few small segments takes well under a second; one of the top levels, minutes. */
const MERGE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

export interface MetricOptions {
  /** What the tenant metrics break requests down by (TENANT_METRICS): key and account, account only, or nothing. */
  tenants?: TenantDetail;
}

export function createMetrics(role: Role, sources: MetricSources = {}, options: MetricOptions = {}) {
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
      help: 'Queue jobs finished by this process, by queue and outcome (completed, failed, retried, expired: dropped unrun, its caller had stopped waiting)',
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
    renders: new client.Counter({
      name: 'sev_renders_total',
      help: 'Pages read with options.render auto or always, by outcome: rendered, static (auto found no need), unavailable (no browser), or the error code',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    renderDuration: new client.Histogram({
      name: 'sev_render_duration_seconds',
      help: 'Time to render one page in the browser, waiting for a context and crash retries included',
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    renderBlockedRequests: new client.Counter({
      name: 'sev_render_blocked_requests_total',
      help: 'Requests of rendered pages refused, by reason: private_address (the SSRF guard), scheme (not http or https), resource_type (RENDER_BLOCK_RESOURCES)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    renderBrowserRestarts: new client.Counter({
      name: 'sev_render_browser_restarts_total',
      help: 'Rendering browsers that went away and are launched again, by cause: crash (killed or crashed) or memory (over RENDER_BROWSER_MAX_MB)',
      labelNames: ['cause'] as const,
      registers: [registry],
    }),
    renderContextsInUse: new client.Gauge({
      name: 'sev_render_contexts_in_use',
      help: 'Browser contexts rendering a page right now (at most RENDER_CONTEXTS)',
      registers: [registry],
    }),
    indexMerges: new client.Counter({
      name: 'sev_index_merges_total',
      help: 'Search-index segment merges run by this process, by outcome (completed, failed)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    indexMergeDuration: new client.Histogram({
      name: 'sev_index_merge_duration_seconds',
      help: 'Time to merge segments into one (or to rewrite one mostly dead), completed merges only',
      buckets: MERGE_BUCKETS,
      registers: [registry],
    }),
    upstreamRequests: new client.Counter({
      name: 'sev_upstream_requests_total',
      help: 'Calls to upstream search engines by engine and outcome (ok, error, timeout, rejected_open: refused by the open circuit)',
      labelNames: ['engine', 'outcome'] as const,
      registers: [registry],
    }),
    upstreamCircuitState: new client.Gauge({
      name: 'sev_upstream_circuit_state',
      help: 'Circuit breaker of each upstream service in this process: 0 closed, 1 half-open, 2 open',
      labelNames: ['engine'] as const,
      registers: [registry],
    }),
    summarizerRequests: new client.Counter({
      name: 'sev_summarizer_requests_total',
      help: 'Calls to the chat-completions summarizer by outcome (ok, error, timeout, invalid: unusable answer, rejected_open)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    validationJudgeRequests: new client.Counter({
      name: 'sev_validation_judge_requests_total',
      help: 'Key passages validation asked the model judge about, by outcome (answered: used; invalid: not the JSON asked for; quote_mismatch: its quote is not in the passage; failed; timeout; circuit_open: not asked)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    cacheRequests: new client.Counter({
      name: 'sev_cache_requests_total',
      help: 'Result-cache reads by outcome (hit: a live entry was served; miss: absent or expired)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    cacheStores: new client.Counter({
      name: 'sev_cache_entries_stored_total',
      help: 'Result-cache entries written (new or replacing an entry)',
      registers: [registry],
    }),
    cacheCleared: new client.Counter({
      name: 'sev_cache_entries_cleared_total',
      help: 'Live result-cache entries removed by clears',
      registers: [registry],
    }),
    cacheEvicted: new client.Counter({
      name: 'sev_cache_entries_evicted_total',
      help: 'Live result-cache entries evicted because their namespace passed CACHE_NAMESPACE_MAX_MB',
      registers: [registry],
    }),
    auditEntries: new client.Counter({
      name: 'sev_audit_entries_total',
      help: 'Audit entries by outcome: written to MySQL, duplicate (already written: a batch delivered again), dropped (backlog or buffer full)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    auditBatchRetries: new client.Counter({
      name: 'sev_audit_batch_retries_total',
      help: 'Audit batches whose database write failed and was retried',
      registers: [registry],
    }),
    auditBacklog: new client.Gauge({
      name: 'sev_audit_backlog_entries',
      help: 'Audit entries waiting to be written, by where they wait: stream (Redis, shared) or buffer (this process, while Redis is away)',
      labelNames: ['queue'] as const,
      registers: [registry],
    }),
    auditLag: new client.Gauge({
      name: 'sev_audit_rollup_lag_seconds',
      help: 'Age of the oldest audit entry not yet written to the log and its rollups',
      registers: [registry],
    }),
    notifications: new client.Counter({
      name: 'sev_notifications_total',
      help: 'Alert notification tries by channel (webhook, slack, email) and outcome: delivered, retried (failed, another try is scheduled), dead (failed, no tries left)',
      labelNames: ['channel', 'outcome'] as const,
      registers: [registry],
    }),
    notificationDuration: new client.Histogram({
      name: 'sev_notification_delivery_seconds',
      help: 'Time one notification try took (request and answer, or the SMTP exchange), by channel, whatever its outcome',
      labelNames: ['channel'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    alertEvaluations: new client.Counter({
      name: 'sev_alert_evaluations_total',
      help: 'Alert evaluation intervals this process ran, by outcome: evaluated (its result took effect), skipped (another process had evaluated the interval), failed',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    alertEvaluationSeconds: new client.Histogram({
      name: 'sev_alert_evaluation_seconds',
      help: 'Time one evaluation of every alert definition took, figures read and state written',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    alertTransitions: new client.Counter({
      name: 'sev_alert_transitions_total',
      help: 'Alert state changes, by the state entered (pending, firing, resolved, inactive)',
      labelNames: ['state'] as const,
      registers: [registry],
    }),
    /** Requests, errors, latency and quota use per account and key (src/metrics/tenant-metrics.ts). */
    tenants: createTenantMetrics(registry, options.tenants ?? 'key', LATENCY_BUCKETS),
  };
  for (const outcome of ['written', 'duplicate', 'dropped']) metrics.auditEntries.inc({ outcome }, 0);
  for (const queue of ['stream', 'buffer']) metrics.auditBacklog.set({ queue }, 0);
  for (const outcome of ['evaluated', 'skipped', 'failed']) metrics.alertEvaluations.inc({ outcome }, 0);
  // Present from the start, so that increase() over the first failure after a restart is not lost.
  for (const outcome of ['completed', 'failed']) metrics.indexMerges.inc({ outcome }, 0);
  // Likewise for notifications, so that an alert on dead deliveries sees the first one.
  for (const channel of ['webhook', 'slack', 'email']) {
    for (const outcome of ['delivered', 'retried', 'dead']) metrics.notifications.inc({ channel, outcome }, 0);
  }
  // Likewise, so that a hit ratio is defined from the first read.
  for (const outcome of ['hit', 'miss']) metrics.cacheRequests.inc({ outcome }, 0);

  if (sources.queueDepths) {
    const read = sources.queueDepths;
    new client.Gauge({
      name: 'sev_queue_jobs',
      help: 'Jobs in each queue by state',
      labelNames: ['queue', 'state'] as const,
      registers: [registry],
      async collect() {
        const depths = await lastKnown(read);
        if (!depths) return;
        this.reset();
        for (const { queue, state, count } of depths) this.set({ queue, state }, count);
      },
    });
  }
  if (sources.indexSegments) {
    const read = sources.indexSegments;
    // Both gauges are collected at once: they share one query, so a scrape shows one snapshot.
    let reading: Promise<IndexSegmentStats[] | undefined> | undefined;
    const stats = () => (reading ??= lastKnown(read).finally(() => { reading = undefined; }));
    new client.Gauge({
      name: 'sev_index_segments',
      help: 'Active search-index segments by mode and level (the same for every process: read from MySQL)',
      labelNames: ['mode', 'level'] as const,
      registers: [registry],
      async collect() {
        const read = await stats();
        if (!read) return;
        this.reset();
        for (const { mode, level, segments } of read) this.set({ mode, level }, segments);
      },
    });
    new client.Gauge({
      name: 'sev_index_postings',
      help: 'Postings in active search-index segments by mode and kind (live, or dead: of deleted or replaced passages, until a merge drops them)',
      labelNames: ['mode', 'kind'] as const,
      registers: [registry],
      async collect() {
        const read = await stats();
        if (!read) return;
        this.reset();
        const byMode = new Map<string, { live: number; dead: number }>();
        for (const { mode, postings, deadPostings } of read) {
          const sum = byMode.get(mode) ?? { live: 0, dead: 0 };
          sum.live += postings - deadPostings;
          sum.dead += deadPostings;
          byMode.set(mode, sum);
        }
        for (const [mode, { live, dead }] of byMode) {
          this.set({ mode, kind: 'live' }, live);
          this.set({ mode, kind: 'dead' }, dead);
        }
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
      async collect() {
        const alive = await lastKnown(read);
        if (alive !== undefined) this.set(alive);
      },
    });
  }
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * A gauge's reading from MySQL or Redis, or undefined when that store does not answer: the gauge
 * then keeps its last value, and the scrape still succeeds. An outage is when the other metrics
 * (audit backlog, errors) matter most.
 */
async function lastKnown<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch {
    return undefined;
  }
}

/** What the audit capture and writer report to (see AuditCapture and AuditDrain). */
export function auditObserver(metrics: Metrics) {
  return {
    dropped(_reason: string, count: number) {
      metrics.auditEntries.inc({ outcome: 'dropped' }, count);
    },
    buffered(entries: number) {
      metrics.auditBacklog.set({ queue: 'buffer' }, entries);
    },
    written({ written, duplicates }: { written: number; duplicates: number }) {
      metrics.auditEntries.inc({ outcome: 'written' }, written);
      if (duplicates > 0) metrics.auditEntries.inc({ outcome: 'duplicate' }, duplicates);
    },
    retried() {
      metrics.auditBatchRetries.inc();
    },
    backlog(entries: number, oldestAgeSeconds: number) {
      metrics.auditBacklog.set({ queue: 'stream' }, entries);
      metrics.auditLag.set(oldestAgeSeconds);
    },
  };
}

/** What the search index's merger reports to (see SegmentMerger). */
export function indexMergeObserver(metrics: Metrics): { merged(seconds: number): void; failed(): void } {
  return {
    merged(seconds) {
      metrics.indexMerges.inc({ outcome: 'completed' });
      metrics.indexMergeDuration.observe(seconds);
    },
    failed() {
      metrics.indexMerges.inc({ outcome: 'failed' });
    },
  };
}
