/**
 * Extractions queued together that nobody waits for (Firecrawl's batch scrape): one extract job
 * per URL, ids `<batch>-<n>`, each carrying the batch's owner and size, kept a day after it
 * finishes so that the client can read the results by polling. The jobs are the batch's only
 * record: reading a batch reads its jobs.
 */
import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import { ApiError } from '../errors/catalogue.js';
import type { Caller, Principal } from '../auth/principal.js';
import { jobEnvelope, type JobEnvelope } from '../queue/queues.js';
import type { ExtractRequest, ExtractResult } from './types.js';

/** How long a batch's results are kept after its jobs finish. */
const BATCH_RETENTION_S = 24 * 3600;

interface BatchJobData extends JobEnvelope<ExtractRequest> {
  batch: { id: string; index: number; total: number; account_id: string | null; created_at: number };
}

export interface BatchPage {
  url: string;
  /** What was asked of the page (undefined once its job is dropped). */
  request?: ExtractRequest;
  /** pending: queued, running or to be retried. */
  state: 'pending' | 'completed' | 'failed';
  result?: ExtractResult;
  error?: ApiError;
}

export interface Batch {
  id: string;
  createdAt: Date;
  /** When the last finished page's result will be dropped, at the latest. */
  expiresAt: Date;
  pages: BatchPage[];
}

export class ExtractBatches {
  constructor(private readonly queue: Queue) {}

  /** Queues one extraction per request, in order; the batch's id. */
  async start(caller: Caller, requests: readonly ExtractRequest[]): Promise<{ id: string; createdAt: Date }> {
    const id = `batch_${randomUUID().replace(/-/g, '')}`;
    const createdAt = new Date();
    const { principal } = caller;
    await this.queue.addBulk(requests.map((input, index) => {
      const data: BatchJobData = {
        ...jobEnvelope({ requestId: `${id}-${index}`, principal }, input),
        batch: { id, index, total: requests.length, account_id: principal.accountId, created_at: createdAt.getTime() },
      };
      return { name: this.queue.name, data, opts: { jobId: `${id}-${index}`, removeOnComplete: { age: BATCH_RETENTION_S }, removeOnFail: { age: BATCH_RETENTION_S } } };
    }));
    return { id, createdAt };
  }

  /** The caller's batch (its account and mode), or NOT_FOUND, also once its results are dropped. */
  async get(principal: Principal, id: string): Promise<Batch> {
    const notFound = () => new ApiError('NOT_FOUND', { resource: 'batch', id }, `No batch with id ${id}.`);
    if (!/^batch_[0-9a-f]{32}$/.test(id)) throw notFound();
    const first = await this.queue.getJob(`${id}-0`) as Job<BatchJobData> | undefined;
    const owner = first?.data.batch;
    if (!first || !owner || owner.account_id !== principal.accountId || first.data.mode !== principal.mode) throw notFound();
    const rest = await Promise.all(Array.from({ length: owner.total - 1 }, (_, i) => this.queue.getJob(`${id}-${i + 1}`) as Promise<Job<BatchJobData> | undefined>));
    const jobs = [first, ...rest];
    let lastFinished = owner.created_at;
    const pages = jobs.map((job): BatchPage => {
      // A job dropped with its results (past retention) reads as a failed page.
      if (!job) return { url: '', state: 'failed', error: new ApiError('NOT_FOUND', { resource: 'batch_page', id }, 'This page\'s result is no longer kept.') };
      const request = job.data.input;
      const { url } = request;
      if (!job.finishedOn) return { url, request, state: 'pending' };
      lastFinished = Math.max(lastFinished, job.finishedOn);
      if (job.failedReason) return { url, request, state: 'failed', error: ApiError.fromJSON(job.failedReason) ?? new ApiError('INTERNAL_SERVER_ERROR', { incident_id: `${id}-${job.data.batch.index}` }) };
      return { url, request, state: 'completed', result: job.returnvalue as ExtractResult };
    });
    return { id, createdAt: new Date(owner.created_at), expiresAt: new Date(lastFinished + BATCH_RETENTION_S * 1000), pages };
  }
}
