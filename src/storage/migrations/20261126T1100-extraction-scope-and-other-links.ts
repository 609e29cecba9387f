import { sql, type Kysely } from 'kysely';

// An extraction shaped by options.include_selectors / exclude_selectors is not the page's own
// content: `scope` (a hash of its selectors, null for none) keeps it from answering requests
// that asked for other selectors or none. `other_links_json` holds the page's links outside its
// content (extract_links), which the block model cannot give back; null for rows stored before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('extractions')
    .addColumn('scope', 'varchar(64)')
    .addColumn('other_links_json', sql`mediumtext`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('extractions').dropColumn('scope').dropColumn('other_links_json').execute();
}
