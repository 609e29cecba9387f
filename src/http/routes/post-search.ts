import { arrivedAt, caller, respond } from '../context.js';
import { sha256Hex } from '../../storage/hash.js';
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
    ctx.state.audit = { query_hash: `sha256:${sha256Hex(request.query)}` };
    const answer = await services.search.search(caller(ctx), request, arrivedAt(ctx));
    if (answer.cached) {
      ctx.state.cacheHit = true;
      respondWithDataJson(ctx, withCacheReport(answer.resultJson, `{"hit":true,"age_seconds":${answer.ageSeconds}}`));
      return;
    }
    const { result } = answer;
    ctx.state.audit = { ...ctx.state.audit, sources_analyzed: result.metadata.sources_analyzed, confidence_score: result.metadata.confidence_score };
    respond(ctx, { ...result, cache: { hit: false } });
  },
};

/** The stored answer with `cache` added as its last member, without parsing it (see cache-response.ts). */
function withCacheReport(dataJson: string, report: string): string {
  return `${dataJson.slice(0, dataJson.lastIndexOf('}'))},"cache":${report}}`;
}
