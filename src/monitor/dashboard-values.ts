/**
 * A dashboard metric's value over its window and its series, computed from hourly rollup sums:
 * the same sums GET /v1/usage reads, rounded as it rounds them, so both report the same figures
 * for the same hours. Plain computation: the sums come from usage-rollups.repository.ts.
 */
import { HOURLY_SERIES_MAX_HOURS, periodHours, type DashboardMetric, type MetricType } from './dashboard-definition.js';
import { LATENCY_BUCKETS, latencyQuantile } from './latency-buckets.js';
import type { TimeRange } from './audit-range.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The rollups of one hour (of the dashboard's scope), summed over keys and endpoints. */
export interface HourSums {
  /** Start of the hour, epoch ms. */
  hour: number;
  requests: number;
  errors: number;
  cacheHits: number;
  latencyMsSum: number;
  /** Requests per latency bucket (latency-buckets.ts). */
  latency: number[];
}

export type Unit = 'requests' | 'requests/hour' | 'ratio' | 'seconds' | 'percent';

export interface SeriesPoint {
  timestamp: string;
  value: number | null;
}

export interface MetricValues {
  type: MetricType;
  period?: string;
  percentile?: number;
  unit: Unit;
  start: string;
  end: string;
  current: number | null;
  series: SeriesPoint[];
}

export const UNITS: Readonly<Record<MetricType, Unit>> = {
  requests: 'requests',
  requests_per_hour: 'requests/hour',
  success_rate: 'ratio',
  error_rate: 'ratio',
  response_time: 'seconds',
  cache_hit_rate: 'ratio',
  usage_percentage: 'percent',
};

/**
 * The hours a period covers, ending now: the current hour (counted whole, since rollups are
 * hourly) and the hours before it, `period` hours in all.
 */
export function metricWindow(period: string, now: Date): TimeRange & { hours: number } {
  const hours = periodHours(period)!;
  const end = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
  return { start: new Date(end - hours * HOUR_MS), end: new Date(end), hours };
}

/**
 * The metric over `window` (`current`) and per hour, or per UTC day for periods longer than a
 * week (the first and last days may be partial), from the hourly sums of the window's hours.
 */
export function metricValues(metric: DashboardMetric, window: TimeRange & { hours: number }, hours: readonly HourSums[]): MetricValues {
  const start = window.start.getTime();
  const end = window.end.getTime();
  const inside = hours.filter((h) => h.hour >= start && h.hour < end);
  const daily = window.hours > HOURLY_SERIES_MAX_HOURS;
  const step = daily ? DAY_MS : HOUR_MS;
  const first = daily ? Math.floor(start / DAY_MS) * DAY_MS : start;
  const buckets = new Map<number, HourSums[]>();
  for (let at = first; at < end; at += step) buckets.set(at, []);
  for (const h of inside) buckets.get(daily ? Math.floor(h.hour / DAY_MS) * DAY_MS : h.hour)!.push(h);
  const series = [...buckets].map(([at, members]) => {
    // The hours of this bucket inside the window: 1 for an hour; up to 24 for a day.
    const span = (Math.min(at + step, end) - Math.max(at, start)) / HOUR_MS;
    return { timestamp: new Date(at).toISOString(), value: valueOf(metric, add(members), span) };
  });
  return {
    type: metric.type,
    ...(metric.period !== undefined ? { period: metric.period } : {}),
    ...(metric.percentile !== undefined ? { percentile: metric.percentile } : {}),
    unit: UNITS[metric.type],
    start: window.start.toISOString(),
    end: window.end.toISOString(),
    current: valueOf(metric, add(inside), window.hours),
    series,
  };
}

function add(hours: readonly HourSums[]): Omit<HourSums, 'hour'> {
  const total = { requests: 0, errors: 0, cacheHits: 0, latencyMsSum: 0, latency: new Array<number>(LATENCY_BUCKETS).fill(0) };
  for (const h of hours) {
    total.requests += h.requests;
    total.errors += h.errors;
    total.cacheHits += h.cacheHits;
    total.latencyMsSum += h.latencyMsSum;
    h.latency.forEach((n, i) => { total.latency[i]! += n; });
  }
  return total;
}

/** One metric of summed rollups covering `hours` hours; null where it is undefined (a rate without requests). */
function valueOf(metric: DashboardMetric, sums: Omit<HourSums, 'hour'>, hours: number): number | null {
  switch (metric.type) {
    case 'requests':
      return sums.requests;
    case 'requests_per_hour':
      return round(sums.requests / hours, 4);
    case 'success_rate':
      return rate(sums.requests - sums.errors, sums.requests);
    case 'error_rate':
      return rate(sums.errors, sums.requests);
    case 'cache_hit_rate':
      return rate(sums.cacheHits, sums.requests);
    case 'response_time':
      if (metric.percentile !== undefined) return latencyQuantile(sums.latency, metric.percentile / 100);
      // As GET /v1/usage: the mean in whole milliseconds, as seconds.
      return sums.requests === 0 ? null : Math.round(sums.latencyMsSum / sums.requests) / 1000;
    case 'usage_percentage':
      throw new Error('usage_percentage is read from the quota counters, not the rollups');
  }
}

/** As GET /v1/usage rounds its rates: four decimals. */
function rate(part: number, whole: number): number | null {
  return whole === 0 ? null : round(part / whole, 4);
}

/** As GET /v1/usage rounds usage_percentage: two decimals. */
export function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100;
}

function round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}
