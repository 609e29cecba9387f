import { sql, type Kysely, type Transaction } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database, IndexSegmentsTable } from '../storage/schema.js';
import { literalList, multiRowInsert, type Cell } from '../storage/multi-row-insert.js';
import { encodeBlocks, packLists, unpackLists, type StoredBlock } from './postings-codec.js';
import { PostingsCache, type CachedBlock } from './postings-cache.js';

type Executor = Kysely<Database> | Transaction<Database>;

/** An INSERT of postings lists stops at this many rows or bytes, whichever comes first: well under max_allowed_packet (16 MB by default). */
const LISTS_PER_INSERT = 2000;
const BYTES_PER_INSERT = 4 * 2 ** 20;

/**
 * A segment of at most this many postings is stored packed: all its lists in one value, under
 * term id PACKED_TERM (term ids start at 1), instead of a row per term. The segments a write of a
 * few pages makes hold a few hundred terms a page, and their rows, written, then read and deleted
 * again by the merge that folds them, were most of the database's work when pages are extracted
 * one by one. A query reads a packed segment whole once (PostingsCache keeps it unpacked).
 */
export const PACK_MAX_POSTINGS = 20_000;
/** The packed value's row: term id PACKED_TERM, chunk 0 (a few bytes a posting: at most some 100 KB). */
export const PACKED_TERM = 0;

export interface SegmentList {
  termId: number;
  /** Stored as rows whose `chunk` is the block number (postings-codec.ts). */
  chunks: StoredBlock[];
}

export interface Segment {
  id: number;
  level: number;
  postings: number;
  deadPostings: number;
  firstPassage: number;
  lastPassage: number;
}

/**
 * A batch's postings as term lists: passages arrive in ascending id order, so every list is
 * sorted by passage id as the codec wants.
 */
export function batchLists(passages: readonly { id: number; length: number; termIds: number[]; tfs: number[] }[]): SegmentList[] {
  const byTerm = new Map<number, { passages: number[]; tfs: number[]; lengths: number[] }>();
  for (const passage of passages) {
    passage.termIds.forEach((termId, t) => {
      let list = byTerm.get(termId);
      if (!list) byTerm.set(termId, list = { passages: [], tfs: [], lengths: [] });
      list.passages.push(passage.id);
      list.tfs.push(passage.tfs[t]!);
      list.lengths.push(passage.length);
    });
  }
  const first = passages[0]?.id ?? 0;
  return [...byTerm.entries()].sort((a, b) => a[0] - b[0])
    .map(([termId, list]) => ({ termId, chunks: encodeBlocks(list.passages, list.tfs, list.lengths, list.passages.length, first) }));
}

export async function createSegment(
  db: Executor, mode: Mode, fields: { level: number; state: IndexSegmentsTable['state']; postings: number; firstPassage: number; lastPassage: number },
): Promise<number> {
  const result = await db.insertInto('index_segments').values({
    mode, level: fields.level, state: fields.state, postings: fields.postings, dead_postings: 0,
    first_passage: fields.firstPassage, last_passage: fields.lastPassage, created_at: new Date(),
  }).executeTakeFirstOrThrow();
  return Number(result.insertId);
}

/** A new segment's lists: packed when it holds at most PACK_MAX_POSTINGS postings, else a row per term and block. */
export async function writeLists(db: Executor, segmentId: number, lists: readonly SegmentList[], postings: number): Promise<void> {
  if (postings > PACK_MAX_POSTINGS) return insertLists(db, segmentId, lists);
  await multiRowInsert('index_segment_postings', ['segment_id', 'term_id', 'chunk', 'data'], [[segmentId, PACKED_TERM, 0, packLists(lists)]]).execute(db);
}

/** A segment's lists as multi-row INSERTs of literal values (multi-row-insert.ts): thousands of rows per statement. */
export async function insertLists(db: Executor, segmentId: number, lists: readonly SegmentList[]): Promise<void> {
  let rows: Cell[][] = [];
  let bytes = 0;
  const flush = async () => {
    if (rows.length > 0) await multiRowInsert('index_segment_postings', ['segment_id', 'term_id', 'chunk', 'data'], rows).execute(db);
    rows = [];
    bytes = 0;
  };
  for (const list of lists) {
    for (const { block, data } of list.chunks) {
      rows.push([segmentId, list.termId, block, data]);
      bytes += data.byteLength;
      if (rows.length >= LISTS_PER_INSERT || bytes >= BYTES_PER_INSERT) await flush();
    }
  }
  await flush();
}

type TermChunk = { termId: number; segmentId: number; block: number; firstPassage: number; data: Uint8Array };

/** Reads of the postings, each checked against a second read of the segment list, before a transaction is used. */
const CHECKED_READS = 2;

