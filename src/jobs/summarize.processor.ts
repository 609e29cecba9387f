import type { Job } from 'bullmq';
import { runSummarize, type SummarizeDeps } from '../summarize/run-summarize.js';
import type { SummarizeJob, SummarizeResult } from '../summarize/types.js';
import type { JobEnvelope } from '../queue/queues.js';

/** BullMQ processor of the summarize queue. */
export function createSummarizeProcessor(deps: SummarizeDeps) {
  return (job: Job<JobEnvelope<SummarizeJob>>): Promise<SummarizeResult> => runSummarize(deps, job.data.input);
}
