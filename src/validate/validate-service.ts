/**
 * POST /v1/validate: the validation job (gather evidence, judge it) on the validate queue,
 * awaited until the request's deadline and a little past it.
 */
import type { Queue, QueueEvents } from 'bullmq';
import { ApiError } from '../errors/catalogue.js';
import type { Caller } from '../auth/principal.js';
import { jobEnvelope } from '../queue/queues.js';
import { runJob } from '../queue/run-job.js';
import { sourcesToCheck } from './gather-evidence.js';
import type { ValidateJob, ValidateRequest, ValidationResult } from './types.js';

/** Time the worker gets past the deadline to answer VALIDATION_TIMEOUT with its own counts. */
const ANSWER_GRACE_MS = 2000;

export class ValidateService {
  constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    /** Aborted when the process shuts down: waits on jobs give up with SERVICE_UNAVAILABLE. */
    private readonly shutdownSignal: AbortSignal,
  ) {}

  /**
   * Judges a claim with something to check (refuseVagueClaim, claim-check.ts) that arrived at `arrivedAt` (epoch ms): its
   * options.timeout counts from then. VALIDATION_TIMEOUT says how many sources were checked.
   */
  async validate(caller: Caller, request: ValidateRequest, arrivedAt: number): Promise<ValidationResult> {
    const deadline = arrivedAt + request.options.timeout * 1000;
    const requested = sourcesToCheck(request);
    const result = await runJob<ValidateJob, ValidationResult>(this.queue, this.events, jobEnvelope(caller, { request, deadline }), {
      deadline: deadline + ANSWER_GRACE_MS,
      // The worker did not answer at all (a backlog in the queue): nothing is known to be checked.
      onTimeout: () => new ApiError('VALIDATION_TIMEOUT', { sources_checked: 0, sources_pending: requested }),
      signal: this.shutdownSignal,
    });
    result.metadata.query_time = (Date.now() - arrivedAt) / 1000;
    return result;
  }
}
