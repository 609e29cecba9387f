/**
 * Exa's search and contents (POST /compat/exa/search and /contents) on the service's own search
 * and extraction. docs/compat.md tables every parameter.
 */
import { ApiError } from '../errors/catalogue.js';
import type { Caller } from '../auth/principal.js';
import type { SearchService } from '../search/search-service.js';
import type { ExtractService } from '../extract/extract-service.js';
import type { ExtractRequest, ExtractResult } from '../extract/types.js';
import type { StoredDocuments } from '../index/stored-documents.js';
import type { SearchRequest, SearchSource } from '../search/types.js';
import type { Recency } from '../search/upstream/result-filters.js';
import { ignored, partOf, unsupported, type CompatAnswer } from './compat-answer.js';
import { highlightsOf } from './highlights.js';
import { searchResultOf } from './search-answer.js';

type TextOption = boolean | { maxCharacters?: number; includeHtmlTags?: boolean; verbosity?: string; includeSections?: string[]; excludeSections?: string[] };
type HighlightsOption = boolean | { query?: string; maxCharacters?: number; numSentences?: number; highlightsPerUrl?: number; dynamic?: boolean };

/** The contents options of both endpoints, as schemas/compat-exa-search.request.json validated them. */
export interface ExaContentsOptions {
  text?: TextOption;
  highlights?: HighlightsOption;
  summary?: boolean | object;
  livecrawl?: 'never' | 'fallback' | 'always' | 'auto' | 'preferred';
  livecrawlTimeout?: number;
  maxAgeHours?: number;
  filterEmptyResults?: boolean;
  subpages?: number;
  subpageTarget?: string | string[];
  extras?: { links?: number; imageLinks?: number };
  context?: boolean | object;
  snapshotAsOf?: string;
}

export interface ExaSearchBody {
  query: string;
  numResults: number;
  includeDomains?: string[];
  excludeDomains?: string[];
  startPublishedDate?: string;
  endPublishedDate?: string;
  startCrawlDate?: string;
  endCrawlDate?: string;
  type: string;
  category?: string;
  userLocation?: string;
  useAutoprompt?: boolean;
  moderation?: boolean;
  flags?: string[];
  includeText?: string[];
  excludeText?: string[];
  systemPrompt?: string;
  outputSchema?: object;
  additionalQueries?: string[];
  contents?: ExaContentsOptions;
}

export interface ExaContentsBody extends ExaContentsOptions {
  urls?: string[];
  ids?: string[];
}

export interface ExaResult {
  id: string;
  url: string;
  title: string | null;
  publishedDate?: string;
  author?: string;
  score?: number;
  text?: string;
  highlights?: string[];
  highlightScores?: number[];
  extras?: { links?: string[]; imageLinks?: string[] };
}

export interface ExaResponse {
  requestId: string;
  resolvedSearchType?: string;
  searchTime?: number;
  results: ExaResult[];
  statuses?: Array<{ id: string; status: 'success' | 'error'; error?: { tag: string; httpStatusCode: number | null } }>;
}

/** Results a search returns at most (the native max_results). */
const MAX_RESULTS = 20;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The periods recency knows, in days, shortest first. */
const RECENCY_DAYS: ReadonlyArray<[number, Recency]> = [[1, 'day'], [7, 'week'], [31, 'month'], [366, 'year']];
/** Characters of a highlight when the client names no limit. */
const HIGHLIGHT_CHARACTERS = 500;
/** The oldest stored copy maxAgeHours -1 accepts: what options.max_age allows. */
const MAX_AGE_LIMIT_S = 30 * 24 * 3600;
const DEFAULT_FETCH_TIMEOUT_S = 15;

export interface ExaDeps {
  search: SearchService;
  extract: ExtractService;
  documents: StoredDocuments;
}

export class ExaService {
  constructor(private readonly deps: ExaDeps) {}

