import type { Middleware } from 'koa';
import type { Authenticator } from '../../auth/authenticator.js';
import type { Scope } from '../../auth/principal.js';
import { ApiError } from '../errors.js';
import type { AppState } from '../context.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The key from Authorization: Bearer (preferred) or X-API-Key; undefined when neither is sent. */
export function presentedKey(authorization: string, apiKeyHeader: string): string | undefined {
  if (authorization) {
    const match = BEARER.exec(authorization);
    if (!match) throw new ApiError('INVALID_API_KEY', undefined, 'The Authorization header must have the form "Bearer <key>".');
    return match[1];
  }
  return apiKeyHeader.trim() || undefined;
}

/** Authenticates every route that declares a scope, then checks the key holds that scope. */
export function authenticate(authenticator: Authenticator): Middleware<AppState> {
  return async (ctx, next) => {
    const scope = ctx.state.route?.scope as Scope | undefined;
    if (!scope) return next();
    const secret = presentedKey(ctx.get('Authorization'), ctx.get('X-API-Key'));
    if (!secret) throw new ApiError('MISSING_API_KEY');
    const principal = await authenticator.authenticate(secret);
    if (!principal.scopes.has(scope)) {
      throw new ApiError('INSUFFICIENT_PERMISSIONS', {
        required_permission: `${scope}:${ctx.method === 'GET' ? 'read' : 'write'}`,
        current_plan: principal.plan,
        upgrade_url: `${ctx.state.origin}/docs/errors#INSUFFICIENT_PERMISSIONS`,
      });
    }
    ctx.state.principal = principal;
    ctx.state.log = ctx.state.log.child({ principal_id: principal.id });
    await next();
  };
}
