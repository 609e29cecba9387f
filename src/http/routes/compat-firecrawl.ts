/**
 * Firecrawl-compatible endpoints (the v2 API @mendable/firecrawl-js speaks): point Firecrawl's
 * client (`apiUrl` of `new Firecrawl({...})`) at <origin>/compat/firecrawl. Mapping tables:
 * docs/compat.md.
 */
import { arrivedAt, caller, type AppContext } from '../context.js';
import { sha256Hex } from '../../storage/hash.js';
import { normaliseQuery } from '../../cache/cache-key.js';
import type { ErrorCode } from '../../errors/catalogue.js';
import type {
  FirecrawlBatchBody, FirecrawlCrawlBody, FirecrawlMapBody, FirecrawlScrapeBody, FirecrawlSearchBody,
} from '../../compat/firecrawl-service.js';
import type { VendorErrorFormat } from '../vendor-format.js';
import { respondAsVendor } from './compat-response.js';
import type { Route } from './route.js';

/** Firecrawl's statuses where the catalogue's differ: 402 for used-up credits, 408 for a scrape out of time. */
const FIRECRAWL_STATUS: Partial<Record<ErrorCode, number>> = { MONTHLY_LIMIT_EXCEEDED: 402, EXTRACT_TIMEOUT: 408 };

/** Firecrawl's error body, `{"success": false, "error", "code", "details"}`, which its client throws as SdkError. */
export const firecrawlErrors: VendorErrorFormat = {
  schema: 'compat-firecrawl.error',
  render: (error) => ({
    status: FIRECRAWL_STATUS[error.code] ?? error.status,
    body: { success: false, error: `${error.code}: ${error.message}`, code: error.code, ...(error.details ? { details: error.details } : {}) },
  }),
};

const TAG = 'Compatibility: Firecrawl';
const BASE = '/compat/firecrawl/v2';
const common = { tag: TAG, vendor: firecrawlErrors } as const;

/** The absolute URL of a path of this API, as the client reached the service. */
const absolute = (ctx: AppContext, path: string) => `${ctx.state.origin}${BASE}${path}`;

export const postFirecrawlScrape: Route<FirecrawlScrapeBody> = {
  ...common,
  operationId: 'firecrawlScrape',
  method: 'POST',
  path: `${BASE}/scrape`,
  summary: "Firecrawl's scrape: POST /v1/extract's pipeline, the page as Markdown, HTML and links",
  scope: 'extract',
  body: 'compat-firecrawl-scrape.request',
  response: 'compat-firecrawl-document.response',
  async handler(ctx, { body }, services) {
    ctx.state.audit = { url: body.url };
    respondAsVendor(ctx, await services.firecrawl.scrape(caller(ctx), body, arrivedAt(ctx)));
  },
};

export const postFirecrawlBatch: Route<FirecrawlBatchBody> = {
  ...common,
  operationId: 'firecrawlBatchScrape',
  method: 'POST',
  path: `${BASE}/batch/scrape`,
  summary: "Firecrawl's batch scrape: one extraction job per URL, read by polling the batch",
  scope: 'extract',
  body: 'compat-firecrawl-batch.request',
  response: 'compat-firecrawl-job.response',
  async handler(ctx, { body }, services) {
    ctx.state.audit = { url: body.urls[0], urls: body.urls.length };
    respondAsVendor(ctx, await services.firecrawl.startBatch(caller(ctx), body, (id) => absolute(ctx, `/batch/scrape/${id}`)));
  },
};

export const getFirecrawlBatch: Route = {
  ...common,
  operationId: 'firecrawlBatchStatus',
  method: 'GET',
  path: `${BASE}/batch/scrape/:id`,
  summary: 'A batch scrape\'s progress and the pages read so far (results kept a day after they finish; not counted against quotas)',
  scope: 'extract',
  unmetered: true,
  response: 'compat-firecrawl-status.response',
  async handler(ctx, _input, services) {
    respondAsVendor(ctx, { body: await services.firecrawl.batchStatus(ctx.state.principal!, ctx.params.id!), warnings: [] });
  },
};

export const getFirecrawlBatchErrors: Route = {
  ...common,
  operationId: 'firecrawlBatchErrors',
  method: 'GET',
  path: `${BASE}/batch/scrape/:id/errors`,
  summary: 'The pages of a batch scrape that could not be read, with their codes (not counted against quotas)',
  scope: 'extract',
  unmetered: true,
  response: 'compat-firecrawl-errors.response',
  async handler(ctx, _input, services) {
    respondAsVendor(ctx, { body: await services.firecrawl.batchErrors(ctx.state.principal!, ctx.params.id!), warnings: [] });
  },
};

