import { randomUUID } from 'node:crypto';
import { UnrecoverableError, Worker, type ConnectionOptions, type Job, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import pLimit from 'p-limit';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { ApiError } from '../errors/catalogue.js';
import { dependencyOutage } from '../errors/dependency-outage.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { CpuPool } from '../pool/pool.js';
import { JOB_EXPIRED, type JobEnvelope, type QueueName } from '../queue/queues.js';
import type { Database } from '../storage/schema.js';
import type { DocumentIndex } from '../index/types.js';
import { startHeartbeat } from '../monitor/worker-registry.js';
import { createExtractProcessor } from './extract.processor.js';
import { UnstoredPages } from '../extract/unstored-pages.js';
import { ExtractionRows } from '../extract/extraction-rows.js';
import { createIndexProcessor } from './index.processor.js';
import { createSearchProcessor } from './search.processor.js';
import { createValidateProcessor } from './validate.processor.js';
import { createSummarizeProcessor } from './summarize.processor.js';
import { createSearxngClient } from '../search/upstream/searxng.js';
import { createChatCompletionsSummarizer } from '../search/summarizer/chat-completions.js';
import { ChatEndpoints } from '../search/upstream/chat-completions-client.js';
import { createLlmJudge } from '../validate/llm-judge.js';
import { startCrawlWorker } from './crawl.processor.js';
import { HostGate } from '../crawl/host-gate.js';
import type { NotificationDispatcher } from '../notify/dispatcher.js';
import { startNotifyWorker } from './notify.processor.js';
import { isDeterministicFailure } from './deterministic-failures.js';
import { BrowserPool } from '../render/browser-pool.js';

export interface WorkerDeps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  pool: CpuPool;
  db: Kysely<Database>;
  redis: Redis;
  connection: ConnectionOptions;
  /** The search index: the index queue (POST and DELETE /v1/index/documents) and extraction write to it. */
  index: DocumentIndex;
  /** Hands notification deliveries to the notify queue; the notify worker runs its relay. */
  notifications: NotificationDispatcher;
}

export interface RunningWorkers {
  /**
   * Stops taking jobs and waits until the active ones finish or `deadline` (epoch ms) passes;
   * jobs still running then are abandoned: their locks lapse and another worker takes them.
   * Resolves true when every active job finished.
   */
  close(deadline: number): Promise<boolean>;
}

export type Processor = (job: Job) => Promise<unknown>;

