import { detectLanguage, normalizeLanguageTag } from './language.js';
import { cjkLanguageByScript } from './cjk.js';

/**
 * The language a text is analysed in: the caller's when given ("de-DE" → "de"); otherwise
 * detected from the text when it is long enough for detection to be meaningful, and for
 * shorter texts (queries) decided by script: kana means Japanese, Han alone Chinese; any
 * other short text is analysed without stop words or stemming, since a guess would stem
 * it in a language the documents were not stemmed in. Callers that know the language (the
 * index knows its documents') should pass it: detection is most of the cost of a document
 * analysed without one.
 */
const DETECT_MIN_CHARS = 100;
/** franc's trigram model costs about 1 ms per 2,000 characters; this much text decides a language as well. */
const DETECT_SAMPLE = 1000;

export function analysisLanguage(text: string, language: string | null): string | null {
  const tagged = normalizeLanguageTag(language);
  if (tagged) return tagged;
  const detected = text.length >= DETECT_MIN_CHARS ? detectLanguage(text.slice(0, DETECT_SAMPLE), null) : null;
  return detected ?? cjkLanguageByScript(text.slice(0, DETECT_MIN_CHARS));
}

/**
 * One language for a query and the texts it is compared with, when the caller knows none (an
 * empty index has no main language): detected on the texts, since the query alone is too short
 * to detect. Analysed each in its own, the query would go unstemmed and the longer texts
 * stemmed, and "lowers" in a claim would never meet "lowered" on the page.
 */
export function sharedLanguage(language: string | null, texts: Iterable<string>): string | null {
  if (language !== null) return language;
  let sample = '';
  for (const text of texts) {
    sample += `${text}\n`;
    if (sample.length >= DETECT_SAMPLE) break;
  }
  return analysisLanguage(sample, null);
}
