/**
 * Firecrawl's v2 API (POST /compat/firecrawl/v2/scrape, batch/scrape, crawl, map, search) on the
 * service's own extraction, crawls and search. docs/compat.md tables every parameter.
 */
import { ApiError } from '../errors/catalogue.js';
import type { Caller, Principal } from '../auth/principal.js';
import type { SearchService } from '../search/search-service.js';
import type { ExtractService } from '../extract/extract-service.js';
import type { ExtractBatches } from '../extract/extract-batches.js';
import type { CrawlService } from '../crawl/crawl-service.js';
import type { CrawlRequest } from '../crawl/crawl-options.js';
import type { CrawlView } from '../crawl/crawl-view.js';
import type { StoredDocuments } from '../index/stored-documents.js';
import type { SearchRequest } from '../search/types.js';
import type { Recency } from '../search/upstream/result-filters.js';
import { CUSTOM_FORMATS } from '../schema/formats.js';
import { ignored, partOf, unsupported, type CompatAnswer } from './compat-answer.js';
import { firecrawlDocument, formatsOf, scrapePlan, secondRenderingMaxAge, type FirecrawlDocument, type FirecrawlScrapeOptions } from './firecrawl-scrape.js';
import { searchResultOf } from './search-answer.js';
import { pathPattern } from './path-patterns.js';

export interface FirecrawlScrapeBody extends FirecrawlScrapeOptions {
  url: string;
}

export interface FirecrawlBatchBody extends FirecrawlScrapeOptions {
  urls: string[];
  ignoreInvalidURLs?: boolean;
}

export interface FirecrawlCrawlBody {
  url: string;
  limit?: number;
  maxDiscoveryDepth?: number;
  includePaths?: string[];
  excludePaths?: string[];
  regexOnFullURL?: boolean;
  sitemap?: 'include' | 'skip' | 'only';
  crawlEntireDomain?: boolean;
  allowExternalLinks?: boolean;
  allowSubdomains?: boolean;
  scrapeOptions?: FirecrawlScrapeOptions;
  [option: string]: unknown;
}

export interface FirecrawlMapBody {
  url: string;
  search?: string;
  sitemap?: 'include' | 'only' | 'skip';
  includeSubdomains?: boolean;
  ignoreQueryParameters?: boolean;
  limit?: number;
  timeout?: number;
  [option: string]: unknown;
}

export interface FirecrawlSearchBody {
  query: string;
  limit?: number;
  includeDomains?: string[];
  excludeDomains?: string[];
  tbs?: string;
  country?: string;
  timeout?: number;
  sources?: Array<string | { type?: string }>;
  scrapeOptions?: FirecrawlScrapeOptions;
  [option: string]: unknown;
}

export interface FirecrawlJobStatus {
  success: true;
  status: 'scraping' | 'completed' | 'failed' | 'cancelled';
  completed: number;
  total: number;
  expiresAt?: string;
  next: string | null;
  data: FirecrawlDocument[];
}

export interface FirecrawlJobErrors {
  errors: Array<{ id: string; url: string; error: string; code: string }>;
  robotsBlocked: string[];
}

/** Documents per page of a crawl's status: the rest is reached by its `next` URL. */
const CRAWL_PAGE_SIZE = 100;
/** Results a search returns at most (the native max_results). */
const MAX_RESULTS = 20;
const DEFAULT_SEARCH_LIMIT = 5;
const DEFAULT_MAP_LIMIT = 5000;
const DEFAULT_MAP_TIMEOUT_MS = 30_000;
const TBS_RECENCY: Readonly<Record<string, Recency>> = { 'qdr:d': 'day', 'qdr:w': 'week', 'qdr:m': 'month', 'qdr:y': 'year' };

const CRAWL_IGNORED: Readonly<Record<string, string>> = {
  ignoreQueryParameters: 'URLs are crawled with their query strings',
  deduplicateSimilarURLs: 'the index merges copies itself',
  delay: "robots.txt's Crawl-delay decides, one request at a time per host",
  maxConcurrency: 'one request at a time per host',
  robotsUserAgent: 'robots.txt is read for the service\'s user agent',
};

const CRAWL_REFUSED: Readonly<Record<string, string>> = {
  ignoreRobotsTxt: 'crawls always obey robots.txt',
  webhook: 'no webhooks: poll the crawl',
  prompt: 'no crawl planning from a prompt',
  zeroDataRetention: 'crawled pages are indexed',
};

const SEARCH_IGNORED: Readonly<Record<string, string>> = {
  categories: 'no categories',
  location: 'the country parameter favours a country',
  ignoreInvalidURLs: 'every result is a valid URL',
  enterprise: 'not offered',
  threatProtection: 'not offered',
};

export interface FirecrawlDeps {
  search: SearchService;
  extract: ExtractService;
  batches: ExtractBatches;
  crawls: CrawlService;
  documents: StoredDocuments;
}

