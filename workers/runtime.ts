import { randomUUID } from 'node:crypto';
import { UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import pLimit from 'p-limit';
import type { Kysely } from 'kysely';
import type { Config } from '../src/config.js';
import { ApiError } from '../src/http/errors.js';
import type { Logger } from '../src/log/logger.js';
import type { Metrics } from '../src/metrics/metrics.js';
import type { CpuPool } from '../src/pool/pool.js';
import type { QueueName } from '../src/queue/queues.js';
import type { Database } from '../src/storage/schema.js';
import { startHeartbeat } from '../src/monitor/worker-registry.js';
import { createExtractProcessor } from './extract.worker.js';

export interface WorkerDeps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  pool: CpuPool;
  db: Kysely<Database>;
  redis: Redis;
  connection: ConnectionOptions;
}

export interface RunningWorkers {
  /** Stops taking jobs and waits for the active ones; `force` abandons them to be picked up again. */
  close(force?: boolean): Promise<void>;
}

type Processor = (job: Job) => Promise<unknown>;

/**
 * Starts the BullMQ workers of every queue that has a processor. Errors leave a job in the
 * form the waiting request understands: an ApiError is serialised into the failure reason; a
 * non-retryable one becomes UnrecoverableError so BullMQ does not retry it; anything
 * unexpected is logged with an incident id and retried with backoff.
 */
export function startWorkers(deps: WorkerDeps): RunningWorkers {
  const fetchLimit = pLimit(deps.config.fetch.concurrency);
  const processors: Partial<Record<QueueName, Processor>> = {
    extract: createExtractProcessor({ config: deps.config, pool: deps.pool, db: deps.db, fetchLimit, metrics: deps.metrics }) as Processor,
  };

  const workers = Object.entries(processors).map(([queue, processor]) => {
    const worker = new Worker(queue, wrap(queue, processor, deps), {
      connection: deps.connection,
      prefix: deps.config.queuePrefix,
      concurrency: deps.config.workerConcurrency,
    });
    worker.on('error', (error) => deps.logger.error({ err: error, queue }, 'worker connection error'));
    return worker;
  });

  let active = 0;
  const heartbeat = startHeartbeat(deps.redis, deps.config.queuePrefix, deps.config.workerHeartbeatMs, () => ({
    queues: Object.keys(processors),
    concurrency: deps.config.workerConcurrency,
    active_jobs: active,
    pool: deps.pool.stats(),
  }));

  function wrap(queue: string, processor: Processor, { logger, metrics }: WorkerDeps): Processor {
    return async (job) => {
      active++;
      const stop = metrics.jobDuration.startTimer({ queue });
      const log = logger.child({ request_id: (job.data as { request_id?: string }).request_id, job_id: job.id, queue });
      try {
        const result = await processor(job);
        stop({ outcome: 'completed' });
        metrics.jobs.inc({ queue, outcome: 'completed' });
        return result;
      } catch (error) {
        const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        if (error instanceof ApiError) {
          const final = !error.retryable || lastAttempt;
          stop({ outcome: final ? 'failed' : 'retried' });
          metrics.jobs.inc({ queue, outcome: final ? 'failed' : 'retried' });
          log.info({ code: error.code, details: error.details }, 'job failed');
          const reason = JSON.stringify(error.toJSON());
          throw error.retryable ? new Error(reason) : new UnrecoverableError(reason);
        }
        const incident = randomUUID();
        stop({ outcome: lastAttempt ? 'failed' : 'retried' });
        metrics.jobs.inc({ queue, outcome: lastAttempt ? 'failed' : 'retried' });
        log.error({ err: error, incident_id: incident }, 'job crashed');
        throw new Error(JSON.stringify(new ApiError('INTERNAL_SERVER_ERROR', { incident_id: incident }).toJSON()));
      } finally {
        active--;
      }
    };
  }

  return {
    async close(force = false) {
      await Promise.all(workers.map((w) => w.close(force)));
      await heartbeat.stop(true);
    },
  };
}
