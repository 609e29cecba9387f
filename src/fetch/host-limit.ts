/**
 * Politeness towards the sites we fetch from: at most N requests in flight to one host name
 * from this process, however many jobs want pages from it. Other hosts are not held up.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import { raceSignal } from './fetch-signal.js';

/** Requests to one host at once when the caller does not say (FETCH_PER_HOST_CONCURRENCY's default). */
export const DEFAULT_PER_HOST_CONCURRENCY = 2;

interface HostQueue {
  readonly limit: LimitFunction;
  /** Tasks queued or running; the entry is dropped when it reaches 0. */
  users: number;
}

// Only hosts with work queued or running have an entry, so the map is as large as the number
// of hosts being fetched from right now, never the number ever seen.
const queues = new Map<string, HostQueue>();

/**
 * Runs task once one of the host's `concurrency` slots is free. An abort while still queued
 * rejects at once with the signal's reason, and the task is then skipped when its turn comes.
 * @param host a host name, lower case (URL.hostname): ports of one host share its slots.
 */
export function withHostSlot<T>(host: string, concurrency: number, signal: AbortSignal, task: () => Promise<T>): Promise<T> {
  let queue = queues.get(host);
  if (!queue) {
    queue = { limit: pLimit(concurrency), users: 0 };
    queues.set(host, queue);
  } else if (queue.limit.concurrency !== concurrency) {
    // One configured value in practice; a caller asking for another applies it from now on.
    queue.limit.concurrency = concurrency;
  }
  const entry = queue;
  entry.users++;
  const run = entry.limit(() => (signal.aborted ? Promise.reject(signal.reason) : task()));
  // Released when the task really ends, not when an aborted caller stops waiting: dropping the
  // entry earlier would let a new limiter for the same host run requests beside this one.
  void run
    .catch(() => undefined)
    .finally(() => {
      entry.users--;
      if (entry.users === 0 && queues.get(host) === entry) queues.delete(host);
    });
  return raceSignal(run, signal);
}

/** How many hosts have requests queued or running (observability and tests). */
export function busyHostCount(): number {
  return queues.size;
}