export class FirecrawlService {
  constructor(private readonly deps: FirecrawlDeps) {}

  async scrape(caller: Caller, body: FirecrawlScrapeBody, arrivedAt: number): Promise<CompatAnswer<{ success: true; data: FirecrawlDocument }>> {
    const plan = scrapePlan(body);
    const data = await this.document(caller, body.url, plan.formats, plan.request(body.url), arrivedAt);
    if (plan.warnings.length > 0) data.warning = plan.warnings.join('; ');
    return { body: { success: true, data }, warnings: plan.warnings };
  }

  async startBatch(caller: Caller, body: FirecrawlBatchBody, statusUrl: (id: string) => string): Promise<CompatAnswer<{ success: true; id: string; url: string; invalidURLs?: string[] }>> {
    for (const [option, reason] of [['webhook', 'no webhooks: poll the batch'], ['appendToId', 'a batch cannot be extended']] as const) {
      if (body[option] !== undefined) throw unsupported(option, reason, body[option]);
    }
    if (body.zeroDataRetention === true) throw unsupported('zeroDataRetention', 'extractions are stored', true);
    const plan = scrapePlan(body);
    if (plan.formats.includes('markdown') && plan.formats.includes('html')) {
      throw unsupported('formats', 'a batch gives one of markdown or html (scrape gives both)', 'markdown, html');
    }
    const warnings = [...plan.warnings, ...(body.maxConcurrency !== undefined ? [ignored('maxConcurrency', 'FETCH_CONCURRENCY and the per-host limit decide')] : [])];
    const isUrl = CUSTOM_FORMATS['http-url']!.validate;
    const invalid = body.urls.filter((url) => !isUrl(url) || url.length > 2048);
    if (invalid.length > 0 && !body.ignoreInvalidURLs) {
      throw new ApiError('URL_INVALID', { url: invalid[0]!, expected_format: 'an absolute http:// or https:// URL' });
    }
    const urls = body.urls.filter((url) => !invalid.includes(url));
    if (urls.length === 0) throw new ApiError('URL_INVALID', { url: invalid[0]!, expected_format: 'an absolute http:// or https:// URL' });
    const { id } = await this.deps.batches.start(caller, urls.map((url) => plan.request(url)));
    return { body: { success: true, id, url: statusUrl(id), ...(invalid.length > 0 ? { invalidURLs: invalid } : {}) }, warnings };
  }

  async batchStatus(principal: Principal, id: string): Promise<FirecrawlJobStatus> {
    const batch = await this.deps.batches.get(principal, id);
    const done = batch.pages.filter((p) => p.state === 'completed');
    const data = done.map((p) => firecrawlDocument(p.url, formatsOf(p.request!), p.result!, `${id}-${batch.pages.indexOf(p)}`));
    return {
      success: true,
      status: batch.pages.some((p) => p.state === 'pending') ? 'scraping' : 'completed',
      completed: done.length,
      total: batch.pages.length,
      expiresAt: batch.expiresAt.toISOString(),
      next: null,
      data,
    };
  }

  async batchErrors(principal: Principal, id: string): Promise<FirecrawlJobErrors> {
    const batch = await this.deps.batches.get(principal, id);
    return {
      errors: batch.pages.flatMap((p, i) => (p.state === 'failed' && p.error ? [{ id: `${id}-${i}`, url: p.url, error: `${p.error.code}: ${p.error.message}`, code: p.error.code }] : [])),
      robotsBlocked: [],
    };
  }

  async startCrawl(caller: Caller, body: FirecrawlCrawlBody, statusUrl: (id: string) => string): Promise<CompatAnswer<{ success: true; id: string; url: string }>> {
    const { request, warnings } = crawlRequest(body);
    const crawl = await this.deps.crawls.start(caller, request);
    return { body: { success: true, id: crawl.crawl_id, url: statusUrl(crawl.crawl_id) }, warnings };
  }

  async crawlStatus(principal: Principal, id: string, skip: number, pageUrl: (skip: number) => string): Promise<FirecrawlJobStatus> {
    const view = await this.deps.crawls.get(principal, id);
    const pages = await this.deps.crawls.indexedPages(principal, id, skip, CRAWL_PAGE_SIZE + 1);
    const shown = pages.slice(0, CRAWL_PAGE_SIZE);
    const stored = await this.deps.documents.byUrls(principal.mode, shown.map((p) => p.finalUrl));
    const data = shown.map((p, i): FirecrawlDocument => {
      const document = stored.get(p.finalUrl);
      return {
        // The index keeps a page's text, not its markup: the crawl's markdown is that text.
        markdown: document?.text ?? '',
        metadata: {
          ...(document?.title ? { title: document.title } : {}),
          ...(document?.language ? { language: document.language } : {}),
          ...(document?.author ? { author: document.author } : {}),
          ...(document?.publishedAt ? { publishedTime: document.publishedAt.toISOString() } : {}),
          sourceURL: p.url,
          url: p.finalUrl,
          statusCode: p.httpStatus ?? 200,
          scrapeId: `${id}-${skip + i}`,
        },
      };
    });
    return {
      success: true,
      status: crawlStatusOf(view),
      completed: view.pages.indexed,
      total: view.pages.discovered,
      next: pages.length > CRAWL_PAGE_SIZE ? pageUrl(skip + CRAWL_PAGE_SIZE) : null,
      data,
    };
  }

