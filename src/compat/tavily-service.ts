/**
 * Tavily's search and extract (POST /compat/tavily/search and /extract) on the service's own
 * search and extraction: the vendor's parameters mapped onto a SearchRequest or ExtractRequests,
 * the answers reshaped into Tavily's. docs/compat.md tables every parameter.
 */
import { ApiError } from '../errors/catalogue.js';
import type { Caller } from '../auth/principal.js';
import type { SearchService } from '../search/search-service.js';
import type { ExtractService } from '../extract/extract-service.js';
import type { ExtractRequest } from '../extract/types.js';
import type { StoredDocuments } from '../index/stored-documents.js';
import type { SearchRequest } from '../search/types.js';
import type { Recency } from '../search/upstream/result-filters.js';
import { countryCode } from './country-names.js';
import { ignored, partOf, unsupported, type CompatAnswer } from './compat-answer.js';
import { searchResultOf } from './search-answer.js';

/** The body of POST /compat/tavily/search as schemas/compat-tavily-search.request.json validated it. */
export interface TavilySearchBody {
  query: string;
  search_depth: 'basic' | 'advanced' | 'fast' | 'ultra-fast';
  topic: 'general' | 'news' | 'finance';
  time_range?: 'day' | 'week' | 'month' | 'year' | 'd' | 'w' | 'm' | 'y';
  days?: number;
  start_date?: string;
  end_date?: string;
  max_hours?: number;
  max_results: number;
  include_domains?: string[];
  exclude_domains?: string[];
  include_domains_mode?: string;
  include_answer: boolean | 'basic' | 'advanced';
  include_raw_content: boolean | 'markdown' | 'text';
  include_images: boolean;
  include_image_descriptions: boolean;
  include_favicon: boolean;
  chunks_per_source?: number;
  country?: string;
  auto_parameters: boolean;
  exact_match: boolean;
  include_usage: boolean;
  language?: 'en' | 'es' | 'fr' | 'de' | 'ja' | 'zh';
  filter_by_language?: boolean;
  fetch_timeout?: number;
  cache_fallback?: boolean;
  timeout: number;
}

export interface TavilySearchResponse {
  query: string;
  answer: string | null;
  follow_up_questions: null;
  images: never[];
  results: Array<{ title: string; url: string; content: string; score: number; raw_content: string | null; published_date?: string }>;
  response_time: number;
  request_id: string;
}

/** The body of POST /compat/tavily/extract as schemas/compat-tavily-extract.request.json validated it. */
export interface TavilyExtractBody {
  urls: string | string[];
  format: 'markdown' | 'text';
  extract_depth: 'basic' | 'advanced';
  include_images: boolean;
  include_favicon: boolean;
  include_usage: boolean;
  timeout?: number;
  query?: string;
  chunks_per_source?: number;
}

export interface TavilyExtractResponse {
  results: Array<{ url: string; title?: string; raw_content: string; images: string[] }>;
  failed_results: Array<{ url: string; error: string }>;
  response_time: number;
  request_id: string;
}

const RECENCY: Readonly<Record<NonNullable<TavilySearchBody['time_range']>, Recency>> = {
  day: 'day', d: 'day', week: 'week', w: 'week', month: 'month', m: 'month', year: 'year', y: 'year',
};

/** The periods recency knows, in days, shortest first. */
const RECENCY_DAYS: ReadonlyArray<[number, Recency]> = [[1, 'day'], [7, 'week'], [31, 'month'], [366, 'year']];

/** Fetch time limit of an extraction when the client names none (POST /v1/extract's default). */
const DEFAULT_EXTRACT_TIMEOUT_S = 15;

export interface TavilyDeps {
  search: SearchService;
  extract: ExtractService;
  documents: StoredDocuments;
}

export class TavilyService {
  constructor(private readonly deps: TavilyDeps) {}

  async search(caller: Caller, body: TavilySearchBody, arrivedAt: number): Promise<CompatAnswer<TavilySearchResponse>> {
    const { request, warnings } = searchRequest(body);
    let result;
    try {
      result = searchResultOf(await this.deps.search.search(caller, request, arrivedAt));
    } catch (error) {
      // Tavily answers a search that finds nothing with no results, not an error.
      if (!(error instanceof ApiError && error.code === 'NO_RESULTS_FOUND')) throw error;
    }
    const sources = (result?.sources ?? []).slice(0, body.max_results);
    const raw = body.include_raw_content === false
      ? new Map()
      : await this.deps.documents.byUrls(caller.principal.mode, sources.map((s) => s.url));
    return {
      warnings,
      body: {
        query: body.query,
        answer: body.include_answer === false || !result || typeof result.summary !== 'string' ? null : result.summary,
        follow_up_questions: null,
        images: [],
        results: sources.map((s) => ({
          title: s.title,
          url: s.url,
          // With chunks_per_source, Tavily's content is the chunks, joined with [...].
          content: s.chunks ? s.chunks.join(' [...] ') : s.snippet ?? '',
          score: s.confidence,
          raw_content: raw.get(s.url)?.text ?? null,
          ...(s.published_date ? { published_date: s.published_date } : {}),
        })),
        response_time: seconds(arrivedAt),
        request_id: caller.requestId,
      },
    };
  }

