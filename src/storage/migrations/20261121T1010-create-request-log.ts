import { sql, type Kysely } from 'kysely';

// One row per authenticated request: the source of audit, usage and error analytics.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('request_log')
    .addColumn('id', 'bigint', (c) => c.unsigned().autoIncrement().primaryKey())
    .addColumn('request_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('occurred_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('principal_id', 'varchar(64)')
    .addColumn('method', 'varchar(10)', (c) => c.notNull())
    .addColumn('endpoint', 'varchar(255)', (c) => c.notNull())
    .addColumn('status', 'smallint', (c) => c.unsigned().notNull())
    .addColumn('response_time_ms', 'integer', (c) => c.unsigned().notNull())
    .addColumn('ip_address', 'varchar(45)', (c) => c.notNull())
    .addColumn('user_agent', 'varchar(512)')
    .addColumn('request_size', 'integer', (c) => c.unsigned().notNull())
    .addColumn('response_size', 'integer', (c) => c.unsigned().notNull())
    .addColumn('cache_hit', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('region', 'varchar(32)', (c) => c.notNull())
    .addColumn('error_code', 'varchar(64)')
    .addColumn('extra', 'text')
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();
  await db.schema.createIndex('request_log_principal_time').on('request_log').columns(['principal_id', 'occurred_at']).execute();
  await db.schema.createIndex('request_log_time').on('request_log').column('occurred_at').execute();
  await db.schema.createIndex('request_log_request_id').on('request_log').column('request_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('request_log').execute();
}