export const postFirecrawlCrawl: Route<FirecrawlCrawlBody> = {
  ...common,
  operationId: 'firecrawlCrawl',
  method: 'POST',
  path: `${BASE}/crawl`,
  summary: "Firecrawl's crawl: a native crawl (POST /v1/crawl), its pages indexed, read by polling the crawl",
  scope: 'index',
  body: 'compat-firecrawl-crawl.request',
  response: 'compat-firecrawl-job.response',
  async handler(ctx, { body }, services) {
    ctx.state.audit = { url: body.url };
    respondAsVendor(ctx, await services.firecrawl.startCrawl(caller(ctx), body, (id) => absolute(ctx, `/crawl/${id}`)));
  },
};

export const getFirecrawlCrawl: Route<unknown, { skip: number }> = {
  ...common,
  operationId: 'firecrawlCrawlStatus',
  method: 'GET',
  path: `${BASE}/crawl/:id`,
  summary: "A crawl's progress and its indexed pages, 100 at a time (next)",
  scope: 'index',
  query: 'compat-firecrawl-status.query',
  response: 'compat-firecrawl-status.response',
  async handler(ctx, { query }, services) {
    const id = ctx.params.id!;
    respondAsVendor(ctx, {
      body: await services.firecrawl.crawlStatus(ctx.state.principal!, id, query.skip, (skip) => absolute(ctx, `/crawl/${id}?skip=${skip}`)),
      warnings: [],
    });
  },
};

export const deleteFirecrawlCrawl: Route = {
  ...common,
  operationId: 'firecrawlCrawlCancel',
  method: 'DELETE',
  path: `${BASE}/crawl/:id`,
  summary: 'Cancel a crawl (DELETE /v1/crawl/{id})',
  scope: 'index',
  response: 'compat-firecrawl-cancel.response',
  async handler(ctx, _input, services) {
    respondAsVendor(ctx, { body: await services.firecrawl.cancelCrawl(ctx.state.principal!, ctx.params.id!), warnings: [] });
  },
};

export const getFirecrawlCrawlErrors: Route = {
  ...common,
  operationId: 'firecrawlCrawlErrors',
  method: 'GET',
  path: `${BASE}/crawl/:id/errors`,
  summary: 'The pages of a crawl that could not be read (the first 100), with their codes',
  scope: 'index',
  response: 'compat-firecrawl-errors.response',
  async handler(ctx, _input, services) {
    respondAsVendor(ctx, { body: await services.firecrawl.crawlErrors(ctx.state.principal!, ctx.params.id!), warnings: [] });
  },
};

export const postFirecrawlMap: Route<FirecrawlMapBody> = {
  ...common,
  operationId: 'firecrawlMap',
  method: 'POST',
  path: `${BASE}/map`,
  summary: "Firecrawl's map: the site's URLs from its sitemaps and the page's links, without crawling",
  scope: 'extract',
  body: 'compat-firecrawl-map.request',
  response: 'compat-firecrawl-map.response',
  async handler(ctx, { body }, services) {
    ctx.state.audit = { url: body.url };
    respondAsVendor(ctx, await services.firecrawl.map(caller(ctx), body, arrivedAt(ctx)));
  },
};

export const postFirecrawlSearch: Route<FirecrawlSearchBody> = {
  ...common,
  operationId: 'firecrawlSearch',
  method: 'POST',
  path: `${BASE}/search`,
  summary: "Firecrawl's search: POST /v1/search's ranked sources as web results, each scraped when scrapeOptions ask for formats",
  scope: 'search',
  body: 'compat-firecrawl-search.request',
  response: 'compat-firecrawl-search.response',
  async handler(ctx, { body }, services) {
    ctx.state.audit = { query_hash: `sha256:${sha256Hex(normaliseQuery(body.query))}` };
    respondAsVendor(ctx, await services.firecrawl.search(caller(ctx), body, arrivedAt(ctx)));
  },
};

export const FIRECRAWL_ROUTES: readonly Route[] = [
  postFirecrawlScrape, postFirecrawlBatch, getFirecrawlBatch, getFirecrawlBatchErrors,
  postFirecrawlCrawl, getFirecrawlCrawl, deleteFirecrawlCrawl, getFirecrawlCrawlErrors,
  postFirecrawlMap, postFirecrawlSearch,
] as readonly Route[];
