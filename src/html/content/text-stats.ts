import { Element, Text, type ParentNode } from 'domhandler';
import { BLOCK_TAGS } from './block-tags.js';
import { NEVER_CONTENT, isHidden } from './hints.js';

/**
 * Text measurements of every live element, gathered in one iterative pass (document order
 * down, then reverse document order up), so that scoring never re-walks a subtree. Arrays
 * are indexed by the element's position in document order.
 *
 * "Inline" figures count only the text that flows into the element's own paragraph, i.e.
 * not text inside nested block elements: for a block element that is the text of the
 * paragraph it forms (boilerpipe's and jusText's "text block").
 */
export interface TextStats {
  /** Live elements (not scripts, forms controls or hidden) in document order. */
  elements: Element[];
  /** Position of each live element in `elements`. */
  index: Map<Element, number>;
  /** Index of the parent element, -1 for the root. */
  parent: Int32Array;
  /** Number of elements in each subtree (itself included): descendants of i are i+1 … i+size-1. */
  size: Int32Array;
  /** Non-whitespace characters of all text below. */
  chars: Int32Array;
  /** … of which inside links. */
  linkChars: Int32Array;
  /** Non-whitespace characters flowing into this element's own paragraph. */
  inlineChars: Int32Array;
  /** … of which inside links. */
  inlineLinkChars: Int32Array;
  /** Sentence punctuation (. , ; ! ? and their forms in other scripts) in the own paragraph: prose has it, menus do not. */
  inlinePunctuation: Int32Array;
  /**
   * Sentence ends (. ! ? and their forms in other scripts, a full stop only before a space or the
   * end) in the own paragraph: a sentence has one, a label ("Joined: Mar 04, 2019", "Version 4.2") none.
   */
  inlineStops: Int32Array;
  /** Whitespace-separated words in the own paragraph. */
  inlineWords: Int32Array;
  /** CJK characters (ideographs, kana, hangul) in the own paragraph: each says about as much as a short word. */
  inlineWide: Int32Array;
}

export function measureText(root: ParentNode): TextStats {
  const elements: Element[] = [];
  const parents: number[] = [];
  const ownChars: number[] = [];
  const ownPunctuation: number[] = [];
  const ownStops: number[] = [];
  const ownWords: number[] = [];
  const ownWide: number[] = [];
  const index = new Map<Element, number>();

  // Two parallel stacks (node, index of its parent element) instead of tuples: no allocation per element.
  const pendingNodes: ParentNode[] = [root];
  const pendingParents: number[] = [-1];
  const counts: TextCounts = { chars: 0, punctuation: 0, stops: 0, words: 0, wide: 0 };
  while (pendingNodes.length > 0) {
    const node = pendingNodes.pop()!;
    const parentIndex = pendingParents.pop()!;
    let self = parentIndex;
    if (node instanceof Element) {
      self = elements.length;
      index.set(node, self);
      elements.push(node);
      parents.push(parentIndex);
      ownChars.push(0);
      ownPunctuation.push(0);
      ownStops.push(0);
      ownWords.push(0);
      ownWide.push(0);
    }
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i]!;
      if (child instanceof Element) {
        if (!NEVER_CONTENT.has(child.name) && !isHidden(child)) {
          pendingNodes.push(child);
          pendingParents.push(self);
        }
      } else if (child instanceof Text && self >= 0) {
        counts.chars = counts.punctuation = counts.stops = counts.words = counts.wide = 0;
        addCounts(child.data, counts);
        ownChars[self]! += counts.chars;
        ownPunctuation[self]! += counts.punctuation;
        ownStops[self]! += counts.stops;
        ownWords[self]! += counts.words;
        ownWide[self]! += counts.wide;
      }
    }
  }

  const n = elements.length;
  const stats: TextStats = {
    elements,
    index,
    parent: Int32Array.from(parents),
    size: new Int32Array(n).fill(1),
    chars: Int32Array.from(ownChars),
    linkChars: new Int32Array(n),
    inlineChars: Int32Array.from(ownChars),
    inlineLinkChars: new Int32Array(n),
    inlinePunctuation: Int32Array.from(ownPunctuation),
    inlineStops: Int32Array.from(ownStops),
    inlineWords: Int32Array.from(ownWords),
    inlineWide: Int32Array.from(ownWide),
  };
  // Children come after their parent in document order, so walking backwards finishes every
  // element before its parent reads it.
  for (let i = n - 1; i >= 0; i--) {
    if (elements[i]!.name === 'a') {
      stats.linkChars[i] = stats.chars[i]!;
      stats.inlineLinkChars[i] = stats.inlineChars[i]!;
    }
    const p = stats.parent[i]!;
    if (p < 0) continue;
    stats.size[p]! += stats.size[i]!;
    stats.chars[p]! += stats.chars[i]!;
    stats.linkChars[p]! += stats.linkChars[i]!;
    if (!BLOCK_TAGS.has(elements[i]!.name)) {
      stats.inlineChars[p]! += stats.inlineChars[i]!;
      stats.inlineLinkChars[p]! += stats.inlineLinkChars[i]!;
      stats.inlinePunctuation[p]! += stats.inlinePunctuation[i]!;
      stats.inlineStops[p]! += stats.inlineStops[i]!;
      stats.inlineWords[p]! += stats.inlineWords[i]!;
      stats.inlineWide[p]! += stats.inlineWide[i]!;
    }
  }
  return stats;
}

