import { respond } from '../context.js';
import type { Route } from './route.js';

export const getIndexJob: Route = {
  operationId: 'getIndexJob',
  method: 'GET',
  path: '/v1/index/jobs/:id',
  summary: "State, progress, outcome counts and errors of a batch indexing job (the caller's account and mode only)",
  tag: 'Index',
  scope: 'index',
  response: 'index-job.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.index.job(ctx.state.principal!, ctx.params.id!));
  },
};
