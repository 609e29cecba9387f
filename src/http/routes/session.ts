import { ApiError } from '../../errors/catalogue.js';
import { hashKey } from '../../auth/key-hash.js';
import { respond } from '../context.js';
import { presentedKey } from '../middleware/authenticate.js';
import { clearSessionCookie, setSessionCookie } from '../session-cookie.js';
import type { Route } from './route.js';

/*
 * Console sessions (docs/teams-and-sso.md): the console signs in with an API key here, or through
 * SSO (/v1/sso/{account_id}/acs) or an invitation (/v1/invitations/accept), and from then on
 * calls the API with the session cookie, sending the session's CSRF token with every change.
 */

function noSession(): ApiError {
  return new ApiError('NOT_FOUND', { resource: 'session', id: null }, 'This request was made with a key, not in a console session.');
}

export const createSession: Route = {
  operationId: 'createSession',
  method: 'POST',
  path: '/v1/session',
  summary: 'Sign in to the console with the API key this request carries: a session cookie, and the CSRF token for changes',
  tag: 'Session',
  scope: 'authenticated',
  response: 'session.response',
  async handler(ctx, _input, services) {
    const secret = presentedKey(ctx.get('Authorization'), ctx.get('X-API-Key'));
    if (secret === undefined) {
      throw new ApiError('INVALID_PARAMETER', { parameter: 'Authorization', reason: 'must carry the API key to sign in with; a session does not start another', provided: null });
    }
    const principal = ctx.state.principal!;
    const { token, session } = await services.sessions.start({ kind: 'key', keyHash: hashKey(secret), accountId: principal.accountId, via: 'api_key' });
    setSessionCookie(ctx, token, session);
    respond(ctx, services.sessions.view(session, principal));
  },
};

export const getSession: Route = {
  operationId: 'getSession',
  method: 'GET',
  path: '/v1/session',
  summary: 'The console session of the cookie: who it is, its permissions, its expiry and CSRF token',
  tag: 'Session',
  scope: 'authenticated',
  response: 'session.response',
  notFound: true,
  async handler(ctx, _input, services) {
    const current = ctx.state.session;
    if (!current) throw noSession();
    respond(ctx, services.sessions.view(current.session, ctx.state.principal!));
  },
};

export const deleteSession: Route = {
  operationId: 'deleteSession',
  method: 'DELETE',
  path: '/v1/session',
  summary: 'Sign out: the session ends and its cookie is cleared',
  tag: 'Session',
  scope: 'authenticated',
  response: 'session-delete.response',
  notFound: true,
  async handler(ctx, _input, services) {
    const current = ctx.state.session;
    if (!current) throw noSession();
    await services.sessions.end(current.token);
    clearSessionCookie(ctx);
    respond(ctx, { signed_out: true });
  },
};
