/**
 * One page of a crawl through the page reader's steps (src/page/read-page.ts): the guarded fetch
 * (robots.txt obeyed on every hop, inside the host's politeness slot), charset decoding, cleaning
 * in the pool, then one call to the DocumentIndex. Links come from the raw HTML, so navigation is
 * followed too. Nothing is stored in `extractions`: a crawl's destination is the index.
 */
import type { LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import { ApiError } from '../errors/catalogue.js';
import type { Metrics } from '../metrics/metrics.js';
import type { CpuPool } from '../pool/pool.js';
import type { IndexWriter } from './index-writer.js';
import type { Mode } from '../mode.js';
import { FetchError } from '../fetch/fetch-errors.js';
import type { FetchedPage } from '../fetch/fetch-page.js';
import { clientError } from '../page/fetch-failure.js';
import { fetchForReading } from '../page/page-fetch.js';
import { decodeBody } from '../page/decode-body.js';
import { cleanPage, contentProblem, MAIN_TEXT, withinPoolLimit } from '../page/read-page.js';
import type { PageOutcome } from './crawl.repository.js';
import { pageLinks, robotsHeader } from './page-links.js';
import { parseStorableDate } from '../storage/datetime.js';

/** One deadline per page fetch (robots.txt, redirects, body), as POST /v1/extract's default. */
export const PAGE_TIMEOUT_MS = 15_000;

export interface PageDeps {
  config: Config;
  pool: CpuPool;
  index: IndexWriter;
  /** The process-wide cap on outbound requests (FETCH_CONCURRENCY). */
  fetchLimit: LimitFunction;
  metrics?: Metrics;
}

export interface FetchContext {
  /** Cancels the fetch (crawl cancelled, lease lost, worker shutting down). */
  signal: AbortSignal;
  /** Runs the fetch in the host's politeness slot. */
  politely: <T>(fetch: () => Promise<T>) => Promise<T>;
}

export interface ProcessContext {
  /** The index the page goes to. */
  mode: Mode;
  /** Whether a URL a redirect led to is still the crawl's, and not already in its frontier on its own. */
  redirectTarget: (finalUrl: string) => Promise<'crawl' | 'out-of-scope' | 'known'>;
}

export interface CrawledPage {
  outcome: PageOutcome;
  /** Absolute URLs to consider for the frontier. */
  links: string[];
}

/**
 * The fetch, in the host's politeness slot: the page, or the outcome of a page that could not be had.
 * @throws the signal's reason when the crawl is stopped.
 */
export async function fetchForCrawl(deps: PageDeps, context: FetchContext, url: string): Promise<FetchedPage | CrawledPage> {
  try {
    const page = await context.politely(() => fetchForReading(deps, url, {
      timeoutMs: PAGE_TIMEOUT_MS, respectRobots: true, signal: context.signal,
    }));
    deps.metrics?.fetches.inc({ outcome: 'ok' });
    return page;
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    const reported = clientError(error);
    deps.metrics?.fetches.inc({ outcome: reported instanceof ApiError ? reported.code : 'error' });
    // robots.txt refusing a redirect target is counted as a robots skip, not an error.
    if (error instanceof FetchError && error.kind === 'disallowed') return { outcome: { state: 'robots', reason: 'disallowed by robots.txt' }, links: [] };
    return { outcome: failure(reported), links: [] };
  }
}

/**
 * A fetched page through cleaning into the index (once), with the links to follow. Runs outside
 * the politeness slot, so the host's next fetch need not wait for it.
 */
export async function processPage(deps: PageDeps, context: ProcessContext, url: string, page: FetchedPage): Promise<CrawledPage> {
  const finalUrl = page.finalUrl;
  if (finalUrl !== url) {
    const target = await context.redirectTarget(finalUrl);
    if (target === 'out-of-scope') return fetched(page, `redirected outside the crawl's domains: ${finalUrl}`);
    // The target is crawled as itself; indexing it here too would index one page twice.
    if (target === 'known') return fetched(page, `redirected to ${finalUrl}, crawled on its own`);
  }

  // A PDF is read from its bytes, and has no links or robots meta tags to find in its text.
  const html = page.kind === 'pdf' ? '' : decodeBody(page.body, page.charset);
  const header = robotsHeader(page.headers['x-robots-tag']);
  const found = page.kind === 'html' ? pageLinks(html, finalUrl) : { links: [], noindex: false, nofollow: false };
  const links = header.nofollow ? [] : found.links;
  if (header.noindex || found.noindex) return { outcome: fetchedOutcome(page, 'noindex'), links };

  let cleaned;
  try {
    cleaned = await withinPoolLimit(() => cleanPage(deps, page, html, MAIN_TEXT));
  } catch (error) {
    // A page too complex for the pool fails; any other failure is the pool's own, and the driver puts the page back.
    if (!(error instanceof ApiError)) throw error;
    return { outcome: { ...failure(error), finalUrl, httpStatus: page.status }, links };
  }
  const problem = contentProblem(cleaned);
  if (problem) return { outcome: fetchedOutcome(page, problem), links };

  const meta = cleaned.metadata;
  const [result] = await deps.index.indexDocuments(context.mode, [{
    url: finalUrl,
    title: meta.title,
    text: cleaned.text,
    language: meta.language,
    author: meta.author,
    publishedAt: meta.publishedDate === null ? null : parseStorableDate(meta.publishedDate),
    fetchedAt: new Date(),
    countryHint: null,
    authority: null,
  }]);
  return { outcome: { state: 'indexed', finalUrl, httpStatus: page.status, indexStatus: result?.status ?? null }, links };
}

function fetched(page: FetchedPage, reason: string): CrawledPage {
  return { outcome: fetchedOutcome(page, reason), links: [] };
}

function fetchedOutcome(page: FetchedPage, reason: string): PageOutcome {
  return { state: 'fetched', finalUrl: page.finalUrl, httpStatus: page.status, reason };
}

/** A page that could not be read, as the client would be told. An unexpected exception fails the page, not the crawl. */
function failure(error: unknown): PageOutcome {
  if (!(error instanceof ApiError)) return { state: 'failed', errorCode: 'INTERNAL_SERVER_ERROR', reason: error instanceof Error ? error.message : String(error) };
  const reason = typeof error.details?.reason === 'string' ? error.details.reason : error.message;
  const status = error.details?.http_status;
  return { state: 'failed', errorCode: error.code, reason, httpStatus: typeof status === 'number' ? status : null };
}
