import type { Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Database } from '../storage/schema.js';
import { isStorableDate, LATEST_STORABLE_DATE } from '../storage/datetime.js';
import { ApiError } from '../errors/catalogue.js';
import { generateKey, keyHint, randomId } from './key-format.js';
import { hashKey } from './key-hash.js';
import { publishInvalidation } from './key-cache.js';
import { findAccount, findAccounts, findKey, findMemberGrant, insertAccountIfAbsent, insertKey, listAccounts, listKeys, previousSecretsEnds, replaceSecret, setRevokedAt, updateAccount, type Account, type KeyFilter, type KeyRecord, type KeyType } from './keys.repository.js';
import type { Mode } from '../mode.js';
import { keyStatus, keyView } from './key-view.js';
import type { Feature, Plans } from './plans.js';
import { operatorOnly, SCOPES, type Permission, type Principal } from './principal.js';
import type { MemberGrant } from './member.js';
import { grantableTo } from './roles.js';

export const DEFAULT_ACCOUNT_ID = 'acct_default';
/** How long a rotated-out secret keeps working (section 3.1). */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export interface KeyInput {
  name: string;
  type?: 'standard' | 'scoped';
  permissions?: string[];
  rate_limit?: number;
  daily_limit?: number;
  expires_at?: string;
  description?: string;
  account_id?: string;
  mode?: Mode;
  /** The team member the key is for; a developer's keys are always its own. */
  member_id?: string;
}

export interface ServiceAccountInput extends Omit<KeyInput, 'type' | 'member_id'> {
  environment: string;
  ip_allowlist?: string[];
}

/** What differs between the kinds of key a caller can create. */
interface KeyKindInput {
  type: KeyType;
  permissions: string[];
  /** The plan feature this kind needs, if any. */
  feature: Feature | undefined;
  environment?: string;
  ipAllowlist?: string[] | null;
}

export interface IssuedKey {
  record: KeyRecord;
  secret: string;
}

/**
 * Accounts, keys and service accounts: the rules of sections 3.1 and 5, shared by the HTTP
 * routes and the `keys` command line. `actor` is who asks: the operator (master key) may act on
 * any account; a key with the admin permission (an account key, or an admin member's) only on
 * its own account, and a sandbox admin only on sandbox keys; a developer (own_keys) only on its
 * own keys. Keys outside the actor's reach answer 404, as if they did not exist.
 * Every change that could leave a cached key lookup stale is published to all API processes.
 */
