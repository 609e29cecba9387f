import type { Middleware } from 'koa';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../errors.js';
import type { AppState } from '../context.js';

const WINDOW_SECONDS = 60;

/**
 * Per-principal limit over a fixed one-minute window, kept in Redis so every API process
 * shares one count; rate-limiter-flexible increments and reads in one atomic Lua call, which
 * keeps a burst exact. Every response to a known key carries the X-RateLimit-* headers. With
 * Redis unreachable the request is refused (503): a limit that silently stops counting is no limit.
 */
export function rateLimit(redis: Redis, keyPrefix: string): Middleware<AppState> {
  const limiters = new Map<number, RateLimiterRedis>();
  const limiterFor = (points: number): RateLimiterRedis => {
    let limiter = limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${keyPrefix}:rl:${points}`, points, duration: WINDOW_SECONDS });
      limiters.set(points, limiter);
    }
    return limiter;
  };

  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) return next();
    const limit = principal.rateLimitPerMinute;
    let result: RateLimiterRes;
    let limited = false;
    try {
      result = await limiterFor(limit).consume(principal.id);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        throw new ApiError('SERVICE_UNAVAILABLE', { estimated_recovery: 'when Redis is reachable again', status_page: '/v1/health' }, 'Rate limiting is unavailable.', { cause: rejection });
      }
      result = rejection;
      limited = true;
    }
    const now = Date.now();
    ctx.set(windowHeaders(limit, result, WINDOW_SECONDS, now));
    if (limited) throw windowExceeded(limit, result, WINDOW_SECONDS, now, `Rate limit of ${limit} requests per minute exceeded.`);
    await next();
  };
}

/** The X-RateLimit-* headers of a fixed window, from the limiter's answer. */
export function windowHeaders(limit: number, result: RateLimiterRes, windowSeconds: number, now: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(Math.max(0, result.remainingPoints)),
    'X-RateLimit-Reset': String(Math.ceil((now + result.msBeforeNext) / 1000)),
    'X-RateLimit-Window': String(windowSeconds),
  };
}

/** RATE_LIMITED for a used-up window, with Retry-After; `now` as given to windowHeaders, so both say the same reset. */
export function windowExceeded(limit: number, result: RateLimiterRes, windowSeconds: number, now: number, message: string): ApiError {
  const resetSeconds = Math.ceil((now + result.msBeforeNext) / 1000);
  const retryAfter = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
  return new ApiError(
    'RATE_LIMITED',
    { limit, period: `${windowSeconds}s`, reset_time: new Date(resetSeconds * 1000).toISOString(), retry_after: retryAfter },
    message,
    { headers: { 'Retry-After': String(retryAfter) } },
  );
}
