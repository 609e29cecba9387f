/**
 * One summary, as a worker runs it: the pages read as extraction reads them (or the text as
 * sent), the extractive summary of the same summarizer as search (pool task extractiveSummary),
 * or with method abstractive the configured chat-completions model under the same citation
 * rule, the extractive summary standing when the model is off, fails or breaks the rule; then
 * cut to max_tokens and rendered. Citation [n] points at sources[n-1]: the readable sources in
 * the request's order.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import { ApiError } from '../errors/catalogue.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { CpuPool } from '../pool/pool.js';
import { MAIN_TEXT, readPage } from '../page/read-page.js';
import { insufficientSources, readFailure, type ReadFailure } from '../page/read-failure.js';
import { splitPassages } from '../text/passages.js';
import { countWords } from '../html/metadata/word-count.js';
import { countTokens, longestWithin } from '../text/tokens.js';
import type { Summarizer } from '../search/summarizer/chat-completions.js';
import type { CitedSentence } from '../search/summarizer/citations.js';
import { renderSummary } from '../search/summary-format.js';
import { summaryTokens } from '../search/answer-budget.js';
import type { AbstractiveFallback, SummarizeJob, SummarizeRequest, SummarizeResult, SummarizeSource } from './types.js';

export interface SummarizeDeps {
  config: Config;
  pool: CpuPool;
  fetchLimit: LimitFunction;
  metrics: Metrics;
  logger: Logger;
  summarizer: Summarizer | undefined;
}

/** Sentences of a summary when the request sets neither max_sentences nor max_words. */
export const DEFAULT_SENTENCES = 5;
/** Pages of one request read at once. */
const PAGES_PARALLEL = 5;
/** Share of the time limit kept for the summary once reading is cut off (at most 2 s). */
const RESERVE_SHARE = 0.25;
const MAX_RESERVE_MS = 2000;
/** Characters of all sources together that the model reads, shared equally among them. */
const MODEL_CHARS = 12_000;

/** A readable source: numbered as the summary cites it. */
interface Source {
  n: number;
  url?: string;
  title: string;
  language: string | null;
  passages: string[];
  words: number;
}

export async function runSummarize(deps: SummarizeDeps, job: SummarizeJob): Promise<SummarizeResult> {
  const started = Date.now();
  const { request } = job;
  const timedOut = () => new ApiError('EXTRACT_TIMEOUT', { timeout_seconds: request.options.timeout });
  if (started >= job.deadline) throw timedOut();
  const reserve = Math.min(MAX_RESERVE_MS, request.options.timeout * 1000 * RESERVE_SHARE);

  const { sources, failed } = request.text !== undefined
    ? { sources: [textSource(request.text, request.title)], failed: [] }
    : await readSources(deps, request, signalAt(job.deadline - reserve));
  if (sources.length === 0) throw insufficientSources(failed, 'No source to summarise.');
  if (sources.every((s) => s.passages.length === 0)) throw new ApiError('EXTRACTION_FAILED', { reason: 'no text to summarise' });

  const limits = { sentences: request.max_sentences ?? (request.max_words === undefined ? DEFAULT_SENTENCES : undefined), words: request.max_words };
  const language = sources.find((s) => s.language)?.language ?? null;
  const extractive = await extractiveSummary(deps, sources, request.query, language, limits);
  let sentences = extractive.sentences;
  let method: 'extractive' | 'abstractive' = 'extractive';
  let fallback: AbstractiveFallback | undefined;
  if (request.method === 'abstractive') {
    const abstractive = await abstractiveSummary(deps, sources, request.query, language, limits, signalAt(job.deadline - Math.min(reserve, 250)));
    if (abstractive.ok) {
      sentences = abstractive.sentences;
      method = 'abstractive';
    } else {
      fallback = abstractive.reason;
    }
  }

  const cite = request.include_sources;
  const shown = cite ? sentences : sentences.map((s) => ({ text: s.text, citations: [] }));
  let kept = shown;
  let budget: SummarizeResult['budget'];
  if (request.max_tokens !== undefined) {
    const tokensOf = (k: number) => answerTokens(shown.slice(0, k), sources, cite, k < shown.length, request.format);
    const full = tokensOf(shown.length);
    kept = shown.slice(0, full <= request.max_tokens ? shown.length : longestWithin(shown.length, tokensOf, request.max_tokens));
    const tokens = tokensOf(kept.length);
    budget = { max_tokens: request.max_tokens, tokens, omitted_tokens: full - tokens };
  }
  const listed = listedSources(kept, sources, cite, kept.length < shown.length);
  return {
    summary: renderSummary(kept, request.format, listed.map((s) => ({ url: s.url ?? '' }))),
    ...(cite ? { sources: listed } : {}),
    ...(budget ? { truncated: kept.length < shown.length, budget } : {}),
    metadata: {
      summary_method: method,
      processing_time: (Date.now() - started) / 1000,
      word_count: { sources: sources.reduce((sum, s) => sum + s.words, 0), summary: kept.reduce((sum, s) => sum + countWords(s.text, language), 0) },
      sources_read: sources.length,
      sources_failed: failed,
      ...(request.query !== undefined ? { query_matched: extractive.queryMatched } : {}),
      ...(fallback ? { abstractive_fallback: fallback } : {}),
    },
  };
}