  async search(caller: Caller, body: ExaSearchBody, arrivedAt: number): Promise<CompatAnswer<ExaResponse>> {
    const { request, warnings } = searchRequest(body, new Date(arrivedAt));
    let sources: SearchSource[] = [];
    try {
      sources = searchResultOf(await this.deps.search.search(caller, request, arrivedAt)).sources ?? [];
    } catch (error) {
      // Exa answers a search that finds nothing with no results, not an error.
      if (!(error instanceof ApiError && error.code === 'NO_RESULTS_FOUND')) throw error;
    }
    sources = withinDates(sources, body.startPublishedDate, body.endPublishedDate);
    const contents = body.contents ?? {};
    const stored = contents.text ? await this.deps.documents.byUrls(caller.principal.mode, sources.map((s) => s.url)) : new Map();
    const textLimit = typeof contents.text === 'object' ? contents.text.maxCharacters : undefined;
    const highlightLimit = typeof contents.highlights === 'object' ? contents.highlights.maxCharacters ?? HIGHLIGHT_CHARACTERS : HIGHLIGHT_CHARACTERS;
    const results = sources.map((s): ExaResult => {
      const document = stored.get(s.url);
      return {
        id: s.url,
        url: s.url,
        title: s.title,
        ...(s.published_date ? { publishedDate: s.published_date } : {}),
        ...(document?.author ? { author: document.author } : {}),
        score: s.confidence,
        // A result the index does not hold (an upstream engine's) has no text here.
        ...(contents.text ? { text: (document?.text ?? '').slice(0, textLimit) } : {}),
        ...(contents.highlights ? { highlights: [(s.snippet ?? '').slice(0, highlightLimit)], highlightScores: [s.confidence] } : {}),
      };
    });
    return { warnings, body: { requestId: caller.requestId, resolvedSearchType: 'keyword', searchTime: Date.now() - arrivedAt, results } };
  }

  async contents(caller: Caller, body: ExaContentsBody, arrivedAt: number): Promise<CompatAnswer<ExaResponse>> {
    const urls = body.urls ?? body.ids;
    if (!urls) throw new ApiError('INVALID_PARAMETER', { parameter: 'urls', reason: 'is required (or ids)' }, 'urls (or ids) is required.');
    const warnings = contentsWarnings(body, 'contents');
    if (body.filterEmptyResults !== undefined) warnings.push(ignored('filterEmptyResults', 'a page without content is reported in statuses'));
    const text = body.text ?? (body.highlights === undefined && body.extras === undefined ? true : undefined);
    const html = typeof text === 'object' && text.includeHtmlTags === true;
    const request = (url: string): ExtractRequest => ({
      url,
      format: html ? 'html' : 'text',
      include_metadata: true,
      extract_images: (body.extras?.imageLinks ?? 0) > 0,
      extract_links: (body.extras?.links ?? 0) > 0,
      clean_html: true,
      options: {
        timeout: body.livecrawlTimeout === undefined ? DEFAULT_FETCH_TIMEOUT_S : Math.min(60, Math.max(1, Math.ceil(body.livecrawlTimeout / 1000))),
        preserve_formatting: false,
        min_content_length: 0,
        max_age: maxAgeSeconds(body),
      },
    });
    const outcomes = await Promise.allSettled(urls.map((url, i) => this.deps.extract.extract(partOf(caller, i), request(url), arrivedAt)));
    const response: ExaResponse = { requestId: caller.requestId, results: [], statuses: [] };
    outcomes.forEach((outcome, i) => {
      const url = urls[i]!;
      if (outcome.status === 'rejected') {
        const error: unknown = outcome.reason;
        // The page's own failure is reported in statuses; the service's (an outage, a defect) fails the request.
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        response.statuses!.push({ id: url, status: 'error', error: statusError(error) });
        return;
      }
      response.statuses!.push({ id: url, status: 'success' });
      response.results.push(contentsResult(url, outcome.value, body, text));
    });
    return { body: response, warnings };
  }
}

