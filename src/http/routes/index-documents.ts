import { ApiError } from '../../errors/catalogue.js';
import { caller, respond } from '../context.js';
import type { DeletionTarget } from '../../index/index-service.js';
import type { Route } from './route.js';

export const postIndexDocuments: Route<{ documents: unknown[] }> = {
  operationId: 'indexDocuments',
  method: 'POST',
  path: '/v1/index/documents',
  summary: 'Index a batch of documents (text, Markdown or HTML); small batches within the request, large ones as a job',
  tag: 'Index',
  scope: 'index',
  body: 'index-documents.request',
  bodyEnvelope: 'index-documents.envelope',
  response: 'index-documents.response',
  async handler(ctx, { body }, services) {
    const batch = await services.index.ingest(caller(ctx), body.documents);
    respond(ctx, batch);
    if (batch.state !== 'completed') ctx.status = 202;
  },
};

export const deleteIndexDocuments: Route<DeletionTarget> = {
  operationId: 'deleteIndexDocuments',
  method: 'DELETE',
  path: '/v1/index/documents',
  summary: 'Remove documents from the index by URL, or every document of a domain and its subdomains',
  tag: 'Index',
  scope: 'index',
  body: 'index-delete.request',
  response: 'index-delete.response',
  check({ body }) {
    if (body.urls !== undefined && body.domain !== undefined) {
      throw new ApiError('INVALID_PARAMETER', { parameter: 'body', reason: 'must contain exactly one of: urls, domain' }, 'body must contain exactly one of: urls, domain');
    }
  },
  async handler(ctx, { body }, services) {
    respond(ctx, await services.index.remove(caller(ctx), body));
  },
};
