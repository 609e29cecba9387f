/**
 * Hands recorded deliveries to the notify queue. Used by API processes (after an alert's
 * transition commits) and by workers (the relay).
 *
 * Outbox: insertDeliveries writes the rows in the alert's transaction; enqueue(ids) after the
 * commit adds one BullMQ job per row, its job id the delivery id, so adding it again (a retried
 * enqueue, the relay racing the API) is a no-op while the job exists; a job re-added after it
 * was removed finds its row delivered or dead and does nothing. A process that dies between the
 * commit and the enqueue leaves rows with enqueued_at NULL: every worker's relay adds those
 * (relay(), every 30 s), so no recorded delivery is lost.
 */
import type { Queue } from 'bullmq';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Logger } from '../log/logger.js';
import type { Database } from '../storage/schema.js';
import { markEnqueued, unqueuedDeliveries } from './deliveries.repository.js';

export const NOTIFY_QUEUE = 'notify';
/** The name of every job of the notify queue; its data is NotifyJobData. */
export const DELIVER_JOB = 'deliver';
/** Share of each backoff delay taken off at random (BullMQ's jitter): retry n waits base × 2^(n-1) × (0.5 … 1). */
export const RETRY_JITTER = 0.5;

export interface NotifyJobData {
  delivery_id: string;
}

export interface DispatcherDeps {
  db: Kysely<Database>;
  /** The 'notify' BullMQ queue. */
  queue: Queue;
  logger: Logger;
  config: Pick<Config, 'notify'>;
}

const RELAY_BATCH = 500;
const RELAY_MAX_BATCHES = 20;
const DEFAULT_RELAY_AGE_MS = 30_000;

export class NotificationDispatcher {
  constructor(private readonly deps: DispatcherDeps) {}

  /**
   * Adds one job per delivery (job id = delivery id, so adding twice is a no-op), then records
   * them as enqueued. Call after the transaction that inserted the rows has committed. When it
   * throws (Redis unreachable), the rows stay unqueued and the relay adds them later: callers
   * may log the failure and go on.
   */
  async enqueue(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const { maxAttempts, retryBaseMs } = this.deps.config.notify;
    await this.deps.queue.addBulk(ids.map((id) => ({
      name: DELIVER_JOB,
      data: { delivery_id: id } satisfies NotifyJobData,
      opts: {
        jobId: id,
        attempts: maxAttempts,
        backoff: { type: 'exponential', delay: retryBaseMs, jitter: RETRY_JITTER },
        // The row is the record: the jobs need not outlive it for long.
        removeOnComplete: { age: 24 * 3600, count: 10_000 },
        removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
      },
    })));
    await markEnqueued(this.deps.db, ids);
  }

  /**
   * Outbox relay: enqueues deliveries recorded more than `olderThanMs` ago and never handed to
   * the queue (their process died between commit and enqueue, or Redis was away). Returns how
   * many it enqueued.
   */
  async relay(olderThanMs = DEFAULT_RELAY_AGE_MS): Promise<number> {
    let total = 0;
    // Bounded: a backlog larger than this waits for the next run rather than holding this one.
    for (let batch = 0; batch < RELAY_MAX_BATCHES; batch++) {
      const ids = await unqueuedDeliveries(this.deps.db, olderThanMs, RELAY_BATCH);
      if (ids.length === 0) break;
      await this.enqueue(ids);
      total += ids.length;
      if (ids.length < RELAY_BATCH) break;
    }
    if (total > 0) this.deps.logger.warn({ deliveries: total }, 'notification relay: enqueued deliveries that had not reached the queue');
    return total;
  }
}