function contentsResult(url: string, page: ExtractResult, body: ExaContentsBody, text: TextOption | undefined): ExaResult {
  const content = page.content as string;
  const meta = page.metadata ?? {};
  const result: ExaResult = {
    id: url,
    url,
    title: typeof meta.title === 'string' ? meta.title : null,
    ...(typeof meta.published_date === 'string' ? { publishedDate: meta.published_date } : {}),
    ...(typeof meta.author === 'string' ? { author: meta.author } : {}),
  };
  if (text) result.text = typeof text === 'object' ? content.slice(0, text.maxCharacters) : content;
  if (body.highlights) {
    const options = typeof body.highlights === 'object' ? body.highlights : {};
    // Highlights are drawn from the text, whatever format the text itself is returned in.
    const plain = typeof text === 'object' && text.includeHtmlTags ? content.replace(/<[^>]*>/g, ' ') : content;
    const language = typeof meta.language === 'string' ? meta.language : null;
    const found = highlightsOf(plain, options.query, language, options.highlightsPerUrl ?? 1, options.maxCharacters ?? HIGHLIGHT_CHARACTERS);
    result.highlights = found.map((h) => h.text);
    result.highlightScores = found.map((h) => h.score);
  }
  if (body.extras) {
    result.extras = {
      ...(body.extras.links ? { links: (page.links ?? []).slice(0, body.extras.links).map((l) => l.url) } : {}),
      ...(body.extras.imageLinks ? { imageLinks: (page.images ?? []).slice(0, body.extras.imageLinks).map((i) => i.url) } : {}),
    };
  }
  return result;
}

/** Exa's tag for a page that could not be read, and its HTTP status when it answered. */
function statusError(error: ApiError): { tag: string; httpStatusCode: number | null } {
  const httpStatus = typeof error.details?.http_status === 'number' ? error.details.http_status : null;
  const reason = typeof error.details?.reason === 'string' ? error.details.reason : '';
  if (error.code === 'EXTRACT_TIMEOUT' || /timed? ?out/i.test(reason)) return { tag: 'CRAWL_TIMEOUT', httpStatusCode: httpStatus };
  if (httpStatus === 404 || httpStatus === 410) return { tag: 'CRAWL_NOT_FOUND', httpStatusCode: httpStatus };
  if (error.code === 'URL_UNREACHABLE' || error.code === 'URL_INVALID') return { tag: 'SOURCE_NOT_AVAILABLE', httpStatusCode: httpStatus };
  return { tag: 'CRAWL_UNKNOWN_ERROR', httpStatusCode: httpStatus };
}

function maxAgeSeconds(body: ExaContentsOptions): number {
  if (body.livecrawl === 'always') return 0;
  if (body.maxAgeHours === undefined) return 0;
  return body.maxAgeHours < 0 ? MAX_AGE_LIMIT_S : Math.min(MAX_AGE_LIMIT_S, body.maxAgeHours * 3600);
}

/** What both endpoints refuse or ignore of the contents options. */
function contentsWarnings(contents: ExaContentsOptions, endpoint: 'search' | 'contents'): string[] {
  if (contents.summary !== undefined && contents.summary !== false) throw unsupported('summary', 'per-page summaries are not generated', contents.summary);
  if (contents.context !== undefined && contents.context !== false) throw unsupported('context', 'use text or highlights', contents.context);
  if ((contents.subpages ?? 0) > 0) throw unsupported('subpages', 'subpages are not crawled', contents.subpages);
  if (contents.subpageTarget !== undefined) throw unsupported('subpageTarget', 'subpages are not crawled', contents.subpageTarget);
  if (contents.snapshotAsOf !== undefined) throw unsupported('snapshotAsOf', 'past versions of a page are not served', contents.snapshotAsOf);
  if (typeof contents.highlights === 'object' && contents.highlights.dynamic) throw unsupported('highlights.dynamic', 'highlight budgets are per result', true);
  const warnings: string[] = [];
  if (typeof contents.text === 'object') {
    if (endpoint === 'search' && contents.text.includeHtmlTags) warnings.push(ignored('text.includeHtmlTags', 'search results carry the indexed text, which has no markup'));
    for (const field of ['verbosity', 'includeSections', 'excludeSections'] as const) {
      if (contents.text[field] !== undefined) warnings.push(ignored(`text.${field}`, 'the main content is returned'));
    }
  }
  if (typeof contents.highlights === 'object') {
    if (contents.highlights.numSentences !== undefined) warnings.push(ignored('highlights.numSentences', 'use maxCharacters'));
    if (endpoint === 'search' && contents.highlights.query !== undefined) warnings.push(ignored('highlights.query', "a search result's highlight is its best passage for the search's query"));
    if (endpoint === 'search' && contents.highlights.highlightsPerUrl !== undefined) warnings.push(ignored('highlights.highlightsPerUrl', 'a search result has one highlight'));
  }
  return warnings;
}

