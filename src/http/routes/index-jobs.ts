import { respond } from '../context.js';
import { describeIngestJob, findIngestJob } from '../../index/jobs.js';
import type { Route } from './route.js';

export const getIndexJob: Route = {
  operationId: 'getIndexJob',
  method: 'GET',
  path: '/v1/index/jobs/:id',
  summary: "State, progress, outcome counts and errors of a batch indexing job (the caller's account and mode only)",
  tag: 'Index',
  scope: 'index',
  response: 'index-job.response',
  async handler(ctx, deps) {
    const { job, state } = await findIngestJob(deps.queues.index, ctx.params.id!, ctx.state.principal!);
    respond(ctx, describeIngestJob(job, state));
  },
};
