import { Element, Text } from 'domhandler';
import { findFirst } from '../dom.js';
import { BLOCK_TAGS, HEADING_LEVEL } from './block-tags.js';
import { Hint, elementHint } from './hints.js';
import type { TextStats } from './text-stats.js';

/**
 * Scores every element as a candidate main-content container.
 *
 * Each text block (a block element's own paragraph) gets a value from its text: positive for
 * prose (punctuated sentences with few links), negative for furniture (link lists, short
 * labels, teaser headlines and excerpts). A container's value is the sum of the values of the
 * blocks below it, blocks under boilerplate markup counting against it, discounted by its
 * link density. The best container is then the subtree that gathers the most prose while
 * taking in the least furniture: it grows over article parts split by ads and stops before a
 * comment section, a sidebar or a teaser list, without any threshold on its size.
 */
export interface Scores {
  /** Each element's own markup hint. */
  hint: Uint8Array;
  /** Value of each element's own text block from its text alone (0 for inline elements). */
  textValue: Float64Array;
  /** Characters of prose blocks (positive text value) in each subtree. */
  proseChars: Float64Array;
  /** Teaser marks (linked headlines, truncated excerpts) in each subtree: teaser lists have several. */
  teasers: Int32Array;
}

export interface Ranking {
  /** The best container. */
  best: number;
  /** Its value. */
  value: number;
  /** Value of every element as a container. */
  containerValue: Float64Array;
}

/** Prose under content markup (article, itemprop=articleBody) counts this much more. */
const CONTENT_BOOST = 1.25;
/**
 * Table cells are judged by their table, terms and definitions by their list: a data table or a
 * parameter list of short entries is content, not labels.
 */
const NEUTRAL = new Set(['td', 'th', 'dt', 'dd']);
/** Characters (CJK weighted) from which a punctuated block is prose whatever its tag. */
const LONG_BLOCK = 70;
/** Characters of a block's own text outside its links (a word: "Reading:", "and") with which a sentence end weaves its links into a sentence. */
const WOVEN_OWN_TEXT = 5;
const ELLIPSIS = /(?:…|\.\.\.|\[…\]|\[\.\.\.\])\s*$/;

export function scoreElements(stats: TextStats): Scores {
  const n = stats.elements.length;
  const textValue = new Float64Array(n);
  const proseChars = new Float64Array(n);
  const teasers = new Int32Array(n);
  const excerpts = findExcerpts(stats);
  for (let i = n - 1; i >= 0; i--) {
    const linkedHeading = isLinkedHeading(stats, i);
    const excerpt = excerpts.has(i);
    textValue[i] = excerpt ? -stats.inlineChars[i]! : textBlockValue(stats, i, linkedHeading);
    if (textValue[i]! > 0) proseChars[i]! += stats.inlineChars[i]!;
    if (linkedHeading || excerpt) teasers[i]!++;
    const p = stats.parent[i]!;
    if (p >= 0) {
      proseChars[p]! += proseChars[i]!;
      teasers[p]! += teasers[i]!;
    }
  }
  const hint = new Uint8Array(n);
  for (let i = 0; i < n; i++) hint[i] = elementHint(stats.elements[i]!);
  return { hint, textValue, proseChars, teasers };
}

/**
 * Ranks containers. Blocks under markup hinted at least `excludeFrom` count against their
 * container; prose under content markup counts a little more.
 */
export function rankContainers(stats: TextStats, scores: Scores, excludeFrom: Hint): Ranking {
  const n = stats.elements.length;
  const subtree = new Float64Array(n);
  const excluded = new Uint8Array(n);
  const boosted = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = stats.parent[i]!;
    excluded[i] = scores.hint[i]! >= excludeFrom || (p >= 0 && excluded[p] === 1) ? 1 : 0;
    boosted[i] = scores.hint[i] === Hint.Content || (p >= 0 && boosted[p] === 1) ? 1 : 0;
  }
  for (let i = n - 1; i >= 0; i--) {
    const value = scores.textValue[i]!;
    let block = value;
    if (excluded[i]) block = -Math.abs(value);
    else if (boosted[i] && value > 0) block = value * CONTENT_BOOST;
    subtree[i]! += block;
    const p = stats.parent[i]!;
    if (p >= 0) subtree[p]! += subtree[i]!;
  }
  const containerValue = new Float64Array(n);
  let best = 0;
  for (let i = 0; i < n; i++) {
    const chars = stats.chars[i]!;
    const linkDensity = chars > 0 ? stats.linkChars[i]! / chars : 0;
    const value = subtree[i]!;
    containerValue[i] = value > 0 ? value * (1 - linkDensity) : value;
    // On ties the outer element wins: what adds no text value (pictures, plain headings) stays.
    if (containerValue[i]! > containerValue[best]!) best = i;
  }
  return { best, value: containerValue[best]!, containerValue };
}

