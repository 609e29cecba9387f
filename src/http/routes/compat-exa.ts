/**
 * Exa-compatible endpoints: point Exa's client (`new Exa(key, baseURL)` of exa-js) at
 * <origin>/compat/exa; it sends the key as x-api-key. Mapping tables: docs/compat.md.
 */
import { arrivedAt, caller } from '../context.js';
import { queryHash } from '../../cache/cache-key.js';
import type { ErrorCode } from '../../errors/catalogue.js';
import type { ExaContentsBody, ExaSearchBody } from '../../compat/exa-service.js';
import type { VendorErrorFormat } from '../vendor-format.js';
import { respondAsVendor } from './compat-response.js';
import type { Route } from './route.js';

/** Exa's tags where it has one for the failure (its error-codes page); otherwise the catalogued code is the tag. */
const EXA_TAGS: Partial<Record<ErrorCode, string>> = {
  MISSING_API_KEY: 'INVALID_API_KEY', EXPIRED_API_KEY: 'INVALID_API_KEY', INVALID_API_KEY: 'INVALID_API_KEY',
  INSUFFICIENT_PERMISSIONS: 'ACCESS_DENIED', IP_NOT_ALLOWED: 'ACCESS_DENIED',
  MONTHLY_LIMIT_EXCEEDED: 'NO_MORE_CREDITS',
  INVALID_PARAMETER: 'INVALID_REQUEST_BODY', INVALID_JSON: 'INVALID_REQUEST_BODY', QUERY_REQUIRED: 'INVALID_REQUEST_BODY',
  QUERY_TOO_SHORT: 'INVALID_REQUEST_BODY', QUERY_TOO_LONG: 'INVALID_REQUEST_BODY', INVALID_MAX_RESULTS: 'INVALID_REQUEST_BODY',
  INVALID_COUNTRY: 'INVALID_REQUEST_BODY', INVALID_FORMAT: 'INVALID_REQUEST_BODY', INVALID_LANGUAGE: 'INVALID_REQUEST_BODY',
  INTERNAL_SERVER_ERROR: 'INTERNAL_ERROR',
};

/** Exa's statuses where the catalogue's differ: a used-up quota is its 402 Payment Required. */
const EXA_STATUS: Partial<Record<ErrorCode, number>> = { MONTHLY_LIMIT_EXCEEDED: 402 };

/** Exa's error body, `{"requestId", "error", "tag"}`, which exa-js throws as an ExaError. */
export const exaErrors: VendorErrorFormat = {
  schema: 'compat-exa.error',
  render: (error, requestId) => ({
    status: EXA_STATUS[error.code] ?? error.status,
    body: { requestId, error: `${error.code}: ${error.message}`, tag: EXA_TAGS[error.code] ?? error.code },
  }),
};

const TAG = 'Compatibility: Exa';

export const postExaSearch: Route<ExaSearchBody> = {
  operationId: 'exaSearch',
  method: 'POST',
  path: '/compat/exa/search',
  summary: "Exa's search: POST /v1/search's ranked sources as Exa results, with the index's text and the best passage as highlights",
  tag: TAG,
  scope: 'search',
  body: 'compat-exa-search.request',
  response: 'compat-exa-search.response',
  vendor: exaErrors,
  async handler(ctx, { body }, services) {
    ctx.state.audit = { query_hash: queryHash(body.query) };
    respondAsVendor(ctx, await services.exa.search(caller(ctx), body, arrivedAt(ctx)));
  },
};

export const postExaContents: Route<ExaContentsBody> = {
  operationId: 'exaContents',
  method: 'POST',
  path: '/compat/exa/contents',
  summary: "Exa's contents: each URL through POST /v1/extract's pipeline, with highlights and links; pages that could not be read in statuses",
  tag: TAG,
  scope: 'extract',
  body: 'compat-exa-contents.request',
  response: 'compat-exa-search.response',
  vendor: exaErrors,
  async handler(ctx, { body }, services) {
    const urls = body.urls ?? body.ids ?? [];
    ctx.state.audit = { url: urls[0], urls: urls.length };
    respondAsVendor(ctx, await services.exa.contents(caller(ctx), body, arrivedAt(ctx)));
  },
};
