import { setMaxListeners } from 'node:events';
import type { Config } from './config.js';
import type { Logger } from './log/logger.js';
import { auditObserver, createMetrics, indexMergeObserver, type Role } from './metrics/metrics.js';
import { openStorage } from './storage/connection.js';
import { ensureDatabase } from './storage/ensure-database.js';
import { migrateToLatest } from './storage/migrate.js';
import { checkServerRequirements } from './storage/server-requirements.js';
import { loggedOutages, openRedis, redisOptions } from './redis/connection.js';
import { createQueueEvents, createQueues, queueDepths, QUEUE_NAMES, WAITED_QUEUE_NAMES } from './queue/queues.js';
import { createCpuPool, type CpuPool } from './pool/pool.js';
import { HealthMonitor } from './monitor/health.js';
import { AuditCapture } from './monitor/audit-capture.js';
import { AuditDrain } from './monitor/audit-drain.js';
import { RetentionJob } from './monitor/retention.js';
import { AuditService } from './monitor/audit-service.js';
import { ErrorAnalyticsService } from './monitor/error-analytics.js';
import { DashboardService } from './monitor/dashboard-service.js';
import { UsageReportService } from './usage/usage-report.js';
import { listWorkers } from './monitor/worker-registry.js';
import { LiveRecorder } from './monitor/live-recorder.js';
import { LiveMetricsService } from './monitor/live-metrics.js';
import { ensureMasterKeyHash } from './auth/master-key.js';
import { createAuthenticator } from './auth/authenticator.js';
import { invalidationChannel, KeyLookupCache } from './auth/key-cache.js';
import { KeyService } from './auth/key-service.js';
import { SessionStore } from './auth/sessions.js';
import { SessionService } from './auth/session-service.js';
import { TeamService } from './teams/team-service.js';
import { SsoService } from './sso/sso-service.js';
import { UsageMeter } from './usage/usage-meter.js';
import { UsageRecorder } from './usage/usage-recorder.js';
import { ResultCache, type CacheEntry } from './cache/result-cache.js';
import { NearCache } from './cache/near-cache.js';
import { coalesceWrites } from './redis/coalesced-writes.js';
import { systemClock, type Clock } from './clock.js';
import { createApp } from './http/app.js';
import type { Services } from './http/deps.js';
import { listen, type HttpServer } from './http/server.js';
import { createProbeServer } from './http/probe-server.js';
import { startWorkers, type RunningWorkers } from './jobs/worker-runtime.js';
import { CrawlService } from './crawl/crawl-service.js';
import { SearchService } from './search/search-service.js';
import { IndexService } from './index/index-service.js';
import { ExtractService } from './extract/extract-service.js';
import { ValidateService } from './validate/validate-service.js';
import { SummarizeService } from './summarize/summarize-service.js';
import { McpEndpoint } from './mcp/mcp-endpoint.js';
import { CacheService } from './cache/cache-service.js';
import { KeyUsageService } from './usage/key-usage-service.js';
import { MysqlDocumentIndex } from './index/mysql-document-index.js';
import { DEFAULT_TUNING } from './index/retriever.js';
import { segmentStats } from './index/segments.repository.js';
import { VERSION } from './version.js';
import { AlertService } from './alerts/alert-service.js';
import { AlertEvaluator } from './alerts/alert-evaluator.js';
import { NotificationDispatcher } from './notify/dispatcher.js';
import { EmailSender, emailConfigured } from './notify/email-sender.js';
import { QuotaReader } from './usage/quota-month.js';
import { StoredDocuments } from './index/stored-documents.js';
import { TavilyService } from './compat/tavily-service.js';
import { ExaService } from './compat/exa-service.js';
import { FirecrawlService } from './compat/firecrawl-service.js';
import { ExtractBatches } from './extract/extract-batches.js';
import { ROUTES } from './http/routes/index.js';

export interface RunningService {
  /** Where the API (role all/api) or the probe server (role worker) listens. */
  readonly url: string;
  /** Graceful stop: drain requests, finish or hand back jobs, close every connection. */
  close(): Promise<void>;
}

const HEALTH_PROBE_INTERVAL_MS = 10_000;

