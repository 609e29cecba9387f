import type { Middleware } from 'koa';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Authenticator } from '../../auth/authenticator.js';
import type { Permission } from '../../auth/principal.js';
import { ApiError } from '../../errors/catalogue.js';
import type { AppState } from '../context.js';
import { windowExceeded, windowHeaders } from './rate-limit.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const FAILURE_WINDOW_SECONDS = 60;

/** The key from Authorization: Bearer (preferred) or X-API-Key; undefined when neither is sent. */
export function presentedKey(authorization: string, apiKeyHeader: string): string | undefined {
  if (authorization) {
    const match = BEARER.exec(authorization);
    if (!match) throw new ApiError('INVALID_API_KEY', { reason: 'invalid_api_key' }, 'The Authorization header must have the form "Bearer <key>".');
    return match[1];
  }
  return apiKeyHeader.trim() || undefined;
}

/** The qualifier in required_permission: what the route does with its scope. */
function requiredPermission(scope: string, method: string, qualifier: string | undefined): string {
  return `${scope}:${qualifier ?? (method === 'GET' ? 'read' : 'write')}`;
}

/**
 * Establishes who calls every route that declares a scope (the permission itself is checked by
 * `authorize`, after the rate limit, so a refused request still counts and shows its headers). Failed
 * attempts are counted per client address: past AUTH_FAILURES_PER_MINUTE an address gets 429
 * instead of 401 until the minute is over, which caps the database lookups a key-guessing
 * client can cause (valid keys from the same address keep working).
 */
export function authenticate(authenticator: Authenticator, redis: Redis, keyPrefix: string, failuresPerMinute: number): Middleware<AppState> {
  const failures = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${keyPrefix}:authfail`, points: failuresPerMinute, duration: FAILURE_WINDOW_SECONDS });

  return async (ctx, next) => {
    const route = ctx.state.route;
    if (!route?.scope) return next();
    let principal;
    try {
      const secret = presentedKey(ctx.get('Authorization'), ctx.get('X-API-Key'));
      if (!secret) throw new ApiError('MISSING_API_KEY');
      principal = await authenticator.authenticate(secret, ctx.state.clientIp);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        const result = await countFailure(failures, ctx.state.clientIp);
        if (result) {
          // A refused key has no window of its own; the headers show the address' failure budget.
          const now = Date.now();
          const count = { used: result.res.consumedPoints, msLeft: result.res.msBeforeNext };
          ctx.set(windowHeaders(failuresPerMinute, count, FAILURE_WINDOW_SECONDS, now));
          if (result.exceeded) {
            throw windowExceeded(failuresPerMinute, count, FAILURE_WINDOW_SECONDS, now, `Too many failed authentications from ${ctx.state.clientIp}; wait before trying again.`);
          }
        }
      }
      throw error;
    }
    // No child logger here: it would cost every request; the access log line names the principal.
    ctx.state.principal = principal;
    await next();
  };
}

/** The scope of routes open to any valid key. */
const AUTHENTICATED = 'authenticated';

/** Refuses a principal that lacks the route's permission. */
export function authorize(): Middleware<AppState> {
  return async (ctx, next) => {
    const { route, principal } = ctx.state;
    if (route?.scope && route.scope !== AUTHENTICATED && principal && !principal.permissions.has(route.scope as Permission)) {
      throw new ApiError('INSUFFICIENT_PERMISSIONS', {
        required_permission: requiredPermission(route.scope, ctx.method, route.permission),
        current_plan: principal.plan,
      }, `This key lacks the ${route.scope} permission.`);
    }
    await next();
  };
}

/** Counts one failure of the address; undefined when Redis cannot say (the 401 then stands on its own). */
async function countFailure(failures: RateLimiterRedis, clientIp: string): Promise<{ res: RateLimiterRes; exceeded: boolean } | undefined> {
  try {
    return { res: await failures.consume(clientIp), exceeded: false };
  } catch (rejection) {
    return rejection instanceof RateLimiterRes ? { res: rejection, exceeded: true } : undefined;
  }
}
