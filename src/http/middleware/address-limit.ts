import type { Middleware } from 'koa';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { WindowCount } from '../../usage/rate-window.js';
import type { AppState } from '../context.js';
import type { ApiError } from '../../errors/catalogue.js';
import { windowExceeded, windowHeaders } from './rate-limit.js';

const WINDOW_SECONDS = 60;

/**
 * The limit a client address works under while no key speaks for it: failed authentications per
 * minute (AUTH_FAILURES_PER_MINUTE), shared by every API process through Redis. Authentication
 * counts its failures here; past the budget the address gets 429 instead of 401.
 */
export class AddressLimit {
  private readonly failures: RateLimiterRedis;

  constructor(private readonly redis: Redis, keyPrefix: string, readonly perMinute: number) {
    this.failures = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${keyPrefix}:authfail`, points: perMinute, duration: WINDOW_SECONDS });
  }

  /** Counts one failed authentication of the address; undefined when Redis cannot say. */
  async countFailure(ip: string): Promise<{ count: WindowCount; exceeded: boolean } | undefined> {
    try {
      return { count: asCount(await this.failures.consume(ip)), exceeded: false };
    } catch (rejection) {
      return rejection instanceof RateLimiterRes ? { count: asCount(rejection), exceeded: true } : undefined;
    }
  }

  /**
   * The address' budget as it stands, without counting. Undefined while Redis is not connected:
   * a response is never held up for its headers, and a probe must answer during an outage.
   */
  async peek(ip: string): Promise<WindowCount | undefined> {
    if (this.redis.status !== 'ready') return undefined;
    try {
      // Two plain reads of the limiter's key, which leave in one write (coalesced-writes.ts):
      // rate-limiter-flexible's own get() wraps them in MULTI/EXEC, twice the commands on every
      // public response.
      const key = this.failures.getKey(ip);
      const [used, msLeft] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
      return used === null || msLeft < 0 ? { used: 0, msLeft: WINDOW_SECONDS * 1000 } : { used: Number(used), msLeft };
    } catch {
      return undefined;
    }
  }

  headers(count: WindowCount, now: number): Record<string, string> {
    return windowHeaders(this.perMinute, count, WINDOW_SECONDS, now);
  }

  /** RATE_LIMITED for an address past its budget; `now` as given to headers(), so both say the same reset. */
  exceeded(count: WindowCount, now: number, ip: string): ApiError {
    return windowExceeded(this.perMinute, count, WINDOW_SECONDS, now, `Too many failed authentications from ${ip}; wait before trying again.`);
  }
}

function asCount(res: RateLimiterRes): WindowCount {
  return { used: res.consumedPoints, msLeft: res.msBeforeNext };
}

/**
 * Section 8 puts the X-RateLimit-* headers on every response. A key's window provides them once
 * the key is known (rate-limit and usage stages); every other response (refused before
 * authentication: HTTPS required, 404, 405, 415, a body too large or not JSON; a public route; a
 * key refused at this address) carries the budget of the caller's address instead.
 */
export function addressLimitHeaders(limit: AddressLimit): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (ctx.state.clientIp !== undefined && !ctx.response.get('X-RateLimit-Limit')) {
        const count = await limit.peek(ctx.state.clientIp);
        if (count) ctx.set(limit.headers(count, Date.now()));
      }
    }
  };
}
