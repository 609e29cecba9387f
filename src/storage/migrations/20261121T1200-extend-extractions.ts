import { sql, type Kysely } from 'kysely';

// What a repeated extraction needs to be answered from the store in any format (the block
// model, not one rendering of it), what the index needs beyond the text (canonical URL, site,
// description), and whose namespace a row belongs to (sandbox extractions never serve live ones).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('extractions')
    .addColumn('canonical_url', 'varchar(2048)')
    .addColumn('site_name', 'varchar(255)')
    .addColumn('description', 'text')
    .addColumn('mode', 'varchar(8)', (c) => c.notNull().defaultTo('live'))
    .addColumn('clean_html', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('blocks_json', sql`mediumtext`)
    .addColumn('quality_score', sql`float`)
    .execute();
  await db.schema.createIndex('extractions_fresh').on('extractions').columns(['url_hash', 'clean_html', 'mode', 'fetched_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('extractions_fresh').on('extractions').execute();
  await db.schema
    .alterTable('extractions')
    .dropColumn('canonical_url')
    .dropColumn('site_name')
    .dropColumn('description')
    .dropColumn('mode')
    .dropColumn('clean_html')
    .dropColumn('blocks_json')
    .dropColumn('quality_score')
    .execute();
}
