import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Job, Queue, QueueEvents } from 'bullmq';
import { ApiError } from '../errors/catalogue.js';
import { JOB_EXPIRED, type JobEnvelope } from './queues.js';

export interface RunJobOptions {
  /**
   * When the caller stops waiting (epoch ms), counted from the request's arrival: enqueueing,
   * queueing, retries and processing all fall within it. The job carries it (`expires_at`), so
   * a worker that takes it up later drops it instead of working for nobody.
   */
  deadline: number;
  /** The error the client gets when the deadline passes (SEARCH_TIMEOUT, ...) while Redis answers. */
  onTimeout: () => ApiError;
  /** Aborted when the process shuts down and can no longer wait. */
  signal?: AbortSignal;
  /**
   * Requests with the same share key run as one job and all get its result (single flight).
   * The job is removed once finished, so a later request runs afresh instead of reading an
   * old answer. Without it, the job id is the request id.
   */
  shareKey?: string;
  /** The job's name, when its queue runs more than one kind of job (the extract queue's `map`); default the queue's name. */
  name?: string;
}

/**
 * Times a job is added again after it vanished from Redis while waited on: a shared one that
 * finished and was removed before this waiter listened, any job that Redis lost with its data.
 */
const REJOINS = 3;

/** BullMQ's own wait outlives ours by this much, only so that it removes its listeners itself. */
const LISTENER_CLEANUP_MS = 1000;

/**
 * Enqueues a job (or joins the running job of its share key) and waits for its result, never
 * past `deadline`: neither the enqueue nor the wait can hold the request longer, even while Redis
 * is away (BullMQ's connections then queue their commands until it returns). A job that has not
 * started when time runs out is removed, so no worker spends effort on an answer nobody reads; a
 * job already running is left to finish (its result is still stored). At the deadline the client
 * gets `onTimeout()`, or 503 SERVICE_UNAVAILABLE when Redis is unreachable (the outage, not the
 * work, is why). A failure that a worker reported as an ApiError reaches the client as that
 * error; anything else is an internal error with an incident id that appears in the logs.
 */
export async function runJob<TInput, TResult>(
  queue: Queue,
  events: QueueEvents,
  envelope: JobEnvelope<TInput>,
  options: RunJobOptions,
): Promise<TResult> {
  options.signal?.throwIfAborted();
  const data: JobEnvelope<TInput> = { ...envelope, expires_at: options.deadline };
  const jobOptions = options.shareKey === undefined
    // The request id is the job id: a retried enqueue of the same request cannot run twice.
    ? { jobId: envelope.request_id }
    : { jobId: options.shareKey, removeOnComplete: true, removeOnFail: true };

  for (let rejoins = 0; ; rejoins++) {
    // Adding a job whose id exists (a shared job still running) adds nothing: this waiter joins it.
    const adding = queue.add(options.name ?? queue.name, data, jobOptions);
    const added = await settledBy(adding, options.deadline, options.signal);
    if (added.kind === 'shutdown') throw shuttingDown();
    if (added.kind === 'time') {
      // The add may still go through once Redis is back: the job is then removed, or dropped
      // by the worker that takes it (expires_at).
      adding.then((late) => forgetUnstarted(late, options), () => undefined);
      throw await timedOut(queue, events, options);
    }
    const job = added.value;
    const end = await waitForEnd<TResult>(job, events, options.deadline, options.signal);
    if (end.kind === 'result') return end.result;
    if (end.kind === 'shutdown') throw shuttingDown();
    if (end.kind === 'time') {
      void forgetUnstarted(job, options);
      throw await timedOut(queue, events, options);
    }
    const known = ApiError.fromJSON(end.reason);
    if (known) throw known;
    if (rejoins < REJOINS && (await mayRejoin(job, end.reason, options))) continue;
    // Dropped by a worker whose clock ran ahead of ours: the caller's time is up all the same.
    if (end.reason === JOB_EXPIRED) throw options.onTimeout();
    throw internalFailure(end.reason);
  }
}

/**
 * Waits for a job already queued, at most `waitMs`: its result, or undefined when the wait ends
 * first (time is up, or the process shuts down). The job goes on either way, and the client
 * polls it. A failed job is the caller's error, as with runJob.
 */
export async function resultWithin<TResult>(job: Job, events: QueueEvents, waitMs: number, signal?: AbortSignal): Promise<TResult | undefined> {
  const end = await waitForEnd<TResult>(job, events, Date.now() + waitMs, signal);
  if (end.kind === 'result') return end.result;
  if (end.kind === 'failed') throw jobFailure(end.reason);
  return undefined;
}

/** How one wait on a job ended: its result, the waiter giving up (time, shutdown), or the job's failure. */
type WaitEnd<T> = { kind: 'result'; result: T } | { kind: 'time' } | { kind: 'shutdown' } | { kind: 'failed'; reason: string };

/**
 * The job's end as QueueEvents reports it, raced against our own timer (BullMQ starts its
 * time-out only once its connection is ready, which during an outage is when Redis returns).
 * A completion published while QueueEvents was reconnecting can go unseen, so each time its
 * connection is back the job is asked again.
 */
