import type { DashboardRequest } from '../../monitor/dashboard-definition.js';
import { respond } from '../context.js';
import type { Route } from './route.js';

/*
 * Dashboards (spec 2.12 and 4.10). The specification gives the creation body only; the record,
 * the other paths and the Grafana export follow the other resources (docs/dashboards.md).
 */

export const createDashboard: Route<DashboardRequest> = {
  operationId: 'createDashboard',
  method: 'POST',
  path: '/v1/dashboards',
  summary: "Create a dashboard of metrics and alerts over the caller's figures (a key's account and mode; the master key's deployment, or an account it names)",
  tag: 'Dashboards',
  scope: 'monitor',
  body: 'dashboard.request',
  response: 'dashboard.response',
  status: 201,
  // An account the master key names must exist.
  notFound: true,
  async handler(ctx, { body }, services) {
    respond(ctx, await services.dashboards.create(ctx.state.principal!, body));
    ctx.status = 201;
  },
};

export const listDashboards: Route<unknown, { limit: number; offset: number }> = {
  operationId: 'listDashboards',
  method: 'GET',
  path: '/v1/dashboards',
  summary: "The caller's dashboards, oldest first, without their values",
  tag: 'Dashboards',
  scope: 'monitor',
  query: 'dashboard-list.query',
  response: 'dashboard-list.response',
  async handler(ctx, { query }, services) {
    respond(ctx, await services.dashboards.list(ctx.state.principal!, query.limit, query.offset));
  },
};

export const getDashboard: Route = {
  operationId: 'getDashboard',
  method: 'GET',
  path: '/v1/dashboards/:id',
  summary: "One of the caller's dashboards, with each metric's current value and series and each alert evaluated, from the hourly rollups",
  tag: 'Dashboards',
  scope: 'monitor',
  response: 'dashboard.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.dashboards.get(ctx.state.principal!, ctx.params.id!));
  },
};

export const replaceDashboard: Route<DashboardRequest> = {
  operationId: 'replaceDashboard',
  method: 'PUT',
  path: '/v1/dashboards/:id',
  summary: "Replace a dashboard's name, scope, metrics and alerts",
  tag: 'Dashboards',
  scope: 'monitor',
  body: 'dashboard.request',
  response: 'dashboard.response',
  async handler(ctx, { body }, services) {
    respond(ctx, await services.dashboards.replace(ctx.state.principal!, ctx.params.id!, body));
  },
};

export const deleteDashboard: Route = {
  operationId: 'deleteDashboard',
  method: 'DELETE',
  path: '/v1/dashboards/:id',
  summary: 'Delete a dashboard',
  tag: 'Dashboards',
  scope: 'monitor',
  response: 'dashboard-delete.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.dashboards.remove(ctx.state.principal!, ctx.params.id!));
  },
};

export const exportDashboardGrafana: Route = {
  operationId: 'exportDashboardGrafana',
  method: 'GET',
  path: '/v1/dashboards/:id/grafana',
  summary: 'The dashboard as an importable Grafana dashboard JSON file (not in the envelope) whose panels query the service\'s Prometheus metrics',
  tag: 'Dashboards',
  scope: 'monitor',
  media: ['application/json'],
  mediaSchema: 'dashboard-grafana.response',
  async handler(ctx, _input, services) {
    const id = ctx.params.id!;
    const dashboard = await services.dashboards.grafana(ctx.state.principal!, id);
    ctx.attachment(`sev-dashboard-${id}.json`);
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = dashboard;
  },
};
