import type { Kysely } from 'kysely';
import type { KeyMode } from '../auth/keys.repository.js';
import type { CpuPool } from '../pool/pool.js';
import type { Database } from '../storage/schema.js';
import { idf } from '../../workers/pool/bm25.js';
import type { ScoreSegmentsOutput } from '../../workers/pool/score-segments.js';
import { analyzeQuery } from './analysis-adapter.js';
import { findTerms, readPassageDocuments, readPassages, readStats, type PassageDocument } from './corpus.repository.js';
import { withinDomain } from './domain.js';
import { queryLanguage } from './query-language.js';
import { readTermChunks } from './segments.repository.js';
import type { RetrievedPassage, RetrieveOptions } from './types.js';

const MAX_LIMIT = 1000;

/**
 * Exact BM25 top-k: every stored posting of the query terms is read (a few rows per term, one
 * per segment) and scored in the pool, so the ranking is the exhaustive one by construction.
 * The pool returns the best few times k; filters, deleted passages and copies of one story
 * are applied to that ranking in order, and if they leave fewer than k the pool is asked for
 * a longer ranking of the same postings.
 */
export async function retrievePassages(
  db: Kysely<Database>, pool: CpuPool, mode: KeyMode, query: string, options: RetrieveOptions,
): Promise<RetrievedPassage[]> {
  const limit = Math.max(1, Math.min(Math.floor(options.limit), MAX_LIMIT));
  const stats = await readStats(db, mode);
  if (!stats || stats.passages <= 0) return [];
  const queryTerms = [...new Set(analyzeQuery(query, await queryLanguage(db, mode, options.language)))];
  const terms = [...(await findTerms(db, mode, queryTerms)).values()].filter((t) => t.df > 0);
  if (terms.length === 0) return [];

  const termIndex = new Map(terms.map((t, i) => [t.id, i]));
  const segments: { first: number; last: number }[] = [];
  const segmentIndex = new Map<number, number>();
  const chunks = (await readTermChunks(db, terms.map((t) => t.id))).map((c) => {
    let segment = segmentIndex.get(c.segmentId);
    if (segment === undefined) {
      segment = segments.push({ first: c.firstPassage, last: c.lastPassage }) - 1;
      segmentIndex.set(c.segmentId, segment);
    }
    return { term: termIndex.get(c.termId)!, segment, data: c.data };
  });
  const scoring = { idf: terms.map((t) => idf(t.df, stats.passages)), avgdl: stats.totalLength / stats.passages, segments, chunks };
  const documents = new Map<number, PassageDocument>();
  for (let want = Math.max(2 * limit, 32); ; want *= 4) {
    const ranked = await pool.run('scoreSegments', { ...scoring, want });
    const accepted = await acceptInOrder(db, ranked, documents, options, limit);
    if (accepted.length === limit || ranked.passages.length < want) return present(db, accepted);
  }
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
  // A document without a date cannot show it is recent enough.
  if (options.publishedAfter && !(doc.publishedAt && doc.publishedAt > options.publishedAfter)) return false;
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
    }];
  });
}
