import { Queue, type ConnectionOptions, type Job } from 'bullmq';
import { driveCrawl, type DriveResult, type DriverDeps } from '../crawl/crawl-driver.js';
import type { CrawlJobData } from '../crawl/crawl-jobs.js';
import { startCrawlReconciler } from '../crawl/crawl-reconciler.js';

export interface CrawlWorker {
  /** BullMQ processor of the crawl queue: drives one crawl for one lease epoch. */
  processor: (job: Job<CrawlJobData>) => Promise<DriveResult>;
  /** Stops the reconciler and hands running crawls back (their drivers release the lease at once). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

/** The crawl queue's processor, with the reconciler every worker process runs beside it. */
export function startCrawlWorker(deps: DriverDeps & { connection: ConnectionOptions; prefix: string }): CrawlWorker {
  const shutdown = new AbortController();
  const queue = new Queue('crawl', { connection: deps.connection, prefix: deps.prefix });
  const reconciler = startCrawlReconciler({ db: deps.db, queue, logger: deps.logger });
  return {
    processor: (job) => driveCrawl(deps, job.data.input.crawl_id, job.data.input.epoch, shutdown.signal),
    async stop() {
      shutdown.abort();
      await reconciler.stop();
    },
    close: () => queue.close(),
  };
}
