import { validateBody } from '../../schema/request-validator.js';
import { ApiError } from '../../errors/catalogue.js';
import { respond } from '../context.js';
import { runJob } from '../../queue/run-job.js';
import type { ExtractRequest, ExtractResult } from '../../extract/types.js';
import type { Route } from './route.js';

// Processing after the fetch (cleaning, storing) gets this much on top of the fetch time-out.
const PROCESSING_ALLOWANCE_S = 10;

export const postExtract: Route = {
  operationId: 'extract',
  method: 'POST',
  path: '/v1/extract',
  summary: 'Fetch a page and return its cleaned main content, metadata, images and links',
  tag: 'Core',
  scope: 'extract',
  body: 'extract.request',
  response: 'extract.response',
  async handler(ctx, deps) {
    const input = validateBody<ExtractRequest>('extract.request', ctx.request.body ?? {});
    const timeoutSeconds = input.options.timeout + PROCESSING_ALLOWANCE_S;
    const result = await runJob<ExtractRequest, ExtractResult>(
      deps.queues.extract,
      deps.queueEvents.extract,
      { request_id: ctx.state.requestId, principal_id: ctx.state.principal?.id ?? null, mode: ctx.state.principal?.mode ?? 'live', input },
      {
        timeoutMs: timeoutSeconds * 1000,
        onTimeout: () => new ApiError('EXTRACT_TIMEOUT', { timeout_seconds: timeoutSeconds }),
        signal: deps.shutdownSignal,
      },
    );
    ctx.state.audit = { url: input.url, word_count: result.metadata?.word_count ?? null };
    respond(ctx, result);
  },
};
