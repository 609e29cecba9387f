import { sql, type Kysely } from 'kysely';

// Every successful extraction, in a form the search index can later read.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('extractions')
    .addColumn('id', 'bigint', (c) => c.unsigned().autoIncrement().primaryKey())
    .addColumn('request_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('url_hash', 'char(64)', (c) => c.notNull())
    .addColumn('final_url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('domain', 'varchar(255)', (c) => c.notNull())
    .addColumn('title', 'varchar(1024)')
    .addColumn('author', 'varchar(512)')
    .addColumn('published_at', sql`datetime(3)`)
    .addColumn('language', 'varchar(16)')
    .addColumn('content_text', sql`mediumtext`, (c) => c.notNull())
    .addColumn('content_hash', 'char(64)', (c) => c.notNull())
    .addColumn('word_count', 'integer', (c) => c.unsigned().notNull())
    .addColumn('fetched_at', sql`datetime(3)`, (c) => c.notNull())
    .addColumn('created_at', sql`datetime(3)`, (c) => c.notNull().defaultTo(sql`CURRENT_TIMESTAMP(3)`))
    .modifyEnd(sql`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`)
    .execute();
  await db.schema.createIndex('extractions_url_hash_fetched').on('extractions').columns(['url_hash', 'fetched_at']).execute();
  await db.schema.createIndex('extractions_request_id').on('extractions').column('request_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('extractions').execute();
}
