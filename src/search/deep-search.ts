/**
 * Deep search reads the best candidates' pages as they are now: read in parallel by the page
 * reader (the process-wide FETCH_CONCURRENCY slots, then at most DEEP_SEARCH_PARALLEL of this
 * search's pages at once), cleaned in the pool like POST /v1/extract, and split into
 * passages so ranking and summary see the whole page instead of the indexed passages. A page
 * that fails (unreachable, refused, not HTML, empty, too slow for the search's deadline) is
 * left as it was found: deep search only ever adds evidence.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import type { CpuPool } from '../pool/pool.js';
import { MAIN_TEXT, noMainContent, readPage } from '../page/read-page.js';
import { splitPassages } from '../text/passages.js';
import type { SourceCandidate } from '../ranking/rank-sources.js';

export interface DeepSearchDeps {
  config: Config;
  pool: CpuPool;
  fetchLimit: LimitFunction;
  metrics: Metrics;
}

/** Pages of one search fetched at once: enough to read five pages in one round, few enough to leave slots to other searches. */
const DEEP_SEARCH_PARALLEL = 5;
/** Passages of a page that ranking and summary read at most: a long page's tail adds time, rarely an answer. */
const MAX_PASSAGES = 40;

export interface LivePage {
  /** The candidate it replaces. */
  candidate: number;
  page: SourceCandidate;
}

export interface DeepSearchOutcome {
  pages: LivePage[];
  failed: number;
}

/**
 * Fetches the candidates' URLs and returns each that could be read as a `live` candidate.
 * `signal` ends every fetch still running (the search's deadline).
 */
export async function readLivePages(deps: DeepSearchDeps, candidates: readonly { index: number; candidate: SourceCandidate }[], signal: AbortSignal): Promise<DeepSearchOutcome> {
  const limit = pLimit(DEEP_SEARCH_PARALLEL);
  const settled = await Promise.all(candidates.map(({ index, candidate }) => limit(async () => {
    try {
      return { candidate: index, page: await readLiveCandidate(deps, candidate, signal) };
    } catch {
      // Counted in the fetch metrics when the fetch failed; a page that fetched but could not be read is no fetch failure.
      return undefined;
    }
  })));
  const pages = settled.filter((p): p is LivePage => p !== undefined);
  return { pages, failed: candidates.length - pages.length };
}

/**
 * One candidate's page read live: fetched, cleaned in the pool, split into passages.
 * @throws as readPage does, with the pool's own TaskLimitError (validation lists its message
 *   among sources_failed); EXTRACTION_FAILED when the text makes no passage.
 */
export async function readLiveCandidate(deps: DeepSearchDeps, candidate: SourceCandidate, signal: AbortSignal): Promise<SourceCandidate> {
  const { cleaned } = await readPage(deps, candidate.url, {
    timeoutMs: deps.config.search.deepPageTimeoutMs, respectRobots: deps.config.fetch.respectRobots, signal, ...MAIN_TEXT, poolTimeout: 'as-is',
  });
  const meta = cleaned.metadata;
  const passages = splitPassages(cleaned.text, meta.language).slice(0, MAX_PASSAGES);
  if (passages.length === 0) throw noMainContent();
  const published = meta.publishedDate ? Date.parse(meta.publishedDate) : Number.NaN;
  return {
    ...candidate,
    title: candidate.title || meta.title || candidate.url,
    publishedAt: candidate.publishedAt ?? (Number.isNaN(published) ? null : published),
    fetchedAt: Date.now(),
    passages: passages.map((text, i) => ({ text, score: null, first: i === 0 })),
    // The text read now, not the indexed one, is what the document is judged by.
    length: null,
    origin: 'live',
    language: meta.language,
  };
}