export class KeyService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock,
    readonly plans: Plans,
  ) {}

  /** The account that owns keys created without one; its plan comes from DEFAULT_PLAN at first start. */
  async ensureDefaultAccount(plan: string): Promise<void> {
    await insertAccountIfAbsent(this.db, { id: DEFAULT_ACCOUNT_ID, name: 'Default account', plan, createdAt: this.clock.now() });
  }

  async createAccount(input: { name: string; plan: string }): Promise<Account> {
    this.assertPlan(input.plan);
    const account = { id: randomId('acct'), name: input.name, plan: input.plan, createdAt: this.clock.now() };
    await insertAccountIfAbsent(this.db, account);
    return account;
  }

  listAccounts(limit: number, offset: number): Promise<Account[]> {
    return listAccounts(this.db, limit, offset);
  }

  /** The account, or undefined when there is none. */
  findAccount(id: string): Promise<Account | undefined> {
    return findAccount(this.db, id);
  }

  async getAccount(id: string): Promise<Account> {
    const account = await findAccount(this.db, id);
    if (!account) throw notFound('account', id);
    return account;
  }

  async updateAccount(id: string, changes: { name?: string; plan?: string }): Promise<Account> {
    if (changes.plan !== undefined) this.assertPlan(changes.plan);
    await this.getAccount(id);
    await updateAccount(this.db, id, changes);
    // Every key of the account carries its plan's limits and features in caches: drop them all.
    if (changes.plan !== undefined) await publishInvalidation(this.redis, this.prefix, { account_id: id });
    return this.getAccount(id);
  }

  async createKey(actor: Principal, input: KeyInput): Promise<IssuedKey> {
    const type: KeyType = input.type ?? 'standard';
    const permissions = input.permissions ?? [];
    if (type === 'standard' && permissions.some((p) => p !== 'admin')) {
      throw invalid('permissions', 'a standard key holds every scope; use type "scoped" to limit a key to some', permissions);
    }
    return this.issue(actor, input, { type, permissions, feature: type === 'scoped' ? 'scoped_keys' : undefined });
  }

  async createServiceAccount(actor: Principal, input: ServiceAccountInput): Promise<IssuedKey> {
    return this.issue(actor, input, {
      type: 'service_account',
      permissions: input.permissions ?? [...SCOPES],
      feature: 'service_accounts',
      environment: input.environment,
      ipAllowlist: input.ip_allowlist ?? null,
    });
  }

  async listKeys(actor: Principal, filter: Omit<KeyFilter, 'accountId'> & { accountId?: string }): Promise<KeyRecord[]> {
    if (actor.permissions.has('operator')) return listKeys(this.db, filter);
    if (filter.accountId !== undefined && filter.accountId !== actor.accountId) throw operatorOnly(actor);
    if (actor.mode === 'test' && filter.mode === 'live') return [];
    const own = ownKeysOnly(actor);
    if (own !== undefined && filter.memberId !== undefined && filter.memberId !== own) return [];
    return listKeys(this.db, {
      ...filter, accountId: actor.accountId!, ...(actor.mode === 'test' ? { mode: 'test' } : {}), ...(own !== undefined ? { memberId: own } : {}),
    });
  }

  async getKey(actor: Principal, id: string): Promise<KeyRecord> {
    const key = await findKey(this.db, id);
    if (!key || !this.reaches(actor, key)) throw notFound('key', id);
    return key;
  }

  /** Issues a new secret; every older secret keeps working for exactly 24 hours from now. */
  async rotate(actor: Principal, id: string): Promise<IssuedKey & { oldKeyExpiresAt: Date }> {
    const key = await this.getKey(actor, id);
    const now = this.clock.now();
    this.assertActive(key, now);
    const secret = generateKey(key.mode);
    const oldKeyExpiresAt = new Date(now.getTime() + ROTATION_GRACE_MS);
    const hint = keyHint(secret);
    await replaceSecret(this.db, key.id, { hash: hashKey(secret), hint }, now, oldKeyExpiresAt);
    await publishInvalidation(this.redis, this.prefix, { key_id: key.id });
    return { record: { ...key, keyHint: hint }, secret, oldKeyExpiresAt };
  }

  /**
   * Revokes now, or at `at` when it is in the future. Revoking a revoked key changes nothing in
   * the database but announces the revocation again, so a retry after a failed announcement
   * (Redis away) still reaches every process.
   */
  async revoke(actor: Principal, id: string, at?: Date): Promise<KeyRecord> {
    const key = await this.getKey(actor, id);
    const now = this.clock.now();
    if (at !== undefined && at <= now) throw invalid('revoke_at', 'must be in the future; leave it out to revoke now', at.toISOString());
    if (at !== undefined && !isStorableDate(at)) throw invalid('revoke_at', `must be no later than ${LATEST_STORABLE_DATE}`, at.toISOString());
    const revoked = keyStatus(key, now) === 'revoked' ? key : { ...key, revokedAt: at ?? now };
    if (revoked !== key) await setRevokedAt(this.db, key.id, revoked.revokedAt!);
    await publishInvalidation(this.redis, this.prefix, { key_id: key.id });
    return revoked;
  }

  /** Key records as clients see them (section 2.5), with their plans' limits, in two queries for any number. */
  async describe(keys: readonly KeyRecord[]): Promise<Record<string, unknown>[]> {
    const now = this.clock.now();
    const ids = keys.map((key) => key.id);
    const [accounts, previousEnds] = await Promise.all([findAccounts(this.db, keys.map((k) => k.accountId)), previousSecretsEnds(this.db, ids, now)]);
    return keys.map((key) => keyView(key, this.plans.get(accounts.get(key.accountId)?.plan ?? ''), now, previousEnds.get(key.id) ?? null));
  }

  private async issue(actor: Principal, input: KeyInput, kind: KeyKindInput): Promise<IssuedKey> {
    const { type, permissions, feature } = kind;
    const member = await this.keyMember(actor, input.member_id);
    // A member's key belongs to the member's account, which the master key need not name.
    const accountId = input.account_id ?? member?.accountId ?? actor.accountId ?? DEFAULT_ACCOUNT_ID;
    if (!actor.permissions.has('operator') && accountId !== actor.accountId) throw operatorOnly(actor);
    if (member && member.accountId !== accountId) throw notFound('member', member.id);
    if (member) assertGrantable(actor, member, permissions);
    const mode: Mode = input.mode ?? actor.mode;
    if (actor.mode === 'test' && mode === 'live') {
      throw new ApiError('INSUFFICIENT_PERMISSIONS', { required_permission: 'admin:live', current_plan: actor.plan }, 'A sandbox key can only create sandbox keys.');
    }
    const account = await this.getAccount(accountId);
    const plan = this.plans.get(account.plan);
    if (feature && !plan.features.includes(feature)) {
      throw new ApiError('FEATURE_NOT_AVAILABLE', { feature, required_plan: this.plans.requiredFor(feature)?.name ?? null, current_plan: plan.name });
    }
    if (input.rate_limit !== undefined && input.rate_limit > plan.rate_limit_per_minute) {
      throw invalid('rate_limit', `must not exceed the ${plan.name} plan's ${plan.rate_limit_per_minute} requests per minute`, input.rate_limit);
    }
    if (input.daily_limit !== undefined && plan.daily_limit_per_key !== null && input.daily_limit > plan.daily_limit_per_key) {
      throw invalid('daily_limit', `must not exceed the ${plan.name} plan's ${plan.daily_limit_per_key} requests per key per day`, input.daily_limit);
    }
    const now = this.clock.now();
    const expiresAt = input.expires_at === undefined ? null : new Date(input.expires_at);
    if (expiresAt && expiresAt <= now) throw invalid('expires_at', 'must be in the future', input.expires_at);
    // The schema's date-time admits offsets that carry 9999-12-31 past what MySQL holds.
    if (expiresAt && !isStorableDate(expiresAt)) throw invalid('expires_at', `must be no later than ${LATEST_STORABLE_DATE}`, input.expires_at);

    const secret = generateKey(mode);
    const record: KeyRecord = {
      id: randomId(type === 'service_account' ? 'sa' : 'key'),
      accountId,
      name: input.name,
      type,
      mode,
      permissions: [...new Set(permissions)] as Permission[],
      rateLimit: input.rate_limit ?? null,
      dailyLimit: input.daily_limit ?? null,
      expiresAt,
      revokedAt: null,
      description: input.description ?? null,
      environment: kind.environment ?? null,
      ipAllowlist: kind.ipAllowlist ?? null,
      keyHint: keyHint(secret),
      createdAt: now,
      lastUsedAt: null,
      memberId: member?.id ?? null,
    };
    await insertKey(this.db, record, hashKey(secret));
    return { record, secret };
  }

  /**
   * The member a new key is for: the one named (in the key's account), or for a developer always
   * itself (naming another member is refused; a developer manages its own keys only).
   */
  private async keyMember(actor: Principal, memberId: string | undefined): Promise<MemberGrant | undefined> {
    const own = ownKeysOnly(actor);
    if (own !== undefined && memberId !== undefined && memberId !== own) {
      throw new ApiError('INSUFFICIENT_PERMISSIONS', { required_permission: 'admin:keys', current_plan: actor.plan }, 'A developer creates keys for itself only.');
    }
    const id = own ?? memberId;
    if (id === undefined) return undefined;
    const member = /^[!-~]{1,40}$/.test(id) ? await findMemberGrant(this.db, id) : undefined;
    // A member of another account is no member, for a caller that is not the operator.
    if (!member || (!actor.permissions.has('operator') && member.accountId !== actor.accountId)) throw notFound('member', id);
    return member;
  }

  private reaches(actor: Principal, key: KeyRecord): boolean {
    if (actor.permissions.has('operator')) return true;
    const own = ownKeysOnly(actor);
    if (own !== undefined && key.memberId !== own) return false;
    return key.accountId === actor.accountId && (actor.mode === 'live' || key.mode === 'test');
  }

  private assertActive(key: KeyRecord, now: Date): void {
    const status = keyStatus(key, now);
    if (status !== 'active') throw new ApiError('KEY_NOT_ACTIVE', { key_id: key.id, status }, `The key is ${status}; only an active key can be rotated.`);
  }

  private assertPlan(plan: string): void {
    if (!this.plans.has(plan)) throw invalid('plan', `must be one of ${this.plans.list.map((p) => p.name).join(', ')}`, plan);
  }
}

