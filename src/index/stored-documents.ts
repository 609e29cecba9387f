/**
 * The text the index holds for documents named by URL: their passages joined in order. The
 * compatibility endpoints answer a vendor's "page content" of a search result with it (Tavily's
 * raw_content, Exa's text), the text the search ranked, without fetching the page again.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { Mode } from '../mode.js';
import { sha256Hex } from '../storage/hash.js';

export interface StoredDocument {
  url: string;
  title: string | null;
  author: string | null;
  language: string | null;
  publishedAt: Date | null;
  fetchedAt: Date;
  /** The passages, in order, separated by blank lines (passages are runs of whole sentences; they do not overlap). */
  text: string;
}

export class StoredDocuments {
  constructor(private readonly db: Kysely<Database>) {}

  /** The documents of `mode` stored under these URLs, by URL; a URL the index does not hold is absent. */
  async byUrls(mode: Mode, urls: readonly string[]): Promise<Map<string, StoredDocument>> {
    const found = new Map<string, StoredDocument>();
    if (urls.length === 0) return found;
    const documents = await this.db.selectFrom('index_documents')
      .select(['id', 'url', 'title', 'author', 'language', 'published_at', 'fetched_at'])
      .where('mode', '=', mode).where('url_hash', 'in', [...new Set(urls)].map(sha256Hex)).execute();
    if (documents.length === 0) return found;
    const passages = await this.db.selectFrom('index_passages').select(['document_id', 'text'])
      .where('document_id', 'in', documents.map((d) => d.id)).orderBy('document_id').orderBy('position').execute();
    const texts = new Map<number, string[]>();
    for (const p of passages) texts.set(Number(p.document_id), [...(texts.get(Number(p.document_id)) ?? []), p.text]);
    for (const d of documents) {
      found.set(d.url, {
        url: d.url, title: d.title, author: d.author, language: d.language, publishedAt: d.published_at, fetchedAt: d.fetched_at,
        text: (texts.get(Number(d.id)) ?? []).join('\n\n'),
      });
    }
    return found;
  }
}
