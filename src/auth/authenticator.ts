import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../storage/schema.js';
import { ApiError } from '../errors/catalogue.js';
import { inRanges, parseRanges } from '../net/ip-ranges.js';
import { hashKey, hashesEqual } from './key-hash.js';
import { parseKey } from './key-format.js';
import { findKeyBySecretHash, type KeyRecord, type SecretMatch } from './keys.repository.js';
import type { KeyLookupCache } from './key-cache.js';
import { monthlyLimit, type Plan, type Plans } from './plans.js';
import { operatorPrincipal, SCOPES, type Permission, type Principal } from './principal.js';
import type { Mode } from '../mode.js';
import type { MemberGrant } from './member.js';
import { memberKeyPermissions, memberPermissions, readOnlyScopes } from './roles.js';

export interface Authenticator {
  /** The principal behind a presented secret, or the 401/403 error that refuses it. */
  authenticate(secret: string, clientIp: string): Promise<Principal>;
  /**
   * The same, from the SHA-256 of a secret that was checked once already: a console session
   * signed in with a key keeps only the hash, and every request judges the key again.
   */
  authenticateHash(hash: string, clientIp: string): Promise<Principal>;
}

export interface AuthenticatorDeps {
  db: Kysely<Database>;
  cache: KeyLookupCache;
  clock: Clock;
  plans: Plans;
  masterKeyHash: string;
  masterRateLimitPerMinute: number;
}

/**
 * Checks a secret in the order that costs least: the master key (one hash compare), the
 * format and checksum (no I/O: a typo never reaches the database), then the key record
 * (cached, see KeyLookupCache). Time-dependent states (expiry, scheduled revocation, the end
 * of a rotated secret's grace) are judged against the clock on every request, so they need
 * no invalidation at all. The `reason` in details uses the identifiers of section 7.4.
 */
export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const master = operatorPrincipal(deps.masterRateLimitPerMinute);
  // The principal of a cached key record, built once: KeyLookupCache hands out the same record
  // until the key or its account changes, and plans are fixed for the process' life.
  const principals = new WeakMap<SecretMatch, Principal>();

  const byHash = async (hash: string, clientIp: string): Promise<Principal> => {
    const match = await deps.cache.lookup(hash, () => findKeyBySecretHash(deps.db, hash));
    if (!match) throw new ApiError('INVALID_API_KEY', { reason: 'api_key_not_found' }, 'No such API key.');
    const { key, account, secretExpiresAt } = match;
    const now = deps.clock.now();
    // A key that exists but is refused is filed under its account in the audit log.
    const owner = { id: key.id, accountId: key.accountId, mode: key.mode };
    if (key.revokedAt && key.revokedAt <= now) {
      throw new KeyRefusal(owner, 'INVALID_API_KEY', { reason: 'api_key_revoked', revoked_at: key.revokedAt.toISOString() }, 'The API key has been revoked.');
    }
    if (key.expiresAt && key.expiresAt <= now) {
      throw new KeyRefusal(owner, 'EXPIRED_API_KEY', { reason: 'api_key_expired', expired_at: key.expiresAt.toISOString() });
    }
    if (secretExpiresAt && secretExpiresAt <= now) {
      throw new KeyRefusal(owner, 'EXPIRED_API_KEY', { reason: 'api_key_expired', expired_at: secretExpiresAt.toISOString() }, 'This key was rotated and its 24-hour grace period is over; use the new key.');
    }
    if (key.ipAllowlist && !inRanges(clientIp, parseRanges(key.ipAllowlist))) {
      throw new KeyRefusal(owner, 'IP_NOT_ALLOWED', { client_ip: clientIp });
    }
    // Removing a member revokes its keys; a key whose member is gone all the same is refused alike.
    if (key.memberId !== null && match.member === null) {
      throw new KeyRefusal(owner, 'INVALID_API_KEY', { reason: 'api_key_revoked' }, 'The team member this key belonged to was removed.');
    }
    let principal = principals.get(match);
    if (!principal) {
      principal = principalOf(key, deps.plans.get(account.plan), match.member);
      principals.set(match, principal);
    }
    return principal;
  };

  return {
    async authenticate(secret, clientIp) {
      const hash = hashKey(secret);
      if (hashesEqual(hash, deps.masterKeyHash)) return master;
      const kind = parseKey(secret);
      if (kind === undefined || kind === 'master') {
        throw new ApiError('INVALID_API_KEY', { reason: 'invalid_api_key' }, 'The API key is malformed: it is not a sev_live_ or sev_test_ key with a valid checksum.');
      }
      return byHash(hash, clientIp);
    },
    async authenticateHash(hash, clientIp) {
      if (hashesEqual(hash, deps.masterKeyHash)) return master;
      return byHash(hash, clientIp);
    },
  };
}

