/**
 * What SAML sign-ins remember between requests, in Redis so that every API process agrees:
 * the ids of the AuthnRequests this service sent (an identity provider's answer naming one is
 * accepted once, within REQUEST_TTL_MS), and the ids of the assertions consumed (each is
 * refused a second time until it expires: a captured response cannot be replayed).
 */
import type { Redis } from 'ioredis';
import type { CacheItem, CacheProvider } from '@node-saml/node-saml';

/** How long an identity provider may take to answer an AuthnRequest (the person signs in meanwhile). */
export const REQUEST_TTL_MS = 15 * 60_000;

/** node-saml's store of sent request ids, kept in Redis per account. */
export class RedisRequestCache implements CacheProvider {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  async saveAsync(key: string, value: string): Promise<CacheItem | null> {
    const stored = await this.redis.set(this.key(key), value, 'PX', REQUEST_TTL_MS, 'NX');
    return stored === 'OK' ? { value, createdAt: Date.now() } : null;
  }

  async getAsync(key: string): Promise<string | null> {
    return this.redis.get(this.key(key));
  }

  async removeAsync(key: string | null): Promise<string | null> {
    if (key === null) return null;
    return (await this.redis.del(this.key(key))) > 0 ? key : null;
  }

  private key(id: string): string {
    return `${this.prefix}:request:${id}`;
  }
}

/**
 * Remembers a consumed assertion id until `expiresAtMs` (its NotOnOrAfter, plus the clock skew
 * allowed); false when it was consumed already. SET NX makes the first of two concurrent uses win.
 */
export async function firstUse(redis: Redis, prefix: string, assertionId: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
  const ttl = Math.max(1000, Math.ceil(expiresAtMs - nowMs));
  return (await redis.set(`${prefix}:assertion:${assertionId}`, '1', 'PX', ttl, 'NX')) === 'OK';
}
