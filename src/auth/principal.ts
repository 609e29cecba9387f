import type { KeyType } from './keys.repository.js';
import type { Mode } from '../mode.js';
import type { MemberIdentity } from './member.js';
import { ApiError } from '../errors/catalogue.js';

/** The scopes of section 5: each guards its endpoints. */
export const SCOPES = ['search', 'extract', 'summarize', 'validate', 'cache', 'monitor', 'index'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * Permissions a key can hold: the scopes, plus `admin` (manage the keys of its own account).
 * `operator` (accounts, plans, any account's keys) belongs to the master key alone.
 */
export const GRANTABLE_PERMISSIONS = [...SCOPES, 'admin'] as const;
/**
 * `own_keys` is a developer's reach in key management: its own keys only (roles.ts). It is never
 * granted to a key directly; a member's role gives it.
 */
export type Permission = (typeof GRANTABLE_PERMISSIONS)[number] | 'operator' | 'own_keys';

/** Who is calling, as established by authentication. */
export interface Principal {
  /** Stable identifier used for rate limits, usage and audit: the key id (never the secret). */
  id: string;
  /** member: a team member signed in to the console (SSO or an invitation), without a key. */
  kind: 'master' | 'key' | 'member';
  keyType: KeyType | 'master' | 'member';
  /** The tenant; null for the master key, which stands above accounts. */
  accountId: string | null;
  /** live or test (sandbox): usage, limits, cache and audit are kept apart per mode. */
  mode: Mode;
  permissions: ReadonlySet<Permission>;
  plan: string;
  rateLimitPerMinute: number;
  /** Requests per day for this key; null = no daily limit. */
  dailyLimit: number | null;
  /** Requests per month for the account in this mode; null = no monthly limit. */
  monthlyLimit: number | null;
  /** The team member acting, when it is one (its key or its console session). */
  member?: MemberIdentity;
  /** Scopes held for reading only: their routes answer GET and refuse changes (a researcher's monitor). */
  readOnly?: ReadonlySet<Scope>;
}

/** A principal acting within one request: services record both as the origin of the work they start. */
export interface Caller {
  principal: Principal;
  requestId: string;
}

/** The master key's principal: every permission, above every account and plan. */
export function operatorPrincipal(rateLimitPerMinute: number): Principal {
  return {
    id: 'master',
    kind: 'master',
    keyType: 'master',
    accountId: null,
    mode: 'live',
    permissions: new Set<Permission>([...SCOPES, 'admin', 'operator']),
    plan: 'operator',
    rateLimitPerMinute,
    dailyLimit: null,
    monthlyLimit: null,
  };
}

/**
 * Scopes whose requests count against daily and monthly quotas; monitoring and key management do
 * not, nor does `index`: its cost is bounded by the body limit and the rate limit, and counting it
 * would make polling an ingestion job spend the quota.
 */
export const METERED_SCOPES: ReadonlySet<string> = new Set<Scope>(['search', 'extract', 'summarize', 'validate', 'cache']);

/** The refusal of a key that names an account other than its own. */
export function operatorOnly(actor: Principal): ApiError {
  return new ApiError('INSUFFICIENT_PERMISSIONS', { required_permission: 'operator:accounts', current_plan: actor.plan }, 'Only the master key acts on other accounts.');
}
