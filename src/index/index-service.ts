/**
 * Index ingestion and deletion as clients ask for them (POST and DELETE /v1/index/documents,
 * GET /v1/index/jobs/{id}). The work runs on the index queue, where the CPU pool and the index
 * are: a small batch is awaited within the request, a large one (or a small one that takes too
 * long) is left for the client to poll.
 */
import { randomUUID } from 'node:crypto';
import type { Queue, QueueEvents } from 'bullmq';
import { ApiError } from '../errors/catalogue.js';
import type { Caller, Principal } from '../auth/principal.js';
import { jobEnvelope } from '../queue/queues.js';
import { resultWithin, runJob } from '../queue/run-job.js';
import { sortBatch, type IngestError } from './ingest-document.js';
import { emptyCounts, type IngestCounts, type IngestReport } from './ingest.js';
import type { IndexStatus } from './types.js';
import { describeIngestJob, findIngestJob, INGEST_JOB_OPTIONS, type DeleteJobInput, type IndexJob, type IndexJobInput, type IndexJobView } from './jobs.js';

/** Batches up to this size are answered within the request; larger ones are left to poll. */
const INLINE_BATCH_LIMIT = 50;

/** How long a request waits for its small batch before answering with the job to poll instead. */
const INLINE_WAIT_MS = 60_000;

/** How long a deletion may take before the client is told to retry. */
const DELETE_WAIT_MS = 60_000;

/** A batch indexed within the request (job_id null when no document was accepted), as clients see it. */
export interface IndexedBatch {
  job_id: string | null;
  state: 'completed';
  total: number;
  counts: IngestCounts;
  errors: IngestError[];
  results: Array<{ index: number; url: string; status: IndexStatus; document_id: number; passages: number; duplicate_of: number | null }>;
}

/** A batch left to its job: the client polls GET /v1/index/jobs/{job_id}. */
export interface QueuedBatch {
  job_id: string;
  state: 'queued' | 'running';
  total: number;
  /** The documents refused at submission. */
  errors: IngestError[];
}

/** Which documents to delete: exactly one of the two (the route checks that). */
export type DeletionTarget = Pick<DeleteJobInput, 'urls' | 'domain'>;

export class IndexService {
  constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    /** Aborted when the process shuts down: a waiting batch is then answered as queued. */
    private readonly shutdownSignal: AbortSignal,
  ) {}

  /**
   * Indexes the documents of a batch that pass their check, into the caller's mode; the others
   * are reported by position. Each document is checked on its own: one bad document does not
   * refuse the batch.
   */
  async ingest(caller: Caller, documents: readonly unknown[]): Promise<IndexedBatch | QueuedBatch> {
    const { accepted, rejected } = sortBatch(documents);
    const total = documents.length;
    if (accepted.length === 0) {
      return { job_id: null, state: 'completed', total, counts: { ...emptyCounts(), rejected: rejected.length }, results: [], errors: rejected };
    }
    const inline = total <= INLINE_BATCH_LIMIT;
    const job = await this.queue.add('index', jobEnvelope<IndexJobInput>(caller, {
      kind: 'ingest', account_id: caller.principal.accountId, documents: accepted, rejected, keep_results: inline,
    }), { jobId: `idx_${randomUUID()}`, ...INGEST_JOB_OPTIONS }) as IndexJob;
    const report = inline ? await resultWithin<IngestReport>(job, this.events, INLINE_WAIT_MS, this.shutdownSignal) : undefined;
    if (report) {
      return {
        job_id: job.id!, state: 'completed', total, counts: report.counts, errors: report.errors,
        results: report.results.map((r) => ({
          index: r.index, url: r.url, status: r.status, document_id: r.documentId, passages: r.passages, duplicate_of: r.duplicateOf,
        })),
      };
    }
    const state = (await job.getState()) === 'active' ? 'running' : 'queued';
    return { job_id: job.id!, state, total, errors: rejected };
  }

  /** Deletes the caller's documents (in its mode) by URL or by domain with its subdomains. */
  async remove(caller: Caller, target: DeletionTarget): Promise<{ deleted: number }> {
    return runJob<IndexJobInput, { deleted: number }>(
      this.queue,
      this.events,
      jobEnvelope<IndexJobInput>(caller, { kind: 'delete', account_id: caller.principal.accountId, ...target }),
      {
        deadline: Date.now() + DELETE_WAIT_MS,
        onTimeout: () => new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'retry shortly', status_page: '/v1/health' }, 'The index did not answer in time; retry the request.'),
        signal: this.shutdownSignal,
      },
    );
  }

  /** The caller's ingestion job as it stands, or NOT_FOUND. */
  async job(principal: Principal, id: string): Promise<IndexJobView> {
    const { job, state } = await findIngestJob(this.queue, id, principal);
    return describeIngestJob(job, state);
  }
}
