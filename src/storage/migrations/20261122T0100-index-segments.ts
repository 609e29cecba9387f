import { sql, type Kysely } from 'kysely';

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
  const lists: { termId: number; chunks: { block: number; data: Uint8Array }[] }[] = [];
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

// What follows is the stored format as this migration wrote it (src/index/postings-codec.ts and
// insertLists of src/index/segments.repository.ts on 2026-11-22), copied so that a later change
// to the live code cannot change what this migration does.

/** A term's postings are stored a block of this many passage ids at a time. */
const BLOCK_SPAN = 32_768;
const LISTS_PER_INSERT = 2000;
const BYTES_PER_INSERT = 4 * 2 ** 20;

/** LEB128 varints: 7 bits a byte, the high bit set on every byte but the last. */
function pushVarint(out: number[], value: number): void {
  let v = value >>> 0;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
}

/** count, then per posting its passage id gap, tf and passage length. */
function encodePostings(passages: number[], tfs: number[], lengths: number[], from: number, to: number): Uint8Array {
  const out: number[] = [];
  pushVarint(out, to - from);
  let previous = 0;
  for (let i = from; i < to; i++) {
    pushVarint(out, passages[i]! - previous);
    pushVarint(out, tfs[i]!);
    pushVarint(out, lengths[i]!);
    previous = passages[i]!;
  }
  return Uint8Array.from(out);
}

function encodeBlocks(passages: number[], tfs: number[], lengths: number[], count: number, first: number): { block: number; data: Uint8Array }[] {
  const blocks: { block: number; data: Uint8Array }[] = [];
  for (let from = 0; from < count;) {
    const block = Math.floor((passages[from]! - first) / BLOCK_SPAN);
    const end = first + (block + 1) * BLOCK_SPAN;
    let to = from;
    while (to < count && passages[to]! < end) to++;
    blocks.push({ block, data: encodePostings(passages, tfs, lengths, from, to) });
    from = to;
  }
  return blocks;
}

/** count, then the ascending distinct ids as gaps. */
function encodeIdSet(ids: Iterable<number>): Uint8Array {
  const sorted = Uint32Array.from(new Set(ids)).sort();
  const out: number[] = [];
  pushVarint(out, sorted.length);
  let previous = 0;
  for (const id of sorted) {
    pushVarint(out, id - previous);
    previous = id;
  }
  return Uint8Array.from(out);
}

async function insertLists(db: Kysely<any>, segmentId: number, lists: readonly { termId: number; chunks: { block: number; data: Uint8Array }[] }[]): Promise<void> {
  let rows: { segment_id: number; term_id: number; chunk: number; data: Buffer }[] = [];
  let bytes = 0;
  const flush = async () => {
    if (rows.length > 0) await db.insertInto('index_segment_postings').values(rows).execute();
    rows = [];
    bytes = 0;
  };
  for (const list of lists) {
    for (const { block, data } of list.chunks) {
      rows.push({ segment_id: segmentId, term_id: list.termId, chunk: block, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) });
      bytes += data.byteLength;
      if (rows.length >= LISTS_PER_INSERT || bytes >= BYTES_PER_INSERT) await flush();
    }
  }
  await flush();
}
