import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import { ApiError } from '../http/errors.js';
import type { Metrics } from '../metrics/metrics.js';
import { TaskTimeoutError, type CpuPool } from '../pool/pool.js';
import type { Database } from '../storage/schema.js';
import { fetchPage, type FetchedPage } from '../fetch/fetch-page.js';
import { decodeBody } from './decode-body.js';
import { insertExtraction } from './extraction.repository.js';
import type { ExtractRequest, ExtractResult } from './types.js';
import type { CleanHtmlOutput } from '../../workers/pool/clean-html.js';

export interface ExtractDeps {
  config: Config;
  pool: CpuPool;
  db: Kysely<Database>;
  fetchLimit: LimitFunction;
  metrics?: Metrics;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const WORDS_PER_MINUTE = 230;

/** Fetch → decode → clean in the pool → store → the result of section 2.2. */
export async function extractPage(deps: ExtractDeps, requestId: string, request: ExtractRequest): Promise<ExtractResult> {
  const page = await deps.fetchLimit(() => timedFetch(deps, request));
  const html = decodeBody(page.body, page.charset);

  let cleaned: CleanHtmlOutput;
  if (HTML_TYPES.has(page.contentType)) {
    try {
      cleaned = await deps.pool.run('cleanHtml', { html, url: page.finalUrl, format: request.format });
    } catch (error) {
      if (error instanceof TaskTimeoutError) throw new ApiError('EXTRACTION_FAILED', { reason: 'page too complex: processing time limit reached' });
      throw error;
    }
  } else if (page.contentType === 'text/plain') {
    cleaned = plainText(html);
  } else {
    throw new ApiError('EXTRACTION_FAILED', { reason: `unsupported content type: ${page.contentType || 'none'}` });
  }

  const text = cleaned.blocks.map((b) => b.text).join('\n\n');
  const length = text.trim().length;
  if (length === 0) throw new ApiError('EXTRACTION_FAILED', { reason: 'no main content found' });
  if (length < request.options.min_content_length) {
    throw new ApiError('EXTRACTION_FAILED', { reason: `content shorter than min_content_length (${length} < ${request.options.min_content_length})` });
  }

  await insertExtraction(deps.db, {
    requestId,
    url: request.url,
    urlHash: sha256(request.url),
    finalUrl: page.finalUrl,
    domain: new URL(page.finalUrl).hostname,
    title: cleaned.title?.slice(0, 1024) ?? null,
    author: cleaned.author?.slice(0, 512) ?? null,
    publishedAt: cleaned.publishedDate ? new Date(cleaned.publishedDate) : null,
    language: cleaned.language?.slice(0, 16) ?? null,
    canonicalUrl: null,
    siteName: null,
    description: null,
    contentText: text,
    contentHash: sha256(text),
    wordCount: cleaned.wordCount,
    blocksJson: null,
    qualityScore: null,
    cleanHtml: request.clean_html,
    mode: 'live',
    fetchedAt: new Date(),
  });

  return {
    url: request.url,
    final_url: page.finalUrl,
    content: cleaned.content,
    ...(!request.include_metadata
      ? {}
      : {
          metadata: {
            title: cleaned.title,
            author: cleaned.author,
            published_date: cleaned.publishedDate,
            word_count: cleaned.wordCount,
            reading_time: `${Math.max(1, Math.round(cleaned.wordCount / WORDS_PER_MINUTE))} min`,
            language: cleaned.language,
          },
        }),
    ...(request.extract_images ? { images: cleaned.images } : {}),
    ...(request.extract_links ? { links: cleaned.links } : {}),
    quality_score: qualityScore(cleaned),
  };
}

async function timedFetch(deps: ExtractDeps, request: ExtractRequest): Promise<FetchedPage> {
  const stop = deps.metrics?.fetchDuration.startTimer();
  try {
    const page = await fetchPage(request.url, {
      timeoutMs: request.options.timeout * 1000,
      maxBytes: deps.config.fetch.maxBytes,
      maxRedirects: deps.config.fetch.maxRedirects,
      userAgent: deps.config.fetch.userAgent,
      allowedCidrs: deps.config.fetch.allowedCidrs,
    });
    deps.metrics?.fetches.inc({ outcome: 'ok' });
    return page;
  } catch (error) {
    deps.metrics?.fetches.inc({ outcome: error instanceof ApiError ? error.code : 'error' });
    throw error;
  } finally {
    stop?.();
  }
}

function plainText(text: string): CleanHtmlOutput {
  const paragraphs = text.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean);
  return {
    content: text,
    blocks: paragraphs.map((p) => ({ type: 'paragraph', text: p })),
    images: [],
    links: [],
    title: null,
    author: null,
    publishedDate: null,
    language: null,
    wordCount: text.split(/\s+/).filter(Boolean).length,
  };
}

/**
 * Provisional quality signal in 0..1: enough words, a title and several blocks of structure
 * each raise it. The extraction work replaces it with a score calibrated on benchmark pages.
 */
function qualityScore(cleaned: CleanHtmlOutput): number {
  const length = Math.min(1, cleaned.wordCount / 300);
  const score = 0.6 * length + (cleaned.title ? 0.2 : 0) + (cleaned.blocks.length >= 3 ? 0.2 : 0);
  return Math.round(score * 100) / 100;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
