/**
 * Tavily-compatible endpoints: point a Tavily client (`apiBaseURL` of @tavily/core, `apiBaseUrl`
 * of @langchain/tavily) at <origin>/compat/tavily. Mapping tables: docs/compat.md.
 */
import { arrivedAt, caller } from '../context.js';
import { queryHash } from '../../cache/cache-key.js';
import type { ErrorCode } from '../../errors/catalogue.js';
import type { TavilyExtractBody, TavilySearchBody } from '../../compat/tavily-service.js';
import type { VendorErrorFormat } from '../vendor-format.js';
import { respondAsVendor } from './compat-response.js';
import type { Route } from './route.js';

/** Statuses Tavily gives where the catalogue's differ: 432 is its "plan usage limit exceeded". */
const TAVILY_STATUS: Partial<Record<ErrorCode, number>> = { MONTHLY_LIMIT_EXCEEDED: 432 };

/** Tavily's error body, `{"detail": {"error": …}}`, which its clients read the message from. */
export const tavilyErrors: VendorErrorFormat = {
  schema: 'compat-tavily.error',
  render: (error) => ({ status: TAVILY_STATUS[error.code] ?? error.status, body: { detail: { error: `${error.code}: ${error.message}` } } }),
};

const TAG = 'Compatibility: Tavily';

export const postTavilySearch: Route<TavilySearchBody> = {
  operationId: 'tavilySearch',
  method: 'POST',
  path: '/compat/tavily/search',
  summary: "Tavily's search: POST /v1/search's ranked sources as Tavily results, its summary as the answer, the index's text as raw_content",
  tag: TAG,
  scope: 'search',
  body: 'compat-tavily-search.request',
  response: 'compat-tavily-search.response',
  vendor: tavilyErrors,
  keyInBody: 'api_key',
  async handler(ctx, { body }, services) {
    ctx.state.audit = { query_hash: queryHash(body.query) };
    respondAsVendor(ctx, await services.tavily.search(caller(ctx), body, arrivedAt(ctx)));
  },
};

export const postTavilyExtract: Route<TavilyExtractBody> = {
  operationId: 'tavilyExtract',
  method: 'POST',
  path: '/compat/tavily/extract',
  summary: "Tavily's extract: each URL through POST /v1/extract's pipeline, the pages read as results, the others as failed_results",
  tag: TAG,
  scope: 'extract',
  body: 'compat-tavily-extract.request',
  response: 'compat-tavily-extract.response',
  vendor: tavilyErrors,
  keyInBody: 'api_key',
  async handler(ctx, { body }, services) {
    const urls = typeof body.urls === 'string' ? [body.urls] : body.urls;
    ctx.state.audit = { url: urls[0], urls: urls.length };
    respondAsVendor(ctx, await services.tavily.extract(caller(ctx), body, arrivedAt(ctx)));
  },
};
