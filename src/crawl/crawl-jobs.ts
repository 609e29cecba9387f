/**
 * Jobs of the `crawl` queue. A job drives one crawl for one lease epoch; its id names both, so
 * enqueueing a crawl's driver twice for an epoch is a no-op. The crawl itself lives in MySQL:
 * the job carries only which crawl to drive.
 */
import type { JobsOptions, Queue } from 'bullmq';
import type { JobEnvelope } from '../queue/queues.js';

export interface CrawlJobInput {
  crawl_id: string;
  epoch: number;
}

export type CrawlJobData = JobEnvelope<CrawlJobInput>;

/**
 * No BullMQ retries: a driver that fails hands its lease back and the reconciler starts the next
 * epoch, which also counts towards the crawl's restart limit. Finished jobs go at once (the
 * crawl's row is the record); failed ones stay a day for inspection.
 */
export const CRAWL_JOB_OPTIONS: JobsOptions = {
  attempts: 1,
  removeOnComplete: true,
  removeOnFail: { age: 24 * 3600 },
};

export function crawlJobId(crawlId: string, epoch: number): string {
  return `${crawlId}.${epoch}`;
}

export async function enqueueCrawl(queue: Queue, data: CrawlJobData): Promise<void> {
  await queue.add('crawl', data, { ...CRAWL_JOB_OPTIONS, jobId: crawlJobId(data.input.crawl_id, data.input.epoch) });
}
