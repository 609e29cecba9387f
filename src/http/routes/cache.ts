import { respond } from '../context.js';
import type { ClearRequest, StoreRequest } from '../../cache/cache-service.js';
import { entryJson, respondWithDataJson } from './cache-response.js';
import type { Route } from './route.js';

export const getCacheEntry: Route<unknown, { q: string }> = {
  operationId: 'queryCache',
  method: 'GET',
  path: '/v1/cache/query',
  summary: "Read the live cache entry of a query (normalised: case, width and spacing do not matter) from the caller's account and mode; 404 NOT_FOUND when there is none or it has expired",
  tag: 'Cache',
  scope: 'cache',
  query: 'cache-query.query',
  response: 'cache-entry.response',
  notFound: true,
  async handler(ctx, { query }, services) {
    // A miss (404) until the entry is found: live figures count both.
    ctx.state.cacheHit = false;
    const { entry, readAt } = await services.cache.read(ctx.state.principal!, query.q);
    ctx.state.cacheHit = true;
    respondWithDataJson(ctx, entryJson(entry, readAt));
  },
};

export const postCacheEntry: Route<StoreRequest> = {
  operationId: 'storeCache',
  method: 'POST',
  path: '/v1/cache/store',
  summary: "Store a result under a query in the caller's account and mode, replacing any entry of the same normalised query; content at most 1 MB as JSON",
  tag: 'Cache',
  scope: 'cache',
  body: 'cache-store.request',
  response: 'cache-store.response',
  async handler(ctx, { body }, services) {
    const { entry, replaced } = await services.cache.store(ctx.state.principal!, body);
    respondWithDataJson(ctx, entryJson(entry, entry.storedAt, { replaced }));
  },
};

export const deleteCacheEntries: Route<ClearRequest> = {
  operationId: 'clearCache',
  method: 'DELETE',
  path: '/v1/cache/clear',
  summary: "Remove the caller's cache entries carrying any of the given tags and/or stored before older_than (both given: entries matching both)",
  tag: 'Cache',
  scope: 'cache',
  body: 'cache-clear.request',
  response: 'cache-clear.response',
  async handler(ctx, { body }, services) {
    const deleted = await services.cache.clear(ctx.state.principal!, body);
    // Who emptied which part of the cache, for the audit log.
    ctx.state.audit = { tags: body.tags ?? null, older_than: body.older_than ?? null, deleted };
    respond(ctx, { deleted });
  },
};
