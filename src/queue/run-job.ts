import { randomUUID } from 'node:crypto';
import type { Queue, QueueEvents } from 'bullmq';
import { ApiError } from '../http/errors.js';
import type { JobEnvelope } from './queues.js';

export interface RunJobOptions {
  /** Upper bound on the whole wait: queueing, retries and processing. */
  timeoutMs: number;
  /** The error the client gets when the bound is reached (SEARCH_TIMEOUT, ...). */
  onTimeout: () => ApiError;
  /** Aborted when the process shuts down and can no longer wait. */
  signal?: AbortSignal;
}

/**
 * Enqueues a job and waits for its result, never longer than `timeoutMs`. A job that has not
 * started when time runs out is removed, so no worker spends effort on an answer nobody reads;
 * a job already running is left to finish (its result is still stored). A failure that a
 * worker reported as an ApiError reaches the client as that error; anything else is an
 * internal error with an incident id that appears in the logs.
 */
export async function runJob<TInput, TResult>(
  queue: Queue,
  events: QueueEvents,
  envelope: JobEnvelope<TInput>,
  options: RunJobOptions,
): Promise<TResult> {
  options.signal?.throwIfAborted();
  // The request id is the job id: a retried enqueue of the same request cannot run twice.
  const job = await queue.add(queue.name, envelope, { jobId: envelope.request_id });
  const started = Date.now();
  const finished = job.waitUntilFinished(events, options.timeoutMs) as Promise<TResult>;
  finished.catch(() => undefined); // observed below; this stops an unhandled rejection after an abort

  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'after restart', status_page: '/v1/health' }, 'The service is shutting down; retry the request.'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);

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
    throw ApiError.fromJSON(reason) ?? new ApiError('INTERNAL_SERVER_ERROR', { incident_id: randomUUID() }, undefined, { cause: reason });
  } finally {
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
  }
}
