/**
 * Intl.Segmenter instances and the chunking that keeps them fast.
 *
 * Segmenters are costly to build and safe to reuse, so there is one per language and
 * granularity, created on first use (the map is capped: languages come from detection, a
 * small set, but a caller could pass anything). V8's segment iterator gets slower per segment
 * the longer the string is, so long texts are fed in chunks cut at whitespace.
 */
type Granularity = 'word' | 'sentence';

const segmenters = new Map<string, Intl.Segmenter>();
const MAX_SEGMENTERS = 128;

export function segmenterFor(language: string | null, granularity: Granularity): Intl.Segmenter {
  const key = `${granularity}:${language ?? ''}`;
  let segmenter = segmenters.get(key);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(supportedLocale(language), { granularity });
    if (segmenters.size < MAX_SEGMENTERS) segmenters.set(key, segmenter);
  }
  return segmenter;
}

/** `language` when ICU knows it; otherwise the root locale (which has the same CJK and Thai dictionaries). */
function supportedLocale(language: string | null): string | undefined {
  try {
    return language && Intl.Segmenter.supportedLocalesOf([language]).length > 0 ? language : undefined;
  } catch {
    return undefined; // a malformed tag throws RangeError
  }
}

/** Characters that end a CJK clause: chunk boundaries for text written without spaces. */
function isCjkPunctuation(code: number): boolean {
  return code === 0x3002 || code === 0x3001 || code === 0xff0c || code === 0xff01 || code === 0xff1f || code === 0xff0e;
}

export function isWhitespace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x3000 || code === 0x2028 || code === 0x2029;
}

/**
 * Where a chunk starting at `start` ends: the text's end when it is near, else just after the
 * last whitespace between start + min and start + max, else just after CJK punctuation there,
 * else at start + max (a run that long without either is no word anyone searches for; the cut
 * only avoids splitting a surrogate pair).
 */
export function chunkEnd(text: string, start: number, min: number, max: number): number {
  const limit = start + max;
  if (limit >= text.length) return text.length;
  for (let i = limit - 1; i >= start + min; i--) if (isWhitespace(text.charCodeAt(i))) return i + 1;
  for (let i = limit - 1; i >= start + min; i--) if (isCjkPunctuation(text.charCodeAt(i))) return i + 1;
  const code = text.charCodeAt(limit);
  return code >= 0xdc00 && code <= 0xdfff ? limit - 1 : limit;
}
