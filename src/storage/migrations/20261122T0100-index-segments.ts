import { sql, type Kysely } from 'kysely';
import { insertLists, type SegmentList } from '../../index/segments.repository.js';
import { encodeBlocks, encodeIdSet } from '../../../workers/pool/postings-codec.js';

// The index's postings move from one row per posting to immutable segments (Lucene's idea):
// each write adds a segment holding one compressed list per term, and a background merge folds
// segments together. A million passages are then a few hundred MB instead of 5.5 GB, a batch is
// a few thousand rows instead of tens of thousands, and a query reads each term's lists in a
// handful of rows. A passage keeps its term ids so that deleting it can correct df.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE index_segments (
    id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
    mode VARCHAR(8) CHARACTER SET ascii NOT NULL,
    level TINYINT UNSIGNED NOT NULL,
    state VARCHAR(8) CHARACTER SET ascii NOT NULL COMMENT 'building (a merge in progress), active, retired (being removed)',
    postings BIGINT UNSIGNED NOT NULL,
    dead_postings BIGINT UNSIGNED NOT NULL DEFAULT 0 COMMENT 'postings of passages deleted since the segment was written',
    first_passage INT UNSIGNED NOT NULL,
    last_passage INT UNSIGNED NOT NULL,
    created_at DATETIME(3) NOT NULL,
    KEY index_segments_mode (mode, state, level)
  ) ENGINE=InnoDB`.execute(db);
  await sql`CREATE TABLE index_segment_postings (
    segment_id BIGINT UNSIGNED NOT NULL,
    term_id INT UNSIGNED NOT NULL,
    chunk SMALLINT UNSIGNED NOT NULL,
    data MEDIUMBLOB NOT NULL COMMENT 'workers/pool/postings-codec.ts',
    PRIMARY KEY (segment_id, term_id, chunk),
    KEY index_segment_postings_term (term_id, segment_id)
  ) ENGINE=InnoDB`.execute(db);
  await sql`ALTER TABLE index_passages ADD COLUMN terms BLOB NULL COMMENT 'the passage''s distinct term ids (postings-codec id set)'`.execute(db);
  for (const { mode } of await db.selectFrom('index_stats').select('mode').execute()) await convertMode(db, mode);
  await sql`UPDATE index_passages SET terms = ${encodeIdSet([])} WHERE terms IS NULL`.execute(db);
  await sql`ALTER TABLE index_passages MODIFY terms BLOB NOT NULL COMMENT 'the passage''s distinct term ids (postings-codec id set)'`.execute(db);
  await sql`DROP TABLE index_postings`.execute(db);
  await sql`ALTER TABLE index_stats DROP COLUMN reference_avgdl`.execute(db);
}

/** An index written before this migration becomes one segment per mode. */
async function convertMode(db: Kysely<any>, mode: string): Promise<void> {
  const terms = (await db.selectFrom('index_terms').select('id').where('mode', '=', mode).orderBy('id').execute()).map((r) => Number(r.id));
  const firstRow = await sql<{ first: number | null }>`SELECT MIN(p.id) AS first FROM index_passages p JOIN index_documents d ON d.id = p.document_id WHERE d.mode = ${mode}`.execute(db);
  const segmentFirst = Number(firstRow.rows[0]?.first ?? 0);
  const passageTerms = new Map<number, number[]>();
  const lists: SegmentList[] = [];
  let last = 0;
  let postings = 0;
  for (let start = 0; start < terms.length; start += 500) {
    const rows = await db.selectFrom('index_postings').select(['term_id', 'passage_id', 'tf', 'length'])
      .where('term_id', 'in', terms.slice(start, start + 500)).orderBy('term_id').orderBy('passage_id').execute();
    for (let from = 0; from < rows.length;) {
      const termId = Number(rows[from]!.term_id);
      let to = from;
      while (to < rows.length && Number(rows[to]!.term_id) === termId) to++;
      const slice = rows.slice(from, to);
      const ids = slice.map((r) => Number(r.passage_id));
      const tfs = slice.map((r) => r.tf);
      const lengths = slice.map((r) => r.length);
      lists.push({ termId, chunks: encodeBlocks(ids, tfs, lengths, ids.length, segmentFirst) });
      for (const id of ids) {
        const list = passageTerms.get(id) ?? [];
        list.push(termId);
        passageTerms.set(id, list);
        last = Math.max(last, id);
      }
      postings += slice.length;
      from = to;
    }
  }
  if (postings === 0) return;
  const segment = await db.insertInto('index_segments').values({
    mode, level: 0, state: 'active', postings, dead_postings: 0, first_passage: segmentFirst, last_passage: last, created_at: new Date(),
  }).executeTakeFirstOrThrow();
  const segmentId = Number(segment.insertId);
  await insertLists(db, segmentId, lists);
  for (const [passageId, ids] of passageTerms) {
    await db.updateTable('index_passages').set({ terms: Buffer.from(encodeIdSet(ids)) }).where('id', '=', passageId).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  // Going down empties the index: the older layout's impacts were computed against a reference
  // average length this one no longer keeps. Documents come back by ingesting them again.
  await sql`CREATE TABLE index_postings (
    term_id INT UNSIGNED NOT NULL,
    impact SMALLINT UNSIGNED NOT NULL,
    passage_id INT UNSIGNED NOT NULL,
    tf SMALLINT UNSIGNED NOT NULL,
    length MEDIUMINT UNSIGNED NOT NULL,
    PRIMARY KEY (term_id, impact DESC, passage_id),
    KEY index_postings_passage (passage_id, term_id)
  ) ENGINE=InnoDB`.execute(db);
  await sql`ALTER TABLE index_stats ADD COLUMN reference_avgdl DOUBLE NOT NULL DEFAULT 1`.execute(db);
  await sql`DROP TABLE index_segment_postings`.execute(db);
  await sql`DROP TABLE index_segments`.execute(db);
  for (const table of ['index_passages', 'index_documents', 'index_terms', 'index_stats']) await sql`DELETE FROM ${sql.table(table)}`.execute(db);
  await sql`ALTER TABLE index_passages DROP COLUMN terms`.execute(db);
}
