import type { AnyNode, Document, Element } from 'domhandler';

/**
 * Everything the metadata rules read from a page, gathered in one iterative pass over the
 * document. Pages can nest elements 100,000 deep, so neither this walk nor the bounded text
 * reads below recurse; and every list is capped so that a hostile page cannot make the later
 * rules quadratic.
 */
export interface PageSignals {
  /** lang (or xml:lang) of the <html> element. */
  htmlLang: string | null;
  /** <meta> contents by lower-cased name, property, itemprop or http-equiv, in document order. */
  meta: Map<string, string[]>;
  /** Text of the first <title> outside inline SVG. */
  title: string | null;
  baseHref: string | null;
  canonicalHref: string | null;
  /** Bodies of <script type="application/ld+json">. */
  jsonLd: string[];
  /** Texts of the first <h1> elements. */
  headings: string[];
  /** Texts of elements marked itemprop="headline". */
  headlines: string[];
  /** Names marked itemprop=author (or creator) and rel=author links, in document order. */
  itempropAuthors: string[];
  relAuthors: string[];
  /** Texts of byline elements, those inside <article> or <main> first. */
  bylines: string[];
  /** <time datetime> and itemprop="datePublished" values with where they were found. */
  times: TimeSignal[];
}

export interface TimeSignal {
  value: string;
  /** Marked as the publication date (itemprop=datePublished, pubdate, class "published"). */
  published: boolean;
  /** Inside <article>, <header> or <main>, where a page's own dates are. */
  inArticle: boolean;
}

const MAX_ITEMS = 20;
/**
 * Element texts read per page. Each read is bounded (MAX_TEXT_NODES), and this bounds their
 * number: candidates whose text turns out empty or too long do not fill a list, so without
 * it 50,000 nested "byline" elements would each be read.
 */
const MAX_READS = 200;
/** Names and headlines are short; longer texts are not what these rules look for. */
const MAX_SHORT_TEXT = 300;
/** Reading an element's text stops after this many nodes, which keeps each read cheap. */
const MAX_TEXT_NODES = 500;

/**
 * Class or id naming a byline: "byline" anywhere ("FeatureByline"), "author" as a word or a
 * camel-case part ("post-author", "article__author", "postAuthor"), not inside another word
 * ("coauthor", "authority").
 */
const BYLINE_CLASS = /[Bb]y-?line|[Ww]ritten-?[Bb]y|(?:^|[^a-zA-Z])[Aa]uthors?(?![a-z])|[a-z]Authors?(?![a-z])/;
/** Author widgets that name someone else (comments), say too much (bio boxes) or nothing (avatars, labels). */
const NOT_BYLINE_CLASS = /comment|reply|respond|disqus|bio\b|avatar|photo|image|img|heading|title|label|about|note|follow|social|related/i;
/** Parts of a byline widget around the name: role, date, photo, social links, counters. */
const NOT_NAME_PART = /title|role|job|position|bio|date|time|avatar|photo|image|img|follow|social|share|twitter|mail|count/i;
/** Inside a byline, the element holding just the name ("author-name", "byline__name", itemprop=name). */
const NAME_CLASS = /(?:^|[\s_-])(?:author|byline|by)?[-_]?name(?:$|[\s_-])|authorname/i;
/** A byline is a line: longer text is a container that happens to carry an author class. */
const MAX_BYLINE = 150;
const PUBLISHED_CLASS = /\b(?:published|publish-date|pubdate|post-date|entry-date|date-published|article-date|dateline)\b/i;
const SKIPPED_TEXT = new Set(['script', 'style', 'noscript', 'template', 'svg']);
const NOT_BYLINE_TAGS = new Set(['html', 'body', 'meta', 'link', 'article', 'main', 'section']);

// Context bits carried down the walk, one small integer per stacked node.
const IN_SVG = 1;
/** Inside <article>, <main> or <header>: where a page's own dates are. */
const IN_ARTICLE = 2;
/** Inside <article> or <main>: bylines here are the article's, not a teaser's. */
const IN_MAIN = 4;
/** Comments, <nav>, a page-level <aside> or <footer>: authors there are not the article's. */
const ASIDE = 8;

