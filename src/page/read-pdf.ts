/**
 * A fetched PDF read in the pool (src/pdf/extract-pdf.ts), the counterpart of cleanPage for web
 * pages: the same result, so that extraction, deep search, validation and crawling read a PDF
 * as they read a page.
 */
import type { Config } from '../config.js';
import { ApiError } from '../errors/catalogue.js';
import type { FetchedPage } from '../fetch/fetch-page.js';
import type { CleanHtmlOutput, OutputFormat } from '../html/clean-html.js';
import type { CpuPool } from '../pool/pool.js';

/** How a PDF is rendered: as a page is (read-page.ts, Rendering), and with or without page markers. */
export interface PdfRendering {
  format: OutputFormat;
  /** true: running headers, footers and page numbers left out; false: all the text. */
  clean: boolean;
  preserveFormatting: boolean;
  /** A marker where each page starts (options.pdf_page_markers). */
  pageMarkers?: boolean | undefined;
}

/**
 * The PDF's pages read within PDF_MAX_PAGES and, as its pool task's time limit, PDF_TIMEOUT_MS.
 * @throws ApiError EXTRACTION_FAILED for an encrypted, broken, too long or image-only PDF (the
 *   reason says which); the pool's own errors (TaskLimitError at its time or memory limit).
 */
export async function readPdf(deps: { pool: CpuPool; config: Config }, page: FetchedPage, rendering: PdfRendering): Promise<CleanHtmlOutput> {
  const read = await deps.pool.run('extractPdf', {
    data: page.body,
    format: rendering.format,
    clean: rendering.clean,
    preserveFormatting: rendering.preserveFormatting,
    pageMarkers: rendering.pageMarkers ?? false,
    maxPages: deps.config.pdf.maxPages,
  }, { timeoutMs: deps.config.pdf.timeoutMs });
  if ('failed' in read) throw new ApiError('EXTRACTION_FAILED', { reason: read.failed });
  return read;
}
