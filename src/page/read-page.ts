/**
 * Reading a page for a client: fetched (page-fetch.ts), decoded in the charset it declares or
 * betrays (decode-body.ts) and cleaned, both in the pool (clean-page-task.ts), and judged on
 * whether it has main content.
 *
 * Extraction, deep search and validation (through deep search) read a page in one call,
 * readPage. Crawling takes the same steps one at a time, because its own work falls between
 * them: the fetch runs in the host's politeness slot and the rest outside it, a redirect may
 * leave the crawl, and links and noindex are read from the HTML before it is cleaned. A crawled
 * page without main content is an outcome, not an error, hence contentProblem returns a reason.
 */
import { ApiError } from '../errors/catalogue.js';
import type { FetchedPage } from '../fetch/fetch-page.js';
import type { CleanHtmlOutput, OutputFormat } from '../html/clean-html.js';
import type { PageSelectors } from '../html/selectors.js';
import type { PreparedPage } from './clean-page-task.js';
import { TaskLimitError, type CpuPool } from '../pool/pool.js';
import { measuredFetch, type FetchSettings, type PageFetchDeps } from './page-fetch.js';
import { readPdf, type PdfRendering } from './read-pdf.js';

export interface PageReaderDeps extends PageFetchDeps {
  pool: CpuPool;
}

/** How cleanHtml renders the page. */
export interface Rendering {
  format: OutputFormat;
  /** true: main content only; false: the whole visible body. */
  clean: boolean;
  preserveFormatting: boolean;
  /** CSS selectors shaping the page before its content is looked for (checked by the caller). */
  selectors?: PageSelectors;
  /** Also read the page's links outside the content. */
  otherLinks?: boolean;
  /**
   * Also analyse the cleaned page for the index, in the same pool task (clean-and-prepare.ts):
   * for a page that will be indexed with its title, text and language.
   */
  prepareForIndex?: boolean;
}

/** A cleaned page; with the index's analysis of it and its blocks as JSON when Rendering.prepareForIndex asked for them (never for a PDF). */
export type CleanedPage = CleanHtmlOutput | PreparedPage;

/** The page's block model as JSON, as the extraction row stores it. */
export function blocksJsonOf(cleaned: CleanedPage): string {
  return 'blocksJson' in cleaned ? cleaned.blocksJson : JSON.stringify(cleaned.blocks);
}

/** The main content as plain text: what ranking, validation and the index read. */
export const MAIN_TEXT: Rendering = { format: 'text', clean: true, preserveFormatting: false };

export interface ReadOptions extends FetchSettings, Rendering {
  /** Main content shorter than this (characters, trimmed) fails the page; by default any will do. */
  minContentLength?: number;
  /**
   * A page that runs past the pool's time or memory limit fails with EXTRACTION_FAILED "page too
   * complex" by default; 'as-is' passes the pool's TaskLimitError on instead.
   */
  poolTimeout?: 'page-too-complex' | 'as-is';
  /** A PDF's content with a marker where each page starts (options.pdf_page_markers). */
  pageMarkers?: boolean | undefined;
}

export interface PageRead {
  page: FetchedPage;
  cleaned: CleanedPage;
}

const NO_MAIN_CONTENT = 'no main content found';

/**
 * @throws ApiError: the fetch's failure as the client is told it (URL_INVALID, URL_UNREACHABLE,
 *   EXTRACTION_FAILED); EXTRACTION_FAILED for a page too complex (past the DOM's limits or the
 *   pool's), a PDF that cannot be read (encrypted, broken, too long, no text layer), without main
 *   content or with less than minContentLength. The signal's reason once it aborts, before the
 *   fetch or the cleaning.
 */
export async function readPage(deps: PageReaderDeps, url: string, options: ReadOptions): Promise<PageRead> {
  options.signal?.throwIfAborted();
  const page = await measuredFetch(deps, url, options);
  options.signal?.throwIfAborted();
  // The pool decodes the page (a PDF is read from its bytes anyway).
  const clean = () => cleanPage(deps, page, undefined, options);
  const cleaned = options.poolTimeout === 'as-is' ? await clean() : await withinPoolLimit(clean);
  const problem = contentProblem(cleaned, options.minContentLength);
  if (problem) throw extractionFailed(problem);
  return { page, cleaned };
}

/**
 * The page cleaned in the pool (clean-page-task.ts), within the DOM's limits (HTML_MAX_NODES,
 * HTML_MAX_DEPTH); links resolve against the URL it came from after redirects. `html` is the
 * page as its reader decoded it for its own use; without, the pool decodes the page's bytes
 * (decode-body.ts). A PDF is read from its bytes instead (read-pdf.ts; `html` unused).
 * @throws ApiError EXTRACTION_FAILED naming the limit a page passes, or why a PDF cannot be read;
 *   the pool's own errors.
 */
export async function cleanPage(deps: Pick<PageReaderDeps, 'pool' | 'config'>, page: FetchedPage, html: string | undefined, rendering: Rendering & Pick<PdfRendering, 'pageMarkers'>): Promise<CleanedPage> {
  if (page.kind === 'pdf') return readPdf(deps, page, rendering);
  const source = html !== undefined ? { html } : { body: page.body, ...(page.charset === undefined ? {} : { charset: page.charset }) };
  const cleaned = await deps.pool.run('cleanPage', {
    ...source, url: page.finalUrl, kind: page.kind, format: rendering.format, clean: rendering.clean, preserveFormatting: rendering.preserveFormatting,
    limits: deps.config.html,
    ...(rendering.selectors ? { selectors: rendering.selectors } : {}),
    ...(rendering.otherLinks ? { otherLinks: true } : {}),
    ...(rendering.prepareForIndex ? { prepareForIndex: true } : {}),
  });
  if ('tooComplex' in cleaned) throw extractionFailed(cleaned.tooComplex);
  return cleaned;
}

/** Why the cleaned page offers nothing to read, or undefined when it does. */
export function contentProblem(cleaned: Pick<CleanHtmlOutput, 'text' | 'quality' | 'problem'>, minContentLength = 0): string | undefined {
  if (cleaned.problem) return cleaned.problem;
  const length = cleaned.text.trim().length;
  if (length === 0 || cleaned.quality === 0) return NO_MAIN_CONTENT;
  if (length < minContentLength) return `content shorter than min_content_length (${length} < ${minContentLength})`;
  return undefined;
}

/** For readers whose own measure of content (deep search's passages) finds none in a page readPage passed. */
export function noMainContent(): ApiError {
  return extractionFailed(NO_MAIN_CONTENT);
}

/**
 * Runs pool work on a page; a page that runs past the pool's time or memory limit is the page's
 * fault, reported as EXTRACTION_FAILED "page too complex" rather than as an internal error.
 */
export async function withinPoolLimit<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TaskLimitError) throw extractionFailed(tooComplexForPool(error));
    throw error;
  }
}

/** Why a page the pool stopped could not be read, as the client is told. */
export function tooComplexForPool(error: TaskLimitError): string {
  return `page too complex: processing ${error.limit} limit reached`;
}

function extractionFailed(reason: string): ApiError {
  return new ApiError('EXTRACTION_FAILED', { reason });
}
