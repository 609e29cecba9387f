/**
 * Firecrawl's scrape options mapped onto POST /v1/extract's request, and an extraction as
 * Firecrawl's document. Scrape, batch scrape and search (with scrapeOptions) share them.
 */
import type { ExtractRequest, ExtractResult } from '../extract/types.js';
import { ignored, unsupported } from './compat-answer.js';
import { ApiError } from '../errors/catalogue.js';
import { checkSelectors, SelectorError } from '../html/selectors.js';

export type FirecrawlFormat = string | { type: string };

/** Firecrawl's scrape options as the schemas validated them (compat-firecrawl-scrape.request#/$defs/scrapeOptions). */
export interface FirecrawlScrapeOptions {
  formats?: FirecrawlFormat[];
  onlyMainContent?: boolean;
  timeout?: number;
  maxAge?: number;
  includeTags?: string[];
  excludeTags?: string[];
  headers?: Record<string, unknown>;
  actions?: unknown[];
  waitFor?: number;
  [option: string]: unknown;
}

/** The formats a scrape can give: the main content as Markdown or safe HTML, its links, the page's HTML as received. */
export type ContentFormat = 'markdown' | 'html' | 'links' | 'rawHtml';

export interface ScrapePlan {
  formats: ContentFormat[];
  /** The extraction of the first content format; a second one (html beside markdown) renders the stored page. */
  request: (url: string) => ExtractRequest;
  warnings: string[];
}

/** Firecrawl's default maxAge (2 days), in milliseconds. */
const DEFAULT_MAX_AGE_MS = 2 * 24 * 3600 * 1000;
/** The longest options.max_age allows, in seconds. */
const MAX_AGE_LIMIT_S = 30 * 24 * 3600;
/** Firecrawl's default time limit, in milliseconds; ours are at most 60 s. */
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_S = 60;

const IGNORED: Readonly<Record<string, string>> = {
  mobile: 'pages are fetched one way',
  location: 'pages are fetched from where the service runs',
  proxy: 'no proxies',
  blockAds: 'the main-content extractor leaves advertising out',
  fastMode: 'one way of reading pages',
  parsers: 'HTML and plain text are read',
  skipTlsVerification: 'certificates are always verified',
  storeInCache: 'every extraction is stored',
  auditMetadata: 'the audit log records every request',
  threatProtection: 'not offered',
  lockdown: 'not offered',
  useMock: 'not offered',
};

const REFUSED: Readonly<Record<string, string>> = {
  minAge: 'stored extractions are not served by a minimum age',
  redactPII: 'personal data is not redacted',
  profile: 'no browser profiles',
  domainTools: 'no tool discovery',
  toolDetail: 'no tool discovery',
};

const FORMATS: ReadonlySet<string> = new Set(['markdown', 'html', 'links', 'rawHtml']);

