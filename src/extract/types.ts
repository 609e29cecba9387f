import type { OutputFormat } from '../html/clean-html.js';
import type { JsonBlock } from '../html/render/json.js';
import type { ContentChunk } from '../html/render/fit-content.js';
import type { BudgetReport } from '../text/tokens.js';
import type { RenderMode } from '../config.js';
import type { WaitFor } from '../render/render-page.js';
import type { RenderReport } from '../render/read-rendered-page.js';
import type { LinkLocation } from '../html/content/other-links.js';

/** Body of POST /v1/extract after validation against schemas/extract.request.json (defaults applied). */
export interface ExtractRequest {
  url: string;
  format: OutputFormat;
  include_metadata: boolean;
  extract_images: boolean;
  extract_links: boolean;
  clean_html: boolean;
  /** Budget of the answer's text (docs/api.md, Token budgets). */
  max_tokens?: number;
  /** The content as chunks of at most this count each, for RAG ingestion. */
  chunking?: { max_tokens: number };
  options: {
    timeout: number;
    preserve_formatting: boolean;
    min_content_length: number;
    respect_robots?: boolean;
    max_age: number;
    /** CSS selectors: content is looked for only inside the elements they match. */
    include_selectors?: string[];
    /** CSS selectors: the elements they match leave the page before content is looked for. */
    exclude_selectors?: string[];
    /** false: the whole (selected) body, as clean_html false. Absent means true. */
    only_main_content?: boolean;
    /** Whether a browser renders the page (docs/extraction.md); default RENDER_DEFAULT. */
    render?: RenderMode;
    /** When a rendered page is read; default networkidle. */
    wait_for?: WaitFor;
    /** A PDF's content with a marker where each page starts. */
    pdf_page_markers?: boolean;
  };
  /**
   * Also return the page's HTML as received (decoded to text), for Firecrawl's rawHtml. Not part
   * of POST /v1/extract's schema; the HTML is not stored, so such a request always fetches.
   */
  raw_html?: boolean;
}

/** Section 2.2 of the interface specification, plus the URLs involved, links and where the result came from. */
export interface ExtractResult {
  url: string;
  final_url: string;
  /** Absent with chunking. */
  content?: string | JsonBlock[];
  chunks?: ContentChunk[];
  /** With max_tokens: whether the answer was cut to fit it, and its count. */
  truncated?: boolean;
  budget?: BudgetReport;
  /** title, author, published_date, word_count, reading_time, language, site_name, description, canonical_url (and a PDF's modified_date, page_count): those the page tells. */
  metadata?: Record<string, string | number>;
  images?: Array<{ url: string; alt: string; caption: string }>;
  links?: Array<{ url: string; text: string }>;
  /** The page's links outside the content, with where they sit; with extract_links. */
  other_links?: Array<{ url: string; text: string; location: LinkLocation }>;
  quality_score: number;
  cached: boolean;
  fetched_at: string;
  /** The page's HTML as received, when the request asked for it (raw_html). */
  raw_html?: string;
  /** With options.render auto or always: whether the page was rendered in a browser, and why. */
  render?: RenderReport;
}
