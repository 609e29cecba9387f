/**
 * Where a quoted span stands in a passage, for the model judge's answers: a judge must quote
 * the words that decide its stance, and an answer whose quote is not in the passage is
 * discarded, since the judge then read something the passage does not say.
 *
 * The comparison forgives what copying text through a model changes without changing words:
 * runs of white space (spaces, tabs, line breaks, no-break spaces) count as one space, white
 * space at either end is ignored, and letters compare without case (String#toLowerCase, locale
 * free). Nothing else is forgiven: punctuation, quotation marks, dashes, digits and every word
 * must be as the passage has them.
 */

/** The span of `passage` (start inclusive, end exclusive, in UTF-16 units) the quote matches; undefined when it is not there or says nothing. */
export function findQuote(passage: string, quote: string): { start: number; end: number } | undefined {
  const needle = normalise(quote).text.trim();
  if (needle === '') return undefined;
  const haystack = normalise(passage);
  const at = haystack.text.indexOf(needle);
  if (at === -1) return undefined;
  const start = haystack.origin[at]!;
  const last = haystack.origin[at + needle.length - 1]!;
  // The end of the original character behind the match's last unit (a surrogate pair is two).
  const end = last + (passage.codePointAt(last)! > 0xffff ? 2 : 1);
  return { start, end };
}

/** The passage's words that match the quote, as the passage writes them; undefined as findQuote. */
export function quotedSpan(passage: string, quote: string): string | undefined {
  const span = findQuote(passage, quote);
  return span ? passage.slice(span.start, span.end) : undefined;
}

const SPACE = /\s/u;

/** Lower case, white space runs as one space; origin[i] is where unit i of the result came from. */
function normalise(text: string): { text: string; origin: number[] } {
  let out = '';
  const origin: number[] = [];
  let inSpace = false;
  for (let i = 0; i < text.length;) {
    const char = String.fromCodePoint(text.codePointAt(i)!);
    if (SPACE.test(char)) {
      if (!inSpace) {
        out += ' ';
        origin.push(i);
      }
      inSpace = true;
    } else {
      inSpace = false;
      const lower = char.toLowerCase();
      out += lower;
      for (let k = 0; k < lower.length; k++) origin.push(i);
    }
    i += char.length;
  }
  return { text: out, origin };
}