  async cancelCrawl(principal: Principal, id: string): Promise<{ success: true; status: string }> {
    return { success: true, status: crawlStatusOf(await this.deps.crawls.cancel(principal, id)) };
  }

  async crawlErrors(principal: Principal, id: string): Promise<FirecrawlJobErrors> {
    const view = await this.deps.crawls.get(principal, id);
    return {
      errors: view.failures.map((f, i) => ({ id: `${id}-${i}`, url: f.url, error: `${f.code}: ${f.reason ?? ''}`, code: f.code })),
      robotsBlocked: [],
    };
  }

  async map(caller: Caller, body: FirecrawlMapBody, arrivedAt: number): Promise<CompatAnswer<{ success: true; links: Array<{ url: string }> }>> {
    const warnings = ['location', 'threatProtection', 'auditMetadata'].filter((o) => body[o] !== undefined).map((o) => ignored(o, 'not offered'));
    const urls = await this.deps.extract.map(caller, {
      url: body.url,
      sitemap: body.sitemap ?? 'include',
      includeSubdomains: body.includeSubdomains ?? true,
      ignoreQueryParameters: body.ignoreQueryParameters ?? true,
      ...(body.search ? { search: body.search } : {}),
      limit: body.limit ?? DEFAULT_MAP_LIMIT,
      timeoutMs: body.timeout ?? DEFAULT_MAP_TIMEOUT_MS,
    }, arrivedAt);
    return { body: { success: true, links: urls.map((url) => ({ url })) }, warnings };
  }

  async search(caller: Caller, body: FirecrawlSearchBody, arrivedAt: number): Promise<CompatAnswer<{ success: true; data: { web: FirecrawlDocument[] | Array<Record<string, unknown>> }; warning?: string }>> {
    const { request, warnings } = searchRequest(body);
    let sources = [] as NonNullable<ReturnType<typeof searchResultOf>['sources']>;
    try {
      sources = searchResultOf(await this.deps.search.search(caller, request, arrivedAt)).sources ?? [];
    } catch (error) {
      // A search that finds nothing is no results, not an error.
      if (!(error instanceof ApiError && error.code === 'NO_RESULTS_FOUND')) throw error;
    }
    const results = sources.map((s, i) => ({ url: s.url, title: s.title, description: s.snippet, position: i + 1 }));
    const formats = body.scrapeOptions?.formats;
    if (!formats || formats.length === 0) return withWarning({ success: true, data: { web: results } }, warnings);

    // Each result scraped as /v2/scrape would: a page that cannot be read says why in its metadata.
    const plan = scrapePlan(body.scrapeOptions!, 'scrapeOptions.');
    warnings.push(...plan.warnings);
    const scraped = await Promise.all(results.map(async (result, i) => {
      try {
        const document = await this.document(partOf(caller, i), result.url, plan.formats, plan.request(result.url), arrivedAt);
        return { ...result, ...document };
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        return { ...result, metadata: { sourceURL: result.url, url: result.url, error: `${error.code}: ${error.message}` } };
      }
    }));
    return withWarning({ success: true, data: { web: scraped } }, warnings);
  }

  /** One page in the formats asked: a second rendering (html beside markdown) is served from the stored extraction. */
  private async document(caller: Caller, url: string, formats: ReturnType<typeof scrapePlan>['formats'], request: ReturnType<ReturnType<typeof scrapePlan>['request']>, arrivedAt: number): Promise<FirecrawlDocument> {
    const page = await this.deps.extract.extract(caller, request, arrivedAt);
    let html: string | undefined;
    if (formats.includes('markdown') && formats.includes('html')) {
      const rendered = await this.deps.extract.extract(partOf(caller, 1000), {
        ...request, format: 'html', extract_links: false, raw_html: false, options: { ...request.options, max_age: secondRenderingMaxAge(page) },
      }, arrivedAt);
      html = rendered.content as string;
    }
    return firecrawlDocument(url, formats, page, caller.requestId, html);
  }
}

function withWarning<T extends object>(body: T, warnings: string[]): CompatAnswer<T & { warning?: string }> {
  return { body: warnings.length > 0 ? { ...body, warning: warnings.join('; ') } : body, warnings };
}

