/**
 * POST /v1/search as the route validated it (schemas/search.request.json, defaults filled) and
 * the data it answers (schemas/search.response.json, section 2.1 of the specification).
 */
import type { StructuredSummary, SummaryFormat } from './summary-format.js';
import type { Recency } from './upstream/result-filters.js';
import type { BudgetReport } from '../text/tokens.js';

export interface SearchRequest {
  query: string;
  max_results: number;
  language?: string;
  country?: string;
  recency?: Recency;
  format: SummaryFormat;
  include_sources: boolean;
  /** Budget of the answer's text (docs/api.md, Token budgets). */
  max_tokens?: number;
  /** Each source's best passages, whole, instead of a snippet. */
  chunks_per_source?: number;
  domain_filter?: { include?: string[]; exclude?: string[] };
  options: { enable_cache: boolean; timeout: number; deep_search: boolean };
}

/** What a search job carries: the request and the moment its time runs out. */
export interface SearchJob {
  request: SearchRequest;
  /** Epoch ms: past it the answer is no longer awaited (options.timeout from the request's arrival). */
  deadline: number;
}

export interface SearchSource {
  url: string;
  title: string;
  /** Absent with chunks_per_source. */
  snippet?: string;
  chunks?: string[];
  confidence: number;
  published_date?: string;
  domain: string;
}

export interface SearchResult {
  summary: string | StructuredSummary;
  sources?: SearchSource[];
  /** With max_tokens: whether the answer was cut to fit it, and its count. */
  truncated?: boolean;
  budget?: BudgetReport;
  metadata: {
    query_time: number;
    sources_analyzed: number;
    confidence_score: number;
    /** Which summarizer wrote the summary: extractive, or abstractive (the configured model). */
    summary_method: 'extractive' | 'abstractive';
    /** Pages deep search tried to read and how many of them could not be read in time. */
    deep_search?: { pages_fetched: number; pages_failed: number };
  };
}

/**
 * The parameters that change a search's answer, canonical: the cache key and the single-flight
 * key are built from them (with the normalised query), so a request that spells out a default
 * and one that leaves it out meet, and host lists in another order or case are the same list.
 * enable_cache and timeout are left out: they change whether and how long one waits, not what
 * the answer is.
 */
export function answerParameters(request: SearchRequest): Record<string, unknown> {
  const hosts = (list: string[] | undefined) => (list?.length ? [...new Set(list.map((h) => h.toLowerCase().replace(/\.$/, '')))].sort() : undefined);
  return {
    max_results: request.max_results,
    language: request.language,
    country: request.country?.toUpperCase(),
    recency: request.recency,
    format: request.format,
    include_sources: request.include_sources,
    include: hosts(request.domain_filter?.include),
    exclude: hosts(request.domain_filter?.exclude),
    deep_search: request.options.deep_search,
    max_tokens: request.max_tokens,
    chunks_per_source: request.chunks_per_source,
  };
}
