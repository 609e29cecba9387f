import { ApiError } from '../http/errors.js';
import { hashKey, hashesEqual } from './key-hash.js';
import { SCOPES, type Principal } from './principal.js';

export interface Authenticator {
  /** The principal behind a presented secret; throws INVALID_API_KEY (or EXPIRED_API_KEY). */
  authenticate(secret: string): Promise<Principal>;
}

export function masterKeyAuthenticator(masterKeyHash: string, rateLimitPerMinute: number): Authenticator {
  const master: Principal = {
    id: 'master',
    kind: 'master',
    scopes: new Set(SCOPES),
    plan: 'enterprise',
    rateLimitPerMinute,
  };
  return {
    async authenticate(secret) {
      if (hashesEqual(hashKey(secret), masterKeyHash)) return master;
      throw new ApiError('INVALID_API_KEY');
    },
  };
}
