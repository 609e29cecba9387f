import { sql, type Kysely } from 'kysely';

// Dashboards (POST /v1/dashboards). A dashboard belongs to its owner: a key's account in the
// key's mode, or the master key ('master'). account_id and mode say whose figures it shows:
// for a master dashboard an account it names, or NULL for the whole deployment (and NULL mode
// for both modes). The definition (metrics and alerts) is the validated request, JSON.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dashboards')
    .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('owner', 'varchar(32)', (c) => c.notNull())
    .addColumn('owner_mode', 'varchar(8)', (c) => c.notNull())
    .addColumn('account_id', 'varchar(32)')
    .addColumn('mode', 'varchar(8)')
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('created_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('updated_at', sql`datetime(3)`, (c) => c.notNull())
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();
  // An owner's list, oldest first; its count for the per-owner limit.
  await db.schema.createIndex('dashboards_owner').on('dashboards').columns(['owner', 'owner_mode', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dashboards').execute();
}
