import { validateBody } from '../../schema/request-validator.js';
import { caller, respond } from '../context.js';
import type { ExtractRequest } from '../../extract/types.js';
import type { Route } from './route.js';

export const postExtract: Route = {
  operationId: 'extract',
  method: 'POST',
  path: '/v1/extract',
  summary: 'Fetch a page and return its cleaned main content, metadata, images and links',
  tag: 'Core',
  scope: 'extract',
  body: 'extract.request',
  response: 'extract.response',
  async handler(ctx, services) {
    const input = validateBody<ExtractRequest>('extract.request', ctx.request.body ?? {});
    const result = await services.extract.extract(caller(ctx), input);
    ctx.state.audit = { url: input.url, word_count: result.metadata?.word_count ?? null };
    respond(ctx, result);
  },
};
