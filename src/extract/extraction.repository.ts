import type { Kysely, Selectable } from 'kysely';
import type { Database, ExtractionsTable } from '../storage/schema.js';

/** One stored extraction: what the index reads, and what a repeated request can be served from. */
export interface StoredExtraction {
  requestId: string;
  url: string;
  urlHash: string;
  finalUrl: string;
  canonicalUrl: string | null;
  domain: string;
  title: string | null;
  author: string | null;
  publishedAt: Date | null;
  language: string | null;
  siteName: string | null;
  description: string | null;
  contentText: string;
  contentHash: string;
  wordCount: number;
  /** The main content as the block model, JSON; null for rows stored before it was kept. */
  blocksJson: string | null;
  qualityScore: number | null;
  cleanHtml: boolean;
  /** Hash of the selectors that shaped it (extractionScope), null for the page's own main content. */
  scope: string | null;
  /** The page's other links ({url, text, location}[]) as JSON; null when they were not read. */
  otherLinksJson: string | null;
  mode: string;
  fetchedAt: Date;
  /** A PDF's pages and last modification; null for web pages. */
  pageCount: number | null;
  modifiedAt: Date | null;
}

function toStored(row: Selectable<ExtractionsTable>): StoredExtraction {
  return {
    requestId: row.request_id,
    url: row.url,
    urlHash: row.url_hash,
    finalUrl: row.final_url,
    canonicalUrl: row.canonical_url,
    domain: row.domain,
    title: row.title,
    author: row.author,
    publishedAt: row.published_at,
    language: row.language,
    siteName: row.site_name,
    description: row.description,
    contentText: row.content_text,
    contentHash: row.content_hash,
    wordCount: row.word_count,
    blocksJson: row.blocks_json,
    qualityScore: row.quality_score,
    cleanHtml: Boolean(row.clean_html),
    scope: row.scope,
    otherLinksJson: row.other_links_json,
    mode: row.mode,
    fetchedAt: row.fetched_at,
    pageCount: row.page_count,
    modifiedAt: row.modified_at,
  };
}

/** Rows in one multi-row INSERT (one statement, one commit). */
export async function insertExtractions(db: Kysely<Database>, rows: readonly StoredExtraction[]): Promise<void> {
  await db
    .insertInto('extractions')
    .values(rows.map((row) => ({
      request_id: row.requestId,
      url: row.url,
      url_hash: row.urlHash,
      final_url: row.finalUrl,
      canonical_url: row.canonicalUrl,
      domain: row.domain,
      title: row.title,
      author: row.author,
      published_at: row.publishedAt,
      language: row.language,
      site_name: row.siteName,
      description: row.description,
      content_text: row.contentText,
      content_hash: row.contentHash,
      word_count: row.wordCount,
      blocks_json: row.blocksJson,
      quality_score: row.qualityScore,
      clean_html: row.cleanHtml ? 1 : 0,
      scope: row.scope,
      other_links_json: row.otherLinksJson,
      mode: row.mode,
      fetched_at: row.fetchedAt,
      page_count: row.pageCount,
      modified_at: row.modifiedAt,
    })))
    .execute();
}

export async function findExtractionByRequestId(db: Kysely<Database>, requestId: string): Promise<StoredExtraction | undefined> {
  const row = await db.selectFrom('extractions').selectAll().where('request_id', '=', requestId).executeTakeFirst();
  return row && toStored(row);
}

/**
 * The newest extraction of a URL (same clean_html, same scope, same mode) fetched at or after
 * `since`; with `otherLinks`, only one that kept the page's other links.
 */
export async function findFreshExtraction(
  db: Kysely<Database>,
  key: { urlHash: string; cleanHtml: boolean; scope: string | null; mode: string; otherLinks: boolean },
  since: Date,
): Promise<StoredExtraction | undefined> {
  let query = db
    .selectFrom('extractions')
    .selectAll()
    .where('url_hash', '=', key.urlHash)
    .where('clean_html', '=', key.cleanHtml ? 1 : 0)
    .where('scope', key.scope === null ? 'is' : '=', key.scope)
    .where('mode', '=', key.mode)
    .where('fetched_at', '>=', since)
    .where('blocks_json', 'is not', null);
  if (key.otherLinks) query = query.where('other_links_json', 'is not', null);
  const row = await query.orderBy('fetched_at', 'desc').limit(1).executeTakeFirst();
  return row && toStored(row);
}
