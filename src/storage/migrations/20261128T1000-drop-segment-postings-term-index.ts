import { sql, type Kysely } from 'kysely';

// index_segment_postings was given a second index, (term_id, segment_id), for reading a term's
// lists across segments. No statement uses it: a query names its segments and its terms, and
// MariaDB reads those as ranges of the primary key (segment_id, term_id, chunk); merges and
// deletions go by segment. Every row written and deleted paid for it all the same: writes and
// merges of the postings are most of the database's work when pages are extracted and indexed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE index_segment_postings DROP INDEX index_segment_postings_term`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE index_segment_postings ADD INDEX index_segment_postings_term (term_id, segment_id)`.execute(db);
}
