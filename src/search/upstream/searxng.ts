/**
 * Client of an optional SearXNG instance (SEARXNG_URL): its JSON search API, results normalised
 * to UpstreamResult, behind a time-out and a circuit breaker. It never throws for anything the
 * instance does: search goes on with the index's results whatever happens here.
 *
 * The instance must allow the JSON format (settings.yml: search.formats includes json; otherwise
 * it answers 403), and its bot limiter, if enabled, must let this service's address through.
 */
import type { Config } from '../../config.js';
import type { Metrics } from '../../metrics/metrics.js';
import { settleCall, type CircuitState } from './circuit-breaker.js';
import { isRecord } from '../../json-record.js';
import { requestJson, transportFailure, type JsonOutcome } from './json-request.js';
import { monitoredBreaker } from './monitored-breaker.js';
import type { Recency } from './result-filters.js';
import { normaliseResults, type UpstreamResult } from './upstream-result.js';

const ENGINE = 'searxng';
/** A page of results is some tens of kilobytes; this only stops a runaway answer. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const OUTCOMES = ['ok', 'error', 'timeout', 'rejected_open'] as const;
type MetricOutcome = (typeof OUTCOMES)[number];

export interface SearxngQuery {
  readonly query: string;
  /** Language code such as "en"; absent: the instance's default. */
  readonly language?: string;
  readonly timeRange?: Recency;
  /** Page of results, from 1. */
  readonly page?: number;
  /** SearXNG categories such as "general" or "news"; absent: the instance's default. */
  readonly categories?: readonly string[];
  /** The caller's deadline: the call ends when it aborts, even before SEARXNG_TIMEOUT_MS. */
  readonly signal?: AbortSignal;
}

/**
 * timeout: no answer within SEARXNG_TIMEOUT_MS; aborted: the caller's signal ended the call;
 * error: refused connection, non-200 status, unreadable answer; circuit_open: not attempted.
 */
export type SearxngFailure = 'timeout' | 'aborted' | 'error' | 'circuit_open';

export type SearxngOutcome =
  | { readonly ok: true; readonly results: UpstreamResult[]; readonly unresponsiveEngines: string[] }
  | { readonly ok: false; readonly reason: SearxngFailure; readonly detail: string };

export interface SearxngClient {
  search(query: SearxngQuery): Promise<SearxngOutcome>;
  /** For health reports; the same value the sev_upstream_circuit_state gauge shows. */
  circuitState(): CircuitState;
}

/** The client, or undefined when SEARXNG_URL is not set. */
export function createSearxngClient(config: Config, metrics: Metrics): SearxngClient | undefined {
  const settings = config.searxng;
  if (!settings) return undefined;
  const endpoint = searchEndpoint(settings.url);
  const labels = { engine: ENGINE };
  const breaker = monitoredBreaker(ENGINE, config.upstreamBreaker, metrics);
  // Present from the start, so that increase() over the first failure after a restart is not lost.
  for (const outcome of OUTCOMES) metrics.upstreamRequests.inc({ ...labels, outcome }, 0);
  const count = (outcome: MetricOutcome): void => metrics.upstreamRequests.inc({ ...labels, outcome });

  return {
    circuitState: () => breaker.state(),
    async search(query) {
      const permit = breaker.tryAcquire();
      if (!permit) {
        count('rejected_open');
        return { ok: false, reason: 'circuit_open', detail: 'SearXNG circuit is open after repeated failures' };
      }
      const response = await requestJson(searchUrl(endpoint, query), {
        method: 'GET',
        headers: { 'user-agent': config.fetch.userAgent },
        timeoutMs: settings.timeoutMs,
        signal: query.signal,
        maxBytes: MAX_RESPONSE_BYTES,
      });
      const outcome = interpret(response);
      count(settleCall(permit, outcome.ok ? undefined : outcome.reason));
      return outcome;
    },
  };
}

function interpret(response: JsonOutcome): SearxngOutcome {
  if (response.kind !== 'json') return transportFailure(response);
  if (response.status !== 200) {
    const hint = response.status === 403 ? ' (is the json format enabled in settings.yml?)' : '';
    return { ok: false, reason: 'error', detail: `HTTP ${response.status}${hint}` };
  }
  const body = response.value;
  if (!isRecord(body) || !Array.isArray(body.results)) return { ok: false, reason: 'error', detail: 'answer has no results array' };
  return { ok: true, results: normaliseResults(body.results), unresponsiveEngines: unresponsive(body.unresponsive_engines) };
}

/** SearXNG lists engines that failed this query as [name, reason] pairs. */
function unresponsive(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry: unknown) => (Array.isArray(entry) && typeof entry[0] === 'string' ? [entry[0]] : []));
}

/** The instance may live under a path (https://host/searxng); its API is /search below it. */
function searchEndpoint(base: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/search`;
  url.search = '';
  url.hash = '';
  return url;
}

function searchUrl(endpoint: URL, query: SearxngQuery): URL {
  const url = new URL(endpoint);
  const params = url.searchParams;
  params.set('q', query.query);
  params.set('format', 'json');
  params.set('pageno', String(query.page ?? 1));
  if (query.language !== undefined) params.set('language', query.language);
  if (query.timeRange !== undefined) params.set('time_range', query.timeRange);
  if (query.categories?.length) params.set('categories', query.categories.join(','));
  return url;
}
