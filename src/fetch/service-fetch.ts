/**
 * fetchPage as the service's workers call it: the FETCH_* settings and the process-wide request
 * slots, with what each caller decides (time limit, robots.txt, cancellation) on top.
 */
import type { LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import { ApiError } from '../errors/catalogue.js';
import type { Metrics } from '../metrics/metrics.js';
import { fetchPage, type FetchedPage, type FetchOptions } from './fetch-page.js';

export function fetchOptions(
  config: Config, processSlots: LimitFunction, call: { timeoutMs: number; respectRobots: boolean; signal?: AbortSignal },
): FetchOptions {
  return {
    timeoutMs: call.timeoutMs,
    maxBytes: config.fetch.maxBytes,
    maxRedirects: config.fetch.maxRedirects,
    userAgent: config.fetch.userAgent,
    allowedCidrs: config.fetch.allowedCidrs,
    perHostConcurrency: config.fetch.perHostConcurrency,
    respectRobots: call.respectRobots,
    processSlots,
    ...(call.signal ? { signal: call.signal } : {}),
  };
}

/** The fetch, timed and counted in the fetch metrics by outcome: ok, the error code, or `deadline` when the caller's signal ended it. */
export async function measuredFetch(url: string, options: FetchOptions, metrics: Pick<Metrics, 'fetches' | 'fetchDuration'> | undefined): Promise<FetchedPage> {
  const stop = metrics?.fetchDuration.startTimer();
  try {
    const page = await fetchPage(url, options);
    metrics?.fetches.inc({ outcome: 'ok' });
    return page;
  } catch (error) {
    metrics?.fetches.inc({ outcome: error instanceof ApiError ? error.code : options.signal?.aborted ? 'deadline' : 'error' });
    throw error;
  } finally {
    stop?.();
  }
}