/**
 * Every stored chunk of the given terms in the mode's active segments, those the cache holds
 * taken from it. When the cache holds them all, one read of the segment list is the whole
 * answer. Otherwise the missing chunks are read, then the segment list once more: if it has not
 * changed, no merge retired any of its segments in between, and a segment's postings are only
 * dropped after it is retired, so what was read is complete. If it changed, the lists of the
 * segments still active are kept (they were complete too) and the read is made again against
 * the new list; after CHECKED_READS such reads, in one transaction (one consistent snapshot).
 * Three statements in all where the transaction takes five, and every statement is a round trip
 * that costs this process, the kernel and MySQL CPU on every uncached search.
 */
export async function readTermChunks(db: Kysely<Database>, cache: PostingsCache, mode: Mode, termIds: readonly number[]): Promise<TermChunk[]> {
  if (termIds.length === 0) return [];
  let segments = await activeSegments(db, mode);
  for (let attempt = 0; attempt < CHECKED_READS; attempt++) {
    const cached = chunksFrom(cache, segments, termIds);
    if (cached) return cached;
    const { found, read } = await readMissing(db, cache, segments, termIds);
    const after = await activeSegments(db, mode);
    const unchanged = after.length === segments.length && after.every((s, i) => PostingsCache.segmentKey(s) === PostingsCache.segmentKey(segments[i]!));
    if (unchanged) return assemble(segments, termIds, (key) => found.get(key) ?? cache.set(key, read.get(key) ?? []));
    const stillActive = new Set(after.map((s) => PostingsCache.segmentKey(s)));
    for (const segment of segments) {
      if (!stillActive.has(PostingsCache.segmentKey(segment))) continue;
      for (const termId of termIds) {
        const key = PostingsCache.key(segment, termId);
        if (!found.has(key)) cache.set(key, read.get(key) ?? []);
      }
    }
    segments = after;
  }
  return db.transaction().execute(async (trx) => {
    const active = await activeSegments(trx, mode);
    const { found, read } = await readMissing(trx, cache, active, termIds);
    return assemble(active, termIds, (key) => found.get(key) ?? cache.set(key, read.get(key) ?? []));
  });
}

/**
 * The lists the cache holds (taken now: other queries may evict them meanwhile) or a packed
 * segment gave, and the others read from MySQL, by cache key. A segment not yet known to be
 * packed or not is read with PACKED_TERM among the terms: its packed value comes whole if it
 * has one, and is kept unpacked.
 */
async function readMissing(db: Executor, cache: PostingsCache, segments: readonly ActiveSegment[], termIds: readonly number[]) {
  const found = new Map<string, readonly CachedBlock[]>();
  const missingSegments = new Set<number>();
  const missingTerms = new Set<number>();
  let unknown = false;
  const fromPacked = (segment: ActiveSegment, lists: ReadonlyMap<number, CachedBlock[]>) => {
    for (const termId of termIds) found.set(PostingsCache.key(segment, termId), lists.get(termId) ?? NONE);
  };
  for (const segment of segments) {
    const packed = cache.packed(segment);
    if (packed) {
      fromPacked(segment, packed);
      continue;
    }
    for (const termId of termIds) {
      const key = PostingsCache.key(segment, termId);
      const blocks = cache.get(key);
      if (blocks) found.set(key, blocks);
      else {
        missingSegments.add(segment.id);
        missingTerms.add(termId);
        unknown ||= packed === undefined;
      }
    }
  }
  const read = new Map<string, { block: number; data: Uint8Array }[]>();
  if (missingSegments.size > 0) {
    const byId = new Map(segments.map((s) => [s.id, s]));
    const terms = unknown ? [PACKED_TERM, ...missingTerms] : [...missingTerms];
    const rows = await db.selectFrom('index_segment_postings').select(['segment_id', 'term_id', 'chunk', 'data'])
      .where('segment_id', 'in', [...missingSegments]).where('term_id', 'in', terms).orderBy('segment_id').orderBy('term_id').orderBy('chunk').execute();
    const packedRows = new Map<number, Uint8Array>();
    for (const row of rows) {
      const segmentId = Number(row.segment_id);
      if (Number(row.term_id) === PACKED_TERM) {
        packedRows.set(segmentId, row.data);
        continue;
      }
      const key = PostingsCache.key(byId.get(segmentId)!, Number(row.term_id));
      const list = read.get(key);
      if (list) list.push({ block: row.chunk, data: row.data });
      else read.set(key, [{ block: row.chunk, data: row.data }]);
    }
    if (unknown) {
      for (const id of missingSegments) {
        const segment = byId.get(id)!;
        if (cache.packed(segment) !== undefined) continue;
        const packed = packedRows.get(id);
        const kept = cache.setPacked(segment, packed ? unpackLists(packed) : null);
        if (kept) fromPacked(segment, kept);
      }
    }
  }
  return { found, read };
}

const NONE: readonly CachedBlock[] = [];

function assemble(segments: readonly ActiveSegment[], termIds: readonly number[], blocks: (key: string) => readonly { block: number; data: Uint8Array }[]): TermChunk[] {
  return segments.flatMap((segment) => termIds.flatMap((termId) => blocks(PostingsCache.key(segment, termId))
    .map(({ block, data }) => ({ termId, segmentId: segment.id, block, firstPassage: segment.firstPassage, data }))));
}