/** What an option's value asks for: absent, false and empty lists ask for nothing. */
function asksFor(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/**
 * The extraction a scrape's options ask for, refusing what cannot be honoured; `prefix` names
 * the options where they are nested (`scrapeOptions.`).
 */
export function scrapePlan(options: FirecrawlScrapeOptions, prefix = ''): ScrapePlan {
  const name = (option: string) => `${prefix}${option}`;
  for (const [option, reason] of Object.entries(REFUSED)) if (asksFor(options[option])) throw unsupported(name(option), reason, options[option]);
  const include = options.includeTags ?? [];
  const exclude = options.excludeTags ?? [];
  checkTags(include, exclude, name);
  if (asksFor(options.headers)) throw unsupported(name('headers'), 'requests carry the service\'s own headers', options.headers);
  if (asksFor(options.actions)) throw unsupported(name('actions'), 'rendered pages are read, not clicked or typed into', options.actions);
  const warnings = Object.entries(IGNORED).filter(([option]) => options[option] !== undefined).map(([option, reason]) => ignored(name(option), reason));

  const formats: ContentFormat[] = [];
  for (const format of options.formats ?? ['markdown']) {
    const type = typeof format === 'string' ? format : format.type;
    if (!FORMATS.has(type)) {
      const reason = type === 'summary' ? 'per-page summaries are not generated' : 'only markdown, html, rawHtml and links are given';
      throw unsupported(name('formats'), reason, type);
    }
    if (!formats.includes(type as ContentFormat)) formats.push(type as ContentFormat);
  }
  const timeoutMs = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const timeout = Math.min(MAX_TIMEOUT_S, Math.ceil(timeoutMs / 1000));
  if (timeoutMs > MAX_TIMEOUT_S * 1000) warnings.push(`${name('timeout')} ${timeoutMs} lowered to ${MAX_TIMEOUT_S * 1000}, the longest fetch`);
  const maxAge = Math.min(MAX_AGE_LIMIT_S, Math.floor((options.maxAge ?? DEFAULT_MAX_AGE_MS) / 1000));
  const render = renderOf(options.waitFor, name, warnings);
  return {
    formats,
    warnings,
    request: (url) => ({
      url,
      format: formats.includes('markdown') || !formats.includes('html') ? 'markdown' : 'html',
      include_metadata: true,
      extract_images: false,
      extract_links: formats.includes('links'),
      clean_html: options.onlyMainContent ?? true,
      options: {
        timeout, preserve_formatting: false, min_content_length: 0, max_age: maxAge, ...render,
        ...(include.length > 0 ? { include_selectors: include } : {}),
        ...(exclude.length > 0 ? { exclude_selectors: exclude } : {}),
      },
      ...(formats.includes('rawHtml') ? { raw_html: true } : {}),
    }),
  };
}

/** The longest wait options.wait_for allows, in milliseconds. */
const MAX_WAIT_MS = 60_000;

/**
 * Firecrawl's waitFor, a delay before the page is read, asks for a page that a browser has run:
 * it is rendered, and read that many milliseconds after its load event (within the time limit).
 * Without it the server's RENDER_DEFAULT applies, as for POST /v1/extract.
 */
function renderOf(waitFor: number | undefined, name: (option: string) => string, warnings: string[]): { render?: 'always'; wait_for?: number } {
  if (!waitFor) return {};
  if (waitFor > MAX_WAIT_MS) warnings.push(`${name('waitFor')} ${waitFor} lowered to ${MAX_WAIT_MS}, the longest wait`);
  return { render: 'always', wait_for: Math.min(waitFor, MAX_WAIT_MS) };
}

/** includeTags and excludeTags are CSS selectors: INVALID_PARAMETER naming the first that does not parse. */
function checkTags(include: readonly string[], exclude: readonly string[], name: (option: string) => string): void {
  try {
    checkSelectors({ include, exclude });
  } catch (error) {
    if (!(error instanceof SelectorError)) throw error;
    const parameter = error.parameter.replace('options.include_selectors', name('includeTags')).replace('options.exclude_selectors', name('excludeTags'));
    throw new ApiError('INVALID_PARAMETER', { parameter, reason: `is not a valid CSS selector (${error.reason})`, provided: error.selector }, `${parameter} is not a valid CSS selector: ${error.reason}`);
  }
}

export interface FirecrawlDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  metadata: Record<string, string | number>;
  warning?: string;
}

/** An extraction as Firecrawl's document, `html` given when a second rendering was made. */
export function firecrawlDocument(url: string, formats: readonly ContentFormat[], page: ExtractResult, scrapeId: string, html?: string): FirecrawlDocument {
  const meta = page.metadata ?? {};
  const text = (field: string) => (typeof meta[field] === 'string' ? { [field]: meta[field] as string } : {});
  const document: FirecrawlDocument = {
    metadata: {
      ...text('title'),
      ...text('description'),
      ...text('language'),
      ...text('author'),
      ...(typeof meta.published_date === 'string' ? { publishedTime: meta.published_date } : {}),
      sourceURL: url,
      url: page.final_url,
      // An extraction succeeds only on a page that answered 2xx; its exact status is not kept.
      statusCode: 200,
      scrapeId,
      cacheState: page.cached ? 'hit' : 'miss',
      ...(page.cached ? { cachedAt: page.fetched_at } : {}),
    },
  };
  const content = page.content as string;
  if (formats.includes('markdown')) document.markdown = content;
  if (formats.includes('html')) document.html = formats.includes('markdown') ? html ?? '' : content;
  if (formats.includes('links')) document.links = (page.links ?? []).map((l) => l.url);
  if (formats.includes('rawHtml')) document.rawHtml = page.raw_html ?? '';
  return document;
}

/** The formats an extraction request gives, as Firecrawl names them (a batch's pages are read back from their requests). */
export function formatsOf(request: ExtractRequest): ContentFormat[] {
  return [
    request.format === 'html' ? 'html' : 'markdown',
    ...(request.extract_links ? ['links' as const] : []),
    ...(request.raw_html ? ['rawHtml' as const] : []),
  ];
}

/** options.max_age that serves the extraction just made to a second rendering of it. */
export function secondRenderingMaxAge(page: ExtractResult): number {
  return Math.min(MAX_AGE_LIMIT_S, Math.ceil((Date.now() - Date.parse(page.fetched_at)) / 1000) + 60);
}
