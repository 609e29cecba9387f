import { arrivedAt, caller, respond } from '../context.js';
import type { ExtractRequest } from '../../extract/types.js';
import type { Route } from './route.js';

export const postExtract: Route<ExtractRequest> = {
  operationId: 'extract',
  method: 'POST',
  path: '/v1/extract',
  summary: 'Fetch a page and return its cleaned main content, metadata, images and links',
  tag: 'Core',
  scope: 'extract',
  body: 'extract.request',
  response: 'extract.response',
  async handler(ctx, { body: request }, services) {
    const result = await services.extract.extract(caller(ctx), request, arrivedAt(ctx));
    ctx.state.audit = { url: request.url, word_count: result.metadata?.word_count ?? null };
    respond(ctx, result);
  },
};
