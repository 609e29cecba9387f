import type { Block } from '../blocks.js';
import { inlineLinks, inlineText, type LinkText } from './inline-text.js';
import { normalizeBlocks } from './normalize.js';

/**
 * The `json` format: the main content as a list of typed blocks that a client reads without
 * parsing any markup. Texts are plain strings with whitespace collapsed as a browser shows it;
 * a line break of the page is "\n" in every text (json keeps breaks regardless of
 * preserve_formatting: they are data here, and a client can fold them). Links and images
 * obey the same URL policy as the other formats: a refused link is left out of `links` (its
 * text stays), a refused image block is replaced by its caption as a paragraph, or dropped.
 * schemas/extract-block.json describes one block (and the API documentation serves it).
 */
export type JsonBlock = JsonHeading | JsonParagraph | JsonList | JsonTable | JsonCode | JsonQuote | JsonImage | JsonPage;

/** A link inside a text: its text as it appears in that text, and its absolute URL. */
export type JsonLink = LinkText;

export interface JsonHeading {
  type: 'heading';
  /** 1 for the most important heading, as h1-h6. */
  level: 1 | 2 | 3 | 4 | 5 | 6;
  text: string;
}

export interface JsonParagraph {
  type: 'paragraph';
  text: string;
  /** The links of the paragraph in reading order; absent when there are none. */
  links?: JsonLink[];
}

/**
 * A list. Every item is an object, nested or not, so clients need one code path:
 * `items.map((item) => item.text)` reads a simple list; `item.blocks` holds whatever else the
 * item contains, nested lists included, in order.
 */
export interface JsonList {
  type: 'list';
  /** true for a numbered list (numbering starts at 1), false for bullets. */
  ordered: boolean;
  items: JsonListItem[];
}

export interface JsonListItem {
  /** Text of the item's first block when that is a paragraph (the usual item); "" otherwise. */
  text: string;
  /** The links of `text` in reading order; absent when there are none. */
  links?: JsonLink[];
  /** The item's blocks after that paragraph (or all of them): nested lists, code, further paragraphs...; absent when there are none. */
  blocks?: JsonBlock[];
}

export interface JsonTable {
  type: 'table';
  /** Cells of the table's first row when it is a header row; null when the table has none. */
  header: string[] | null;
  /** The other rows, top to bottom, each as its cells' texts; rows may differ in length as on the page. */
  rows: string[][];
}

export interface JsonCode {
  type: 'code';
  /** Lower-case language name such as "python" or "c++" when known and plain; null otherwise. */
  language: string | null;
  /** The code exactly, indentation and line breaks included. */
  text: string;
}

export interface JsonQuote {
  type: 'quote';
  /** The quoted blocks as plain text: blocks separated by a blank line, list items and table rows by "\n", cells by " | ". */
  text: string;
  /** The links of the quote in reading order; absent when there are none. */
  links?: JsonLink[];
}

export interface JsonImage {
  type: 'image';
  /** Absolute http or https URL of the image. */
  url: string;
  /** Alternative text; "" when the page gave none. */
  alt: string;
  /** Caption (figcaption); "" when there is none. */
  caption: string;
}

/** Where a page of a PDF starts: only with options.pdf_page_markers. */
export interface JsonPage {
  type: 'page';
  /** The page's number, 1 for the first. */
  number: number;
}

export function renderJson(blocks: Block[]): JsonBlock[] {
  return normalizeBlocks(blocks, { keepBreaks: true }).map(toJson);
}

function toJson(block: Block): JsonBlock {
  switch (block.type) {
    case 'heading':
      return { type: 'heading', level: block.level, text: inlineText(block.children) };
    case 'paragraph':
      return withLinks<JsonParagraph>({ type: 'paragraph', text: inlineText(block.children) }, inlineLinks(block.children));
    case 'list':
      return { type: 'list', ordered: block.ordered, items: block.items.map(listItem) };
    case 'table': {
      const rows = block.rows.map((row) => row.cells.map(inlineText));
      const header = block.rows[0]?.header ? rows.shift()! : null;
      return { type: 'table', header, rows };
    }
    case 'code':
      return { type: 'code', language: block.language, text: block.text };
    case 'quote': {
      const links: JsonLink[] = [];
      for (const child of block.blocks) blockLinks(child, links);
      return withLinks<JsonQuote>({ type: 'quote', text: joinTexts(block.blocks, '\n\n') }, links);
    }
    case 'image':
      return { type: 'image', url: block.src, alt: block.alt, caption: block.caption };
    case 'page':
      return { type: 'page', number: block.number };
  }
}

function listItem(blocks: readonly Block[]): JsonListItem {
  const [first, ...rest] = blocks;
  const lead = first?.type === 'paragraph' ? first : null;
  const item = withLinks<JsonListItem>({ text: lead ? inlineText(lead.children) : '' }, lead ? inlineLinks(lead.children) : []);
  const others = lead ? rest : blocks;
  if (others.length > 0) item.blocks = others.map(toJson);
  return item;
}

function withLinks<T extends { links?: JsonLink[] }>(target: T, links: JsonLink[]): T {
  if (links.length > 0) target.links = links;
  return target;
}

/** A block as plain text, for quotes: json has no place for structure inside a quote's text. */
function plainText(block: Block): string {
  switch (block.type) {
    case 'heading':
    case 'paragraph':
      return inlineText(block.children);
    case 'list':
      return block.items.map((item) => joinTexts(item, '\n')).join('\n');
    case 'table':
      return block.rows.map((row) => row.cells.map(inlineText).join(' | ')).join('\n');
    case 'code':
      return block.text;
    case 'quote':
      return joinTexts(block.blocks, '\n\n');
    case 'image':
      return block.caption || block.alt;
    case 'page':
      return '';
  }
}

/** An image without caption or alt has no text; it must not leave an empty line behind. */
function joinTexts(blocks: readonly Block[], separator: string): string {
  return blocks.map(plainText).filter((text) => text !== '').join(separator);
}

/** Links of a block in reading order, for the links of a quote. */
function blockLinks(block: Block, into: JsonLink[]): void {
  switch (block.type) {
    case 'heading':
    case 'paragraph':
      inlineLinks(block.children, into);
      return;
    case 'list':
      for (const item of block.items) for (const child of item) blockLinks(child, into);
      return;
    case 'table':
      for (const row of block.rows) for (const cell of row.cells) inlineLinks(cell, into);
      return;
    case 'quote':
      for (const child of block.blocks) blockLinks(child, into);
      return;
    case 'code':
    case 'image':
    case 'page':
      return;
  }
}
