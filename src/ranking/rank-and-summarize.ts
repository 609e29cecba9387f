import { extractiveSummary, type SummarySentence } from '../summary/extractive-summary.js';
import { rankSources, type RankedSource, type RankSourcesInput } from './rank-sources.js';

export interface RankAndSummarizeInput extends RankSourcesInput {
  summary: {
    /** Sentences the summary holds at most. */
    maxSentences: number;
    /** Each ranked source's best passages the summary draws on. */
    passages: number;
  };
}

export interface RankAndSummarizeOutput {
  ranked: RankedSource[];
  /** The extractive summary of the ranked sources, [n] citing ranked[n - 1]. */
  summary: SummarySentence[];
}

/**
 * Pool task: rankSources, then the extractive summary of what it returned, in one task. The
 * summary reads the best passages whose snippets the ranking has just written, sentence by
 * sentence (analysedSentences remembers them), and the candidates' text crosses to the
 * thread once instead of twice.
 */
export function rankAndSummarize(input: RankAndSummarizeInput): RankAndSummarizeOutput {
  const ranked = rankSources(input);
  const summary = extractiveSummary({
    query: input.query,
    language: input.language,
    sources: ranked.map((r, i) => ({ n: i + 1, passages: r.passages.slice(0, input.summary.passages).map((p) => input.candidates[r.candidate]!.passages[p]!.text) })),
    maxSentences: input.summary.maxSentences,
  });
  return { ranked, summary };
}
