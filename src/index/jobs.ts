/**
 * Jobs of the index queue: what they carry, and how a client sees an ingestion job. A job
 * belongs to the account and mode that submitted it; to anyone else it does not exist.
 */
import type { Job, JobsOptions, Queue } from 'bullmq';
import { ApiError } from '../errors/catalogue.js';
import type { Principal } from '../auth/principal.js';
import type { JobEnvelope } from '../queue/queues.js';
import type { AcceptedDocument, IngestError } from './ingest-document.js';
import { emptyCounts, type IngestCounts, type IngestProgress, type IngestReport } from './ingest.js';

export interface IngestJobInput {
  kind: 'ingest';
  /** Owner of the job: null for the master key. */
  account_id: string | null;
  documents: AcceptedDocument[];
  /** Refused at submission: part of the job's report so that it covers the whole batch. */
  rejected: IngestError[];
  /** Per-document results are returned to a request that waits; a polled job reports counts only. */
  keep_results: boolean;
}

export interface DeleteJobInput {
  kind: 'delete';
  account_id: string | null;
  urls?: string[];
  domain?: string;
}

export type IndexJobInput = IngestJobInput | DeleteJobInput;
export type IndexJob = Job<JobEnvelope<IndexJobInput>>;

/**
 * Ingestion jobs are kept a day after they finish, so that a client polling now and then still
 * finds the outcome (the queue's default of an hour suits requests that wait; a small batch can
 * outlast its request's wait and be polled too). Not longer: a job holds its whole batch, up to
 * 10 MB, in Redis.
 */
export const INGEST_JOB_OPTIONS: JobsOptions = {
  removeOnComplete: { age: 24 * 3600 },
  removeOnFail: { age: 24 * 3600 },
};

export type IndexJobState = 'queued' | 'running' | 'completed' | 'failed';

export interface IndexJobView {
  job_id: string;
  state: IndexJobState;
  progress: { done: number; total: number };
  counts: IngestCounts;
  errors: IngestError[];
  created_at: string;
  finished_at: string | null;
  failure?: { code: string; message: string };
}

/**
 * The caller's ingestion job with its state, or 404: another account's or mode's job is not
 * acknowledged. The state is read before the job's data: read after, it could say "completed"
 * about data fetched while the job still ran, which has no return value yet.
 */
export async function findIngestJob(queue: Queue, id: string, principal: Principal): Promise<{ job: IndexJob; state: IndexJobState }> {
  const state = await queue.getJobState(id);
  const job = (await queue.getJob(id)) as IndexJob | undefined;
  const data = job?.data;
  if (!job || data?.input.kind !== 'ingest' || data.input.account_id !== principal.accountId || data.mode !== principal.mode) {
    throw new ApiError('NOT_FOUND', { resource: 'index_job', id }, `No index job with id ${id}.`);
  }
  return { job, state: toState(state) };
}

export function describeIngestJob(job: IndexJob, state: IndexJobState): IndexJobView {
  const input = job.data.input as IngestJobInput;
  // While it runs, the job reports through its progress; once completed, its return value is final.
  const report = state === 'completed' ? (job.returnvalue as unknown as IngestReport) : progressOf(job, input);
  const view: IndexJobView = {
    job_id: job.id!,
    state,
    progress: { done: report.done, total: report.total },
    counts: report.counts,
    errors: report.errors,
    created_at: new Date(job.timestamp).toISOString(),
    finished_at: job.finishedOn && (state === 'completed' || state === 'failed') ? new Date(job.finishedOn).toISOString() : null,
  };
  if (state === 'failed') {
    const error = ApiError.fromJSON(job.failedReason);
    view.failure = error ? { code: error.code, message: error.message } : { code: 'INTERNAL_SERVER_ERROR', message: job.failedReason };
  }
  return view;
}

/** A job that has not reported yet has done nothing but its refusals. */
function progressOf(job: IndexJob, input: IngestJobInput): IngestProgress {
  if (typeof job.progress === 'object' && job.progress !== null) return job.progress as unknown as IngestProgress;
  return {
    done: input.rejected.length,
    total: input.documents.length + input.rejected.length,
    counts: { ...emptyCounts(), rejected: input.rejected.length },
    errors: input.rejected,
  };
}

/** BullMQ's states as a client needs them: a job waiting to retry is queued again. */
function toState(state: string): IndexJobState {
  if (state === 'active') return 'running';
  if (state === 'completed' || state === 'failed') return state;
  return 'queued';
}
