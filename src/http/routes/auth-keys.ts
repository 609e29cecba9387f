import type { KeyInput, KeyService } from '../../auth/key-service.js';
import type { KeyFilter, KeyRecord } from '../../auth/keys.repository.js';
import { respond } from '../context.js';
import type { Route } from './route.js';

/*
 * Key management (sections 2.5, 3.1, 4.11, 4.13). The master key manages every account's keys;
 * a key with the admin permission (or a member in the admin role) those of its own account; a
 * developer its own keys (ownKeys), which it creates for itself. Paths the specification
 * leaves open follow the usual REST shape: /v1/auth/keys/{id} with rotate, revoke and usage.
 */

/** The query of GET /v1/auth/keys (schemas/auth-key-list.query.json). */
interface KeyListQuery {
  account_id?: string;
  member_id?: string;
  type?: KeyFilter['type'];
  mode?: KeyFilter['mode'];
  limit: number;
  offset: number;
}

async function view(keys: KeyService, key: KeyRecord): Promise<Record<string, unknown>> {
  const [described] = await keys.describe([key]);
  return described!;
}

export const createKey: Route<KeyInput> = {
  operationId: 'createKey',
  ownKeys: true,
  method: 'POST',
  path: '/v1/auth/keys',
  summary: 'Create an API key; the secret is in the response once, never again',
  tag: 'Keys',
  scope: 'admin',
  permission: 'keys',
  body: 'auth-key.request',
  response: 'auth-key.response',
  async handler(ctx, { body }, services) {
    const { record, secret } = await services.keys.createKey(ctx.state.principal!, body);
    ctx.state.audit = { target_key_id: record.id };
    respond(ctx, { ...(await view(services.keys, record)), key: secret });
  },
};

export const listKeys: Route<unknown, KeyListQuery> = {
  operationId: 'listKeys',
  ownKeys: true,
  method: 'GET',
  path: '/v1/auth/keys',
  summary: 'List the API keys the caller manages, with their status',
  tag: 'Keys',
  scope: 'admin',
  permission: 'keys',
  query: 'auth-key-list.query',
  response: 'auth-key-list.response',
  async handler(ctx, { query }, services) {
    const keys = await services.keys.listKeys(ctx.state.principal!, {
      ...(query.account_id !== undefined ? { accountId: query.account_id } : {}),
      ...(query.member_id !== undefined ? { memberId: query.member_id } : {}),
      ...(query.type !== undefined ? { type: query.type } : {}),
      ...(query.mode !== undefined ? { mode: query.mode } : {}),
      limit: query.limit,
      offset: query.offset,
    });
    respond(ctx, { items: await services.keys.describe(keys), limit: query.limit, offset: query.offset });
  },
};

export const getKey: Route = {
  operationId: 'getKey',
  ownKeys: true,
  method: 'GET',
  path: '/v1/auth/keys/:id',
  summary: 'Read one API key record (never its secret)',
  tag: 'Keys',
  scope: 'admin',
  permission: 'keys',
  response: 'auth-key.response',
  async handler(ctx, _input, services) {
    respond(ctx, await view(services.keys, await services.keys.getKey(ctx.state.principal!, ctx.params.id!)));
  },
};

export const rotateKey: Route = {
  operationId: 'rotateKey',
  ownKeys: true,
  method: 'POST',
  path: '/v1/auth/keys/:id/rotate',
  summary: 'Issue a new secret for the key; the old one keeps working for 24 hours',
  tag: 'Keys',
  scope: 'admin',
  permission: 'keys',
  response: 'auth-key.response',
  async handler(ctx, _input, services) {
    const { record, secret, oldKeyExpiresAt } = await services.keys.rotate(ctx.state.principal!, ctx.params.id!);
    ctx.state.audit = { target_key_id: record.id, action: 'rotate' };
    respond(ctx, { ...(await view(services.keys, record)), key: secret, new_key: secret, old_key_expires_at: oldKeyExpiresAt.toISOString() });
  },
};

export const revokeKey: Route<{ revoke_at?: string }> = {
  operationId: 'revokeKey',
  ownKeys: true,
  method: 'POST',
  path: '/v1/auth/keys/:id/revoke',
  summary: 'Revoke the key now, or at revoke_at; every API process refuses it from then on',
  tag: 'Keys',
  scope: 'admin',
  permission: 'keys',
  body: 'auth-key-revoke.request',
  response: 'auth-key.response',
  async handler(ctx, { body }, services) {
    const at = body.revoke_at === undefined ? undefined : new Date(body.revoke_at);
    const record = await services.keys.revoke(ctx.state.principal!, ctx.params.id!, at);
    ctx.state.audit = { target_key_id: record.id, action: 'revoke', revoke_at: record.revokedAt?.toISOString() ?? null };
    respond(ctx, await view(services.keys, record));
  },
};

export const getKeyUsage: Route = {
  operationId: 'getKeyUsage',
  ownKeys: true,
  method: 'GET',
  path: '/v1/auth/keys/:id/usage',
  summary: "A key's requests today and its account's this month, against their limits",
  tag: 'Keys',
  scope: 'admin',
  permission: 'keys',
  response: 'auth-key-usage.response',
  async handler(ctx, _input, services) {
    respond(ctx, await services.keyUsage.report(ctx.state.principal!, ctx.params.id!));
  },
};

export const whoami: Route = {
  operationId: 'whoami',
  method: 'GET',
  path: '/v1/auth/whoami',
  summary: 'The calling key: its id, account, mode, plan, permissions and limits (any valid key)',
  tag: 'Keys',
  scope: 'authenticated',
  response: 'whoami.response',
  async handler(ctx) {
    const principal = ctx.state.principal!;
    respond(ctx, {
      key_id: principal.id,
      type: principal.keyType,
      mode: principal.mode,
      account_id: principal.accountId,
      plan: principal.plan,
      permissions: [...principal.permissions],
      rate_limit: principal.rateLimitPerMinute,
      daily_limit: principal.dailyLimit,
      monthly_limit: principal.monthlyLimit,
      member: principal.member ? { id: principal.member.id, team_id: principal.member.teamId, email: principal.member.email, role: principal.member.role } : null,
    });
  },
};