interface ActiveSegment {
  id: number;
  firstPassage: number;
  /** Epoch ms: with the id, the name of one segment in the cache. */
  createdAt: number;
}

async function activeSegments(db: Executor, mode: Mode): Promise<ActiveSegment[]> {
  const rows = await db.selectFrom('index_segments').select(['id', 'first_passage', 'created_at'])
    .where('mode', '=', mode).where('state', '=', 'active').orderBy('id').execute();
  return rows.map((s) => ({ id: Number(s.id), firstPassage: s.first_passage, createdAt: s.created_at.getTime() }));
}

/** The chunks of the terms in the segments when the cache holds every one of them; undefined otherwise. */
function chunksFrom(cache: PostingsCache, segments: readonly ActiveSegment[], termIds: readonly number[]): TermChunk[] | undefined {
  const out: TermChunk[] = [];
  for (const segment of segments) {
    const packed = cache.packed(segment);
    for (const termId of termIds) {
      const blocks = packed ? packed.get(termId) ?? NONE : cache.get(PostingsCache.key(segment, termId));
      if (!blocks) return undefined;
      for (const { block, data } of blocks) out.push({ termId, segmentId: segment.id, block, firstPassage: segment.firstPassage, data });
    }
  }
  return out;
}

export async function segmentsOf(db: Executor, mode: Mode, state: IndexSegmentsTable['state']): Promise<Segment[]> {
  return (await segmentsByState(db, mode, [state]))[state];
}

/** The mode's segments in each of the given states, in one read. */
export async function segmentsByState<S extends IndexSegmentsTable['state']>(db: Executor, mode: Mode, states: readonly S[]): Promise<Record<S, Segment[]>> {
  const rows = await db.selectFrom('index_segments').selectAll().where('mode', '=', mode).where('state', 'in', states).orderBy('id').execute();
  const byState = Object.fromEntries(states.map((state) => [state, [] as Segment[]])) as Record<S, Segment[]>;
  for (const r of rows) {
    byState[r.state as S].push({
      id: Number(r.id), level: r.level, postings: Number(r.postings), deadPostings: Number(r.dead_postings),
      firstPassage: r.first_passage, lastPassage: r.last_passage,
    });
  }
  return byState;
}

export interface SegmentStats {
  mode: string;
  level: number;
  segments: number;
  postings: number;
  deadPostings: number;
}

/** Active segments and their postings per mode and level, across the database: what `/metrics` shows of the index. */
export async function segmentStats(db: Kysely<Database>): Promise<SegmentStats[]> {
  const rows = await db.selectFrom('index_segments')
    .select((eb) => ['mode', 'level', eb.fn.countAll().as('segments'), eb.fn.sum('postings').as('postings'), eb.fn.sum('dead_postings').as('dead_postings')])
    .where('state', '=', 'active').groupBy(['mode', 'level']).orderBy('mode').orderBy('level').execute();
  return rows.map((r) => ({
    mode: r.mode, level: r.level, segments: Number(r.segments), postings: Number(r.postings), deadPostings: Number(r.dead_postings),
  }));
}

/**
 * Counts the postings of deleted passages against the segments holding them: what tells the
 * merger a segment is worth rewriting. Segments of a mode cover disjoint passage-id ranges
 * (writers of a mode take turns, merges join neighbours), so the range finds the segment.
 */
export async function countDeadPostings(trx: Transaction<Database>, mode: Mode, passages: readonly { id: number; postings: number }[]): Promise<void> {
  if (passages.length === 0) return;
  const dead = new Map<number, number>();
  for (const segment of await segmentsOf(trx, mode, 'active')) {
    const n = passages.reduce((sum, p) => sum + (p.id >= segment.firstPassage && p.id <= segment.lastPassage ? p.postings : 0), 0);
    if (n > 0) dead.set(segment.id, n);
  }
  for (const [id, n] of dead) {
    await trx.updateTable('index_segments').set({ dead_postings: sql`dead_postings + ${n}` }).where('id', '=', id).execute();
  }
}

/** Removes a segment's postings a slice at a time (a huge DELETE would hold its locks and undo for long), then the segment. */
export async function dropSegment(db: Kysely<Database>, segmentId: number): Promise<void> {
  await dropSegments(db, [segmentId]);
}

/** dropSegment for several segments at once (a merge's inputs): the same slices, a statement for all of them instead of one each. */
export async function dropSegments(db: Kysely<Database>, segmentIds: readonly number[]): Promise<void> {
  if (segmentIds.length === 0) return;
  const ids = literalList(segmentIds);
  for (;;) {
    const result = await sql.raw(`DELETE FROM index_segment_postings WHERE segment_id IN (${ids}) ORDER BY segment_id, term_id LIMIT 5000`).execute(db);
    if (Number(result.numAffectedRows ?? 0) < 5000) break;
  }
  await db.deleteFrom('index_segments').where('id', 'in', segmentIds).execute();
}
