/**
 * The contract of the search index: what goes in, what comes out. Every way in (extract,
 * POST /v1/index/documents, crawls) hands documents to a DocumentIndex; search and validate
 * read passages back through retrieve().
 */
import type { KeyMode } from '../auth/keys.repository.js';

export interface IndexDocumentInput {
  url: string;
  title: string | null;
  /** The document's text (already extracted from HTML or Markdown). */
  text: string;
  /** ISO 639-1 code when known; detected from the text otherwise. */
  language: string | null;
  author: string | null;
  publishedAt: Date | null;
  fetchedAt: Date;
  /** Country the document is about or published in (ISO 3166-1 alpha-2), when known. */
  countryHint: string | null;
  /** Prior trust in the source, 0..1, when known (for example from a configured domain list). */
  authority: number | null;
}

export type IndexStatus = 'indexed' | 'replaced' | 'unchanged' | 'duplicate';

export interface IndexOutcome {
  url: string;
  status: IndexStatus;
  documentId: number;
  passages: number;
  /** For a near-duplicate: the document it copies (its passages are still stored and searchable, ranked as one story). */
  duplicateOf: number | null;
}

export interface RetrievedPassage {
  passageId: number;
  documentId: number;
  score: number;
  text: string;
  url: string;
  title: string | null;
  domain: string;
  language: string | null;
  publishedAt: Date | null;
  fetchedAt: Date;
  duplicateOf: number | null;
}

export interface RetrieveOptions {
  limit: number;
  language?: string;
  domains?: { include?: string[]; exclude?: string[] };
  publishedAfter?: Date;
}

export interface DocumentIndex {
  /** Indexes documents (of one mode: sandbox documents never mix with live ones); searchable when this resolves. */
  indexDocuments(mode: KeyMode, documents: readonly IndexDocumentInput[]): Promise<IndexOutcome[]>;
  deleteByUrls(mode: KeyMode, urls: readonly string[]): Promise<number>;
  /** Deletes the documents of a domain and of its subdomains. */
  deleteByDomain(mode: KeyMode, domain: string): Promise<number>;
  /** Top passages for a query, best first (BM25 or better). */
  retrieve(mode: KeyMode, query: string, options: RetrieveOptions): Promise<RetrievedPassage[]>;
}
