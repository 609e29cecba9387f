import { sql, type Kysely } from 'kysely';

// Ranking scores a document as a whole (BM25 of title and abstract, as Anserini's SciFact
// baseline does) besides its best passage; that needs each document's length and the mode's
// average, which the passages' lengths give once summed. Existing rows are filled from them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE index_documents ADD COLUMN length INT UNSIGNED NOT NULL DEFAULT 0 COMMENT 'analysed terms of title and text: the sum of its passages'' lengths'`.execute(db);
  await sql`UPDATE index_documents d JOIN (SELECT document_id, SUM(length) AS length FROM index_passages GROUP BY document_id) p ON p.document_id = d.id SET d.length = p.length`.execute(db);
  await sql`ALTER TABLE index_stats ADD COLUMN documents BIGINT UNSIGNED NOT NULL DEFAULT 0`.execute(db);
  await sql`UPDATE index_stats s SET documents = (SELECT COUNT(*) FROM index_documents d WHERE d.mode = s.mode)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE index_stats DROP COLUMN documents`.execute(db);
  await sql`ALTER TABLE index_documents DROP COLUMN length`.execute(db);
}
