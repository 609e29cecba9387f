/**
 * The reconciler that makes every crawl finish: every few seconds, in every worker process, it
 * looks for unfinished crawls nobody holds (never started, or whose driver stopped renewing its
 * lease: the process died, hung or shut down) and gives each one a driver job of the next lease
 * epoch, unless the current epoch's job is still waiting for a worker. The new epoch fences the
 * old driver out, should it ever wake up. A crawl restarted MAX_EPOCHS times (graceful
 * hand-overs of stopping workers not counted) is failed rather than retried forever. Now and
 * then it also deletes crawls finished more than RETENTION_MS ago.
 */
import type { Queue } from 'bullmq';
import type { Kysely } from 'kysely';
import type { Logger } from '../log/logger.js';
import type { Database } from '../storage/schema.js';
import { crawlJobId, enqueueCrawl } from './crawl-jobs.js';
import { failCrawl, nextEpoch, purgeFinishedCrawls, unheldCrawls } from './crawl.repository.js';

const RECONCILE_MS = 3000;
/** Restarts a crawl may go through after its driver crashed, was killed or failed (graceful hand-overs are free). */
export const MAX_EPOCHS = 50;
const BATCH = 100;
/** Finished crawls (and their frontier) are kept this long for GET /v1/crawl/{id}. */
export const RETENTION_MS = 7 * 24 * 3600 * 1000;
/** Purging runs on one pass in this many. */
const PURGE_EVERY = 20;
const WAITING_STATES: ReadonlySet<string> = new Set(['waiting', 'delayed', 'prioritized', 'waiting-children']);

export interface ReconcilerDeps {
  db: Kysely<Database>;
  queue: Queue;
  logger: Logger;
}

export function startCrawlReconciler(deps: ReconcilerDeps): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let passes = 0;
  const timer = setInterval(() => {
    running ??= (async () => {
      await reconcileCrawls(deps);
      if (++passes % PURGE_EVERY === 0) await purgeFinishedCrawls(deps.db, new Date(Date.now() - RETENTION_MS), 10, 10_000);
    })()
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'crawl reconciliation failed'))
      .finally(() => (running = undefined));
  }, RECONCILE_MS);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** One pass; returns the crawls given a new driver. */
export async function reconcileCrawls({ db, queue, logger }: ReconcilerDeps): Promise<string[]> {
  const restarted: string[] = [];
  for (let after = ''; ;) {
    const page = await unheldCrawls(db, BATCH, after);
    for (const crawl of page) {
      const job = await queue.getJob(crawlJobId(crawl.id, crawl.lease_epoch));
      const state = job ? await job.getState() : 'missing';
      if (WAITING_STATES.has(state)) continue;
      // Taken by a worker that has not claimed the lease yet; should that worker have died,
      // BullMQ's stalled-job check runs the job again, or fails it and the next pass acts.
      if (state === 'active' && crawl.lease_owner === null) continue;
      const epoch = crawl.lease_epoch + 1;
      if (!(await nextEpoch(db, crawl.id, crawl.lease_epoch))) continue;
      // Graceful hand-overs (workers stopping) are no sign of a broken crawl: only the other restarts count.
      if (epoch - crawl.handbacks > MAX_EPOCHS) {
        await failCrawl(db, crawl.id, 'INTERNAL_SERVER_ERROR', `the crawl's driver stopped ${MAX_EPOCHS} times without finishing it`);
        logger.error({ crawl_id: crawl.id }, 'crawl failed: restart limit reached');
        continue;
      }
      await enqueueCrawl(queue, {
        request_id: crawl.request_id,
        principal_id: crawl.principal_id,
        mode: crawl.mode === 'test' ? 'test' : 'live',
        input: { crawl_id: crawl.id, epoch },
      });
      logger.info({ crawl_id: crawl.id, epoch, previous_job: state }, 'crawl handed to a new driver');
      restarted.push(crawl.id);
    }
    if (page.length < BATCH) break;
    after = page[page.length - 1]!.id;
  }
  return restarted;
}
