import { sql, type Kysely, type Selectable } from 'kysely';
import type { AccountsTable, ApiKeysTable, Database } from '../storage/schema.js';
import type { Mode } from '../mode.js';
import type { MemberGrant, Role } from './member.js';

export const KEY_TYPES = ['standard', 'scoped', 'service_account'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

export interface Account {
  id: string;
  name: string;
  plan: string;
  createdAt: Date;
}

export interface KeyRecord {
  id: string;
  accountId: string;
  name: string;
  type: KeyType;
  mode: Mode;
  permissions: string[];
  rateLimit: number | null;
  dailyLimit: number | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  description: string | null;
  environment: string | null;
  ipAllowlist: string[] | null;
  keyHint: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** The team member the key belongs to; null for an account key. */
  memberId: string | null;
}

/** What a presented secret opens: the key, its account, and when this particular secret ends. */
export interface SecretMatch {
  key: KeyRecord;
  account: Account;
  secretExpiresAt: Date | null;
  /** The key's member with its role and team scopes; null for an account key, or when the member is gone. */
  member: MemberGrant | null;
}

function toAccount(row: Selectable<AccountsTable>): Account {
  return { id: row.id, name: row.name, plan: row.plan, createdAt: row.created_at };
}

function toKey(row: Selectable<ApiKeysTable>): KeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    type: row.type as KeyType,
    mode: row.mode as Mode,
    permissions: JSON.parse(row.permissions) as string[],
    rateLimit: row.rate_limit,
    dailyLimit: row.daily_limit,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    description: row.description,
    environment: row.environment,
    ipAllowlist: row.ip_allowlist === null ? null : (JSON.parse(row.ip_allowlist) as string[]),
    keyHint: row.key_hint,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    memberId: row.member_id,
  };
}

export async function insertAccountIfAbsent(db: Kysely<Database>, account: Account): Promise<void> {
  await db
    .insertInto('accounts')
    .values({ id: account.id, name: account.name, plan: account.plan, created_at: account.createdAt })
    .ignore()
    .execute();
}

export async function findAccount(db: Kysely<Database>, id: string): Promise<Account | undefined> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toAccount(row);
}

export async function listAccounts(db: Kysely<Database>, limit: number, offset: number): Promise<Account[]> {
  const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute();
  return rows.map(toAccount);
}

export async function updateAccount(db: Kysely<Database>, id: string, changes: { name?: string; plan?: string }): Promise<void> {
  if (changes.name === undefined && changes.plan === undefined) return;
  await db.updateTable('accounts').set(changes).where('id', '=', id).execute();
}

export async function insertKey(db: Kysely<Database>, key: KeyRecord, secretHash: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('api_keys')
      .values({
        id: key.id,
        account_id: key.accountId,
        name: key.name,
        type: key.type,
        mode: key.mode,
        permissions: JSON.stringify(key.permissions),
        rate_limit: key.rateLimit,
        daily_limit: key.dailyLimit,
        expires_at: key.expiresAt,
        revoked_at: key.revokedAt,
        description: key.description,
        environment: key.environment,
        ip_allowlist: key.ipAllowlist === null ? null : JSON.stringify(key.ipAllowlist),
        key_hint: key.keyHint,
        created_at: key.createdAt,
        last_used_at: null,
        member_id: key.memberId,
      })
      .execute();
    await trx.insertInto('api_key_secrets').values({ secret_hash: secretHash, key_id: key.id, created_at: key.createdAt, expires_at: null }).execute();
  });
}

