import { validateBody } from '../../schema/request-validator.js';
import { ApiError } from '../../errors/catalogue.js';
import { caller, respond } from '../context.js';
import type { DeletionTarget } from '../../index/index-service.js';
import type { Route } from './route.js';

export const postIndexDocuments: Route = {
  operationId: 'indexDocuments',
  method: 'POST',
  path: '/v1/index/documents',
  summary: 'Index a batch of documents (text, Markdown or HTML); small batches within the request, large ones as a job',
  tag: 'Index',
  scope: 'index',
  body: 'index-documents.request',
  response: 'index-documents.response',
  async handler(ctx, services) {
    // The items are checked one by one by the service: one bad document must not refuse the batch.
    const { documents } = validateBody<{ documents: unknown[] }>('index-documents.envelope', ctx.request.body);
    const batch = await services.index.ingest(caller(ctx), documents);
    respond(ctx, batch);
    if (batch.state !== 'completed') ctx.status = 202;
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
  async handler(ctx, services) {
    const input = validateBody<DeletionTarget>('index-delete.request', ctx.request.body);
    if (input.urls !== undefined && input.domain !== undefined) {
      throw new ApiError('INVALID_PARAMETER', { parameter: 'body', reason: 'must contain exactly one of: urls, domain' }, 'body must contain exactly one of: urls, domain');
    }
    respond(ctx, await services.index.remove(caller(ctx), input));
  },
};
