import type { Kysely } from 'kysely';
import type { Mode } from '../mode.js';
import type { Database } from '../storage/schema.js';
import { domainPattern } from './domain.js';

export interface CorpusStats {
  documents: number;
  passages: number;
  totalLength: number;
}

export async function readStats(db: Kysely<Database>, mode: Mode): Promise<CorpusStats | null> {
  const row = await db.selectFrom('index_stats').selectAll().where('mode', '=', mode).executeTakeFirst();
  return row ? { documents: Number(row.documents), passages: Number(row.passages), totalLength: Number(row.total_length) } : null;
}

export async function findTerms(db: Kysely<Database>, mode: Mode, terms: readonly string[]): Promise<Map<string, { id: number; df: number }>> {
  if (terms.length === 0) return new Map();
  const rows = await db.selectFrom('index_terms').select(['id', 'term', 'df']).where('mode', '=', mode).where('term', 'in', terms).execute();
  return new Map(rows.map((r) => [r.term, { id: Number(r.id), df: Number(r.df) }]));
}

export interface PassageDocument {
  passageId: number;
  documentId: number;
  domain: string;
  language: string | null;
  publishedAt: Date | null;
  fetchedAt: Date;
  duplicateOf: number | null;
}

/** The document fields filters and duplicate collapsing look at, for candidate passages. */
export async function readPassageDocuments(db: Kysely<Database>, passageIds: readonly number[]): Promise<PassageDocument[]> {
  if (passageIds.length === 0) return [];
  const rows = await db.selectFrom('index_passages as p').innerJoin('index_documents as d', 'd.id', 'p.document_id')
    .select(['p.id', 'p.document_id', 'd.domain', 'd.language', 'd.published_at', 'd.fetched_at', 'd.duplicate_of'])
    .where('p.id', 'in', passageIds).execute();
  return rows.map((r) => ({
    passageId: Number(r.id), documentId: Number(r.document_id), domain: r.domain, language: r.language, publishedAt: r.published_at, fetchedAt: r.fetched_at,
    duplicateOf: r.duplicate_of === null ? null : Number(r.duplicate_of),
  }));
}

/** Ids of up to `limit` passages of documents in the given domains or their subdomains. */
export async function passagesOfDomains(db: Kysely<Database>, mode: Mode, domains: readonly string[], limit: number): Promise<number[]> {
  const rows = await db.selectFrom('index_documents as d').innerJoin('index_passages as p', 'p.document_id', 'd.id')
    .select('p.id').where('d.mode', '=', mode)
    .where((eb) => eb.or(domains.map((domain) => eb('d.domain_reversed', 'like', domainPattern(domain)))))
    .limit(limit).execute();
  return rows.map((r) => Number(r.id));
}

/** Text and document fields of the winning passages. */
export async function readPassages(db: Kysely<Database>, passageIds: readonly number[]) {
  if (passageIds.length === 0) return [];
  return db.selectFrom('index_passages as p').innerJoin('index_documents as d', 'd.id', 'p.document_id')
    .select(['p.id', 'p.document_id', 'p.position', 'p.text', 'd.url', 'd.title', 'd.domain', 'd.language', 'd.published_at', 'd.fetched_at', 'd.duplicate_of', 'd.country_hint', 'd.authority', 'd.length'])
    .where('p.id', 'in', passageIds).execute();
}
