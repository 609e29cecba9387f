/**
 * POST /v1/summarize: the summarize job (read the pages, summarise them) on the summarize
 * queue, awaited until the request's deadline and a little past it.
 */
import type { Queue, QueueEvents } from 'bullmq';
import { ApiError } from '../errors/catalogue.js';
import type { Caller } from '../auth/principal.js';
import { jobEnvelope } from '../queue/queues.js';
import { runJob } from '../queue/run-job.js';
import type { SummarizeJob, SummarizeRequest, SummarizeResult } from './types.js';

/** Time the worker gets past the deadline to answer with what it has read. */
const ANSWER_GRACE_MS = 2000;

export class SummarizeService {
  constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    /** Aborted when the process shuts down: waits on jobs give up with SERVICE_UNAVAILABLE. */
    private readonly shutdownSignal: AbortSignal,
  ) {}

  /** Summarises the request that arrived at `arrivedAt` (epoch ms): its options.timeout counts from then. */
  async summarize(caller: Caller, request: SummarizeRequest, arrivedAt: number): Promise<SummarizeResult> {
    const deadline = arrivedAt + request.options.timeout * 1000;
    const result = await runJob<SummarizeJob, SummarizeResult>(this.queue, this.events, jobEnvelope(caller, { request, deadline }), {
      deadline: deadline + ANSWER_GRACE_MS,
      onTimeout: () => new ApiError('EXTRACT_TIMEOUT', { timeout_seconds: request.options.timeout }),
      signal: this.shutdownSignal,
    });
    result.metadata.processing_time = (Date.now() - arrivedAt) / 1000;
    return result;
  }
}
