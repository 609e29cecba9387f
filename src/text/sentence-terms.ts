import { analyze } from './analyze.js';
import { splitSentences } from './passages.js';

export interface AnalysedSentences {
  /** splitSentences of the text. */
  sentences: readonly string[];
  /** analyze of each sentence, in the same order. */
  terms: readonly (readonly string[])[];
}

/**
 * Passages remembered: a search's snippets and its extractive summary read the same best
 * passages sentence by sentence, one after the other in one pool task (rank-and-summarize.ts).
 */
const REMEMBERED = 64;
const remembered = new Map<string, AnalysedSentences>();

/** A text's sentences and each one's terms: a pure function of the text and language, so the last REMEMBERED texts' are kept. */
export function analysedSentences(text: string, language: string | null): AnalysedSentences {
  const key = `${language ?? ''}\u0000${text}`;
  let found = remembered.get(key);
  if (!found) {
    const sentences = splitSentences(text, language);
    found = { sentences, terms: sentences.map((sentence) => analyze(sentence, language)) };
    if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value as string);
    remembered.set(key, found);
  }
  return found;
}
