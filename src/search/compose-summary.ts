/**
 * The summary of a search: extractive always (pool task extractiveSummary, or rankAndSummarize with the ranking; fast and certain),
 * abstractive when a chat-completions endpoint is configured and answers in time with at least
 * one sentence that obeys the citation rule; otherwise the extractive one stands. Both cite
 * [n] = sources[n - 1] of the same response. The caller renders it (summary-format.ts).
 */
import type { Logger } from '../log/logger.js';
import type { CpuPool } from '../pool/pool.js';
import type { Summarizer } from './summarizer/chat-completions.js';
import type { CitedSentence } from './summarizer/citations.js';

export interface SummarySource {
  /** Its number in the response: [n] cites it. */
  n: number;
  url: string;
  title: string;
  snippet: string;
  confidence: number;
  /** The passages the summary may draw on, best first. */
  passages: string[];
}

export interface ComposedSummary {
  /** Each citing sources by their n; rendered by the caller once the answer is fitted to its budget. */
  sentences: readonly CitedSentence[];
  method: 'extractive' | 'abstractive';
  /** Average, over the summary's sentences, of the confidence of the best source each cites. */
  confidence: number;
}

export interface SummaryOptions {
  query: string;
  language: string | null;
  maxSentences: number;
  /** Ends the abstractive attempt (the search's deadline). */
  signal: AbortSignal;
  /** The extractive summary of these sources when the ranking's pool task wrote it already (rankAndSummarize); otherwise it is written here. */
  extractive?: readonly CitedSentence[];
}

/** Characters of each source the model reads: its best passages, cut at this length. */
const MODEL_PASSAGE_CHARS = 1500;

export async function composeSummary(
  deps: { pool: CpuPool; summarizer: Summarizer | undefined; logger: Logger },
  sources: readonly SummarySource[],
  options: SummaryOptions,
): Promise<ComposedSummary> {
  let sentences: readonly CitedSentence[] = options.extractive ?? await deps.pool.run('extractiveSummary', {
    query: options.query,
    language: options.language,
    sources: sources.map((s) => ({ n: s.n, passages: s.passages })),
    maxSentences: options.maxSentences,
  });
  let method: ComposedSummary['method'] = 'extractive';
  if (deps.summarizer && !options.signal.aborted) {
    const outcome = await deps.summarizer.summarize({
      query: options.query,
      passages: sources.map((s) => ({ n: s.n, title: s.title, url: s.url, text: s.passages.join('\n').slice(0, MODEL_PASSAGE_CHARS) })),
      ...(options.language ? { language: options.language } : {}),
      signal: options.signal,
    });
    if (outcome.ok) {
      sentences = outcome.sentences;
      method = 'abstractive';
    } else {
      deps.logger.info({ reason: outcome.reason, detail: outcome.detail }, 'abstractive summary unavailable: extractive summary returned');
    }
  }
  // No sentence spoke to the query well enough: the best source's snippet says what was found.
  if (sentences.length === 0 && sources[0]?.snippet) sentences = [{ text: sources[0].snippet, citations: [sources[0].n] }];

  const confidenceOf = new Map(sources.map((s) => [s.n, s.confidence]));
  const confidence = sentences.length === 0
    ? 0
    : sentences.reduce((sum, s) => sum + Math.max(0, ...s.citations.map((n) => confidenceOf.get(n) ?? 0)), 0) / sentences.length;
  return { sentences, method, confidence };
}
