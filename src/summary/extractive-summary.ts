import { analyzeQuery } from '../text/analyze.js';
import { analysedSentences } from '../text/analysed-texts.js';
import { sharedLanguage } from '../text/analysis-language.js';
import { countWords } from '../html/metadata/word-count.js';

export interface ExtractiveSummaryInput {
  /** What the summary speaks to; empty: the sources' own main terms (topicTerms), a summary of what they say. */
  query: string;
  /** The index's language for the query; null (an empty index): one detected on the sources' text. */
  language: string | null;
  /** The sources a search returns, best first; a citation [n] points at the source numbered n. */
  sources: { n: number; passages: string[] }[];
  /** Sentences the summary holds at most. */
  maxSentences: number;
  /** Words it holds at most (countWords): a sentence that would take it past them is not taken. */
  maxWords?: number;
}

export interface SummarySentence {
  text: string;
  /** Sources the sentence comes from: its own first, then others that say the same. */
  citations: number[];
}

/** Shorter sentences are headings or fragments; longer ones are run-on text (tables, lists flattened). */
const MIN_CHARACTERS = 25;
const MAX_CHARACTERS = 400;
const MIN_TERMS = 4;
/** Term overlap (Jaccard) from which two sentences say the same thing. */
const SAME_STATEMENT = 0.6;
/** How much a source's rank discounts its sentences: the fifth source's count 0.6 of the first's. */
const RANK_DECAY = 0.15;
/** Terms that stand for a text's subject when no query is given: the most widespread ones. */
const TOPIC_TERMS = 12;

interface Candidate {
  text: string;
  terms: Set<string>;
  matched: string[];
  source: number;
  rank: number;
  position: number;
  score: number;
}

/**
 * Pool task: an extractive multi-document answer. Every sentence of the sources' best passages
 * that speaks about the query is a candidate, scored by the share of the query it covers (terms
 * weighted by how rare they are among the candidates) and discounted by its source's rank.
 * Candidates are taken best first; one that repeats a taken sentence is not taken again, but
 * its source is added to that sentence's citations (two sources saying the same thing). The
 * result reads source by source, in the order of the text, each sentence citing where it
 * comes from, so a citation never points at a source the search does not return.
 */
export function extractiveSummary(input: ExtractiveSummaryInput): SummarySentence[] {
  const language = sharedLanguage(input.language, input.sources.flatMap((s) => s.passages));
  if (input.maxSentences < 1) return [];
  const sentences: Omit<Candidate, 'matched' | 'score'>[] = [];
  input.sources.forEach((source, rank) => {
    let position = 0;
    for (const passage of source.passages) {
      const analysed = analysedSentences(passage, language);
      analysed.sentences.forEach((text, i) => {
        position++;
        if (text.length < MIN_CHARACTERS || text.length > MAX_CHARACTERS) return;
        const terms = new Set(analysed.terms[i]);
        if (terms.size >= MIN_TERMS) sentences.push({ text, terms, source: source.n, rank, position });
      });
    }
  });
  const query = input.query.trim() === '' ? topicTerms(sentences) : new Set(analyzeQuery(input.query, language));
  if (query.size === 0) return [];
  const candidates: Candidate[] = [];
  for (const sentence of sentences) {
    const matched = [...query].filter((t) => sentence.terms.has(t));
    if (matched.length > 0) candidates.push({ ...sentence, matched, score: 0 });
  }
  if (candidates.length === 0) return [];

  const df = new Map<string, number>();
  for (const c of candidates) for (const t of c.matched) df.set(t, (df.get(t) ?? 0) + 1);
  const weight = (t: string) => Math.log(1 + candidates.length / (df.get(t) ?? candidates.length));
  const total = [...query].reduce((sum, t) => sum + (df.has(t) ? weight(t) : 0), 0);
  for (const c of candidates) {
    c.score = (c.matched.reduce((sum, t) => sum + weight(t), 0) / total) / (1 + RANK_DECAY * c.rank);
  }
  candidates.sort((a, b) => b.score - a.score || a.rank - b.rank || a.position - b.position);

  const taken: { candidate: Candidate; citations: number[] }[] = [];
  let words = 0;
  for (const candidate of candidates) {
    const same = taken.find((t) => jaccard(t.candidate.terms, candidate.terms) >= SAME_STATEMENT);
    if (same) {
      if (!same.citations.includes(candidate.source)) same.citations.push(candidate.source);
      continue;
    }
    if (taken.length >= input.maxSentences) continue;
    const count = input.maxWords === undefined ? 0 : countWords(candidate.text, language);
    if (input.maxWords !== undefined && words + count > input.maxWords) continue;
    words += count;
    taken.push({ candidate, citations: [candidate.source] });
  }
  taken.sort((a, b) => a.candidate.rank - b.candidate.rank || a.candidate.position - b.candidate.position);
  return taken.map(({ candidate, citations }) => ({ text: candidate.text, citations: [citations[0]!, ...citations.slice(1).sort((x, y) => x - y)] }));
}

/**
 * A text's subject as terms: those found in the most sentences (at least two when there are
 * two sentences or more), TOPIC_TERMS of them, the earlier found first on a tie.
 */
function topicTerms(sentences: readonly { terms: Set<string> }[]): Set<string> {
  const spread = new Map<string, number>();
  for (const sentence of sentences) for (const term of sentence.terms) spread.set(term, (spread.get(term) ?? 0) + 1);
  const least = sentences.length > 1 ? 2 : 1;
  return new Set([...spread].filter(([, count]) => count >= least).sort((a, b) => b[1] - a[1]).slice(0, TOPIC_TERMS).map(([term]) => term));
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / (a.size + b.size - shared);
}
