import { withoutPageMarkers, type Block } from './blocks.js';
import { DomLimitError, parseHtml, type DomLimits } from './dom.js';
import { extractMainContent, type ImageRef, type LinkRef, type LocatedLink } from './content/main-content.js';
import { collectReferences } from './content/references.js';
import { describeText, extractMetadata, type PageMetadata } from './metadata/page-metadata.js';
import { qualityScore } from './quality.js';
import type { JsonBlock } from './render/json.js';
import { renderFormat, type OutputFormat } from './render/render-format.js';
import { renderText } from './render/text.js';
import type { PageSelectors } from './selectors.js';

/**
 * The cleaning task: a fetched page in, its main content in the requested format, its
 * metadata and a quality score out. Pure and CPU-bound: it runs on a Piscina thread.
 */
export type { OutputFormat };

export interface CleanHtmlInput {
  /** The decoded page. */
  html: string;
  /** Where it came from, after redirects: relative references resolve against it. */
  url: string;
  /** html for HTML and XHTML; text for plain text, returned as it is. */
  kind: 'html' | 'text';
  format: OutputFormat;
  /** true: main content only; false: the whole visible body. */
  clean: boolean;
  preserveFormatting: boolean;
  /** CSS selectors applied before the content is looked for (options.include_selectors, exclude_selectors). */
  selectors?: PageSelectors;
  /** Also read the page's links outside the content, with where they sit (extract_links). */
  otherLinks?: boolean;
  /** How much DOM the page may make (the service passes HTML_MAX_NODES and HTML_MAX_DEPTH); DEFAULT_DOM_LIMITS without. */
  limits?: DomLimits;
}

export interface PageDetails extends PageMetadata {
  wordCount: number;
  readingTime: string;
  /** Of a PDF (src/pdf): its pages, and when it was last modified (ISO 8601, as publishedDate). Absent for web pages. */
  pageCount?: number;
  modifiedDate?: string | null;
}

export interface CleanHtmlOutput {
  /** The content in the requested format: a string, or the typed blocks of the json format. */
  content: string | JsonBlock[];
  /** Plain text of the content: stored, indexed and measured. */
  text: string;
  /** The block model, stored so a later request can be answered in any format. */
  blocks: Block[];
  images: ImageRef[];
  links: LinkRef[];
  /** The page's links outside the content; empty unless input.otherLinks. */
  otherLinks: LocatedLink[];
  metadata: PageDetails;
  quality: number;
  /** Why the content is empty when the page has some but the request's selectors left none. */
  problem?: string;
}

const NO_METADATA: PageMetadata = {
  title: null, author: null, publishedDate: null, language: null, siteName: null, description: null, canonicalUrl: null, region: null,
};

/** A page refused before it was cleaned, and why (a DomLimitError's message). */
export interface TooComplexPage {
  tooComplex: string;
}

/**
 * cleanHtml as the pool runs it: a page past the DOM's limits comes back as data, since an Error
 * thrown in a pool thread reaches the caller as a bare message, its class and fields lost.
 */
export function cleanHtmlTask(input: CleanHtmlInput): CleanHtmlOutput | TooComplexPage {
  try {
    return cleanHtml(input);
  } catch (error) {
    if (error instanceof DomLimitError) return { tooComplex: error.message };
    throw error;
  }
}

/** @throws DomLimitError for a page past `input.limits` (see cleanHtmlTask). */
export function cleanHtml(input: CleanHtmlInput): CleanHtmlOutput {
  if (input.kind === 'text') return cleanText(input);
  const doc = parseHtml(input.html, input.limits);
  // Metadata first: the selectors shape the content and change the tree, not what the page says of itself.
  const page = extractMetadata(doc, input.url);
  const main = extractMainContent(doc, {
    url: input.url, clean: input.clean, otherLinks: input.otherLinks ?? false,
    ...(input.selectors ? { selectors: input.selectors } : {}),
  });
  const text = renderText(main.blocks, { preserveFormatting: false });
  const described = describeText(text, page.language);
  return {
    content: render({ blocks: main.blocks, format: input.format, preserveFormatting: input.preserveFormatting }).content,
    text,
    blocks: main.blocks,
    images: main.images,
    links: main.links,
    otherLinks: main.otherLinks,
    metadata: { ...page, ...described },
    quality: qualityScore(main.signals, input.clean),
    ...(main.nothingIncluded ? { problem: 'no element matches options.include_selectors' } : {}),
  };
}

/** Plain text is returned as it is: its paragraphs become blocks so every format works. */
function cleanText(input: CleanHtmlInput): CleanHtmlOutput {
  const blocks: Block[] = input.html
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map((paragraph) => ({ type: 'paragraph', children: [{ type: 'text', text: paragraph }] }));
  const described = describeText(input.html, null);
  return {
    content: input.format === 'text' ? input.html : render({ blocks, format: input.format, preserveFormatting: true }).content,
    text: input.html,
    blocks,
    images: [],
    links: [],
    otherLinks: [],
    metadata: { ...NO_METADATA, ...described },
    // Nothing was removed or guessed: only the length speaks against it.
    quality: described.wordCount === 0 ? 0 : Math.min(1, 0.5 + described.wordCount / 500),
  };
}

export interface RenderInput {
  blocks: Block[];
  format: OutputFormat;
  preserveFormatting: boolean;
}

export interface Rendering {
  content: string | JsonBlock[];
  images: ImageRef[];
  links: LinkRef[];
}

/** Blocks in the requested format, with the images and links they hold. */
function render(input: RenderInput): Rendering {
  return { content: renderFormat(input.blocks, input.format, input.preserveFormatting), ...collectReferences(input.blocks) };
}

export interface StoredRenderInput extends Omit<RenderInput, 'blocks'> {
  /** The stored block model as JSON: parsed here, off the worker's event loop. */
  blocksJson: string;
  language: string | null;
  /** Keep a PDF's page markers (options.pdf_page_markers); they are left out without. */
  pageMarkers?: boolean;
}

/** The task behind options.max_age: a stored block model in the requested format, and its reading time. */
export function renderStored(input: StoredRenderInput): Rendering & { readingTime: string } {
  const stored = JSON.parse(input.blocksJson) as Block[];
  const blocks = input.pageMarkers ? stored : withoutPageMarkers(stored);
  const text = renderText(blocks, { preserveFormatting: false });
  return { ...render({ ...input, blocks }), readingTime: describeText(text, input.language).readingTime };
}
