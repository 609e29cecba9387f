import type { Kysely } from 'kysely';
import type { Mode } from '../mode.js';
import type { CpuPool } from '../pool/pool.js';
import type { Database } from '../storage/schema.js';
import type { ScoreSegmentsOutput } from './score-segments.js';
import { passagesOfDomains, readPassages } from './corpus.repository.js';
import { withinDomain } from './domain.js';
import type { WeighedQuery } from './query-weights.js';
import { readTermChunks } from './segments.repository.js';
import type { PostingsCache } from './postings-cache.js';
import type { RetrievedPassage, RetrieveOptions } from './types.js';
import { searchStageDone } from '../metrics/search-stages.js';

const MAX_LIMIT = 1000;

/**
 * Exact BM25 top-k of a query weighed by weighQuery (query-weights.ts): every stored posting of the query terms is read (a row per term, segment
 * and block of passage ids) and scored in the pool, so the ranking is the exhaustive one by construction.
 * The pool returns the best few times k; filters, deleted passages and copies of one story
 * are applied to that ranking in order, and if they leave fewer than k the pool is asked for
 * a longer ranking of the same postings.
 */
export async function retrievePassages(
  db: Kysely<Database>, pool: CpuPool, cache: PostingsCache, mode: Mode, { stats, terms }: WeighedQuery, options: RetrieveOptions, tuning: ScoringTuning = DEFAULT_TUNING,
): Promise<RetrievedPassage[]> {
  const limit = Math.max(1, Math.min(Math.floor(options.limit), MAX_LIMIT));
  if (!stats || terms.length === 0) return [];

  const termIndex = new Map(terms.map((t, i) => [t.id, i]));
  const segments: { first: number }[] = [];
  const segmentIndex = new Map<number, number>();
  const chunks = (await readTermChunks(db, cache, mode, terms.map((t) => t.id))).map((c) => {
    let segment = segmentIndex.get(c.segmentId);
    if (segment === undefined) {
      segment = segments.push({ first: c.firstPassage }) - 1;
      segmentIndex.set(c.segmentId, segment);
    }
    return { term: termIndex.get(c.termId)!, segment, block: c.block, data: c.data };
  });
  searchStageDone('read postings');
  const weights = terms.map((t) => t.idf);
  const avgdl = stats.totalLength / stats.passages;
  const allowed = await allowedPassages(db, mode, options, tuning.maxAllowed);
  const parts = splitByBlock(chunks, pool.size, tuning.splitBytes).map((part) => ({ idf: weights, avgdl, segments, chunks: part, ...(allowed ? { allowed } : {}) }));
  const rows = new Map<number, PassageRow | null>();
  const maxCandidates = tuning.maxCandidates;
  for (let want = Math.max(2 * limit, 32); ; want = Math.min(want * 4, maxCandidates)) {
    const ranked = mergeRankings(await Promise.all(parts.map((part) => pool.run('scoreSegments', { ...part, want }))), want);
    searchStageDone('score postings');
    const accepted = await acceptInOrder(db, ranked, rows, options, limit);
    if (accepted.length === limit || ranked.passages.length < want || want === maxCandidates) {
      searchStageDone('filter and read passages');
      return accepted;
    }
  }
}

export interface ScoringTuning {
  /** Below this many bytes of postings a query is scored by one thread: splitting would cost more than it saves. */
  splitBytes: number;
  /**
   * Filters and duplicate collapsing look at this many of the best-scoring passages at most: a
   * filter that rejects nearly everything the query matches gets fewer than k results rather
   * than a walk through every match, document lookups included.
   */
  maxCandidates: number;
  /**
   * A domain filter whose domains hold at most this many passages is applied while scoring
   * (only their passages are ranked), so a small site is searched in full however many other
   * passages outrank its own; a broader one is applied to the ranking afterwards, where it
   * rejects few passages.
   */
  maxAllowed: number;
  /** Postings kept in memory for the next queries (SEARCH_POSTINGS_CACHE_MB; postings-cache.ts); 0 reads every query's from MySQL. */
  postingsCacheBytes: number;
}

export const DEFAULT_TUNING: ScoringTuning = { splitBytes: 512 * 1024, maxCandidates: 20_000, maxAllowed: 20_000, postingsCacheBytes: 128 * 2 ** 20 };

/**
 * The passages of the included domains (subdomains included), ascending, when there are at
 * most `max` of them; undefined without an include filter or when it is too broad to list.
 */
async function allowedPassages(db: Kysely<Database>, mode: Mode, options: RetrieveOptions, max: number): Promise<Uint32Array | undefined> {
  const include = options.domains?.include ?? [];
  if (include.length === 0) return undefined;
  const ids = await passagesOfDomains(db, mode, include, max + 1);
  return ids.length > max ? undefined : Uint32Array.from(ids).sort();
}

