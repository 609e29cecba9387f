import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/** An account's SAML identity provider. */
export interface SsoConfig {
  accountId: string;
  provider: string;
  entityId: string;
  ssoUrl: string;
  certificate: string;
  createdAt: Date;
  updatedAt: Date;
}

export async function findSsoConfig(db: Kysely<Database>, accountId: string): Promise<SsoConfig | undefined> {
  const row = await db.selectFrom('sso_configs').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  return row && {
    accountId: row.account_id, provider: row.provider, entityId: row.entity_id, ssoUrl: row.sso_url, certificate: row.certificate,
    createdAt: row.created_at, updatedAt: row.updated_at,
  };
}

/** Stores the account's configuration, replacing the one it had (created_at kept). */
export async function saveSsoConfig(db: Kysely<Database>, config: SsoConfig): Promise<void> {
  await db.insertInto('sso_configs').values({
    account_id: config.accountId, provider: config.provider, entity_id: config.entityId, sso_url: config.ssoUrl,
    certificate: config.certificate, created_at: config.createdAt, updated_at: config.updatedAt,
  }).onDuplicateKeyUpdate({
    provider: config.provider, entity_id: config.entityId, sso_url: config.ssoUrl, certificate: config.certificate, updated_at: config.updatedAt,
  }).execute();
}

export async function deleteSsoConfig(db: Kysely<Database>, accountId: string): Promise<boolean> {
  const result = await db.deleteFrom('sso_configs').where('account_id', '=', accountId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
