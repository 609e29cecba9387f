/**
 * The value of an alert's metric, from the figures GET /v1/metrics/live reports: the shared
 * per-minute counts of the last 5 minutes (live-store.ts) for the alert's scope, the deployment's
 * current load and queue depth, and the account's quota month as GET /v1/usage reports it.
 */
import type { Mode } from '../mode.js';
import { latencyQuantile } from '../monitor/latency-buckets.js';
import { accountEndpointScope, accountScope, ALL_SCOPE, endpointScope, modeScope, type Counts } from '../monitor/live-store.js';
import type { AlertMetric } from './alert-metrics.js';

/** Whose figures an alert reads: an account (in a mode) or the whole deployment (account null), all endpoints or one. */
export interface AlertScope {
  accountId: string | null;
  mode: Mode | null;
  endpoint: string | null;
}

/** The live-store scope holding the counts of `scope`. */
export function liveScopeOf(scope: AlertScope): string {
  if (scope.accountId !== null) {
    const mode = scope.mode ?? 'live';
    return scope.endpoint !== null ? accountEndpointScope(scope.accountId, mode, scope.endpoint) : accountScope(scope.accountId, mode);
  }
  if (scope.endpoint !== null) return endpointScope(scope.endpoint);
  return scope.mode !== null ? modeScope(scope.mode) : ALL_SCOPE;
}

export interface Figures {
  /** The scope's counts over the window. */
  window: Counts;
  /** Length of the window in minutes (the current minute counts for the part of it that has passed). */
  windowMinutes: number;
  /** Requests per minute over every process right now (GET /v1/metrics/live current_load). */
  deploymentRequestsPerMinute: number;
  queueDepth: number;
  /** The account's quota month; undefined when the scope has no account or no monthly limit. */
  quota: { used: number; limit: number } | undefined;
}

const ratio = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);

/** null: no data (no requests in the window for a rate or a time, no quota for usage_percentage). */
export function metricValue(metric: AlertMetric, scope: AlertScope, figures: Figures): number | null {
  const { window } = figures;
  switch (metric) {
    case 'error_rate': return ratio(window.err, window.n);
    case 'success_rate': return ratio(window.n - window.err, window.n);
    case 'cache_hit_rate': return ratio(window.hit, window.hit + window.miss);
    case 'avg_response_time': return window.n > 0 ? window.us / window.n / 1e6 : null;
    case 'p50_response_time': return latencyQuantile(window.lat, 0.5);
    case 'p95_response_time': return latencyQuantile(window.lat, 0.95);
    case 'p99_response_time': return latencyQuantile(window.lat, 0.99);
    case 'requests_per_minute':
      return liveScopeOf(scope) === ALL_SCOPE ? figures.deploymentRequestsPerMinute : window.n / figures.windowMinutes;
    case 'errors_per_minute': return window.err / figures.windowMinutes;
    case 'queue_depth': return figures.queueDepth;
    case 'usage_percentage': return figures.quota ? (figures.quota.used / figures.quota.limit) * 100 : null;
  }
}
