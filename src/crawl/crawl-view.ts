/**
 * How a client sees a crawl (GET /v1/crawl/{id}): its state, its counts, the first failures.
 * A crawl belongs to the account and mode that started it; to anyone else it does not exist.
 */
import type { Kysely } from 'kysely';
import { ApiError } from '../errors/catalogue.js';
import type { Principal } from '../auth/principal.js';
import type { Database } from '../storage/schema.js';
import type { CrawlRequest } from './crawl-options.js';
import { failedPages, findCrawl, pageCounts, type CrawlRow, type CrawlState } from './crawl.repository.js';

/** Failed pages listed in the report; the count covers them all. */
const MAX_FAILURES_LISTED = 100;

export interface CrawlView {
  crawl_id: string;
  state: CrawlState;
  urls: string[];
  options: Omit<CrawlRequest, 'urls'>;
  pages: {
    discovered: number;
    queued: number;
    in_progress: number;
    fetched: number;
    indexed: number;
    failed: number;
    skipped_robots: number;
  };
  limit_reached: boolean;
  failures: Array<{ url: string; code: string; reason: string | null; http_status: number | null }>;
  stopped_reason: string | null;
  failure?: { code: string; message: string };
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** The caller's crawl, or 404. */
export async function findOwnCrawl(db: Kysely<Database>, id: string, principal: Principal): Promise<CrawlRow> {
  const crawl = await findCrawl(db, id);
  if (!crawl || crawl.account_id !== principal.accountId || crawl.mode !== principal.mode) {
    throw new ApiError('NOT_FOUND', { resource: 'crawl', id }, `No crawl with id ${id}.`);
  }
  return crawl;
}

export async function describeCrawl(db: Kysely<Database>, crawl: CrawlRow): Promise<CrawlView> {
  const { urls, ...options } = JSON.parse(crawl.options) as CrawlRequest;
  const [counts, failures] = await Promise.all([pageCounts(db, crawl.id), failedPages(db, crawl.id, MAX_FAILURES_LISTED)]);
  const fetched = counts.indexed + counts.fetched;
  const view: CrawlView = {
    crawl_id: crawl.id,
    state: crawl.state as CrawlState,
    urls,
    options,
    pages: {
      discovered: counts.queued + counts.fetching + fetched + counts.failed,
      queued: counts.queued,
      in_progress: counts.fetching,
      fetched,
      indexed: counts.indexed,
      failed: counts.failed,
      skipped_robots: counts.robots,
    },
    limit_reached: crawl.limit_reached === 1,
    failures: failures.map((f) => ({ url: f.url, code: f.error_code ?? 'INTERNAL_SERVER_ERROR', reason: f.reason, http_status: f.http_status })),
    stopped_reason: crawl.stopped_reason,
    created_at: crawl.created_at.toISOString(),
    started_at: crawl.started_at?.toISOString() ?? null,
    finished_at: crawl.finished_at?.toISOString() ?? null,
  };
  if (crawl.failure_code) view.failure = { code: crawl.failure_code, message: crawl.failure_message ?? '' };
  return view;
}
