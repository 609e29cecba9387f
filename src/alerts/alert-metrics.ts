/**
 * The figures an alert condition can compare, what each measures, and the units a threshold may
 * be written in. Every rate and time is read over the last 5 minutes (the current minute
 * included), the window GET /v1/metrics/live reports as last_5_minutes; queue_depth and
 * usage_percentage are read as they stand at the evaluation.
 */
export const ALERT_METRICS = {
  error_rate: { kind: 'ratio', about: 'failed requests (status ≥ 400) / requests, last 5 minutes' },
  success_rate: { kind: 'ratio', about: 'successful requests / requests, last 5 minutes' },
  cache_hit_rate: { kind: 'ratio', about: 'result-cache hits / (hits + misses), last 5 minutes' },
  avg_response_time: { kind: 'seconds', about: 'mean response time, last 5 minutes' },
  p50_response_time: { kind: 'seconds', about: 'median response time, last 5 minutes (from latency buckets)' },
  p95_response_time: { kind: 'seconds', about: '95th percentile response time, last 5 minutes (from latency buckets)' },
  p99_response_time: { kind: 'seconds', about: '99th percentile response time, last 5 minutes (from latency buckets)' },
  requests_per_minute: { kind: 'count', about: 'requests per minute: the deployment\'s current load, or a scope\'s mean over the last 5 minutes' },
  errors_per_minute: { kind: 'count', about: 'failed requests per minute, mean over the last 5 minutes' },
  queue_depth: { kind: 'count', about: 'jobs waiting in every queue of the deployment' },
  usage_percentage: { kind: 'percent', about: 'requests used of the account\'s monthly quota, percent' },
} as const;

export type AlertMetric = keyof typeof ALERT_METRICS;
export type MetricKind = (typeof ALERT_METRICS)[AlertMetric]['kind'];

export const ALERT_METRIC_NAMES = Object.keys(ALERT_METRICS) as AlertMetric[];

export function isAlertMetric(name: string): name is AlertMetric {
  return Object.hasOwn(ALERT_METRICS, name);
}

/**
 * Units a threshold may carry, and the factor that turns it into the metric's own unit: ratios
 * are 0..1 (so `5%` is 0.05), percentages are 0..100 (`80%` is 80), times are seconds.
 */
export const UNITS: Readonly<Record<MetricKind, Readonly<Record<string, number>>>> = {
  ratio: { '%': 0.01 },
  percent: { '%': 1 },
  seconds: { s: 1, ms: 0.001 },
  count: {},
};

/** Metrics that need an account: the quota is an account's. */
export const ACCOUNT_METRICS: ReadonlySet<AlertMetric> = new Set(['usage_percentage']);

/** Metrics of the whole deployment, whatever the alert's scope. */
export const DEPLOYMENT_METRICS: ReadonlySet<AlertMetric> = new Set(['queue_depth']);
