/**
 * POST /v1/search: the result cache in front of the search job. A cached answer is served as it
 * is stored; otherwise identical searches in flight run as one job, and the answer is cached in
 * the caller's namespace. The cache only speeds searches up: when Redis fails it, the search is
 * answered without it.
 */
import { createHash } from 'node:crypto';
import type { Queue, QueueEvents } from 'bullmq';
import { ApiError } from '../errors/catalogue.js';
import type { Caller } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { jobEnvelope } from '../queue/queues.js';
import { runJob } from '../queue/run-job.js';
import { cacheKey } from '../cache/cache-key.js';
import { cacheNamespace } from '../cache/namespace.js';
import type { ResultCache } from '../cache/result-cache.js';
import { answerParameters, type SearchJob, type SearchRequest, type SearchResult } from './types.js';

/** Tags of the cache entries search writes: DELETE /v1/cache/clear with tags ["search"] empties them. */
const SEARCH_CACHE_TAGS = ['search'];

export interface SearchServiceDeps {
  cache: ResultCache;
  queue: Queue;
  events: QueueEvents;
  clock: Clock;
  logger: Logger;
  /** How long an answer stays cached (SEARCH_CACHE_TTL_S). */
  cacheTtlSeconds: number;
  /** Aborted when the process shuts down: waits on jobs give up with SERVICE_UNAVAILABLE. */
  shutdownSignal: AbortSignal;
}

/** A cached answer as stored (JSON text, never parsed: see result-cache.ts), or a fresh one. */
export type SearchAnswer =
  | { cached: true; resultJson: string; ageSeconds: number }
  | { cached: false; result: SearchResult };

export class SearchService {
  constructor(private readonly deps: SearchServiceDeps) {}

  /** Answers `request`, which arrived at `arrivedAt` (epoch ms): its options.timeout counts from then. */
  async search(caller: Caller, request: SearchRequest, arrivedAt: number): Promise<SearchAnswer> {
    const { principal } = caller;
    const key = cacheKey(request.query, answerParameters(request));
    const namespace = cacheNamespace(principal);

    if (request.options.enable_cache) {
      const entry = await this.deps.cache.get(namespace, key).catch((error: unknown) => this.cacheFailure(error));
      if (entry) {
        const ageSeconds = Math.max(0, Math.floor((this.deps.clock.now().getTime() - entry.storedAt.getTime()) / 1000));
        return { cached: true, resultJson: entry.contentJson, ageSeconds };
      }
    }

    const timeoutSeconds = request.options.timeout;
    const deadline = arrivedAt + timeoutSeconds * 1000;
    const result = await runJob<SearchJob, SearchResult>(this.deps.queue, this.deps.events, jobEnvelope(caller, { request, deadline }), {
      deadline,
      onTimeout: () => new ApiError('SEARCH_TIMEOUT', { timeout_seconds: timeoutSeconds }),
      signal: this.deps.shutdownSignal,
      // Identical searches in flight (same mode, answer and time limit) run once; accounts of
      // one mode read the same index, so they may share the job (each caches in its own namespace).
      shareKey: `search-${createHash('sha256').update(`${principal.mode}\n${timeoutSeconds}\n${key}`).digest('base64url')}`,
    });
    result.metadata.query_time = (Date.now() - arrivedAt) / 1000;
    if (request.options.enable_cache) {
      await this.deps.cache.put(namespace, key, result, { query: request.query, ttl: this.deps.cacheTtlSeconds, trustLevel: 'medium', tags: SEARCH_CACHE_TAGS })
        .catch((error: unknown) => this.cacheFailure(error));
    }
    return { cached: false, result };
  }

  private cacheFailure(error: unknown): null {
    this.deps.logger.warn({ err: error }, 'result cache unavailable: search answered without it');
    return null;
  }
}
