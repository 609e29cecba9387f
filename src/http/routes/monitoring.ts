import { ApiError } from '../../errors/catalogue.js';
import type { AuditQuery } from '../../monitor/audit-service.js';
import type { ErrorPeriod } from '../../monitor/error-analytics.js';
import type { ScopeQuery } from '../../monitor/monitor-scope.js';
import type { UsageQuery } from '../../usage/usage-report.js';
import { respond } from '../context.js';
import type { Route } from './route.js';

/** end_date must follow start_date: an empty or inverted range is a mistake, not an empty answer. */
function checkDates({ query }: { query: { start_date?: string; end_date?: string } }): void {
  if (query.start_date !== undefined && query.end_date !== undefined && Date.parse(query.end_date) <= Date.parse(query.start_date)) {
    throw new ApiError('INVALID_PARAMETER', { parameter: 'end_date', reason: 'must be later than start_date', provided: query.end_date }, 'end_date must be later than start_date.');
  }
}

export const getUsage: Route<unknown, UsageQuery> = {
  operationId: 'usage',
  method: 'GET',
  path: '/v1/usage',
  summary: 'Quota use this month, and requests, success, latency percentiles and cache hits over a period, per bucket, endpoint and key',
  tag: 'Monitoring',
  scope: 'monitor',
  query: 'usage.query',
  response: 'usage.response',
  check: checkDates,
  async handler(ctx, { query }, services) {
    respond(ctx, await services.usage.report(ctx.state.principal!, query));
  },
};

export const getAudit: Route<unknown, AuditQuery & { limit: number; offset: number }> = {
  operationId: 'audit',
  method: 'GET',
  path: '/v1/audit',
  summary: 'Audit log entries, newest first, filtered and paginated, with a summary of the whole filter',
  tag: 'Monitoring',
  scope: 'monitor',
  query: 'audit.query',
  response: 'audit.response',
  check: checkDates,
  async handler(ctx, { query }, services) {
    respond(ctx, await services.audit.page(ctx.state.principal!, query));
  },
};

export const exportAudit: Route<unknown, AuditQuery & { format: 'ndjson' | 'csv' }> = {
  operationId: 'auditExport',
  method: 'GET',
  path: '/v1/audit/export',
  summary: 'Every audit entry of a filter as NDJSON or CSV, streamed',
  tag: 'Monitoring',
  scope: 'monitor',
  query: 'audit-export.query',
  media: ['application/x-ndjson', 'text/csv'],
  check: checkDates,
  async handler(ctx, { query }, services) {
    const stream = services.audit.export(ctx.state.principal!, query, query.format);
    ctx.type = query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
    ctx.attachment(`audit-${ctx.state.requestId}.${query.format === 'csv' ? 'csv' : 'ndjson'}`);
    ctx.body = stream;
  },
};

export const getErrors: Route<unknown, ScopeQuery & { period: ErrorPeriod }> = {
  operationId: 'errors',
  method: 'GET',
  path: '/v1/errors',
  summary: 'Error analytics over a period: counts by code, endpoints, peak hours, patterns, trend and recommendations',
  tag: 'Monitoring',
  scope: 'monitor',
  query: 'errors.query',
  response: 'errors.response',
  async handler(ctx, { query }, services) {
    respond(ctx, await services.errors.analyse(ctx.state.principal!, query));
  },
};
