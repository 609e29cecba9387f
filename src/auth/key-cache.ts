import type { Redis } from 'ioredis';
import type { Logger } from '../log/logger.js';
import type { SecretMatch } from './keys.repository.js';

/** What changed: one key, or every key of an account (a plan change). */
export type Invalidation = { key_id: string } | { account_id: string };

export function invalidationChannel(prefix: string): string {
  return `${prefix}:auth:invalidate`;
}

/** Tells every API process to forget what it cached about a key or an account. */
export async function publishInvalidation(redis: Redis, prefix: string, what: Invalidation): Promise<void> {
  await redis.publish(invalidationChannel(prefix), JSON.stringify(what));
}

interface Entry {
  match: SecretMatch | null;
  storedAt: number;
}

const NEGATIVE_TTL_MS = 5_000;

/**
 * Key lookups by secret hash, cached in the process so an authenticated request costs no
 * database round trip. Correctness comes from invalidation, not from the TTL: every change to
 * a key (revoke, rotate) or account (plan) is published on a Redis channel that all processes
 * subscribe to. Three rules keep a stale entry from surviving:
 *  - while the subscription is down, nothing is cached and the cache is emptied (a missed
 *    message cannot leave a revoked key usable);
 *  - a lookup that started before an invalidation does not store its (possibly old) result;
 *  - the TTL bounds anything else that could go wrong, such as a direct edit in the database.
 */
export class KeyLookupCache {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;
  private subscribed = false;

  constructor(
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly ttlMs: number,
    private readonly logger: Logger,
    private readonly maxEntries = 50_000,
  ) {}

  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.apply(message);
    });
    this.subscriber.on('close', () => this.pause());
    this.subscriber.on('ready', () => {
      // ioredis re-subscribes by itself on reconnect; from then on messages arrive again.
      this.clear();
      this.subscribed = true;
    });
    await this.subscriber.subscribe(this.channel);
    this.subscribed = true;
  }

  async lookup(secretHash: string, load: () => Promise<SecretMatch | undefined>): Promise<SecretMatch | undefined> {
    const cached = this.entries.get(secretHash);
    const now = Date.now();
    if (cached && now - cached.storedAt < (cached.match ? this.ttlMs : Math.min(this.ttlMs, NEGATIVE_TTL_MS))) {
      return cached.match ?? undefined;
    }
    const generation = this.generation;
    const match = await load();
    if (this.subscribed && this.ttlMs > 0 && generation === this.generation) {
      this.entries.delete(secretHash);
      this.entries.set(secretHash, { match: match ?? null, storedAt: now });
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return match;
  }

  async close(): Promise<void> {
    this.pause();
    this.subscriber.disconnect();
  }

  private apply(message: string): void {
    let what: Partial<{ key_id: string; account_id: string }>;
    try {
      what = JSON.parse(message) as typeof what;
    } catch {
      this.logger.warn({ message }, 'unreadable key invalidation: clearing the key cache');
      this.clear();
      return;
    }
    this.generation++;
    for (const [hash, entry] of this.entries) {
      if (!entry.match) continue;
      if (entry.match.key.id === what.key_id || entry.match.account.id === what.account_id) this.entries.delete(hash);
    }
  }

  private pause(): void {
    this.subscribed = false;
    this.clear();
  }

  private clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
