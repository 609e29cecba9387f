import type { Document } from 'domhandler';
import { pickAuthor } from './author.js';
import { dateFromUrl, parseDate } from './dates.js';
import { readLinkedData } from './json-ld.js';
import { detectLanguage, normalizeLanguageTag } from '../../text/language.js';
import { scanPage, type PageSignals } from './page-signals.js';
import { hostNames, pickSiteName } from './site-name.js';
import { plainText } from './text.js';
import { pickTitle } from './title.js';
import { measureWords, readingTime } from './word-count.js';

/** What a page says about itself, read from its markup (section 2.2 metadata and the stored extras). */
export interface PageMetadata {
  title: string | null;
  /** Author names, several joined with ", ". */
  author: string | null;
  /** ISO 8601: offset kept when the page gives one, date-only when it gives only a date (see dates.ts). */
  publishedDate: string | null;
  /** Primary language code the markup declares; detectLanguage weighs it against the text. */
  language: string | null;
  siteName: string | null;
  description: string | null;
  /** Absolute http(s) URL. */
  canonicalUrl: string | null;
  /** ISO 3166-1 alpha-2 country the page declares (geo meta tags, or the region of its language tag: en-GB → GB). */
  region: string | null;
}

/** What the main text itself tells: its language, length and reading time. */
export interface TextMetadata {
  language: string | null;
  wordCount: number;
  readingTime: string;
}

/**
 * <meta> keys per field, in order of preference. Dublin Core first where a page has it: it is
 * written deliberately, while "author" is often filled in by templates. For descriptions the
 * summaries written for search and sharing (JSON-LD, og:description) come before the plain
 * "description", which is more often a truncated SEO text.
 */
const AUTHOR_KEYS = ['dc.creator', 'dc:creator', 'dcterms.creator', 'dcterm:creator', 'author', 'article:author', 'og:article:author', 'parsely-author', 'sailthru.author', 'byl', 'citation_author', 'book:author'];
const DATE_KEYS = [
  'article:published_time', 'og:article:published_time', 'article:published', 'datepublished', 'parsely-pub-date',
  'sailthru.date', 'dc.date.issued', 'dcterms.issued', 'dc.date', 'dc:date', 'dcterms.date', 'dcterms.created',
  'dc.date.created', 'date', 'pubdate', 'publishdate', 'publish-date', 'publish_date', 'published-date',
  'article.published', 'citation_publication_date', 'citation_date',
];
const HEADLINE_KEYS = ['dc.title', 'dc:title', 'dcterms.title', 'dcterm:title', 'og:title', 'twitter:title', 'parsely-title'];
const DESCRIPTION_KEYS = ['dc.description', 'dc:description', 'dcterms.description', 'og:description', 'description', 'twitter:description'];
const LANGUAGE_KEYS = ['content-language', 'language', 'dc.language', 'dc:language', 'og:locale'];
const MAX_DESCRIPTION = 1000;
/** Where a page names its country: geo tags first (they say nothing else), then locales. */
const COUNTRY_KEYS = ['geo.country', 'geo.region'];
const LOCALE_REGION = /^[a-z]{2,3}[-_]([a-z]{2})(?:$|[-_])/i;
const COUNTRY_CODE = /^([a-z]{2})(?:$|-)/i;

export function extractMetadata(doc: Document, url: string): PageMetadata {
  const signals = scanPage(doc);
  const linked = readLinkedData(signals.jsonLd);
  const meta = (key: string): string | null => signals.meta.get(key)?.[0] ?? null;
  const firstMeta = (keys: readonly string[]): string | null => {
    for (const key of keys) {
      const value = meta(key);
      if (value) return plainText(value);
    }
    return null;
  };

  const siteName = pickSiteName([meta('og:site_name'), linked.publisher, linked.website, meta('application-name')], url);
  const author = pickAuthor({
    jsonLd: linked.authors,
    meta: AUTHOR_KEYS.map((key) => signals.meta.get(key) ?? []),
    itemprop: signals.itempropAuthors,
    relAuthor: signals.relAuthors,
    bylines: signals.bylines,
  });
  const title = pickTitle({
    headlines: [...linked.titles, ...HEADLINE_KEYS.map(meta).filter((v): v is string => v !== null), ...signals.headlines],
    documentTitle: signals.title,
    headings: signals.headings,
    names: [
      ...[siteName, linked.publisher, linked.website, meta('application-name'), meta('og:site_name')].filter((v): v is string => v !== null),
      ...hostNames(url),
      ...(author ? author.split(', ') : []),
    ],
  });
  const description = linked.description ?? firstMeta(DESCRIPTION_KEYS);

  return {
    title,
    author,
    publishedDate: publishedDate(signals, linked.datePublished, url),
    language: [signals.htmlLang, ...LANGUAGE_KEYS.map(meta)].map(normalizeLanguageTag).find((tag) => tag !== null) ?? null,
    siteName,
    description: description ? description.slice(0, MAX_DESCRIPTION) : null,
    canonicalUrl: canonicalUrl(signals, url),
    region: declaredRegion(COUNTRY_KEYS.map(meta), [signals.htmlLang, ...LANGUAGE_KEYS.map(meta)]),
  };
}

/** "US-NY" or "de" from a geo tag, else the region subtag of a locale ("en-GB", "fr_CA"); script or numeric subtags ("zh-Hant", "es-419") name no country. */
function declaredRegion(geo: readonly (string | null)[], locales: readonly (string | null)[]): string | null {
  for (const value of geo) {
    const match = value ? COUNTRY_CODE.exec(value.trim()) : null;
    if (match) return match[1]!.toUpperCase();
  }
  for (const value of locales) {
    const match = value ? LOCALE_REGION.exec(value.trim()) : null;
    if (match) return match[1]!.toUpperCase();
  }
  return null;
}

/** Language, word count and reading time of the main text, the markup's language as a hint. */
export function describeText(text: string, markupLanguage: string | null): TextMetadata {
  const language = detectLanguage(text, markupLanguage);
  const count = measureWords(text, language);
  return { language, wordCount: count.words, readingTime: readingTime(count, language) };
}

/**
 * The first date that parses, sources in order of intent: JSON-LD datePublished, publication
 * <meta> tags, a <time>/itemprop marked as the publication date, the first <time> of the
 * article or its header, and last a date in the URL path.
 */
function publishedDate(signals: PageSignals, linkedDate: string | null, url: string): string | null {
  const candidates = [
    linkedDate,
    ...DATE_KEYS.map((key) => signals.meta.get(key)?.[0]),
    ...signals.times.filter((t) => t.published).map((t) => t.value),
    signals.times.find((t) => t.inArticle)?.value,
  ];
  for (const candidate of candidates) {
    const date = candidate ? parseDate(candidate) : null;
    if (date) return date;
  }
  return dateFromUrl(url);
}

/** <link rel=canonical> resolved against <base href> and the page URL; else og:url. */
function canonicalUrl(signals: PageSignals, url: string): string | null {
  const base = resolve(signals.baseHref, url) ?? url;
  return resolve(signals.canonicalHref, base) ?? resolve(signals.meta.get('og:url')?.[0] ?? null, base);
}

function resolve(href: string | null, base: string): string | null {
  if (!href) return null;
  try {
    const resolved = new URL(href.trim(), base);
    return resolved.protocol === 'http:' || resolved.protocol === 'https:' ? resolved.href : null;
  } catch {
    return null;
  }
}
