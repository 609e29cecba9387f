/**
 * The token count of `max_tokens` budgets: an approximation a client can reproduce without a
 * tokenizer, and which does not depend on any model's vocabulary. A text counts
 *
 *   ceil(L / 4) + C
 *
 * where C is its number of Chinese, Japanese and Korean characters (Han, kana, Hangul: about
 * one token each in common tokenizers) and L the number of its other characters once every
 * run of white space counts as one. Four characters per token is the usual rule of thumb for
 * English under GPT-style BPE vocabularies (cl100k_base reads ordinary English prose at 4 to 4.5
 * characters per token); it over-counts rather than under-counts prose, so an answer that fits
 * the budget here fits the model's context. An answer's count is the sum over the texts it
 * holds, each rounded up on its own (each endpoint's documentation names those texts).
 */

/** What an answer cut to a budget reports (`budget`, beside `truncated`). */
export interface BudgetReport {
  /** The request's max_tokens. */
  max_tokens: number;
  /** The answer's count as returned. */
  tokens: number;
  /** How much the whole answer would have counted more: what was left out. */
  omitted_tokens: number;
}

const CJK = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u;
const CHARACTERS_PER_TOKEN = 4;

export function countTokens(text: string): number {
  let other = 0;
  let cjk = 0;
  let inSpace = false;
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code > 0x7f && /\s/u.test(character))) {
      if (!inSpace) other++;
      inSpace = true;
      continue;
    }
    inSpace = false;
    // Below U+1100 there is no Hangul, Han or kana: most characters are settled by one comparison.
    if (code >= 0x1100 && CJK.test(character)) cjk++;
    else other++;
  }
  return Math.ceil(other / CHARACTERS_PER_TOKEN) + cjk;
}

/** The sum of countTokens over `texts`. */
export function countAll(texts: Iterable<string>): number {
  let total = 0;
  for (const text of texts) total += countTokens(text);
  return total;
}

/**
 * The largest k in 0..max with tokensOf(k) within `budget`, for counts that grow with k (the
 * first k sentences of a text, of a summary...): a text is cut at its pieces' bounds, never
 * inside one.
 */
export function longestWithin(max: number, tokensOf: (k: number) => number, budget: number): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (tokensOf(middle) <= budget) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** How many of `pieces` (sentences, in order), joined by `separator`, fit within `budget`. */
export function fittingPrefix(pieces: readonly string[], budget: number, separator = ' '): number {
  return longestWithin(pieces.length, (k) => countTokens(pieces.slice(0, k).join(separator)), budget);
}
