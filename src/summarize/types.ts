/**
 * POST /v1/summarize as the route validated it (schemas/summarize.request.json, defaults
 * filled) and the data it answers (schemas/summarize.response.json).
 */
import type { ReadFailure } from '../page/read-failure.js';
import type { StructuredSummary, SummaryFormat } from '../search/summary-format.js';
import type { BudgetReport } from '../text/tokens.js';

export interface SummarizeRequest {
  /** Pages to read and summarise together (exactly one of urls and text). */
  urls?: string[];
  /** A text to summarise as it is. */
  text?: string;
  /** The text's title (with text only). */
  title?: string;
  /** What to focus the summary on. */
  query?: string;
  max_sentences?: number;
  max_words?: number;
  format: SummaryFormat;
  include_sources: boolean;
  method: 'extractive' | 'abstractive';
  max_tokens?: number;
  options: { timeout: number; respect_robots?: boolean };
}

/** What a summarize job carries: the request and the moment its time runs out. */
export interface SummarizeJob {
  request: SummarizeRequest;
  /** Epoch ms: options.timeout from the request's arrival. */
  deadline: number;
}

export interface SummarizeSource {
  /** The page's URL as requested; absent for a text. */
  url?: string;
  title: string;
  /** The summary's sentences that cite this source, without their citation marks. */
  sentences: string[];
}

/** Why an abstractive summary was asked for and the extractive one returned. */
export type AbstractiveFallback = 'not_configured' | 'timeout' | 'aborted' | 'error' | 'invalid' | 'circuit_open' | 'too_long';

export interface SummarizeResult {
  summary: string | StructuredSummary;
  sources?: SummarizeSource[];
  /** With max_tokens: whether the answer was cut to fit it, and its count. */
  truncated?: boolean;
  budget?: BudgetReport;
  metadata: {
    summary_method: 'extractive' | 'abstractive';
    /** Seconds from the request's arrival to the answer. */
    processing_time: number;
    word_count: { sources: number; summary: number };
    sources_read: number;
    /** Requested URLs that could not be read, with why (the others were summarised). */
    sources_failed: ReadFailure[];
    /** With a query: false when nothing in the sources spoke to it, and the summary is of what they say. */
    query_matched?: boolean;
    /** With method abstractive, when the extractive summary was returned instead. */
    abstractive_fallback?: AbstractiveFallback;
  };
}
