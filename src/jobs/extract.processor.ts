import type { Job } from 'bullmq';
import { extractPage, type ExtractDeps } from '../extract/extract-page.js';
import type { ExtractRequest, ExtractResult } from '../extract/types.js';
import type { JobEnvelope } from '../queue/queues.js';

/** BullMQ processor of the extract queue: job data in, result out. */
export function createExtractProcessor(deps: ExtractDeps) {
  return (job: Job<JobEnvelope<ExtractRequest>>): Promise<ExtractResult> =>
    extractPage(deps, { requestId: job.data.request_id, mode: job.data.mode ?? 'live', jobId: job.id!, attemptsMade: job.attemptsMade }, job.data.input);
}
