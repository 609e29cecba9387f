import { sql, type Kysely } from 'kysely';

// Teams and single sign-on (docs/teams-and-sso.md). An account's teams, their members (one
// membership per e-mail address in an account, so an SSO sign-in names exactly one member), the
// invitations sent to become one (only the SHA-256 of the link's token is kept), each account's
// SAML identity provider, and the member a key belongs to (null: an account key, as before).
// Frozen once shipped: later changes get a migration of their own.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('teams')
    .addColumn('id', sql`varchar(40) CHARACTER SET ascii`, (c) => c.primaryKey())
    .addColumn('account_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    // JSON array of the scopes its members' keys may hold.
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('created_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('updated_at', sql`datetime(3)`, (c) => c.notNull())
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();
  await db.schema.createIndex('teams_account').on('teams').columns(['account_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('team_members')
    .addColumn('id', sql`varchar(40) CHARACTER SET ascii`, (c) => c.primaryKey())
    .addColumn('team_id', sql`varchar(40) CHARACTER SET ascii`, (c) => c.notNull())
    .addColumn('account_id', 'varchar(32)', (c) => c.notNull())
    // Lower-cased: addresses are compared without regard to case.
    .addColumn('email', 'varchar(254)', (c) => c.notNull())
    .addColumn('role', sql`varchar(16) CHARACTER SET ascii`, (c) => c.notNull())
    .addColumn('created_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('updated_at', sql`datetime(3)`, (c) => c.notNull())
    .addUniqueConstraint('team_members_account_email', ['account_id', 'email'])
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();
  await db.schema.createIndex('team_members_team').on('team_members').columns(['team_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('team_invitations')
    .addColumn('id', sql`varchar(40) CHARACTER SET ascii`, (c) => c.primaryKey())
    .addColumn('team_id', sql`varchar(40) CHARACTER SET ascii`, (c) => c.notNull())
    .addColumn('account_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('email', 'varchar(254)', (c) => c.notNull())
    .addColumn('role', sql`varchar(16) CHARACTER SET ascii`, (c) => c.notNull())
    .addColumn('token_hash', sql`char(64) CHARACTER SET ascii`, (c) => c.notNull().unique())
    // Who sent it: a key id, a member id or master.
    .addColumn('invited_by', 'varchar(40)', (c) => c.notNull())
    .addColumn('created_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('expires_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('accepted_at', sql`datetime(3)`)
    .addColumn('member_id', sql`varchar(40) CHARACTER SET ascii`)
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();
  await db.schema.createIndex('team_invitations_team').on('team_invitations').columns(['team_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('sso_configs')
    .addColumn('account_id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('provider', 'varchar(64)', (c) => c.notNull())
    .addColumn('entity_id', 'varchar(1024)', (c) => c.notNull())
    .addColumn('sso_url', 'varchar(2048)', (c) => c.notNull())
    // The identity provider's signing certificate, PEM.
    .addColumn('certificate', 'text', (c) => c.notNull())
    .addColumn('created_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('updated_at', sql`datetime(3)`, (c) => c.notNull())
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();

  await db.schema.alterTable('api_keys').addColumn('member_id', sql`varchar(40) CHARACTER SET ascii`).execute();
  await db.schema.createIndex('api_keys_member').on('api_keys').column('member_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_keys_member').on('api_keys').execute();
  await db.schema.alterTable('api_keys').dropColumn('member_id').execute();
  await db.schema.dropTable('sso_configs').execute();
  await db.schema.dropTable('team_invitations').execute();
  await db.schema.dropTable('team_members').execute();
  await db.schema.dropTable('teams').execute();
}
