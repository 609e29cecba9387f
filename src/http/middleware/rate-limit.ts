import type { Middleware } from 'koa';
import type { Redis } from 'ioredis';
import { METERED_SCOPES, type Permission, type Principal } from '../../auth/principal.js';
import { countInWindow, WINDOW_SECONDS, windowKey, type WindowCount } from '../../usage/rate-window.js';
import { ApiError } from '../../errors/catalogue.js';
import type { AppContext, AppState } from '../context.js';
import type { RouteDoc } from '../openapi.js';

/**
 * Per-principal limit over a fixed one-minute window, kept in Redis so every API process
 * shares one count; one Lua call increments and reads it atomically, which keeps a burst exact.
 * Every response to a known key carries the X-RateLimit-* headers. With Redis unreachable the
 * request is refused (503): a limit that silently stops counting is no limit.
 *
 * A request that the quotas will count too (see `countedWithQuotas`) passes here uncounted: the
 * usage stage counts its window and its quotas in one script, one Redis round trip instead of
 * two, with the same outcome (the stage between, authorize, lets such a request through).
 */
export function rateLimit(redis: Redis, keyPrefix: string): Middleware<AppState> {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal || countedWithQuotas(ctx.state.route, principal)) return next();
    let count: WindowCount;
    try {
      count = await countInWindow(redis, windowKey(keyPrefix, principal));
    } catch (error) {
      throw new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'when Redis is reachable again', status_page: '/v1/health' }, 'Rate limiting is unavailable.', { cause: error });
    }
    applyWindow(ctx, principal.rateLimitPerMinute, count);
    await next();
  };
}

/**
 * Whether the request reaches the quotas: a key's (or a member's console session's) request to a
 * metered endpoint whose permission it holds. Such a request has its rate-limit window counted by
 * the usage stage, with its quotas.
 */
export function countedWithQuotas(route: RouteDoc | undefined, principal: Principal): boolean {
  return principal.kind !== 'master' && route?.scope !== undefined && METERED_SCOPES.has(route.scope) && route.unmetered !== true
    && principal.permissions.has(route.scope as Permission);
}

/** Sends the window's headers and refuses a request past the limit. */
export function applyWindow(ctx: AppContext, limit: number, count: WindowCount): void {
  const now = Date.now();
  ctx.set(windowHeaders(limit, count, WINDOW_SECONDS, now));
  if (count.used > limit) throw windowExceeded(limit, count, WINDOW_SECONDS, now, `Rate limit of ${limit} requests per minute exceeded.`);
}

/** The X-RateLimit-* headers of a fixed window, from its count. */
export function windowHeaders(limit: number, count: WindowCount, windowSeconds: number, now: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, limit - count.used)),
    'X-RateLimit-Reset': String(Math.ceil((now + count.msLeft) / 1000)),
    'X-RateLimit-Window': String(windowSeconds),
  };
}

/** RATE_LIMITED for a used-up window, with Retry-After; `now` as given to windowHeaders, so both say the same reset. */
export function windowExceeded(limit: number, count: WindowCount, windowSeconds: number, now: number, message: string): ApiError {
  const resetSeconds = Math.ceil((now + count.msLeft) / 1000);
  const retryAfter = Math.max(1, Math.ceil(count.msLeft / 1000));
  return new ApiError(
    'RATE_LIMITED',
    { limit, period: `${windowSeconds}s`, reset_time: new Date(resetSeconds * 1000).toISOString(), retry_after: retryAfter },
    message,
    { headers: { 'Retry-After': String(retryAfter) } },
  );
}
