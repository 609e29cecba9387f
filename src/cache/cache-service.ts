/**
 * The result cache as clients use it (GET /v1/cache/query, POST /v1/cache/store, DELETE
 * /v1/cache/clear): entries under their query, normalised (case, width and spacing do not
 * matter), in the caller's own namespace (its account and mode).
 */
import { ApiError } from '../errors/catalogue.js';
import type { Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { cacheKey } from './cache-key.js';
import { cacheNamespace } from './namespace.js';
import type { CacheEntry, ResultCache } from './result-cache.js';

export interface StoreRequest {
  query: string;
  content: unknown;
  ttl: number;
  trust_level: string;
  tags?: string[];
}

export interface ClearRequest {
  tags?: string[];
  older_than?: string;
}

export class CacheService {
  constructor(
    private readonly cache: ResultCache,
    private readonly clock: Clock,
  ) {}

  /** The live entry of `query`, and when it was read (its remaining lifetime counts from then); NOT_FOUND when there is none. */
  async read(principal: Principal, query: string): Promise<{ entry: CacheEntry; readAt: Date }> {
    const entry = await this.cache.get(cacheNamespace(principal), cacheKey(query, {}));
    if (!entry) throw new ApiError('NOT_FOUND', { resource: 'cache_entry', id: query }, 'No live cache entry for this query (never stored, expired or cleared).');
    return { entry, readAt: this.clock.now() };
  }

  /** Stores `content` under the query, replacing any entry of the same normalised query. */
  async store(principal: Principal, request: StoreRequest): Promise<{ entry: CacheEntry; replaced: boolean }> {
    return this.cache.put(cacheNamespace(principal), cacheKey(request.query, {}), request.content, {
      query: request.query, ttl: request.ttl, trustLevel: request.trust_level, tags: request.tags ?? [],
    });
  }

  /** Removes the entries carrying any of the tags and/or stored before older_than (both given: matching both); returns how many. */
  async clear(principal: Principal, request: ClearRequest): Promise<number> {
    return this.cache.clear(cacheNamespace(principal), {
      ...(request.tags ? { tags: request.tags } : {}),
      ...(request.older_than ? { olderThan: new Date(request.older_than) } : {}),
    });
  }
}
