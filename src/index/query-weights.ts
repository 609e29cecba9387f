import type { Kysely } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { idf } from '../ranking/bm25.js';
import { analyzeQuery } from '../text/analyze.js';
import { readStatsAndTerms, type CorpusStats } from './corpus.repository.js';
import { queryLanguage } from './query-language.js';
import type { QueryWeights } from './types.js';

export interface WeighedQuery {
  /** The language the query was analysed in. */
  language: string | null;
  /** The mode's statistics; null for an empty index. */
  stats: CorpusStats | null;
  /** The query's distinct analysed terms that the index holds, with their idf. */
  terms: { term: string; id: number; idf: number }[];
}

/**
 * The query's terms as the index weighs them: its language (the caller's, else the mode's
 * main one), analysis, and BM25 idf over the current statistics. Retrieval scores with them,
 * and the ranking stage scores text the index did not (search engine snippets, pages fetched
 * live) on the same scale.
 */
export async function weighQuery(db: Kysely<Database>, mode: Mode, query: string, given: string | undefined): Promise<WeighedQuery> {
  const language = await queryLanguage(db, mode, given);
  const read = await readStatsAndTerms(db, mode, [...new Set(analyzeQuery(query, language))]);
  const stats = read.stats;
  if (!stats || stats.passages <= 0) return { language, stats: null, terms: [] };
  const terms: WeighedQuery['terms'] = [];
  for (const [term, { id, df }] of read.terms) {
    // Read in one snapshot, a df never exceeds the passages counted with it (each write updates
    // both in one transaction); capped all the same, since an idf past it would turn negative.
    if (df > 0) terms.push({ term, id, idf: idf(Math.min(df, stats.passages), stats.passages) });
  }
  return { language, stats, terms };
}

/** weighQuery's answer in the form the ranking stage takes. */
export function queryWeights({ language, stats, terms }: WeighedQuery): QueryWeights {
  if (!stats) return { language, termWeights: {}, avgPassageLength: 0, avgDocumentLength: 0 };
  return {
    language,
    termWeights: Object.fromEntries(terms.map((t) => [t.term, t.idf])),
    avgPassageLength: stats.totalLength / stats.passages,
    avgDocumentLength: stats.documents > 0 ? stats.totalLength / stats.documents : 0,
  };
}
