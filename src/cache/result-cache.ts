/**
 * The result cache: JSON results under (namespace, key), shared by every API process through
 * Redis. A read is one script call (one round trip): fast enough to answer cached searches in
 * the API process. Lifetimes are decided by the service clock, so tests can move time forward;
 * Redis expiry only reclaims the memory, never earlier than the clock would (it counts the same
 * ttl from the same moment, and the clock never runs behind real time). See cache-scripts.ts for
 * the layout.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Metrics } from '../metrics/metrics.js';
import { ApiError } from '../http/errors.js';
import { CLEAR_BATCH_SCRIPT, GET_SCRIPT, PUT_SCRIPT } from './cache-scripts.js';

/** Largest content an entry holds, as serialised JSON (UTF-8 bytes). */
export const MAX_CONTENT_BYTES = 1024 * 1024;

/** What an entry costs besides its content, query and tags: hash fields and index members, roughly. */
const ENTRY_OVERHEAD_BYTES = 256;

/** Expired entries a store drops on its way: more than a store adds, so the indexes keep up. */
const EXPIRED_DROPPED_PER_STORE = 100;

/** Index members a clear handles per script call, so a large clear never blocks Redis for long. */
const CLEAR_BATCH = 500;

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
  /** Times the entry was served, this read included. */
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

type EntryFields = [query: string, content: string, ttl: string, trustLevel: string, tags: string, storedAt: string, expiresAt: string, hits: number];

export class ResultCache {
  private readonly getScript: Script;
  private readonly putScript: Script;
  private readonly clearScript: Script;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly metrics: CacheMetrics,
    /** Bytes one namespace may hold; a store past it evicts the entries nearest expiry. */
    private readonly namespaceMaxBytes: number,
  ) {
    // defineCommand sends EVALSHA and falls back to EVAL once after a Redis restart.
    const commands = redis as unknown as Record<string, Script>;
    redis.defineCommand('sevCacheGet', { lua: GET_SCRIPT, numberOfKeys: 1 });
    redis.defineCommand('sevCachePut', { lua: PUT_SCRIPT, numberOfKeys: 1 });
    redis.defineCommand('sevCacheClearBatch', { lua: CLEAR_BATCH_SCRIPT, numberOfKeys: 1 });
    this.getScript = commands.sevCacheGet!.bind(redis);
    this.putScript = commands.sevCachePut!.bind(redis);
    this.clearScript = commands.sevCacheClearBatch!.bind(redis);
  }

  /** The live entry under `key`, counted as a hit; null (a miss) when absent or expired. */
  async get(namespace: string, key: string): Promise<CacheEntry | null> {
    const fields = await this.getScript(this.base(namespace) + 'e:' + key, this.clock.now().getTime()) as EntryFields | null;
    this.metrics.cacheRequests.inc({ outcome: fields ? 'hit' : 'miss' });
    return fields ? toEntry(fields) : null;
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
    const storedAt = this.clock.now();
    const ttlMs = options.ttl * 1000;
    const expiresAt = new Date(storedAt.getTime() + ttlMs);
    const tags = [...new Set(options.tags)];
    const tagsJson = JSON.stringify(tags);
    const size = bytes + Buffer.byteLength(options.query) + Buffer.byteLength(tagsJson) + ENTRY_OVERHEAD_BYTES;
    const [replaced, evicted] = await this.putScript(
      base + 'e:' + key,
      base, key, storedAt.getTime(), expiresAt.getTime(), ttlMs,
      options.query, text, options.ttl, options.trustLevel, tagsJson, EXPIRED_DROPPED_PER_STORE, size, this.namespaceMaxBytes,
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

/** Rounded up to hundredths, as the request body limit reports sizes. */
function megabytes(bytes: number): number {
  return Math.ceil((bytes / (1024 * 1024)) * 100) / 100;
}
