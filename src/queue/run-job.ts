import { randomUUID } from 'node:crypto';
import type { Job, Queue, QueueEvents } from 'bullmq';
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

  for (let rejoins = 0; ; rejoins++) {
    // Adding a job whose id exists (a shared job still running) adds nothing: this waiter joins it.
    const job = await queue.add(queue.name, envelope, jobOptions);
    const end = await waitForEnd<TResult>(job, events, Math.max(1, options.timeoutMs - (Date.now() - started)), options.signal);
    if (end.kind === 'result') return end.result;
    if (end.kind === 'shutdown') {
      throw new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'after restart', status_page: '/v1/health' }, 'The service is shutting down; retry the request.');
    }
    if (end.kind === 'time') {
      const state = await job.getState().catch(() => 'unknown');
      if (state === 'waiting' || state === 'delayed' || state === 'prioritized') await job.remove().catch(() => undefined);
      throw options.onTimeout();
    }
    const known = ApiError.fromJSON(end.reason);
    if (known) throw known;
    // A shared job can finish and be removed between joining it and listening for its end:
    // BullMQ then reports it missing, with no reason. Joining again runs it afresh.
    if (options.shareKey !== undefined && rejoins < SHARED_REJOINS && (await job.getState().catch(() => 'unknown')) === 'unknown') continue;
    throw internalFailure(end.reason);
  }
}

/**
 * Waits for a job already queued, at most `waitMs`: its result, or undefined when the wait ends
 * first (time is up, or the process shuts down). The job goes on either way, and the client
 * polls it. A failed job is the caller's error, as with runJob.
 */
export async function resultWithin<TResult>(job: Job, events: QueueEvents, waitMs: number, signal?: AbortSignal): Promise<TResult | undefined> {
  const end = await waitForEnd<TResult>(job, events, waitMs, signal);
  if (end.kind === 'result') return end.result;
  if (end.kind === 'failed') throw jobFailure(end.reason);
  return undefined;
}

/** How one wait on a job ended: its result, the waiter giving up (time, shutdown), or the job's failure. */
type WaitEnd<T> = { kind: 'result'; result: T } | { kind: 'time' } | { kind: 'shutdown' } | { kind: 'failed'; reason: string };

async function waitForEnd<T>(job: Job, events: QueueEvents, waitMs: number, signal: AbortSignal | undefined): Promise<WaitEnd<T>> {
  const started = Date.now();
  const finished = job.waitUntilFinished(events, waitMs) as Promise<T>;
  finished.catch(() => undefined); // observed below; this stops an unhandled rejection after a shutdown
  let onAbort: (() => void) | undefined;
  const shutdown = new Promise<WaitEnd<T>>((resolve) => {
    onAbort = () => resolve({ kind: 'shutdown' });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([finished.then((result): WaitEnd<T> => ({ kind: 'result', result })), shutdown]);
  } catch (error) {
    // BullMQ rejects alike when the job failed and when the wait timed out: the clock tells which.
    if (Date.now() - started >= waitMs - 5) return { kind: 'time' };
    return { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/** A failed job as the client sees it: the ApiError a worker reported, or an internal error. */
function jobFailure(reason: string): ApiError {
  return ApiError.fromJSON(reason) ?? internalFailure(reason);
}

/** A failure no worker explained: the client gets an incident id, the log the reason under it. */
function internalFailure(reason: string): ApiError {
  return new ApiError('INTERNAL_SERVER_ERROR', { incident_id: randomUUID() }, undefined, { cause: reason });
}