export function scanPage(doc: Document): PageSignals {
  const signals: PageSignals = {
    htmlLang: null,
    meta: new Map(),
    title: null,
    baseHref: null,
    canonicalHref: null,
    jsonLd: [],
    headings: [],
    headlines: [],
    itempropAuthors: [],
    relAuthors: [],
    bylines: [],
    times: [],
  };
  const scan: Scan = { signals, reads: 0 };
  const mainBylines: string[] = [];
  const otherBylines: string[] = [];
  const nodes: AnyNode[] = [doc];
  const contexts: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    let context = contexts.pop()!;
    if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      context = visitElement(node as Element, context, scan);
      if (isByline(node as Element, context)) {
        const list = context & IN_MAIN ? mainBylines : otherBylines;
        collect(scan, list, () => bylineText(node as Element));
      }
      // Script and style bodies are never page text; JSON-LD was read in visitElement.
      if (node.type !== 'tag') continue;
    }
    if ('children' in node) {
      const children = node.children;
      for (let i = children.length - 1; i >= 0; i--) {
        nodes.push(children[i]!);
        contexts.push(context);
      }
    }
  }
  signals.bylines = [...mainBylines, ...otherBylines];
  return signals;
}

/** The signals being gathered and the text reads spent on them. */
interface Scan {
  signals: PageSignals;
  reads: number;
}

/** Records what `element` tells about the page; returns the context for its children. */
function visitElement(element: Element, context: number, scan: Scan): number {
  const signals = scan.signals;
  const name = element.name;
  const attrs = element.attribs;
  switch (name) {
    case 'html':
      signals.htmlLang ??= nonEmpty(attrs.lang ?? attrs['xml:lang']);
      break;
    case 'meta':
      addMeta(attrs, signals.meta);
      break;
    case 'title':
      if (!(context & IN_SVG) && signals.title === null) signals.title = boundedText(element, 2000) || null;
      break;
    case 'base':
      signals.baseHref ??= nonEmpty(attrs.href);
      break;
    case 'link':
      if (relIncludes(attrs.rel, 'canonical')) signals.canonicalHref ??= nonEmpty(attrs.href);
      break;
    case 'script':
      if (attrs.type?.trim().toLowerCase() === 'application/ld+json' && signals.jsonLd.length < MAX_ITEMS) {
        signals.jsonLd.push(rawText(element));
      }
      break;
    case 'svg':
      context |= IN_SVG;
      break;
    case 'h1':
      collect(scan, signals.headings, () => boundedText(element, MAX_SHORT_TEXT));
      break;
    case 'time':
      if (attrs.datetime) pushTime(signals, attrs.datetime, 'pubdate' in attrs || PUBLISHED_CLASS.test(attrs.class ?? ''), context);
      break;
    case 'article':
    case 'main':
      context |= IN_ARTICLE | IN_MAIN;
      break;
    case 'header':
      context |= IN_ARTICLE;
      break;
    case 'nav':
      context |= ASIDE;
      break;
    case 'aside':
    case 'footer':
      // A sidebar or page footer; an article's own <aside> or <footer> may hold its byline.
      if (!(context & IN_MAIN)) context |= ASIDE;
      break;
  }
  if (/comment|disqus|respond/i.test(`${attrs.class ?? ''} ${attrs.id ?? ''}`)) context |= ASIDE;
  const itemprop = attrs.itemprop?.toLowerCase();
  if (itemprop) visitItemprop(element, itemprop.split(/\s+/), context, scan);
  if (name === 'a' && relIncludes(attrs.rel, 'author') && !(context & ASIDE)) collect(scan, signals.relAuthors, () => nameText(element));
  return context;
}

function isByline(element: Element, context: number): boolean {
  if (context & ASIDE || NOT_BYLINE_TAGS.has(element.name) || relIncludes(element.attribs.rel, 'author')) return false;
  const classAndId = `${element.attribs.class ?? ''} ${element.attribs.id ?? ''}`;
  return BYLINE_CLASS.test(classAndId) && !NOT_BYLINE_CLASS.test(classAndId);
}

/** The name part of a byline when it is marked, else the whole line; empty when it is no line. */
function bylineText(element: Element): string {
  const named = findDescendant(element, (e) => NAME_CLASS.test(e.attribs.class ?? '') || /\bname\b/i.test(e.attribs.itemprop ?? ''));
  const text = nameText(named ?? element);
  return text.length <= MAX_BYLINE ? text : '';
}

function visitItemprop(element: Element, props: string[], context: number, scan: Scan): void {
  if (element.name === 'meta') return; // its content was recorded as a <meta> key
  const signals = scan.signals;
  const attrs = element.attribs;
  if (props.includes('headline')) collect(scan, signals.headlines, () => attrs.content ?? boundedText(element, MAX_SHORT_TEXT));
  if ((props.includes('author') || props.includes('creator')) && !(context & ASIDE)) {
    collect(scan, signals.itempropAuthors, () => {
      // <span itemprop="author" itemscope><span itemprop="name">…</span></span>: the name is inside.
      const named = 'itemscope' in attrs ? findDescendant(element, (e) => /\bname\b/i.test(e.attribs.itemprop ?? '')) : null;
      return named ? (named.attribs.content ?? nameText(named)) : (attrs.content ?? nameText(element));
    });
  }
  if (props.includes('datepublished')) {
    const value = attrs.datetime ?? attrs.content ?? null;
    if (value !== null) pushTime(signals, value, true, context);
    else if (signals.times.length < MAX_ITEMS && scan.reads < MAX_READS) {
      scan.reads++;
      pushTime(signals, boundedText(element, 100), true, context);
    }
  }
}

