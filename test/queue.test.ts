import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Worker, type Job } from 'bullmq';
import { ApiError } from '../src/errors/catalogue.js';
import { createLogger } from '../src/log/logger.js';
import { createMetrics } from '../src/metrics/metrics.js';
import { redisOptions } from '../src/redis/connection.js';
import { createQueueEvents, createQueues, type QueueEventsByName, type Queues } from '../src/queue/queues.js';
import { resultWithin, runJob } from '../src/queue/run-job.js';
import { wrapProcessor } from '../src/jobs/worker-runtime.js';
import { runPrefix } from './helpers/run-scope.js';
import { sql } from 'kysely';
import { openStorage } from '../src/storage/connection.js';
import { TaskOutOfMemoryError, TaskTimeoutError } from '../src/pool/pool.js';
import { eventually } from './helpers/wait.js';

const connection = redisOptions(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

describe('queue: enqueue and wait', () => {
  let prefix: string;
  let queues: Queues;
  let events: QueueEventsByName;
  let worker: Worker | undefined;
  const metrics = createMetrics('worker');

  beforeEach(async () => {
    prefix = runPrefix();
    queues = createQueues(connection, prefix);
    events = createQueueEvents(connection, prefix);
    await events.search.waitUntilReady();
  });
  afterEach(async () => {
    await worker?.close(true);
    worker = undefined;
    await Promise.all(Object.values(events).map((e) => e.close()));
    await Promise.all(Object.values(queues).map((q) => q.obliterate({ force: true }).then(() => q.close())));
  });

  function startWorker(processor: (job: Job) => Promise<unknown>): void {
    worker = new Worker('search', wrapProcessor('search', processor, { logger: createLogger('silent', 'worker'), metrics }, { active: 0 }), {
      connection,
      prefix,
      concurrency: 2,
    });
  }

  const envelope = () => ({ request_id: `req_${randomUUID()}`, principal_id: null, mode: 'live' as const, input: { q: 'x' } });
  const timeout = () => new ApiError('SEARCH_TIMEOUT', { timeout_seconds: 0.3 });

  it('returns the result the worker produced', async () => {
    startWorker(async (job) => ({ echoed: (job.data.input as { q: string }).q }));
    const result = await runJob(queues.search, events.search, envelope(), { deadline: Date.now() + 5000, onTimeout: timeout });
    expect(result).to.deep.equal({ echoed: 'x' });
  });

  it('gives up at the time-out with the given error and removes the job nobody started', async () => {
    const data = envelope();
    const started = Date.now();
    let caught: unknown;
    try {
      await runJob(queues.search, events.search, data, { deadline: Date.now() + 300, onTimeout: timeout });
    } catch (error) {
      caught = error;
    }
    expect(Date.now() - started).to.be.lessThan(1500);
    expect(caught).to.be.instanceOf(ApiError);
    expect((caught as ApiError).code).to.equal('SEARCH_TIMEOUT');
    // Removed after the answer, which does not wait for it.
    await eventually(async () => ((await queues.search.getJob(data.request_id)) === undefined ? true : undefined), 2000);
  });

  it('hands a permanent failure to the caller at once, without retries', async () => {
    let attempts = 0;
    startWorker(async () => {
      attempts++;
      throw new ApiError('URL_INVALID', { url: 'x', expected_format: 'http(s)' });
    });
    const data = envelope();
    let caught: unknown;
    try {
      await runJob(queues.search, events.search, data, { deadline: Date.now() + 5000, onTimeout: timeout });
    } catch (error) {
      caught = error;
    }
    expect((caught as ApiError).code).to.equal('URL_INVALID');
    expect((caught as ApiError).details).to.deep.equal({ url: 'x', expected_format: 'http(s)' });
    expect(attempts).to.equal(1);
  });

  it('retries a transient failure with backoff and succeeds', async () => {
    let attempts = 0;
    startWorker(async () => {
      attempts++;
      if (attempts < 3) throw new ApiError('UPSTREAM_ERROR');
      return { ok: true };
    });
    const result = await runJob(queues.search, events.search, envelope(), { deadline: Date.now() + 10_000, onTimeout: timeout });
    expect(result).to.deep.equal({ ok: true });
    expect(attempts).to.equal(3);
  });

  it('reports an unexpected crash as INTERNAL_SERVER_ERROR after the retries', async () => {
    let attempts = 0;
    startWorker(async () => {
      attempts++;
      throw new TypeError('bug in a processor');
    });
    let caught: unknown;
    try {
      await runJob(queues.search, events.search, envelope(), { deadline: Date.now() + 10_000, onTimeout: timeout });
    } catch (error) {
      caught = error;
    }
    expect((caught as ApiError).code).to.equal('INTERNAL_SERVER_ERROR');
    expect((caught as ApiError).details?.incident_id).to.be.a('string');
    expect(attempts).to.equal(3);
  });

  it('does not retry an unexpected failure the next attempt would meet again: a pool limit, a MySQL data exception', async () => {
    // Issue 20: a page that ran a pool thread out of memory was fetched and cleaned three times.
    const storage = openStorage(process.env.DATABASE_URL!, 1);
    let dataException: unknown;
    try {
      await sql`CREATE TEMPORARY TABLE dated (at DATETIME(3))`.execute(storage.db);
      await sql`INSERT INTO dated VALUES (${'10000-01-01 00:00:00'})`.execute(storage.db);
    } catch (error) {
      dataException = error;
    } finally {
      await storage.close();
    }
    expect(dataException).to.have.property('sqlState', '22007');
    for (const failure of [new TaskTimeoutError('rankSources', 10), new TaskOutOfMemoryError('cleanHtml', 64), dataException]) {
      let attempts = 0;
      startWorker(async () => {
        attempts++;
        throw failure;
      });
      const caught = await runJob(queues.search, events.search, envelope(), { deadline: Date.now() + 10_000, onTimeout: timeout }).catch((error: unknown) => error);
      expect((caught as ApiError).code).to.equal('INTERNAL_SERVER_ERROR');
      expect(attempts, String(failure)).to.equal(1);
      await worker!.close(true);
    }
  });

  it('stops waiting with SERVICE_UNAVAILABLE when the process shuts down', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    let caught: unknown;
    try {
      await runJob(queues.search, events.search, envelope(), { deadline: Date.now() + 5000, onTimeout: timeout, signal: controller.signal });
    } catch (error) {
      caught = error;
    }
    expect((caught as ApiError).code).to.equal('SERVICE_UNAVAILABLE');
  });

  it('drops a job picked up after its caller stopped waiting, without running it', async () => {
    let ran = 0;
    startWorker(async () => {
      ran++;
      return { done: true };
    });
    // As a job stalled on a dead worker, or added by an enqueue that outlived its request, is found.
    const late = { ...envelope(), expires_at: Date.now() - 1 };
    const job = await queues.search.add('search', late, { jobId: late.request_id });
    await eventually(async () => ((await job.getState()) === 'failed' ? true : undefined), 5000);
    expect(ran).to.equal(0);
    const onTime = { ...envelope(), expires_at: Date.now() + 5000 };
    const awaited = await queues.search.add('search', onTime, { jobId: onTime.request_id });
    await eventually(async () => ((await awaited.getState()) === 'completed' ? true : undefined), 5000);
    expect(ran).to.equal(1);
  });

  it('keeps a finished job long enough for a late reader', async () => {
    startWorker(async () => ({ done: true }));
    const data = envelope();
    await runJob(queues.search, events.search, data, { deadline: Date.now() + 5000, onTimeout: timeout });
    const job = await queues.search.getJob(data.request_id);
    expect(job?.returnvalue).to.deep.equal({ done: true });
  });

  describe('resultWithin: wait a while, else let the client poll', () => {
    const add = async () => queues.search.add('search', envelope(), { jobId: `job_${randomUUID()}` });

    it('returns the result of a job that finishes in time', async () => {
      startWorker(async () => ({ done: true }));
      expect(await resultWithin(await add(), events.search, 5000)).to.deep.equal({ done: true });
    });

    it('gives up with undefined when time runs out, and leaves the job queued', async () => {
      const job = await add();
      const started = Date.now();
      expect(await resultWithin(job, events.search, 300)).to.equal(undefined);
      expect(Date.now() - started).to.be.lessThan(1500);
      expect(await job.getState()).to.equal('waiting');
    });

    it('gives up with undefined when the process shuts down', async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = Date.now();
      expect(await resultWithin(await add(), events.search, 5000, controller.signal)).to.equal(undefined);
      expect(Date.now() - started).to.be.lessThan(1500);
    });

    it('hands a failed job to the caller as its error', async () => {
      startWorker(async () => {
        throw new ApiError('URL_INVALID', { url: 'x', expected_format: 'http(s)' });
      });
      let caught: unknown;
      try {
        await resultWithin(await add(), events.search, 5000);
      } catch (error) {
        caught = error;
      }
      expect((caught as ApiError).code).to.equal('URL_INVALID');
    });
  });
});
