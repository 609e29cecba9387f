import { accountView } from '../../auth/key-view.js';
import { respond } from '../context.js';
import type { Route } from './route.js';

/*
 * Accounts are the tenants of a deployment: each has a plan, and its keys share the plan's
 * monthly quota. Only the operator (master key) manages them. The specification names plans
 * but no account paths; these are the smallest set that lets an operator run several tenants.
 */

export const createAccount: Route<{ name: string; plan: string }> = {
  operationId: 'createAccount',
  method: 'POST',
  path: '/v1/accounts',
  summary: 'Create an account (tenant) on a plan',
  tag: 'Accounts',
  scope: 'operator',
  permission: 'accounts',
  body: 'account.request',
  response: 'account.response',
  async handler(ctx, { body }, services) {
    respond(ctx, accountView(await services.keys.createAccount(body)));
  },
};

export const listAccounts: Route<unknown, { limit: number; offset: number }> = {
  operationId: 'listAccounts',
  method: 'GET',
  path: '/v1/accounts',
  summary: 'List accounts, oldest first',
  tag: 'Accounts',
  scope: 'operator',
  permission: 'accounts',
  query: 'account-list.query',
  response: 'account-list.response',
  async handler(ctx, { query }, services) {
    const accounts = await services.keys.listAccounts(query.limit, query.offset);
    respond(ctx, { items: accounts.map(accountView), limit: query.limit, offset: query.offset });
  },
};

export const getAccount: Route = {
  operationId: 'getAccount',
  method: 'GET',
  path: '/v1/accounts/:id',
  summary: 'Read one account',
  tag: 'Accounts',
  scope: 'operator',
  permission: 'accounts',
  response: 'account.response',
  async handler(ctx, _input, services) {
    respond(ctx, accountView(await services.keys.getAccount(ctx.params.id!)));
  },
};

export const updateAccount: Route<{ name?: string; plan?: string }> = {
  operationId: 'updateAccount',
  method: 'PATCH',
  path: '/v1/accounts/:id',
  summary: "Rename an account or change its plan (effective on its keys' next request)",
  tag: 'Accounts',
  scope: 'operator',
  permission: 'accounts',
  body: 'account-update.request',
  response: 'account.response',
  async handler(ctx, { body }, services) {
    respond(ctx, accountView(await services.keys.updateAccount(ctx.params.id!, body)));
  },
};

export const getPlans: Route = {
  operationId: 'plans',
  method: 'GET',
  path: '/v1/plans',
  summary: 'The plans of this deployment with their limits and features (no authentication)',
  tag: 'Accounts',
  response: 'plans.response',
  async handler(ctx, _input, services) {
    respond(ctx, { plans: services.keys.plans.list });
  },
};
