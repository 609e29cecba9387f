import { segmenterFor } from '../../text/segmenters.js';

/**
 * Words and reading time of the main text, by Unicode word segmentation (UAX #29) rather
 * than spaces, which Chinese, Japanese and Thai do not write.
 *
 * - Runs of scripts written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar) go to
 *   Intl.Segmenter with granularity "word", whose ICU dictionaries find their words; a segment
 *   counts when it is word-like. The runs are fed in pieces of at most MAX_PIECE characters:
 *   V8's segment iterator slows down quadratically on long strings (a 70,000-character
 *   string takes about a second), pieces keep it linear, at about 1.5 µs per segment.
 * - All other text is counted with UAX #29's rules for alphabetic scripts, which is what the
 *   segmenter applies there, as one regular expression: a word is a run of letters, marks,
 *   decimal digits and connectors starting with a letter or digit (so "_", "½" or a lone
 *   variation selector are none), or a run of Hangul; runs join across ' ’ . : · between two
 *   letters ("don't", "e.g") and across ' ’ . , ; between two digits ("3.14", "1,000"). On the
 *   text of the 311 benchmark pages it agrees with the segmenter to 0.007 % of words and is
 *   about seven times faster, which matters for a task run on every page.
 *
 * Reading speeds (silent reading of non-fiction by adults: Brysbaert 2019 for English, the
 * IReST study, Trauzettel-Klosinski et al. 2012, for Chinese and Japanese): 238 words a
 * minute for text read by words; Japanese 357 and Chinese 255 characters a minute, since CJK
 * reading is measured in characters and a segmented word there is one to four of them. Han
 * text not marked as Japanese is read at the Chinese rate. Korean separates words by spaces
 * and is read by words. A text mixing scripts adds the two times up.
 */
export interface WordCount {
  /** Words in the text, CJK words included. */
  words: number;
  /** Han and kana characters, read at a per-character speed. */
  cjkCharacters: number;
  /** Words without Han or kana, read at the per-word speed. */
  otherWords: number;
}

const WORDS_PER_MINUTE = 238;
const JAPANESE_CHARACTERS_PER_MINUTE = 357;
const CHINESE_CHARACTERS_PER_MINUTE = 255;

/** Script extensions, so that "ー", "々" and CJK punctuation stay inside their run. */
const UNSPACED_RUN = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]+/gu;
const CJK_CHARACTER = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
/** Letters of alphabetic scripts; Hangul is apart because ICU never joins it to Latin letters or digits ("TV일반"). */
const LETTER = '[[\\p{L}\\p{Nl}]--\\p{sc=Hangul}]';
const WORD_PART = `[${LETTER}\\p{M}\\p{Nd}\\p{Pc}]`;
// The "v" flag (class subtraction) is in Node 20's V8; built from a string since tsc's ES2022 target rejects it in literals.
const WORD = new RegExp(
  `\\p{sc=Hangul}+|\\p{Pc}*[${LETTER}\\p{Nd}]${WORD_PART}*(?:(?:(?<=${LETTER}\\p{M}*)['’.:·](?=${LETTER})|(?<=\\p{Nd})['’.,;](?=\\p{Nd}))${WORD_PART}+)*`,
  'gv',
);
const MAX_PIECE = 400;
/** Where a piece may end without cutting a word: after CJK punctuation (runs hold no spaces). */
const PIECE_END = /[。！？、，．]/u;

export function measureWords(text: string, language: string | null = null): WordCount {
  const count: WordCount = { words: 0, cjkCharacters: 0, otherWords: 0 };
  let spaced = 0;
  for (const run of text.matchAll(UNSPACED_RUN)) {
    countSpaced(text.slice(spaced, run.index), count);
    countUnspaced(run[0], segmenterFor(language, 'word'), count);
    spaced = run.index + run[0].length;
  }
  countSpaced(text.slice(spaced), count);
  return count;
}

export function countWords(text: string, language: string | null = null): number {
  return measureWords(text, language).words;
}

/** "4 min" below an hour, "1 h 5 min" from an hour on; "0 min" for no words, at least "1 min" otherwise. */
export function readingTime(count: WordCount, language: string | null): string {
  if (count.words === 0) return '0 min';
  const cjkSpeed = language === 'ja' ? JAPANESE_CHARACTERS_PER_MINUTE : CHINESE_CHARACTERS_PER_MINUTE;
  const minutes = Math.max(1, Math.round(count.otherWords / WORDS_PER_MINUTE + count.cjkCharacters / cjkSpeed));
  if (minutes < 60) return `${minutes} min`;
  const rest = minutes % 60;
  return rest === 0 ? `${Math.floor(minutes / 60)} h` : `${Math.floor(minutes / 60)} h ${rest} min`;
}

function countSpaced(text: string, count: WordCount): void {
  const words = text.match(WORD)?.length ?? 0;
  count.words += words;
  count.otherWords += words;
}

function countUnspaced(run: string, segmenter: Intl.Segmenter, count: WordCount): void {
  for (let start = 0; start < run.length; ) {
    const end = pieceEnd(run, start);
    for (const { segment, isWordLike } of segmenter.segment(run.slice(start, end))) {
      if (!isWordLike) continue;
      count.words++;
      const cjk = segment.match(CJK_CHARACTER)?.length ?? 0;
      count.cjkCharacters += cjk;
      if (cjk === 0) count.otherWords++; // Thai, Lao, Khmer, Myanmar words are read by words
    }
    start = end;
  }
}

/** The end of the piece starting at `start`: the last punctuation in reach, else MAX_PIECE on. */
function pieceEnd(run: string, start: number): number {
  if (run.length - start <= MAX_PIECE) return run.length;
  for (let i = start + MAX_PIECE; i > start + MAX_PIECE / 2; i--) if (PIECE_END.test(run[i - 1]!)) return i;
  const cut = start + MAX_PIECE;
  // Never between the halves of a surrogate pair (Han extension characters).
  return /[\uDC00-\uDFFF]/.test(run[cut]!) ? cut - 1 : cut;
}
