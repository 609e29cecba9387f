import { ApiError } from '../../errors/catalogue.js';
import type { Route } from './route.js';

/** Liveness: the process answers. Orchestrators restart it when this stops answering. */
export const getLivez: Route = {
  operationId: 'livez',
  method: 'GET',
  path: '/livez',
  summary: 'Liveness probe (no authentication)',
  tag: 'Probes',
  async handler(ctx) {
    ctx.body = { status: 'alive' };
  },
};

/** Readiness: MySQL and Redis answer and the process is not draining. */
export const getReadyz: Route = {
  operationId: 'readyz',
  method: 'GET',
  path: '/readyz',
  summary: 'Readiness probe (no authentication): 200 when MySQL and Redis answer, 503 otherwise or while draining',
  tag: 'Probes',
  async handler(ctx, _input, services) {
    if (!services.accepting()) {
      throw new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'after restart', status_page: '/v1/health' }, 'The process is shutting down.');
    }
    if (!(await services.health.ready())) {
      throw new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'when MySQL and Redis answer', status_page: '/v1/health' }, 'A dependency does not answer.');
    }
    ctx.body = { status: 'ready' };
  },
};

/** Prometheus scrape endpoint. */
export const getMetrics: Route = {
  operationId: 'metrics',
  method: 'GET',
  path: '/metrics',
  summary: 'Prometheus metrics in text exposition format (no authentication)',
  tag: 'Probes',
  async handler(ctx, _input, services) {
    ctx.type = services.metrics.registry.contentType;
    ctx.body = await services.metrics.registry.metrics();
  },
};
