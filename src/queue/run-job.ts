import { randomUUID } from 'node:crypto';
import type { Queue, QueueEvents } from 'bullmq';
import { ApiError } from '../errors/catalogue.js';
import type { JobEnvelope } from './queues.js';

export interface RunJobOptions {
  /** Upper bound on the whole wait: queueing, retries and processing. */
  timeoutMs: number;
  /** The error the client gets when the bound is reached (SEARCH_TIMEOUT, ...). */
  onTimeout: () => ApiError;
  /** Aborted when the process shuts down and can no longer wait. */
  signal?: AbortSignal;
  /**
   * Requests with the same share key run as one job and all get its result (single flight).
   * The job is removed once finished, so a later request runs afresh instead of reading an
   * old answer. Without it, the job id is the request id.
   */
  shareKey?: string;
}

/** Times a shared job is joined again after it finished and vanished before this waiter listened. */
const SHARED_REJOINS = 3;

/**
 * Enqueues a job (or joins the running job of its share key) and waits for its result, never
 * longer than `timeoutMs`. A job that has not started when time runs out is removed, so no
 * worker spends effort on an answer nobody reads; a job already running is left to finish (its
 * result is still stored). A failure that a worker reported as an ApiError reaches the client
 * as that error; anything else is an internal error with an incident id that appears in the logs.
 */
export async function runJob<TInput, TResult>(
  queue: Queue,
  events: QueueEvents,
  envelope: JobEnvelope<TInput>,
  options: RunJobOptions,
): Promise<TResult> {
  options.signal?.throwIfAborted();
  const started = Date.now();
  const jobOptions = options.shareKey === undefined
    // The request id is the job id: a retried enqueue of the same request cannot run twice.
    ? { jobId: envelope.request_id }
    : { jobId: options.shareKey, removeOnComplete: true, removeOnFail: true };

  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'after restart', status_page: '/v1/health' }, 'The service is shutting down; retry the request.'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);

  try {
    for (let rejoins = 0; ; rejoins++) {
      // Adding a job whose id exists (a shared job still running) adds nothing: this waiter joins it.
      const job = await queue.add(queue.name, envelope, jobOptions);
      const remaining = Math.max(1, options.timeoutMs - (Date.now() - started));
      const finished = job.waitUntilFinished(events, remaining) as Promise<TResult>;
      finished.catch(() => undefined); // observed below; this stops an unhandled rejection after an abort
      try {
        return await Promise.race([finished, aborted]);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (Date.now() - started >= options.timeoutMs - 5) {
          const state = await job.getState().catch(() => 'unknown');
          if (state === 'waiting' || state === 'delayed' || state === 'prioritized') await job.remove().catch(() => undefined);
          throw options.onTimeout();
        }
        const reason = error instanceof Error ? error.message : String(error);
        const known = ApiError.fromJSON(reason);
        if (known) throw known;
        // A shared job can finish and be removed between joining it and listening for its end:
        // BullMQ then reports it missing, with no reason. Joining again runs it afresh.
        if (options.shareKey !== undefined && rejoins < SHARED_REJOINS && (await job.getState().catch(() => 'unknown')) === 'unknown') continue;
        throw new ApiError('INTERNAL_SERVER_ERROR', { incident_id: randomUUID() }, undefined, { cause: reason });
      }
    }
  } finally {
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
  }
}