  async extract(caller: Caller, body: TavilyExtractBody, arrivedAt: number): Promise<CompatAnswer<TavilyExtractResponse>> {
    const warnings: string[] = [];
    if (body.extract_depth === 'advanced') warnings.push(ignored('extract_depth', 'every extraction reads the page the same way'));
    if (body.include_favicon) warnings.push(ignored('include_favicon', 'no favicons are collected'));
    if (body.include_usage) warnings.push(ignored('include_usage', 'usage is reported by GET /v1/usage'));
    if (body.query !== undefined) warnings.push(ignored('query', 'raw_content is the whole main content'));
    if (body.chunks_per_source !== undefined) warnings.push(ignored('chunks_per_source', 'raw_content is the whole main content'));

    const urls = typeof body.urls === 'string' ? [body.urls] : body.urls;
    const timeout = Math.min(60, Math.max(1, Math.ceil(body.timeout ?? DEFAULT_EXTRACT_TIMEOUT_S)));
    const outcomes = await Promise.allSettled(urls.map((url, i) => this.deps.extract.extract(partOf(caller, i), extractRequest(url, body, timeout), arrivedAt)));
    const response: TavilyExtractResponse = { results: [], failed_results: [], response_time: 0, request_id: caller.requestId };
    outcomes.forEach((outcome, i) => {
      const url = urls[i]!;
      if (outcome.status === 'fulfilled') {
        const { content, metadata, images } = outcome.value;
        const title = metadata?.title;
        response.results.push({
          url, ...(typeof title === 'string' ? { title } : {}), raw_content: content as string, images: (images ?? []).map((image) => image.url),
        });
        return;
      }
      const error: unknown = outcome.reason;
      // The page's own failure is reported with the others; the service's (an outage, a defect) fails the request.
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      response.failed_results.push({ url, error: `${error.code}: ${error.message}` });
    });
    response.response_time = seconds(arrivedAt);
    return { body: response, warnings };
  }
}

/** Tavily's search parameters as a SearchRequest, with what was accepted but not honoured. */
export function searchRequest(body: TavilySearchBody): { request: SearchRequest; warnings: string[] } {
  if (body.start_date !== undefined) throw unsupported('start_date', 'only periods back from now (time_range, days)', body.start_date);
  if (body.end_date !== undefined) throw unsupported('end_date', 'only periods back from now (time_range, days)', body.end_date);
  if (body.max_hours !== undefined) throw unsupported('max_hours', 'only periods back from now in days (time_range, days)', body.max_hours);
  if (body.auto_parameters) throw unsupported('auto_parameters', 'parameters are never chosen for the caller', true);
  if (body.exact_match) throw unsupported('exact_match', 'quoted phrases are not matched exactly', true);

  const warnings: string[] = [];
  if (body.topic !== 'general') warnings.push(ignored('topic', `no ${body.topic} classifier: the results are the general ones`));
  if (body.include_images) warnings.push(ignored('include_images', 'search collects no images'));
  if (body.include_image_descriptions) warnings.push(ignored('include_image_descriptions', 'search collects no images'));
  if (body.include_favicon) warnings.push(ignored('include_favicon', 'no favicons are collected'));
  if (body.include_domains_mode !== undefined) warnings.push(ignored('include_domains_mode', 'include_domains always restricts'));
  if (body.include_usage) warnings.push(ignored('include_usage', 'usage is reported by GET /v1/usage'));
  if (body.filter_by_language !== undefined) warnings.push(ignored('filter_by_language', 'language always filters'));
  if (body.fetch_timeout !== undefined) warnings.push(ignored('fetch_timeout', 'deep search has its own page time limit'));
  if (body.cache_fallback !== undefined) warnings.push(ignored('cache_fallback', 'the result cache is always used'));
  if (body.include_raw_content === 'markdown') warnings.push('include_raw_content markdown: raw_content is the page\'s text as indexed, without markdown formatting');

  let recency: Recency | undefined = body.time_range === undefined ? undefined : RECENCY[body.time_range];
  if (recency === undefined && body.days !== undefined) {
    const [days, period] = RECENCY_DAYS.find(([limit]) => body.days! <= limit)!;
    recency = period;
    if (days !== body.days) warnings.push(`days ${body.days} widened to ${days} (recency ${period}): the periods are a day, 7, 31 and 366 days`);
  }
  let country: string | undefined;
  if (body.country !== undefined) {
    country = countryCode(body.country);
    if (country === undefined) {
      throw new ApiError('INVALID_COUNTRY', { parameter: 'country', provided: body.country, format: 'an English country name such as united states, or an ISO 3166-1 alpha-2 code' });
    }
  }
  const domainFilter = {
    ...(body.include_domains?.length ? { include: body.include_domains } : {}),
    ...(body.exclude_domains?.length ? { exclude: body.exclude_domains } : {}),
  };
  return {
    warnings,
    request: {
      query: body.query,
      // 0 asks for the answer alone: the search still needs a source to write it from.
      max_results: Math.max(1, body.max_results),
      ...(body.language ? { language: body.language } : {}),
      ...(country ? { country } : {}),
      ...(recency ? { recency } : {}),
      format: 'text',
      include_sources: true,
      ...(body.chunks_per_source !== undefined ? { chunks_per_source: body.chunks_per_source } : {}),
      ...(Object.keys(domainFilter).length > 0 ? { domain_filter: domainFilter } : {}),
      options: { enable_cache: true, timeout: body.timeout, deep_search: body.search_depth === 'advanced' },
    },
  };
}

function extractRequest(url: string, body: TavilyExtractBody, timeout: number): ExtractRequest {
  return {
    url,
    format: body.format,
    include_metadata: true,
    extract_images: body.include_images,
    extract_links: false,
    clean_html: true,
    options: { timeout, preserve_formatting: false, min_content_length: 0, max_age: 0 },
  };
}

function seconds(since: number): number {
  return Math.round(Date.now() - since) / 1000;
}