/**
 * The sources an answer lists: every readable source, each with the summary's sentences that
 * cite it; in an answer cut to its budget, only up to the last source a kept sentence cites.
 */
function listedSources(sentences: readonly CitedSentence[], sources: readonly Source[], cite: boolean, cut: boolean): SummarizeSource[] {
  if (!cite) return [];
  const last = cut ? Math.max(0, ...sentences.flatMap((s) => s.citations)) : sources.length;
  return sources.slice(0, last).map((source) => ({
    ...(source.url !== undefined ? { url: source.url } : {}),
    title: source.title,
    sentences: sentences.filter((s) => s.citations.includes(source.n)).map((s) => s.text),
  }));
}

/** The count of an answer (docs/summarize.md, Budgets): the summary as rendered, and each listed source's URL, title and sentences. */
function answerTokens(sentences: readonly CitedSentence[], sources: readonly Source[], cite: boolean, cut: boolean, format: SummarizeRequest['format']): number {
  const listed = listedSources(sentences, sources, cite, cut);
  return summaryTokens(sentences, format, listed.map((s) => ({ url: s.url ?? '' })))
    + listed.reduce((sum, s) => sum + countTokens(s.url ?? '') + countTokens(s.title) + s.sentences.reduce((n, text) => n + countTokens(text), 0), 0);
}

async function extractiveSummary(
  deps: SummarizeDeps, sources: readonly Source[], query: string | undefined, language: string | null, limits: { sentences?: number | undefined; words?: number | undefined },
): Promise<{ sentences: CitedSentence[]; queryMatched: boolean }> {
  const run = (focus: string) => deps.pool.run('extractiveSummary', {
    query: focus, language, sources: sources.map((s) => ({ n: s.n, passages: s.passages })),
    maxSentences: limits.sentences ?? Number.MAX_SAFE_INTEGER, ...(limits.words !== undefined ? { maxWords: limits.words } : {}),
  });
  let sentences = query !== undefined ? await run(query) : [];
  const queryMatched = sentences.length > 0;
  // Nothing spoke to the query: the summary says what the sources are about, and says so.
  if (sentences.length === 0) sentences = await run('');
  if (sentences.length === 0) {
    throw new ApiError('EXTRACTION_FAILED', {
      reason: limits.words !== undefined && (await deps.pool.run('extractiveSummary', {
        query: '', language, sources: sources.map((s) => ({ n: s.n, passages: s.passages })), maxSentences: 1,
      })).length > 0
        ? `no sentence fits within max_words (${limits.words})`
        : 'no sentence to summarise: the text has no sentence of 25 to 400 characters with four words or more that carry meaning',
    });
  }
  return { sentences, queryMatched };
}

