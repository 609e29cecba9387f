/**
 * `max_tokens` of search and summarize answers: which of an answer's texts are kept so that
 * their count (src/text/tokens.ts) stays within the budget. Texts are cut at sentence bounds
 * only, and sources are kept from the first: a citation [n] keeps meaning sources[n-1].
 */
import { countTokens } from '../text/tokens.js';
import type { CitedSentence } from './summarizer/citations.js';
import { renderCited } from './summarizer/citations.js';
import { renderSummary, type SummaryFormat } from './summary-format.js';

/**
 * The count of a summary as the client reads it: the rendered text, whose Markdown and HTML
 * citations carry the sources' URLs; in format json, its sentences with their citations as
 * [n] (the numbers the client reads beside them).
 */
export function summaryTokens(sentences: readonly CitedSentence[], format: SummaryFormat, sources: readonly { url: string }[]): number {
  if (sentences.length === 0) return 0;
  return countTokens(format === 'json' ? renderCited(sentences) : renderSummary(sentences, format, sources) as string);
}

/** A search source's texts: title and URL, then its snippet or chunks, each as its sentences. */
export interface SourceTexts {
  url: string;
  title: string;
  /** The snippet (one text) or the chunks, each split into sentences. */
  texts: readonly (readonly string[])[];
}

export interface FittedSearchAnswer {
  sentences: CitedSentence[];
  /** Sources kept, from the first. */
  sources: number;
  /** For each kept source, the sentences kept of each of its texts (a text may keep none). */
  texts: string[][][];
  tokens: number;
}

/**
 * A search answer within `budget`, as the documentation states it (docs/search.md, Budgets):
 * 1. sources from the first, title and URL, as many as half the budget holds;
 * 2. the summary, from its first sentence, in at most half of what remains (all of it without
 *    sources): citations of sources left out are removed, a sentence left citing none is dropped;
 * 3. the snippets or chunks in the rest, a sentence at a time, one source after the other in
 *    rank order and round again, each source's texts from its first sentence; a source whose
 *    next sentence does not fit gets no more.
 * The caller checks first whether the whole answer fits (then nothing is cut).
 */
export function fitSearchAnswer(
  sentences: readonly CitedSentence[], sources: readonly SourceTexts[], format: SummaryFormat, citeSources: boolean, budget: number,
): FittedSearchAnswer {
  const headers = sources.map((s) => countTokens(s.title) + countTokens(s.url));
  let kept = 0;
  let used = 0;
  while (citeSources && kept < sources.length && used + headers[kept]! <= budget / 2) used += headers[kept++]!;

  const citable = citeSources
    ? sentences.map((s) => ({ text: s.text, citations: s.citations.filter((n) => n <= kept) })).filter((s) => s.citations.length > 0)
    : [...sentences];
  const summaryShare = Math.floor(kept > 0 ? (budget - used) / 2 : budget - used);
  const cited = sources.slice(0, kept);
  let taken = 0;
  while (taken < citable.length && summaryTokens(citable.slice(0, taken + 1), format, cited) <= summaryShare) taken++;
  const summary = citable.slice(0, taken);
  used += summaryTokens(summary, format, cited);

  // Round robin over the kept sources: each source's sentences, text after text, in order.
  const texts = cited.map((s) => s.texts.map(() => [] as string[]));
  const counts = cited.map((s) => s.texts.map(() => 0));
  const next = cited.map(() => ({ text: 0, sentence: 0 }));
  const open = cited.map((s) => s.texts.some((t) => t.length > 0));
  while (open.some(Boolean)) {
    cited.forEach((source, i) => {
      if (!open[i]) return;
      const at = next[i]!;
      while (at.text < source.texts.length && at.sentence >= source.texts[at.text]!.length) {
        at.text++;
        at.sentence = 0;
      }
      if (at.text >= source.texts.length) {
        open[i] = false;
        return;
      }
      const grown = [...texts[i]![at.text]!, source.texts[at.text]![at.sentence]!];
      const count = countTokens(grown.join(' '));
      const added = count - counts[i]![at.text]!;
      if (used + added > budget) {
        open[i] = false;
        return;
      }
      used += added;
      texts[i]![at.text] = grown;
      counts[i]![at.text] = count;
      at.sentence++;
    });
  }
  return { sentences: summary, sources: kept, texts, tokens: used };
}
