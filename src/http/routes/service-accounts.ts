import type { ServiceAccountInput } from '../../auth/key-service.js';
import type { Mode } from '../../mode.js';
import { respond } from '../context.js';
import type { Route } from './route.js';

/*
 * Service accounts (sections 2.6, 4.12): keys for server-to-server use with an environment and
 * an allowlist of client address ranges. They are key records of type service_account, so the
 * key paths (read, rotate, revoke, usage) work on them too.
 */

export const createServiceAccount: Route<ServiceAccountInput> = {
  operationId: 'createServiceAccount',
  method: 'POST',
  path: '/v1/auth/service-accounts',
  summary: 'Create a service account (highest plan): a key usable only from its ip_allowlist',
  tag: 'Keys',
  scope: 'admin',
  permission: 'service_accounts',
  body: 'service-account.request',
  response: 'auth-key.response',
  async handler(ctx, { body }, services) {
    const { record, secret } = await services.keys.createServiceAccount(ctx.state.principal!, body);
    ctx.state.audit = { key_id: record.id };
    const [described] = await services.keys.describe([record]);
    respond(ctx, { ...described, key: secret });
  },
};

export const listServiceAccounts: Route<unknown, { account_id?: string; mode?: Mode; limit: number; offset: number }> = {
  operationId: 'listServiceAccounts',
  method: 'GET',
  path: '/v1/auth/service-accounts',
  summary: 'List the service accounts the caller manages',
  tag: 'Keys',
  scope: 'admin',
  permission: 'service_accounts',
  query: 'service-account-list.query',
  response: 'auth-key-list.response',
  async handler(ctx, { query }, services) {
    const keys = await services.keys.listKeys(ctx.state.principal!, {
      ...(query.account_id !== undefined ? { accountId: query.account_id } : {}),
      ...(query.mode !== undefined ? { mode: query.mode } : {}),
      type: 'service_account',
      limit: query.limit,
      offset: query.offset,
    });
    respond(ctx, { items: await services.keys.describe(keys), limit: query.limit, offset: query.offset });
  },
};
