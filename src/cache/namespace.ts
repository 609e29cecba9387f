import type { Principal } from '../auth/principal.js';

/**
 * The cache namespace of a caller: its account and mode, so that a sandbox key never sees live
 * entries and no account reads, poisons or clears another's. The master key, which stands above
 * accounts, has a namespace of its own.
 */
export function cacheNamespace(principal: Pick<Principal, 'accountId' | 'mode'>): string {
  return principal.accountId === null ? `operator:${principal.mode}` : `account:${principal.accountId}:${principal.mode}`;
}
