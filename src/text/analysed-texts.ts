import { analyze } from './analyze.js';
import { splitSentences } from './passages.js';

export interface AnalysedSentences {
  /** splitSentences of the text. */
  sentences: readonly string[];
  /** analyze of each sentence, in the same order. */
  terms: readonly (readonly string[])[];
}

/** What is remembered of one text; each part is filled the first time it is asked for. */
interface Remembered {
  terms?: readonly string[];
  sentences?: AnalysedSentences;
  /** Bytes this entry is counted for (bytesOf). */
  bytes: number;
}

/**
 * Texts analysed, remembered per thread, least recently used out first: search ranks the
 * candidate passages the index returns by analysing them again (their terms for the features,
 * their sentences for snippets and the summary), and popular passages come back query after
 * query. Analysis is a pure function of the text and the language, so an entry keyed by both is
 * never stale: a re-indexed passage with other text is another key, and the old one ages out.
 *
 * Bounded by an estimate of the memory held (bytesOf): the text as key (UTF-16), a pointer per
 * term (the term strings themselves are shared with analysis' word memory), and the sentences'
 * text and terms. SEARCH_ANALYSIS_CACHE_MB sets the bound of each pool thread
 * (workers/pool/tasks.ts); 0 remembers nothing.
 */
const DEFAULT_BYTES = 32 * 2 ** 20;
/** A Map entry, the record and the arrays' headers, roughly. */
const ENTRY_OVERHEAD = 160;
const POINTER = 8;

let limitBytes = DEFAULT_BYTES;
let heldBytes = 0;
/** One map per language (null as ''): the text alone is the key, no concatenated string to hash. */
const byLanguage = new Map<string, Map<string, Remembered>>();

/** Sets how many bytes of analysed texts this thread remembers (evicting at once past it); 0 remembers nothing. */
export function rememberAnalysedTexts(bytes: number): void {
  limitBytes = bytes;
  evict();
}

/** The bytes held now and the bound (for tests and benches). */
export function analysedTextsHeld(): { bytes: number; limit: number; texts: number } {
  let texts = 0;
  for (const map of byLanguage.values()) texts += map.size;
  return { bytes: heldBytes, limit: limitBytes, texts };
}

/** analyze(text, language), remembered: the same array for the same text (never to be modified). */
export function analysedTerms(text: string, language: string | null): readonly string[] {
  const entry = lookUp(text, language);
  if (entry?.terms) return entry.terms;
  const terms = analyze(text, language);
  remember(text, language, entry, { terms });
  return terms;
}

/** A text's sentences and each one's terms, remembered. */
export function analysedSentences(text: string, language: string | null): AnalysedSentences {
  const entry = lookUp(text, language);
  if (entry?.sentences) return entry.sentences;
  const sentences = splitSentences(text, language);
  const found = { sentences, terms: sentences.map((sentence) => analyze(sentence, language)) };
  remember(text, language, entry, { sentences: found });
  return found;
}

/** The entry of the text, made the most recently used. */
function lookUp(text: string, language: string | null): Remembered | undefined {
  const map = byLanguage.get(language ?? '');
  const entry = map?.get(text);
  if (entry) {
    map!.delete(text);
    map!.set(text, entry);
  }
  return entry;
}

function remember(text: string, language: string | null, entry: Remembered | undefined, part: Omit<Remembered, 'bytes'>): void {
  if (limitBytes <= 0) return;
  let map = byLanguage.get(language ?? '');
  if (!map) byLanguage.set(language ?? '', (map = new Map()));
  const updated: Remembered = { ...entry, ...part, bytes: 0 };
  updated.bytes = bytesOf(text, updated);
  heldBytes += updated.bytes - (entry?.bytes ?? 0);
  map.set(text, updated);
  evict();
}

function bytesOf(text: string, entry: Remembered): number {
  let bytes = ENTRY_OVERHEAD + 2 * text.length;
  if (entry.terms) bytes += POINTER * entry.terms.length;
  if (entry.sentences) {
    for (const sentence of entry.sentences.sentences) bytes += 2 * sentence.length + POINTER;
    for (const terms of entry.sentences.terms) bytes += POINTER * (terms.length + 2);
  }
  return bytes;
}

/** Least recently used out first: each language's map is in order of use, and their oldest go in turn. */
function evict(): void {
  while (heldBytes > limitBytes) {
    let emptied = true;
    for (const [language, map] of byLanguage) {
      const oldest = map.entries().next();
      if (oldest.done) {
        byLanguage.delete(language);
        continue;
      }
      emptied = false;
      map.delete(oldest.value[0]);
      heldBytes -= oldest.value[1].bytes;
      if (heldBytes <= limitBytes) return;
    }
    if (emptied) {
      heldBytes = 0;
      return;
    }
  }
}
