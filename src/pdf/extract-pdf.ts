import { withoutPageMarkers, type Block } from '../html/blocks.js';
import type { CleanHtmlOutput } from '../html/clean-html.js';
import { describeText } from '../html/metadata/page-metadata.js';
import { renderFormat, type OutputFormat } from '../html/render/render-format.js';
import { renderText } from '../html/render/text.js';
import { flowItems } from './flow-items.js';
import { withoutFurniture } from './furniture.js';
import { loadPdf, type LoadedPdf } from './load-pdf.js';
import { documentBlocks } from './document-blocks.js';
import { paragraphs } from './paragraphs.js';
import { pdfMetadata } from './pdf-metadata.js';
import { readingOrder } from './reading-order.js';
import { segmentRows } from './segments.js';
import { typeStats } from './type-stats.js';

/**
 * The PDF task of the pool (extractPdf): a PDF's bytes in, the same result as a web page's
 * cleaning out (content in the requested format, text, block model, metadata, quality), so that
 * storing, indexing, token budgets and stored re-rendering treat it as any page. The layout
 * analysis, page by page: runs → segments (segments.ts) → page furniture left out (furniture.ts,
 * with clean) → reading order by columns (reading-order.ts) → lines and tables (flow-items.ts) →
 * paragraphs (paragraphs.ts) → headings, lists and page markers (document-blocks.ts).
 */
export interface ExtractPdfInput {
  /** The PDF as fetched. */
  data: Uint8Array;
  format: OutputFormat;
  /** true: running headers, footers and page numbers are left out; false: every text of every page. */
  clean: boolean;
  preserveFormatting: boolean;
  /** Content with a marker where each page starts (options.pdf_page_markers). */
  pageMarkers: boolean;
  /** A PDF of more pages is refused (PDF_MAX_PAGES). */
  maxPages: number;
}

/** A PDF that cannot be read, and why, as data: an Error thrown in a pool thread reaches the caller as a bare message. */
export interface UnreadablePdf {
  failed: string;
}

export const NO_TEXT_LAYER = 'PDF has no text layer (scanned or image-only pages)';

export async function extractPdf(input: ExtractPdfInput): Promise<CleanHtmlOutput | UnreadablePdf> {
  const loaded = await loadPdf(input.data, input.maxPages);
  if ('failed' in loaded) return loaded;
  try {
    return pdfContent(loaded, input);
  } catch (error) {
    // Whatever a PDF's text does to the layout analysis, the client learns that this PDF could
    // not be read (422), not that the service failed (500).
    return { failed: `PDF could not be laid out: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300) };
  }
}

/** The layout analysis and rendering of a loaded PDF. */
export function pdfContent(pdf: LoadedPdf, options: Omit<ExtractPdfInput, 'data' | 'maxPages'>): CleanHtmlOutput | UnreadablePdf {
  const hasText = pdf.pages.some((page) => page.runs.some((run) => run.text.trim() !== ''));
  if (!hasText) return { failed: NO_TEXT_LAYER };
  const segmented = pdf.pages.map((page) => ({ height: page.height, rows: segmentRows(page.runs) }));
  const kept = options.clean ? withoutFurniture(segmented) : segmented;
  const flows = kept.map((page) => readingOrder(page.rows.flat()).map(flowItems));
  const stats = typeStats(flows);
  const blocks = documentBlocks(flows.map((pageFlows, i) => ({ number: pdf.pages[i]!.number, blocks: paragraphs(pageFlows, stats) })), stats);
  const shown = withoutPageMarkers(blocks);
  const text = renderText(shown, { preserveFormatting: false });
  const meta = pdfMetadata(pdf.info);
  const described = describeText(text, meta.language);
  const pagesWithText = kept.filter((page) => page.rows.length > 0).length;
  return {
    content: renderFormat(options.pageMarkers ? blocks : shown, options.format, options.preserveFormatting),
    text,
    blocks,
    images: [],
    links: [],
    otherLinks: [],
    metadata: {
      title: meta.title ?? firstHeading(shown),
      author: meta.author,
      publishedDate: meta.createdDate,
      modifiedDate: meta.modifiedDate,
      pageCount: pdf.pageCount,
      language: described.language,
      siteName: null,
      description: meta.description,
      canonicalUrl: null,
      region: null,
      wordCount: described.wordCount,
      readingTime: described.readingTime,
    },
    quality: quality(described.wordCount, pagesWithText, pdf.pageCount),
  };
}

/** Without a title in its metadata, a PDF's title is its first heading of the highest level it has. */
function firstHeading(blocks: readonly Block[]): string | null {
  let best: Extract<Block, { type: 'heading' }> | null = null;
  for (const block of blocks) if (block.type === 'heading' && (!best || block.level < best.level)) best = block;
  if (!best) return null;
  const text = renderText([best], { preserveFormatting: false });
  return text === '' ? null : text;
}

/**
 * Nothing was left out as boilerplate, so the score is about how much text there is: length as
 * for plain text (full credit from 250 words), lowered when pages have no text (a partly scanned
 * document whose scanned pages are missing from the content).
 */
function quality(words: number, pagesWithText: number, pages: number): number {
  if (words === 0) return 0;
  const length = Math.min(1, 0.5 + words / 500);
  const coverage = pages === 0 ? 1 : 0.5 + (0.5 * pagesWithText) / pages;
  return Math.round(length * coverage * 100) / 100;
}
