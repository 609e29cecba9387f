import { Element, Text, type Document } from 'domhandler';
import { findFirst } from '../dom.js';
import { HEADING_LEVEL } from './block-tags.js';
import type { TextStats } from './text-stats.js';

/**
 * The article's headline inside the body: the heading that matches the title the page gives
 * itself (og:title, twitter:title, <title>). It anchors the article: what comes before it in
 * the same container (tickers, breadcrumbs, the site's own banner) is not the article, and
 * the headline itself is metadata, not body text.
 */
const SEPARATORS = /\s+[|–—\-:·»]+\s+|\s+::\s+/;
/** Words a heading and a title must share, over the words of the longer of the two. */
const MIN_SIMILARITY = 0.8;

/** The titles a page announces in its head, most specific first. */
export function pageTitles(doc: Document): string[] {
  const titles: string[] = [];
  const first = findFirst(doc, (element) => element.name === 'head' || element.name === 'body');
  const head = first?.name === 'head' ? first : doc;
  for (const name of ['og:title', 'twitter:title']) {
    const meta = findFirst(head, (element) => element.name === 'meta' && (element.attribs.property ?? element.attribs.name)?.toLowerCase() === name);
    const content = meta?.attribs.content?.trim();
    if (content) titles.push(content);
  }
  const title = findFirst(head, (element) => element.name === 'title');
  const text = title ? textOf(title) : '';
  if (text) titles.push(text);
  return titles;
}

/** Index (in `stats`) of the first heading in [from, to) matching one of the titles, or -1. */
export function findHeadline(stats: TextStats, titles: readonly string[], from: number, to: number): number {
  const wanted = titles.flatMap((title) => [title, ...title.split(SEPARATORS)]).map(tokens).filter((set) => set.size > 0);
  if (wanted.length === 0) return -1;
  for (let i = from; i < to; i++) {
    const element = stats.elements[i]!;
    if (stats.chars[i] === 0 || (!HEADING_LEVEL.has(element.name) && element.attribs.itemprop !== 'headline')) continue;
    const heading = tokens(textOf(element));
    if (heading.size > 0 && wanted.some((title) => similarity(heading, title) >= MIN_SIMILARITY)) return i;
  }
  return -1;
}

function tokens(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Shared words over the words of the larger set. */
function similarity(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / Math.max(a.size, b.size);
}

function textOf(element: Element): string {
  let text = '';
  const pending: Array<Element | Text> = [element];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node instanceof Text) text += node.data;
    else for (let i = node.children.length - 1; i >= 0; i--) {
      const child = node.children[i]!;
      if (child instanceof Text || child instanceof Element) pending.push(child);
    }
  }
  return text.replace(/\s+/g, ' ').trim();
}
