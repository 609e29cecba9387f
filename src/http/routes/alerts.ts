import type { AlertInput } from '../../alerts/alert-definition.js';
import type { Page } from '../../alerts/alert-service.js';
import { respond } from '../context.js';
import type { Route } from './route.js';

/*
 * Alerts (section 6; the paths are this service's, the specification leaves them open):
 * definitions under /v1/alerts, their history and delivery log, and a test notification.
 * Scope monitor: a key manages its own account's alerts in its own mode, the master key all.
 */

type ListQuery = Page & { account_id?: string };

export const createAlert: Route<AlertInput> = {
  operationId: 'createAlert',
  method: 'POST',
  path: '/v1/alerts',
  summary: 'Create an alert: a condition over a metric, how long it must hold, and the channels it notifies',
  tag: 'Alerts',
  scope: 'monitor',
  body: 'alert.request',
  response: 'alert.response',
  async handler(ctx, { body }, services) {
    respond(ctx, await services.alerts.create(ctx.state.principal!, body));
  },
};

export const listAlerts: Route<unknown, ListQuery> = {
  operationId: 'listAlerts',
  method: 'GET',
  path: '/v1/alerts',
  summary: 'List the alerts the caller manages, with where each stands',
  tag: 'Alerts',
  scope: 'monitor',
  query: 'alert-list.query',
  response: 'alert-list.response',
  async handler(ctx, { query }, services) {
    respond(ctx, await services.alerts.list(ctx.state.principal!, query));
  },
};

export const getAlert: Route = {
  operationId: 'getAlert',
  method: 'GET',
  path: '/v1/alerts/:id',
  summary: 'Read one alert and its state',
  tag: 'Alerts',
  scope: 'monitor',
  response: 'alert.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.alerts.get(ctx.state.principal!, ctx.params.id!));
  },
};

export const replaceAlert: Route<AlertInput> = {
  operationId: 'replaceAlert',
  method: 'PUT',
  path: '/v1/alerts/:id',
  summary: 'Replace an alert\'s definition; its state and webhook signing secret are kept',
  tag: 'Alerts',
  scope: 'monitor',
  body: 'alert.request',
  response: 'alert.response',
  async handler(ctx, { body }, services) {
    respond(ctx, await services.alerts.replace(ctx.state.principal!, ctx.params.id!, body));
  },
};

export const rotateAlertSecret: Route = {
  operationId: 'rotateAlertSecret',
  method: 'POST',
  path: '/v1/alerts/:id/rotate-secret',
  summary: 'A new webhook signing secret; the old one keeps signing beside it for 24 hours',
  tag: 'Alerts',
  scope: 'monitor',
  response: 'alert.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.alerts.rotateSecret(ctx.state.principal!, ctx.params.id!));
  },
};

export const deleteAlert: Route = {
  operationId: 'deleteAlert',
  method: 'DELETE',
  path: '/v1/alerts/:id',
  summary: 'Delete an alert with its state and history',
  tag: 'Alerts',
  scope: 'monitor',
  async handler(ctx, _input, services) {
    respond(ctx, await services.alerts.remove(ctx.state.principal!, ctx.params.id!));
  },
};

export const getAlertHistory: Route<unknown, ListQuery> = {
  operationId: 'alertHistory',
  method: 'GET',
  path: '/v1/alerts/:id/history',
  summary: 'The state changes of an alert (pending, firing, resolved, inactive), newest first',
  tag: 'Alerts',
  scope: 'monitor',
  query: 'alert-list.query',
  response: 'alert-history.response',
  async handler(ctx, { query }, services) {
    respond(ctx, await services.alerts.history(ctx.state.principal!, ctx.params.id!, query));
  },
};

export const getAlertDeliveries: Route<unknown, ListQuery> = {
  operationId: 'alertDeliveries',
  method: 'GET',
  path: '/v1/alerts/:id/deliveries',
  summary: 'The delivery log of an alert: each notification per channel with its status, attempts and last error',
  tag: 'Alerts',
  scope: 'monitor',
  query: 'alert-list.query',
  response: 'alert-deliveries.response',
  async handler(ctx, { query }, services) {
    respond(ctx, await services.alerts.deliveries(ctx.state.principal!, ctx.params.id!, query));
  },
};

export const testAlert: Route = {
  operationId: 'testAlert',
  method: 'POST',
  path: '/v1/alerts/:id/test',
  summary: 'Send one test notification of the alert now, on every channel; answers with the deliveries after their first attempts',
  tag: 'Alerts',
  scope: 'monitor',
  response: 'alert-test.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.alerts.test(ctx.state.principal!, ctx.params.id!));
  },
};
