import { Element, type Document, type ParentNode } from 'domhandler';
import type { Block } from '../blocks.js';
import { baseUrl, findFirst } from '../dom.js';
import { applySelectors, type PageSelectors } from '../selectors.js';
import { chooseContainer } from './container.js';
import { trimEdges } from './edges.js';
import { findHeadline, pageTitles } from './headline.js';
import { boilerplateFilter, isLinkRich } from './prune.js';
import { scoreElements } from './scoring.js';
import { otherLinks, type LocatedLink } from './other-links.js';
import { measureBlocks, type ContentSignals } from './signals.js';
import { collectReferences, type ImageRef, type LinkRef } from './references.js';
import { agreement, structuredArticleBody } from './structured-data.js';
import { measureText } from './text-stats.js';
import { toBlocks } from './to-blocks.js';

export type { ContentSignals } from './signals.js';
export type { ImageRef, LinkRef } from './references.js';
export type { LocatedLink, LinkLocation } from './other-links.js';

/**
 * The main content of a page as blocks, with the pictures and links it holds and signals
 * for a quality score.
 *
 * 1. measure the text of every element once, bottom-up (text-stats.ts);
 * 2. value every text block from its text (prose for, furniture against) and read the
 *    markup hints (scoring.ts, hints.ts);
 * 3. pick the element whose subtree gathers the most value, believing doubtful hints only
 *    while they leave an article (container.ts);
 * 4. inside it, leave out hinted boilerplate, teaser and link lists, and what precedes the
 *    headline (prune.ts, headline.ts);
 * 5. convert what is left to blocks (to-blocks.ts) and trim the leftovers at its ends:
 *    datelines above the first sentence, "more stories" below the last (edges.ts).
 * With clean=false steps 2–4 and the trimming are skipped: the whole visible body is converted.
 *
 * Selectors act first: excluded elements leave the page, and included ones, when given, are
 * where all of the above happens. The page's links outside the content, with where they sit,
 * are read from the whole page (less what was excluded) on request.
 */
export interface MainContent {
  blocks: Block[];
  signals: ContentSignals;
  images: ImageRef[];
  links: LinkRef[];
  /** The page's links outside the content (empty unless asked for). */
  otherLinks: LocatedLink[];
  /** include_selectors were given and matched no element: the content is empty for that reason. */
  nothingIncluded: boolean;
}

export interface ExtractOptions {
  /** The page's URL: relative references resolve against it (or its <base href>). */
  url: string;
  /** true: the main content only; false: the whole visible body. */
  clean: boolean;
  /** CSS selectors shaping the page before its content is looked for (the tree is changed). */
  selectors?: PageSelectors;
  /** Whether to read the page's links outside the content. */
  otherLinks?: boolean;
}

export function extractMainContent(doc: Document, options: ExtractOptions): MainContent {
  const base = baseUrl(doc, options.url);
  const body = findFirst(doc, (element) => element.name === 'body') ?? doc;
  const included = options.selectors ? applySelectors(body, options.selectors) : null;
  // The included elements under one stand-in body: a view that leaves their place in the page as it is.
  const scope: ParentNode = included ? new Element('body', {}, included) : body;
  const stats = measureText(scope);
  const pageChars = stats.elements.length > 0 ? stats.chars[0]! : 0;

  let nodes = scope.children;
  let skip = (element: Element): boolean => !stats.index.has(element);
  let container = { value: 0, runnerUp: 0, hintsOverruled: 0 };
  let headline = -1;
  let linkRich = false;
  if (options.clean && stats.elements.length > 0) {
    const scores = scoreElements(stats);
    const choice = chooseContainer(stats, scores);
    headline = findHeadline(stats, pageTitles(doc), choice.index + 1, choice.index + stats.size[choice.index]!);
    nodes = [stats.elements[choice.index]!];
    skip = boilerplateFilter(stats, scores, choice.index, headline);
    linkRich = isLinkRich(stats, choice.index);
    container = choice;
  }
  const converted = toBlocks(nodes, { base, skip });
  const blocks = options.clean ? trimEdges(converted, linkRich) : converted;
  const { images, links } = collectReferences(blocks);

  const kept = measureBlocks(blocks);
  const declared = structuredArticleBody(doc);
  const match = declared === null ? null : agreement(kept.text, declared);
  const signals: ContentSignals = {
    textChars: kept.chars,
    words: kept.words,
    paragraphs: kept.paragraphs,
    linkDensity: kept.chars > 0 ? kept.linkChars / kept.chars : 0,
    pageShare: pageChars > 0 ? Math.min(1, kept.chars / pageChars) : 0,
    containerScore: container.value,
    margin: container.value > 0 ? Math.max(0, 1 - container.runnerUp / container.value) : 0,
    hintsOverruled: container.hintsOverruled,
    headlineFound: headline >= 0,
    declaredChars: declared?.length ?? 0,
    declaredCoverage: match?.coverage ?? null,
    declaredSupport: match?.support ?? null,
  };
  const others = options.otherLinks ? otherLinks(body, base, new Set(links.map((link) => link.url))) : [];
  return { blocks, signals, images, links, otherLinks: others, nothingIncluded: included?.length === 0 };
}
