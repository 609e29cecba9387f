/**
 * A bounded map whose entries expire. Once the entry count or the total weight (e.g. bytes)
 * passes its bound, the least recently used entries go first, so neither the number of keys
 * nor a few huge values can make it grow without limit.
 */
interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
  readonly weight: number;
}

export class ExpiringCache<V> {
  // A Map iterates in insertion order; re-inserting on every read keeps it in recency order.
  private readonly entries = new Map<string, Entry<V>>();
  private totalWeight = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The value unless missing or expired at `now` (ms); a hit counts as a use. */
  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.remove(key, entry);
    if (entry.expiresAt <= now) return undefined;
    this.entries.set(key, entry);
    this.totalWeight += entry.weight;
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number, weight: number): void {
    const previous = this.entries.get(key);
    if (previous) this.remove(key, previous);
    this.entries.set(key, { value, expiresAt, weight });
    this.totalWeight += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.totalWeight <= this.maxWeight) break;
      this.remove(oldest, entry);
    }
  }

  private remove(key: string, entry: Entry<V>): void {
    this.entries.delete(key);
    this.totalWeight -= entry.weight;
  }
}
