/**
 * Chinese and Japanese words: ICU's dictionary segmentation finds words, but a query word may
 * be segmented differently from the same characters in a document ("北京大学" as one word
 * there, "北京" + "大学" here). So words of more than two Han/kana characters also index their
 * character bigrams, which any two-character query word inside them matches.
 */
const CJK_CHARACTER = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]/u;
const KANA = /[\p{sc=Hiragana}\p{sc=Katakana}]/u;
const HAN = /\p{sc=Han}/u;

/** Whether a word-like segment is Chinese or Japanese (its first character decides: segments do not mix scripts). */
export function isCjkWord(word: string): boolean {
  // Below U+2E80 there is no Han or kana: most words are settled by one comparison.
  return word.charCodeAt(0) >= 0x2e80 && CJK_CHARACTER.test(word);
}

/** Appends the word and, when it has more than two characters, its character bigrams. */
export function pushCjkTerms(word: string, terms: string[]): void {
  terms.push(word);
  const characters = Array.from(word); // code points: Han extension B and beyond are surrogate pairs
  if (characters.length <= 2) return;
  for (let i = 0; i + 1 < characters.length; i++) terms.push(characters[i]! + characters[i + 1]!);
}

/** "ja" for text with kana, "zh" for Han without kana, else null: the script's verdict on a short text. */
export function cjkLanguageByScript(text: string): string | null {
  if (KANA.test(text)) return 'ja';
  return HAN.test(text) ? 'zh' : null;
}
