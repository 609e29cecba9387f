import type { Kysely } from 'kysely';
import type { KeyMode } from '../auth/keys.repository.js';
import type { Database } from '../storage/schema.js';
import { idf } from '../../workers/pool/bm25.js';
import { analyzeQuery } from './analysis-adapter.js';
import { findTerms, readStats } from './corpus.repository.js';
import { queryLanguage } from './query-language.js';
import type { QueryWeights } from './types.js';

/**
 * The query's terms as retrieve() weighs them (same language choice, analysis and idf), so
 * that the ranking stage can score text the index did not (search engine snippets, pages
 * fetched live) on the index's scale.
 */
export async function queryWeights(db: Kysely<Database>, mode: KeyMode, query: string, given: string | undefined): Promise<QueryWeights> {
  const language = await queryLanguage(db, mode, given);
  const stats = await readStats(db, mode);
  if (!stats || stats.passages <= 0) return { language, termWeights: {}, avgPassageLength: 0, avgDocumentLength: 0 };
  const termWeights: Record<string, number> = {};
  for (const [term, { df }] of await findTerms(db, mode, [...new Set(analyzeQuery(query, language))])) {
    // Statistics and terms are separate reads: a write in between may leave df above the passage count (as in retriever.ts).
    if (df > 0) termWeights[term] = idf(Math.min(df, stats.passages), stats.passages);
  }
  return {
    language, termWeights, avgPassageLength: stats.totalLength / stats.passages,
    avgDocumentLength: stats.documents > 0 ? stats.totalLength / stats.documents : 0,
  };
}