export async function findKeyBySecretHash(db: Kysely<Database>, secretHash: string): Promise<SecretMatch | undefined> {
  const row = await db
    .selectFrom('api_key_secrets as s')
    .innerJoin('api_keys as k', 'k.id', 's.key_id')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    // A member's key carries its member's role and team scopes, read with the key in one query.
    .leftJoin('team_members as m', 'm.id', 'k.member_id')
    .leftJoin('teams as t', 't.id', 'm.team_id')
    .selectAll('k')
    .select(['s.expires_at as secret_expires_at', 'a.name as account_name', 'a.plan as account_plan', 'a.created_at as account_created_at'])
    .select(['m.id as m_id', 'm.team_id as m_team_id', 'm.email as m_email', 'm.role as m_role', 't.permissions as t_permissions'])
    .where('s.secret_hash', '=', secretHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    key: toKey(row),
    account: { id: row.account_id, name: row.account_name, plan: row.account_plan, createdAt: row.account_created_at },
    secretExpiresAt: row.secret_expires_at,
    member: row.m_id === null || row.m_team_id === null || row.t_permissions === null ? null : {
      id: row.m_id, teamId: row.m_team_id, email: row.m_email!, role: row.m_role as Role, accountId: row.account_id,
      teamPermissions: JSON.parse(row.t_permissions) as string[],
    },
  };
}

/** A member with its role and its team's scopes, or undefined when there is none. */
export async function findMemberGrant(db: Kysely<Database>, memberId: string): Promise<MemberGrant | undefined> {
  const row = await db
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select(['m.id', 'm.team_id', 'm.account_id', 'm.email', 'm.role', 't.permissions'])
    .where('m.id', '=', memberId)
    .executeTakeFirst();
  return row && {
    id: row.id, teamId: row.team_id, accountId: row.account_id, email: row.email, role: row.role as Role,
    teamPermissions: JSON.parse(row.permissions) as string[],
  };
}

export async function findKey(db: Kysely<Database>, id: string): Promise<KeyRecord | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toKey(row);
}

export interface KeyFilter {
  accountId?: string;
  /** Only the keys of this team member. */
  memberId?: string;
  type?: KeyType;
  mode?: Mode;
  limit: number;
  offset: number;
}

export async function listKeys(db: Kysely<Database>, filter: KeyFilter): Promise<KeyRecord[]> {
  let query = db.selectFrom('api_keys').selectAll();
  if (filter.accountId !== undefined) query = query.where('account_id', '=', filter.accountId);
  if (filter.memberId !== undefined) query = query.where('member_id', '=', filter.memberId);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.mode !== undefined) query = query.where('mode', '=', filter.mode);
  const rows = await query.orderBy('created_at').orderBy('id').limit(filter.limit).offset(filter.offset).execute();
  return rows.map(toKey);
}

/**
 * Rotation: every secret of the key that had no end gets `oldSecretsEndAt`, and the new secret
 * is added (and becomes the record's hint), in one transaction so the key never has zero or two
 * unbounded secrets.
 */
export async function replaceSecret(db: Kysely<Database>, keyId: string, secret: { hash: string; hint: string }, now: Date, oldSecretsEndAt: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('api_key_secrets').set({ expires_at: oldSecretsEndAt }).where('key_id', '=', keyId).where('expires_at', 'is', null).execute();
    await trx.insertInto('api_key_secrets').values({ secret_hash: secret.hash, key_id: keyId, created_at: now, expires_at: null }).execute();
    await trx.updateTable('api_keys').set({ key_hint: secret.hint }).where('id', '=', keyId).execute();
  });
}

/** For each key, the latest end among its secrets that still work at `now` after a rotation. */
export async function previousSecretsEnds(db: Kysely<Database>, keyIds: readonly string[], now: Date): Promise<Map<string, Date>> {
  if (keyIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('api_key_secrets')
    .select((eb) => ['key_id', eb.fn.max('expires_at').as('ends')])
    .where('key_id', 'in', keyIds)
    .where('expires_at', '>', now)
    .groupBy('key_id')
    .execute();
  return new Map(rows.map((row) => [row.key_id, row.ends as Date]));
}

export async function findAccounts(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, Account>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('accounts').selectAll().where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((row) => [row.id, toAccount(row)]));
}

export async function setRevokedAt(db: Kysely<Database>, keyId: string, at: Date): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', keyId).execute();
}

/** last_used_at only moves forward, whichever process flushes first. */
export async function touchLastUsed(db: Kysely<Database>, keyId: string, at: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: sql<Date>`GREATEST(COALESCE(last_used_at, ${at}), ${at})` })
    .where('id', '=', keyId)
    .execute();
}
