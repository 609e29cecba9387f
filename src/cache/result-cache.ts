/**
 * The result cache: JSON results under (namespace, key), shared by every API process through
 * Redis. A read is one script call (one round trip), or none for an entry this process holds a
 * copy of (near-cache.ts): fast enough to answer cached searches in the API process. Hits
 * served with a near copy kept are counted here and added to the entry in Redis every
 * HIT_FLUSH_MS. Lifetimes are decided by the service clock, so tests can move time forward;
 * Redis expiry only reclaims the memory, never earlier than the clock would (it counts the same
 * ttl from the same moment, and the clock never runs behind real time). See cache-scripts.ts for
 * the layout.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { ApiError } from '../errors/catalogue.js';
import { CLEAR_BATCH_SCRIPT, GET_SCRIPT, HITS_SCRIPT, PUT_SCRIPT } from './cache-scripts.js';
import type { NearCache } from './near-cache.js';

/** Largest content an entry holds, as serialised JSON (UTF-8 bytes). */
export const MAX_CONTENT_BYTES = 1024 * 1024;

/** What an entry costs besides its content, query and tags: hash fields and index members, roughly. */
const ENTRY_OVERHEAD_BYTES = 256;

/** Expired entries a store drops on its way: more than a store adds, so the indexes keep up. */
const EXPIRED_DROPPED_PER_STORE = 100;

/** Index members a clear handles per script call, so a large clear never blocks Redis for long. */
const CLEAR_BATCH = 500;

/** How often hits served from near copies are added to the entries in Redis. */
const HIT_FLUSH_MS = 1000;

export interface CacheEntry {
  /** The query as it was stored (before normalisation). */
  query: string;
  /**
   * The content as stored: JSON text. Kept as text so that a hit can be spliced into the
   * response without parsing and serialising it again (about 50 µs for a 5 KB search result).
   */
  contentJson: string;
  /** Lifetime in seconds, counted from storedAt. */
  ttl: number;
  trustLevel: string;
  tags: string[];
  storedAt: Date;
  expiresAt: Date;
  /** Times the entry was served, this read included (other processes' latest hits arrive within HIT_FLUSH_MS). */
  hits: number;
}

export interface PutOptions {
  query: string;
  ttl: number;
  trustLevel: string;
  tags: readonly string[];
}

export interface ClearFilter {
  /** Entries carrying any of these tags. */
  tags?: readonly string[];
  /** Entries stored before this moment. */
  olderThan?: Date;
}

type CacheMetrics = Pick<Metrics, 'cacheRequests' | 'cacheStores' | 'cacheCleared' | 'cacheEvicted'>;

type Script = (...args: (string | number)[]) => Promise<unknown>;

/** Hits served from near copies of the entry stored at `storedAt` (ms), not yet added in Redis. */
interface UnflushedHits {
  storedAt: number;
  count: number;
}

type EntryFields = [query: string, content: string, ttl: string, trustLevel: string, tags: string, storedAt: string, expiresAt: string, hits: number];

export interface ResultCacheOptions {
  /** Bytes one namespace may hold; a store past it evicts the entries nearest expiry. */
  namespaceMaxBytes: number;
  /** Copies of entries in this process; without, every read goes to Redis. */
  near?: NearCache<CacheEntry>;
  logger: Logger;
}

