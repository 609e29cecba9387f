import { Queue, QueueEvents, type ConnectionOptions, type JobsOptions } from 'bullmq';

/**
 * Every queue: each shows in queue-depth metrics, health and live metrics. `notify` carries
 * alert notifications (src/notify); nobody waits on its jobs, so it has no QueueEvents.
 */
export const QUEUE_NAMES = ['search', 'extract', 'validate', 'index', 'crawl', 'notify', 'summarize'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];
/** The queues API processes listen to for job completion (QueueEvents: one Redis connection each). */
export const WAITED_QUEUE_NAMES = ['search', 'extract', 'validate', 'index', 'crawl', 'summarize'] as const satisfies readonly QueueName[];
export type WaitedQueueName = (typeof WAITED_QUEUE_NAMES)[number];

/** What every job carries: the request that caused it, so logs and results join up. */
export interface JobEnvelope<T> {
  request_id: string;
  principal_id: string | null;
  /** live or test: sandbox jobs read and write sandbox data only. */
  mode: 'live' | 'test';
  input: T;
  /**
   * When the request that waits for the job stops waiting (epoch ms); absent for jobs nobody
   * waits on. A worker that takes the job up later drops it with JOB_EXPIRED (worker-runtime.ts).
   */
  expires_at?: number;
}

/** The failure of a job dropped unrun because its caller had stopped waiting (expires_at passed). */
export const JOB_EXPIRED = 'job expired: its caller had stopped waiting before a worker took it';

/** Who a job is done for: the request that asked for it, and the id and mode of its principal. */
export interface JobOrigin {
  requestId: string;
  principal: { id: string; mode: 'live' | 'test' };
}

export function jobEnvelope<T>(origin: JobOrigin, input: T): JobEnvelope<T> {
  return { request_id: origin.requestId, principal_id: origin.principal.id, mode: origin.principal.mode, input };
}

/**
 * Transient failures (a 5xx upstream, a lost connection) retry with exponential backoff;
 * permanent ones are marked unrecoverable by the worker and never retried. Finished jobs stay
 * long enough for the waiting request to read them: removing them at once races the waiter.
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 24 * 3600, count: 10_000 },
};

export type Queues = Record<QueueName, Queue>;
export type QueueEventsByName = Record<WaitedQueueName, QueueEvents>;

export function createQueues(connection: ConnectionOptions, prefix: string): Queues {
  const make = (name: QueueName) => {
    const queue = new Queue(name, { connection, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS });
    // Job.waitUntilFinished listens on the queue too, once per waiting request.
    queue.setMaxListeners(0);
    return queue;
  };
  return {
    search: make('search'), extract: make('extract'), validate: make('validate'), index: make('index'), crawl: make('crawl'), notify: make('notify'),
    summarize: make('summarize'),
  };
}

export function createQueueEvents(connection: ConnectionOptions, prefix: string): QueueEventsByName {
  const make = (name: WaitedQueueName) => {
    const events = new QueueEvents(name, { connection, prefix });
    // Every waiting request listens until its job finishes; hundreds at once are normal, not a leak.
    events.setMaxListeners(0);
    return events;
  };
  return { search: make('search'), extract: make('extract'), validate: make('validate'), index: make('index'), crawl: make('crawl'), summarize: make('summarize') };
}

const COUNTED_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;

export async function queueDepths(queues: Queues): Promise<Array<{ queue: QueueName; state: string; count: number }>> {
  const rows = await Promise.all(
    QUEUE_NAMES.map(async (name) => {
      const counts = await queues[name].getJobCounts(...COUNTED_STATES);
      return COUNTED_STATES.map((state) => ({ queue: name, state, count: counts[state] ?? 0 }));
    }),
  );
  return rows.flat();
}

/** Jobs queued and not started yet (waiting, delayed, prioritized) over every queue: the queue depth live metrics and alerts read. */
export async function waitingJobs(queues: Queues): Promise<number> {
  const counts = await Promise.all(QUEUE_NAMES.map((name) => queues[name].getJobCounts('waiting', 'delayed', 'prioritized')));
  return counts.reduce((sum, c) => sum + (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0), 0);
}
