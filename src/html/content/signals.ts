import type { Block, Inline } from '../blocks.js';
import { countText } from './text-stats.js';

/**
 * Numbers describing how the extraction went, for a calibrated quality score downstream.
 * Each is cheap and meaningful on its own; none is a verdict.
 */
export interface ContentSignals {
  /** Non-whitespace characters of the kept text (headings, paragraphs, lists, tables, code, quotes). */
  textChars: number;
  /** Whitespace-separated words of the kept text. */
  words: number;
  /** Paragraph blocks of at least 80 characters: real prose, as opposed to labels and one-liners. */
  paragraphs: number;
  /** Share of the kept text inside links, 0..1: high when link lists slipped through. */
  linkDensity: number;
  /** Kept characters over the visible characters of the whole body, 0..1. */
  pageShare: number;
  /** Value of the chosen container (prose minus furniture, see scoring.ts); 0 with clean=false. */
  containerScore: number;
  /**
   * How clearly the container won, 0..1: 1 − (value of the best container that neither holds
   * nor lies inside it) / (its value). Near 1: one obvious article; near 0: a close call
   * between separate parts of the page (a listing, or an article next to a long teaser block).
   * 0 with clean=false.
   */
  margin: number;
  /** Markup hints that had to be ignored to find content: 0 none, 1 doubtful ones, 2 all but comment ones, 3 all. */
  hintsOverruled: number;
  /** Whether a heading matching the page's title was found inside the content (and cut with what preceded it). */
  headlineFound: boolean;
  /** Characters of the article body the page declares in JSON-LD, 0 when it declares none. */
  declaredChars: number;
  /** Share of the declared body's word trigrams present in the kept text, 0..1; null without a declared body. */
  declaredCoverage: number | null;
  /** Share of the kept text's word trigrams present in the declared body, 0..1; null without a declared body. */
  declaredSupport: number | null;
}

export interface BlockTextStats {
  /** The kept text, blocks on separate lines, for comparisons. */
  text: string;
  chars: number;
  linkChars: number;
  words: number;
  paragraphs: number;
}

/** Measures the text of blocks (pictures and their captions excluded, as in the text format). */
export function measureBlocks(blocks: readonly Block[]): BlockTextStats {
  const result: BlockTextStats = { text: '', chars: 0, linkChars: 0, words: 0, paragraphs: 0 };
  const lines: string[] = [];
  const addText = (text: string, inLink: boolean): void => {
    const counts = countText(text);
    result.chars += counts.chars;
    if (inLink) result.linkChars += counts.chars;
    result.words += counts.words;
  };
  const inlines = (run: readonly Inline[], inLink: boolean): string => {
    let line = '';
    for (const inline of run) {
      if (inline.type === 'text' || inline.type === 'code') {
        addText(inline.text, inLink);
        line += inline.text;
      } else if (inline.type === 'link' || inline.type === 'emphasis') {
        line += inlines(inline.children, inLink || inline.type === 'link');
      } else if (inline.type === 'break') {
        line += ' ';
      }
    }
    return line;
  };
  const visit = (list: readonly Block[]): void => {
    for (const block of list) {
      switch (block.type) {
        case 'heading':
          lines.push(inlines(block.children, false));
          break;
        case 'paragraph': {
          const line = inlines(block.children, false);
          if (countText(line).chars >= 80) result.paragraphs++;
          lines.push(line);
          break;
        }
        case 'list':
          for (const item of block.items) visit(item);
          break;
        case 'table':
          for (const row of block.rows) lines.push(row.cells.map((cell) => inlines(cell, false)).join(' '));
          break;
        case 'code':
          addText(block.text, false);
          lines.push(block.text);
          break;
        case 'quote':
          visit(block.blocks);
          break;
        case 'image':
          break;
      }
    }
  };
  visit(blocks);
  result.text = lines.join('\n');
  return result;
}
