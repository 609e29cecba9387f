import { arrivedAt, caller, respond } from '../context.js';
import { queryHash } from '../../cache/cache-key.js';
import { respondWithDataJson } from './cache-response.js';
import type { SearchRequest } from '../../search/types.js';
import type { Route } from './route.js';

export const postSearch: Route<SearchRequest> = {
  operationId: 'search',
  method: 'POST',
  path: '/v1/search',
  summary: 'Search the index (and the configured upstream engine): ranked sources and a summary citing them',
  tag: 'Core',
  scope: 'search',
  body: 'search.request',
  response: 'search.response',
  async handler(ctx, { body: request }, services) {
    // Hashed as the cache compares queries: spelling variants it treats as one are one hash.
    ctx.state.audit = { query_hash: queryHash(request.query) };
    // A search that may use the cache is a miss until the cache answers it (live figures count both).
    if (request.options.enable_cache) ctx.state.cacheHit = false;
    const answer = await services.search.search(caller(ctx), request, arrivedAt(ctx));
    if (answer.cached) {
      ctx.state.cacheHit = true;
      ctx.state.audit = { ...ctx.state.audit, ...metadataOf(answer.resultJson) };
      respondWithDataJson(ctx, withCacheReport(answer.resultJson, `{"hit":true,"age_seconds":${answer.ageSeconds}}`));
      return;
    }
    const { result } = answer;
    ctx.state.audit = { ...ctx.state.audit, sources_analyzed: result.metadata.sources_analyzed, confidence_score: result.metadata.confidence_score };
    respond(ctx, { ...result, cache: { hit: false } });
  },
};

/**
 * sources_analyzed and confidence_score of a stored answer, read from its metadata member
 * without parsing the whole answer (a hit is served as stored text).
 */
function metadataOf(dataJson: string): { sources_analyzed?: number; confidence_score?: number } {
  const metadata = dataJson.slice(dataJson.lastIndexOf('"metadata":'));
  const sources = /"sources_analyzed":(\d+)/.exec(metadata)?.[1];
  const confidence = /"confidence_score":(-?[\d.eE+-]+)/.exec(metadata)?.[1];
  return {
    ...(sources !== undefined ? { sources_analyzed: Number(sources) } : {}),
    ...(confidence !== undefined ? { confidence_score: Number(confidence) } : {}),
  };
}

/** The stored answer with `cache` added as its last member, without parsing it (see cache-response.ts). */
function withCacheReport(dataJson: string, report: string): string {
  return `${dataJson.slice(0, dataJson.lastIndexOf('}'))},"cache":${report}}`;
}
