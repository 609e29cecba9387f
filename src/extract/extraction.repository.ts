import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

export interface StoredExtraction {
  requestId: string;
  url: string;
  urlHash: string;
  finalUrl: string;
  domain: string;
  title: string | null;
  author: string | null;
  publishedAt: Date | null;
  language: string | null;
  contentText: string;
  contentHash: string;
  wordCount: number;
  fetchedAt: Date;
}

export async function insertExtraction(db: Kysely<Database>, row: StoredExtraction): Promise<number> {
  const result = await db
    .insertInto('extractions')
    .values({
      request_id: row.requestId,
      url: row.url,
      url_hash: row.urlHash,
      final_url: row.finalUrl,
      domain: row.domain,
      title: row.title,
      author: row.author,
      published_at: row.publishedAt,
      language: row.language,
      content_text: row.contentText,
      content_hash: row.contentHash,
      word_count: row.wordCount,
      fetched_at: row.fetchedAt,
    })
    .executeTakeFirstOrThrow();
  return Number(result.insertId);
}

export async function findExtractionByRequestId(db: Kysely<Database>, requestId: string): Promise<StoredExtraction | undefined> {
  const row = await db.selectFrom('extractions').selectAll().where('request_id', '=', requestId).executeTakeFirst();
  if (!row) return undefined;
  return {
    requestId: row.request_id,
    url: row.url,
    urlHash: row.url_hash,
    finalUrl: row.final_url,
    domain: row.domain,
    title: row.title,
    author: row.author,
    publishedAt: row.published_at,
    language: row.language,
    contentText: row.content_text,
    contentHash: row.content_hash,
    wordCount: row.word_count,
    fetchedAt: row.fetched_at,
  };
}
