import snowball from 'snowball-stemmers';

/**
 * Snowball stemmers (Porter2 for English) with a bounded cache per language.
 *
 * Word frequencies are Zipfian: a few thousand forms make up most running text, so a cache of
 * STEM_CACHE_SIZE forms per language answers nearly every lookup without running the
 * stemmer. It evicts in insertion order (a Map iterates oldest first): cheap, and a frequent
 * word evicted by a burst of rare ones is back on its next occurrence.
 */
const ALGORITHMS: Record<string, string> = { en: 'english', es: 'spanish', fr: 'french', de: 'german' };
const STEM_CACHE_SIZE = 50_000;

export type Stem = (word: string) => string;

const stems = new Map<string, Stem>();

/** The cached stemmer of a language (ISO 639-1), or null when we do not stem it. */
export function stemmerFor(language: string | null): Stem | null {
  if (language === null) return null;
  let stem = stems.get(language);
  if (!stem) {
    const algorithm = ALGORITHMS[language];
    if (!algorithm) return null;
    stem = cachedStem(snowball.newStemmer(algorithm));
    stems.set(language, stem);
  }
  return stem;
}

function cachedStem(stemmer: { stem(word: string): string }): Stem {
  const cache = new Map<string, string>();
  return (word) => {
    let stemmed = cache.get(word);
    if (stemmed === undefined) {
      stemmed = stemmer.stem(word);
      if (cache.size >= STEM_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(word, stemmed);
    }
    return stemmed;
  };
}
