import { sql, type Kysely } from 'kysely';

// What a PDF tells beyond a web page's metadata, so that an extraction answered from the store
// (options.max_age) reports it as the fresh one did: its page count and when it was last
// modified. Null for web pages.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('extractions')
    .addColumn('page_count', 'integer', (c) => c.unsigned())
    .addColumn('modified_at', sql`datetime(3)`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('extractions').dropColumn('page_count').dropColumn('modified_at').execute();
}