/**
 * A large query's blocks spread over the pool's threads (a block's chunks stay together: its
 * totals must see all of them), each part about the same number of bytes, so one query uses
 * every core when the service is not busy.
 */
function splitByBlock<T extends { segment: number; block: number; data: Uint8Array }>(chunks: T[], threads: number, splitBytes: number): T[][] {
  const byBlock = new Map<string, { chunks: T[]; bytes: number }>();
  let total = 0;
  for (const chunk of chunks) {
    const key = `${chunk.segment}:${chunk.block}`;
    const entry = byBlock.get(key) ?? { chunks: [], bytes: 0 };
    entry.chunks.push(chunk);
    entry.bytes += chunk.data.byteLength;
    byBlock.set(key, entry);
    total += chunk.data.byteLength;
  }
  const count = total < splitBytes ? 1 : Math.max(1, Math.min(threads, byBlock.size));
  const parts = Array.from({ length: count }, () => ({ chunks: [] as T[], bytes: 0 }));
  // Largest blocks first, each to the lightest part so far.
  for (const entry of [...byBlock.values()].sort((a, b) => b.bytes - a.bytes)) {
    const lightest = parts.reduce((min, part) => (part.bytes < min.bytes ? part : min));
    lightest.chunks.push(...entry.chunks);
    lightest.bytes += entry.bytes;
  }
  return parts.map((p) => p.chunks);
}

/** The best `want` of several parts' rankings, in the scoring task's order (score, then lower id). */
function mergeRankings(rankings: ScoreSegmentsOutput[], want: number): ScoreSegmentsOutput {
  if (rankings.length === 1) return rankings[0]!;
  const all = rankings.flatMap((r) => r.passages.map((passage, i) => ({ passage, score: r.scores[i]! })));
  all.sort((a, b) => b.score - a.score || a.passage - b.passage);
  const best = all.slice(0, want);
  return { passages: best.map((e) => e.passage), scores: best.map((e) => e.score), matched: rankings.reduce((sum, r) => sum + r.matched, 0) };
}

/** A candidate passage as read from MySQL (text and document fields): what filters look at and what retrieval returns. */
type PassageRow = Omit<RetrievedPassage, 'score'>;

/**
 * Walks the ranking best first, keeping passages that pass the filters and are not another copy
 * of a story already listed. Passages are read (text and document fields in one statement) a
 * batch at a time as the walk reaches them: a batch a little longer than `limit`, so a query
 * that nothing filters out reads what it returns and a few more, once. `rows` keeps what was
 * read (null: deleted meanwhile) for a longer ranking of the same query.
 */
async function acceptInOrder(
  db: Kysely<Database>, ranked: ScoreSegmentsOutput, rows: Map<number, PassageRow | null>, options: RetrieveOptions, limit: number,
): Promise<RetrievedPassage[]> {
  const accepted: RetrievedPassage[] = [];
  const storyDocument = new Map<number, number>();
  const batch = limit + Math.max(16, Math.ceil(limit / 4));
  for (let i = 0; i < ranked.passages.length && accepted.length < limit; i++) {
    const passageId = ranked.passages[i]!;
    if (!rows.has(passageId)) {
      const missing = ranked.passages.slice(i, i + batch).filter((id) => !rows.has(id));
      for (const id of missing) rows.set(id, null);
      for (const row of await readPassages(db, missing)) rows.set(row.passageId, row);
    }
    const row = rows.get(passageId);
    // A deleted passage keeps its postings until a merge drops them: it is simply skipped.
    if (!row || !passesFilters(row, options)) continue;
    const story = row.duplicateOf ?? row.documentId;
    const owner = storyDocument.get(story);
    if (owner !== undefined && owner !== row.documentId) continue;
    storyDocument.set(story, row.documentId);
    accepted.push({ ...row, score: ranked.scores[i]! });
  }
  return accepted;
}

function passesFilters(doc: PassageRow, options: RetrieveOptions): boolean {
  if (options.language && primaryLanguage(doc.language) !== primaryLanguage(options.language)) return false;
  const include = options.domains?.include ?? [];
  if (include.length > 0 && !include.some((d) => withinDomain(doc.domain, d))) return false;
  if ((options.domains?.exclude ?? []).some((d) => withinDomain(doc.domain, d))) return false;
  // An undated document counts from when it was fetched: the newest it can be shown to be.
  if (options.publishedAfter && !((doc.publishedAt ?? doc.fetchedAt) > options.publishedAfter)) return false;
  return true;
}

function primaryLanguage(language: string | null): string {
  return (language ?? '').toLowerCase().split(/[-_]/)[0]!;
}
