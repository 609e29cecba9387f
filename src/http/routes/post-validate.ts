import { ApiError } from '../../errors/catalogue.js';
import { arrivedAt, caller, respond } from '../context.js';
import { sha256Hex } from '../../storage/hash.js';
import { refuseVagueClaim } from '../../validate/claim-check.js';
import type { ValidateRequest } from '../../validate/types.js';
import type { Route } from './route.js';

export const postValidate: Route<ValidateRequest> = {
  operationId: 'validate',
  method: 'POST',
  path: '/v1/validate',
  summary: 'Judge a claim against evidence: a verdict, its confidence and the evidence for and against it',
  tag: 'Core',
  scope: 'validate',
  body: 'validate.request',
  response: 'validate.response',
  check({ body }) {
    refuseVagueClaim(body.claim);
  },
  async handler(ctx, { body: request }, services) {
    ctx.state.audit = { claim_hash: `sha256:${sha256Hex(request.claim)}` };
    const result = await services.validate.validate(caller(ctx), request, arrivedAt(ctx)).catch((error: unknown) => {
      // How far a validation got (VALIDATION_TIMEOUT's counts) belongs in its audit row.
      if (error instanceof ApiError) ctx.state.audit = { ...ctx.state.audit, ...error.details };
      throw error;
    });
    ctx.state.audit = {
      ...ctx.state.audit, validation_result: result.validation_result, consensus_level: result.consensus_level,
      confidence_score: result.confidence_score, sources_checked: result.metadata.sources_checked,
    };
    respond(ctx, result);
  },
};