/** Exa's search parameters as a SearchRequest, with what was accepted but not honoured. */
export function searchRequest(body: ExaSearchBody, now: Date): { request: SearchRequest; warnings: string[] } {
  if (body.startCrawlDate !== undefined) throw unsupported('startCrawlDate', 'use startPublishedDate', body.startCrawlDate);
  if (body.endCrawlDate !== undefined) throw unsupported('endCrawlDate', 'use endPublishedDate', body.endCrawlDate);
  if (body.includeText !== undefined) throw unsupported('includeText', 'results are not filtered by phrases', body.includeText);
  if (body.excludeText !== undefined) throw unsupported('excludeText', 'results are not filtered by phrases', body.excludeText);
  if (body.systemPrompt !== undefined) throw unsupported('systemPrompt', 'no synthesized output', body.systemPrompt);
  if (body.outputSchema !== undefined) throw unsupported('outputSchema', 'no synthesized output', body.outputSchema);
  if (body.additionalQueries !== undefined) throw unsupported('additionalQueries', 'one query per search', body.additionalQueries);
  const contents = body.contents ?? {};
  if (contents.extras !== undefined) throw unsupported('contents.extras', 'links and images are given by /contents', contents.extras);
  const warnings = contentsWarnings(contents, 'search');
  for (const field of ['livecrawl', 'livecrawlTimeout', 'maxAgeHours', 'filterEmptyResults'] as const) {
    if (contents[field] !== undefined) warnings.push(ignored(`contents.${field}`, 'search results come from the index and the upstream engine'));
  }
  const deep = body.type.startsWith('deep');
  if (body.type !== 'auto') {
    warnings.push(deep ? `type ${body.type}: the best pages are read live (deep_search); no synthesized output` : ignored('type', 'every search runs the same ranking'));
  }
  if (body.category !== undefined) warnings.push(ignored('category', 'no category classifier'));
  if (body.useAutoprompt !== undefined) warnings.push(ignored('useAutoprompt', 'the query is searched as written'));
  if (body.moderation !== undefined) warnings.push(ignored('moderation', 'results are not moderated'));
  if (body.flags !== undefined) warnings.push(ignored('flags', 'no experimental flags'));
  if (body.numResults > MAX_RESULTS) warnings.push(`numResults ${body.numResults} lowered to ${MAX_RESULTS}, the most a search returns`);

  let recency: Recency | undefined;
  if (body.startPublishedDate !== undefined) {
    const days = (now.getTime() - Date.parse(body.startPublishedDate)) / DAY_MS;
    recency = RECENCY_DAYS.find(([limit]) => days <= limit)?.[1];
  }
  const domainFilter = {
    ...(body.includeDomains?.length ? { include: body.includeDomains } : {}),
    ...(body.excludeDomains?.length ? { exclude: body.excludeDomains } : {}),
  };
  return {
    warnings,
    request: {
      query: body.query,
      max_results: Math.min(MAX_RESULTS, body.numResults),
      ...(body.userLocation ? { country: body.userLocation.toUpperCase() } : {}),
      ...(recency ? { recency } : {}),
      format: 'text',
      include_sources: true,
      ...(Object.keys(domainFilter).length > 0 ? { domain_filter: domainFilter } : {}),
      options: { enable_cache: true, timeout: 15, deep_search: deep },
    },
  };
}

/**
 * The sources published within the dates: recency only narrows to a period back from now, so
 * the exact bounds are applied here, and a source whose publication date is unknown cannot be
 * shown to fall within them.
 */
function withinDates(sources: SearchSource[], start: string | undefined, end: string | undefined): SearchSource[] {
  if (start === undefined && end === undefined) return sources;
  const from = start === undefined ? -Infinity : Date.parse(start);
  const to = end === undefined ? Infinity : Date.parse(end);
  return sources.filter((s) => {
    if (!s.published_date) return false;
    const published = Date.parse(s.published_date);
    return published >= from && published <= to;
  });
}
