import type { Account, KeyRecord } from './keys.repository.js';
import { effectivePermissions, keyLimits } from './authenticator.js';
import type { Plan } from './plans.js';

export type KeyStatus = 'active' | 'expired' | 'revoked';

/** active, expired or revoked, judged now: expiry and scheduled revocation need no job to happen. */
export function keyStatus(key: Pick<KeyRecord, 'revokedAt' | 'expiresAt'>, now: Date): KeyStatus {
  if (key.revokedAt && key.revokedAt <= now) return 'revoked';
  if (key.expiresAt && key.expiresAt <= now) return 'expired';
  return 'active';
}

/** The key record of section 2.5 as clients see it; never any part of a secret beyond its hint. */
export function keyView(key: KeyRecord, plan: Plan, now: Date, previousKeyExpiresAt: Date | null = null): Record<string, unknown> {
  const status = keyStatus(key, now);
  const limits = keyLimits(key, plan);
  return {
    id: key.id,
    name: key.name,
    type: key.type,
    mode: key.mode,
    account_id: key.accountId,
    permissions: effectivePermissions(key),
    rate_limit: limits.rateLimitPerMinute,
    daily_limit: limits.dailyLimit,
    expires_at: key.expiresAt?.toISOString() ?? null,
    description: key.description,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    status,
    key_hint: key.keyHint,
    revoke_at: status === 'active' && key.revokedAt ? key.revokedAt.toISOString() : null,
    revoked_at: status === 'revoked' ? key.revokedAt!.toISOString() : null,
    old_key_expires_at: previousKeyExpiresAt?.toISOString() ?? null,
    member_id: key.memberId,
    ...(key.type === 'service_account' ? { environment: key.environment, ip_allowlist: key.ipAllowlist ?? [] } : {}),
  };
}

export function accountView(account: Account): Record<string, unknown> {
  return { id: account.id, name: account.name, plan: account.plan, created_at: account.createdAt.toISOString() };
}
