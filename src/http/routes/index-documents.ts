import { randomUUID } from 'node:crypto';
import { validateBody } from '../../schema/request-validator.js';
import { ApiError } from '../../errors/catalogue.js';
import { respond, type AppContext } from '../context.js';
import { resultWithin, runJob } from '../../queue/run-job.js';
import type { JobEnvelope } from '../../queue/queues.js';
import { sortBatch } from '../../index/ingest-document.js';
import { emptyCounts, type IngestReport } from '../../index/ingest.js';
import { INGEST_JOB_OPTIONS, type IndexJob, type IndexJobInput } from '../../index/jobs.js';
import type { Route } from './route.js';

/** Batches up to this size are answered within the request; larger ones are left to poll. */
export const INLINE_BATCH_LIMIT = 50;

/** How long a request waits for its small batch before answering with the job to poll instead. */
const INLINE_WAIT_MS = 60_000;

/** How long a deletion may take before the client is told to retry. */
const DELETE_WAIT_MS = 60_000;

export const postIndexDocuments: Route = {
  operationId: 'indexDocuments',
  method: 'POST',
  path: '/v1/index/documents',
  summary: 'Index a batch of documents (text, Markdown or HTML); small batches within the request, large ones as a job',
  tag: 'Index',
  scope: 'index',
  body: 'index-documents.request',
  response: 'index-documents.response',
  async handler(ctx, deps) {
    // The items are checked one by one below: one bad document must not refuse the batch.
    const { documents } = validateBody<{ documents: unknown[] }>('index-documents.envelope', ctx.request.body);
    const { accepted, rejected } = sortBatch(documents);
    const total = documents.length;
    if (accepted.length === 0) {
      respond(ctx, { job_id: null, state: 'completed', total, counts: { ...emptyCounts(), rejected: rejected.length }, results: [], errors: rejected });
      return;
    }
    const inline = total <= INLINE_BATCH_LIMIT;
    const job = await deps.queues.index.add('index', envelope(ctx, {
      kind: 'ingest', account_id: ctx.state.principal?.accountId ?? null, documents: accepted, rejected, keep_results: inline,
    }), { jobId: `idx_${randomUUID()}`, ...INGEST_JOB_OPTIONS }) as IndexJob;
    const report = inline ? await resultWithin<IngestReport>(job, deps.queueEvents.index, INLINE_WAIT_MS, deps.shutdownSignal) : undefined;
    if (report) {
      respond(ctx, {
        job_id: job.id, state: 'completed', total, counts: report.counts, errors: report.errors,
        results: report.results.map((r) => ({
          index: r.index, url: r.url, status: r.status, document_id: r.documentId, passages: r.passages, duplicate_of: r.duplicateOf,
        })),
      });
      return;
    }
    const state = (await job.getState()) === 'active' ? 'running' : 'queued';
    respond(ctx, { job_id: job.id, state, total, errors: rejected });
    ctx.status = 202;
  },
};

export const deleteIndexDocuments: Route = {
  operationId: 'deleteIndexDocuments',
  method: 'DELETE',
  path: '/v1/index/documents',
  summary: 'Remove documents from the index by URL, or every document of a domain and its subdomains',
  tag: 'Index',
  scope: 'index',
  body: 'index-delete.request',
  response: 'index-delete.response',
  async handler(ctx, deps) {
    const input = validateBody<{ urls?: string[]; domain?: string }>('index-delete.request', ctx.request.body);
    if (input.urls !== undefined && input.domain !== undefined) {
      throw new ApiError('INVALID_PARAMETER', { parameter: 'body', reason: 'must contain exactly one of: urls, domain' }, 'body must contain exactly one of: urls, domain');
    }
    const result = await runJob<IndexJobInput, { deleted: number }>(
      deps.queues.index,
      deps.queueEvents.index,
      envelope(ctx, { kind: 'delete', account_id: ctx.state.principal?.accountId ?? null, ...input }),
      {
        timeoutMs: DELETE_WAIT_MS,
        onTimeout: () => new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'retry shortly', status_page: '/v1/health' }, 'The index did not answer in time; retry the request.'),
        signal: deps.shutdownSignal,
      },
    );
    respond(ctx, result);
  },
};

function envelope(ctx: AppContext, input: IndexJobInput): JobEnvelope<IndexJobInput> {
  return { request_id: ctx.state.requestId, principal_id: ctx.state.principal?.id ?? null, mode: ctx.state.principal?.mode ?? 'live', input };
}
