import type { Kysely } from 'kysely';
import type { KeyMode } from '../auth/keys.repository.js';
import type { CpuPool } from '../pool/pool.js';
import type { Database } from '../storage/schema.js';
import { IMPACT_SCALE, idf, impactSlack } from '../../workers/pool/bm25.js';
import type { ScorePassagesOutput } from '../../workers/pool/score-passages.js';
import { analyzeQuery } from './analysis-adapter.js';
import { withinDomain } from './domain.js';
import { queryLanguage } from './query-language.js';
import {
  findTerms, readPassageDocuments, readPassagePostings, readPassages, readPostingSlice, readStats, type PassageDocument,
} from './postings.repository.js';
import type { RetrievedPassage, RetrieveOptions } from './types.js';

const MAX_LIMIT = 1000;
/** Postings read per term in the first round; each further round reads twice as many. */
const FIRST_SLICE = 128;

interface TermList {
  id: number;
  idf: number;
  read: number;
  /** Impact weight of the last posting read: no unread posting of the list weighs more. */
  frontier: number;
  exhausted: boolean;
}

/**
 * Exact BM25 top-k by a threshold algorithm over impact-ordered postings. Each round reads the
 * next slice of every query term's list (best passages first), scores every passage seen so
 * far exactly (all its postings for the query terms, scored in the pool), and stops once the
 * k-th accepted score reaches what any unseen passage could still score: the sum over unread
 * lists of idf × frontier impact (× the avgdl slack, see bm25.ts). Filters and near-duplicate
 * collapsing act on the ranked candidates, so the bound stays valid for them too.
 */
export async function retrievePassages(
  db: Kysely<Database>, pool: CpuPool, mode: KeyMode, query: string, options: RetrieveOptions,
): Promise<RetrievedPassage[]> {
  const limit = Math.max(1, Math.min(Math.floor(options.limit), MAX_LIMIT));
  const stats = await readStats(db, mode);
  if (!stats || stats.passages <= 0) return [];
  const queryTerms = [...new Set(analyzeQuery(query, await queryLanguage(db, mode, options.language)))];
  const found = await findTerms(db, mode, queryTerms);
  const lists: TermList[] = [...found.values()].filter((t) => t.df > 0)
    .map((t) => ({ id: t.id, idf: idf(t.df, stats.passages), read: 0, frontier: Infinity, exhausted: false }));
  if (lists.length === 0) return [];

  const avgdl = stats.totalLength / stats.passages;
  const slack = impactSlack(avgdl, stats.referenceAvgdl);
  const termIndex = new Map(lists.map((l, i) => [l.id, i]));
  const seen = new Set<number>();
  const postings = { passage: [] as number[], term: [] as number[], tf: [] as number[], length: [] as number[] };
  const documents = new Map<number, PassageDocument>();

  for (let slice = FIRST_SLICE; ; slice *= 2) {
    const open = lists.filter((l) => !l.exhausted);
    const slices = await Promise.all(open.map((l) => readPostingSlice(db, l.id, l.read, slice)));
    const fresh: number[] = [];
    open.forEach((list, i) => {
      const rows = slices[i]!;
      list.read += rows.length;
      if (rows.length < slice) list.exhausted = true;
      else list.frontier = rows[rows.length - 1]!.impact / IMPACT_SCALE;
      for (const row of rows) if (!seen.has(row.passageId)) { seen.add(row.passageId); fresh.push(row.passageId); }
    });
    for (const row of await readPassagePostings(db, fresh, lists.map((l) => l.id))) {
      postings.passage.push(Number(row.passage_id));
      postings.term.push(termIndex.get(Number(row.term_id))!);
      postings.tf.push(row.tf);
      postings.length.push(row.length);
    }
    const ranked = await pool.run('scorePassages', { idf: lists.map((l) => l.idf), avgdl, ...postings });
    const accepted = await acceptInOrder(db, ranked, documents, options, limit);
    const unseenBound = slack * lists.reduce((sum, l) => sum + (l.exhausted ? 0 : l.idf * l.frontier), 0);
    const threshold = accepted.length === limit ? accepted[limit - 1]!.score : -Infinity;
    if (threshold >= unseenBound || lists.every((l) => l.exhausted)) return present(db, accepted);
  }
}

interface Accepted {
  passageId: number;
  score: number;
}

/** Walks the ranking best first, keeping passages that pass the filters and are not another copy of a story already listed. */
async function acceptInOrder(
  db: Kysely<Database>, ranked: ScorePassagesOutput, documents: Map<number, PassageDocument>, options: RetrieveOptions, limit: number,
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
    // A passage deleted since its postings were read is simply skipped.
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
