import type { ScopeQuery } from '../../monitor/monitor-scope.js';
import { respond } from '../context.js';
import type { Route } from './route.js';

export const getMetricsLive: Route<unknown, ScopeQuery> = {
  operationId: 'metricsLive',
  method: 'GET',
  path: '/v1/metrics/live',
  summary: "Current load of every process, the caller's requests of the last 5 minutes and their trend, firing alerts",
  tag: 'Monitoring',
  scope: 'monitor',
  query: 'metrics-live.query',
  response: 'metrics-live.response',
  // The master key naming an account that does not exist.
  notFound: true,
  async handler(ctx, { query }, services) {
    respond(ctx, await services.live.read(ctx.state.principal!, query));
  },
};
