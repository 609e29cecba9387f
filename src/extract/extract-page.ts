import { sha256Hex } from '../storage/hash.js';
import type { Kysely } from 'kysely';
import type { LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import type { CpuPool } from '../pool/pool.js';
import type { Database } from '../storage/schema.js';
import { parseStorableDate } from '../storage/datetime.js';
import type { DocumentIndex } from '../index/types.js';
import { blocksJsonOf, withinPoolLimit } from '../page/read-page.js';
import { readPageRendered } from '../render/read-rendered-page.js';
import type { BrowserPool } from '../render/browser-pool.js';
import { decodeBody } from '../page/decode-body.js';
import { findFreshExtraction, type StoredExtraction } from './extraction.repository.js';
import type { ExtractionRows } from './extraction-rows.js';
import type { ExtractRequest, ExtractResult } from './types.js';
import type { CleanHtmlOutput } from '../html/clean-html.js';
import type { LocatedLink } from '../html/content/other-links.js';
import type { PageSelectors } from '../html/selectors.js';
import { countAll, countTokens } from '../text/tokens.js';
import type { ReadExtraction, UnstoredPages } from './unstored-pages.js';

export interface ExtractDeps {
  config: Config;
  pool: CpuPool;
  db: Kysely<Database>;
  /** The process-wide cap on outbound requests (FETCH_CONCURRENCY). */
  fetchLimit: LimitFunction;
  metrics?: Metrics;
  /** Every stored extraction is also indexed for search. */
  index: DocumentIndex;
  /** Pages read by an attempt that could not store them, for the retry. */
  unstored: UnstoredPages;
  /** Where extraction rows are written, grouped with concurrent jobs' (extraction-rows.ts). */
  rows: ExtractionRows;
  /** The browser that renders pages for options.render (absent: none, as if Chromium were missing). */
  browsers?: BrowserPool | undefined;
}

export interface ExtractContext {
  requestId: string;
  /** Sandbox requests read and write sandbox extractions only. */
  mode: 'live' | 'test';
  /** The job, and how many of its attempts failed before this one. */
  jobId: string;
  attemptsMade: number;
}

/**
 * Read the page (fetch → decode → clean in the pool) → store → the result of section 2.2. With
 * options.max_age, a stored extraction of the same URL young enough is rendered instead. When
 * storing fails, what was read is kept for the job's retry, which only writes it.
 */
export async function extractPage(deps: ExtractDeps, context: ExtractContext, request: ExtractRequest): Promise<ExtractResult> {
  const urlHash = sha256Hex(request.url);
  const scope = extractionScope(request);
  // A stored extraction has no raw HTML: a request for it always reads the page.
  if (request.options.max_age > 0 && !request.raw_html) {
    const since = new Date(Date.now() - request.options.max_age * 1000);
    const key = { urlHash, cleanHtml: mainContentOnly(request), scope, mode: context.mode, otherLinks: request.extract_links };
    const stored = await findFreshExtraction(deps.db, key, since);
    const { blocksJson } = stored ?? {};
    if (stored && blocksJson) return sized(deps, request, await fromStore(deps, stored, blocksJson, request), () => blocksJson, stored.language);
  }

  const kept = context.attemptsMade > 0 ? await deps.unstored.find(context.jobId, request.url) : undefined;
  const read = kept ?? await readExtraction(deps, request);
  try {
    await store(deps, context, request, urlHash, scope, read);
  } catch (error) {
    await deps.unstored.keep(context.jobId, read);
    throw error;
  }
  if (kept) await deps.unstored.forget(context.jobId);
  const answered = await sized(deps, request, result(request, read.finalUrl, read.cleaned, { cached: false, fetchedAt: read.fetchedAt }),
    () => blocksJsonOf(read.cleaned), read.cleaned.metadata.language);
  const withRender = read.render ? { ...answered, render: read.render } : answered;
  return request.raw_html ? { ...withRender, raw_html: read.rawHtml ?? '' } : withRender;
}

async function readExtraction(deps: ExtractDeps, request: ExtractRequest): Promise<ReadExtraction> {
  const { page, cleaned, render } = await readPageRendered(deps, request.url, {
    timeoutMs: request.options.timeout * 1000,
    respectRobots: request.options.respect_robots ?? deps.config.fetch.respectRobots,
    format: request.format,
    clean: mainContentOnly(request),
    preserveFormatting: request.options.preserve_formatting,
    minContentLength: request.options.min_content_length,
    pageMarkers: request.options.pdf_page_markers,
    ...(pageSelectors(request) ? { selectors: pageSelectors(request)! } : {}),
    otherLinks: request.extract_links,
    // Only the page's own content is indexed (see store).
    prepareForIndex: extractionScope(request) === null,
  }, { mode: request.options.render ?? deps.config.render.defaultMode, waitFor: request.options.wait_for ?? 'networkidle' });
  return {
    url: request.url, finalUrl: page.finalUrl, cleaned, fetchedAt: new Date(), stored: false,
    // A PDF has no HTML to return.
    ...(request.raw_html ? { rawHtml: page.kind === 'pdf' ? '' : decodeBody(page.body, page.charset) } : {}),
    ...(render ? { render } : {}),
  };
}

/** Main content (clean_html and options.only_main_content both true), or the whole body. */
function mainContentOnly(request: ExtractRequest): boolean {
  return request.clean_html && request.options.only_main_content !== false;
}

/** The request's selectors, or undefined when it gives none. */
function pageSelectors(request: ExtractRequest): PageSelectors | undefined {
  const include = request.options.include_selectors ?? [];
  const exclude = request.options.exclude_selectors ?? [];
  if (include.length === 0 && exclude.length === 0) return undefined;
  return { include, exclude };
}

/** What tells an extraction shaped by selectors from the page's own: a hash of them, null for none. */
function extractionScope(request: ExtractRequest): string | null {
  const selectors = pageSelectors(request);
  return selectors ? sha256Hex(JSON.stringify([selectors.include, selectors.exclude])) : null;
}

/**
 * The extractions row, then the index: whatever of the two an earlier attempt did not finish.
 * An extraction shaped by selectors is stored under its scope but not indexed: it is not the
 * page's content, which search should find.
 */
async function store(deps: ExtractDeps, context: ExtractContext, request: ExtractRequest, urlHash: string, scope: string | null, read: ReadExtraction): Promise<void> {
  const { cleaned, fetchedAt } = read;
  const meta = cleaned.metadata;
  const publishedAt = meta.publishedDate === null ? null : parseStorableDate(meta.publishedDate);
  const modifiedAt = meta.modifiedDate ? parseStorableDate(meta.modifiedDate) : null;
  if (!read.stored) {
    await deps.rows.insert({
      requestId: context.requestId,
      url: request.url,
      urlHash,
      finalUrl: read.finalUrl,
      canonicalUrl: meta.canonicalUrl?.slice(0, 2048) ?? null,
      domain: new URL(read.finalUrl).hostname,
      title: meta.title?.slice(0, 1024) ?? null,
      author: meta.author?.slice(0, 512) ?? null,
      publishedAt,
      language: meta.language?.slice(0, 16) ?? null,
      siteName: meta.siteName?.slice(0, 255) ?? null,
      description: meta.description,
      contentText: cleaned.text,
      contentHash: sha256Hex(cleaned.text),
      wordCount: meta.wordCount,
      blocksJson: blocksJsonOf(cleaned),
      qualityScore: cleaned.quality,
      cleanHtml: mainContentOnly(request),
      scope,
      otherLinksJson: request.extract_links ? JSON.stringify(cleaned.otherLinks) : null,
      mode: context.mode,
      fetchedAt,
      pageCount: meta.pageCount ?? null,
      modifiedAt,
    });
    read.stored = true;
  }
  if (scope !== null) return;
  await deps.index.indexDocuments(context.mode, [{
    url: read.finalUrl,
    title: meta.title,
    text: cleaned.text,
    language: meta.language,
    author: meta.author,
    publishedAt,
    fetchedAt,
    countryHint: meta.region,
    authority: null,
    ...('prepared' in read.cleaned ? { prepared: read.cleaned.prepared } : {}),
  }]);
}

/**
 * The result as the request sizes it (docs/api.md, Token budgets): its content as chunks, and
 * within max_tokens: the metadata's values kept while they fit (in MEASURED_METADATA's order),
 * then the content cut at sentence bounds (or whole chunks from the first), then images,
 * links and the page's other links, whole, from the first, while they fit.
 */
async function sized(deps: ExtractDeps, request: ExtractRequest, base: ExtractResult, blocksJson: () => string, language: string | null): Promise<ExtractResult> {
  const budget = request.max_tokens;
  if (budget === undefined && !request.chunking) return base;
  const { content: _whole, metadata, images, links, other_links: otherLinks, ...rest } = base;
  const metadataFits = fitting(MEASURED_METADATA.filter((name) => typeof metadata?.[name] === 'string'), (name) => countTokens(metadata![name] as string), budget);
  const fitted = await withinPoolLimit(() => deps.pool.run('fitContent', {
    blocksJson: blocksJson(), format: request.format, preserveFormatting: request.options.preserve_formatting, language,
    ...(budget !== undefined ? { maxTokens: Math.max(0, budget - metadataFits.tokens) } : {}),
    ...(request.chunking ? { chunkTokens: request.chunking.max_tokens } : {}),
    pageMarkers: request.options.pdf_page_markers ?? false,
  }));
  const shaped = fitted.chunks ? { chunks: fitted.chunks } : { content: fitted.content! };
  if (budget === undefined) {
    return { ...rest, ...shaped, ...(metadata ? { metadata } : {}), ...(images ? { images } : {}), ...(links ? { links } : {}), ...(otherLinks ? { other_links: otherLinks } : {}) };
  }

  let room = budget - metadataFits.tokens - fitted.tokens;
  const imageFits = fitting(images ?? [], (image) => countAll([image.url, image.alt, image.caption]), room);
  room -= imageFits.tokens;
  const linkFits = fitting(links ?? [], (link) => countAll([link.url, link.text]), room);
  room -= linkFits.tokens;
  const otherFits = fitting(otherLinks ?? [], (link) => countAll([link.url, link.text, link.location]), room);
  const tokens = metadataFits.tokens + fitted.tokens + imageFits.tokens + linkFits.tokens + otherFits.tokens;
  const full = metadataFits.full + fitted.fullTokens + imageFits.full + linkFits.full + otherFits.full;
  const keptMetadata = metadata && Object.fromEntries(Object.entries(metadata).filter(([name, value]) => typeof value !== 'string' || metadataFits.kept.includes(name as MeasuredMetadata)));
  return {
    ...rest,
    ...shaped,
    ...(keptMetadata ? { metadata: keptMetadata } : {}),
    ...(images ? { images: imageFits.kept } : {}),
    ...(links ? { links: linkFits.kept } : {}),
    ...(otherLinks ? { other_links: otherFits.kept } : {}),
    truncated: tokens < full,
    budget: { max_tokens: budget, tokens, omitted_tokens: full - tokens },
  };
}

/** The metadata values counted against max_tokens, in the order they are kept. */
const MEASURED_METADATA = ['title', 'published_date', 'modified_date', 'author', 'site_name', 'language', 'reading_time', 'canonical_url', 'description'] as const;
type MeasuredMetadata = (typeof MEASURED_METADATA)[number];

/** The items from the first whose counts fit within `budget` (all without one), what they count, and what all of them count. */
function fitting<T>(items: readonly T[], count: (item: T) => number, budget: number | undefined): { kept: T[]; tokens: number; full: number } {
  const counts = items.map(count);
  let kept = 0;
  let tokens = 0;
  while (kept < items.length && (budget === undefined || tokens + counts[kept]! <= budget)) tokens += counts[kept++]!;
  return { kept: items.slice(0, kept), tokens, full: counts.reduce((sum, n) => sum + n, 0) };
}

/** A stored extraction rendered in the requested format: no fetch, no cleaning. */
async function fromStore(deps: ExtractDeps, stored: StoredExtraction, blocksJson: string, request: ExtractRequest): Promise<ExtractResult> {
  const rendered = await withinPoolLimit(() => deps.pool.run('renderStored', {
    blocksJson, format: request.format, preserveFormatting: request.options.preserve_formatting, language: stored.language,
    pageMarkers: request.options.pdf_page_markers ?? false,
  }));
  return result(request, stored.finalUrl, {
    ...rendered,
    metadata: {
      title: stored.title,
      author: stored.author,
      publishedDate: stored.publishedAt?.toISOString() ?? null,
      language: stored.language,
      siteName: stored.siteName,
      description: stored.description,
      canonicalUrl: stored.canonicalUrl,
      // Read only when indexing a fresh fetch; a stored extraction is rendered, not indexed again.
      region: null,
      wordCount: stored.wordCount,
      readingTime: rendered.readingTime,
      ...(stored.pageCount === null ? {} : { pageCount: stored.pageCount, modifiedDate: stored.modifiedAt?.toISOString() ?? null }),
    },
    quality: stored.qualityScore ?? 0,
    otherLinks: stored.otherLinksJson === null ? [] : JSON.parse(stored.otherLinksJson) as LocatedLink[],
  }, { cached: true, fetchedAt: stored.fetchedAt });
}

type Rendered = Pick<CleanHtmlOutput, 'content' | 'images' | 'links' | 'otherLinks' | 'quality' | 'metadata'>;

function result(request: ExtractRequest, finalUrl: string, cleaned: Rendered, origin: { cached: boolean; fetchedAt: Date }): ExtractResult {
  const meta = cleaned.metadata;
  // Section 2.2 leaves out what a page does not tell rather than sending nulls.
  const metadata = Object.fromEntries(Object.entries<string | number | null>({
    title: meta.title,
    author: meta.author,
    published_date: meta.publishedDate,
    word_count: meta.wordCount,
    reading_time: meta.readingTime,
    language: meta.language,
    site_name: meta.siteName,
    description: meta.description,
    canonical_url: meta.canonicalUrl,
    // Of a PDF only.
    modified_date: meta.modifiedDate ?? null,
    page_count: meta.pageCount ?? null,
  }).filter((entry): entry is [string, string | number] => entry[1] !== null));
  return {
    url: request.url,
    final_url: finalUrl,
    content: cleaned.content,
    ...(request.include_metadata ? { metadata } : {}),
    ...(request.extract_images ? { images: cleaned.images } : {}),
    ...(request.extract_links ? { links: cleaned.links, other_links: cleaned.otherLinks } : {}),
    quality_score: cleaned.quality,
    cached: origin.cached,
    fetched_at: origin.fetchedAt.toISOString(),
  };
}