export class ResultCache {
  private readonly getScript: Script;
  private readonly putScript: Script;
  private readonly clearScript: Script;
  private readonly hitsScript: Script;
  private readonly near: NearCache<CacheEntry> | undefined;
  /** Hits served from near copies and not yet added in Redis, by entry key. */
  private unflushedHits = new Map<string, UnflushedHits>();
  private readonly flushTimer: NodeJS.Timeout | undefined;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly metrics: CacheMetrics,
    private readonly options: ResultCacheOptions,
  ) {
    // defineCommand sends EVALSHA and falls back to EVAL once after a Redis restart.
    const commands = redis as unknown as Record<string, Script>;
    redis.defineCommand('sevCacheGet', { lua: GET_SCRIPT, numberOfKeys: 1 });
    redis.defineCommand('sevCachePut', { lua: PUT_SCRIPT, numberOfKeys: 1 });
    redis.defineCommand('sevCacheClearBatch', { lua: CLEAR_BATCH_SCRIPT, numberOfKeys: 1 });
    redis.defineCommand('sevCacheHits', { lua: HITS_SCRIPT, numberOfKeys: 1 });
    this.getScript = commands.sevCacheGet!.bind(redis);
    this.putScript = commands.sevCachePut!.bind(redis);
    this.clearScript = commands.sevCacheClearBatch!.bind(redis);
    this.hitsScript = commands.sevCacheHits!.bind(redis);
    this.near = options.near;
    if (this.near) this.flushTimer = setInterval(() => void this.flushHits(), HIT_FLUSH_MS).unref();
  }

  /** The live entry under `key`, counted as a hit; null (a miss) when absent or expired. */
  async get(namespace: string, key: string): Promise<CacheEntry | null> {
    const entryKey = this.base(namespace) + 'e:' + key;
    const now = this.clock.now().getTime();
    if (!this.near) {
      const fields = await this.getScript(entryKey, now, 1) as EntryFields | null;
      this.metrics.cacheRequests.inc({ outcome: fields ? 'hit' : 'miss' });
      return fields ? toEntry(fields) : null;
    }
    let copy = this.near.get(entryKey);
    // A copy may outlive its entry on the service clock (the script decides that for Redis's reads).
    if (copy && copy.expiresAt.getTime() <= now) {
      this.near.forget(entryKey);
      copy = undefined;
    }
    const entry = copy ?? await this.near.read(entryKey, async () => {
      const fields = await this.getScript(entryKey, now, 0) as EntryFields | null;
      return fields ? toEntry(fields) : null;
    }, entryBytes);
    if (!entry) {
      this.metrics.cacheRequests.inc({ outcome: 'miss' });
      return null;
    }
    const storedAt = entry.storedAt.getTime();
    let unflushed = this.unflushedHits.get(entryKey);
    // Hits of an entry stored again since belonged to its predecessor.
    if (unflushed?.storedAt !== storedAt) this.unflushedHits.set(entryKey, unflushed = { storedAt, count: 0 });
    unflushed.count++;
    this.metrics.cacheRequests.inc({ outcome: 'hit' });
    return { ...entry, hits: entry.hits + unflushed.count };
  }

  /**
   * Stores `content` under `key`, replacing whatever was there (its hits start again at 0).
   * Throws CONTENT_TOO_LARGE past MAX_CONTENT_BYTES. `replaced` tells whether a live entry
   * was overwritten. Should the namespace pass its budget, the entries nearest expiry go.
   */
  async put(namespace: string, key: string, content: unknown, options: PutOptions): Promise<{ entry: CacheEntry; replaced: boolean }> {
    const text = JSON.stringify(content) ?? 'null';
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_CONTENT_BYTES) {
      throw new ApiError('CONTENT_TOO_LARGE', { max_size_mb: megabytes(MAX_CONTENT_BYTES), provided_size_mb: megabytes(bytes) },
        `A cache entry's content may take at most ${megabytes(MAX_CONTENT_BYTES)} MB as JSON.`);
    }
    const base = this.base(namespace);
    this.near?.forget(base + 'e:' + key);
    const storedAt = this.clock.now();
    const ttlMs = options.ttl * 1000;
    const expiresAt = new Date(storedAt.getTime() + ttlMs);
    const tags = [...new Set(options.tags)];
    const tagsJson = JSON.stringify(tags);
    const size = bytes + Buffer.byteLength(options.query) + Buffer.byteLength(tagsJson) + ENTRY_OVERHEAD_BYTES;
    const [replaced, evicted] = await this.putScript(
      base + 'e:' + key,
      base, key, storedAt.getTime(), expiresAt.getTime(), ttlMs,
      options.query, text, options.ttl, options.trustLevel, tagsJson, EXPIRED_DROPPED_PER_STORE, size, this.options.namespaceMaxBytes,
    ) as [number, number];
    this.metrics.cacheStores.inc();
    if (evicted > 0) this.metrics.cacheEvicted.inc(evicted);
    return {
      entry: { query: options.query, contentJson: text, ttl: options.ttl, trustLevel: options.trustLevel, tags, storedAt, expiresAt, hits: 0 },
      replaced: replaced === 1,
    };
  }

  /**
   * Removes the entries matching every given filter (at least one is required) and returns how
   * many live ones went. Reads only the matching index ranges, never the keyspace.
   */
  async clear(namespace: string, filter: ClearFilter): Promise<number> {
    const base = this.base(namespace);
    // This process's copies of the namespace go now; other processes' as Redis tells them.
    this.near?.forgetStartingWith(base);
    const before = filter.olderThan ? String(filter.olderThan.getTime()) : '';
    const walks: Array<{ set: string; tag: string }> = filter.tags?.length
      ? [...new Set(filter.tags)].map((tag) => ({ set: base + 't:' + tag, tag }))
      : before ? [{ set: base + 's', tag: '' }] : [];
    if (walks.length === 0) throw new TypeError('clear needs tags or olderThan');
    let deleted = 0;
    for (const { set, tag } of walks) {
      for (let offset = 0, read = CLEAR_BATCH; read === CLEAR_BATCH;) {
        const [dropped, kept, members] = await this.clearScript(set, base, this.clock.now().getTime(), before, offset, CLEAR_BATCH, tag) as [number, number, number];
        deleted += dropped;
        offset += kept;
        read = members;
      }
    }
    this.metrics.cacheCleared.inc(deleted);
    return deleted;
  }

  /** Adds the hits served from copies to their entries (an entry gone meanwhile is not recreated). */
  async flushHits(): Promise<void> {
    const hits = this.unflushedHits;
    if (hits.size === 0) return;
    this.unflushedHits = new Map();
    await Promise.all([...hits].map(async ([entryKey, { storedAt, count }]) => {
      try {
        await this.hitsScript(entryKey, count, storedAt);
      } catch (error) {
        // Kept for the next flush: Redis being away loses no hits.
        const later = this.unflushedHits.get(entryKey);
        // Unless the entry was stored again meanwhile: these hits were its predecessor's.
        if (!later || later.storedAt === storedAt) this.unflushedHits.set(entryKey, { storedAt, count: count + (later?.count ?? 0) });
        this.options.logger.warn({ err: error }, 'result cache: hits could not be counted in Redis; retrying');
      }
    }));
  }

  /** Stops the hit flushing after adding what is left. */
  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushHits();
  }

  private base(namespace: string): string {
    return `${this.prefix}:cache:{${namespace}}:`;
  }
}

function toEntry([query, content, ttl, trustLevel, tags, storedAt, expiresAt, hits]: EntryFields): CacheEntry {
  return {
    query,
    contentJson: content,
    ttl: Number(ttl),
    trustLevel,
    tags: JSON.parse(tags) as string[],
    storedAt: new Date(Number(storedAt)),
    expiresAt: new Date(Number(expiresAt)),
    hits,
  };
}

/** What a near copy of `entry` takes, roughly: its strings (two bytes a character) and a little more. */
function entryBytes(entry: CacheEntry): number {
  return 2 * (entry.contentJson.length + entry.query.length) + ENTRY_OVERHEAD_BYTES;
}

/** Rounded up to hundredths, as the request body limit reports sizes. */
function megabytes(bytes: number): number {
  return Math.ceil((bytes / (1024 * 1024)) * 100) / 100;
}
