import { analysisLanguage } from './analysis-language.js';
import { isCjkWord, pushCjkTerms } from './cjk.js';
import { compoundParts } from './compounds.js';
import { foldCase, normalizeChunk } from './normalize.js';
import { chunkEnd } from './segmenters.js';
import { stemmerFor, type Stem } from './stemmers.js';
import { stopWordsFor } from './stop-words.js';
import { forEachWord } from './words.js';

/**
 * The index terms of a text. For each word-like segment of Intl.Segmenter (UAX #29 words;
 * ICU dictionary words for Chinese, Japanese and Thai; words.ts), after NFKC and case
 * folding (normalize.ts):
 * - words longer than MAX_TERM_LENGTH UTF-16 units are dropped: they are hashes, base64 or
 *   glued-together URLs, which nobody types, and a truncated prefix would only match other
 *   such junk;
 * - numbers ("2024", "3.14", "1,000": the segmenter keeps them whole), and words starting
 *   with a digit ("4k"), are terms unstemmed;
 * - Chinese and Japanese words are terms, plus their character bigrams (cjk.ts);
 * - French elided articles and pronouns are cut off ("l'homme" → "homme", "qu'il" → "il");
 * - stop words of en, es, fr, de are dropped (stop-words.ts);
 * - the rest is stemmed with Snowball for en, es, fr, de (stemmers.ts); German words of ten
 *   letters or more, capitalised, add the stems of their plausible compound parts
 *   (compounds.ts; documents only, see analyzeQuery).
 * Terms come in text order with duplicates kept, for term frequencies.
 *
 * Text is segmented in chunks of CHUNK_MIN..CHUNK_MAX characters cut at whitespace: V8's
 * segmenter slows down on long strings, chunks keep analysis linear in the text's length.
 */
const MAX_TERM_LENGTH = 64;
const CHUNK_MIN = 400;
const CHUNK_MAX = 800;
const ELISIONS = new Set(['l', 'd', 'j', 'm', 'n', 's', 't', 'c', 'qu', 'jusqu', 'lorsqu', 'puisqu', 'quoiqu']);

interface Pipeline {
  language: string | null;
  stopWords: ReadonlySet<string> | null;
  stem: Stem | null;
  /** Whether German words add their compound parts: for documents only. */
  compounds: boolean;
  /** Each word-like segment's terms as pushWordTerms finds them (null: none; an array: several), WORD_MEMO_SIZE at most. */
  memo: Map<string, string | string[] | null>;
}

/**
 * Segments whose terms each pipeline remembers. Analysis is a pure function of the segment and
 * the pipeline, and running text is Zipfian: one lookup replaces case folding, the stop-word
 * test and the stemmer's own cache for nearly every word (search analyses its candidates'
 * passages anew on every query). Evicted in insertion order, as the stemmer's cache is.
 */
const WORD_MEMO_SIZE = 50_000;
/** The pipeline of each mode and resolved language: fixed once built. */
const pipelines = new Map<string, Pipeline>();

function pipeline(text: string, language: string | null, mode: 'document' | 'query' | 'query with stop words'): Pipeline {
  const resolved = analysisLanguage(text, language);
  const key = `${mode}\u0000${resolved ?? ''}`;
  let run = pipelines.get(key);
  if (!run) {
    run = {
      language: resolved,
      stopWords: mode === 'query with stop words' ? null : stopWordsFor(resolved),
      stem: stemmerFor(resolved),
      compounds: mode === 'document' && resolved === 'de',
      memo: new Map(),
    };
    pipelines.set(key, run);
  }
  return run;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isUppercase(character: string): boolean {
  return character !== character.toLowerCase();
}

function pushWordTerms(segment: string, run: Pipeline, terms: string[]): void {
  if (segment.length > MAX_TERM_LENGTH) return;
  if (isDigit(segment.charCodeAt(0))) {
    terms.push(foldCase(segment)); // "4K" and "4k", "2024AD" and "2024ad" are one term
    return;
  }
  if (isCjkWord(segment)) {
    pushCjkTerms(segment, terms);
    return;
  }
  let word = foldCase(segment);
  if (run.language === 'fr') {
    const apostrophe = word.indexOf("'");
    if (apostrophe > 0 && apostrophe < word.length - 1 && ELISIONS.has(word.slice(0, apostrophe))) word = word.slice(apostrophe + 1);
  }
  if (run.stopWords?.has(word)) return;
  if (!run.stem) {
    terms.push(word);
    return;
  }
  const stemmed = run.stem(word);
  terms.push(stemmed);
  // German nouns are capitalised, and compounds that matter for search are nouns: splitting
  // only those spares verbs and adjectives ("diskutiert") fragments that are words ("disk").
  if (run.compounds && isUppercase(segment[0]!)) {
    const first = terms.length - 1;
    for (const part of compoundParts(word)) {
      const partStem = run.stem(part);
      if (!terms.includes(partStem, first)) terms.push(partStem);
    }
  }
}

function terms(text: string, run: Pipeline): string[] {
  const out: string[] = [];
  const { memo } = run;
  const visit = (segment: string): void => {
    let found = memo.get(segment);
    if (found === undefined) {
      const own: string[] = [];
      pushWordTerms(segment, run, own);
      found = own.length === 0 ? null : own.length === 1 ? own[0]! : own;
      if (memo.size >= WORD_MEMO_SIZE) memo.delete(memo.keys().next().value as string);
      memo.set(segment, found);
    }
    if (typeof found === 'string') out.push(found);
    else if (found !== null) for (const term of found) out.push(term);
  };
  for (let start = 0; start < text.length; ) {
    const end = chunkEnd(text, start, CHUNK_MIN, CHUNK_MAX);
    forEachWord(normalizeChunk(text.slice(start, end)), run.language, visit);
    start = end;
  }
  return out;
}

/** The index terms of a document's text, in order, duplicates kept. `language`: ISO 639-1 when known. */
export function analyze(text: string, language: string | null): string[] {
  return terms(text, pipeline(text, language, 'document'));
}

/**
 * The terms of a query: the terms a document containing the query's words has (same
 * normalisation and stemming), without stop words unless the query is nothing but stop
 * words ("to be or not to be"), which then are its terms.
 *
 * German compound parts are not added: documents index the parts of their compounds, so a
 * query word already finds the compounds containing it. Splitting the query's own long words
 * would mostly add fragments ("Finanzierung" is no compound, yet "zierung" and "rung" pass
 * the heuristic) that match unrelated documents. The cost: a compound query does not find a
 * document that only spells its parts out separately.
 */
export function analyzeQuery(query: string, language: string | null): string[] {
  const withoutStopWords = terms(query, pipeline(query, language, 'query'));
  return withoutStopWords.length > 0 ? withoutStopWords : terms(query, pipeline(query, language, 'query with stop words'));
}