type Abstractive = { ok: true; sentences: CitedSentence[] } | { ok: false; reason: AbstractiveFallback };

async function abstractiveSummary(
  deps: SummarizeDeps, sources: readonly Source[], query: string | undefined, language: string | null,
  limits: { sentences?: number | undefined; words?: number | undefined }, signal: AbortSignal,
): Promise<Abstractive> {
  if (!deps.summarizer) return { ok: false, reason: 'not_configured' };
  const share = Math.floor(MODEL_CHARS / sources.length);
  const outcome = await deps.summarizer.summarize({
    ...(query !== undefined ? { query } : {}),
    length: { ...(limits.sentences !== undefined ? { sentences: limits.sentences } : {}), ...(limits.words !== undefined ? { words: limits.words } : {}) },
    passages: sources.map((s) => ({ n: s.n, title: s.title, url: s.url ?? '', text: leading(s.passages, share) })),
    ...(language ? { language } : {}),
    signal,
  });
  if (!outcome.ok) {
    deps.logger.info({ reason: outcome.reason, detail: outcome.detail }, 'abstractive summary unavailable: extractive summary returned');
    return { ok: false, reason: outcome.reason };
  }
  // The model was asked to keep to the limits; what it wrote past them is cut at a sentence.
  let words = 0;
  const sentences: CitedSentence[] = [];
  for (const sentence of outcome.sentences) {
    words += countWords(sentence.text, language);
    if ((limits.sentences !== undefined && sentences.length >= limits.sentences) || (limits.words !== undefined && words > limits.words)) break;
    sentences.push(sentence);
  }
  return sentences.length > 0 ? { ok: true, sentences } : { ok: false, reason: 'too_long' };
}

/** The passages from the first, as many whole ones as `chars` holds (at least the first, cut at a word). */
function leading(passages: readonly string[], chars: number): string {
  let text = '';
  for (const passage of passages) {
    if (text.length + passage.length + 1 > chars) break;
    text = text ? `${text}\n${passage}` : passage;
  }
  if (text === '' && passages[0]) text = passages[0].slice(0, chars).replace(/\s+\S*$/, '');
  return text;
}

function textSource(text: string, title: string | undefined): Source {
  return { n: 1, title: title ?? '', language: null, passages: splitPassages(text, null), words: countWords(text) };
}

/** The requested pages, read in parallel; a page that cannot be read is reported, and the others summarised. */
async function readSources(deps: SummarizeDeps, request: SummarizeRequest, signal: AbortSignal): Promise<{ sources: Source[]; failed: ReadFailure[] }> {
  const parallel = pLimit(PAGES_PARALLEL);
  const urls = request.urls ?? [];
  const reads = await Promise.all(urls.map((url) => parallel(async () => {
    try {
      const { cleaned } = await readPage(deps, url, {
        timeoutMs: request.options.timeout * 1000, respectRobots: request.options.respect_robots ?? deps.config.fetch.respectRobots, signal, ...MAIN_TEXT,
      });
      const meta = cleaned.metadata;
      return { url, title: meta.title ?? url, language: meta.language, passages: splitPassages(cleaned.text, meta.language), words: meta.wordCount };
    } catch (error) {
      return signal.aborted ? { source: url, code: 'EXTRACT_TIMEOUT' as const, reason: 'not read before the time limit' } : readFailure(url, error);
    }
  })));
  const sources: Source[] = [];
  const failed: ReadFailure[] = [];
  for (const read of reads) {
    if ('code' in read) failed.push(read);
    else sources.push({ n: sources.length + 1, ...read });
  }
  return { sources, failed };
}

/** A signal that aborts at `epochMs` (at once when that has passed). */
function signalAt(epochMs: number): AbortSignal {
  return AbortSignal.timeout(Math.max(0, Math.floor(epochMs - Date.now())));
}
