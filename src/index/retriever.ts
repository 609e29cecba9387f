import type { Kysely } from 'kysely';
import type { Mode } from '../mode.js';
import type { CpuPool } from '../pool/pool.js';
import type { Database } from '../storage/schema.js';
import type { ScoreSegmentsOutput } from './score-segments.js';
import { passagesOfDomains, readPassageDocuments, readPassages, type PassageDocument } from './corpus.repository.js';
import { withinDomain } from './domain.js';
import type { WeighedQuery } from './query-weights.js';
import { readTermChunks } from './segments.repository.js';
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
  db: Kysely<Database>, pool: CpuPool, mode: Mode, { stats, terms }: WeighedQuery, options: RetrieveOptions, tuning: ScoringTuning = DEFAULT_TUNING,
): Promise<RetrievedPassage[]> {
  const limit = Math.max(1, Math.min(Math.floor(options.limit), MAX_LIMIT));
  if (!stats || terms.length === 0) return [];

  const termIndex = new Map(terms.map((t, i) => [t.id, i]));
  const segments: { first: number }[] = [];
  const segmentIndex = new Map<number, number>();
  const chunks = (await readTermChunks(db, terms.map((t) => t.id))).map((c) => {
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
  const documents = new Map<number, PassageDocument>();
  const maxCandidates = tuning.maxCandidates;
  for (let want = Math.max(2 * limit, 32); ; want = Math.min(want * 4, maxCandidates)) {
    const ranked = mergeRankings(await Promise.all(parts.map((part) => pool.run('scoreSegments', { ...part, want }))), want);
    searchStageDone('score postings');
    const accepted = await acceptInOrder(db, ranked, documents, options, limit);
    if (accepted.length === limit || ranked.passages.length < want || want === maxCandidates) {
      const passages = await present(db, accepted);
      searchStageDone('filter and read passages');
      return passages;
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
}

export const DEFAULT_TUNING: ScoringTuning = { splitBytes: 512 * 1024, maxCandidates: 20_000, maxAllowed: 20_000 };

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

interface Accepted {
  passageId: number;
  score: number;
}

/** Walks the ranking best first, keeping passages that pass the filters and are not another copy of a story already listed. */
async function acceptInOrder(
  db: Kysely<Database>, ranked: ScoreSegmentsOutput, documents: Map<number, PassageDocument>, options: RetrieveOptions, limit: number,
): Promise<Accepted[]> {
  const accepted: Accepted[] = [];
  const storyDocument = new Map<number, number>();
  const batch = Math.max(64, limit * 2);
  for (let i = 0; i < ranked.passages.length && accepted.length < limit; i++) {
    const passageId = ranked.passages[i]!;
    if (!documents.has(passageId)) {
      const missing = ranked.passages.slice(i, i + batch).filter((id) => !documents.has(id));
      for (const doc of await readPassageDocuments(db, missing)) documents.set(doc.passageId, doc);
    }
    const doc = documents.get(passageId);
    // A deleted passage keeps its postings until a merge drops them: it is simply skipped.
    if (!doc || !passesFilters(doc, options)) continue;
    const story = doc.duplicateOf ?? doc.documentId;
    const owner = storyDocument.get(story);
    if (owner !== undefined && owner !== doc.documentId) continue;
    storyDocument.set(story, doc.documentId);
    accepted.push({ passageId, score: ranked.scores[i]! });
  }
  return accepted;
}
function passesFilters(doc: PassageDocument, options: RetrieveOptions): boolean {
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

async function present(db: Kysely<Database>, accepted: Accepted[]): Promise<RetrievedPassage[]> {
  const rows = new Map((await readPassages(db, accepted.map((a) => a.passageId))).map((r) => [Number(r.id), r]));
  return accepted.flatMap(({ passageId, score }) => {
    const row = rows.get(passageId);
    if (!row) return [];
    return [{
      passageId, documentId: Number(row.document_id), score, text: row.text, url: row.url, title: row.title, domain: row.domain,
      language: row.language, publishedAt: row.published_at, fetchedAt: row.fetched_at, duplicateOf: row.duplicate_of === null ? null : Number(row.duplicate_of),
      countryHint: row.country_hint, authority: row.authority === null ? null : Number(row.authority), first: Number(row.position) === 0, documentLength: Number(row.length),
    }];
  });
}
