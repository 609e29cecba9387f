/**
 * Fixed latency buckets of the hourly rollups, in milliseconds (upper bounds; the last is open).
 * Percentiles over any period are read from the summed buckets, never from raw rows: a
 * percentile is located in its bucket and interpolated linearly inside it, so its error is at
 * most the width of that bucket (for example a p95 of 180 ms is known within 100..250 ms, and
 * in practice far closer when latencies spread across the bucket).
 */
export const LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000] as const;
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** The bucket a latency falls in: the first whose upper bound holds it. */
export function latencyBucket(ms: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= LATENCY_BOUNDS_MS[i]!) return i;
  return LATENCY_BOUNDS_MS.length;
}

/**
 * The q-quantile (0..1) of the latencies counted in `counts`, in seconds; null when nothing was
 * counted. Inside the open last bucket the value is its lower bound: nothing measured says more.
 */
export function latencyQuantile(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i]!;
    if (n > 0 && below + n >= rank) {
      const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
      if (i >= LATENCY_BOUNDS_MS.length) return lower / 1000;
      const upper = LATENCY_BOUNDS_MS[i]!;
      return (lower + ((rank - below) / n) * (upper - lower)) / 1000;
    }
    below += n;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]! / 1000;
}
