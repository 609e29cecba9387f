import { respond } from '../context.js';
import type { Route } from './route.js';

export const getHealth: Route = {
  operationId: 'health',
  method: 'GET',
  path: '/v1/health',
  summary: 'Status of every component: database, Redis, queues, workers, pool; uptime and incidents',
  tag: 'Monitoring',
  scope: 'monitor',
  response: 'health.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.health.check());
  },
};
