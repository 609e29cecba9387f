/**
 * One search, as a worker runs it: candidates from the index and the upstream engine (in
 * parallel), ranked in the pool; with deep_search the best pages are read live and everything
 * is ranked again on their full text; then the cited summary. The request's deadline bounds it
 * all: optional sources (the engine, live pages, the model) are cut off early enough to leave
 * time for ranking and the summary, and the search answers with what it has.
 */
import type { LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import { ApiError } from '../errors/catalogue.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { CpuPool } from '../pool/pool.js';
import type { Mode } from '../mode.js';
import type { DocumentIndex } from '../index/types.js';
import { indexCandidates } from './index-candidates.js';
import { upstreamCandidates } from './upstream-candidates.js';
import { readLivePages } from './deep-search.js';
import { composeSummary } from './compose-summary.js';
import { RECENCY_MS } from './upstream/result-filters.js';
import type { SearxngClient } from './upstream/searxng.js';
import type { Summarizer } from './summarizer/chat-completions.js';
import type { SearchJob, SearchResult, SearchSource } from './types.js';
import type { RankedSource, RankSourcesInput, SourceCandidate } from '../ranking/rank-sources.js';

export interface SearchDeps {
  config: Config;
  pool: CpuPool;
  index: DocumentIndex;
  fetchLimit: LimitFunction;
  metrics: Metrics;
  logger: Logger;
  searxng: SearxngClient | undefined;
  summarizer: Summarizer | undefined;
}

/** Index documents ranked per search: more than the 20 a response may list, so the domain cap and merges still leave enough (the ranking was tuned on this many). */
const CANDIDATE_DOCUMENTS = 30;
/** Summary length in sentences; deep search has whole pages to draw on. */
const SUMMARY_SENTENCES = 5;
const DEEP_SUMMARY_SENTENCES = 8;
/** Share of the time limit kept for ranking and the summary once optional sources are cut off (at most 2 s). */
const RESERVE_SHARE = 0.25;
const MAX_RESERVE_MS = 2000;

export async function runSearch(deps: SearchDeps, mode: Mode, job: SearchJob): Promise<SearchResult> {
  const started = Date.now();
  const { request } = job;
  const timedOut = () => new ApiError('SEARCH_TIMEOUT', { timeout_seconds: request.options.timeout });
  // Nobody waits for an answer past the deadline (the job sat in the queue too long).
  if (started >= job.deadline) throw timedOut();
  const reserve = Math.min(MAX_RESERVE_MS, request.options.timeout * 1000 * RESERVE_SHARE);
  const optional = signalAt(job.deadline - reserve);
  const now = new Date(started);

  const [weights, indexed, upstream] = await Promise.all([
    deps.index.queryWeights(mode, request.query, request.language),
    indexCandidates(deps.index, mode, request.query, {
      documents: CANDIDATE_DOCUMENTS,
      ...(request.language ? { language: request.language } : {}),
      ...(request.domain_filter ? { domains: request.domain_filter } : {}),
      ...(request.recency ? { publishedAfter: new Date(started - RECENCY_MS[request.recency]) } : {}),
    }),
    upstreamCandidates(deps.searxng, request, optional, now),
  ]);
  let candidates: SourceCandidate[] = [...indexed, ...upstream.candidates];
  const rankInput: Omit<RankSourcesInput, 'candidates' | 'limit'> = {
    query: request.query,
    language: weights.language,
    termWeights: weights.termWeights,
    avgPassageLength: weights.avgPassageLength,
    avgDocumentLength: weights.avgDocumentLength,
    now: started,
    recency: request.recency ?? null,
    country: request.country?.toUpperCase() ?? null,
    authority: [...deps.config.search.authority],
    maxPerDomain: deps.config.search.maxPerDomain,
  };
  const deep = request.options.deep_search;
  let ranked = await deps.pool.run('rankSources', { ...rankInput, candidates, limit: deep ? Math.max(request.max_results, deps.config.search.deepPages) : request.max_results });

  let deepReport: SearchResult['metadata']['deep_search'];
  if (deep && ranked.length > 0 && !optional.aborted) {
    const toRead = ranked.slice(0, deps.config.search.deepPages).map((r) => ({ index: r.candidate, candidate: candidates[r.candidate]! }));
    const live = await readLivePages(deps, toRead, optional);
    deepReport = { pages_fetched: toRead.length - live.failed, pages_failed: live.failed };
    if (live.pages.length > 0) {
      candidates = [...candidates];
      for (const { candidate, page } of live.pages) candidates[candidate] = page;
      ranked = await deps.pool.run('rankSources', { ...rankInput, candidates, limit: request.max_results });
    }
  }
  ranked = ranked.slice(0, request.max_results);
  if (ranked.length === 0) throw upstream.cut ? timedOut() : new ApiError('NO_RESULTS_FOUND');

  const summary = await composeSummary(deps, ranked.map((r, i) => summarySource(r, i + 1, candidates[r.candidate]!)), {
    query: request.query,
    language: weights.language,
    format: request.format,
    maxSentences: deep ? DEEP_SUMMARY_SENTENCES : SUMMARY_SENTENCES,
    citeSources: request.include_sources,
    signal: signalAt(job.deadline - Math.min(reserve, 250)),
  });
  return {
    summary: summary.summary,
    ...(request.include_sources ? { sources: ranked.map((r) => source(r, candidates[r.candidate]!)) } : {}),
    metadata: {
      query_time: (Date.now() - started) / 1000,
      sources_analyzed: candidates.length,
      confidence_score: round(summary.confidence),
      summary_method: summary.method,
      ...(deepReport ? { deep_search: deepReport } : {}),
    },
  };
}

function summarySource(ranked: RankedSource, n: number, candidate: SourceCandidate) {
  return {
    n, url: candidate.url, title: candidate.title, snippet: ranked.snippet, confidence: ranked.confidence,
    passages: ranked.passages.map((p) => candidate.passages[p]!.text),
  };
}

function source(ranked: RankedSource, candidate: SourceCandidate): SearchSource {
  return {
    url: candidate.url,
    title: candidate.title,
    snippet: ranked.snippet,
    confidence: round(ranked.confidence),
    ...(candidate.publishedAt !== null ? { published_date: new Date(candidate.publishedAt).toISOString() } : {}),
    domain: candidate.domain,
  };
}

/** A signal that aborts at `epochMs` (at once when that has passed). */
function signalAt(epochMs: number): AbortSignal {
  return AbortSignal.timeout(Math.max(0, Math.floor(epochMs - Date.now())));
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
