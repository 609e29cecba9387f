/**
 * The character normalisation of index terms: NFKC (and soft hyphens removed), then case folding.
 *
 * - NFKC maps compatibility forms to their plain letters and digits: full-width "ＡＢＣ１２" →
 *   "ABC12", ligatures "ﬁ" → "fi", superscripts "²" → "2", half-width katakana → katakana.
 * - toLowerCase() is Unicode's locale-independent (root, "und") lowercasing: "İ" becomes "i"
 *   plus a combining dot, "ẞ" becomes "ß", and Turkish "I" becomes "i" rather than "ı" — the
 *   sane choice for an index that mixes languages. Four folds follow, so that spelling
 *   variants of one word meet: "ß" → "ss" (Swiss German writes "Strasse"; "STRASSE" is the
 *   usual capitalisation), the combining dot left by "İ" is dropped ("İstanbul" → "istanbul"),
 *   final sigma "ς" → "σ", and the typographic apostrophe "’" → "'" (so "l’homme" and "l'homme",
 *   "don’t" and "don't" are one spelling).
 */
const SOFT_HYPHEN = /\u00ad/g;

/** NFKC of a chunk of text, without soft hyphens (invisible hyphenation hints inside words: "shrink\u00ading"). */
export function normalizeChunk(text: string): string {
  const normalized = text.normalize('NFKC');
  return normalized.includes('\u00ad') ? normalized.replace(SOFT_HYPHEN, '') : normalized;
}

const FOLDS = /ß|ς|’|i\u0307/g;
const FOLD_TO: Record<string, string> = { 'ß': 'ss', 'ς': 'σ', '’': "'", 'i\u0307': 'i' };

/**
 * The case-folded form of a word (already NFKC: normalisation applies to whole chunks of text,
 * folding to words, since German analysis needs to see which words are capitalised).
 */
export function foldCase(word: string): string {
  const lower = word.toLowerCase();
  // Most words have none of the folded characters; the test avoids building a copy for them.
  FOLDS.lastIndex = 0;
  return FOLDS.test(lower) ? lower.replace(FOLDS, (match) => FOLD_TO[match] ?? match) : lower;
}