/** The member whose keys alone the actor manages (a developer), or undefined when its reach is the account's. */
function ownKeysOnly(actor: Principal): string | undefined {
  if (actor.permissions.has('admin') || actor.permissions.has('operator')) return undefined;
  return actor.permissions.has('own_keys') ? actor.member?.id : undefined;
}

/**
 * A member's key holds at most what the member may: the scopes of its role within its team's
 * (a standard key's scopes are bounded when it is used), and admin only for a role that manages keys.
 */
function assertGrantable(actor: Principal, member: MemberGrant, permissions: readonly string[]): void {
  const grantable = grantableTo(member);
  const beyond = permissions.find((p) => !grantable.has(p));
  if (beyond !== undefined) {
    throw new ApiError('INSUFFICIENT_PERMISSIONS', { required_permission: `${beyond}:grant`, current_plan: actor.plan },
      `Member ${member.id} (${member.role}) may not hold ${beyond}: its role or its team's permissions do not allow it.`);
  }
}

function invalid(parameter: string, reason: string, provided: unknown): ApiError {
  return new ApiError('INVALID_PARAMETER', { parameter, reason, provided }, `${parameter} ${reason}.`);
}

function notFound(kind: string, id: string): ApiError {
  return new ApiError('NOT_FOUND', { resource: kind, id }, `No ${kind} with id ${id}.`);
}
