/**
 * Pages an extraction job read but could not store (MySQL away, a write that failed): kept in
 * Redis under the job's id for a short while, so that the job's retry only writes them, never
 * fetching and cleaning the page again. Nothing is kept on the way of a write that succeeds.
 */
import type { Redis } from 'ioredis';
import type { CleanedPage } from '../page/read-page.js';
import type { RenderReport } from '../render/read-rendered-page.js';

/** Outlives every retry of the job: its caller waits at most options.timeout (60 s) + 10 s. */
const KEEP_SECONDS = 120;

/** What a job read, and how far storing it went. */
export interface ReadExtraction {
  /** The URL asked for: a kept page is only reused for the same one. */
  url: string;
  finalUrl: string;
  cleaned: CleanedPage;
  fetchedAt: Date;
  /** The extractions row is written; only indexing is left. */
  stored: boolean;
  /** The page's HTML as received, when the request asked for it (it is not stored). */
  rawHtml?: string;
  /** Whether and why the page was rendered (options.render), for the answer. */
  render?: RenderReport;
}

export class UnstoredPages {
  private readonly prefix: string;

  constructor(private readonly redis: Redis, queuePrefix: string) {
    this.prefix = `${queuePrefix}:extract:unstored:`;
  }

  /** Keeps `read` for the job's retry; false when Redis would not take it (the retry then reads the page again). */
  async keep(jobId: string, read: ReadExtraction): Promise<boolean> {
    try {
      await this.redis.set(this.prefix + jobId, JSON.stringify(read), 'EX', KEEP_SECONDS);
      return true;
    } catch {
      return false;
    }
  }

  /** The page an earlier attempt of the job read for `url` and could not store, if it is kept. */
  async find(jobId: string, url: string): Promise<ReadExtraction | undefined> {
    const text = await this.redis.get(this.prefix + jobId).catch(() => null);
    if (text === null) return undefined;
    const kept = JSON.parse(text) as Omit<ReadExtraction, 'fetchedAt'> & { fetchedAt: string };
    return kept.url === url ? { ...kept, fetchedAt: new Date(kept.fetchedAt) } : undefined;
  }

  /** Forgets the job's page once it is stored (else it lapses by itself). */
  async forget(jobId: string): Promise<void> {
    await this.redis.del(this.prefix + jobId).catch(() => undefined);
  }
}
