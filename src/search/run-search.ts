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
import { renderSummary, type SummaryFormat } from './summary-format.js';
import { fitSearchAnswer, summaryTokens } from './answer-budget.js';
import type { CitedSentence } from './summarizer/citations.js';
import { splitSentences } from '../text/passages.js';
import { countAll, countTokens, type BudgetReport } from '../text/tokens.js';
import type { RankedSource, RankSourcesInput, SourceCandidate } from '../ranking/rank-sources.js';
import { searchStageDone } from '../metrics/search-stages.js';

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
/** A source's best passages the summary draws on. */
const SUMMARY_PASSAGES = 3;
/** Share of the time limit kept for ranking and the summary once optional sources are cut off (at most 2 s). */
const RESERVE_SHARE = 0.25;
const MAX_RESERVE_MS = 2000;

export async function runSearch(deps: SearchDeps, mode: Mode, job: SearchJob): Promise<SearchResult> {
  searchStageDone('start');
  const started = Date.now();
  const { request } = job;
  const timedOut = () => new ApiError('SEARCH_TIMEOUT', { timeout_seconds: request.options.timeout });
  // Nobody waits for an answer past the deadline (the job sat in the queue too long).
  if (started >= job.deadline) throw timedOut();
  const reserve = Math.min(MAX_RESERVE_MS, request.options.timeout * 1000 * RESERVE_SHARE);
  const optional = signalAt(job.deadline - reserve);
  const now = new Date(started);

  const [{ weights, candidates: indexed }, upstream] = await Promise.all([
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
  const summaryShape = { maxSentences: deep ? DEEP_SUMMARY_SENTENCES : SUMMARY_SENTENCES, passages: SUMMARY_PASSAGES };
  // The last ranking brings the extractive summary of what it returns (one pool task); without
  // deep search the first ranking is the last.
  let ranking: { ranked: RankedSource[]; summary?: readonly CitedSentence[] } = deep
    ? { ranked: await deps.pool.run('rankSources', { ...rankInput, candidates, limit: Math.max(request.max_results, deps.config.search.deepPages) }) }
    : await deps.pool.run('rankAndSummarize', { ...rankInput, candidates, limit: request.max_results, summary: summaryShape });
  searchStageDone('rank sources');

  let deepReport: SearchResult['metadata']['deep_search'];
  if (deep && ranking.ranked.length > 0 && !optional.aborted) {
    const toRead = ranking.ranked.slice(0, deps.config.search.deepPages).map((r) => ({ index: r.candidate, candidate: candidates[r.candidate]! }));
    const live = await readLivePages(deps, toRead, optional);
    deepReport = { pages_fetched: toRead.length - live.failed, pages_failed: live.failed };
    if (live.pages.length > 0) {
      candidates = [...candidates];
      for (const { candidate, page } of live.pages) candidates[candidate] = page;
      ranking = await deps.pool.run('rankAndSummarize', { ...rankInput, candidates, limit: request.max_results, summary: summaryShape });
    }
  }
  const ranked = ranking.ranked.slice(0, request.max_results);
  if (ranked.length === 0) throw upstream.cut ? timedOut() : new ApiError('NO_RESULTS_FOUND');

  const summary = await composeSummary(deps, ranked.map((r, i) => summarySource(r, i + 1, candidates[r.candidate]!, summaryShape.passages)), {
    query: request.query,
    language: weights.language,
    maxSentences: summaryShape.maxSentences,
    signal: signalAt(job.deadline - Math.min(reserve, 250)),
    ...(ranking.summary ? { extractive: ranking.summary } : {}),
  });
  searchStageDone('summary');
  // Without the sources in the response, citations would point at nothing: the summary carries none.
  const sentences = request.include_sources ? summary.sentences : summary.sentences.map((s) => ({ text: s.text, citations: [] }));
  const sources = request.include_sources ? ranked.map((r) => source(r, candidates[r.candidate]!, request.chunks_per_source)) : [];
  const answer = request.max_tokens === undefined
    ? { sentences, sources }
    : withinBudget(sentences, sources, request.format, request.include_sources, request.max_tokens, weights.language);
  const result: SearchResult = {
    summary: renderSummary(answer.sentences, request.format, answer.sources),
    ...(request.include_sources ? { sources: answer.sources } : {}),
    ...('budget' in answer ? { truncated: answer.budget.omitted_tokens > 0, budget: answer.budget } : {}),
    metadata: {
      query_time: (Date.now() - started) / 1000,
      sources_analyzed: candidates.length,
      confidence_score: round(summary.confidence),
      summary_method: summary.method,
      ...(deepReport ? { deep_search: deepReport } : {}),
    },
  };
  searchStageDone('answer');
  return result;
}

/**
 * The answer cut to max_tokens (answer-budget.ts, fitSearchAnswer): nothing is cut when the
 * whole answer fits; snippets and chunks are cut at sentence bounds, and a chunk with nothing
 * left is left out.
 */
function withinBudget(
  sentences: readonly CitedSentence[], sources: readonly SearchSource[], format: SummaryFormat, citeSources: boolean, budget: number, language: string | null,
): { sentences: readonly CitedSentence[]; sources: SearchSource[]; budget: BudgetReport } {
  const full = searchAnswerTokens(sentences, format, sources);
  if (full <= budget) return { sentences, sources: [...sources], budget: { max_tokens: budget, tokens: full, omitted_tokens: 0 } };
  const texts = (s: SearchSource) => (s.chunks ?? [s.snippet ?? '']).map((text) => splitSentences(text, language));
  const fitted = fitSearchAnswer(sentences, sources.map((s) => ({ url: s.url, title: s.title, texts: texts(s) })), format, citeSources, budget);
  const kept = sources.slice(0, fitted.sources).map((s, i) => {
    const { snippet: _snippet, chunks: _chunks, ...rest } = s;
    const cut = fitted.texts[i]!.map((t) => t.join(' '));
    return s.chunks ? { ...rest, chunks: cut.filter((t) => t !== '') } : { ...rest, snippet: cut[0] ?? '' };
  });
  const tokens = searchAnswerTokens(fitted.sentences, format, kept);
  return { sentences: fitted.sentences, sources: kept, budget: { max_tokens: budget, tokens, omitted_tokens: full - tokens } };
}

/** The count of a search answer (docs/api.md, Token budgets): the summary as rendered, each source's title, URL and snippet or chunks. */
function searchAnswerTokens(sentences: readonly CitedSentence[], format: SummaryFormat, sources: readonly SearchSource[]): number {
  return summaryTokens(sentences, format, sources)
    + sources.reduce((sum, s) => sum + countTokens(s.title) + countTokens(s.url) + countAll(s.chunks ?? [s.snippet ?? '']), 0);
}

function summarySource(ranked: RankedSource, n: number, candidate: SourceCandidate, passages: number) {
  return {
    n, url: candidate.url, title: candidate.title, snippet: ranked.snippet, confidence: ranked.confidence,
    passages: ranked.passages.slice(0, passages).map((p) => candidate.passages[p]!.text),
  };
}

function source(ranked: RankedSource, candidate: SourceCandidate, chunks: number | undefined): SearchSource {
  return {
    url: candidate.url,
    title: candidate.title,
    ...(chunks === undefined ? { snippet: ranked.snippet } : { chunks: ranked.passages.slice(0, chunks).map((p) => candidate.passages[p]!.text) }),
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