function crawlStatusOf(view: CrawlView): FirecrawlJobStatus['status'] {
  if (view.state === 'queued' || view.state === 'running') return 'scraping';
  return view.state;
}

/** Firecrawl's crawl parameters as a native crawl, with what was accepted but not honoured. */
export function crawlRequest(body: FirecrawlCrawlBody): { request: CrawlRequest; warnings: string[] } {
  for (const [option, reason] of Object.entries(CRAWL_REFUSED)) {
    const value = body[option];
    if (value !== undefined && value !== false && value !== null) throw unsupported(option, reason, value);
  }
  if (body.sitemap === 'only') throw unsupported('sitemap', 'a crawl follows links; map gives the sitemaps\' URLs', 'only');
  const scrape = body.scrapeOptions ?? {};
  for (const option of ['includeTags', 'excludeTags'] as const) {
    if ((scrape[option]?.length ?? 0) > 0) throw unsupported(`scrapeOptions.${option}`, 'crawls index each page\'s main content, not selected parts', scrape[option]);
  }
  const plan = scrapePlan(scrape, 'scrapeOptions.');
  if (plan.formats.some((f) => f !== 'markdown')) throw unsupported('scrapeOptions.formats', 'crawled pages are kept as indexed text: markdown only', plan.formats.join(', '));
  const warnings = [
    ...plan.warnings,
    ...Object.entries(CRAWL_IGNORED).filter(([option]) => body[option] !== undefined).map(([option, reason]) => ignored(option, reason)),
    'markdown is the page\'s text as indexed, without markup',
  ];
  if (scrape.onlyMainContent === false) warnings.push(ignored('scrapeOptions.onlyMainContent', 'crawls index the main content'));
  if (body.allowSubdomains === false) warnings.push(ignored('allowSubdomains', 'subdomains of the start URL\'s domain are always followed'));

  const fullUrl = body.regexOnFullURL === true;
  const include = (body.includePaths ?? []).map((p) => pathPattern(p, fullUrl, 'includePaths'));
  const exclude = (body.excludePaths ?? []).map((p) => pathPattern(p, fullUrl, 'excludePaths'));
  const start = new URL(body.url);
  // Firecrawl crawls only below the start URL's path unless told to take the whole domain.
  if (body.crawlEntireDomain !== true && include.length === 0 && start.pathname !== '/') {
    include.push(`${start.pathname.replace(/[^/]*$/, '')}*`);
  }
  return {
    warnings,
    request: {
      urls: [body.url],
      max_pages: body.limit ?? 10_000,
      max_depth: body.maxDiscoveryDepth ?? 20,
      include,
      exclude,
      same_domain: body.allowExternalLinks !== true,
      sitemaps: body.sitemap !== 'skip',
      max_duration: 3600,
    },
  };
}

/** Firecrawl's search parameters as a SearchRequest, with what was accepted but not honoured. */
export function searchRequest(body: FirecrawlSearchBody): { request: SearchRequest; warnings: string[] } {
  for (const option of ['domainTools', 'toolDetail']) {
    if (body[option] !== undefined && body[option] !== false) throw unsupported(option, 'no tool discovery', body[option]);
  }
  let recency: Recency | undefined;
  if (body.tbs !== undefined) {
    recency = TBS_RECENCY[body.tbs];
    if (!recency) throw unsupported('tbs', 'only qdr:d, qdr:w, qdr:m and qdr:y', body.tbs);
  }
  const warnings = Object.entries(SEARCH_IGNORED).filter(([option]) => body[option] !== undefined).map(([option, reason]) => ignored(option, reason));
  const others = (body.sources ?? []).map((s) => (typeof s === 'string' ? s : s.type ?? '')).filter((s) => s !== 'web');
  if (others.length > 0) warnings.push(ignored(`sources ${others.join(', ')}`, 'only web results are found'));
  const limit = body.limit ?? DEFAULT_SEARCH_LIMIT;
  if (limit > MAX_RESULTS) warnings.push(`limit ${limit} lowered to ${MAX_RESULTS}, the most a search returns`);
  const domainFilter = {
    ...(body.includeDomains?.length ? { include: body.includeDomains } : {}),
    ...(body.excludeDomains?.length ? { exclude: body.excludeDomains } : {}),
  };
  return {
    warnings,
    request: {
      query: body.query,
      max_results: Math.min(MAX_RESULTS, limit),
      ...(body.country ? { country: body.country.toUpperCase() } : {}),
      ...(recency ? { recency } : {}),
      format: 'text',
      include_sources: true,
      ...(Object.keys(domainFilter).length > 0 ? { domain_filter: domainFilter } : {}),
      options: { enable_cache: true, timeout: body.timeout === undefined ? 15 : Math.min(60, Math.max(1, Math.ceil(body.timeout / 1000))), deep_search: false },
    },
  };
}