/** The key a refusal concerns: known, but not accepted (revoked, expired, outside its allowlist). */
export interface RefusedKey {
  id: string;
  accountId: string;
  mode: Mode;
}

export class KeyRefusal extends ApiError {
  constructor(readonly key: RefusedKey, ...error: ConstructorParameters<typeof ApiError>) {
    super(...error);
  }
}

/** Permissions a key holds: a standard key has every scope; others hold exactly what was granted. */
export function effectivePermissions(key: Pick<KeyRecord, 'type' | 'permissions'>): Permission[] {
  const granted = key.permissions as Permission[];
  return key.type === 'standard' ? [...new Set<Permission>([...SCOPES, ...granted])] : granted;
}

/** A key's own limit applies when lower than its plan's: a key can narrow its plan, never widen it. */
function effectiveLimit(own: number | null, planLimit: number | null): number | null {
  if (own === null) return planLimit;
  return planLimit === null ? own : Math.min(own, planLimit);
}

/** The limits a key works under: its own where lower than its plan's; the sandbox quota for test keys. */
export function keyLimits(key: Pick<KeyRecord, 'rateLimit' | 'dailyLimit' | 'mode'>, plan: Plan): Pick<Principal, 'rateLimitPerMinute' | 'dailyLimit' | 'monthlyLimit'> {
  return {
    rateLimitPerMinute: effectiveLimit(key.rateLimit, plan.rate_limit_per_minute)!,
    dailyLimit: effectiveLimit(key.dailyLimit, plan.daily_limit_per_key),
    monthlyLimit: monthlyLimit(plan, key.mode),
  };
}

function principalOf(key: KeyRecord, plan: Plan, member: MemberGrant | null): Principal {
  const permissions = effectivePermissions(key);
  return {
    id: key.id,
    kind: 'key',
    keyType: key.type,
    accountId: key.accountId,
    mode: key.mode,
    permissions: new Set(member ? memberKeyPermissions(permissions, member) : permissions),
    plan: plan.name,
    ...keyLimits(key, plan),
    ...(member ? memberFields(member) : {}),
  };
}

function memberFields(member: MemberGrant): Pick<Principal, 'member' | 'readOnly'> {
  const readOnly = readOnlyScopes(member.role);
  return { member: { id: member.id, teamId: member.teamId, email: member.email, role: member.role }, ...(readOnly ? { readOnly } : {}) };
}

/**
 * A member acting without a key (a console session after SSO or an invitation): its role's
 * permissions within its team's scopes, the plan's limits, live mode. Its requests are counted
 * under the member's id as a key's are under the key's.
 */
export function memberPrincipal(member: MemberGrant, plan: Plan): Principal {
  return {
    id: member.id,
    kind: 'member',
    keyType: 'member',
    accountId: member.accountId,
    mode: 'live',
    permissions: memberPermissions(member),
    plan: plan.name,
    rateLimitPerMinute: plan.rate_limit_per_minute,
    dailyLimit: plan.daily_limit_per_key,
    monthlyLimit: monthlyLimit(plan, 'live'),
    ...memberFields(member),
  };
}
