import type { Counts } from './live-store.js';

export type Trend = 'stable' | 'increasing' | 'decreasing';

/**
 * When a figure of the last 5 minutes counts as moved from the 30 minutes before: the difference
 * must exceed both `relative` times the earlier value and `floor` (the dead band), and each
 * window must hold at least `minSamples` requests (cache lookups for the hit rate); otherwise the
 * figure is stable. Request volume is compared per minute, the current minute counted for the
 * part of it that has passed.
 */
export interface TrendRule {
  relative: number;
  floor: number;
  minSamples: number;
}

export const TREND_RULES = {
  /** Requests per minute. */
  request_volume: { relative: 0.2, floor: 1, minSamples: 0 },
  /** Mean response time, seconds. */
  response_time: { relative: 0.2, floor: 0.01, minSamples: 10 },
  /** Failed requests / requests. */
  error_rate: { relative: 0.2, floor: 0.02, minSamples: 10 },
  /** Hits / (hits + misses). */
  cache_hit_rate: { relative: 0.2, floor: 0.05, minSamples: 10 },
} as const satisfies Record<string, TrendRule>;

export type Trending = Record<keyof typeof TREND_RULES, Trend>;

/** The recent and the earlier value of a figure, each with the number of events behind it. */
export function direction(recent: number, recentSamples: number, earlier: number, earlierSamples: number, rule: TrendRule): Trend {
  if (recentSamples < rule.minSamples || earlierSamples < rule.minSamples) return 'stable';
  const change = recent - earlier;
  if (Math.abs(change) <= Math.max(rule.relative * earlier, rule.floor)) return 'stable';
  return change > 0 ? 'increasing' : 'decreasing';
}

/**
 * The trending of 2.10: `recent` are the counts of the last 5 minutes (`recentMinutes` long: 4
 * whole minutes and the part of the current one that has passed), `earlier` those of the 30
 * minutes before them.
 */
export function trending(recent: Counts, recentMinutes: number, earlier: Counts, earlierMinutes: number): Trending {
  const lookups = (c: Counts) => c.hit + c.miss;
  return {
    response_time: direction(recent.n ? recent.us / recent.n / 1e6 : 0, recent.n, earlier.n ? earlier.us / earlier.n / 1e6 : 0, earlier.n, TREND_RULES.response_time),
    error_rate: direction(recent.n ? recent.err / recent.n : 0, recent.n, earlier.n ? earlier.err / earlier.n : 0, earlier.n, TREND_RULES.error_rate),
    cache_hit_rate: direction(
      lookups(recent) ? recent.hit / lookups(recent) : 0, lookups(recent),
      lookups(earlier) ? earlier.hit / lookups(earlier) : 0, lookups(earlier),
      TREND_RULES.cache_hit_rate,
    ),
    request_volume: direction(recent.n / recentMinutes, recent.n, earlier.n / earlierMinutes, earlier.n, TREND_RULES.request_volume),
  };
}