export interface TextCounts {
  /** Non-whitespace characters. */
  chars: number;
  /** Sentence punctuation: . , ; ! ? and their forms in other scripts (SENTENCE_MARKS). */
  punctuation: number;
  /** Sentence ends: ! ? and a full stop before a space or the end, and their forms in other scripts (SENTENCE_ENDS). */
  stops: number;
  /** Whitespace-separated words. */
  words: number;
  /** CJK ideographs, kana and hangul. */
  wide: number;
}

export function countText(data: string): TextCounts {
  const counts = { chars: 0, punctuation: 0, stops: 0, words: 0, wide: 0 };
  addCounts(data, counts);
  return counts;
}

/**
 * Sentence punctuation beyond ASCII: prose in every script has it, menus in none. CJK full
 * stops and commas (fullwidth and ideographic); the Arabic comma, semicolon, question mark and
 * the Urdu full stop, which Arabic-script prose may use without a single ASCII mark; the
 * Devanagari danda; the Greek question mark; the Armenian full stop; Ethiopic stops; Myanmar
 * section marks.
 */
const SENTENCE_MARKS = new Set([
  0x3002, 0x3001, 0xff0c, 0xff01, 0xff1f, 0xff0e, 0xff1b, 0xff61, 0xff64,
  0x060c, 0x061b, 0x061f, 0x06d4,
  0x0964, 0x0965,
  0x037e, 0x0589,
  0x1361, 0x1362, 0x1363, 0x1364, 0x1367,
  0x104a, 0x104b,
]);

/** The marks of SENTENCE_MARKS that end a sentence rather than a clause. */
const SENTENCE_ENDS = new Set([0x3002, 0xff01, 0xff1f, 0xff0e, 0xff61, 0x061f, 0x06d4, 0x0964, 0x0965, 0x037e, 0x0589, 0x1362, 0x1367, 0x104b]);

/** Whether a character code (NaN past the end) may follow a full stop that ends a sentence: the end, a space, a quote or a bracket. */
function isBreak(code: number): boolean {
  return Number.isNaN(code) || code <= 32 || code === 0xa0 || code === 0x22 || code === 0x27 || code === 0x29 || code === 0x5d || code === 0x201d || code === 0x2019 || code === 0xbb;
}

/** One pass over a text, adding its visible characters, sentence punctuation and words to `counts`. */
function addCounts(data: string, counts: TextCounts): void {
  let chars = 0;
  let punctuation = 0;
  let stops = 0;
  let words = 0;
  let wide = 0;
  let inWord = false;
  for (let i = 0; i < data.length; i++) {
    const code = data.charCodeAt(i);
    // Spaces, tabs, line breaks and no-break spaces separate words.
    if (code <= 32 || code === 0xa0 || code === 0x3000 || (code >= 0x2000 && code <= 0x200b)) {
      inWord = false;
      continue;
    }
    chars++;
    if (!inWord) words++;
    inWord = true;
    if ((code >= 0x3040 && code <= 0x30ff) || (code >= 0x3400 && code <= 0x9fff) || (code >= 0xac00 && code <= 0xd7af) || (code >= 0xf900 && code <= 0xfaff)) wide++;
    if (code === 0x2e || code === 0x2c || code === 0x3b || code === 0x21 || code === 0x3f || (code > 0x7f && SENTENCE_MARKS.has(code))) {
      punctuation++;
      // A full stop inside a token ("1.44", "v3.2", "example.com") ends nothing.
      if (code === 0x2e ? isBreak(data.charCodeAt(i + 1)) : code === 0x21 || code === 0x3f || SENTENCE_ENDS.has(code)) stops++;
    }
  }
  counts.chars += chars;
  counts.punctuation += punctuation;
  counts.stops += stops;
  counts.words += words;
  counts.wide += wide;
}