/**
 * The one wiring place of a process. Role `all` runs API, workers and pool together (the
 * single-machine default); `api` runs the HTTP edge only; `worker` runs queue workers and the
 * pool with a small probe/metrics server, so workers scale out on other hosts.
 */
export interface ServiceOptions {
  /** Time as the service sees it; tests move it forward to cross expiry and grace periods. */
  clock?: Clock;
}

/**
 * The generated master key, on stderr on its own, whatever LOG_LEVEL is: in a JSON log line it
 * was lost among the other lines, and gone for good at LOG_LEVEL=error.
 */
function printMasterKey(key: string): void {
  process.stderr.write(`\nGenerated a master API key. It is shown only this once and only its hash is stored:\n\n    ${key}\n\n`
    + 'Store it now (export KEY=...), or set MASTER_API_KEY. Lost it? See "Master key" in the README.\n\n');
}

export async function startService(config: Config, role: Role, logger: Logger, options: ServiceOptions = {}): Promise<RunningService> {
  const clock = options.clock ?? systemClock;
  if (await ensureDatabase(config.databaseUrl)) logger.info('database created');
  const storage = openStorage(config.databaseUrl, config.databasePoolSize);
  await checkServerRequirements(storage.db);
  const applied = await migrateToLatest(storage.db);
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');

  const redis = openRedis(config.redisUrl, loggedOutages(logger, 'commands'));
  const writes = coalesceWrites(redis);
  const connection = redisOptions(config.redisUrl);
  const queues = createQueues(connection, config.queuePrefix);
  const heartbeatMs = config.workerHeartbeatMs;
  // Alert notifications: the evaluator (worker roles) enqueues the deliveries of a transition once
  // it commits, API processes those of a test notification; workers send them, and relay
  // deliveries a dead process recorded but never enqueued.
  const notifications = new NotificationDispatcher({ db: storage.db, queue: queues.notify, logger, config });

  let pool: CpuPool | undefined;
  let workers: RunningWorkers | undefined;
  let index: MysqlDocumentIndex | undefined;
  const metrics = createMetrics(role, {
    queueDepths: () => queueDepths(queues),
    indexSegments: () => segmentStats(storage.db),
    ...(role !== 'api' ? { poolStats: () => pool!.stats() } : {}),
    ...(role !== 'worker'
      ? { workersAlive: async () => (await listWorkers(redis, config.queuePrefix, heartbeatMs)).filter((w) => w.status === 'alive').length }
      : {}),
  }, { tenants: config.tenantMetrics });
  if (role !== 'api') {
    pool = createCpuPool({
      threads: config.poolSize, taskTimeoutMs: config.poolTaskTimeoutMs, threadHeapMb: config.poolThreadHeapMb, analysisCacheBytes: config.analysisCacheBytes, metrics,
      onThreadError: (error) => logger.error({ err: error }, 'a pool thread failed outside a task; it is replaced'),
    });
    index = new MysqlDocumentIndex(storage.db, pool, {
      onError: (error, mode) => logger.error({ err: error, mode }, 'index segment merge failed'),
      observer: indexMergeObserver(metrics),
    }, { ...DEFAULT_TUNING, postingsCacheBytes: config.indexPostingsCacheBytes });
    await index.resumeMerges();
    workers = startWorkers({ config, logger, metrics, pool, db: storage.db, redis, connection, index, notifications });
  }

  // Worker processes (and the all-in-one process) write captured audit entries to MySQL; API
  // processes only hand them off, so writing them never takes CPU from answering requests.
  const auditDrain = role === 'api' ? undefined : new AuditDrain(redis, openRedis(config.redisUrl, loggedOutages(logger, 'audit-writer')), storage.db,
    config.queuePrefix, auditObserver(metrics), logger, { batchSize: 500, claimIdleMs: config.audit.claimIdleMs, blockMs: 1000, lingerMs: 200 });
  auditDrain?.start();
  const retention = new RetentionJob(redis, storage.db, config.queuePrefix,
    { auditDays: config.audit.retentionDays, rollupDays: config.audit.rollupRetentionDays }, logger);
  retention.start();

  // Every worker process (and the all-in-one one) wakes each interval; one of them evaluates it (alert-evaluator.ts).
  const quotas = new QuotaReader(new KeyService(storage.db, redis, config.queuePrefix, clock, config.plans), redis, storage.db, config.queuePrefix, clock);
  const evaluator = role === 'api' ? undefined : new AlertEvaluator({
    db: storage.db, redis, prefix: config.queuePrefix, queues, clock, logger, metrics, dispatcher: notifications, intervalMs: config.alertIntervalMs,
    quota: (accountId, mode) => quotas.month(accountId, mode),
  });
  evaluator?.start();

  // Every process tells the others its load and requests once a second (GET /v1/metrics/live, /v1/health).
  const live = new LiveRecorder({ redis, prefix: config.queuePrefix, region: config.region, role, dbPool: () => storage.poolUsage(), logger });
  live.start();
  const health = new HealthMonitor({ version: VERSION, region: config.region, queuePrefix: config.queuePrefix, heartbeatMs, redis, storage, queues, live });
  const shutdown = new AbortController();
  // Each waiting request listens for shutdown and stops listening when answered; many at once is normal.
  setMaxListeners(0, shutdown.signal);
  let accepting = true;
  let http: HttpServer;
  let closeApi = async (): Promise<void> => undefined;

  if (role === 'worker') {
    http = await createProbeServer(config, { metrics, health, accepting: () => accepting });
  } else {
    const queueEvents = createQueueEvents(connection, config.queuePrefix);
    await Promise.all(WAITED_QUEUE_NAMES.map((name) => queueEvents[name].waitUntilReady()));
    const master = await ensureMasterKeyHash(storage.db, config.masterApiKey);
    if (master.generated) {
      logger.warn('generated a master API key; it was printed once on stderr');
      printMasterKey(master.generated);
    }
    const keys = new KeyService(storage.db, redis, config.queuePrefix, clock, config.plans);
    await keys.ensureDefaultAccount(config.defaultPlan);
    const keyCache = new KeyLookupCache(openRedis(config.redisUrl, loggedOutages(logger, 'key-invalidation')), invalidationChannel(config.queuePrefix), config.keyCacheTtlMs, logger);
    await keyCache.start();
    const near = config.cacheNearMaxBytes > 0
      ? new NearCache<CacheEntry>(redis, openRedis(config.redisUrl, loggedOutages(logger, 'cache-invalidation'), { autoResubscribe: false }),
        `${config.queuePrefix}:cache:`, config.cacheNearMaxBytes, logger)
      : undefined;
    await near?.start();
    const resultCache = new ResultCache(redis, config.queuePrefix, clock, metrics, {
      namespaceMaxBytes: config.cacheNamespaceMaxBytes, logger, ...(near ? { near } : {}),
    });
    const auditCapture = config.audit.capture
      // The entries of a turn leave with the turn's other commands, in the same write.
      ? new AuditCapture(redis, config.queuePrefix, auditObserver(metrics), logger,
        { maxBacklog: config.audit.backlogMax, maxBuffered: 100_000, handoffTimeoutMs: config.audit.handoffTimeoutMs }, (send) => writes.atWrite(send))
      : undefined;
    const usageRecorder = new UsageRecorder(storage.db, logger);
    const usageMeter = new UsageMeter(redis, storage.db, config.queuePrefix, clock, usageRecorder);
    health.start(HEALTH_PROBE_INTERVAL_MS);
    const alerts = new AlertService({
      db: storage.db, clock, dispatcher: notifications, endpoints: new Set(ROUTES.map((route) => route.path)), allowedCidrs: config.fetch.allowedCidrs,
      emailEnabled: emailConfigured(config), getAccount: (id) => keys.getAccount(id),
    });
    const authenticator = createAuthenticator({
      db: storage.db, cache: keyCache, clock, plans: config.plans, masterKeyHash: master.hash, masterRateLimitPerMinute: config.rateLimitPerMinute,
    });
    const sessions = new SessionService({
      db: storage.db, store: new SessionStore(redis, config.queuePrefix, config.sessionTtlMs, clock), authenticator, plans: config.plans,
    });
    // Invitations go out from the API process at once: whoever invites learns whether the mail was taken.
    const invitationMail = config.smtp ? new EmailSender(config.smtp, config.notify.timeoutMs) : undefined;
    const teams = new TeamService({
      db: storage.db, redis, prefix: config.queuePrefix, clock, mailer: invitationMail, invitationTtlMs: config.invitationTtlMs,
      getAccount: (id) => keys.getAccount(id),
    });
    const sso = new SsoService({
      db: storage.db, redis, prefix: config.queuePrefix, clock, publicUrl: config.publicUrl,
      getAccount: (id) => keys.getAccount(id), memberForSignIn: (accountId, email) => teams.memberForSignIn(accountId, email),
    });
    const mcp = new McpEndpoint();
    // Every route reaches storage, Redis and the queues through these, and only through these.
    const search = new SearchService({
      cache: resultCache, queue: queues.search, events: queueEvents.search, clock, logger,
      cacheTtlSeconds: config.search.cacheTtlSeconds, shutdownSignal: shutdown.signal,
    });
    const extract = new ExtractService(queues.extract, queueEvents.extract, shutdown.signal);
    const documents = new StoredDocuments(storage.db);
    const crawls = new CrawlService(storage.db, queues.crawl, config.crawlMaxUnfinished);
    const services: Services = {
      search,
      extract,
      validate: new ValidateService(queues.validate, queueEvents.validate, shutdown.signal),
      summarize: new SummarizeService(queues.summarize, queueEvents.summarize, shutdown.signal),
      mcp,
      index: new IndexService(queues.index, queueEvents.index, shutdown.signal),
      crawls,
      cache: new CacheService(resultCache, clock),
      keys,
      keyUsage: new KeyUsageService(keys, usageMeter),
      teams,
      sso,
      sessions,
      publicUrl: config.publicUrl,
      health,
      usage: new UsageReportService(storage.db, keys, usageMeter, clock),
      audit: new AuditService(storage.db, clock, config.audit.retentionDays),
      errors: new ErrorAnalyticsService(storage.db, clock),
      dashboards: new DashboardService(storage.db, keys, usageMeter, clock, { maxPerOwner: 100, maxPeriodDays: config.audit.rollupRetentionDays }),
      live: new LiveMetricsService({
        redis, prefix: config.queuePrefix, recorder: live, queues, getAccount: (id) => keys.getAccount(id),
        firingAlerts: (scope, now) => alerts.firing(scope, now),
      }),
      alerts,
      tavily: new TavilyService({ search, extract, documents }),
      exa: new ExaService({ search, extract, documents }),
      firecrawl: new FirecrawlService({ search, extract, documents, crawls, batches: new ExtractBatches(queues.extract) }),
      metrics,
      version: VERSION,
      accepting: () => accepting,
    };
    const app = createApp({
      config,
      logger,
      metrics,
      redis,
      auditCapture,
      live,
      authenticator,
      sessions,
      usageMeter,
      usageRecorder,
      clock,
      services,
    });
    const handler = app.callback();
    mcp.attach(handler);
    http = await listen(config, handler);
    closeApi = async () => {
      invitationMail?.close();
      await Promise.all([auditCapture?.close(), usageRecorder.close(), keyCache.close(), resultCache.close().then(() => near?.close())]);
      await Promise.all(WAITED_QUEUE_NAMES.map((name) => queueEvents[name].close()));
    };
  }
  logger.info({ url: http.url, role, version: VERSION, pool_threads: pool ? config.poolSize : 0 }, `listening on ${http.url}`);

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    accepting = false;
    const deadline = Date.now() + config.shutdownTimeoutMs;
    // Requests first, while our own workers still run: a request waiting on a job gets its answer.
    if (!(await http.drain(deadline - 2000))) {
      logger.warn({ in_flight: http.inFlight() }, 'drain time-out: answering waiting requests with SERVICE_UNAVAILABLE');
      shutdown.abort();
      await http.drain(deadline - 1000);
      http.closeAll();
    }
    health.stop();
    if (workers && !(await workers.close(deadline))) {
      logger.warn('jobs still active at the deadline: handed back to the queue');
    }
    await closeApi();
    retention.stop();
    await evaluator?.stop();
    await auditDrain?.stop();
    await live.close();
    await index?.close();
    await Promise.all(QUEUE_NAMES.map((name) => queues[name].close()));
    await pool?.close();
    redis.disconnect();
    await storage.close();
    logger.info('shut down cleanly');
  };

  return {
    url: http.url,
    close: () => (closing ??= close()),
  };
}