function waitForEnd<T>(job: Job, events: QueueEvents, deadline: number, signal: AbortSignal | undefined): Promise<WaitEnd<T>> {
  return new Promise((resolve) => {
    let settled = false;
    const back = reconnections(events);
    const end = (outcome: WaitEnd<T>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      back.removeListener('ready', listen);
      resolve(outcome);
    };
    const listen = () => {
      job.waitUntilFinished(events, Math.max(1, deadline - Date.now()) + LISTENER_CLEANUP_MS).then(
        (result: T) => end({ kind: 'result', result }),
        // BullMQ rejects alike when the job failed and when its own wait timed out; the latter
        // can only come after our deadline, which has answered by then.
        (error: unknown) => end({ kind: 'failed', reason: error instanceof Error ? error.message : String(error) }),
      );
    };
    const onAbort = () => end({ kind: 'shutdown' });
    const timer = setTimeout(() => end({ kind: 'time' }), Math.max(0, deadline - Date.now()));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    back.on('ready', listen);
    listen();
  });
}

const reconnectionsByEvents = new WeakMap<QueueEvents, EventEmitter>();

/**
 * 'ready' each time the connection of `events` is back after an outage: one listener on the
 * connection, whatever the number of waiting requests (BullMQ counts the connection's own).
 */
function reconnections(events: QueueEvents): EventEmitter {
  let emitter = reconnectionsByEvents.get(events);
  if (!emitter) {
    const created = new EventEmitter();
    // Every waiting request listens; hundreds at once are normal, not a leak.
    created.setMaxListeners(0);
    events.client.then((client) => client.on('ready', () => created.emit('ready')), () => undefined);
    reconnectionsByEvents.set(events, created);
    emitter = created;
  }
  return emitter;
}

/** What `promise` gives, unless the deadline passes or the process shuts down first. */
async function settledBy<T>(promise: Promise<T>, deadline: number, signal: AbortSignal | undefined): Promise<{ kind: 'value'; value: T } | { kind: 'time' } | { kind: 'shutdown' }> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      promise.then((value) => ({ kind: 'value' as const, value })),
      new Promise<{ kind: 'time' }>((resolve) => { timer = setTimeout(() => resolve({ kind: 'time' }), Math.max(0, deadline - Date.now())); }),
      new Promise<{ kind: 'shutdown' }>((resolve) => {
        onAbort = () => resolve({ kind: 'shutdown' });
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * A job nobody waits for any more is removed if no worker has taken it. A shared job is left
 * alone: another request may have joined it, and the worker drops it if that one's time is up too.
 */
async function forgetUnstarted(job: Job, options: RunJobOptions): Promise<void> {
  if (options.shareKey !== undefined) return;
  const state = await job.getState().catch(() => 'unknown');
  if (state === 'waiting' || state === 'delayed' || state === 'prioritized') await job.remove().catch(() => undefined);
}

/**
 * Whether the job's end leaves this waiter free to run it afresh: it is missing from Redis
 * (BullMQ reports it failed, with no reason), or it was shared and a worker dropped it because
 * the request that created it had given up (this one still has time). A job goes missing when
 * Redis loses it with its data (restarted without persistence, flushed, failed over to a replica
 * that had not received it), and a shared one when it finished and was removed between joining
 * and listening. A job that is not shared has the request's own id and its end stays in Redis
 * long after (DEFAULT_JOB_OPTIONS): missing while its request waits, it was lost, not finished.
 */
async function mayRejoin(job: Job, reason: string, options: RunJobOptions): Promise<boolean> {
  if (reason === JOB_EXPIRED) return options.shareKey !== undefined;
  const state = await settledBy(job.getState().catch(() => 'unknown'), options.deadline, undefined);
  return state.kind === 'value' && state.value === 'unknown';
}

/** The caller's time is up: its own time-out error, or 503 when Redis is unreachable. */
async function timedOut(queue: Queue, events: QueueEvents, options: RunJobOptions): Promise<ApiError> {
  const statuses = await settledBy(Promise.all([queue.client, events.client]).then((clients) => clients.map((c) => c.status)), Date.now() + 100, undefined);
  if (statuses.kind === 'value' && statuses.value.every((status) => status === 'ready')) return options.onTimeout();
  return new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'when Redis is reachable again', status_page: '/v1/health' },
    'The job queue is unreachable (Redis does not answer); retry the request.');
}

function shuttingDown(): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'after restart', status_page: '/v1/health' }, 'The service is shutting down; retry the request.');
}

/** A failed job as the client sees it: the ApiError a worker reported, or an internal error. */
function jobFailure(reason: string): ApiError {
  return ApiError.fromJSON(reason) ?? internalFailure(reason);
}

/** A failure no worker explained: the client gets an incident id, the log the reason under it. */
function internalFailure(reason: string): ApiError {
  return new ApiError('INTERNAL_SERVER_ERROR', { incident_id: randomUUID() }, undefined, { cause: reason });
}
