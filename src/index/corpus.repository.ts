import { sql, type Kysely } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { domainPattern } from './domain.js';
import type { RetrievedPassage } from './types.js';

export interface CorpusStats {
  documents: number;
  passages: number;
  totalLength: number;
}

/**
 * The mode's statistics and the ids and document frequencies of those of `terms` it holds, in
 * one statement (a round trip fewer per search than two reads; one snapshot, too). Null
 * statistics: nothing was ever indexed in the mode.
 */
export async function readStatsAndTerms(
  db: Kysely<Database>, mode: Mode, terms: readonly string[],
): Promise<{ stats: CorpusStats | null; terms: Map<string, { id: number; df: number }> }> {
  const rows = await db.selectFrom('index_stats as s')
    .leftJoin('index_terms as t', (join) => (terms.length > 0 ? join.onRef('t.mode', '=', 's.mode').on('t.term', 'in', terms) : join.onRef('t.mode', '=', 's.mode').on(sql.lit(false))))
    .select(['s.documents', 's.passages', 's.total_length', 't.id', 't.term', 't.df'])
    .where('s.mode', '=', mode).execute();
  const first = rows[0];
  if (!first) return { stats: null, terms: new Map() };
  const stats = { documents: Number(first.documents), passages: Number(first.passages), totalLength: Number(first.total_length) };
  return { stats, terms: new Map(rows.filter((r) => r.term !== null).map((r) => [r.term!, { id: Number(r.id), df: Number(r.df) }])) };
}

/** Ids of up to `limit` passages of documents in the given domains or their subdomains. */
export async function passagesOfDomains(db: Kysely<Database>, mode: Mode, domains: readonly string[], limit: number): Promise<number[]> {
  const rows = await db.selectFrom('index_documents as d').innerJoin('index_passages as p', 'p.document_id', 'd.id')
    .select('p.id').where('d.mode', '=', mode)
    .where((eb) => eb.or(domains.map((domain) => eb('d.domain_reversed', 'like', domainPattern(domain)))))
    .limit(limit).execute();
  return rows.map((r) => Number(r.id));
}

/** Text and document fields of candidate passages (those of deleted documents are not found). */
export async function readPassages(db: Kysely<Database>, passageIds: readonly number[]): Promise<Omit<RetrievedPassage, 'score'>[]> {
  if (passageIds.length === 0) return [];
  const rows = await db.selectFrom('index_passages as p').innerJoin('index_documents as d', 'd.id', 'p.document_id')
    .select(['p.id', 'p.document_id', 'p.position', 'p.text', 'd.url', 'd.title', 'd.domain', 'd.language', 'd.published_at', 'd.fetched_at', 'd.duplicate_of', 'd.country_hint', 'd.authority', 'd.length'])
    .where('p.id', 'in', passageIds).execute();
  return rows.map((row) => ({
    passageId: Number(row.id), documentId: Number(row.document_id), text: row.text, url: row.url, title: row.title, domain: row.domain,
    language: row.language, publishedAt: row.published_at, fetchedAt: row.fetched_at, duplicateOf: row.duplicate_of === null ? null : Number(row.duplicate_of),
    countryHint: row.country_hint, authority: row.authority === null ? null : Number(row.authority), first: Number(row.position) === 0, documentLength: Number(row.length),
  }));
}