/**
 * The value of an element's own text block from its text alone: link lists and short labels
 * count against a container, sentences for it. A paragraph element with a punctuated
 * sentence counts as prose however short (news style one-liners); other blocks need length.
 */
function textBlockValue(stats: TextStats, i: number, linkedHeading: boolean): number {
  const element = stats.elements[i]!;
  const chars = stats.inlineChars[i]!;
  if (chars === 0 || !BLOCK_TAGS.has(element.name)) return 0;
  // A linked headline is the mark of a teaser (related stories, listings), a plain one a section title.
  if (HEADING_LEVEL.has(element.name)) return linkedHeading ? -Math.max(50, chars) : 0;
  const linkDensity = stats.inlineLinkChars[i]! / chars;
  // CJK text packs a word into a character or two: weigh it so a CJK sentence counts like a Latin one.
  const wide = stats.inlineWide[i]!;
  const length = chars + 2 * wide;
  // Preformatted text is code or a transcript someone laid out: content, however short and unpunctuated.
  if (element.name === 'pre') return length * (1 - linkDensity);
  const sentence = stats.inlineWords[i]! >= 4 || wide >= 8;
  const ends = stats.inlineStops[i]! > 0;
  // Links woven into a sentence ("Three releases landed: A, B and C.") are references, not a menu.
  const woven = ends && chars - stats.inlineLinkChars[i]! >= WOVEN_OWN_TEXT;
  if (linkDensity > 0.5 && !woven) return -chars;
  const prose = length * (1 - (woven ? 1 : 1.5) * linkDensity);
  const punctuated = stats.inlinePunctuation[i]! > 0;
  if (punctuated && (length >= LONG_BLOCK || (element.name === 'p' && sentence))) return prose;
  // A complete sentence is prose in any block: a list item, a definition, a forum reply in a <div>.
  if (ends && sentence) return prose;
  if (length >= LONG_BLOCK) return length * 0.3;
  return NEUTRAL.has(element.name) ? 0 : -Math.min(chars, 20);
}

/**
 * A heading whose text is mostly a link elsewhere: a teaser's headline. Links within the page
 * (href="#…", documentation headings linking back to their table of contents) do not count.
 */
function isLinkedHeading(stats: TextStats, i: number): boolean {
  const chars = stats.inlineChars[i]!;
  const heading = stats.elements[i]!;
  if (chars === 0 || !HEADING_LEVEL.has(heading.name) || stats.inlineLinkChars[i]! / chars <= 0.5) return false;
  return findFirst(heading, (element) => element.name === 'a' && !(element.attribs.href ?? '#').trim().startsWith('#')) !== null;
}

/**
 * Paragraphs cut short with an ellipsis, when a page has several: the excerpts of a teaser
 * list ("other posts"). One alone is rather the article's own visible part (a paywall cut).
 */
function findExcerpts(stats: TextStats): Set<number> {
  const excerpts = new Set<number>();
  for (let i = 0; i < stats.elements.length; i++) {
    const element = stats.elements[i]!;
    if (element.name === 'p' && stats.inlineChars[i]! > 0 && ELLIPSIS.test(lastText(element).slice(-12))) excerpts.add(i);
  }
  return excerpts.size >= 2 ? excerpts : new Set();
}

/** The last non-blank text node's text under an element. */
function lastText(element: Element): string {
  for (let i = element.children.length - 1; i >= 0; i--) {
    const child = element.children[i]!;
    if (child instanceof Text) {
      if (/\S/.test(child.data)) return child.data;
    } else if (child instanceof Element) {
      const text = lastText(child);
      if (text) return text;
    }
  }
  return '';
}
