/**
 * Crawls as clients start, read and cancel them (POST, GET and DELETE /v1/crawl). A crawl lives
 * in MySQL; its driver job on the crawl queue only says which crawl to drive.
 */
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Kysely } from 'kysely';
import { ApiError } from '../errors/catalogue.js';
import type { Caller, Principal } from '../auth/principal.js';
import { jobEnvelope } from '../queue/queues.js';
import type { Database } from '../storage/schema.js';
import type { CrawlRequest } from './crawl-options.js';
import { crawlJobId, enqueueCrawl } from './crawl-jobs.js';
import { cancelCrawl, indexedPages, insertCrawlWithin } from './crawl.repository.js';
import { describeCrawl, findOwnCrawl, type CrawlView } from './crawl-view.js';

export class CrawlService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly queue: Queue,
    /** Unfinished crawls an account may have per mode (CRAWL_MAX_UNFINISHED). */
    private readonly maxUnfinished: number,
  ) {}

  /** Stores a new crawl and queues its driver; TOO_MANY_CRAWLS when the caller has its limit of unfinished ones. */
  async start(caller: Caller, request: CrawlRequest): Promise<CrawlView> {
    const { principal } = caller;
    const id = `crawl_${randomUUID()}`;
    // The row first: should the process die before the job is queued, the reconciler queues it.
    const stored = await insertCrawlWithin(this.db, {
      id,
      accountId: principal.accountId,
      principalId: principal.id,
      mode: principal.mode,
      requestId: caller.requestId,
      options: JSON.stringify(request),
      maxPages: request.max_pages,
      createdAt: new Date(),
    }, this.maxUnfinished);
    if (!stored.inserted) throw new ApiError('TOO_MANY_CRAWLS', { limit: this.maxUnfinished, unfinished: stored.unfinished });
    // Described before its job is queued: afterwards a worker may already be driving it, and the
    // answer to the request that created it would say `running` as often as `queued`.
    const created = await this.get(principal, id);
    await enqueueCrawl(this.queue, jobEnvelope(caller, { crawl_id: id, epoch: 0 }));
    return created;
  }

  /** The caller's crawl, or NOT_FOUND. */
  async get(principal: Principal, id: string): Promise<CrawlView> {
    return describeCrawl(this.db, await findOwnCrawl(this.db, id, principal));
  }

  /**
   * The pages the caller's crawl indexed so far, `limit` from `offset`, in the order they were
   * indexed: the URL crawled, the URL its content came from, and the page's HTTP status.
   */
  async indexedPages(principal: Principal, id: string, offset: number, limit: number): Promise<Array<{ url: string; finalUrl: string; httpStatus: number | null }>> {
    const crawl = await findOwnCrawl(this.db, id, principal);
    const pages = await indexedPages(this.db, crawl.id, offset, limit);
    return pages.map((p) => ({ url: p.url, finalUrl: p.final_url ?? p.url, httpStatus: p.http_status }));
  }

  /** Stops the caller's crawl from fetching further pages; a finished crawl is left as it is. */
  async cancel(principal: Principal, id: string): Promise<CrawlView> {
    const crawl = await findOwnCrawl(this.db, id, principal);
    await cancelCrawl(this.db, crawl.id);
    // A driver job still waiting would only find the crawl cancelled; removing it saves the turn.
    await this.queue.remove(crawlJobId(crawl.id, crawl.lease_epoch)).catch(() => undefined);
    return this.get(principal, crawl.id);
  }
}
