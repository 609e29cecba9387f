/** The p-th percentile (0–100) of ascending `sorted` latencies: the value at rank ⌊p/100 · n⌋, the last for p = 100. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