function addMeta(attrs: Record<string, string>, meta: Map<string, string[]>): void {
  const content = attrs.content?.trim();
  if (!content) return;
  const keys = `${attrs.name ?? ''} ${attrs.property ?? ''} ${attrs.itemprop ?? ''} ${attrs['http-equiv'] ?? ''}`;
  // property="dc:title og:title" names the same value twice.
  for (const key of keys.toLowerCase().split(/\s+/)) {
    if (!key) continue;
    const values = meta.get(key);
    if (!values) meta.set(key, [content]);
    else if (values.length < MAX_ITEMS) values.push(content);
  }
}

function pushTime(signals: PageSignals, value: string, published: boolean, context: number): void {
  const trimmed = value.trim();
  // Comments carry their own dates, often marked itemprop=datePublished.
  if (trimmed && !(context & ASIDE) && signals.times.length < MAX_ITEMS) signals.times.push({ value: trimmed, published, inArticle: (context & IN_ARTICLE) !== 0 });
}

/** Adds the text `read` returns unless `list` is full or the reads are spent, in which case nothing is read. */
function collect(scan: Scan, list: string[], read: () => string): void {
  if (list.length >= MAX_ITEMS || scan.reads >= MAX_READS) return;
  scan.reads++;
  const text = read();
  if (text) list.push(text);
}

function relIncludes(rel: string | undefined, value: string): boolean {
  return rel !== undefined && rel.toLowerCase().split(/\s+/).includes(value);
}

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/**
 * The whitespace-normalised text of `element`, read iteratively: at most `maxChars` characters
 * and MAX_TEXT_NODES nodes, so that reading many candidates stays linear in the page size.
 * Block elements separate words. For names (`asName`), inline elements separate words too,
 * since bylines lay out name, date and role in adjacent spans, and those other parts are left
 * out ("<span>Jane Doe</span><span class="author-title">Editor</span><time>…</time>").
 */
function boundedText(element: Element, maxChars: number, asName = false): string {
  let text = '';
  let visited = 0;
  // Frames of (children, next index) rather than a copy of every child list: a flat element
  // with 100,000 children costs no more than the nodes actually read.
  const frames: Array<{ nodes: AnyNode[]; next: number }> = [{ nodes: element.children, next: 0 }];
  while (frames.length > 0 && text.length <= maxChars && visited < MAX_TEXT_NODES) {
    const frame = frames[frames.length - 1]!;
    const node = frame.nodes[frame.next++];
    if (node === undefined) {
      frames.pop();
      continue;
    }
    visited++;
    if (node.type === 'text') text += node.data;
    else if (node.type === 'tag' && !SKIPPED_TEXT.has(node.name)) {
      if (asName && (node.name === 'time' || NOT_NAME_PART.test(node.attribs.class ?? ''))) continue;
      if (asName || !INLINE.has(node.name)) text += ' ';
      frames.push({ nodes: node.children, next: 0 });
    }
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, maxChars);
}

/** Text of an element that holds a name. */
function nameText(element: Element): string {
  return boundedText(element, MAX_SHORT_TEXT, true);
}

const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'kbd', 'mark', 'q', 's', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr']);

/** The raw body of a script element (its text children, unchanged). */
function rawText(element: Element): string {
  let text = '';
  for (const child of element.children) if (child.type === 'text') text += child.data;
  return text;
}

/** The first element below `root` (document order) passing `test`, searched iteratively and boundedly. */
function findDescendant(root: Element, test: (element: Element) => boolean): Element | null {
  const frames: Array<{ nodes: AnyNode[]; next: number }> = [{ nodes: root.children, next: 0 }];
  let visited = 0;
  while (frames.length > 0 && visited < MAX_TEXT_NODES) {
    const frame = frames[frames.length - 1]!;
    const node = frame.nodes[frame.next++];
    if (node === undefined) {
      frames.pop();
      continue;
    }
    visited++;
    if (node.type !== 'tag') continue;
    if (test(node)) return node;
    frames.push({ nodes: node.children, next: 0 });
  }
  return null;
}
