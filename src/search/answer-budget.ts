/**
 * `max_tokens` of search and summarize answers: what an answer cut to its budget reports, and
 * how a summary counts (src/text/tokens.ts).
 */
import { countTokens } from '../text/tokens.js';
import type { CitedSentence } from './summarizer/citations.js';
import { renderCited } from './summarizer/citations.js';
import { renderSummary, type SummaryFormat } from './summary-format.js';

/** What an answer cut to a budget reports (metadata.budget). */
export interface BudgetReport {
  /** The request's max_tokens. */
  max_tokens: number;
  /** The answer's count as returned. */
  tokens: number;
  /** How much the whole answer would have counted more: what was left out. */
  omitted_tokens: number;
}

/**
 * The count of a summary as the client reads it: the rendered text, whose Markdown and HTML
 * citations carry the sources' URLs; in format json, its sentences with their citations as
 * [n] (the numbers the client reads beside them).
 */
export function summaryTokens(sentences: readonly CitedSentence[], format: SummaryFormat, sources: readonly { url: string }[]): number {
  if (sentences.length === 0) return 0;
  return countTokens(format === 'json' ? renderCited(sentences) : renderSummary(sentences, format, sources) as string);
}