/** Starts the BullMQ workers of every queue that has a processor, and the liveness heartbeat. */
export function startWorkers(deps: WorkerDeps): RunningWorkers {
  const fetchLimit = pLimit(deps.config.fetch.concurrency);
  const crawl = startCrawlWorker({
    config: deps.config, pool: deps.pool, db: deps.db, fetchLimit, metrics: deps.metrics, index: deps.index, logger: deps.logger,
    gate: new HostGate(deps.redis, deps.config.queuePrefix), connection: deps.connection, prefix: deps.config.queuePrefix,
  });
  // One engine client for search and validation: they share its circuit breaker.
  const searxng = createSearxngClient(deps.config, deps.metrics);
  // One breaker per chat-completions endpoint: the summarizer and the judge on one server share it.
  const chat = new ChatEndpoints(deps.config, deps.metrics);
  const summarizer = createChatCompletionsSummarizer(deps.config, deps.metrics, chat);
  const judge = createLlmJudge(deps.config, deps.metrics, chat);
  // Launched by the first page that is rendered: a worker that renders none never starts Chromium.
  const browsers = new BrowserPool({ config: deps.config.render, userAgent: deps.config.fetch.userAgent, metrics: deps.metrics, logger: deps.logger });
  const processors: Partial<Record<QueueName, Processor>> = {
    search: createSearchProcessor({
      config: deps.config, pool: deps.pool, index: deps.index, fetchLimit, metrics: deps.metrics, logger: deps.logger,
      searxng, summarizer,
    }) as Processor,
    validate: createValidateProcessor({ config: deps.config, pool: deps.pool, index: deps.index, fetchLimit, metrics: deps.metrics, searxng, judge }) as Processor,
    extract: createExtractProcessor({
      config: deps.config, pool: deps.pool, db: deps.db, fetchLimit, metrics: deps.metrics, index: deps.index,
      unstored: new UnstoredPages(deps.redis, deps.config.queuePrefix), rows: new ExtractionRows(deps.db), browsers,
    }) as Processor,
    index: createIndexProcessor({ index: deps.index, pool: deps.pool, htmlLimits: deps.config.html }) as Processor,
    crawl: crawl.processor as Processor,
    summarize: createSummarizeProcessor({
      config: deps.config, pool: deps.pool, fetchLimit, metrics: deps.metrics, logger: deps.logger, summarizer,
    }) as Processor,
  };

  const counter = { active: 0 };
  const workers = Object.entries(processors).map(([queue, processor]) => {
    const worker = new Worker(queue, wrapProcessor(queue, processor, deps, counter), {
      connection: deps.connection,
      prefix: deps.config.queuePrefix,
      concurrency: deps.config.workerConcurrency,
      ...recoveryOptions(deps.config),
    });
    worker.on('error', (error) => deps.logger.error({ err: error, queue }, 'worker connection error'));
    return worker;
  });
  // Notifications have their own retry policy, concurrency and lock (NOTIFY_*), hence their own worker set-up.
  const notify = startNotifyWorker({
    config: deps.config, logger: deps.logger, metrics: deps.metrics, db: deps.db, connection: deps.connection, dispatcher: deps.notifications, counter,
  });
  workers.push(notify.worker);

  const heartbeat = startHeartbeat(deps.redis, deps.config.queuePrefix, deps.config.workerHeartbeatMs, () => ({
    queues: [...Object.keys(processors), 'notify'],
    concurrency: deps.config.workerConcurrency,
    active_jobs: counter.active,
    pool: deps.pool.stats(),
    browser: browsers.stats(),
  }));

  return {
    async close(deadline) {
      // BullMQ's close() joins an earlier close in progress, so "graceful, then forced" must be
      // decided once: stop fetching, wait for the active jobs up to the deadline, then close.
      // Crawls run for minutes or hours: they are handed back to the queue rather than awaited.
      await crawl.stop();
      await Promise.all(workers.map((w) => w.pause(true)));
      while (counter.active > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const finished = counter.active === 0;
      // BullMQ's close can wait forever on a blocking connection that lost Redis (taskforcesh/bullmq#4656):
      // past the deadline (and a second of grace) the connections are dropped instead.
      const closed = Promise.all(workers.map((w) => w.close(!finished)));
      if (!(await settlesBefore(closed, Math.max(deadline, Date.now() + 1000)))) {
        deps.logger.warn('queue workers did not close in time (Redis unreachable?): dropping their connections');
        await settlesBefore(Promise.all(workers.map((w) => w.disconnect())), Date.now() + 1000);
      }
      await heartbeat.stop(true);
      await browsers.close();
      await crawl.close();
      await notify.close();
      return finished;
    },
  };
}

/**
 * How workers recover from a Redis outage and from the death of another worker.
 *
 * BullMQ's pause before retrying its own Redis calls after a connection error (writing a
 * finished job's result, fetching the next job) is 15 s by default: cut to half a second, so a
 * worker is back at work soon after Redis returns.
 *
 * The jobs of a worker that died (kill -9, a lost host) run again elsewhere once their locks
 * lapse, JOB_LOCK_MS after their last renewal, and the next stalled-job check (every
 * JOB_STALLED_CHECK_MS, by any live worker) hands them back to the queue: within the sum of the
 * two, 6.5 s by default, where BullMQ's defaults took about a minute, longer than any request
 * waits. A live worker renews its locks four times per lock period: CPU work runs in the pool,
 * so the event loop that renews them stays free, and a stall of up to three quarters of the
 * period is tolerated before a running job is taken for dead.
 */
function recoveryOptions(config: Config): Pick<WorkerOptions, 'runRetryDelay' | 'lockDuration' | 'lockRenewTime' | 'stalledInterval'> {
  return {
    runRetryDelay: 500,
    lockDuration: config.jobLockMs,
    lockRenewTime: Math.floor(config.jobLockMs / 4),
    stalledInterval: config.jobStalledCheckMs,
  };
}

/**
 * A client may retry these, but the job must not: its waiter has given up by the time a retry
 * would run.
 */
const DEADLINE_ERRORS: ReadonlySet<string> = new Set(['SEARCH_TIMEOUT', 'EXTRACT_TIMEOUT', 'VALIDATION_TIMEOUT']);

/**
 * Leaves a failed job in the form the waiting request understands: an ApiError is serialised
 * into the failure reason, and a non-retryable one becomes UnrecoverableError so BullMQ does
 * not retry it; MySQL or Redis out of reach is SERVICE_UNAVAILABLE, retried; anything
 * unexpected is logged with an incident id and retried with backoff, unless it is deterministic
 * (deterministic-failures.ts). A job taken up after its caller stopped waiting (`expires_at`:
 * stalled on a dead worker, or enqueued by an add that outlived its request) is dropped unrun
 * with JOB_EXPIRED.
 */
export function wrapProcessor(
  queue: string,
  processor: Processor,
  { logger, metrics }: Pick<WorkerDeps, 'logger' | 'metrics'>,
  counter: { active: number },
): Processor {
  return async (job) => {
    const { request_id: requestId, expires_at: expiresAt } = job.data as Partial<JobEnvelope<unknown>>;
    const log = logger.child({ request_id: requestId, job_id: job.id, queue });
    if (expiresAt !== undefined && Date.now() >= expiresAt) {
      metrics.jobs.inc({ queue, outcome: 'expired' });
      log.info({ late_ms: Date.now() - expiresAt }, 'job dropped unrun: its caller had stopped waiting');
      throw new UnrecoverableError(JOB_EXPIRED);
    }
    counter.active++;
    const stop = metrics.jobDuration.startTimer({ queue });
    try {
      const result = await processor(job);
      stop({ outcome: 'completed' });
      metrics.jobs.inc({ queue, outcome: 'completed' });
      return result;
    } catch (thrown) {
      const error = dependencyOutage(thrown) ?? thrown;
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const known = error instanceof ApiError;
      const outcome = (known ? error.retryable && !DEADLINE_ERRORS.has(error.code) : !isDeterministicFailure(error)) && !lastAttempt ? 'retried' : 'failed';
      stop({ outcome });
      metrics.jobs.inc({ queue, outcome });
      if (known) {
        log.info({ code: error.code, details: error.details, outcome, ...(error.cause !== undefined ? { err: error.cause } : {}) }, 'job failed');
        const reason = JSON.stringify(error.toJSON());
        throw outcome === 'retried' ? new Error(reason) : new UnrecoverableError(reason);
      }
      const incident = randomUUID();
      log.error({ err: error, incident_id: incident, outcome }, 'job crashed');
      const reason = JSON.stringify(new ApiError('INTERNAL_SERVER_ERROR', { incident_id: incident }).toJSON());
      throw outcome === 'retried' ? new Error(reason) : new UnrecoverableError(reason);
    } finally {
      counter.active--;
    }
  };
}

/** Whether `promise` settles before `deadline` (epoch ms); a rejection counts as settled. */
async function settlesBefore(promise: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now())); });
  try {
    return await Promise.race([promise.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
