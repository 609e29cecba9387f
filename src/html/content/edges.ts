import type { Block, Inline } from '../blocks.js';
import { countText } from './text-stats.js';

/**
 * Trims the ends of the extracted blocks, where leftovers of the page cluster: before the
 * first sentence of the article come datelines, bylines, reading times and UI labels
 * ("Caption", "Close"); after the last one come "Related stories" headings, "Comments"
 * labels and copyright lines. Like jusText's context rule, a block that is not prose is
 * only dropped when no prose lies between it and the edge; inside the article, short
 * blocks (subheadings, one-word answers) stay.
 */
const enum Kind {
  /** Text: a sentence or more, a list of more than links, code, a table, a quote. */
  Content,
  /** A heading, a short line without a sentence, a paragraph or list that is mostly links. */
  Label,
  /** Pictures: those above the article stay (the lead photo), those below it until the first label. */
  Picture,
}

/**
 * Sentences pages append to every article: calls to subscribe or follow, credits, copyright.
 * English only; elsewhere the structural rules above still apply.
 */
const PROMOTION = /\b(?:sign up|subscribe|newsletters?|follow (?:us|him|her|me)|click here|all rights reserved|copyright|reporting by|contributed (?:reporting|to this report))\b|©/i;

/** Characters (CJK weighted) a paragraph needs, with sentence punctuation, to count as prose. */
const MIN_PROSE = 20;

export function trimEdges(blocks: readonly Block[], linkRich = false): Block[] {
  // In a link collection (prune.ts isLinkRich) lists of links are the content, not "more stories".
  const kinds = blocks.map((block) => (linkRich && isLinkBlock(block) ? Kind.Content : kindOf(block)));
  // A page without a single sentence (a timetable, a list of results) has no edges to find.
  const first = kinds.indexOf(Kind.Content);
  if (first === -1) return [...blocks];
  let end = kinds.lastIndexOf(Kind.Content) + 1;
  while (kinds[end] === Kind.Picture) end++;
  const lead = blocks.slice(0, first).filter((_, i) => kinds[i] === Kind.Picture);
  return [...lead, ...blocks.slice(first, end)];
}

/** A list, or a punctuated paragraph ("Reading: A, B."), whatever its share of links. */
function isLinkBlock(block: Block): boolean {
  return block.type === 'list' || (block.type === 'paragraph' && countText(texts(block.children).text).punctuation > 0);
}

function kindOf(block: Block): Kind {
  switch (block.type) {
    case 'heading':
      return Kind.Label;
    case 'paragraph':
      return isProse(block.children) ? Kind.Content : Kind.Label;
    case 'list':
      return listKind(block.items);
    case 'code':
    case 'table':
    case 'quote':
      return Kind.Content;
    case 'image':
      return Kind.Picture;
    case 'page':
      return Kind.Label;
  }
}

/** A sentence or more that is neither mostly a link nor a stock promotion line. */
function isProse(run: readonly Inline[]): boolean {
  const { text, linkText } = texts(run);
  const counts = countText(text);
  if (counts.chars === 0 || countText(linkText).chars > 0.5 * counts.chars) return false;
  return counts.punctuation > 0 && counts.chars + 2 * counts.wide >= MIN_PROSE && !PROMOTION.test(text);
}

/** A list of pictures (a gallery) is a picture, a list of links a label, anything else content. */
function listKind(items: readonly Block[][]): Kind {
  let text = '';
  let linkText = '';
  for (const item of items) {
    for (const block of item) {
      if (block.type === 'image') continue;
      if (block.type !== 'paragraph') return Kind.Content;
      const parts = texts(block.children);
      text += parts.text;
      linkText += parts.linkText;
    }
  }
  const chars = countText(text).chars;
  if (chars === 0) return Kind.Picture;
  return countText(linkText).chars > 0.5 * chars ? Kind.Label : Kind.Content;
}

/** A run's text, and the part of it inside links. */
function texts(run: readonly Inline[]): { text: string; linkText: string } {
  let text = '';
  let linkText = '';
  const visit = (items: readonly Inline[], inLink: boolean): void => {
    for (const inline of items) {
      if (inline.type === 'text' || inline.type === 'code') {
        text += inline.text;
        if (inLink) linkText += inline.text;
      } else if (inline.type === 'link' || inline.type === 'emphasis') {
        visit(inline.children, inLink || inline.type === 'link');
      }
    }
  };
  visit(run, false);
  return { text, linkText };
}
