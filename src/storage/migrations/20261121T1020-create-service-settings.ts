import { sql, type Kysely } from 'kysely';

// Small service-wide values that must survive restarts, such as the generated master key's hash.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('service_settings')
    .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', sql`datetime(3)`, (c) => c.notNull())
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('service_settings').execute();
}
