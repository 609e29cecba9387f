import { createHash } from 'node:crypto';
import { validateBody } from '../../schema/request-validator.js';
import { ApiError } from '../../errors/catalogue.js';
import { arrivedAt, respond } from '../context.js';
import { runJob } from '../../queue/run-job.js';
import { cacheKey } from '../../cache/cache-key.js';
import { cacheNamespace } from '../../cache/namespace.js';
import { sha256Hex } from '../../storage/hash.js';
import { respondWithDataJson } from './cache-response.js';
import { answerParameters, type SearchJob, type SearchRequest, type SearchResult } from '../../search/types.js';
import type { AppDeps } from '../deps.js';
import type { Route } from './route.js';

/** Tags of the cache entries search writes: DELETE /v1/cache/clear with tags ["search"] empties them. */
const SEARCH_CACHE_TAGS = ['search'];

export const postSearch: Route = {
  operationId: 'search',
  method: 'POST',
  path: '/v1/search',
  summary: 'Search the index (and the configured upstream engine): ranked sources and a summary citing them',
  tag: 'Core',
  scope: 'search',
  body: 'search.request',
  response: 'search.response',
  async handler(ctx, deps) {
    const arrived = arrivedAt(ctx);
    const request = validateBody<SearchRequest>('search.request', ctx.request.body ?? {});
    const principal = ctx.state.principal!;
    const key = cacheKey(request.query, answerParameters(request));
    const namespace = cacheNamespace(principal);
    ctx.state.audit = { query_hash: `sha256:${sha256Hex(request.query)}` };

    if (request.options.enable_cache) {
      const entry = await deps.resultCache.get(namespace, key).catch((error: unknown) => cacheFailure(deps, error));
      if (entry) {
        ctx.state.cacheHit = true;
        const age = Math.max(0, Math.floor((deps.clock.now().getTime() - entry.storedAt.getTime()) / 1000));
        respondWithDataJson(ctx, withCacheReport(entry.contentJson, `{"hit":true,"age_seconds":${age}}`));
        return;
      }
    }

    const timeoutSeconds = request.options.timeout;
    const deadline = arrived + timeoutSeconds * 1000;
    const result = await runJob<SearchJob, SearchResult>(
      deps.queues.search,
      deps.queueEvents.search,
      { request_id: ctx.state.requestId, principal_id: principal.id, mode: principal.mode, input: { request, deadline } },
      {
        timeoutMs: Math.max(1, deadline - Date.now()),
        onTimeout: () => new ApiError('SEARCH_TIMEOUT', { timeout_seconds: timeoutSeconds }),
        signal: deps.shutdownSignal,
        // Identical searches in flight (same mode, answer and time limit) run once; accounts of
        // one mode read the same index, so they may share the job (each caches in its own namespace).
        shareKey: `search-${createHash('sha256').update(`${principal.mode}\n${timeoutSeconds}\n${key}`).digest('base64url')}`,
      },
    );
    result.metadata.query_time = (Date.now() - arrived) / 1000;
    ctx.state.audit = { ...ctx.state.audit, sources_analyzed: result.metadata.sources_analyzed, confidence_score: result.metadata.confidence_score };
    if (request.options.enable_cache) {
      await deps.resultCache.put(namespace, key, result, { query: request.query, ttl: deps.config.search.cacheTtlSeconds, trustLevel: 'medium', tags: SEARCH_CACHE_TAGS })
        .catch((error: unknown) => cacheFailure(deps, error));
    }
    respond(ctx, { ...result, cache: { hit: false } });
  },
};

/** The stored answer with `cache` added as its last member, without parsing it (see cache-response.ts). */
function withCacheReport(dataJson: string, report: string): string {
  return `${dataJson.slice(0, dataJson.lastIndexOf('}'))},"cache":${report}}`;
}

/** The cache is an accelerator: when Redis fails it, the search is answered without it. */
function cacheFailure(deps: AppDeps, error: unknown): null {
  deps.logger.warn({ err: error }, 'result cache unavailable: search answered without it');
  return null;
}

