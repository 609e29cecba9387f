/**
 * fetchPage as the service's workers call it: the FETCH_* settings and the process-wide request
 * slots, with what each caller decides (time limit, robots.txt, cancellation) on top.
 */
import type { LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import { ApiError } from '../errors/catalogue.js';
import { fetchPage, type FetchedPage } from '../fetch/fetch-page.js';
import type { Metrics } from '../metrics/metrics.js';
import { clientError } from './fetch-failure.js';

export interface PageFetchDeps {
  config: Config;
  /** The process-wide cap on outbound requests (FETCH_CONCURRENCY). */
  fetchLimit: LimitFunction;
  metrics?: Pick<Metrics, 'fetches' | 'fetchDuration'> | undefined;
}

/** What the caller decides about one fetch. */
export interface FetchSettings {
  /** Covers the whole fetch: robots.txt, redirects, waiting for a slot, the body. */
  timeoutMs: number;
  respectRobots: boolean;
  /** Cancels the fetch, which then rejects with this signal's reason. */
  signal?: AbortSignal | undefined;
}

/**
 * @throws FetchError, for the caller to report (clientError); the signal's reason when it aborts.
 */
export function fetchForReading(deps: PageFetchDeps, url: string, settings: FetchSettings): Promise<FetchedPage> {
  const { fetch } = deps.config;
  return fetchPage(url, {
    timeoutMs: settings.timeoutMs,
    maxBytes: fetch.maxBytes,
    maxRedirects: fetch.maxRedirects,
    userAgent: fetch.userAgent,
    allowedCidrs: fetch.allowedCidrs,
    perHostConcurrency: fetch.perHostConcurrency,
    respectRobots: settings.respectRobots,
    processSlots: deps.fetchLimit,
    ...(settings.signal ? { signal: settings.signal } : {}),
  });
}

/**
 * The fetch, timed and counted in the fetch metrics by outcome: ok, the error code, or `deadline`
 * when the caller's signal ended it.
 * @throws ApiError, the failure as the client receives it; the signal's reason when it aborts.
 */
export async function measuredFetch(deps: PageFetchDeps, url: string, settings: FetchSettings): Promise<FetchedPage> {
  const stop = deps.metrics?.fetchDuration.startTimer();
  try {
    const page = await fetchForReading(deps, url, settings);
    deps.metrics?.fetches.inc({ outcome: 'ok' });
    return page;
  } catch (error) {
    const failure = clientError(error);
    deps.metrics?.fetches.inc({ outcome: failure instanceof ApiError ? failure.code : settings.signal?.aborted ? 'deadline' : 'error' });
    throw failure;
  } finally {
    stop?.();
  }
}
