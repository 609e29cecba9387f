import { validateBody } from '../../schema/request-validator.js';
import { ApiError } from '../../errors/catalogue.js';
import { arrivedAt, respond } from '../context.js';
import { runJob } from '../../queue/run-job.js';
import { sha256Hex } from '../../storage/hash.js';
import { isTooVague } from '../../validate/claim-check.js';
import { sourcesToCheck } from '../../validate/gather-evidence.js';
import type { ValidateJob, ValidateRequest, ValidationResult } from '../../validate/types.js';
import type { Route } from './route.js';

/** Time the worker gets past the deadline to answer VALIDATION_TIMEOUT with its own counts. */
const ANSWER_GRACE_MS = 2000;

export const postValidate: Route = {
  operationId: 'validate',
  method: 'POST',
  path: '/v1/validate',
  summary: 'Judge a claim against evidence: a verdict, its confidence and the evidence for and against it',
  tag: 'Core',
  scope: 'validate',
  body: 'validate.request',
  response: 'validate.response',
  async handler(ctx, deps) {
    const arrived = arrivedAt(ctx);
    const request = validateBody<ValidateRequest>('validate.request', ctx.request.body ?? {});
    if (isTooVague(request.claim)) {
      throw new ApiError('CLAIM_TOO_VAGUE', {}, 'The claim needs at least two content words (stop words do not count) to be checked.');
    }
    const principal = ctx.state.principal!;
    ctx.state.audit = { claim_hash: `sha256:${sha256Hex(request.claim)}` };
    const deadline = arrived + request.options.timeout * 1000;
    const requested = sourcesToCheck(request);
    const result = await runJob<ValidateJob, ValidationResult>(
      deps.queues.validate,
      deps.queueEvents.validate,
      { request_id: ctx.state.requestId, principal_id: principal.id, mode: principal.mode, input: { request, deadline } },
      {
        timeoutMs: Math.max(1, deadline + ANSWER_GRACE_MS - Date.now()),
        // The worker did not answer at all (a backlog in the queue): nothing is known to be checked.
        onTimeout: () => new ApiError('VALIDATION_TIMEOUT', { sources_checked: 0, sources_pending: requested }),
        signal: deps.shutdownSignal,
      },
    ).catch((error: unknown) => {
      if (error instanceof ApiError) ctx.state.audit = { ...ctx.state.audit, ...error.details };
      throw error;
    });
    result.metadata.query_time = (Date.now() - arrived) / 1000;
    ctx.state.audit = {
      ...ctx.state.audit, validation_result: result.validation_result, confidence_score: result.confidence_score,
      sources_checked: result.metadata.sources_checked,
    };
    respond(ctx, result);
  },
};
