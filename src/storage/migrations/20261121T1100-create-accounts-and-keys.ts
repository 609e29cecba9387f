import { sql, type Kysely } from 'kysely';

// Accounts (the tenant a plan belongs to), their keys, and the secrets that open each key.
// A key may have several secrets at once: after a rotation the old one keeps working for a
// grace period, so secrets live in their own table and the key record stays the same.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('plan', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', sql`datetime(3)`, (c) => c.notNull())
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('account_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('mode', 'varchar(8)', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('rate_limit', 'integer', (c) => c.unsigned())
    .addColumn('daily_limit', 'integer', (c) => c.unsigned())
    .addColumn('expires_at', sql`datetime(3)`)
    // When the key stops being valid by revocation: now for an immediate one, later for a scheduled one.
    .addColumn('revoked_at', sql`datetime(3)`)
    .addColumn('description', 'varchar(500)')
    .addColumn('environment', 'varchar(64)')
    .addColumn('ip_allowlist', 'text')
    .addColumn('key_hint', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('last_used_at', sql`datetime(3)`)
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('api_key_secrets')
    .addColumn('secret_hash', 'char(64)', (c) => c.primaryKey())
    .addColumn('key_id', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_at', sql`datetime(3)`, (c) => c.notNull())
    // Set when a rotation replaces this secret: it keeps working until then.
    .addColumn('expires_at', sql`datetime(3)`)
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=ascii`)
    .execute();
  await db.schema.createIndex('api_key_secrets_key').on('api_key_secrets').column('key_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_key_secrets').execute();
  await db.schema.dropTable('api_keys').execute();
  await db.schema.dropTable('accounts').execute();
}
